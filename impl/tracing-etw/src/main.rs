// SPDX-License-Identifier: GPL-2.0
//
// emit <file.inputs>: ehconf's emitter for the `tracing` layer tracing-etw 0.2.3 (Linux:
// EventHeader over user_events, through eventheader_dynamic).
//
// tracing-etw takes `tracing` events and spans, not EventHeader field lists, so its inputs
// are their own (impl/tracing-etw/inputs/*.inputs, impl/tracing-etw/README.md §2): the
// layers to build with LayerBuilder, then events, etw_event! events and spans with their
// values, entered, recorded, exited and closed, on this thread or several. The emitter
// installs one registry (tracing_subscriber::registry()) with every layer of the file as
// the global default, then runs the steps.
//
// `event` and `span` go through callsites made at run time (name, target, level and field
// names from the file), registered with tracing_core::callsite::register and checked as the
// macros check them (LevelFilter::current, the callsite's interest, Dispatch::enabled): to
// the layer they are what event!/span! make. `etw_event` cannot be made at run time (its
// keyword and tags are statics in the `_etw_kw` linker section), so build.rs compiles one
// real etw_event! call site per distinct statement of the inputs (OUT_DIR/etw_sites.rs),
// and the emitter finds it by inputs::etw_key.
//
// `clock <seconds>` pins CLOCK_REALTIME (this binary's own clock_gettime, below): the time
// fields tracing-etw adds and the activity-id seed it derives from the clock
// (src/statics.rs:9) are then the same on every run, so the golden files hold them exactly.
//
// Prints one line per golden event a statement accounts for (writes=, §2.4), numbered from 1
// in file order: `event <n> written` once the call was made, `event <n> failed <reason>`
// when tracing did not hand it to the subscriber (disabled). Other lines: steps that write
// nothing, then `emit: N written, N skipped, N failed`. Exit 0 when every event was
// written, 1 otherwise (or a step failed), 2 for an inputs file it cannot parse
// (`file:line: reason` on stderr). `emit --contract`: Documentation/impl-contract.md
// (src/contract_api.rs, ehconf_emit::contract). `emit --bench COUNT <file.inputs>`:
// each event COUNT times, timed (src/bench_api.rs, make bench-impls).

use std::collections::HashMap;
use std::io::{self, Write};
use std::process;
use std::sync::atomic::{AtomicI64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, OnceLock};

use tracing::callsite::Callsite;
use tracing::field::{FieldSet, Value};
use tracing::level_filters::LevelFilter;
use tracing::metadata::Kind;
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Span};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

mod inputs;
use inputs::{EventDef, Field, Inputs, Level, Parent, SpanDef, Step, Val};

// What every Rust emitter shares, the ehconf-emit crate (emitlib/rust): the contract loop,
// the bench timing and emit_main; this crate's calls for emit --contract and --bench are in
// contract_api.rs and bench_api.rs.
use ehconf_emit::words::Text;
use ehconf_emit::Emitter;
mod bench_api;
mod contract_api;

mod sites {
    include!(concat!(env!("OUT_DIR"), "/etw_sites.rs"));
}

// ---- the pinned wall clock ------------------------------------------------------------------

/// CLOCK_REALTIME's seconds while pinned; i64::MIN: not pinned.
static PINNED: AtomicI64 = AtomicI64::new(i64::MIN);

/// libc's own clock_gettime (the vDSO's), looked up once; null if there is none.
static NEXT_CLOCK: AtomicUsize = AtomicUsize::new(0);

/// Interposes libc's clock_gettime for this program: std's SystemTime::now (which tracing-etw
/// and chrono call) links to it. CLOCK_REALTIME reads the pinned second when `clock` was
/// given; everything else is libc's answer (through the vDSO, as for any program: the time
/// tracing-etw takes per event is then what a user's costs, which make bench-impls times),
/// or the kernel's (the syscall) if libc's cannot be found.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: libc::clockid_t, ts: *mut libc::timespec) -> libc::c_int {
    let pinned = PINNED.load(Ordering::Relaxed);
    if clock == libc::CLOCK_REALTIME && pinned != i64::MIN && !ts.is_null() {
        (*ts).tv_sec = pinned as libc::time_t;
        (*ts).tv_nsec = 0;
        return 0;
    }
    let mut next = NEXT_CLOCK.load(Ordering::Relaxed);
    if next == 0 {
        next = libc::dlsym(libc::RTLD_NEXT, c"clock_gettime".as_ptr()) as usize;
        NEXT_CLOCK.store(if next == 0 { 1 } else { next }, Ordering::Relaxed);
    }
    if next > 1 {
        let f: unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int = std::mem::transmute(next);
        return f(clock, ts);
    }
    libc::syscall(libc::SYS_clock_gettime, clock as libc::c_long, ts) as libc::c_int
}

// ---- callsites made at run time -------------------------------------------------------------

/// A callsite whose metadata comes from the inputs: leaked, as a macro's static is forever.
struct DynCallsite {
    meta: OnceLock<Metadata<'static>>,
    /// What the dispatchers said at registration (tracing_core::callsite::register), as
    /// DefaultCallsite keeps it: 0 never, 1 sometimes, 2 always.
    interest: AtomicU8,
}

impl DynCallsite {
    fn interest(&self) -> Interest {
        match self.interest.load(Ordering::Acquire) {
            0 => Interest::never(),
            2 => Interest::always(),
            _ => Interest::sometimes(),
        }
    }
}

impl Callsite for DynCallsite {
    fn set_interest(&self, interest: Interest) {
        let v = if interest.is_never() { 0 } else if interest.is_always() { 2 } else { 1 };
        self.interest.store(v, Ordering::Release);
    }
    fn metadata(&self) -> &Metadata<'_> {
        self.meta.get().expect("metadata set before registration")
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn tracing_level(l: Level) -> tracing::Level {
    match l {
        Level::Error => tracing::Level::ERROR,
        Level::Warn => tracing::Level::WARN,
        Level::Info => tracing::Level::INFO,
        Level::Debug => tracing::Level::DEBUG,
        Level::Trace => tracing::Level::TRACE,
    }
}

/// A registered callsite for an event or a span statement.
fn callsite(name: &str, target: &str, level: Level, fields: &[Field], kind: Kind, line: usize) -> &'static DynCallsite {
    let cs: &'static DynCallsite =
        Box::leak(Box::new(DynCallsite { meta: OnceLock::new(), interest: AtomicU8::new(1) }));
    let names: &'static [&'static str] =
        Box::leak(fields.iter().map(|f| leak(&f.name)).collect::<Vec<_>>().into_boxed_slice());
    let meta = Metadata::new(
        leak(name),
        leak(target),
        tracing_level(level),
        Some("impl/tracing-etw/inputs"),
        Some(line as u32),
        Some("ehconf_emit_tracing_etw"),
        FieldSet::new(names, tracing_core::identify_callsite!(cs)),
        kind,
    );
    let _ = cs.meta.set(meta);
    tracing_core::callsite::register(cs);
    cs
}

/// What the macros check before they dispatch (tracing's level_enabled!, the callsite's
/// interest, __is_enabled): Err(why) when the event or span is disabled.
fn enabled(cs: &'static DynCallsite) -> Result<&'static Metadata<'static>, String> {
    let meta = cs.meta.get().unwrap();
    if *meta.level() > LevelFilter::current() {
        return Err(format!("level {} is above the max level hint {}", meta.level(), LevelFilter::current()));
    }
    let interest = cs.interest();
    if interest.is_never() {
        return Err("the subscriber's interest is never".into());
    }
    if !tracing::__macro_support::__is_enabled(meta, interest) {
        return Err("the subscriber's enabled() is false".into());
    }
    Ok(meta)
}

// ---- values ---------------------------------------------------------------------------------

#[derive(Debug)]
#[allow(dead_code)] // read by Debug only
struct Point {
    x: i32,
    y: i32,
}

/// Values as the macros hand them to tracing, owned for the time of one call.
enum Owned {
    V(Box<dyn Value>),
    Err(Box<dyn std::error::Error + Send + Sync + 'static>),
}

fn owned(v: &Val) -> Owned {
    use tracing::field::{debug, display};
    Owned::V(match v {
        Val::I64(x) => Box::new(*x),
        Val::U64(x) => Box::new(*x),
        Val::I128(x) => Box::new(*x),
        Val::U128(x) => Box::new(*x),
        Val::I32(x) => Box::new(*x),
        Val::U8(x) => Box::new(*x),
        Val::F64(x) => Box::new(*x),
        Val::F32(x) => Box::new(*x),
        Val::Bool(x) => Box::new(*x),
        Val::Str(s) => Box::new(s.clone()),
        Val::Bytes(b) => Box::new(b.clone().into_boxed_slice()),
        Val::DebugStr(s) => Box::new(debug(s.clone())),
        Val::DebugPoint(x, y) => Box::new(debug(Point { x: *x, y: *y })),
        Val::DebugVec(v) => Box::new(debug(v.clone())),
        Val::Display(s) => Box::new(display(Text(s.clone()))),
        // format_args! borrows; Display of the text goes through the same record_debug.
        Val::Message(s) => Box::new(display(s.clone())),
        Val::Error(s) => return Owned::Err(Box::new(Text(s.clone()))),
        Val::Empty => Box::new(tracing::field::Empty),
    })
}

impl Owned {
    fn as_value(&self) -> &dyn Value {
        match self {
            Owned::V(b) => b.as_ref(),
            // dyn Error + Send + Sync is a Value (record_error): the `err = &e as &dyn Error` form.
            Owned::Err(e) => e as &dyn Value,
        }
    }
}

// ---- running the steps ----------------------------------------------------------------------

struct Runner {
    spans: Mutex<HashMap<String, Span>>,
    written: AtomicUsize,
    failed: AtomicUsize,
    step_failed: AtomicUsize,
}

thread_local! {
    /// The spans this thread entered and has not exited, innermost last.
    static ENTERED: std::cell::RefCell<Vec<(String, tracing::span::EnteredSpan)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn say(line: &str) {
    let out = io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "{}", line);
    let _ = out.flush();
}

impl Runner {
    fn report(&self, first: usize, writes: usize, outcome: &Result<(), String>) {
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

    fn step_error(&self, line: usize, why: &str) {
        self.step_failed.fetch_add(1, Ordering::Relaxed);
        say(&format!("line {}: step failed: {}", line, why));
    }

    fn span(&self, id: &str) -> Option<Span> {
        self.spans.lock().unwrap().get(id).cloned()
    }

    fn parent_id(&self, p: &Parent, line: usize) -> Result<Option<Option<tracing::Id>>, String> {
        Ok(match p {
            Parent::Current => None,
            Parent::Root => Some(None),
            Parent::Span(s) => match self.span(s) {
                Some(sp) => Some(sp.id()),
                None => return Err(format!("line {}: no open span {:?}", line, s)),
            },
        })
    }

    fn event(&self, e: &EventDef) {
        let vals: Vec<Owned> = e.fields.iter().map(|f| owned(&f.val)).collect();
        let refs: Vec<&dyn Value> = vals.iter().map(|v| v.as_value()).collect();
        let outcome = if e.etw {
            match sites::ETW_SITES.iter().find(|(k, _)| *k == inputs::etw_key(e)) {
                Some((_, site)) => {
                    if e.parent != Parent::Current {
                        Err("etw_event! takes no parent".into())
                    } else {
                        // The macro checks and dispatches itself: it says nothing back.
                        site(&refs);
                        Ok(())
                    }
                }
                None => Err(format!(
                    "line {}: this etw_event! call site was not compiled in (rebuild: build.rs \
                     generates one per statement of impl/tracing-etw/inputs/*.inputs)",
                    e.line
                )),
            }
        } else {
            let cs = callsite(&e.name, &e.target, e.level, &e.fields, Kind::EVENT, e.line);
            match self.parent_id(&e.parent, e.line) {
                Err(why) => Err(why),
                Ok(parent) => enabled(cs).map(|meta| {
                    let opts: Vec<Option<&dyn Value>> = refs.iter().map(|v| Some(*v)).collect();
                    let vs = meta.fields().value_set_all(&opts);
                    match parent {
                        None => Event::dispatch(meta, &vs),
                        Some(p) => Event::child_of(p, meta, &vs),
                    }
                }),
            }
        };
        if e.writes == 0 {
            say(&format!("line {}: {} {:?} dispatched (expects no event): {:?}", e.line,
                if e.etw { "etw_event" } else { "event" }, e.name, outcome));
        }
        self.report(e.first, e.writes, &outcome);
    }

    fn new_span(&self, s: &SpanDef) {
        let cs = callsite(&s.name, &s.target, s.level, &s.fields, Kind::SPAN, s.line);
        let vals: Vec<Owned> = s.fields.iter().map(|f| owned(&f.val)).collect();
        let opts: Vec<Option<&dyn Value>> = vals.iter().map(|v| Some(v.as_value())).collect();
        let outcome = match self.parent_id(&s.parent, s.line) {
            Err(why) => Err(why),
            Ok(parent) => enabled(cs).map(|meta| {
                let vs = meta.fields().value_set_all(&opts);
                let span = match parent {
                    None => Span::new(meta, &vs),
                    Some(None) => Span::new_root(meta, &vs),
                    Some(Some(p)) => Span::child_of(p, meta, &vs),
                };
                self.spans.lock().unwrap().insert(s.id.clone(), span);
            }),
        };
        if let Err(why) = &outcome {
            // Later steps on this span would find nothing: say so once, here.
            self.spans.lock().unwrap().insert(s.id.clone(), Span::none());
            if s.writes == 0 {
                self.step_error(s.line, &format!("span {:?}: {}", s.id, why));
            }
        }
        self.report(s.first, s.writes, &outcome);
    }

    fn on_span(&self, line: usize, id: &str, first: usize, writes: usize, f: impl FnOnce(Span) -> Result<(), String>) {
        let outcome = match self.span(id) {
            Some(sp) => f(sp),
            None => Err(format!("line {}: no open span {:?}", line, id)),
        };
        if writes == 0 {
            if let Err(why) = &outcome {
                self.step_error(line, why);
            }
        }
        self.report(first, writes, &outcome);
    }

    fn run(&self, steps: &[Step]) {
        for s in steps {
            match s {
                Step::Event(e) => self.event(e),
                Step::Span(sd) => self.new_span(sd),
                Step::Record { line, span, field, writes, first } => {
                    self.on_span(*line, span, *first, *writes, |sp| {
                        let v = owned(&field.val);
                        sp.record(field.name.as_str(), v.as_value());
                        Ok(())
                    })
                }
                Step::Enter { line, span, writes, first } => self.on_span(*line, span, *first, *writes, |sp| {
                    let entered = sp.entered();
                    ENTERED.with(|e| e.borrow_mut().push((span.clone(), entered)));
                    Ok(())
                }),
                Step::Exit { line, span, writes, first } => {
                    let outcome = ENTERED.with(|e| {
                        let mut e = e.borrow_mut();
                        match e.iter().rposition(|(id, _)| id == span) {
                            Some(i) => {
                                let (_, entered) = e.remove(i);
                                drop(entered.exit());
                                Ok(())
                            }
                            None => Err(format!("line {}: span {:?} is not entered on this thread", line, span)),
                        }
                    });
                    if *writes == 0 {
                        if let Err(why) = &outcome {
                            self.step_error(*line, why);
                        }
                    }
                    self.report(*first, *writes, &outcome);
                }
                Step::Close { line, span, writes, first } => {
                    // The file's handle goes; the span closes when no other handle is left
                    // (an entered one keeps it open).
                    let gone = self.spans.lock().unwrap().remove(span);
                    let outcome = match gone {
                        Some(sp) => {
                            drop(sp);
                            Ok(())
                        }
                        None => Err(format!("line {}: no open span {:?}", line, span)),
                    };
                    if *writes == 0 {
                        if let Err(why) = &outcome {
                            self.step_error(*line, why);
                        }
                    }
                    self.report(*first, *writes, &outcome);
                }
                Step::Threads(blocks) => {
                    let go = Arc::new(Barrier::new(blocks.len()));
                    std::thread::scope(|scope| {
                        for b in blocks {
                            let go = go.clone();
                            scope.spawn(move || {
                                go.wait();
                                self.run(b);
                                // A thread that ends exits what it left entered.
                                ENTERED.with(|e| e.borrow_mut().clear());
                            });
                        }
                    });
                }
            }
        }
    }
}

// ---- the layers -----------------------------------------------------------------------------

type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync + 'static>;

/// LayerBuilder with the options of a `layer` line, built: Ok(layer) or Err(the error).
fn build_layer(l: &inputs::LayerDef) -> Result<BoxedLayer, String> {
    let mut b = tracing_etw::LayerBuilder::new(&l.provider);
    if let Some(kw) = l.keyword {
        b = b.with_default_keyword(kw);
    }
    if let Some(g) = l.guid {
        b = b.with_provider_id(&tracing_etw::native::GuidWrapper::from(g));
    }
    match &l.target {
        None => b.build::<Registry>().map(|x| x.boxed()).map_err(|e| e.to_string()),
        Some(t) => b.build_with_target::<Registry>(leak(t)).map(|x| x.boxed()).map_err(|e| e.to_string()),
    }
}

fn install(inputs: &Inputs) -> bool {
    let mut layers: Vec<BoxedLayer> = Vec::new();
    let mut ok = true;
    for l in &inputs.layers {
        match (build_layer(l), l.invalid) {
            (Ok(layer), false) => layers.push(layer),
            (Err(e), true) => say(&format!("line {}: layer {:?}: LayerBuilder refused it, as expected: {}", l.line, l.provider, e)),
            (Ok(_), true) => {
                say(&format!("line {}: step failed: layer {:?} was built, expected LayerBuilder to refuse it", l.line, l.provider));
                ok = false;
            }
            (Err(e), false) => {
                say(&format!("line {}: step failed: layer {:?}: LayerBuilder::build: {}", l.line, l.provider, e));
                ok = false;
            }
        }
    }
    tracing_subscriber::registry().with(layers).init();
    ok
}

fn main() {
    ehconf_emit::emit_main(Emitter {
        usage: "emit <file.inputs> | emit --contract | emit --bench COUNT <file.inputs>",
        unset: &[],
        contract: || Box::new(contract_api::Etw::new()),
        bench: bench_api::run,
        run,
    })
}

/// The inputs file at path: the exit status.
fn run(path: &str) -> i32 {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {}", path, e);
            process::exit(2);
        }
    };
    let inputs = match inputs::parse(&text) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{}:{}: {}", path, e.line, e.why);
            process::exit(2);
        }
    };
    if let Some(t) = inputs.clock {
        PINNED.store(t, Ordering::Relaxed);
    }
    let r = Runner {
        spans: Mutex::new(HashMap::new()),
        written: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
        step_failed: AtomicUsize::new(0),
    };
    if !install(&inputs) {
        r.step_failed.fetch_add(1, Ordering::Relaxed);
    }
    r.run(&inputs.steps);
    // What the file left open closes now, as at the end of a user's main.
    r.spans.lock().unwrap().clear();
    let (w, f, s) = (r.written.load(Ordering::Relaxed), r.failed.load(Ordering::Relaxed), r.step_failed.load(Ordering::Relaxed));
    println!("emit: {} written, 0 skipped, {} failed", w, f);
    let _ = io::stdout().flush();
    if f > 0 || s > 0 || w != inputs.events {
        1
    } else {
        0
    }
}
