#!/bin/bash
# SPDX-License-Identifier: MIT
# mk/check-help.sh MAKE MAKEFILE...: the self-test of `make help` (run by `make lint-help`).
# Fails when a .PHONY target has no `## target: text` line in MAKEFILE..., or a help line
# names something that is not a target. The .PHONY list comes from make's own database
# (make -p), so a target declared phony anywhere counts.
set -euo pipefail
make_cmd=$1
shift
# -q exits 1 or 2 by design: only the printed database matters.
db=$("$make_cmd" --no-print-directory -pRrq -f Makefile : 2>/dev/null || true)
phony=$(sed -n 's/^\.PHONY: *//p' <<<"$db" | tr ' ' '\n' | sed '/^$/d' | sort -u)
targets=$(sed -n 's/^\([A-Za-z0-9_.-][A-Za-z0-9_.-]*\):\( .*\)\{0,1\}$/\1/p' <<<"$db" | sort -u)
helped=$(sed -n 's/^## \([A-Za-z0-9_.-]*\): .*/\1/p' "$@" | sort)
rc=0
dups=$(uniq -d <<<"$helped")
if [ -n "$dups" ]; then
    echo "lint-help: more than one help line for: $(echo "$dups" | tr '\n' ' ')" >&2
    rc=1
fi
missing=$(comm -23 <(echo "$phony") <(uniq <<<"$helped"))
if [ -n "$missing" ]; then
    echo "lint-help: .PHONY targets without a '## target: text' line: $(echo "$missing" | tr '\n' ' ')" >&2
    rc=1
fi
stale=$(comm -23 <(uniq <<<"$helped") <(echo "$targets"))
if [ -n "$stale" ]; then
    echo "lint-help: help lines for targets that do not exist: $(echo "$stale" | tr '\n' ' ')" >&2
    rc=1
fi
if [ "$rc" = 0 ]; then
    echo "lint-help: $(wc -l <<<"$phony") phony targets, each with its help line"
fi
exit "$rc"
