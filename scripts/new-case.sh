#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/new-case.sh NAME [ROOT]: a new conformance case from cases/template/ (make new-case
# NAME=...), as blktests' ./new does: cases/<NAME>.c and its golden skeleton golden/<NAME>.json,
# which agree with each other as written, so `make check-offline` passes before the first
# edit. Then: write the events that prove what the case is for, `make golden CASE=NAME`,
# review every golden line against the case, and `scripts/gen-case-descriptions.py NAME`
# for its description (Documentation/adding.md). ROOT (default: this checkout) is where
# cases/ and golden/ are; tests/harness/test_new_case.py uses a scratch one.
set -eu

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
name=${1:-}
root=${2:-$here}
if [[ ! "$name" =~ ^[a-z][a-z0-9_]{0,40}$ ]]; then
    echo "new-case: NAME must be lower case letters, digits and _ (a C identifier), got '$name'" >&2
    exit 2
fi
if [[ "$name" == kernel_* ]]; then
    echo "new-case: kernel_* cases assert kernel behaviours and have no golden file; see" \
        "Documentation/adding.md, \"A kernel behaviour row\"" >&2
    exit 2
fi
for f in "$root/cases/$name.c" "$root/golden/$name.json"; do
    if [[ -e "$f" ]]; then
        echo "new-case: $f exists; choose another name" >&2
        exit 1
    fi
done
# The provider: Ehconf + the name in CamelCase (my_case -> EhconfMyCase), like the others.
provider=Ehconf$(sed -E 's/(^|_)([a-z])/\U\2/g' <<<"$name")
mkdir -p "$root/cases" "$root/golden"
for pair in "case.c.in:cases/$name.c" "golden.json.in:golden/$name.json"; do
    sed -e "s/@NAME@/$name/g" -e "s/@PROVIDER@/$provider/g" \
        "$here/cases/template/${pair%%:*}" >"$root/${pair#*:}"
    echo "new-case: wrote ${pair#*:}"
done
echo "new-case: next: edit cases/$name.c, make golden CASE=$name, review golden/$name.json," \
    "then scripts/gen-case-descriptions.py $name (Documentation/adding.md)"
