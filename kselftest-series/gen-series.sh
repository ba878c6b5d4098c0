#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest-series/gen-series.sh BASE OUT: the patch series for the kernel's
# tools/testing/selftests/user_events, generated with git format-patch.
#
#   BASE  a kernel source tree (only its tools/testing/selftests/user_events is read)
#   OUT   the output folder: OUT/mainline/ (cover letter + one patch per line of
#         kselftest-series/series) and OUT/race-6.12/ (the 6.12 race fix, only when
#         BASE is a 6.12 tree)
#
# A private git repository under OUT/git holds BASE's user_events folder as its first
# commit; each patch is one commit on top, made from kselftest-series/ (src/, series,
# messages/, fixes/), so the context lines of a hunk are BASE's own.
# Environment:
#   SERIES_FROM  "Name <address>" of the author: the sender's (default the placeholder
#                "Your Name <you@example.org>", to be replaced before sending)
#   SIGNOFF=1    add "Signed-off-by: SERIES_FROM" to every patch (only the sender does that)
#   SERIES_DATE  the commits' date (default 2026-11-29T00:00:00Z: the same input gives the
#                same patches)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { printf 'gen-series: error: %s\n' "$*" >&2; exit 1; }
(($# == 2)) || die "usage: kselftest-series/gen-series.sh BASE OUT"
base=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
rel=tools/testing/selftests/user_events
[[ -f "$base/$rel/Makefile" && -f "$base/$rel/config" ]] || die "$base has no $rel"

SERIES_FROM=${SERIES_FROM:-Your Name <you@example.org>}
[[ "$SERIES_FROM" =~ ^(.+)\ \<(.+)\>$ ]] || die "SERIES_FROM=$SERIES_FROM is not \"Name <address>\""
export GIT_AUTHOR_NAME=${BASH_REMATCH[1]} GIT_AUTHOR_EMAIL=${BASH_REMATCH[2]}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE=${SERIES_DATE:-2026-11-29T00:00:00Z} GIT_COMMITTER_DATE=${SERIES_DATE:-2026-11-29T00:00:00Z}
signoff=()
[[ "${SIGNOFF:-0}" == 1 ]] && signoff=(--signoff)

version=$(sed -n 's/^VERSION = //p' "$base/Makefile" 2>/dev/null).$(sed -n 's/^PATCHLEVEL = //p' "$base/Makefile" 2>/dev/null)
repo=$out/git
rm -rf "$repo" "$out/mainline" "$out/race-6.12"
mkdir -p "$repo/$rel"
cp -a "$base/$rel/." "$repo/$rel/"
g() { git -C "$repo" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
g init -q -b base
g add -A
g commit -q -m "user_events selftests of $version (the base)"

commit() { # message-file
    local msg=$1
    [[ -f "$msg" ]] || die "no commit message $msg"
    g add -A
    g commit -q "${signoff[@]}" -F "$msg"
}

# --- the 6.12 race fix (its own branch, on the base) ----------------------------------
if [[ "$version" == 6.12 ]]; then
    g checkout -q -b race-6.12 base
    g apply "$here/fixes/race-6.12.diff" ||
        die "fixes/race-6.12.diff does not apply to $base"
    commit "$here/messages/race-6.12.txt"
    g format-patch -q --no-signature --zero-commit -o "$out/race-6.12" base..race-6.12
fi

# --- the series ------------------------------------------------------------------------
g checkout -q -b mainline base
n=0
while read -r name rest; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    for item in $rest; do
        case $item in
        config:*)
            printf '%s\n' "${item#config:}" >>"$repo/$rel/config" ;;
        *.c)
            cp "$here/src/$item" "$repo/$rel/$item"
            prog=${item%.c}
            # One line per program, after the last TEST_GEN_PROGS line
            awk -v p="$prog" '{ print } /^TEST_GEN_PROGS/ { last = NR }
                END { if (!last) exit 1 }' "$repo/$rel/Makefile" >/dev/null ||
                die "no TEST_GEN_PROGS line in $rel/Makefile"
            awk -v p="$prog" 'NR == FNR { if (/^TEST_GEN_PROGS/) last = FNR; next }
                { print } FNR == last { print "TEST_GEN_PROGS += " p }' \
                "$repo/$rel/Makefile" "$repo/$rel/Makefile" >"$repo/Makefile.tmp"
            mv "$repo/Makefile.tmp" "$repo/$rel/Makefile" ;;
        *)
            cp "$here/src/$item" "$repo/$rel/$item" ;;
        esac
    done
    commit "$here/messages/$name.txt"
    n=$((n + 1))
done <"$here/series"

# The cover letter: messages/cover.txt as the branch's description (first paragraph: the
# subject, the rest: the body).
g config branch.mainline.description "$(cat "$here/messages/cover.txt")"
g format-patch -q --no-signature --zero-commit --cover-letter --cover-from-description=subject \
    -o "$out/mainline" base..mainline
printf 'gen-series: %d patches in %s/mainline%s (base %s)\n' "$n" "$out" \
    "$([[ -d "$out/race-6.12" ]] && echo ", the 6.12 race fix in $out/race-6.12")" "$version"
