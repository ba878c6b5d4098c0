#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/data/perf/make-captures.sh: re-makes the real perf captures of this folder with
# ehconf's own VM run (the cached guest kernel, Debian's perf inside the guest) and the
# writers in gen_captures.c. Run from the top of the checkout, as root:
#     tests/data/perf/make-captures.sh
# It writes the three .perf.data files here and, next to them, what `perf script` says
# of each (*.perf-script.txt): tests/decode/test_perf_captures.c takes its expected
# values from those and from gen_captures.c, never from ehconf's decoder.
# A new capture has other times, pids and sched_switch samples: update the test with it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ "${1:-}" == --guest ]]; then
    # In the guest: $2 = the build dir, $3 = where to put the results.
    gen=$2/bin/gen_captures out=$3
    cd /tmp
    # 1. file mode, with a kernel tracepoint beside it
    "$2/bin/ehregister" --hold 60 Sample_Provider_L5K1 >/tmp/reg.log 2>&1 &
    sleep 1
    perf record -q -a -e user_events:Sample_Provider_L5K1 -e sched:sched_switch \
        -o /tmp/hello-file-mode.perf.data -- "$gen" hello
    # 2. pipe mode
    perf record -q -a -e user_events:Sample_Provider_L5K1 -o - -- "$gen" hello \
        >/tmp/hello-pipe-mode.perf.data
    kill %1 2>/dev/null || true
    # 3. the size ladder (header-only events, raw ABI)
    "$2/bin/ehregister" --hold 60 TestProv_L5K1 >/tmp/reg2.log 2>&1 &
    sleep 1
    perf record -q -a -e user_events:TestProv_L5K1 -o /tmp/size-ladder.perf.data -- "$gen" ladder
    kill %2 2>/dev/null || true
    for f in hello-file-mode hello-pipe-mode size-ladder; do
        cp "/tmp/$f.perf.data" "$out/"
        perf script --ns -F comm,pid,tid,cpu,time,event,trace -i "/tmp/$f.perf.data" \
            >"$out/$f.perf-script.txt" 2>/dev/null || true
    done
    exit 0
fi

top=$(cd "$here/../../.." && pwd)
cd "$top"
make -s all
results=$top/build/captures
rm -rf "$results"
mkdir -p "$results"
vm/run --timeout 300 --results "$results" --allow-warning "perf buffer not large enough" -- \
    "$here/make-captures.sh" --guest "$top/build/gcc" "$results"
for f in hello-file-mode hello-pipe-mode size-ladder; do
    cp "$results/$f.perf.data" "$results/$f.perf-script.txt" "$here/"
done
ls -l "$here"
