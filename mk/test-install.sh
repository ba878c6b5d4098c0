#!/bin/bash
# SPDX-License-Identifier: MIT
# mk/test-install.sh MAKE VARIANT: `make test-install`. Installs into a temporary DESTDIR
# (PREFIX=/opt/ehconf, not the default, so nothing depends on /usr/local), then, using only
# the installed tree through pkg-config (PKG_CONFIG_LIBDIR + PKG_CONFIG_SYSROOT_DIR):
#  - the shared libraries have their sonames and export only their public API;
#  - samples/hello_install.c (libeventheader) and samples/decode_install.c (libehdecode)
#    build and link shared (NEEDED lib*.so.0) and static (-static, no NEEDED library);
#  - each hello writes its event to a capture file (EHCONF_CAPTURE), which the installed
#    ehdecode and each decode_install turn into the expected JSON line;
#  - the man pages render without a warning; make uninstall leaves no file behind.
# The temporary folder is under $TMPDIR (default /tmp) and removed at the end.
set -euo pipefail
make_cmd=$1
variant=$2
prefix=/opt/ehconf
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ehconf-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
root=$dest$prefix
checks=0
fail() {
    echo "test-install: FAIL: $*" >&2
    exit 1
}
ok() {
    checks=$((checks + 1))
    echo "test-install: ok $checks $*"
}

"$make_cmd" --no-print-directory VARIANT="$variant" install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log" >&2; fail "make install DESTDIR=$dest PREFIX=$prefix"; }
ok "make install DESTDIR=... PREFIX=$prefix"

for lib in eventheader ehdecode; do
    so=$root/lib/lib$lib.so
    [ -f "$root/lib/lib$lib.a" ] || fail "lib$lib.a not installed"
    if [ ! -L "$so" ] || [ ! -L "$so.0" ]; then fail "lib$lib.so and lib$lib.so.0 links not installed"; fi
    soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "lib$lib.so.0" ] || fail "lib$lib.so: soname '$soname', want lib$lib.so.0"
    # Every exported symbol is named in an installed header; internal globals are not.
    exported=$(nm -D --defined-only "$so" | awk 'NF == 3 { print $3 }' | sort -u)
    [ -n "$exported" ] || fail "lib$lib.so exports nothing"
    case $lib in
    eventheader) headers=("$root"/include/eventheader*.h "$root"/include/eh_*) ;;
    ehdecode) headers=("$root"/include/ehd*.h) ;;
    esac
    tokens=$(cat "${headers[@]}" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u)
    stray=$(comm -23 <(echo "$exported") <(echo "$tokens"))
    [ -z "$stray" ] || fail "lib$lib.so exports symbols no public header names: $(echo "$stray" | tr '\n' ' ')"
    internal=$(nm -g --defined-only "$root/lib/lib$lib.a" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u |
        comm -23 - <(echo "$exported") | wc -l)
    ok "lib$lib.so: soname $soname, $(wc -l <<<"$exported") public symbols exported, $internal internal ones hidden"
done

export PKG_CONFIG_LIBDIR=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
unset PKG_CONFIG_PATH
cc=${CC:-cc}
for pc in eventheader ehdecode; do
    pkg-config --validate "$pc" || fail "pkg-config --validate $pc"
    [ "$(pkg-config --variable=libdir "$pc")" = "$dest$prefix/lib" ] || fail "$pc.pc: libdir $(pkg-config --variable=libdir "$pc")"
done
ok "pkg-config finds eventheader $(pkg-config --modversion eventheader) and ehdecode $(pkg-config --modversion ehdecode): $(pkg-config --cflags --libs eventheader)"

# $1 sample, $2 pkg-config module, $3 shared|static
build() {
    local out=$tmp/${1}-$3
    if [ "$3" = shared ]; then
        # shellcheck disable=SC2046 # pkg-config prints several words on purpose
        "$cc" -std=c11 -Wall -Wextra -Werror -o "$out" "samples/$1.c" $(pkg-config --cflags --libs "$2")
        readelf -d "$out" | grep -q "NEEDED.*lib$2\.so\.0" || fail "$1-shared does not need lib$2.so.0"
    else
        # shellcheck disable=SC2046
        "$cc" -std=c11 -Wall -Wextra -Werror -static -o "$out" "samples/$1.c" $(pkg-config --static --cflags --libs "$2")
        ! readelf -d "$out" 2>/dev/null | grep -q NEEDED || fail "$1-static needs shared libraries"
    fi
    ok "samples/$1.c built $3 through pkg-config $2"
}
want='{ "n": "MyCompany_MyComponent:MyWarningEvent", "Message": "We'\''re low on ice cream.", "Count;tag=0x12": "0x2A", "Where": { "File": "hello_install.c", "Line": 7 }, "meta": { "level": 3, "keyword": "0x23" } }'
export LD_LIBRARY_PATH=$root/lib
for kind in shared static; do
    build hello_install eventheader "$kind"
    build decode_install ehdecode "$kind"
    cap=$tmp/hello-$kind.dat
    EHCONF_CAPTURE=$cap "$tmp/hello_install-$kind" || fail "hello_install-$kind exited with $?"
    got=$("$root/bin/ehdecode" --golden "$cap") || fail "installed ehdecode --golden $cap"
    [ "$got" = "$want" ] || fail "ehdecode: got $got, want $want"
    got=$("$tmp/decode_install-$kind" "$cap") || fail "decode_install-$kind $cap"
    [ "$got" = "$want" ] || fail "decode_install-$kind: got $got, want $want"
    ok "hello_install-$kind wrote the event, the installed ehdecode and decode_install-$kind decode it"
done

for m in ehdecode ehregister; do
    page=$root/share/man/man1/$m.1
    [ -f "$page" ] || fail "$page not installed"
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || fail "groff $page"
    [ -z "$warnings" ] || fail "$page: $warnings"
    "$root/bin/$m" --help >/dev/null 2>&1 || [ $? -le 2 ] || fail "$m does not run"
done
ok "man pages ehdecode.1 and ehregister.1 render without warnings"

"$make_cmd" --no-print-directory VARIANT="$variant" uninstall DESTDIR="$dest" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1 ||
    { cat "$tmp/uninstall.log" >&2; fail "make uninstall"; }
left=$(find "$dest" -not -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
ok "make uninstall removes every installed file"
echo "test-install: $checks passed, 0 failed"
