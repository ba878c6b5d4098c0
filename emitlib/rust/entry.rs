// SPDX-License-Identifier: GPL-2.0
// What every Rust emitter starts with: its command line, `emit FILE | emit --contract | emit
// --bench COUNT FILE` (and the emitter's own options, which it gets back as FILE), and for an
// SDK's provider (the OpenTelemetry emitters' contract_api.rs) the contract's unregister.

use std::fmt::Display;
use std::process;

/// The one argument left to run (its inputs file, or an option of the emitter's own).
/// `--bench` and `--contract` run here and end the process; a wrong command line is `usage`
/// and exit 2. The variables `unset` names are removed first (the OpenTelemetry SDK's
/// resource detectors read them, and the inputs alone say what the resource is).
pub fn start(usage: &str, unset: &[&str], contract: impl FnOnce(), bench: impl FnOnce(&str, &str)) -> String {
    let args: Vec<String> = std::env::args().collect();
    for v in unset {
        std::env::remove_var(v);
    }
    if args.len() == 4 && args[1] == "--bench" {
        bench(&args[2], &args[3]);
        process::exit(0);
    }
    if args.len() != 2 {
        eprintln!("usage: {}", usage);
        process::exit(2);
    }
    if args[1] == "--contract" {
        contract();
        process::exit(0);
    }
    args[1].clone()
}

/// A provider's shutdown as the contract's unregister answers it: 0, or EIO standing for
/// any error (printed, named `what`); 0 when nothing was registered.
#[allow(dead_code)] // only the emitters of an SDK with a provider to shut down call it
pub fn shutdown<E: Display>(what: &str, result: Option<Result<(), E>>) -> i32 {
    match result {
        None | Some(Ok(())) => 0,
        Some(Err(e)) => {
            eprintln!("emit: {}: {}", what, e);
            libc::EIO
        }
    }
}
