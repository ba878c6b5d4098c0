// SPDX-License-Identifier: GPL-2.0
//
// What the OpenTelemetry emitters print while they run an inputs file
// (Documentation/producers-otel.md §2.5): `event <n> written` or `event <n> failed <why>` for
// each golden event a statement accounts for, `line <l>: ...` for the rest, then
// `emit: N written, 0 skipped, N failed`. Each line is flushed at once, so a panic inside a
// crate leaves every line before it. ehconf_emit::otel::report.

#![allow(dead_code)]

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

pub fn say(line: &str) {
    let out = io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "{}", line);
    let _ = out.flush();
}

#[derive(Default)]
pub struct Report {
    pub written: AtomicUsize,
    pub failed: AtomicUsize,
    pub step_failed: AtomicUsize,
}

impl Report {
    /// The lines of the `writes` golden events from `first` on, all with one outcome.
    pub fn events(&self, first: usize, writes: usize, outcome: &Result<(), String>) {
        for n in first..first + writes {
            match outcome {
                Ok(()) => {
                    self.written.fetch_add(1, Ordering::Relaxed);
                    say(&format!("event {} written", n));
                }
                Err(why) => {
                    self.failed.fetch_add(1, Ordering::Relaxed);
                    say(&format!("event {} failed {}", n, why));
                }
            }
        }
    }

    /// A statement that accounts for no golden event: a line saying what happened.
    pub fn note(&self, line: usize, what: &str) {
        say(&format!("line {}: {}", line, what));
    }

    /// A step that did not do what the inputs asked (the exit status becomes 1).
    pub fn step_error(&self, line: usize, why: &str) {
        self.step_failed.fetch_add(1, Ordering::Relaxed);
        say(&format!("line {}: step failed: {}", line, why));
    }

    /// The summary line; the exit status: 0 when every one of `expected` events was
    /// written and every step held, 1 otherwise.
    pub fn finish(&self, expected: usize) -> i32 {
        let (w, f, s) = (
            self.written.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
            self.step_failed.load(Ordering::Relaxed),
        );
        say(&format!("emit: {} written, 0 skipped, {} failed", w, f));
        if f > 0 || s > 0 || w != expected {
            1
        } else {
            0
        }
    }
}

/// Runs `f`; with `catch` a panic inside it is caught and comes back as Err(its message), as
/// a server that catches a request's panic goes on (`panics catch` in an inputs file); without,
/// it ends the emitter as it ends a user's program. The panic hook has printed it on stderr
/// either way.
pub fn guarded<T>(catch: bool, f: impl FnOnce() -> T) -> Result<T, String> {
    if !catch {
        return Ok(f());
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        format!("panicked: {}", msg)
    })
}
