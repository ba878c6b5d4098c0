#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kselftest-series/guest-run.sh RESULTS RUNS LABEL=TREE[:PROGRAM:TEST]...: in the guest
# (vm/run), each installed kselftest TREE (make -C tools/testing/selftests install) run by
# its own run_kselftest.sh -c user_events, RUNS times, into RESULTS/LABEL.<n>.tap. With
# :PROGRAM:TEST, that one test (fixture.test) of the program alone, by the harness's own
# -r, its lines written as run_kselftest.sh writes them but one by one as they come: the
# runner's prefixing buffers them, and a kernel that dies in the test would take the
# lines that name it along. The output
# goes through a pipe: 6.12's runner writes /dev/stdout a second time, and a file opened
# with truncation would lose the first writer's lines.
set -u
results=$1 runs=$2
shift 2

# one_test TREE PROGRAM TEST: the test's KTAP as a line of run_kselftest.sh's output.
one_test() {
    echo "TAP version 13"
    echo "1..1"
    echo "# selftests: user_events: $2"
    (cd "$1/user_events" && "./$2" -r "$3"; echo $? >"$results/.one_test.rc") 2>&1 |
        while IFS= read -r line; do echo "# $line"; done
    if [ "$(cat "$results/.one_test.rc" 2>/dev/null)" = 0 ]; then
        echo "ok 1 selftests: user_events: $2"
    else
        echo "not ok 1 selftests: user_events: $2"
    fi
}
for spec in "$@"; do
    label=${spec%%=*} tree=${spec#*=} prog='' test=''
    case $tree in
    *:*:*)
        test=${tree##*:}
        tree=${tree%:*}
        prog=${tree##*:}
        tree=${tree%:*}
        ;;
    esac
    n=1
    while [ "$n" -le "$runs" ]; do
        start=$(date +%s)
        if [ -n "$prog" ]; then
            one_test "$tree" "$prog" "$test" >"$results/$label.$n.tap"
        else
            "$tree/run_kselftest.sh" -c user_events 2>&1 | cat >"$results/$label.$n.tap"
        fi
        echo "guest-run: $label run $n: $(($(date +%s) - start)) s, $(grep -c '^not ok' "$results/$label.$n.tap") program(s) not ok"
        n=$((n + 1))
    done
done
