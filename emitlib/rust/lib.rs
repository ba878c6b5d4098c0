// SPDX-License-Identifier: GPL-2.0
//
// ehconf-emit (emitlib/rust/Cargo.toml): what the Rust emitters of impl/ share. An
// emitter's main is `ehconf_emit::emit_main(Emitter { usage, unset, contract, bench, run })`:
// its command line and its API's calls (the run of one file, the contract's, the bench loop).

pub mod bench;
pub mod contract;
pub mod desc;
pub mod desc_items;
pub mod desc_order;
pub mod desc_print;
pub mod entry;
pub mod forked;
// The OpenTelemetry emitters' (features = ["otel"]): its clock and seed interpose libc's
// clock_gettime and getrandom, which no other emitter may link.
#[cfg(feature = "otel")]
pub mod otel;
pub mod report;
pub mod words;

pub use entry::{emit_main, Emitter};
