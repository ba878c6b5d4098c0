// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract`: the line protocol of Documentation/impl-contract.md, shared by every Rust
// emitter. Each implements Api (impl/<name>/src/contract_api.rs) with its crate's calls for
// the one event; this file reads the commands, forks (forked.rs), runs the thread and words
// the answers.
// A module of the ehconf-emit crate (emitlib/rust/Cargo.toml); emit_main runs it.
//
// Nothing here catches a panic: a panic inside the crate (a static provider registered twice
// asserts, tracepoint/src/native.rs) ends the process as it ends a user's program (status
// 101, the message on stderr), and the guest records that as the answer. A panic on the
// thread of `thread-register` is resumed on the main thread for the same reason: answering
// it would hide what the user would see.

use std::io::{self, BufRead, Write};

/// What `write` returns when the crate's call returns nothing to say how the write went
/// (tracing's event!, an OpenTelemetry span's end): answered `none`.
pub const WRITE_NONE: i32 = -1;

/// The largest pad any emitter is asked for (emitlib/c/contract_loop.h's CONTRACT_PAD_MAX,
/// the one grammar of both loops): a 16-bit length's worth.
const PAD_MAX: u64 = 65535;

/// The crate's calls for the event `EhconfContract`/`Contract` (level 4, keyword 0x1).
pub trait Api: Send {
    /// 0 or the errno the crate returned.
    fn register(&mut self) -> i32;
    fn unregister(&mut self) -> i32;
    /// Some(on), or None where the API has no enabled check at all (OpenTelemetry's span and
    /// metrics APIs): answered `none`, as a write that says nothing is.
    fn enabled(&self) -> Option<bool>;
    /// The event: `seq`, then `pad` as a str8; the crate's return, or WRITE_NONE.
    fn write(&self, seq: u32, pad: &[u8]) -> i32;
}

/// A decimal number of at most max: digits only (no sign: Rust's parse takes a `+`, the C
/// loop does not, and the grammar is one).
fn number(s: &str, max: u64) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|v| *v <= max)
}

fn write_words(e: i32) -> String {
    if e == WRITE_NONE {
        "none".into()
    } else {
        e.to_string()
    }
}

fn enabled_words(e: Option<bool>) -> String {
    match e {
        Some(on) => (on as u8).to_string(),
        None => "none".into(),
    }
}

fn ok_or_errno(e: i32) -> String {
    if e == 0 {
        "ok".into()
    } else {
        format!("error {}", e)
    }
}

/// `pad` bytes of `p`; ENOMEM (as the C reference answers) rather than an abort for a size
/// that cannot be allocated.
fn write(api: &dyn Api, seq: u32, pad: usize) -> i32 {
    let mut bytes = Vec::new();
    if bytes.try_reserve_exact(pad).is_err() {
        return libc::ENOMEM;
    }
    bytes.resize(pad, b'p');
    api.write(seq, &bytes)
}

/// The child checks and writes on its own and reports through a pipe: its stdout is the
/// parent's, and two writers on one answer stream would interleave.
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

/// One answer; None for `quit`.
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
