#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/new-decoder.sh NAME [ROOT]: a new decoder under test from emitlib/templates/decoder/
# (make new-decoder NAME=...): its folder decoders/<NAME>/ and its row in
# decoders/decoders.txt, which pass `make check-decoders DECODER=<NAME>` before the first edit
# (the template builds ehconf's own decoder). Then its build becomes the decoder under test
# (decoders/<NAME>/build says how; Documentation/adding.md). ROOT (default: this checkout) is
# where decoders/ is; tests/harness/test_new_impl.py uses a scratch one.
set -eu

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:-}
root=${2:-$here}
if [[ ! "$name" =~ ^[a-z][a-z0-9-]{0,30}$ ]]; then
    echo "new-decoder: NAME must be lower case letters, digits and -, got '$name'" >&2
    exit 2
fi
if [[ -e "$root/decoders/$name" ]] || awk -v n="$name" '!/^#/ && $1 == n { f = 1 } END { exit !f }' \
    "$root/decoders/decoders.txt"; then
    echo "new-decoder: decoders/$name or its row exists; choose another name" >&2
    exit 1
fi
mkdir -p "$root/decoders/$name"
cp -r "$here/emitlib/templates/decoder/." "$root/decoders/$name/"
find "$root/decoders/$name" -type f -exec sed -i -e "s/@NAME@/$name/g" {} +
chmod +x "$root/decoders/$name/build"
echo "new-decoder: wrote decoders/$name/"
# Built against this repository's lib/eventheader (IMPL_SRC_EHCONF, which make passes) until
# its build names the decoder's own checkout.
printf '%-15s%-10s%-10s%-33s%-12s%s\n' "$name" c EHCONF - perf,pipe \
    "the template: ehconf's own decoder until the decoder under test replaces it" \
    >>"$root/decoders/decoders.txt"
echo "new-decoder: added its row to decoders/decoders.txt"
echo "new-decoder: next: make check-decoders DECODER=$name, then make it the decoder you judge" \
    "(decoders/$name/build, Documentation/adding.md)"
