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

# decoder_init NAME UPSTREAM ARGS...: build_init, with the decoders' usage line.
decoder_init() {
    build_wing=decoders build_arg=CHECKOUT build_init "$@"
    here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)  # the decoder's build's folder
}

# decoder_cargo BIN: cargo_build of OUTDIR/crate for the binary BIN (cargo_setup and
# cargo_manifest first); sets decoder to its path or fails the stage.
decoder_cargo() {
    cargo_bin=$1 cargo_build
    [ "$cargo_rc" -eq 0 ] || fail cargo "$cargo_log"
    decoder=$emit
}
