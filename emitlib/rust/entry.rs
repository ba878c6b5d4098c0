// SPDX-License-Identifier: GPL-2.0
// What every Rust emitter's main is: its command line, `emit FILE | emit --contract | emit
// --bench COUNT FILE` (and the emitter's own options, which it gets as FILE), answered by
// emit_main with the emitter's API (Emitter); and for an SDK's provider (the OpenTelemetry
// emitters' contract) the contract's unregister.

use std::fmt::Display;
use std::process;

use crate::{bench, contract};

/// An emitter: the calls of the API under test behind ehconf's command line.
pub struct Emitter {
    /// The command line, printed after `usage: ` for a wrong one (exit 2).
    pub usage: &'static str,
    /// The environment variables removed before anything runs (the OpenTelemetry SDK's
    /// resource detectors read some, and the inputs alone say what the resource is).
    pub unset: &'static [&'static str],
    /// `emit --contract`: the API's calls for the contract's one event
    /// (Documentation/impl-contract.md); made only when the contract runs.
    pub contract: fn() -> Box<dyn contract::Api>,
    /// `emit --bench COUNT FILE` (COUNT already checked by bench::count): each event of FILE
    /// COUNT times, timed with bench::time; the exit status.
    pub bench: fn(u64, &str) -> i32,
    /// `emit ARG`: ARG is the description or inputs file, or an option of the emitter's own;
    /// the exit status.
    pub run: fn(&str) -> i32,
}

/// The emitter's main: the variables `unset` names removed, then `--bench COUNT FILE`,
/// `--contract` or the one argument run, and the process ends with its status. A wrong
/// command line is `usage: ...` and exit 2, and so is a COUNT bench::count refuses.
pub fn emit_main(e: Emitter) -> ! {
    let args: Vec<String> = std::env::args().collect();
    for v in e.unset {
        std::env::remove_var(v);
    }
    if args.len() == 4 && args[1] == "--bench" {
        let count = bench::count(&args[2]).unwrap_or_else(|| bench::bad_count(&args[2]));
        process::exit((e.bench)(count, &args[3]));
    }
    if args.len() != 2 {
        eprintln!("usage: {}", e.usage);
        process::exit(2);
    }
    if args[1] == "--contract" {
        contract::run((e.contract)().as_mut());
    }
    process::exit((e.run)(&args[1]))
}

/// A provider's shutdown as the contract's unregister answers it: 0, or EIO standing for
/// any error (printed, named `what`); 0 when nothing was registered.
pub fn shutdown<E: Display>(what: &str, result: Option<Result<(), E>>) -> i32 {
    match result {
        None | Some(Ok(())) => 0,
        Some(Err(e)) => {
            eprintln!("emit: {}: {}", what, e);
            libc::EIO
        }
    }
}
