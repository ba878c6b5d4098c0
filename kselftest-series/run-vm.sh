#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest-series/run-vm.sh OUT RUNS VERSION...: the installs check-series.sh made
# (OUT/install/<VERSION>/{unpatched,patched}) run in the guest of each kernel VERSION
# (vm/run on vm/build-kernel's cached image), by their own run_kselftest.sh: the
# unpatched tree once, the patched one RUNS times in the same boot (the race fix must
# hold every time). TAP files and vm/run's results in OUT/vm/<VERSION>/; a summary line
# per file (scripts/selftests-series-tap-summary.py). Exit 1 unless every patched run has every program ok.
# A VERSION without a cached kernel or without installs is one SKIP line.
# KERNEL_ARCH=<a row of vm/arches>: that architecture's kernel and guest (vm/run), with the
# installs check-series.sh cross-built for it (OUT/install/<VERSION>-<arch>), results in
# OUT/vm/<VERSION>-<arch>/.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
export KERNEL_ARCH=${KERNEL_ARCH:-x86_64}
suffix=''
[[ "$KERNEL_ARCH" == x86_64 ]] || suffix=-$KERNEL_ARCH
# TCG runs a guest of another architecture slower: its boots get twice the time.
slow=1
[[ -z "$suffix" ]] || slow=2
(($# >= 3)) || { echo "usage: kselftest-series/run-vm.sh OUT RUNS VERSION..." >&2; exit 2; }
out=$(cd "$1" && pwd) || exit 2
runs=$2
shift 2
rc=0 pass=0 fail=0 skip=0
for v in "$@"; do
    inst=$out/install/$v$suffix
    kernel=$(KERNEL_VERSION=$v KASAN=0 "$top/vm/build-kernel" --cached 2>/dev/null | tail -n1)
    if [[ -z "$kernel" || ! -x "$inst/patched/run_kselftest.sh" ]]; then
        echo "selftests-series-vm: $v$suffix: SKIP: no cached $v $KERNEL_ARCH kernel or no $inst (make selftests-series-check)"
        skip=$((skip + 1))
        continue
    fi
    res=$out/vm/$v$suffix
    rm -rf "$res" && mkdir -p "$res"
    echo "selftests-series-vm: $v$suffix: booting $kernel (unpatched once, patched $runs times)"
    "$top/vm/run" --kernel "$kernel" --timeout $(((600 + 300 * runs) * slow)) --results "$res" -- \
        "$here/guest-run.sh" "$res" 1 "unpatched=$inst/unpatched" >/dev/null 2>"$res/vm-run.err" || true
    mv "$res/vm.json" "$res/vm-unpatched.json" 2>/dev/null
    "$top/vm/run" --kernel "$kernel" --timeout $(((600 + 300 * runs) * slow)) --results "$res" -- \
        "$here/guest-run.sh" "$res" "$runs" "patched=$inst/patched" >/dev/null 2>>"$res/vm-run.err" || true
    "$here/../scripts/selftests-series-tap-summary.py" "$res"/unpatched.*.tap | sed "s|^$out/||"
    for n in $(seq 1 "$runs"); do
        if [[ -f "$res/patched.$n.tap" ]] && "$here/../scripts/selftests-series-tap-summary.py" "$res/patched.$n.tap" | sed "s|^$out/||"; then
            pass=$((pass + 1))
        else
            echo "selftests-series-vm: $v$suffix: FAIL: patched run $n (see $res)"
            fail=$((fail + 1)) rc=1
        fi
    done
done
printf '%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
exit $rc
