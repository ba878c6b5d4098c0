// SPDX-License-Identifier: GPL-2.0
//
// emit <file.events>: ehconf's emitter for microsoft/LinuxTracepoints-Rust's eventheader
// crate through its macros: define_provider! (a static Provider per provider of a case) and
// write_event! (one call site per event shape, the schema fixed at compile time).
//
// The cases are compiled in: build.rs (the generator) wrote one module per
// descriptions/<case>.events with the providers, the events and the steps. At run time this
// reads the description it is given, finds the compiled-in case its `case` line names, and
// compares the two item by item (ehconf_emit::desc_items, items(): each event block and
// each statement hashed):
// the events the given file leaves out (harness/impl/run_impl.py leaves out those a profile
// lacks) are not written, and the file's events are numbered as the file has them. A
// description that differs otherwise from the compiled-in one is refused:
// `file:line: reason`, exit 2, nothing written (rebuild: impl/rust-macro/build).
//
// Prints one line per event of the file:
//   event <n> written
//   event <n> skipped <reason>       write_event! cannot express it (generated so)
//   event <n> failed <reason>        write_event! returned an errno (`write_event! returned
//                                    EBADF (9)`) or panicked (`panic: <message> at <file:line>`)
// then `emit: N written, N skipped, N failed`. Exit status 0 when every event was written,
// 1 otherwise (or a step failed), 2 for a description it cannot take.
//
// Steps: `register` is the static provider's Provider::register, `unregister` its
// unregister. Provider::register of a provider that is registered panics in the tracepoint
// crate ("register of active tracepoint", tracepoint/src/native.rs:475, an assert!), leaving
// its tracepoints busy: the emitter tracks the state and never calls it twice (it says so
// on stderr); `emit --register-twice` shows the panic on a provider of its own. `threads`
// runs each `thread` block on a thread of its own (std::thread::scope), released together
// by a barrier; `fork` runs the child's block in a forked child (libc::fork) while this
// process runs the `parent` block, then waits for it.
//
// `emit --contract`: Documentation/impl-contract.md's line protocol (src/contract_api.rs).
// `emit --bench COUNT <file.events>`: each event COUNT times in a row, timed
// (ehconf_emit::bench, make bench-impls), with the `bench` lines instead of the others.

use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};

// What every Rust emitter shares, the ehconf-emit crate (emitlib/rust): the description's
// items (the generator's parser, here only its read_or_exit), errno names and caught panics
// as rust-dynamic words them, the fork helper, the bench timing (Runner::event takes its
// loop) and emit_main; this crate's calls for emit --contract are in contract_api.rs.
use ehconf_emit::report::{child_counts, child_report, errno_name, install_panic_hook, take_panic};
use ehconf_emit::{bench, desc, desc_items, forked, Emitter};
mod contract_api;

/// A compiled-in case.
pub struct Case {
    name: &'static str,
    /// (is an event, hash, and for an event its first ordinal, repetitions and the step
    /// between their ordinals) of each item of its description.
    items: &'static [(bool, u64, usize, usize, usize)],
    events: usize,
    providers: &'static [&'static str],
    run: fn(&Runner),
}

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

// ---- running ------------------------------------------------------------------------------

pub struct Runner {
    /// For each event of the compiled-in case (from 0): its number in the given file, 0
    /// when the file leaves it out.
    sel: Vec<usize>,
    providers: &'static [&'static str],
    registered: Mutex<Vec<bool>>,
    written: AtomicUsize,
    skipped: AtomicUsize,
    failed: AtomicUsize,
    step_failed: AtomicBool,
    /// emit --bench COUNT: each event COUNT times in a row, timed, and no event line.
    bench: Option<u64>,
}

fn say(line: &str) {
    let out = io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "{}", line);
    let _ = out.flush();
}

impl Runner {
    fn number(&self, ordinal: usize) -> usize {
        self.sel.get(ordinal - 1).copied().unwrap_or(0)
    }

    fn step_problem(&self, why: String) {
        eprintln!("emit: {}", why);
        self.step_failed.store(true, Ordering::Relaxed);
    }

    /// `register`: Provider::register, unless the provider is registered already.
    pub fn register(&self, p: usize, name: &str, call: Option<&dyn Fn() -> u32>) {
        let mut reg = self.registered.lock().unwrap();
        let call = match call {
            Some(c) => c,
            None => return eprintln!("emit: register {}: define_provider! cannot define it (its events are skipped)", name),
        };
        if reg[p] {
            return eprintln!(
                "emit: register {}: registered already: not called again (Provider::register would panic: tracepoint/src/native.rs:475)",
                name
            );
        }
        match panic::catch_unwind(AssertUnwindSafe(call)) {
            Ok(0) => {}
            Ok(e) => self.step_problem(format!("register {}: Provider::register returned {}", name, errno_name(e as i32))),
            Err(_) => self.step_problem(format!("register {}: panic: {}", name, take_panic())),
        }
        reg[p] = true;
    }

    /// `unregister`: Provider::unregister.
    pub fn unregister(&self, p: usize, name: &str, call: Option<&dyn Fn() -> u32>) {
        let mut reg = self.registered.lock().unwrap();
        if let Some(call) = call {
            let was = reg[p];
            match call() {
                0 => {}
                e if !was && e as i32 == libc::EALREADY => {}
                e => self.step_problem(format!("unregister {}: Provider::unregister returned {}", name, errno_name(e as i32))),
            }
        }
        reg[p] = false;
    }

    /// Writes event `ordinal` of the compiled-in case (unless the file leaves it out).
    /// emit --bench: COUNT times through the generated call (write_event! checks the
    /// enable bit itself, and answers EBADF when it is clear, so a disabled run counts
    /// every write as failed: harness/impl/bench.py judges it by the stand-in's count).
    pub fn event(&self, ordinal: usize, write: impl Fn() -> u32) {
        let n = self.number(ordinal);
        if n == 0 {
            return;
        }
        if let Some(count) = self.bench {
            let failed = bench::time(n, count, || write() != 0);
            self.written.fetch_add(1, Ordering::Relaxed);
            if failed > 0 {
                self.failed.fetch_add(1, Ordering::Relaxed);
            }
            return;
        }
        match panic::catch_unwind(AssertUnwindSafe(write)) {
            Ok(0) => {
                self.written.fetch_add(1, Ordering::Relaxed);
                say(&format!("event {} written", n));
            }
            Ok(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                say(&format!("event {} failed write_event! returned {}", n, errno_name(e as i32)));
            }
            Err(_) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                say(&format!("event {} failed panic: {}", n, take_panic()));
            }
        }
    }

    /// An event the generator found write_event! cannot express.
    pub fn skip(&self, ordinal: usize, why: &str) {
        let n = self.number(ordinal);
        if n != 0 {
            self.skipped.fetch_add(1, Ordering::Relaxed);
            say(&format!("event {} skipped {}", n, why));
        }
    }

    fn fail(&self, ordinals: &[usize], why: &str) {
        for &o in ordinals {
            let n = self.number(o);
            if n != 0 {
                self.failed.fetch_add(1, Ordering::Relaxed);
                say(&format!("event {} failed {}", n, why));
            }
        }
    }

    /// `threads`: each block on a thread of its own, released together; joins them all.
    pub fn threads(&self, blocks: &[fn(&Runner)]) {
        let barrier = Barrier::new(blocks.len());
        std::thread::scope(|scope| {
            for b in blocks {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    b(self)
                });
            }
        });
    }

    fn counts(&self) -> [usize; 3] {
        [self.written.load(Ordering::Relaxed), self.skipped.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed)]
    }

    /// `fork`: the child's block in a forked child, which sends its counts back over a pipe,
    /// while this process runs the parent's block; then waits for the child.
    pub fn fork(&self, child: fn(&Runner), parent: fn(&Runner), child_events: &[usize]) {
        match forked::run(self, |r| r.counting(child), parent) {
            Err((call, err)) => {
                self.fail(child_events, &format!("{} returned {}", call, errno_name(err)));
                parent(self)
            }
            Ok((got, status)) => match child_counts(&got) {
                Some(n) => self.add_counts(n),
                None => self.step_problem(format!(
                    "the forked child ended without its counts (wait status {:#x})",
                    status
                )),
            },
        }
    }

    /// Runs `block` and words what it counted for the parent: "written skipped failed",
    /// with the exit status that says whether all went well.
    fn counting(&self, block: fn(&Runner)) -> (String, i32) {
        let before = self.counts();
        block(self);
        child_report(before, self.counts())
    }

    fn add_counts(&self, n: [usize; 3]) {
        self.written.fetch_add(n[0], Ordering::Relaxed);
        self.skipped.fetch_add(n[1], Ordering::Relaxed);
        self.failed.fetch_add(n[2], Ordering::Relaxed);
    }
}

// ---- registering twice --------------------------------------------------------------------

eventheader::define_provider!(P_REGISTER_TWICE, "EhconfRustMacroTwice");

/// One call site, so one tracepoint of the provider.
fn write_twice(seq: u8) -> u32 {
    eventheader::write_event!(P_REGISTER_TWICE, "Twice", level(4), keyword(0x1), u8("seq", &seq))
}

fn catch(what: &str, call: impl FnOnce() -> u32) {
    match panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(r) => println!("{}: returned {}", what, r),
        Err(_) => println!("{}: panic: {}", what, take_panic()),
    }
}

/// `emit --register-twice`: what Provider::register does to a registered provider (one
/// event, one tracepoint), each call under catch_unwind; prints what each call did.
fn register_twice() -> i32 {
    install_panic_hook();
    catch("register", || unsafe { P_REGISTER_TWICE.register() });
    catch("write_event! seq 1", || write_twice(1));
    catch("register again", || unsafe { P_REGISTER_TWICE.register() });
    catch("write_event! seq 2", || write_twice(2));
    catch("unregister", || P_REGISTER_TWICE.unregister());
    catch("write_event! seq 3", || write_twice(3));
    catch("register after unregister", || unsafe { P_REGISTER_TWICE.register() });
    0
}

// ---- main ---------------------------------------------------------------------------------

/// For each compiled-in event, its number in the given file (0: left out). The file is the
/// compiled-in description with whole event items left out, every repetition of one in a
/// repeat with it; its events are numbered as the compiled-in ones, skipping those.
fn match_items(case: &Case, given: &[desc_items::Item], last_line: usize) -> Result<Vec<usize>, usize> {
    let mut present = vec![false; case.events];
    let mut j = 0;
    for &(is_event, hash, first, count, stride) in case.items {
        let here = given.get(j);
        if is_event {
            if let Some(g) = here {
                if g.is_event && g.hash == hash {
                    (0..count).for_each(|r| present[first + r * stride - 1] = true);
                    j += 1;
                }
            }
        } else {
            match here {
                Some(g) if !g.is_event && g.hash == hash => j += 1,
                Some(g) => return Err(g.line),
                None => return Err(last_line),
            }
        }
    }
    if let Some(g) = given.get(j) {
        return Err(g.line);
    }
    let mut number = 0;
    Ok(present.iter().map(|&p| if p { number += 1; number } else { 0 }).collect())
}

/// The eventheader crate's macros behind ehconf's command line (ehconf_emit::emit_main):
/// `--bench COUNT FILE` runs FILE with the `bench` lines, and `--cases` and
/// `--register-twice` are options of its own.
fn main() {
    ehconf_emit::emit_main(Emitter {
        usage: "emit <file.events> | emit --cases | emit --register-twice | emit --contract | emit --bench COUNT <file.events>",
        unset: &[],
        contract: || Box::new(contract_api::Macro),
        bench: |count, file| run(file, Some(count)),
        run: |arg| match arg {
            "--register-twice" => register_twice(),
            "--cases" => {
                for c in CASES {
                    println!("{} {} events, {} providers", c.name, c.events, c.providers.len());
                }
                0
            }
            _ => run(arg, None),
        },
    })
}

/// The description at path, the `bench` lines with a count: the exit status.
fn run(path: &str, bench: Option<u64>) -> i32 {
    let text = desc::read_or_exit(path);
    let given = match desc_items::items(&text) {
        Ok(g) => g,
        Err((line, why)) => {
            eprintln!("{}:{}: {}", path, line, why);
            process::exit(2);
        }
    };
    let case = match CASES.iter().find(|c| c.name == given.case) {
        Some(c) => c,
        None => {
            let line = given.items.first().map(|i| i.line).unwrap_or(1);
            eprintln!("{}:{}: case {} is not compiled in (impl/rust-macro/build compiles descriptions/*.events)", path, line, given.case);
            process::exit(2);
        }
    };
    let last_line = 1 + text.trim_ascii_end().iter().filter(|&&c| c == b'\n').count();
    let sel = match match_items(case, &given.items, last_line) {
        Ok(s) => s,
        Err(line) => {
            eprintln!(
                "{}:{}: differs from descriptions/{}.events as compiled in (item hashes): rebuild the emitter (impl/rust-macro/build)",
                path, line, case.name
            );
            process::exit(2);
        }
    };
    install_panic_hook();
    let r = Runner {
        sel,
        providers: case.providers,
        registered: Mutex::new(vec![false; case.providers.len()]),
        written: AtomicUsize::new(0),
        skipped: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
        step_failed: AtomicBool::new(false),
        bench,
    };
    (case.run)(&r);
    let [w, s, f] = r.counts();
    let _ = r.providers;
    if bench.is_some() {
        return if s > 0 || r.step_failed.load(Ordering::Relaxed) { 1 } else { 0 };
    }
    println!("emit: {} written, {} skipped, {} failed", w, s, f);
    let _ = io::stdout().flush();
    if s > 0 || f > 0 || r.step_failed.load(Ordering::Relaxed) {
        1
    } else {
        0
    }
}
