#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/ci.sh: ehconf's CI job for any CI system (GitHub Actions uses the same steps,
# see .github/workflows/ehconf.yml).
#
#   scripts/ci.sh [all|deps|check|collect]      (default: all = deps, check, collect)
#
#   deps     `make deps` (needs root; without root it only warns and goes on)
#   check    `make check` (unit tests, offline check, the cases on a real kernel in
#            QEMU); its output also goes to $CI_ARTIFACTS/make-check.log
#   collect  copies what a reviewer needs into $CI_ARTIFACTS (default ./ci-artifacts):
#              report.md, junit/*.xml (build/results/*.xml: publish these as test
#              results), from build/results/vm/: console.log, vm.json, vm-run.log, guest-output.log,
#              guest-results.json; vm-results.json, and for every case that failed
#              in the VM its perf.data, decoded JSON, KTAP and perf log
#              (failed-cases/<case>.*), plus failed-cases.txt listing them.
# Exit status: `make check`'s (all, check); 0 for deps/collect unless they cannot run.
# Environment: CI_ARTIFACTS, EHCONF_CACHE (kernel cache, keep it between runs: the
# kernel build takes 6-10 min once), KERNEL_SRC / KERNEL (another kernel, see
# vm/build-kernel), MAKE_CHECK_ARGS (extra make arguments), CI_RESULTS (results folder
# to collect from, default build/results).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
art=${CI_ARTIFACTS:-./ci-artifacts}
results=${CI_RESULTS:-$top/build/results}
what=${1:-all}

say() { printf '[ci] %s\n' "$*"; }
mkdir -p "$art" || { say "cannot create $art"; exit 2; }
art=$(cd "$art" && pwd)

do_deps() {
    if [[ $(id -u) -ne 0 ]]; then
        say "not root: skipping 'make deps' (install the Debian packages it lists by hand)"
        return 0
    fi
    say "make deps"
    make -C "$top" deps
}

do_check() {
    local t0=$SECONDS rc
    say "make check (log: $art/make-check.log)"
    # shellcheck disable=SC2086
    make -C "$top" check ${MAKE_CHECK_ARGS:-} 2>&1 | tee "$art/make-check.log"
    rc=${PIPESTATUS[0]}
    say "make check exited with $rc after $(((SECONDS - t0) / 60))m$(((SECONDS - t0) % 60))s"
    return "$rc"
}

copy() { # src dest-dir: copies if it exists, silently otherwise
    [[ -e "$1" ]] || return 0
    mkdir -p "$2" && cp -a "$1" "$2/"
}

do_collect() {
    say "collecting artifacts into $art"
    copy "$top/report.md" "$art"
    for x in "$results"/*.xml; do copy "$x" "$art/junit"; done
    copy "$results/vm-results.json" "$art"
    for f in console.log vm.json vm-run.log guest-output.log guest-results.json; do
        copy "$results/vm/$f" "$art/vm"
    done
    copy "$results/vm/.vm/dmesg.txt" "$art/vm"
    # Cases with a failed item in the VM (per-test, golden or boot-level): their captures.
    local failed=()
    if [[ -f "$results/vm-results.json" ]]; then
        mapfile -t failed < <(/usr/bin/python3 - "$results/vm-results.json" <<'EOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    items = json.load(f).get("items", [])
print("\n".join(sorted({i["case"] for i in items
                        if i.get("status") == "fail" and i.get("case")
                        and i.get("group") in ("vm", "vm-golden")})))
EOF
        )
    fi
    : >"$art/failed-cases.txt"
    local c n=0
    for c in "${failed[@]}"; do
        [[ -n "$c" ]] || continue
        printf '%s\n' "$c" >>"$art/failed-cases.txt"
        for f in "$results/vm/$c".*; do
            [[ -e "$f" ]] && { copy "$f" "$art/failed-cases"; n=$((n + 1)); }
        done
    done
    say "$(wc -l <"$art/failed-cases.txt") failed case(s), $n file(s) in $art/failed-cases"
    say "artifacts: $(cd "$art" && find . -type f | wc -l) files, $(du -sh "$art" | cut -f1)"
}

case "$what" in
    deps) do_deps ;;
    check) do_check ;;
    collect) do_collect ;;
    all)
        do_deps || { say "make deps failed"; do_collect; exit 1; }
        do_check
        rc=$?
        do_collect
        exit "$rc" ;;
    *) echo "usage: scripts/ci.sh [all|deps|check|collect]" >&2; exit 2 ;;
esac
