// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` (Documentation/impl-contract.md) for the OpenTelemetry emitters, whose
// APIs answer less than the libraries' do: a log or a span is handed to the SDK and nothing
// comes back, so a `write` may answer `none`, and where an API has no enabled check `enabled`
// answers `none` too (Documentation/producers-otel.md §5 says which, per crate). Each emitter
// implements Api with its crate's calls; this file reads the commands, forks (the shared
// emitlib/rust/forked.rs, which the emitter includes as `mod forked`), runs the thread and
// words the answers. emitlib/rust/contract.rs is not used: its Api returns an errno for
// every command. Nothing here catches a panic: a panic inside a crate ends the process as it
// would end a user's program, and the guest records that as the answer.
// Included by `#[path = "../../../emitlib/rust/otel/contract.rs"] mod contract;`.

use std::io::{self, BufRead, Write};

pub trait Api: Send {
    /// `ok` or `error <errno>` (or `error <word>` where the API gives no errno).
    fn register(&mut self) -> String;
    fn unregister(&mut self) -> String;
    /// `1`, `0`, or `none` where the API has no such check.
    fn enabled(&self) -> String;
    /// The event with `seq` and `pad`: `0`, an errno, or `none`.
    fn write(&self, seq: u32, pad: &str) -> String;
}

fn padded(n: usize) -> Option<String> {
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(n).ok()?;
    bytes.resize(n, b'p');
    String::from_utf8(bytes).ok()
}

fn write(api: &dyn Api, seq: u32, pad: usize) -> String {
    match padded(pad) {
        Some(p) => api.write(seq, &p),
        None => libc::ENOMEM.to_string(),
    }
}

/// The child checks and writes on its own and reports through a pipe.
fn fork(api: &dyn Api, seq: u32) -> String {
    let child = |_: &()| (format!("{} {}", api.enabled(), write(api, seq, 0)), 0);
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
        Ok(a) => a,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

fn answer(api: &mut dyn Api, line: &str) -> Option<String> {
    let w: Vec<&str> = line.split_ascii_whitespace().collect();
    Some(match w[..] {
        ["quit"] => return None,
        ["register"] => api.register(),
        ["unregister"] => api.unregister(),
        ["enabled"] => api.enabled(),
        ["write", seq, pad] => match (seq.parse(), pad.parse()) {
            (Ok(seq), Ok(pad)) => write(api, seq, pad),
            _ => "error usage".into(),
        },
        ["fork", seq] => match seq.parse() {
            Ok(seq) => fork(api, seq),
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
        let _ = out.flush();
    }
    std::process::exit(0)
}
