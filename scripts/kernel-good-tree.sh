#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-good-tree.sh: a git tree of Debian's 6.12 kernel source, for the scripts
# that plant kernel changes and build them (test-bisect.sh, kernel-mutants.py).
#
# Unpacks /usr/src/linux-source-6.12.tar.xz (KERNEL_TARBALL) into
# ${EHCONF_CACHE:-/var/cache/ehconf}/bisect-src/linux, outside the checkout, and commits the
# whole tree once as tag ehconf-bisect-good. Cached: later calls reuse it (a new tarball
# makes a new tree). Progress goes to stderr; the last line on stdout is the tree's path.
# Callers serialise on $EHCONF_CACHE/bisect-src/.lock themselves (they check out branches).
set -euo pipefail

cache_root=${EHCONF_CACHE:-/var/cache/ehconf}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
work=$cache_root/bisect-src
tree=$work/linux
file=kernel/trace/trace_events_user.c

say() { printf '[good-tree] %s\n' "$*" >&2; }
die() { printf '[good-tree] error: %s\n' "$*" >&2; exit 1; }

[[ -r "$tarball" ]] || die "$tarball not found (make deps installs linux-source-6.12)"
mkdir -p "$work"
stamp="$(stat -c '%s %Y' "$tarball") $(basename "$tarball")"
if [[ -f "$work/good.stamp" && "$(cat "$work/good.stamp")" == "$stamp" ]] &&
   git -C "$tree" rev-parse -q --verify refs/tags/ehconf-bisect-good >/dev/null 2>&1; then
    say "cached: $tree ($(git -C "$tree" rev-parse --short=12 ehconf-bisect-good))"
    echo "$tree"
    exit 0
fi

t0=$SECONDS
say "unpacking $tarball into $work (a few minutes)"
rm -rf "$work/good.stamp" "$tree" "$work/unpack"
mkdir -p "$work/unpack"
tar -xJf "$tarball" -C "$work/unpack"
top_dir=$(find "$work/unpack" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[[ -n "$top_dir" && -f "$top_dir/$file" ]] || die "no kernel tree with $file in $tarball"
mv "$top_dir" "$tree"
rmdir "$work/unpack"

say "git init + commit of the whole tree as 'good' (a few minutes)"
git -C "$tree" init -q -b ehconf-bisect-base
git -C "$tree" config gc.auto 0
git -C "$tree" config core.looseCompression 1
# -f: Debian's top-level .gitignore ignores everything ("/*": its packaging repo tracks
# only debian/); here every unpacked file is source.
git -C "$tree" add -A -f
GIT_AUTHOR_NAME="ehconf" GIT_AUTHOR_EMAIL="ehconf@ehconf.invalid" \
GIT_COMMITTER_NAME="ehconf" GIT_COMMITTER_EMAIL="ehconf@ehconf.invalid" \
GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
    git -C "$tree" commit -q -m "good: $(basename "$tarball") as unpacked"
git -C "$tree" tag -f ehconf-bisect-good >/dev/null
[[ -z "$(git -C "$tree" status --porcelain)" ]] || die "the committed tree is not clean"
printf '%s\n' "$stamp" >"$work/good.stamp"
say "good tree ready in $((SECONDS - t0))s"
echo "$tree"
