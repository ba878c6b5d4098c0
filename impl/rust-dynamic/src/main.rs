// SPDX-License-Identifier: GPL-2.0
//
// emit <file.events>: ehconf's emitter for microsoft/LinuxTracepoints-Rust's
// eventheader_dynamic crate (Provider, EventSet, EventBuilder).
//
// Reads a case description (Documentation/case-descriptions.md) and writes every event of
// it through that crate, with the steps it names (register, unregister, threads, fork: the
// child's block in a forked child while this process runs the `parent` block, then waits).
// eventheader_dynamic registers nothing per provider: `register` creates the Provider, and
// each event takes Provider::register_set(level, keyword); `unregister` is
// Provider::unregister, after which an event goes to an unregistered EventSet.
// Prints one line per `event` statement, numbered from 1 in file order:
//   event <n> written
//   event <n> skipped <reason>       the crate cannot express it: nothing was written
//   event <n> failed <reason>        the crate refused it (`<call> returned <ERRNO> (<n>)`)
//                                    or panicked (`panic: <message> at <crate file:line>`)
// then `emit: N written, N skipped, N failed`. Exit status 0 when every event was
// written, 1 otherwise, 2 for a description it cannot parse (`file:line: reason` on
// stderr). `emit --types` prints the type table it was built with (name, encoding and
// format in hex, unit size). `emit --contract`: Documentation/impl-contract.md's line
// protocol (src/contract_api.rs). `emit --bench COUNT <file.events>`: each event COUNT
// times, timed (src/bench_api.rs, make bench-impls).
//
// A field type name means the encoding and format descriptions/types.txt gives it (compiled
// in by impl/rust-dynamic/build); the emitter then calls the EventBuilder method that
// writes that encoding with that format: add_value (value8..value128, by the Rust type's
// size), add_value_sequence (their variable-length arrays), add_cstr (zstring_char8/16/32),
// add_str (string_length16_char8/16/32), add_binary (binary_length16_char8), add_struct.
// An array of structs has no add_* method: it goes through raw_add_meta_vcount /
// raw_add_meta_scalar / raw_add_data_value / raw_add_data_slice, which the crate documents
// for it (builder.rs, "e.g. array-of-struct"). Built in release mode (debug assertions
// off), as users ship it: a precondition the crate only debug_asserts is then what a
// user's release build does.

use std::collections::HashMap;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use eventheader_dynamic as ehd;
use ehd::{EventBuilder, EventSet, FieldEncoding, FieldFormat, Level, Opcode, Provider};

// What every Rust emitter shares, the ehconf-emit crate (emitlib/rust): the description
// parser, its byte order, errno names and caught panics as rust-macro words them, and
// emit_main; this crate's calls for emit --contract and --bench are in contract_api.rs and
// bench_api.rs.
use ehconf_emit::report::{child_counts, child_report, errno_name, install_panic_hook, take_panic};
use ehconf_emit::{desc, desc_order, forked, Emitter};
mod bench_api;
mod contract_api;
use desc::{
    read_types, unit_size, Array, Event, Field, Kind, ProviderKey, Step, ENC_BINARY8, ENC_STRING16,
    ENC_STRING32, ENC_STRING8, ENC_VALUE128, ENC_VALUE16, ENC_VALUE32, ENC_VALUE64, ENC_VALUE8, ENC_ZSTRING16,
    ENC_ZSTRING32, ENC_ZSTRING8,
};

/// descriptions/types.txt, as it was when the emitter was built.
const TYPES_TXT: &str = include_str!(env!("EHCONF_TYPES_TXT"));

// ---- what the crate cannot express ------------------------------------------------------

fn utf8(name: &[u8]) -> Option<&str> {
    std::str::from_utf8(name).ok()
}

/// Why the crate's API cannot write this event, or None.
fn inexpressible(e: &Event) -> Option<String> {
    fn fields(fs: &[Field], in_raw: bool) -> Option<String> {
        for f in fs {
            if utf8(&f.name).is_none() {
                return Some(format!(
                    "name-non-utf8: field name {:?} is not UTF-8; EventBuilder's add_* take field_name: &str",
                    String::from_utf8_lossy(&f.name)
                ));
            }
            match &f.kind {
                Kind::Value { array: Array::Constant, .. } => {
                    return Some(
                        "carray: no constant-length array in eventheader_dynamic \
                         (add_value_sequence, raw_add_meta_vcount: variable-length only)"
                            .into(),
                    )
                }
                Kind::Value { .. } => {}
                Kind::Struct(m) => {
                    if m.len() > 255 {
                        return Some(format!(
                            "struct-members>127: a struct of {} members; add_struct takes the count as a u8",
                            m.len()
                        ));
                    }
                    if in_raw && (m.is_empty() || m.len() > 127) {
                        return Some(format!(
                            "a struct of {} members inside an array of structs: the raw_add_meta_* \
                             format byte holds 1 to 127",
                            m.len()
                        ));
                    }
                    if let Some(r) = fields(m, in_raw) {
                        return Some(r);
                    }
                }
                Kind::StructSlice { shape, .. } => {
                    if shape.is_empty() || shape.len() > 127 {
                        return Some(format!(
                            "an array of structs of {} members: the raw_add_meta_vcount format \
                             byte holds 1 to 127",
                            shape.len()
                        ));
                    }
                    if let Some(r) = fields(shape, true) {
                        return Some(r);
                    }
                }
            }
        }
        None
    }
    let ProviderKey { name, group } = &e.provider;
    if utf8(name).is_none() || group.as_deref().map_or(false, |g| utf8(g).is_none()) {
        return Some("name-non-utf8: the provider name is not UTF-8; Provider::new takes name: &str".into());
    }
    if utf8(&e.name).is_none() {
        return Some(
            "name-non-utf8: the event name is not UTF-8; EventBuilder::reset takes name: &str".to_string(),
        );
    }
    if e.related.is_some() && e.activity.is_none() {
        return Some(
            "related-without-activity: EventBuilder::write drops related_id when activity_id is None".into(),
        );
    }
    fields(&e.fields, false)
}

// ---- building an event ------------------------------------------------------------------

// The numbers and code units below are read from desc_order::machine's bytes with
// from_ne_bytes: the number the description means where the format makes it a number, and
// the description's own bytes where the format fixes their order (a port, an IPv4 address).
fn units16(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2).map(|c| u16::from_ne_bytes([c[0], c[1]])).collect()
}

fn units32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(b);
    a
}

/// The event through the builder, as a user of eventheader_dynamic writes it (the
/// conformance run and emit --bench alike): its name and tag, opcode, id and version, its
/// fields, then the write's answer (0 or an errno).
fn write_event(b: &mut EventBuilder, set: &EventSet, e: &Event) -> i32 {
    b.reset(utf8(&e.name).unwrap_or_default(), e.tag);
    if e.opcode != 0 {
        b.opcode(Opcode::from_int(e.opcode));
    }
    if e.id != 0 || e.version != 0 {
        b.id_version(e.id, e.version);
    }
    for f in &e.fields {
        add_field(b, f);
    }
    b.write(set, e.activity.as_ref(), e.related.as_ref())
}

/// A field through the crate's add_* methods. A field without tag= gets tag 0, which the
/// crate writes as no tag.
fn add_field(b: &mut EventBuilder, f: &Field) {
    let name = utf8(&f.name).unwrap_or_default();
    match &f.kind {
        Kind::Value { enc, fmt, array: Array::None, values, .. } => {
            let v = &desc_order::machine(*enc, *fmt, &values[0]);
            let fmt = FieldFormat::from_int(*fmt);
            match *enc {
                ENC_VALUE8 => b.add_value(name, v[0], fmt, f.tag.unwrap_or(0)),
                ENC_VALUE16 => b.add_value(name, u16::from_ne_bytes(arr(v)), fmt, f.tag.unwrap_or(0)),
                ENC_VALUE32 => b.add_value(name, u32::from_ne_bytes(arr(v)), fmt, f.tag.unwrap_or(0)),
                ENC_VALUE64 => b.add_value(name, u64::from_ne_bytes(arr(v)), fmt, f.tag.unwrap_or(0)),
                ENC_VALUE128 => b.add_value(name, arr::<16>(v), fmt, f.tag.unwrap_or(0)),
                ENC_ZSTRING8 => b.add_cstr(name, &v[..], fmt, f.tag.unwrap_or(0)),
                ENC_ZSTRING16 => b.add_cstr(name, units16(v), fmt, f.tag.unwrap_or(0)),
                ENC_ZSTRING32 => b.add_cstr(name, units32(v), fmt, f.tag.unwrap_or(0)),
                ENC_STRING8 => b.add_str(name, &v[..], fmt, f.tag.unwrap_or(0)),
                ENC_STRING16 => b.add_str(name, units16(v), fmt, f.tag.unwrap_or(0)),
                ENC_STRING32 => b.add_str(name, units32(v), fmt, f.tag.unwrap_or(0)),
                ENC_BINARY8 => b.add_binary(name, &v[..], fmt, f.tag.unwrap_or(0)),
                _ => unreachable!("resolve() admits value and string encodings only"),
            };
        }
        Kind::Value { enc, fmt, values, .. } => {
            // A variable-length array (constant-length ones were skipped).
            let values: Vec<Vec<u8>> = values.iter().map(|v| desc_order::machine(*enc, *fmt, v)).collect();
            let fmt = FieldFormat::from_int(*fmt);
            match *enc {
                ENC_VALUE8 => {
                    let v: Vec<u8> = values.iter().map(|v| v[0]).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag.unwrap_or(0))
                }
                ENC_VALUE16 => {
                    let v: Vec<u16> = values.iter().map(|v| u16::from_ne_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag.unwrap_or(0))
                }
                ENC_VALUE32 => {
                    let v: Vec<u32> = values.iter().map(|v| u32::from_ne_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag.unwrap_or(0))
                }
                ENC_VALUE64 => {
                    let v: Vec<u64> = values.iter().map(|v| u64::from_ne_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag.unwrap_or(0))
                }
                ENC_VALUE128 => {
                    let v: Vec<[u8; 16]> = values.iter().map(|v| arr::<16>(v)).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag.unwrap_or(0))
                }
                _ => unreachable!("the parser admits arrays of values only"),
            };
        }
        Kind::Struct(members) => {
            b.add_struct(name, members.len() as u8, f.tag.unwrap_or(0));
            for m in members {
                add_field(b, m);
            }
        }
        Kind::StructSlice { shape, elements } => {
            let members = FieldFormat::from_int(shape.len() as u8);
            b.raw_add_meta_vcount(name, FieldEncoding::Struct, members, f.tag.unwrap_or(0));
            for m in shape {
                raw_meta(b, m);
            }
            b.raw_add_data_value(&(elements.len() as u16));
            for e in elements {
                for m in e {
                    raw_data(b, m);
                }
            }
        }
    }
}

/// The metadata of a member of an array of structs (raw_add_meta_*).
fn raw_meta(b: &mut EventBuilder, f: &Field) {
    let name = utf8(&f.name).unwrap_or_default();
    match &f.kind {
        Kind::Value { enc, fmt, array, .. } => {
            let (e, ft) = (FieldEncoding::from_int(*enc), FieldFormat::from_int(*fmt));
            if *array == Array::Variable {
                b.raw_add_meta_vcount(name, e, ft, f.tag.unwrap_or(0));
            } else {
                b.raw_add_meta_scalar(name, e, ft, f.tag.unwrap_or(0));
            }
        }
        Kind::Struct(m) => {
            b.raw_add_meta_scalar(name, FieldEncoding::Struct, FieldFormat::from_int(m.len() as u8), f.tag.unwrap_or(0));
            for x in m {
                raw_meta(b, x);
            }
        }
        Kind::StructSlice { shape, .. } => {
            let members = FieldFormat::from_int(shape.len() as u8);
            b.raw_add_meta_vcount(name, FieldEncoding::Struct, members, f.tag.unwrap_or(0));
            for x in shape {
                raw_meta(b, x);
            }
        }
    }
}

/// The payload of a member of one element of an array of structs (raw_add_data_*).
fn raw_data(b: &mut EventBuilder, f: &Field) {
    match &f.kind {
        Kind::Value { enc, fmt, array, values, .. } => {
            if *array == Array::Variable {
                b.raw_add_data_value(&(values.len() as u16));
            }
            for v in values {
                let v = &desc_order::machine(*enc, *fmt, v);
                match *enc {
                    ENC_ZSTRING8 | ENC_ZSTRING16 | ENC_ZSTRING32 => {
                        b.raw_add_data_slice(&v[..]);
                        b.raw_add_data_slice(&vec![0u8; unit_size(*enc)]);
                    }
                    ENC_STRING8 | ENC_STRING16 | ENC_STRING32 | ENC_BINARY8 => {
                        b.raw_add_data_value(&((v.len() / unit_size(*enc)) as u16));
                        b.raw_add_data_slice(&v[..]);
                    }
                    _ => {
                        b.raw_add_data_slice(&v[..]);
                    }
                }
            }
        }
        Kind::Struct(m) => {
            for x in m {
                raw_data(b, x);
            }
        }
        Kind::StructSlice { elements, .. } => {
            b.raw_add_data_value(&(elements.len() as u16));
            for e in elements {
                for x in e {
                    raw_data(b, x);
                }
            }
        }
    }
}

// ---- running the steps ------------------------------------------------------------------

#[derive(Default)]
struct Slot {
    provider: Option<Provider>,
    registered: bool,
    /// Provider::new panicked: every event of the provider fails with this.
    broken: Option<String>,
}

struct Runner {
    slots: Mutex<HashMap<ProviderKey, Slot>>,
    written: AtomicUsize,
    skipped: AtomicUsize,
    failed: AtomicUsize,
}

enum Outcome {
    Written,
    Skipped(String),
    Failed(String),
}

impl Runner {
    fn report(&self, ordinal: usize, o: Outcome) {
        let line = match o {
            Outcome::Written => {
                self.written.fetch_add(1, Ordering::Relaxed);
                format!("event {} written", ordinal)
            }
            Outcome::Skipped(why) => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
                format!("event {} skipped {}", ordinal, why)
            }
            Outcome::Failed(why) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                format!("event {} failed {}", ordinal, why)
            }
        };
        let out = io::stdout();
        let mut out = out.lock();
        let _ = writeln!(out, "{}", line);
        let _ = out.flush();
    }

    fn register(&self, key: &ProviderKey) {
        let mut slots = self.slots.lock().unwrap();
        let slot = slots.entry(key.clone()).or_default();
        if slot.provider.is_none() && slot.broken.is_none() {
            let ProviderKey { name, group } = key;
            if let (Some(name), Some(group)) = (utf8(name), group.as_deref().map(utf8).unwrap_or(Some(""))) {
                // eventheader_dynamic has no provider registration of its own: Provider::new
                // only keeps the names, and register_set registers a tracepoint per level and
                // keyword at its first use. `register` creates the provider.
                let made = panic::catch_unwind(|| {
                    let mut options = Provider::new_options();
                    if !group.is_empty() {
                        options.group_name(group);
                    }
                    Provider::new(name, &options)
                });
                match made {
                    Ok(p) => slot.provider = Some(p),
                    Err(_) => slot.broken = Some(format!("Provider::new: panic: {}", take_panic())),
                }
            }
        }
        slot.registered = true;
    }

    fn unregister(&self, key: &ProviderKey) {
        let mut slots = self.slots.lock().unwrap();
        if let Some(slot) = slots.get_mut(key) {
            if let Some(p) = slot.provider.as_mut() {
                p.unregister();
            }
            slot.registered = false;
        }
    }

    /// The event set of the event's provider, level and keyword.
    fn event_set(&self, e: &Event) -> Result<Arc<EventSet>, String> {
        let mut slots = self.slots.lock().unwrap();
        let slot = slots.entry(e.provider.clone()).or_default();
        if let Some(why) = &slot.broken {
            return Err(why.clone());
        }
        match (&mut slot.provider, slot.registered) {
            (Some(p), true) => {
                let level = Level::from_int(e.level);
                let set = panic::catch_unwind(AssertUnwindSafe(|| p.register_set(level, e.keyword)))
                    .map_err(|_| format!("register_set: panic: {}", take_panic()))?;
                match set.errno() {
                    0 => Ok(set),
                    err => Err(format!("register_set returned {}", errno_name(err))),
                }
            }
            // Not registered: the event goes to an unregistered set, as a user's would.
            _ => Ok(Arc::new(EventSet::new_unregistered())),
        }
    }

    fn event(&self, e: &Event) {
        if let Some(why) = inexpressible(e) {
            return self.report(e.ordinal, Outcome::Skipped(why));
        }
        let set = match self.event_set(e) {
            Ok(s) => s,
            Err(why) => return self.report(e.ordinal, Outcome::Failed(why)),
        };
        let built = panic::catch_unwind(AssertUnwindSafe(|| {
            write_event(&mut EventBuilder::new(), &set, e)
        }));
        let o = match built {
            Ok(0) => Outcome::Written,
            Ok(err) => Outcome::Failed(format!("write returned {}", errno_name(err))),
            Err(_) => Outcome::Failed(format!("panic: {}", take_panic())),
        };
        self.report(e.ordinal, o);
    }

    fn run(&self, steps: &[Step]) {
        for s in steps {
            match s {
                Step::Register(k) => self.register(k),
                Step::Unregister(k) => self.unregister(k),
                Step::Event(e) => self.event(e),
                Step::Threads(blocks) => std::thread::scope(|scope| {
                    for b in blocks {
                        scope.spawn(move || self.run(b));
                    }
                }),
                Step::Fork(child, parent) => self.fork(child, parent),
                Step::Repeat(..) => unreachable!("the steps are unrolled"),
            }
        }
    }

    fn counts(&self) -> [usize; 3] {
        [
            self.written.load(Ordering::Relaxed),
            self.skipped.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        ]
    }

    /// The child's block in a forked child, which reports its counts to the parent over a
    /// pipe, while this process runs the parent's block; then waits for the child.
    fn fork(&self, block: &[Step], parent: &[Step]) {
        let counting = |r: &Runner| {
            let before = r.counts();
            r.run(block);
            child_report(before, r.counts())
        };
        match forked::run(self, counting, |r| r.run(parent)) {
            Err((call, err)) => {
                fail_all(self, block, &format!("{} returned {}", call, errno_name(err)));
                self.run(parent)
            }
            Ok((got, status)) => match child_counts(&got) {
                Some(n) => {
                    self.written.fetch_add(n[0], Ordering::Relaxed);
                    self.skipped.fetch_add(n[1], Ordering::Relaxed);
                    self.failed.fetch_add(n[2], Ordering::Relaxed);
                }
                None => {
                    eprintln!("emit: the forked child ended without its counts (wait status {:#x})", status);
                    self.failed.fetch_add(1, Ordering::Relaxed);
                }
            },
        }
    }
}

fn fail_all(r: &Runner, steps: &[Step], why: &str) {
    for s in steps {
        match s {
            Step::Event(e) => r.report(e.ordinal, Outcome::Failed(why.to_string())),
            Step::Threads(blocks) => blocks.iter().for_each(|b| fail_all(r, b, why)),
            Step::Fork(b, p) => {
                fail_all(r, b, why);
                fail_all(r, p, why)
            }
            _ => {}
        }
    }
}

fn main() {
    ehconf_emit::emit_main(Emitter {
        usage: "emit <file.events> | emit --types | emit --contract | emit --bench COUNT <file.events>",
        unset: &[],
        contract: || Box::new(contract_api::Dynamic::new()),
        bench: bench_api::run,
        run,
    })
}

/// `emit FILE` or `emit --types`: the exit status.
fn run(arg: &str) -> i32 {
    let types = match read_types(TYPES_TXT, std::mem::size_of::<usize>()) {
        Ok(t) => t,
        Err(why) => {
            eprintln!("emit: {} (compiled in by impl/rust-dynamic/build)", why);
            process::exit(2);
        }
    };
    if arg == "--types" {
        for r in &types {
            println!("{} 0x{:02x} 0x{:02x} {}", r.name, r.enc, r.fmt, unit_size(r.enc));
        }
        return 0;
    }
    let path = arg;
    let text = desc::read_or_exit(path);
    let steps = match desc::parse(&text, &types) {
        Ok(d) => d.unrolled(), // every repetition of a `repeat` an event of its own
        Err(e) => {
            eprintln!("{}:{}: {}", path, e.line, e.why);
            process::exit(2);
        }
    };
    install_panic_hook();
    let r = Runner {
        slots: Mutex::new(HashMap::new()),
        written: AtomicUsize::new(0),
        skipped: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
    };
    r.run(&steps);
    // Dropping the providers unregisters what is still registered.
    r.slots.lock().unwrap().clear();
    let [w, s, f] = r.counts();
    println!("emit: {} written, {} skipped, {} failed", w, s, f);
    let _ = io::stdout().flush();
    if s > 0 || f > 0 {
        1
    } else {
        0
    }
}
