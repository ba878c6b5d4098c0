#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layering.sh "CC FLAGS -I..." ALLOWED_FOLDER... -- SOURCE...
#
# Proves a library's layering: every SOURCE must compile (preprocess) with only the
# given include flags, and every header it reads, system headers aside, must lie in
# one of the ALLOWED_FOLDERs ("lib/eventheader/"). Paths are normalised first, so a
# relative #include "../../decode/include/ehd.h" is caught as well as a new -I.
# Used by lib/*/build.mk (a stamp in every gcc/clang build, so `make test` runs it).
set -eu
cc=$1
shift
allowed=
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
    allowed="$allowed $1"
    shift
done
[ "$#" -gt 0 ] && shift
status=0
for src in "$@"; do
    # -MM lists the headers read, without the system ones; -MT names the target "x".
    # $cc is a command line: word splitting is wanted.
    # shellcheck disable=SC2086
    if ! deps=$($cc -MM -MT x "$src"); then
        echo "check-layering: $src does not compile with only: $cc" >&2
        status=1
        continue
    fi
    for dep in $(printf '%s\n' "$deps" | tr -d '\134'); do
        [ "$dep" = "x:" ] && continue
        rel=$(realpath -m --relative-to=. "$dep")
        ok=0
        for folder in $allowed; do
            case $rel in "$folder"*) ok=1 ;; esac
        done
        if [ "$ok" = 0 ]; then
            echo "check-layering: $src reads $rel, outside$allowed" >&2
            status=1
        fi
    done
done
exit "$status"
