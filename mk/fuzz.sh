#!/bin/bash
# SPDX-License-Identifier: MIT
# mk/fuzz.sh SECONDS WORKDIR FUZZER...: `make fuzz`. Runs each libFuzzer target for SECONDS
# on its corpus (EHCONF_FUZZ_CORPORA/<name>, default ${EHCONF_CACHE:-/var/cache/ehconf}/
# fuzz-corpora/<name>: outside the checkout, so it grows from run to run and survives make
# clean; make check-decoders feeds it to the other decoders) plus its seeds
# (tests/fuzz/seeds-<name>, read only), logs to WORKDIR/<name>.log, writes crashing inputs
# as WORKDIR/crash-<name>-*, and ends with one line per target: executions, executions per
# second, edge coverage (cov) and features (ft) from libFuzzer's last status line, corpus
# size. Exit 1 if any target found a crash (the others still run).
set -uo pipefail
seconds=$1
work=$2
shift 2
rows=()
rc=0
for f in "$@"; do
    name=$(basename "$f")
    corpus=${EHCONF_FUZZ_CORPORA:-${EHCONF_CACHE:-/var/cache/ehconf}/fuzz-corpora}/$name
    seeds=tests/fuzz/seeds-$name
    log=$work/$name.log
    mkdir -p "$corpus"
    args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/crash-$name-" "$corpus")
    [ -d "$seeds" ] && args+=("$seeds")
    echo "== $name for ${seconds}s (log: $log)"
    if "$f" "${args[@]}" >"$log" 2>&1; then
        result=ok
    else
        result="FAILED: $(grep -m1 -E 'ERROR: |SUMMARY: |Test unit written to' "$log" || echo "exit status $?")"
        rc=1
    fi
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n1; }
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    files=$(find "$corpus" -type f | wc -l)
    rows+=("$(printf '%-20s %12s %9s %7s %7s %8s  %s' "$name" "$(stat number_of_executed_units)" \
        "$(stat average_exec_per_sec)" "${cov:--}" "${ft:--}" "$files" "$result")")
done
echo
printf '%-20s %12s %9s %7s %7s %8s  %s\n' target execs exec/s cov ft corpus result
printf '%s\n' "${rows[@]}"
exit "$rc"
