#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-series/guest-run.sh RESULTS RUNS LABEL=TREE...: in the guest (vm/run), each
# installed kselftest TREE (make -C tools/testing/selftests install) run by its own
# run_kselftest.sh -c user_events, RUNS times, into RESULTS/LABEL.<n>.tap. The output
# goes through a pipe: 6.12's runner writes /dev/stdout a second time, and a file opened
# with truncation would lose the first writer's lines.
set -u
results=$1 runs=$2
shift 2
for spec in "$@"; do
    label=${spec%%=*} tree=${spec#*=}
    n=1
    while [ "$n" -le "$runs" ]; do
        start=$(date +%s)
        "$tree/run_kselftest.sh" -c user_events 2>&1 | cat >"$results/$label.$n.tap"
        echo "guest-run: $label run $n: $(($(date +%s) - start)) s, $(grep -c '^not ok' "$results/$label.$n.tap") program(s) not ok"
        n=$((n + 1))
    done
done
