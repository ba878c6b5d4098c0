#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kernel-overlay-build.sh ARCH PATCHED_FILE RELPATH: the cached Debian 6.12 kernel
# of ARCH (a row of vm/arches) rebuilt with one source file replaced, for the kernel
# mutants only another architecture can catch (scripts/kernel-mutants.py, `arch:`).
#
# Why not the git tree of scripts/kernel-good-tree.sh, as the x86-64 mutants use: that tree
# is another source path, so its first cross build is a cold one (40 minutes here). This
# script reuses the object tree vm/build-kernel already has for ARCH, without changing
# it or the cached source: in a private mount namespace (unshare -m) PATCHED_FILE is bound
# over <source>/RELPATH and a copy of the object tree over the original, and vm/build-kernel
# (KERNEL_SRC=<source>, which keys the image by every file's size and time) recompiles
# what that file touches. Outside the namespace nothing changed. Needs root.
# The last line on stdout is the image path; progress goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache_root=${EHCONF_CACHE:-/var/cache/ehconf}
die() { printf 'kernel-overlay-build: error: %s\n' "$*" >&2; exit 1; }

(($# == 3)) || die "usage: scripts/kernel-overlay-build.sh ARCH PATCHED_FILE RELPATH"
arch=$1 patched=$(readlink -f "$2") rel=$3
[[ -f "$patched" ]] || die "$2 is not a file"
# The kernel make check-vm KERNEL_ARCH=ARCH uses, and the source it was built from.
image=$(KERNEL_ARCH=$arch KASAN=0 "$top/vm/build-kernel" --cached 2>/dev/null | tail -n1) ||
    die "no cached $arch kernel: run KERNEL_ARCH=$arch vm/build-kernel first"
read -r kind _ sum <"$(dirname "$image")/source-id"
[[ "$kind" == tarball ]] || die "the cached $arch kernel was not built from a tarball"
src=$(find "$cache_root/kernel/src/${sum:0:16}" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -n1)
[[ -n "$src" && -f "$src/$rel" ]] || die "no $rel in the unpacked source of $image"
objdir="$cache_root/kernel/obj/$(printf '%s' "$src" | sha256sum | cut -c1-16)"
[[ "$arch" == x86_64 ]] || objdir="$objdir-$arch"  # vm/build-kernel's naming (x86_64: no suffix)
[[ -d "$objdir" ]] || die "no object tree $objdir"

work="$cache_root/kernel/overlay-$arch"
rm -rf "$work" && mkdir -p "$work"
cp -a "$objdir" "$work/obj"
cp "$patched" "$work/file"
touch "$work/file"  # newer than every object: make rebuilds what includes it
printf '[overlay] %s: %s replaced, object tree copied to %s\n' "$arch" "$rel" "$work/obj" >&2
# shellcheck disable=SC2016  # expanded by the inner shell, from its arguments
unshare -m --propagation private /bin/bash -c '
    set -e
    mount --bind "$1" "$2"
    mount --bind "$3" "$4"
    KERNEL_SRC=$5 KERNEL= KASAN=0 SKIP_SELFTESTS=1 KERNEL_ARCH=$6 "$7"
' overlay "$work/file" "$src/$rel" "$work/obj" "$objdir" "$src" "$arch" "$top/vm/build-kernel" >"$work/image-path"
out=$(tail -n1 "$work/image-path")
[[ -f "$out" ]] || die "vm/build-kernel printed no image"
rm -rf "$work/obj"  # the image is in its own cache folder; the copy served its purpose
echo "$out"
