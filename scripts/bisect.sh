#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bisect.sh: one `git bisect run` step for a user_events regression.
#
#   cd ~/linux && git bisect start <bad> <good>
#   git bisect run /path/to/ehconf/scripts/bisect.sh [CASE...]
#
# Run inside a kernel git tree. Builds the checked-out commit with ehconf's config
# fragment (vm/build-kernel with KERNEL_SRC=$PWD: tinyconfig + vm/config.fragment +
# olddefconfig, out of tree in one object dir per tree under $EHCONF_CACHE, ccache),
# boots it in QEMU and runs the named ehconf cases there (default: every case and the
# kernel's own user_events selftests) through
# harness/run.py vm (EHCONF_VM_CASES selects the cases). CASE may also be
#   CASE/TEST            only that test of the case decides (e.g.
#                        kernel_write/K29_K30_write_without_tracer_is_ebadf): the binary still runs whole, but
#                        its other tests, its golden diff and the kernel log are not judged
#   kselftest            the kernel's own user_events selftests, built from this commit
#   kselftest/<binary>   one of them (abi_test, dyn_test, ftrace_test, perf_test)
# (scripts/bisect-verdict.py has the exact rules).
#
# Exit status (what git bisect expects; never above 127, which would abort it):
#   0    GOOD  every selected item passed
#   1    BAD   a selected item failed, a kernel WARNING/BUG/Oops appeared while the
#              cases ran, or the guest hung/panicked after it started the cases
#   125  SKIP  cannot test this commit: the kernel did not build, did not boot to the
#              test command, lacks CONFIG_USER_EVENTS, or ehconf itself could not be
#              built/run (setup problems also say so in the log)
# One verdict line goes to stdout and is appended to the log file:
#   bisect: <sha>: BAD: vm/kernel_write/global.K29_K30_write_without_tracer_is_ebadf failed -- ...
#
# The kernel tree is never written to (bisect needs it clean): the kernel is built with
# O=, ehconf builds its own programs in $EHCONF_BISECT_DIR.
# Environment:
#   EHCONF_CACHE                kernel cache (default /var/cache/ehconf)
#   EHCONF_BISECT_DIR           ehconf build + per-commit results + bisect.log
#                               (default <ehconf>/build/bisect; must not be under /tmp:
#                               the guest sees the host's /tmp as an empty tmpfs)
#   EHCONF_VM_TIMEOUT           seconds for one boot (default 600)
#   EHCONF_BISECT_IGNORE_KERNEL_LOG=1  do not count kernel WARNINGs as BAD
#   BUILD_TIMEOUT, JOBS         passed to vm/build-kernel
#   KERNEL_ARCH                 the guest architecture (vm/arches; default x86_64): the
#                               kernel is cross-built and booted for it, ehconf's cases
#                               cross-built (VARIANT=<arch>), the step folder <sha>-<arch>
set -u
# Started from `make`: its jobserver/flags must not leak into the kernel's own make.
unset MAKEFLAGS MFLAGS MAKELEVEL

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
bdir=${EHCONF_BISECT_DIR:-$top/build/bisect}
log_file=$bdir/bisect.log
t0=$SECONDS

mkdir -p "$bdir" 2>/dev/null || { echo "bisect: cannot create $bdir" >&2; exit 125; }
bdir=$(cd "$bdir" && pwd -P)
log_file=$bdir/bisect.log

sha=$(git rev-parse --short=12 HEAD 2>/dev/null) || sha=unknown
subject=$(git log -1 --format=%s HEAD 2>/dev/null | cut -c1-60)

note() { printf 'bisect: %s: %s\n' "$sha" "$*"; }
# The verdict: one line on stdout and in the log file, then the exit status.
finish() { # code label why
    local line
    line=$(printf 'bisect: %s: %s: %s [%ds] (%s)' "$sha" "$2" "$3" $((SECONDS - t0)) "$subject")
    printf '%s\n' "$line"
    printf '%s %s\n' "$(date -u +%FT%TZ)" "$line" >>"$log_file"
    exit "$1"
}

# --- this must be a kernel git tree ---------------------------------------------
[[ "$sha" != unknown ]] || finish 125 SKIP "not inside a git tree ($PWD): run me from the kernel tree via git bisect run"
[[ -f Makefile && -f kernel/trace/Makefile ]] || finish 125 SKIP "$PWD is not a kernel source tree"
ktree=$(pwd -P)

cases=("$@")
# The ehconf case binaries to run: CASE, or the CASE of CASE/TEST, once each.
ehconf_cases=()
for c in "${cases[@]}"; do
    [[ "$c" == kselftest || "$c" == kselftest/* ]] && continue
    c=${c%%/*}
    [[ " ${ehconf_cases[*]} " == *" $c "* ]] || ehconf_cases+=("$c")
done

kernel_arch=${KERNEL_ARCH:-x86_64}
export KERNEL_ARCH=$kernel_arch
step=$bdir/steps/$sha
[[ "$kernel_arch" == x86_64 ]] || step=$step-$kernel_arch
rm -rf "$step"
mkdir -p "$step"
note "testing \"$subject\" (cases: ${cases[*]:-all}; details in $step)"

# --- ehconf's own programs (not the kernel's fault if this fails) -----------------
# (`kselftest` explicitly: the cases need the extracted kselftest_harness.h in this O=.)
variant=gcc targets=(kselftest all)
if [[ "$kernel_arch" != x86_64 ]]; then variant=$kernel_arch targets=(kselftest vm-cross); fi
if ! make -C "$top" O="$bdir" VARIANT="$variant" "${targets[@]}" >"$step/ehconf-build.log" 2>&1; then
    tail -n 5 "$step/ehconf-build.log" >&2
    finish 125 SKIP "ehconf itself failed to build (not this commit's fault; see $step/ehconf-build.log)"
fi
ebuild=$bdir/$variant
if (( ${#ehconf_cases[@]} == 0 )) && (( ${#cases[@]} == 0 )); then
    for f in "$ebuild"/cases/*; do
        [[ -x "$f" && "$(basename "$f")" != *.* ]] && ehconf_cases+=("$(basename "$f")")
    done
    # No names: every ehconf case AND the kernel's own selftests, built from this commit.
    cases=("${ehconf_cases[@]}" kselftest)
fi
built_cases() {
    local f
    for f in "$ebuild"/cases/*; do
        [[ -x "$f" && "$(basename "$f")" != *.* ]] && printf '%s ' "$(basename "$f")"
    done
}
for c in "${ehconf_cases[@]}"; do
    [[ -x "$ebuild/cases/$c" ]] || finish 125 SKIP "no ehconf case '$c' (built: $(built_cases))"
done

# --- the kernel of this commit ------------------------------------------------------
want_selftests=0
for c in "${cases[@]}"; do [[ "$c" == kselftest* ]] && want_selftests=1; done
note "building the kernel (vm/build-kernel, log: $step/kernel-build.log)"
tb=$SECONDS
KERNEL_SRC=$ktree KERNEL='' SKIP_SELFTESTS=$((1 - want_selftests)) \
    "$top/vm/build-kernel" >"$step/kernel-path" 2>"$step/kernel-build.log"
krc=$?
kernel=$(tail -n 1 "$step/kernel-path")
build_s=$((SECONDS - tb))
if [[ $krc -ne 0 || -z "$kernel" || ! -f "$kernel" ]]; then
    why=$(grep -E 'error|Error|failed' "$step/kernel-build.log" | tail -n 1 | cut -c1-200)
    finish 125 SKIP "kernel build failed after ${build_s}s (exit $krc): ${why:-see $step/kernel-build.log}"
fi
note "kernel built in ${build_s}s: $kernel"

# --- boot it and run the cases (one QEMU boot, harness/run.py vm) -----------------------
results=$step/results
note "running ${cases[*]} in the VM"
tv=$SECONDS
(
    cd "$top" || exit 126
    KERNEL=$kernel EHCONF_BUILD=$ebuild EHCONF_RESULTS=$results \
    EHCONF_VM_CASES="${ehconf_cases[*]}" \
        timeout --kill-after=30 $(( ${EHCONF_VM_TIMEOUT:-600} + 300 )) \
        /usr/bin/python3 harness/run.py vm --no-crash-test --build "$ebuild" --results "$results"
) >"$step/vm-test.log" 2>&1
prc=$?
note "VM run took $((SECONDS - tv))s (runner exit $prc, log: $step/vm-test.log)"
# A stuck runner was killed: decide from what the boot left behind (verdict below).

verdict_args=(--results "$results")
for c in "${cases[@]}"; do verdict_args+=(--case "$c"); done
[[ "${EHCONF_BISECT_IGNORE_KERNEL_LOG:-0}" == 1 ]] && verdict_args+=(--ignore-kernel-log)
v=$(/usr/bin/python3 "$here/bisect-verdict.py" "${verdict_args[@]}" 2>&1)
vrc=$?
printf '%s\n' "$v" >"$step/verdict.txt"
label=${v%%:*}
why=${v#*: }
case "$vrc:$label" in
    0:GOOD) finish 0 GOOD "$why" ;;
    1:BAD) finish 1 BAD "$why" ;;
    125:SKIP) finish 125 SKIP "$why" ;;
    *) finish 125 SKIP "scripts/bisect-verdict.py failed (exit $vrc): $(printf '%s' "$v" | tail -n 1 | cut -c1-200)" ;;
esac
