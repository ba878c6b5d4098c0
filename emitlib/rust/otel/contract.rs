// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` (Documentation/impl-contract.md) for the OpenTelemetry emitters whose API
// has no enabled check: impl/otel-trace (neither the SDK's Tracer nor the exporter offers
// one) and impl/otel-metrics (no API reads the otlp_metrics tracepoint's state). The loop,
// its grammar (decimal digits only, a pad of at most 65,535, exactly the command's words),
// fork and thread-register are emitlib/rust/contract.rs's, which impl/otel-logs and the other
// Rust emitters use; the one difference is that `enabled` may answer `none`, as `write` may
// there: that Api's enabled() is a bool. Each emitter implements Api with its crate's calls
// (src/contract_api.rs); this file reads the commands, forks (emitlib/rust/forked.rs, which
// the emitter includes as `mod forked`), runs the thread and words the answers. Nothing here
// catches a panic: a panic inside a crate ends the process as it would end a user's program.
// Included by `#[path = "../../../emitlib/rust/otel/contract.rs"] mod contract;`.

use std::io::{self, BufRead, Write};

/// What `write` returns when the API's call says nothing of how the write went: `none`.
pub const WRITE_NONE: i32 = -1;

/// The largest pad any emitter is asked for (emitlib/rust/contract.rs's PAD_MAX).
const PAD_MAX: u64 = 65535;

pub trait Api: Send {
    /// 0 or an errno (where the API gives none, the emitter says which errno stands for it).
    fn register(&mut self) -> i32;
    fn unregister(&mut self) -> i32;
    /// Some(on), or None where the API has no such check: answered `none`.
    fn enabled(&self) -> Option<bool>;
    /// The event with `seq` and `pad`: 0, an errno, or WRITE_NONE.
    fn write(&self, seq: u32, pad: &[u8]) -> i32;
}

/// A decimal number of at most max: digits only, as emitlib/rust/contract.rs reads it.
fn number(s: &str, max: u64) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|v| *v <= max)
}

fn enabled_words(e: Option<bool>) -> String {
    match e {
        Some(on) => (on as u8).to_string(),
        None => "none".into(),
    }
}

fn write_words(e: i32) -> String {
    if e == WRITE_NONE {
        "none".into()
    } else {
        e.to_string()
    }
}

fn ok_or_errno(e: i32) -> String {
    if e == 0 {
        "ok".into()
    } else {
        format!("error {}", e)
    }
}

fn write(api: &dyn Api, seq: u32, pad: usize) -> i32 {
    let mut bytes = Vec::new();
    if bytes.try_reserve_exact(pad).is_err() {
        return libc::ENOMEM;
    }
    bytes.resize(pad, b'p');
    api.write(seq, &bytes)
}

/// The child checks and writes on its own and reports through a pipe.
fn fork(api: &dyn Api, seq: u32) -> String {
    let child = |_: &()| {
        let on = enabled_words(api.enabled()); // before the write, as the protocol orders
        (format!("{} {}", on, write_words(write(api, seq, 0))), 0)
    };
    match crate::forked::run(&(), child, |_| {}) {
        Err((_, e)) => format!("error {}", e),
        Ok((got, _)) if !got.is_empty() => format!("child {}", got),
        Ok((_, status)) if libc::WIFSIGNALED(status) => {
            format!("error child-signal-{}", libc::WTERMSIG(status))
        }
        Ok((_, status)) => format!("error child-exit-{}", libc::WEXITSTATUS(status)),
    }
}

fn thread_register(api: &mut dyn Api) -> String {
    let joined = std::thread::scope(|s| s.spawn(|| api.register()).join());
    match joined {
        Ok(e) => ok_or_errno(e),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

fn answer(api: &mut dyn Api, line: &str) -> Option<String> {
    let w: Vec<&str> = line.split_ascii_whitespace().collect();
    Some(match w[..] {
        ["quit"] => return None,
        ["register"] => ok_or_errno(api.register()),
        ["unregister"] => ok_or_errno(api.unregister()),
        ["enabled"] => enabled_words(api.enabled()),
        ["write", seq, pad] => match (number(seq, u32::MAX as u64), number(pad, PAD_MAX)) {
            (Some(seq), Some(pad)) => write_words(write(api, seq as u32, pad as usize)),
            _ => "error usage".into(),
        },
        ["fork", seq] => match number(seq, u32::MAX as u64) {
            Some(seq) => fork(api, seq as u32),
            _ => "error usage".into(),
        },
        ["thread-register"] => thread_register(api),
        _ => "error usage".into(),
    })
}

/// Answers stdin's commands until `quit` or its end, then exits 0.
pub fn run(api: &mut dyn Api) -> ! {
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Some(a) = answer(api, &String::from_utf8_lossy(&line)) else {
            break;
        };
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{}", a);
        // At once: the guest changes the tracers between an answer and the next command.
        let _ = out.flush();
    }
    std::process::exit(0)
}
