#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest-series/check-series.sh OUT VERSION...: the series of OUT (gen-series.sh) checked
# the way a maintainer and kernel CI would, on each kernel VERSION's pristine source tree:
#
#   apply       each patch, in order, git apply --check then git apply, on a copy of the
#               source's user_events folder (the unpacked source is only read); on 6.12
#               the race fix (OUT/race-6.12) first, then the series (OUT/mainline)
#   checkpatch  scripts/checkpatch.pl --strict of that tree on every patch: 0 errors, 0
#               warnings, 0 checks, FILE_PATH_CHANGES ignored (see below) and, without
#               SIGNOFF=1, MISSING_SIGN_OFF (the sender adds the Signed-off-by)
#   build       a copy of the tree's tools/ with the patches applied by git apply, built by
#               the tree's own make -C tools/testing/selftests TARGETS=user_events install,
#               against the UAPI headers of that kernel's build (KHDR_INCLUDES); also the
#               unpatched copy, the baseline of the mutant table
#
# The source tree and its headers are vm/build-kernel's (KERNEL_VERSION=VERSION, cached):
# a VERSION whose kernel is not cached is one SKIP line naming the command that builds it.
# Installs: OUT/install/<VERSION>/{patched,unpatched}/ (run_kselftest.sh, user_events/).
# KERNEL_ARCH=<a row of vm/arches> (default x86_64): the kernel of that architecture, and
# the build cross-compiled as kernel CI does (ARCH=, CROSS_COMPILE= with vm/cross-toolchain's
# compiler) into OUT/install/<VERSION>-<arch>/.
# Prints one line per step and "N passed, N failed, N skipped"; exit 1 if a step failed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
cache_root=${EHCONF_CACHE:-/var/cache/ehconf}
# shellcheck source=vm/arch.sh
. "$top/vm/arch.sh"
arch=${KERNEL_ARCH:-x86_64}
arch_load "$arch" || exit 2
suffix='' cross=() shown=''  # shown: the cross variables as a log line names them
if [[ -n "$arch_cross" ]]; then
    suffix=-$arch
    cross_bin=$("$top/vm/cross-toolchain" "$arch" | tail -n1) || exit 1
    cross=(ARCH="$arch_karch" CROSS_COMPILE="$cross_bin/$arch_cross")
    shown=" ARCH=$arch_karch CROSS_COMPILE=$arch_cross"
fi
(($# >= 2)) || { echo "usage: kselftest-series/check-series.sh OUT VERSION..." >&2; exit 2; }
out=$(cd "$1" && pwd) || exit 2
shift
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); printf 'selftests-series: %s: ok: %s\n' "$v$suffix" "$*"; }
bad() { fail=$((fail + 1)); printf 'selftests-series: %s: FAIL: %s\n' "$v$suffix" "$*"; }
skipped() { skip=$((skip + 1)); printf 'selftests-series: %s: SKIP: %s\n' "$v$suffix" "$*"; }
rel=tools/testing/selftests/user_events
# The scratch trees are under this checkout's build/: git apply must not take them for
# a subfolder of the checkout (it would skip every path outside it, silently).
export GIT_CEILING_DIRECTORIES=$out/trees

# The unpacked source and the object tree of VERSION's cached kernel: "SRC OBJ". A cache
# that kept the image but not the source or the headers (the workflow's leaves both out)
# gets them back from vm/build-kernel --source: unpacking and headers, no build.
kernel_tree() {
    local image kind sum src obj
    image=$(KERNEL_VERSION=$1 KERNEL_ARCH=$arch KASAN=0 "$top/vm/build-kernel" --cached 2>/dev/null | tail -n1) || return 1
    read -r kind _ sum <"$(dirname "$image")/source-id" || return 1
    [[ "$kind" == tarball ]] || return 1
    src=$(find "$cache_root/kernel/src/${sum:0:16}" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' 2>/dev/null | head -n1)
    obj=${src:+$cache_root/kernel/obj/$(printf '%s' "$src" | sha256sum | cut -c1-16)$suffix}
    if [[ -z "$src" || ! -d "$src/$rel" || ! -d "$obj/usr/include/linux" ]]; then
        read -r src obj < <(KERNEL_VERSION=$1 KERNEL_ARCH=$arch KASAN=0 "$top/vm/build-kernel" --source 2>/dev/null | tail -n1) || return 1
        [[ -n "$src" && -d "$src/$rel" && -d "$obj/usr/include/linux" ]] || return 1
    fi
    printf '%s %s\n' "$src" "$obj"
}

mapfile -t mainline < <(find "$out/mainline" -name '0*.patch' ! -name '0000-*' | sort)
((${#mainline[@]})) || { echo "selftests-series: no patches in $out/mainline (make selftests-series)" >&2; exit 1; }
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is checkpatch's question on every
# patch that adds a file: the folder is already covered (get_maintainer.pl names the
# KERNEL SELFTEST FRAMEWORK entry for it), so the answer is no.
ignore=FILE_PATH_CHANGES
grep -q '^Signed-off-by:' "${mainline[0]}" || ignore+=,MISSING_SIGN_OFF

for v in "$@"; do
    if ! read -r src obj < <(kernel_tree "$v"); then
        skipped "no cached $v $arch kernel and source (KERNEL_VERSION=$v KERNEL_ARCH=$arch vm/build-kernel, or make check-matrix)"
        continue
    fi
    patches=("${mainline[@]}")
    if [[ "$v" == 6.12 ]]; then
        mapfile -t race < <(find "$out/race-6.12" -name '0*.patch' 2>/dev/null | sort)
        ((${#race[@]})) || { bad "no 6.12 race fix in $out/race-6.12 (generate from a 6.12 base)"; continue; }
        patches=("${race[@]}" "${mainline[@]}")
    fi

    mkdir -p "$out/trees"
    # apply: one patch after the other, each checked first, on a copy of the tree's
    # user_events folder (the pristine tree is never written)
    scratch=$out/trees/$v-apply
    rm -rf "$scratch" && mkdir -p "$scratch/$rel" && cp -a "$src/$rel/." "$scratch/$rel/"
    applied=0
    for p in "${patches[@]}"; do
        if ! msg=$(cd "$scratch" && git apply --check "$p" 2>&1 && git apply "$p" 2>&1); then
            bad "$(basename "$p") does not apply after $applied patches on $src: $msg"
            break
        fi
        applied=$((applied + 1))
    done
    rm -rf "$scratch"
    ((applied == ${#patches[@]})) || continue
    ok "git apply --check, then git apply, of ${#patches[@]} patches in order on $src's $rel"

    # checkpatch: the tree's own script, strict
    cp_fail=0
    for p in "${patches[@]}"; do
        res=$(cd "$src" && scripts/checkpatch.pl --strict --no-signoff --ignore "$ignore" "$p" 2>&1 | grep '^total:')
        [[ "$res" == "total: 0 errors, 0 warnings, 0 checks,"* ]] || {
            cp_fail=1
            bad "checkpatch --strict $(basename "$p"): $res"
            (cd "$src" && scripts/checkpatch.pl --strict --no-signoff --ignore "$ignore" "$p" 2>&1 | grep -E '^(ERROR|WARNING|CHECK)' | head -n 5 | sed 's/^/    /')
        }
    done
    ((cp_fail)) || ok "checkpatch.pl --strict clean on ${#patches[@]} patches (ignored: $ignore)"

    # build: the tree's own selftests Makefile, unpatched and patched
    for kind in unpatched patched; do
        tree=$out/trees/$v$suffix-$kind inst=$out/install/$v$suffix/$kind
        rm -rf "$tree" "$inst" && mkdir -p "$tree" "$inst"
        # What make -C tools/testing/selftests reads, hard-linked (read only), but the
        # user_events folder, which the patches and the build write: a real copy
        mkdir -p "$tree/tools/testing"
        cp -al "$src/tools/testing/selftests" "$tree/tools/testing/"
        rm -rf "${tree:?}/$rel" && cp -a "$src/$rel" "$tree/$rel"
        cp -al "$src/tools/include" "$src/tools/scripts" "$tree/tools/"
        cp -al "$src/scripts" "$src/Makefile" "$tree/"
        if [[ $kind == patched ]] && ! msg=$(cd "$tree" && for p in "${patches[@]}"; do git apply "$p" || exit 1; done 2>&1); then
            bad "git apply in $tree: $msg"
            continue
        fi
        if make -s -C "$tree/tools/testing/selftests" TARGETS=user_events "${cross[@]}" \
            KHDR_INCLUDES="-isystem $obj/usr/include" INSTALL_PATH="$inst" install \
            >"$out/build-$v$suffix-$kind.log" 2>&1 && [[ -x "$inst/run_kselftest.sh" ]]; then
            progs=$(grep -c '^user_events:' "$inst/kselftest-list.txt")
            warns=$(grep -c 'warning:' "$out/build-$v$suffix-$kind.log")
            # The machine the programs were built for, from one of them (a cross build
            # that fell back to the host's compiler would say X86-64 here).
            machine=$(readelf -h "$inst/user_events/abi_test" 2>/dev/null | sed -n 's/^ *Machine: *//p')
            ok "make -C tools/testing/selftests TARGETS=user_events$shown install ($kind): $progs programs for ${machine:-an unknown machine}, $warns compiler warnings"
        else
            bad "the $kind build failed: $(grep -E 'error|Error' "$out/build-$v$suffix-$kind.log" | head -n 3 | tr '\n' ' ')(log: $out/build-$v$suffix-$kind.log)"
        fi
        rm -rf "$tree"
    done
done
printf '%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
((fail == 0))
