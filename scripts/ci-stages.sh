#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/ci-stages.sh: the stage runner .ci/run sources. Each stage prints its start,
# its outcome and its elapsed time; ci_summary prints one line per stage and a last line
# that adds them up. A failed stage does not stop the run: every later stage still runs,
# and ci_summary's exit status is 1 if any failed.
#
# The time budget (EHCONF_CI_BUDGET minutes, default 50; CI stops a run at 90): a stage
# whose kernel is already cached always runs (warm, it takes minutes). A stage whose
# kernel is not cached runs only if its measured cold cost still fits in what is left of
# the budget; otherwise it is skipped with one line that names the make target that runs
# it, so a cold machine still lands within the budget and a warm one checks everything.
# Shell functions only; no top-level code besides the variables.

ci_budget=$(( ${EHCONF_CI_BUDGET:-50} * 60 ))
ci_start=$SECONDS
ci_rows=()
ci_failed=0
ci_last=0     # the last stage's seconds
ci_scale=100  # percent: how much slower than measured this machine runs (ci_calibrate)

ci_fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
ci_say() { printf '[ci] %s\n' "$*"; }

# ci_row NAME RESULT SECONDS [WHY]: a blank in NAME becomes '-' (matrix-7.2 7.3 is
# matrix-7.2-7.3), since ci_summary reads a row's columns split on blanks.
ci_row() {
    ci_rows+=("$(printf '%-14s %-5s %8s  %s' "${1// /-}" "$2" "$(ci_fmt "$3")" "${4:-}")")
}

# stage NAME COMMAND...: run it, time it, record PASS or FAIL.
stage() {
    local name=$1 t0=$SECONDS rc=0
    shift
    ci_say "stage $name: $* (at $(ci_fmt $((SECONDS - ci_start))) of the $(ci_fmt "$ci_budget") budget)"
    "$@" || rc=$?
    local took=$((SECONDS - t0))
    # shellcheck disable=SC2034  # read by .ci/run (ci_calibrate's first argument)
    ci_last=$took
    if ((rc == 0)); then
        ci_say "stage $name: PASS in $(ci_fmt "$took")"
        ci_row "$name" PASS "$took"
    else
        ci_say "stage $name: FAIL (exit status $rc) in $(ci_fmt "$took")"
        ci_row "$name" FAIL "$took" "exit status $rc"
        ci_failed=1
    fi
}

# ci_calibrate SECONDS NOMINAL_MINUTES: a cold stage took SECONDS where it was measured at
# NOMINAL_MINUTES; a slower (busier) machine scales every later cold estimate by as much,
# never below the measured figures.
ci_calibrate() {
    ci_scale=$(($1 * 100 / ($2 * 60)))
    ((ci_scale >= 100)) || ci_scale=100
    ci_say "this machine ran that stage at ${ci_scale}% of its measured cold time: cold estimates scaled by as much"
}

# cold COLD_MINUTES: the estimate on this machine, in minutes.
cold() { echo $((($1 * ci_scale + 99) / 100)); }

# fits COLD_MINUTES: does a cold stage of that cost fit in what is left of the budget?
fits() {
    (( SECONDS - ci_start + $(cold "$1") * 60 <= ci_budget ))
}

# stage_if_fits NAME CACHED_CHECK COLD_MINUTES TARGET COMMAND...
#   CACHED_CHECK: a command that exits 0 when the stage's kernel is cached.
#   COLD_MINUTES: what the stage took from an empty cache on 2 cores (measured; .ci/run).
#   TARGET: the make command a developer or another CI job runs instead.
stage_if_fits() {
    local name=$1 cached=$2 cold=$3 target=$4
    shift 4
    if $cached >/dev/null 2>&1; then
        stage "$name" "$@"
    elif fits "$cold"; then
        ci_say "stage $name: its kernel is not cached; a cold run (about $(cold "$cold")m) fits in the budget"
        stage "$name" "$@"
    else
        stage_skip "$name" "$cold" "$target"
    fi
}

# stage_skip NAME COLD_MINUTES TARGET: the one line for a cold stage that does not fit.
stage_skip() {
    local left=$((ci_budget - (SECONDS - ci_start)))
    ((left > 0)) || left=0
    local why
    why="kernel not cached: about $(cold "$2")m cold, $(ci_fmt "$left") of the budget left; run: $3"
    ci_say "stage $1: SKIP: $why"
    ci_row "$1" SKIP 0 "$why"
}

ci_summary() {
    local total=$((SECONDS - ci_start)) row pass=0 fail=0 skip=0 terms=()
    ci_say "stages:"
    for row in "${ci_rows[@]}"; do
        ci_say "  $row"
        read -r -a f <<<"$row"
        case "${f[1]}" in
            PASS) pass=$((pass + 1)) ;;
            FAIL) fail=$((fail + 1)) ;;
            SKIP) skip=$((skip + 1)) ;;
        esac
        [[ "${f[1]}" == SKIP ]] || terms+=("${f[0]} ${f[2]}")
    done
    local IFS='+'
    ci_say "stages: $pass passed, $fail failed, $skip skipped; total $(ci_fmt "$total") = ${terms[*]// / } (budget $(ci_fmt "$ci_budget"))"
    return "$ci_failed"
}
