#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check-newcomer.sh (`make check-newcomer`): what a newcomer sees. Clones this
# repository's HEAD into a new temporary folder, points EHCONF_CACHE and ccache at an
# empty folder inside it, runs the README's two commands (`make deps`, `make check`) and
# prints the time of each: the cold figures the README's quick start quotes.
#
#   scripts/check-newcomer.sh          the README's two commands
#   scripts/check-newcomer.sh --ci     .ci/run instead (its own stages and times): the
#                                      cold CI figure, with nothing cached
#
# Only committed work is cloned. Environment: NEWCOMER_DIR (default: a new folder next to
# this checkout, kept afterwards for its logs; delete it, its cache holds kernels), NEWCOMER_CACHE
# (default $NEWCOMER_DIR/cache: give the default /var/cache/ehconf to fill the machine's
# own cache while measuring, provided it is empty). Exit status: that of the commands.
set -uo pipefail
# Started from make: its flags and jobserver must not leak into the clone's own make.
unset MAKEFLAGS MFLAGS MAKELEVEL CCACHE_DIR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
mode=readme
[[ "${1:-}" == --ci ]] && mode=ci
# Next to this checkout, not under /tmp or /var/tmp: the guest mounts tmpfs there, so a
# checkout below them cannot run its cases in the VM (vm/run refuses it).
dir=${NEWCOMER_DIR:-$(mktemp -d "$(dirname "$repo")/ehconf-newcomer.XXXXXX")}
cache=${NEWCOMER_CACHE:-$dir/cache}

say() { printf '[newcomer] %s\n' "$*"; }
fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

mkdir -p "$cache"
if [[ -n "$(ls -A "$cache")" ]]; then
    say "FAIL: $cache is not empty: a newcomer's run starts from an empty cache"
    exit 1
fi
say "cloning $(git -C "$repo" rev-parse --short HEAD) into $dir/ehconf (cache: $cache, empty)"
git clone -q "$repo" "$dir/ehconf" || { say "FAIL: git clone"; exit 1; }
cd "$dir/ehconf" || exit 1
export EHCONF_CACHE=$cache

results=()
rc=0
timed() {
    local t0=$SECONDS r=0 log
    log="$dir/$(printf '%s' "$*" | tr -c 'a-z0-9' '-' | sed 's/^-*//').log"
    say "running: $* (log: $log)"
    "$@" >"$log" 2>&1 || r=$?
    local took=$((SECONDS - t0))
    results+=("$(printf '%-12s %s exit %d' "$*" "$(fmt "$took")" "$r")")
    say "$*: $(fmt "$took"), exit status $r; last line: $(tail -n 1 "$log")"
    ((r == 0)) || rc=1
    return "$r"
}

if [[ "$mode" == ci ]]; then
    timed .ci/run
    grep '^\[ci\]   ' "$dir/ci-run.log" 2>/dev/null | sed 's/^/[newcomer] /'
else
    timed make deps && timed make check
fi
say "figures (cold: empty EHCONF_CACHE and ccache, fresh clone):"
for r in "${results[@]}"; do say "  $r"; done
say "kept $dir (logs; its cache holds kernels: rm -rf it when done)"
exit "$rc"
