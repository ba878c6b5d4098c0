# SPDX-License-Identifier: GPL-2.0
# emitlib/build.sh: what every impl/<name>/build shares, sourced (bash). A build script is
#
#   impl/<name>/build IMPL_SRC OUTDIR
#
# it checks that the checkout is its implementation, builds the emitter into OUTDIR, sends
# progress to stderr and prints the emitter's path as its last line on stdout; any failure
# is one line on stderr naming the implementation, the stage and its log, exit 1 (exit 2
# for a wrong command line). This file holds that contract once:
#
#   build_init NAME "UPSTREAM" "$@"   arguments checked; sets here, src, out (absolute)
#   need_files FILE...                the checkout must have them, else "not UPSTREAM"
#   fail STAGE LOG                    the one failure line, exit 1
#   stage NAME SECONDS COMMAND...     COMMAND under a timeout into OUTDIR/NAME.log
#   stage_fn NAME FUNCTION [ARG...]   a function of the script into OUTDIR/NAME.log
#   lttp_libraries                    libtracepoint and libeventheader-tracepoint of the
#                                     checkout, built once per checkout and shared (sets libs)
#   libdesc                           the description parser (emitlib/c) into OUTDIR/desc
#                                     (sets desc_lib, desc_inc); libdesc_host: the same
#                                     for this machine when cross-built (host_desc_lib)
#   cross_setup                       EHCONF_CROSS_ARCH=<a row of vm/arches>: the emitter is
#                                     for a guest of that architecture (make check-impl
#                                     KERNEL_ARCH=s390x); sets target_cc, target_cxx (cc, g++
#                                     without it) and the cmake toolchain the libraries use
#   cargo_setup                       Debian's cargo and crates, offline, a private CARGO_HOME
#   rust_cross_setup                  after cross_setup: cargo's environment for that guest
#                                     (rust_env: --target, the target's standard library
#                                     from vm/rust-std, the cross gcc as linker); empty
#                                     without EHCONF_CROSS_ARCH
#   cargo_manifest TEMPLATE K=V...    OUTDIR/crate/Cargo.toml from a template, on change only
#   cargo_build [VAR=VALUE...]        cargo build --release into OUTDIR/target (log: cargo.log)
#   gencase_build NAME                a macro API's emitter generated per case (lttp-c, ehconf-macros)
#   crate_emitter FILE...             a producer's emitter from the crate registry
# Nothing of a checkout is ever copied or written: it is only read and built out of tree.

# build_init NAME UPSTREAM ARGS...: the command line, then here/src/out.
build_init() {
    build_name=$1 build_upstream=$2
    shift 2
    here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)  # the calling build script's folder
    # The folder the build lives in, and what its first argument is called there: impl/'s
    # builds take IMPL_SRC, decoders/' a CHECKOUT (decoders/build.sh sets both).
    local wing=${build_wing:-impl} arg=${build_arg:-IMPL_SRC}
    if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
        echo "usage: $wing/$build_name/build $arg OUTDIR ($arg: a checkout of $build_upstream)" >&2
        exit 2
    fi
    src=$1
    out=$2
}

# need_files FILE...: each relative to the checkout; then src becomes absolute and OUTDIR exists.
need_files() {
    local f
    for f in "$@"; do
        if [ ! -e "$src/$f" ]; then
            echo "$build_name: build: IMPL_SRC=$src is not $build_upstream (no $f)" >&2
            exit 1
        fi
    done
    src=$(cd "$src" && pwd)
    if ! mkdir -p "$out"; then
        echo "$build_name: build: cannot create OUTDIR=$out" >&2
        exit 1
    fi
    out=$(cd "$out" && pwd)
}

fail() {
    echo "$build_name: build: $1 failed (log: $2)" >&2
    exit 1
}

stage() {
    local name=$1 limit=$2 log="$out/$1.log" start=$SECONDS rc
    shift 2
    timeout "$limit" "$@" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 124 ]; then
        echo "timed out after $limit s" >>"$log"
    fi
    [ $rc -eq 0 ] || fail "$name" "$log"
    echo "$build_name: $name: done in $((SECONDS - start)) s" >&2
}

stage_fn() {
    local name=$1 log="$out/$1.log" start=$SECONDS
    "${@:2}" >"$log" 2>&1 || fail "$name" "$log"
    echo "$build_name: $name: done in $((SECONDS - start)) s" >&2
}

# --- another architecture: Debian's cross compilers (vm/cross-toolchain --c++) ------------

cross_setup() {
    target_cc=cc target_cxx=g++ cross_arch=${EHCONF_CROSS_ARCH:-} cross_processor=""
    [ -n "$cross_arch" ] || return 0
    local top bin prefix
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    # shellcheck source=vm/arch.sh
    . "$top/vm/arch.sh"
    prefix=$(arch_field "$cross_arch" cross 2>/dev/null)
    if [ -z "$prefix" ]; then
        echo "$build_name: build: EHCONF_CROSS_ARCH=$cross_arch is not a guest architecture of vm/arches" >&2
        exit 1
    fi
    mkdir -p "$out" || fail cross-toolchain "$out"
    bin=$("$top/vm/cross-toolchain" --c++ "$cross_arch" 2>"$out/cross-toolchain.log" | tail -n1)
    [ -x "$bin/${prefix}g++" ] || fail cross-toolchain "$out/cross-toolchain.log"
    target_cc=$bin/${prefix}gcc target_cxx=$bin/${prefix}g++
    cross_processor=${prefix%%-*}  # uname -m in that guest: s390x, aarch64
    echo "$build_name: cross: $cross_arch with $target_cxx" >&2
}

# cross_toolchain_file DIR: the cmake toolchain file for the cross compilers, written into
# the build folder DIR (never the checkout); prints the cmake option that reads it.
cross_toolchain_file() {
    cat >"$1/toolchain.cmake" <<TOOLCHAIN
# Written by emitlib/build.sh (EHCONF_CROSS_ARCH=$cross_arch): Debian's cross compilers.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $cross_processor)
set(CMAKE_C_COMPILER $target_cc)
set(CMAKE_CXX_COMPILER $target_cxx)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
TOOLCHAIN
    echo "-DCMAKE_TOOLCHAIN_FILE=$1/toolchain.cmake"
}

# --- microsoft/LinuxTracepoints: its two libraries, once per checkout ----------------------

# The C macro and the C++ builder emitters link the same two libraries of the same checkout:
# they are built once into the cache, under a key of the checkout's path and its sources
# (size, time, name), and shared; a lock keeps two builds from racing. Cross-built (cross_setup
# first) under a key of their own.
lttp_libraries() {
    local cache=${EHCONF_CACHE:-/var/cache/ehconf}/lttp-libraries key dir lib cross=()
    key=$( (
        echo "$src${cross_arch:+ for $cross_arch}"
        cd "$src" && find CMakeLists.txt libtracepoint libeventheader-tracepoint -type f \
            -printf '%s %T@ %p\n' | sort
    ) | sha256sum | cut -c1-16)
    dir=$cache/$key
    libs=("$dir/lib/libeventheader-tracepoint.a" "$dir/lib/libtracepoint.a")
    mkdir -p "$cache" || fail library "$cache"
    exec 9>"$cache/$key.lock"
    flock 9
    if [ -f "$dir/done" ]; then
        echo "$build_name: library: cached ($dir)" >&2
    else
        echo "$build_name: library: cmake -S $src -B $dir (tracepoint, eventheader-tracepoint)" >&2
        if [ -n "${cross_arch:-}" ]; then
            mkdir -p "$dir" && cross=("$(cross_toolchain_file "$dir")")
        fi
        stage configure 300 cmake -S "$src" -B "$dir" "${cross[@]}" \
            -DCMAKE_BUILD_TYPE=Release -DBUILD_SAMPLES=OFF -DBUILD_TESTING=OFF
        stage library 600 cmake --build "$dir" -j2 --target tracepoint eventheader-tracepoint
        for lib in "${libs[@]}"; do
            if [ ! -f "$lib" ]; then
                echo "$lib was not built" >>"$out/library.log"
                fail library "$out/library.log"
            fi
        done
        : >"$dir/done"
        # Copies of a checkout (make test-impl-mutants) each get a build: keep the 8 newest.
        find "$cache" -mindepth 2 -maxdepth 2 -name done -printf '%T@ %h\n' | sort -rn |
            tail -n +9 | while read -r _ old; do rm -rf "$old" "$old.lock"; done
    fi
    exec 9>&-
}

# --- the case descriptions' parser, for the C and C++ emitters -----------------------------

# libdesc: for the emitter's machine (target_cc, after cross_setup). libdesc_host: for a
# program of the build that runs on this machine (lttp-c's generator), into OUTDIR/desc-host
# (sets host_desc_lib; the same library when nothing is cross-built).
libdesc() {
    local emitlib
    emitlib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    echo "$build_name: desc: emitlib/c/build-lib $out/desc" >&2
    if [ -n "${cross_arch:-}" ]; then
        CC=$target_cc AR=${target_cc%gcc}ar stage desc 300 "$emitlib/c/build-lib" "$out/desc"
    else
        stage desc 300 "$emitlib/c/build-lib" "$out/desc"
    fi
    desc_lib=$out/desc/libdesc.a
    desc_inc=$emitlib/c
}

libdesc_host() {
    host_desc_lib=$desc_lib
    [ -n "${cross_arch:-}" ] || return 0
    echo "$build_name: desc-host: emitlib/c/build-lib $out/desc-host" >&2
    CC=cc AR=ar stage desc-host 300 "$desc_inc/build-lib" "$out/desc-host"
    host_desc_lib=$out/desc-host/libdesc.a
}

# --- Rust: Debian's cargo, offline --------------------------------------------------------

CARGO=${EHCONF_CARGO:-/usr/bin/cargo}
RUSTC=${EHCONF_RUSTC:-/usr/bin/rustc}
REGISTRY=${EHCONF_CARGO_REGISTRY:-/usr/share/cargo/registry}
CARGO_TIMEOUT=${EHCONF_CARGO_TIMEOUT:-600}
# One job by default: the crates form a chain, and the machine's cores are shared.
CARGO_JOBS=${EHCONF_CARGO_JOBS:-1}
rust_env=() rust_release=release  # this machine's, until rust_cross_setup says otherwise

# rust_cross_setup: with EHCONF_CROSS_ARCH (cross_setup first), the environment that makes
# cargo build for that guest with the host's rustc (rust_env, added to cargo's; rust_target,
# Rust's name of the target; rust_release, where the binaries land):
#   CARGO_BUILD_TARGET                       <arch>-unknown-linux-gnu
#   CARGO_TARGET_<TRIPLE>_RUSTFLAGS          --sysroot: the target's standard library,
#                                            Debian's libstd-rust-web-dev of that
#                                            architecture (vm/rust-std, in the cache); with
#                                            a target, cargo gives these flags to the target's
#                                            crates only, so build scripts and proc macros
#                                            still build with the host's own library
#   CARGO_TARGET_<TRIPLE>_LINKER             the cross gcc (vm/cross-toolchain): its C
#                                            library and crt files are the guest's release's
# Without EHCONF_CROSS_ARCH all three are empty and nothing changes.
rust_cross_setup() {
    rust_env=() rust_target="" rust_release=release
    [ -n "${cross_arch:-}" ] || return 0
    local top sysroot var
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    # shellcheck source=vm/arch.sh
    . "$top/vm/arch.sh"
    rust_target=$(arch_field "$cross_arch" rust) || fail rust-std /dev/null
    sysroot=$("$top/vm/rust-std" "$cross_arch" 2>"$out/rust-std.log" | tail -n1)
    [ -d "$sysroot/lib/rustlib/$rust_target/lib" ] || fail rust-std "$out/rust-std.log"
    var=CARGO_TARGET_$(printf '%s' "$rust_target" | tr 'a-z-' 'A-Z_')
    rust_env=("CARGO_BUILD_TARGET=$rust_target" "${var}_RUSTFLAGS=--sysroot $sysroot"
        "${var}_LINKER=$target_cc")
    rust_release=$rust_target/release
    echo "$build_name: cross: cargo --target $rust_target, std from $sysroot" >&2
}

# TEXT as the inside of a TOML basic string ("...").
toml_str() {
    local s=${1//\\/\\\\}
    printf '%s' "${s//\"/\\\"}"
}

# cargo_setup: checks the toolchain and the crates, writes OUTDIR/cargo-home/config.toml
# (crates-io replaced by Debian's /usr/share/cargo/registry; ~/.cargo is never read).
cargo_setup() {
    local setup_log=$out/setup.log need
    mkdir -p "$out/crate" "$out/cargo-home" || fail setup "$out"
    : >"$setup_log"
    for need in "$CARGO" "$RUSTC"; do
        if [ ! -x "$need" ]; then
            echo "$need is not installed (make deps: cargo-web, rustc-web)" >>"$setup_log"
            fail setup "$setup_log"
        fi
    done
    if [ ! -d "$REGISTRY" ] || ! compgen -G "$REGISTRY/libc-0.2.*" >/dev/null; then
        echo "$REGISTRY has no libc 0.2 crate (make deps: librust-libc-dev)" >>"$setup_log"
        fail setup "$setup_log"
    fi
    cat >"$out/cargo-home/config.toml" <<CONFIG
# Written by emitlib/build.sh for impl/$build_name/build: crates come from Debian's packages,
# never the network.
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "$(toml_str "$REGISTRY")"

[net]
offline = true

[term]
color = "never"
CONFIG
}

# cargo_manifest TEMPLATE KEY=VALUE...: @KEY@ placeholders (paths) replaced, TOML-escaped;
# OUTDIR/crate/Cargo.toml rewritten only on change, so cargo rebuilds only what changed.
cargo_manifest() {
    local template=$1 kv args=()
    shift
    for kv in "$@"; do
        args+=(-e "s|@${kv%%=*}@|$(printf '%s' "$(toml_str "${kv#*=}")" | sed -e 's/[&|\\]/\\&/g')|g")
    done
    sed "${args[@]}" "$template" >"$out/crate/Cargo.toml.new" 2>>"$out/setup.log" ||
        fail setup "$out/setup.log"
    if ! cmp -s "$out/crate/Cargo.toml.new" "$out/crate/Cargo.toml"; then
        mv "$out/crate/Cargo.toml.new" "$out/crate/Cargo.toml"
    else
        rm -f "$out/crate/Cargo.toml.new"
    fi
}

# cargo_build [VAR=VALUE...]: the release build with the extra environment given (and
# rust_env: rust_cross_setup first); on success sets emit to OUTDIR/target/release/emit
# (target/<triple>/release/emit when cross-built; cargo_bin names another binary of the
# crate, as decoders/build.sh's decoder_cargo does). The caller decides what a failure
# means (cargo_rc, log: OUTDIR/cargo.log).
cargo_build() {
    local start=$SECONDS bin=${cargo_bin:-emit}
    cargo_log=$out/cargo.log
    (
        cd "$out/crate" &&
            env -u RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_BUILD_TARGET -u RUSTUP_TOOLCHAIN \
                CARGO_HOME="$out/cargo-home" CARGO_TARGET_DIR="$out/target" \
                RUSTC="$RUSTC" RUSTDOC="${RUSTC%rustc}rustdoc" "${rust_env[@]}" "$@" \
                timeout "$CARGO_TIMEOUT" "$CARGO" build --release --offline -j "$CARGO_JOBS" \
                --manifest-path "$out/crate/Cargo.toml"
    ) >"$cargo_log" 2>&1
    cargo_rc=$?
    if [ $cargo_rc -eq 124 ]; then
        echo "timed out after $CARGO_TIMEOUT s" >>"$cargo_log"
    fi
    emit=$out/target/$rust_release/$bin
    if [ $cargo_rc -eq 0 ] && [ ! -x "$emit" ]; then
        echo "$emit was not built" >>"$cargo_log"
        cargo_rc=1
    fi
    [ $cargo_rc -ne 0 ] || echo "$build_name: cargo: done in $((SECONDS - start)) s" >&2
}

# eventheader_library: libeventheader from a checkout of ehconf's lib/eventheader (IMPL_SRC)
# as eh_lib. This repository's own, for this machine: the one make built
# (EHCONF_MAKE_BUILD/lib/libeventheader.a, which harness/impl/run_impl.py passes, make check-impl
# having built it). Otherwise (a patched copy make test-impl-mutants made, a guest of another
# architecture) its sources with only its own include paths, as lib/eventheader/build.mk
# builds them, into OUTDIR/lib/libeventheader.a.
eventheader_library() {
    local own made=${EHCONF_MAKE_BUILD:+$EHCONF_MAKE_BUILD/lib/libeventheader.a}
    own=$(cd "$here/../../lib/eventheader" && pwd)
    if [ -n "$made" ] && [ -f "$made" ] && [ "$src" = "$own" ] && [ -z "${cross_arch:-}" ]; then
        echo "$build_name: library: $made (built by make)" >&2
        eh_lib=$made
        return 0
    fi
    echo "$build_name: library: $src/src/*.c" >&2
    stage_fn library eventheader_library_build
    eh_lib=$out/lib/libeventheader.a
}

eventheader_library_build() {
    mkdir -p "$out/lib/obj" || return 1
    local c objs=() ar=ar
    for c in "$src"/src/*.c; do
        objs+=("$out/lib/obj/$(basename "$c" .c).o")
        "$target_cc" -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I"$src/include" \
            -I"$src/internal" -c "$c" -o "${objs[-1]}" || return 1
    done
    [ -n "${cross_arch:-}" ] && ar=${target_cc%gcc}ar
    rm -f "$out/lib/libeventheader.a"
    "$ar" rcs "$out/lib/libeventheader.a" "${objs[@]}"
}

# emitlib_dir: the ehconf-emit crate's folder (emitlib/rust), absolute: what a manifest
# written into OUTDIR names as its path dependency (@EMITLIB@).
emitlib_dir() {
    (cd "$(dirname "${BASH_SOURCE[0]}")/rust" && pwd)
}

# rust_cases_emitter MAIN_RS: a Rust emitter of the case descriptions built against a
# checkout of microsoft/LinuxTracepoints-Rust with Debian's cargo, offline: the manifest
# from the row's Cargo.toml.in (IMPL_SRC, MAIN_RS), the case descriptions' type table
# (descriptions/types.txt, EHCONF_TYPES_TXT) compiled in, cross-built for a guest with
# EHCONF_CROSS_ARCH; prints the emitter's path (impl/rust-dynamic, `new-impl KIND=rust`).
rust_cases_emitter() {
    local main=$1 types=${EHCONF_TYPES_TXT:-$here/../../descriptions/types.txt}
    echo "$build_name: setup: $out/crate/Cargo.toml, $out/cargo-home/config.toml" >&2
    cargo_setup
    cross_setup
    rust_cross_setup
    if [ ! -f "$types" ]; then
        echo "$types is missing: the emitter compiles in the case descriptions' type table" >>"$out/setup.log"
        fail setup "$out/setup.log"
    fi
    if ! cmp -s "$types" "$out/crate/types.txt" && ! cp "$types" "$out/crate/types.txt" 2>>"$out/setup.log"; then
        fail setup "$out/setup.log"
    fi
    cargo_manifest "$here/Cargo.toml.in" IMPL_SRC="$src" MAIN_RS="$main" EMITLIB="$(emitlib_dir)"
    echo "$build_name: cargo: build --release --offline (from $src)" >&2
    cargo_build EHCONF_TYPES_TXT="$out/crate/types.txt"
    [ "$cargo_rc" -eq 0 ] || fail cargo "$cargo_log"
    echo "$emit"
}

# --- a macro API's emitter, generated per case (parser gen) -------------------------------

# gencase_build <name>: the pipeline every row whose emitter is generated from the case
# descriptions shares (impl/lttp-c, impl/ehconf-macros): the generator impl/<name>/gen.c with
# emitlib/gencase/gen_common.c; one C file per description and the case table; each
# compiled (only those whose text, flags or headers changed; JOBS at a time, largest first);
# the emitter emitlib/gencase/driver.c + impl/<name>/contract.c linked with them. The row's
# build sets, after libdesc, libdesc_host and its library:
#   gen_header      the API's header, handed to the generator (it cites its lines)
#   gen_flags       the generator's extra compiler flags (array)
#   case_flags      the generated files' flags beyond -std=c11, GENCASE_OPT (-O0 by default:
#                   thousands of events, each run once; make bench-impls -O2) and -Werror
#   case_headers    the headers whose change recompiles every generated file
#   emit_flags      the emitter's extra flags, emit_libs the libraries it links (arrays)
# EHCONF_EVENTS_DIR (default descriptions/) names the descriptions; GENERATE_TIMEOUT,
# COMPILE_TIMEOUT and JOBS bound the stages.
gencase_build() {
    local name=$1 gencase events
    gencase=$(cd "$here/../../emitlib/gencase" && pwd)
    events=${EHCONF_EVENTS_DIR:-$here/../../descriptions}
    [ -d "$events" ] && events=$(cd "$events" && pwd)
    echo "$name: generator: cc -std=c11 $here/gen.c $gencase/gen_common.c" >&2
    stage generator 300 cc -std=c11 -O2 -Wall -Wextra -Werror -I"$desc_inc" -I"$gencase" \
        "${gen_flags[@]}" -o "$out/gen" "$here/gen.c" "$gencase/gen_common.c" "$host_desc_lib"
    shopt -s nullglob
    gencase_descriptions=("$events"/*.events)
    shopt -u nullglob
    if [ ${#gencase_descriptions[@]} -eq 0 ]; then
        echo "no descriptions in $events" >"$out/generate.log"
        fail generate "$out/generate.log"
    fi
    echo "$name: generate: ${#gencase_descriptions[@]} descriptions from $events" >&2
    stage_fn generate gencase_generate
    # The flags an object was compiled with, and the headers it read: any change recompiles
    # every generated file.
    gencase_flags=(-std=c11 "${GENCASE_OPT:--O0}" -ftrack-macro-expansion=0 -Wall -Wextra -Werror
        -I"$gencase" "${case_flags[@]}")
    gencase_headers=("${case_headers[@]}" "$gencase/gencase.h" "$gencase/textmatch.h")
    echo "$name: compile: $out/src/*.c (-j$JOBS, ${GENCASE_OPT:--O0})" >&2
    stage_fn compile gencase_compile
    echo "$name: emitter: $target_cc $gencase/driver.c $here/contract.c" >&2
    stage emitter 300 "$target_cc" -std=c11 -O2 -Wall -Wextra -Werror -I"$gencase" -I"$desc_inc" \
        "${emit_flags[@]}" -o "$out/emit" "$gencase/driver.c" "$here/contract.c" \
        "$out/obj"/*.o "$desc_lib" "${emit_libs[@]}" -pthread
    echo "$out/emit"
}

# gencase_generate: every description into OUTDIR/src.new, then only the files whose text
# changed replace OUTDIR/src (so a rebuild compiles only those).
gencase_generate() {
    rm -rf "$out/src.new" && mkdir -p "$out/src.new" "$out/src" || return 1
    local d f
    for d in "${gencase_descriptions[@]}"; do
        echo "gen $d"
        timeout "$GENERATE_TIMEOUT" "$out/gen" "$gen_header" "$d" "$out/src.new" || return 1
    done
    timeout "$GENERATE_TIMEOUT" "$out/gen" --table "${gencase_descriptions[@]}" \
        >"$out/src.new/cases.c" || return 1
    for f in "$out/src"/*.c; do
        [ -e "$f" ] || continue
        [ -e "$out/src.new/${f##*/}" ] || rm -f "$f" "$out/obj/$(basename "$f" .c).o"
    done
    for f in "$out/src.new"/*.c; do
        cmp -s "$f" "$out/src/${f##*/}" || mv "$f" "$out/src/${f##*/}" || return 1
    done
    rm -rf "$out/src.new"
}

# gencase_compile: every generated file newer than its object, all of them when the flags or
# a header changed since the last compile (OUTDIR/cflags, OUTDIR/obj/stamp); each cc call is
# one group of ${#gencase_flags[@]} + 4 arguments on xargs' NUL-separated input.
gencase_compile() {
    mkdir -p "$out/obj" || return 1
    local f o h args=() n=0
    printf '%s\n' "${gencase_flags[@]}" "$target_cc" >"$out/cflags.new"
    cmp -s "$out/cflags.new" "$out/cflags" || rm -f "$out/obj"/*.o
    for h in "${gencase_headers[@]}"; do
        [ -e "$out/obj/stamp" ] && [ "$h" -nt "$out/obj/stamp" ] && rm -f "$out/obj"/*.o
    done
    while IFS= read -r f; do
        o=$out/obj/$(basename "$f" .c).o
        if [ ! "$o" -nt "$f" ]; then
            args+=("${gencase_flags[@]}" -c "$f" -o "$o")
            n=$((n + 1))
        fi
    done < <(ls -S "$out/src"/*.c)
    echo "$n files to compile"
    if [ $n -gt 0 ]; then
        printf '%s\0' "${args[@]}" |
            xargs -0 -t -n $((${#gencase_flags[@]} + 4)) -P "$JOBS" timeout "$COMPILE_TIMEOUT" "$target_cc" ||
            return 1
    fi
    mv "$out/cflags.new" "$out/cflags" && touch "$out/obj/stamp"
}


# --- Rust from the crate registry: a producer people deploy ------------------------------

# crate_emitter [FILE...]: the emitter crate impl/<name>/ (Cargo.toml,
# Cargo.lock, src/) built with the crates its committed lock pins, fetched from the crate
# registry into $EHCONF_CACHE/cargo (CARGO_HOME; ~/.cargo is never read), compiled into
# $EHCONF_CACHE/cargo-target/<name> so that the next run compiles only what changed; the
# emitter is copied to OUTDIR/emit, the path printed last, so a later build never changes
# the binary an earlier run recorded. FILE...: what the emitter needs besides its crate,
# relative to the checkout of ehconf (the setup stage checks them).
#
# CRATE@VERSION is the crate column of its row in impl/implementations.txt (registry_crate).
# IMPL_SRC "-": the published CRATE at VERSION (what users build; --locked). Otherwise a
# source tree of CRATE: its own folder (the registry's copy of it, say, edited by make
# test-impl-mutants) or a checkout holding CRATE/Cargo.toml. It is built in place of the
# published crate through [patch.crates-io], in a manifest written to OUTDIR/crate with a
# copy of the lock (the emitter's folder is never written), the other crates still at
# their locked versions: how a patched copy or an unreleased commit is judged.
crate_setup() {
    local need
    for need in "$CARGO" "$RUSTC"; do
        [ -x "$need" ] || { echo "$need is not installed (make deps: cargo-web, rustc-web)"; return 1; }
    done
    [ -f "$here/Cargo.lock" ] || { echo "$here/Cargo.lock is missing"; return 1; }
    for need in "$@"; do
        [ -e "$top/$need" ] || { echo "$need is missing"; return 1; }
    done
    "$RUSTC" --version && "$CARGO" --version
}

# registry_crate: the crate column of this implementation's row of impl/implementations.txt
# (NAME@VERSION), found by the column's name in the table's header line.
registry_crate() {
    awk -v n="$build_name" '
        /^# name / { sub(/^# /, ""); for (i = 1; i <= NF; i++) if ($i == "crate") c = i }
        !/^[[:space:]]*(#|$)/ && $1 == n && c { print $c }' "$here/../implementations.txt"
}

# crate_manifest VERSION PINNED...: where the emitter crate of that release is (sets
# crate_dir, and crate_lock, its committed lock; empty for an unpinned version): the first
# pinned version is impl/<name>/ itself, each other impl/<name>/versions/<VERSION>/ with a
# Cargo.toml and Cargo.lock of its own; a version not pinned takes the newest pinned one's
# manifest and no lock.
crate_manifest() {
    local version=$1 v newest=""
    shift
    crate_dir=$here crate_lock=$here/Cargo.lock
    for v in $1; do newest=$v; done
    [ "$version" = "${1%% *}" ] && return 0
    for v in $1; do
        if [ "$v" = "$version" ]; then
            crate_dir=$here/versions/$v crate_lock=$here/versions/$v/Cargo.lock
            if [ ! -f "$crate_lock" ] || [ ! -f "$crate_dir/Cargo.toml" ]; then
                echo "$build_name: build: $version is pinned but impl/$build_name/versions/$v/ has no Cargo.toml and Cargo.lock" >&2
                exit 1
            fi
            return 0
        fi
    done
    [ "$newest" = "${1%% *}" ] || crate_dir=$here/versions/$newest
    crate_lock=""
}

# crate_abs_manifest MANIFEST: the manifest with its relative paths (the emitter's sources,
# its build script, the ehconf-emit crate) made absolute, for a copy written elsewhere.
crate_abs_manifest() {
    local dir
    dir=$(cd "$(dirname "$1")" && pwd)
    sed -e "s|path = \"\([^/\"][^\"]*\)\"|path = \"$dir/\1\"|g" \
        -e "s|^build = \"\([^/\"][^\"]*\)\"|build = \"$dir/\1\"|" "$1"
}

crate_emitter() {
    local crate version pinned top target patched="" f
    crate=$(registry_crate)
    pinned=${crate#*@} crate=${crate%@*}
    if [ -z "$crate" ] || [ "$crate" = - ] || [ "$crate" = "$pinned" ]; then
        echo "$build_name: build: impl/implementations.txt gives $build_name no crate NAME@VERSION" >&2
        exit 1
    fi
    top=$(cd "$here/../.." && pwd)
    # The release to build: EHCONF_CRATE_VERSION (make check-impl VERSION=...), else the
    # first version the crate column pins.
    version=${EHCONF_CRATE_VERSION:-${pinned%%,*}}
    crate_manifest "$version" "${pinned//,/ }"
    cargo_home=${EHCONF_CACHE:-/var/cache/ehconf}/cargo
    target=${EHCONF_CACHE:-/var/cache/ehconf}/cargo-target/$build_name
    [ "$version" = "${pinned%%,*}" ] || target=$target@$version
    if [ "$src" != "-" ]; then
        [ -f "$src/$crate/Cargo.toml" ] && src=$src/$crate
        if [ ! -f "$src/Cargo.toml" ] || ! grep -q "^name = \"$crate\"" "$src/Cargo.toml"; then
            echo "$build_name: build: IMPL_SRC=$src is not $build_upstream (no Cargo.toml naming $crate, here or in $crate/)" >&2
            exit 1
        fi
        patched=$(cd "$src" && pwd)
        f=$(sed -n 's/^version = "\(.*\)"/\1/p' "$patched/Cargo.toml" | head -1)
        echo "$build_name: building $crate $f from $patched in place of the published $version" >&2
    fi
    if ! mkdir -p "$out" "$cargo_home" "$target"; then
        echo "$build_name: build: cannot create OUTDIR=$out, $cargo_home or $target" >&2
        exit 1
    fi
    out=$(cd "$out" && pwd)
    stage_fn setup crate_setup "$@"
    cross_setup
    rust_cross_setup
    local cargo_env=(env -u RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_BUILD_TARGET
        -u RUSTUP_TOOLCHAIN -u CARGO_TARGET_DIR CARGO_HOME="$cargo_home" RUSTC="$RUSTC"
        RUSTDOC="${RUSTC%rustc}rustdoc" CARGO_TERM_COLOR=never "${rust_env[@]}" "$CARGO")
    local manifest=$crate_dir/Cargo.toml locked=--locked
    if [ -z "$crate_lock" ]; then
        # Unpinned: the newest pinned version's manifest with the crate's `=` changed, and a
        # lock cargo resolves now from the registry's index (no committed lock holds it).
        echo "$build_name: UNPINNED: $crate $version is not a version impl/implementations.txt pins ($pinned): its lock is resolved now" >&2
        mkdir -p "$out/crate" || fail setup "$out"
        crate_abs_manifest "$manifest" | sed -e "s|\(^$crate = .*\)\"=[^\"]*\"|\1\"=$version\"|" \
            -e "s|\(^$crate = \"\)=[^\"]*\"|\1=$version\"|" >"$out/crate/Cargo.toml"
        rm -f "$out/crate/Cargo.lock"
        manifest=$out/crate/Cargo.toml locked=""
        stage lock "$CARGO_TIMEOUT" "${cargo_env[@]}" generate-lockfile --manifest-path "$manifest"
        stage fetch "$CARGO_TIMEOUT" "${cargo_env[@]}" fetch --locked --manifest-path "$manifest"
    else
        echo "$build_name: fetch: the crates of ${crate_lock#"$top"/} into $cargo_home" >&2
        stage fetch "$CARGO_TIMEOUT" "${cargo_env[@]}" fetch --locked --manifest-path "$manifest"
    fi
    if [ -n "$patched" ]; then
        # The same manifest with its paths made absolute (the ehconf-emit crate's too) and
        # the patch added.
        mkdir -p "$out/crate" || fail setup "$out"
        [ "$manifest" = "$out/crate/Cargo.toml" ] || crate_abs_manifest "$manifest" >"$out/crate/Cargo.toml"
        printf '\n[patch.crates-io]\n%s = { path = "%s" }\n' "$crate" "$(toml_str "$patched")" \
            >>"$out/crate/Cargo.toml"
        [ -z "$crate_lock" ] || cp "$crate_lock" "$out/crate/Cargo.lock"
        manifest=$out/crate/Cargo.toml locked=""
    fi
    echo "$build_name: cargo: build --release -j $CARGO_JOBS${rust_target:+ --target $rust_target} (target: $target)" >&2
    stage cargo "${EHCONF_CARGO_TIMEOUT:-1200}" "${cargo_env[@]}" build --release $locked \
        --offline -j "$CARGO_JOBS" --manifest-path "$manifest" --target-dir "$target"
    if ! cp "$target/$rust_release/emit" "$out/emit.new" || ! mv "$out/emit.new" "$out/emit"; then
        echo "$target/$rust_release/emit was not built" >>"$out/cargo.log"
        fail cargo "$out/cargo.log"
    fi
    echo "$out/emit"
}
