// SPDX-License-Identifier: GPL-2.0
// What every OpenTelemetry emitter shares, as one module: impl/otel-*/src/main.rs include it
// with `#[path = "../../../emitlib/rust/otel/mod.rs"] mod otel;` and `use otel::{...}` what
// they call, so that an emitter's own files are its API and its inputs, nothing else.

/// The command line of every OpenTelemetry emitter (entry::start), and the variables its
/// SDK's resource detectors read, which the emitters remove: the inputs alone say what the
/// resource is.
pub const USAGE: &str = "emit <file.inputs> | emit --contract | emit --bench COUNT <file.inputs>";
pub const RESOURCE_VARIABLES: [&str; 2] = ["OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"];

pub mod clock;
pub mod report;
// The logs exporter writes no ids of its own: only the trace and metrics emitters seed.
#[allow(dead_code)]
pub mod seed;
pub mod statements;
pub mod words;

// The loops every emitter of ehconf shares (the contract protocol, a forked child, the
// bench), from emitlib/rust/.
#[path = "../bench.rs"]
pub mod bench;
#[path = "../contract.rs"]
pub mod contract;
#[path = "../entry.rs"]
pub mod entry;
#[path = "../forked.rs"]
pub mod forked;
#[path = "../words.rs"]
pub mod inputs_words;
