// SPDX-License-Identifier: GPL-2.0
//
// A description's value bytes in the byte order of the machine that writes the event.
//
// Documentation/case-descriptions.md spells every value as the bytes a little-endian
// writer puts in the payload. A big-endian writer puts its numbers the other way round (and
// the event says so with its big-endian flag), and a decoder gives the same values back, so
// the same description holds for both. Not every run of bytes is a number, though: the
// EventHeader format pins some to one order whatever the writer (eventheader-wire.md §5):
// ports and IPv4 addresses in network order, hex_bytes, and the 16-byte values (uuids, IPv6)
// which are bytes anyway. Those are passed on as they are written.
//
// Used by the Rust emitters (the ehconf-emit crate): rust-dynamic turns bytes into the numbers
// its builder takes with `machine`, rust-macro's generator (a build script, which runs on
// the build machine) writes literals and payloads for the target with `ordered` and the
// target's order. tests/desc/desc_order.rs holds it to the rule; the C emitters get the
// same rule from libdesc.

// Each includer uses its part: the emitter `machine`, the generator `ordered` and `count16`.
#![allow(dead_code)]

use crate::desc::{
    unit_size, ENC_BINARY8, ENC_STRING16, ENC_STRING32, ENC_STRING8, ENC_VALUE16, ENC_VALUE32, ENC_VALUE64,
    ENC_ZSTRING16, ENC_ZSTRING32,
};

// The formats the rule looks at (eventheader-wire.md's format numbers).
const UNSIGNED_INT: u8 = 1;
const SIGNED_INT: u8 = 2;
const HEX_INT: u8 = 3;
const ERRNO: u8 = 4;
const PID: u8 = 5;
const TIME: u8 = 6;
const BOOLEAN: u8 = 7;
const FLOAT: u8 = 8;
const HEX_BYTES: u8 = 9;
const PORT: u8 = 16;
const IP_ADDRESS: u8 = 17;
const IP_ADDRESS_OBSOLETE: u8 = 18;

/// Whether this machine writes its numbers big-endian.
pub const MACHINE_BIG: bool = cfg!(target_endian = "big");

/// How many bytes make each number in one value of `len` bytes with encoding `enc` and
/// format `fmt`; 0 when those bytes are no number (their order is the format's, or they are
/// single bytes).
pub fn number_width(enc: u8, fmt: u8, len: usize) -> usize {
    match enc {
        ENC_VALUE16 | ENC_VALUE32 | ENC_VALUE64 => {
            let width = unit_size(enc);
            let network_order = match fmt {
                HEX_BYTES => true,
                PORT => width == 2,
                IP_ADDRESS | IP_ADDRESS_OBSOLETE => width == 4,
                _ => false,
            };
            if network_order {
                0
            } else {
                width
            }
        }
        // Code units are numbers, unless the format shows them as bytes.
        ENC_ZSTRING16 | ENC_ZSTRING32 | ENC_STRING16 | ENC_STRING32 => {
            if fmt == HEX_BYTES {
                0
            } else {
                unit_size(enc)
            }
        }
        // A counted char8 or binary field is bytes, unless its format reads the whole of it
        // as one number of a size it takes (decoder-json.md §4.12): then it is that number.
        ENC_STRING8 | ENC_BINARY8 => {
            let sizes: &[usize] = match fmt {
                UNSIGNED_INT | SIGNED_INT | HEX_INT => &[2, 4, 8],
                ERRNO | PID => &[4],
                TIME | FLOAT => &[4, 8],
                BOOLEAN => &[2, 4],
                _ => &[],
            };
            if sizes.contains(&len) {
                len
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// `wire` (a value as the description gives it: little-endian) as a writer whose numbers are
/// big-endian (`big`) or little-endian lays it out.
pub fn ordered(enc: u8, fmt: u8, wire: &[u8], big: bool) -> Vec<u8> {
    let mut out = wire.to_vec();
    let width = number_width(enc, fmt, wire.len());
    if big && width > 1 {
        for number in out.chunks_exact_mut(width) {
            number.reverse();
        }
    }
    out
}

/// `wire` as this machine lays it out: bytes whose native reading (from_ne_bytes) is the
/// number the description means, and a pinned value's bytes unchanged.
pub fn machine(enc: u8, fmt: u8, wire: &[u8]) -> Vec<u8> {
    ordered(enc, fmt, wire, MACHINE_BIG)
}

/// A u16 count (of a counted string or a variable-length array) as a writer of that order
/// lays it out.
pub fn count16(n: u16, big: bool) -> [u8; 2] {
    if big {
        n.to_be_bytes()
    } else {
        n.to_le_bytes()
    }
}
