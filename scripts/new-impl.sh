#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/new-impl.sh NAME KIND [ROOT]: a new implementation under test from
# emitlib/templates/<KIND>/ (make new-impl NAME=... KIND=...), as new-case.sh does for a
# case: its folder impl/<NAME>/ and its row in impl/implementations.txt, which pass `make
# check-impl IMPL=<NAME>` before the first edit. Then replace the template's library with
# the one under test (Documentation/adding.md). ROOT (default: this checkout) is where impl/
# is; tests/harness/test_new_impl.py uses a scratch one.
#
# KIND crates: a producer from the Rust crate registry with inputs of its own: the template
# is a working family over eventheader_dynamic (its crate column eventheader_dynamic@0.5.0),
# with its Cargo.lock resolved here from the ehconf cache's index (offline first).
# KIND rust: a Rust library run through the case descriptions: rust-dynamic's emitter over
# IMPL_SRC_RUST's eventheader_dynamic, with rust-dynamic's declarations, until the library
# under test takes their place.
# KIND c: a C library run through the case descriptions: the template builds the reference
# emitter's driver with its event and contract writers, against IMPL_SRC_EHCONF, until the
# library under test takes their place (impl/<NAME>/build says the steps).
set -eu

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:-}
kind=${2:-}
root=${3:-$here}
kinds=$(cd "$here/emitlib/templates" && ls)
if [[ ! "$name" =~ ^[a-z][a-z0-9-]{0,30}$ ]]; then
    echo "new-impl: NAME must be lower case letters, digits and -, got '$name'" >&2
    exit 2
fi
if [[ -z "$kind" || ! -d "$here/emitlib/templates/$kind" ]]; then
    echo "new-impl: KIND must be one of: $(echo "$kinds" | tr '\n' ' ')(got '$kind')" >&2
    exit 2
fi
if [[ -e "$root/impl/$name" ]] || awk -v n="$name" '!/^#/ && $1 == n { f = 1 } END { exit !f }' \
    "$root/impl/implementations.txt"; then
    echo "new-impl: impl/$name or its row exists; choose another name" >&2
    exit 1
fi
# The provider: Ehconf + the name in CamelCase (my-lib -> EhconfMyLib), like the others.
provider=$(sed -E 's/(^|-)([a-z])/\U\2/g' <<<"$name")
crate=eventheader_dynamic version=0.5.0
cp -r "$here/emitlib/templates/$kind" "$root/impl/$name"
find "$root/impl/$name" -type f -exec sed -i -e "s/@NAME@/$name/g" -e "s/@PROVIDER@/$provider/g" \
    -e "s|@UPSTREAM@|example/$name|g" -e "s/@CRATE@/$crate/g" -e "s/@VERSION@/$version/g" {} +
chmod +x "$root/impl/$name/build"
echo "new-impl: wrote impl/$name/ ($kind)"
row() {
    printf '%-14s%-10s%-10s%-43s%-43s%-14s%-10s%-24s%s\n' "$name" "$@" >>"$root/impl/implementations.txt"
}
case $kind in
crates)
    # The lock: the crates' versions as the index has them, fetched by cargo into the cache.
    cargo_home=${EHCONF_CACHE:-/var/cache/ehconf}/cargo
    mkdir -p "$cargo_home"
    lock=(env CARGO_HOME="$cargo_home" CARGO_TERM_COLOR=never cargo generate-lockfile
        --manifest-path "$root/impl/$name/Cargo.toml")
    if ! "${lock[@]}" --offline 2>/dev/null && ! "${lock[@]}"; then
        echo "new-impl: cargo generate-lockfile failed for impl/$name/Cargo.toml" >&2
        exit 1
    fi
    echo "new-impl: wrote impl/$name/Cargo.lock"
    row rust crates "example/$name" "$crate@$version" own - ehdecode \
        "the template's producer ($kind): replace eventheader_dynamic with the crate under test"
    ;;
rust)
    # It starts as rust-dynamic, so it starts with rust-dynamic's declarations (the same
    # library, the same differences), to be replaced by the library's own.
    {
        echo "# SPDX-License-Identifier: GPL-2.0"
        echo "# $name: its declarations (impl/README.md). It starts as rust-dynamic's emitter"
        echo "# over eventheader_dynamic, so these are rust-dynamic's: replace them with what the"
        echo "# library under test lacks and where it differs, each with its source line."
        grep -v '^#' "$here/impl/rust-dynamic/profile.txt"
    } >"$root/impl/$name/profile.txt"
    row rust RUST microsoft/LinuxTracepoints-Rust - cases emit ehdecode \
        "the template ($kind): rust-dynamic's emitter until the library under test replaces it"
    ;;
c)
    # Built against this repository's lib/eventheader (IMPL_SRC_EHCONF, which make passes)
    # until its build names the library under test.
    row c EHCONF - - cases emit ehdecode \
        "the template ($kind): ehconf's reference emitter until the library under test replaces it"
    ;;
esac
echo "new-impl: added its row to impl/implementations.txt"
echo "new-impl: next: make check-impl IMPL=$name IMPL_VM=0, then make it the producer you judge" \
    "(impl/$name/README.md, Documentation/adding.md)"
