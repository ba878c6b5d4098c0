# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# decoders/build.sh: what every decoders/<name>/build shares, sourced (bash). A build is
#
#   decoders/<name>/build CHECKOUT OUTDIR
#
# it checks the checkout is its upstream, builds the decoder into OUTDIR, sends progress to
# stderr and prints the decoder's path as its last line on stdout; a failure is one line on
# stderr naming the decoder, the stage and its log (exit 1; exit 2 for a wrong command
# line). The stages, the checkout check and Debian's cargo are emitlib/build.sh's (the
# implementations' builds share them); only the usage line and the sanitizer differ:
#
#   EHCONF_DECODER_ASAN=1   build with AddressSanitizer and UBSan where the toolchain
#                           can (C and C++: gcc's -fsanitize=address,undefined); the
#                           robustness runs of make check-decoders ask for it, a benchmark
#                           does not
# Nothing of a checkout is ever copied or written: it is only read and built out of tree.

# shellcheck source=emitlib/build.sh
. "$(dirname "${BASH_SOURCE[0]}")/../emitlib/build.sh"

# shellcheck disable=SC2034  # read by the build scripts that source this file
ASAN=${EHCONF_DECODER_ASAN:-0}

# decoder_init NAME UPSTREAM ARGS...: like build_init, with the decoders' usage line.
decoder_init() {
    build_name=$1 build_upstream=$2
    shift 2
    here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
    if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
        echo "usage: decoders/$build_name/build CHECKOUT OUTDIR (CHECKOUT: a checkout of $build_upstream)" >&2
        exit 2
    fi
    src=$1
    out=$2
}

# decoder_cargo BIN: cargo build --release of OUTDIR/crate (cargo_setup and cargo_manifest
# first) under a timeout; sets decoder to OUTDIR/target/release/BIN or fails the stage.
decoder_cargo() {
    local bin=$1 start=$SECONDS log=$out/cargo.log rc
    (
        cd "$out/crate" &&
            env -u RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u CARGO_BUILD_TARGET -u RUSTUP_TOOLCHAIN \
                CARGO_HOME="$out/cargo-home" CARGO_TARGET_DIR="$out/target" \
                RUSTC="$RUSTC" RUSTDOC="${RUSTC%rustc}rustdoc" \
                timeout "$CARGO_TIMEOUT" nice -n 19 "$CARGO" build --release --offline \
                -j "$CARGO_JOBS" --manifest-path "$out/crate/Cargo.toml"
    ) >"$log" 2>&1
    rc=$?
    [ $rc -ne 124 ] || echo "timed out after $CARGO_TIMEOUT s" >>"$log"
    decoder=$out/target/release/$bin
    if [ $rc -eq 0 ] && [ ! -x "$decoder" ]; then
        echo "$decoder was not built" >>"$log"
        rc=1
    fi
    [ $rc -eq 0 ] || fail cargo "$log"
    echo "$build_name: cargo: done in $((SECONDS - start)) s" >&2
}
