#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/test-bisect.sh (`make test-bisect`): proves scripts/bisect.sh end to end on a
# real kernel history with a known answer.
#
#  1. scripts/kernel-good-tree.sh: Debian's 6.12 source as a git tree in
#     ${EHCONF_CACHE:-/var/cache/ehconf}/bisect-src/linux (outside the checkout), committed
#     once as "good" (tag ehconf-bisect-good); cached: later runs start from that commit;
#  2. on branch ehconf-bisect-test, three more commits (fixed author/committer dates,
#     so the same SHAs every run):
#       A  unrelated: a line in Documentation/trace/user_events.rst (no rebuild)
#       R  the deliberate regression in kernel/trace/trace_events_user.c: write() with
#          no tracer attached returns the byte count instead of -EBADF, as kernels
#          before 6.5 did (history #9, fixed by f6d026eea390); cases/kernel_write.c
#          TEST(K29_K30_write_without_tracer_is_ebadf) expects EBADF
#       B  unrelated: a comment in init/main.c (compiled: a real incremental rebuild)
#  3. git bisect start B good; git bisect run scripts/bisect.sh kernel_write
#     (TEST_BISECT_CASES=kernel_write/K29_K30_write_without_tracer_is_ebadf lets only that test decide, see
#     scripts/bisect.sh: useful if another kernel_write test fails on 6.12 for its own reasons)
#  4. passes if and only if the first bad commit named is exactly R.
# Prints each stage's duration and the total. Exit 0 on success, 1 otherwise.
# Every bisect step keeps the same object dir (vm/build-kernel: one O= per source
# path), so only the first build is a full one.
# Environment: EHCONF_CACHE, KERNEL_TARBALL, EHCONF_BISECT_DIR (see scripts/bisect.sh),
# TEST_BISECT_CASES (default kernel_write), TEST_BISECT_FRESH=1 (rebuild the kernels).
set -euo pipefail
# Started from `make`: its jobserver/flags must not leak into the kernel's own make.
unset MAKEFLAGS MFLAGS MAKELEVEL

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache_root=${EHCONF_CACHE:-/var/cache/ehconf}
work=$cache_root/bisect-src
cases=${TEST_BISECT_CASES:-kernel_write}
bdir=${EHCONF_BISECT_DIR:-$top/build/bisect}
file=kernel/trace/trace_events_user.c
t_all=$SECONDS
timings=()

say() { printf '[test-bisect] %s\n' "$*"; }
die() { printf '[test-bisect] FAIL: %s\n' "$*"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
stage_start() { t_stage=$SECONDS; say "$1"; }
stage_end() {
    local s=$((SECONDS - t_stage))
    timings+=("$(printf '%-44s %4dm%02ds' "$1" $((s / 60)) $((s % 60)))")
}
# Commits in the test repo: fixed identity and dates make the SHAs reproducible.
gitc() {
    GIT_AUTHOR_NAME="ehconf test-bisect" GIT_AUTHOR_EMAIL="test-bisect@ehconf.invalid" \
    GIT_COMMITTER_NAME="ehconf test-bisect" GIT_COMMITTER_EMAIL="test-bisect@ehconf.invalid" \
    GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git -C "$tree" "${@:2}"
}

# --cached: exit 0 when a run needs only incremental kernel builds (the good tree exists
# and its object tree holds a bzImage), 3 when it would start with a full build; for
# .ci/run's time budget. Builds and changes nothing.
if [[ "${1:-}" == --cached ]]; then
    obj="$cache_root/kernel/obj/$(printf '%s' "$work/linux" | sha256sum | cut -c1-16)"
    if [[ -f "$work/good.stamp" && -f "$obj/arch/x86/boot/bzImage" ]]; then exit 0; fi
    say "not cached: no built object tree for $work/linux"
    exit 3
fi

mkdir -p "$work"
exec 8>"$work/.lock"
flock -n 8 || die "another test-bisect is using $work"

# --- 1. the "good" tree, cached (scripts/kernel-good-tree.sh) ---------------------------
stage_start "the good tree (scripts/kernel-good-tree.sh; unpacks and commits once)"
tree=$("$here/kernel-good-tree.sh") || die "scripts/kernel-good-tree.sh failed"
stage_end "the good tree"

# --- 2. the three commits ----------------------------------------------------------------
stage_start "creating the unrelated, regression and unrelated commits"
git -C "$tree" bisect reset >/dev/null 2>&1 || true
git -C "$tree" checkout -q -f -B ehconf-bisect-test ehconf-bisect-good
git -C "$tree" clean -q -f -d

printf '\n.. ehconf test-bisect: an unrelated documentation change.\n' \
    >>"$tree/Documentation/trace/user_events.rst"
gitc "2026-01-02T00:00:00Z" commit -q -a -m "docs: unrelated change A (ehconf test-bisect)"
commit_a=$(git -C "$tree" rev-parse HEAD)

# The only "return -EBADF;" in the file is user_events_write_core()'s "no tracer" branch;
# `ret` there still holds the full byte count (i->count) the function started with.
n=$(grep -c -P '^\t\treturn -EBADF;$' "$tree/$file" || true)
[[ "$n" == 1 ]] || die "expected exactly one '\\t\\treturn -EBADF;' in $file, found $n: the regression needs a new recipe"
sed -i 's/^\t\treturn -EBADF;$/\t\treturn ret; \/* ehconf test-bisect: deliberate regression (was -EBADF) *\//' "$tree/$file"
grep -q 'ehconf test-bisect: deliberate regression' "$tree/$file" || die "sed did not apply the regression"
gitc "2026-01-03T00:00:00Z" commit -q -a -m "tracing/user_events: return the byte count when nobody listens (deliberate regression)"
commit_r=$(git -C "$tree" rev-parse HEAD)

printf '/* ehconf test-bisect: unrelated change B */\n' >>"$tree/init/main.c"
gitc "2026-01-04T00:00:00Z" commit -q -a -m "init: unrelated change B (ehconf test-bisect)"
commit_b=$(git -C "$tree" rev-parse HEAD)
good=$(git -C "$tree" rev-parse ehconf-bisect-good)
stage_end "create the 3 test commits"
say "good $good"
say "A    $commit_a (unrelated)"
say "R    $commit_r (the regression: expected first bad commit)"
say "B    $commit_b (unrelated, bad)"

# The same SHAs every run: their bzImages are cached, so a second run only boots. With
# TEST_BISECT_FRESH=1 this test's kernels and object dir are removed first (ccache stays),
# so the bisect builds again: a full build for the first step, incremental for the next.
if [[ "${TEST_BISECT_FRESH:-0}" == 1 ]]; then
    say "TEST_BISECT_FRESH=1: removing this test's cached kernels and object dir"
    for id in "$cache_root"/kernel/*/source-id; do
        [[ -f "$id" ]] && grep -q "^git $tree " "$id" && rm -rf "$(dirname "$id")"
    done
    # vm/build-kernel's object dir for a source tree: obj/<sha256 of its path, 16 hex>
    rm -rf "$cache_root/kernel/obj/$(printf '%s' "$tree" | sha256sum | cut -c1-16)"
fi

# --- 3. bisect ------------------------------------------------------------------------------
mkdir -p "$bdir"
out=$bdir/test-bisect.log
stage_start "git bisect run scripts/bisect.sh $cases (output: $out)"
git -C "$tree" bisect start "$commit_b" "$good" >"$out" 2>&1 || die "git bisect start failed: $(tail -n 1 "$out")"
set +e
# shellcheck disable=SC2086  # $cases: one or more names, split on purpose
( cd "$tree" && EHCONF_BISECT_DIR=$bdir git bisect run "$here/bisect.sh" $cases ) 2>&1 | tee -a "$out"
brc=${PIPESTATUS[0]}
set -e
stage_end "git bisect run ($(grep -c '^bisect: .*: \(GOOD\|BAD\|SKIP\):' "$out" || true) steps)"
first_bad=$(git -C "$tree" rev-parse -q --verify refs/bisect/bad 2>/dev/null || true)
git -C "$tree" bisect log >"$bdir/test-bisect.bisect-log" 2>/dev/null || true
git -C "$tree" bisect reset -q >/dev/null 2>&1 || git -C "$tree" bisect reset >/dev/null 2>&1 || true
[[ -z "$(git -C "$tree" status --porcelain)" ]] || say "WARNING: the kernel tree is not clean after the bisect"

# --- 4. result ---------------------------------------------------------------------------------
say "timings:"
for t in "${timings[@]}"; do say "  $t"; done
total=$((SECONDS - t_all))
say "  $(printf '%-44s %4dm%02ds' total $((total / 60)) $((total % 60)))"
say "bisect steps:"
grep -E '^bisect: [0-9a-f]+: (GOOD|BAD|SKIP):' "$out" | sed 's/^/[test-bisect]   /' || true
if [[ $brc -ne 0 ]]; then
    die "git bisect run exited with $brc (see $out)"
fi
if ! grep -q "^$commit_r is the first bad commit" "$out"; then
    die "git bisect did not name the regression $commit_r as the first bad commit (it said: $(grep 'is the first bad commit\|could be any of\|There are only' "$out" | head -n 1))"
fi
[[ "$first_bad" == "$commit_r" ]] || die "refs/bisect/bad is $first_bad, expected $commit_r"
say "PASS: git bisect named the deliberate regression $commit_r as the first bad commit (total $((total / 60))m$((total % 60))s)"
echo "1 passed, 0 failed, 0 skipped"
