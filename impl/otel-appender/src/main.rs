// SPDX-License-Identifier: GPL-2.0
//
// emit <file.inputs>: ehconf's emitter for `tracing` events through OpenTelemetry's bridge
// layer (opentelemetry-appender-tracing's OpenTelemetryTracingBridge) into the user_events
// logs exporter (opentelemetry-user-events-logs): the path a Rust service logs through when
// it uses `tracing` and exports with OpenTelemetry (impl/otel-appender/README.md).
//
// Its inputs are tracing events, not log records (impl/otel-appender/inputs/*.inputs): the
// processors and resource of the SdkLoggerProvider (the otel-logs statements), then `event`
// statements, each a level, a name and a target, a formatted message and fields of the kinds
// the macros take. The emitter installs tracing_subscriber::registry() with the bridge layer
// as the global default, then dispatches each event through a callsite made at run time
// (name, target, level, field names from the file), registered with
// tracing_core::callsite::register and checked as the macros check (the max level, the
// callsite's interest, Dispatch::enabled): to the layer it is what event! makes (impl/tracing-etw
// does the same). An event given no name gets the one event! gives it, "event <file>:<line>",
// with the inputs file as the file (impl/otel-appender/inputs/<input>.inputs).
//
// `clock <seconds>` pins CLOCK_REALTIME (emitlib/rust/otel/clock.rs): the bridge sets no
// timestamp, so the SDK's observed timestamp, which the exporter writes as PartA time, is the
// pinned second. `context <trace id> <span id>` makes a remote span context the active one
// (the logger takes its ids), `context none` clears it. `panics catch` catches a panic of the
// dispatch and goes on. `filter off <target>...` gives the bridge layer a filter that
// turns those target prefixes off (examples/basic.rs's "opentelemetry=off": the SDK's own
// internal logs, which go through tracing, are otherwise exported by the layer too).
//
// Prints one line per golden event a statement accounts for (writes=), numbered from 1 in
// file order: `event <n> written` once the dispatch returned (the layer says nothing back),
// `event <n> failed <why>` when tracing did not hand it to the subscriber; `line <l>: ...`
// for the rest; then `emit: N written, 0 skipped, N failed`. Exit 0 when every event was
// written and every step held, 1 otherwise, 2 for an inputs file it cannot parse. `emit
// --contract`: src/contract_api.rs. `emit --bench COUNT <file.inputs>`: src/bench_api.rs.

use std::process;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use opentelemetry::KeyValue;
use opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge;
use opentelemetry_sdk::logs::{LoggerProviderBuilder, SdkLogRecord, SdkLoggerProvider};
use opentelemetry_user_events_logs::{EventNameCallback, Processor};
use tracing::callsite::Callsite;
use tracing::field::{FieldSet, Value};
use tracing::level_filters::LevelFilter;
use tracing::metadata::Kind;
use tracing::subscriber::Interest;
use tracing::{Event, Metadata};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer as _;

use ehconf_emit::otel::{self, clock, report, statements, words};
use ehconf_emit::words::Text;
mod bench_api;
mod contract_api;
ehconf_emit::otel_values!();
use otel_values::{resource, scalar_value};

use report::Report;
use statements::ResourceBase;
use words::{err, opt, options, Line, ParseError};

// ---- the inputs ------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum EventName {
    /// No callback: the exporter's DefaultEventNameCallback ("Log").
    Default,
    /// A callback answering the record's event name (the tracing event's), or this one.
    Record(&'static str),
}

#[derive(Clone, Debug)]
struct ProcessorDef {
    line: usize,
    provider: String,
    event_name: EventName,
}

/// A field as the macros take it: `key = 1`, `key = "text"`, `key = ?v`, `key = %v`,
/// `error = &e as &dyn Error`.
#[derive(Clone, Debug)]
enum Field {
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    F64(f64),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    /// `?value` of a string: its Debug text (quoted).
    Debug(String),
    /// `%value`, and the macros' formatted message (format_args!): the text as it is.
    Display(String),
    /// A `&dyn Error` whose Display is the text.
    Error(String),
}

#[derive(Clone, Debug)]
pub(crate) struct EventDef {
    line: usize,
    level: tracing::Level,
    name: String,
    target: String,
    fields: Vec<(String, Field)>,
    writes: usize,
    first: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum Step {
    Event(EventDef),
    Clock(i64, u32),
    /// The active context's span from here on: a remote span context, or none.
    Context(usize, Option<SpanContext>),
}

pub(crate) struct Inputs {
    clock: Option<(i64, u32)>,
    processors: Vec<ProcessorDef>,
    resource_base: ResourceBase,
    resource: Vec<(String, words::Val)>,
    /// Targets the bridge layer's filter turns off (`filter off <target>...`).
    off: Vec<String>,
    catch: bool,
    pub(crate) steps: Vec<Step>,
    events: usize,
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn level(w: &str, line: usize) -> Result<tracing::Level, ParseError> {
    match w {
        "error" => Ok(tracing::Level::ERROR),
        "warn" => Ok(tracing::Level::WARN),
        "info" => Ok(tracing::Level::INFO),
        "debug" => Ok(tracing::Level::DEBUG),
        "trace" => Ok(tracing::Level::TRACE),
        _ => err(line, format!("level {:?}: error, warn, info, debug or trace", w)),
    }
}

fn num<T: std::str::FromStr>(v: &str, line: usize, what: &str) -> Result<T, ParseError> {
    v.parse().map_or_else(|_| err(line, format!("{:?} is not {}", v, what)), Ok)
}

/// `field <kind> <key> <value>`.
fn field(w: &[String], line: usize) -> Result<(String, Field), ParseError> {
    if w.len() != 4 {
        return err(line, "field <kind> <key> <value>");
    }
    let v = &w[3];
    let f = match w[1].as_str() {
        "i64" => Field::I64(num(v, line, "an i64")?),
        "u64" => Field::U64(num(v, line, "a u64")?),
        "i128" => Field::I128(num(v, line, "an i128")?),
        "u128" => Field::U128(num(v, line, "a u128")?),
        "f64" => Field::F64(num(v, line, "an f64")?),
        "bool" => Field::Bool(num(v, line, "true or false")?),
        "str" => Field::Str(words::unescape(v, line)?),
        "bytes" => Field::Bytes(words::hex(v, line)?),
        "debug" => Field::Debug(words::unescape(v, line)?),
        "display" => Field::Display(words::unescape(v, line)?),
        "error" => Field::Error(words::unescape(v, line)?),
        k => return err(line, format!("field kind {:?}: i64 u64 i128 u128 f64 bool str bytes debug display error", k)),
    };
    Ok((words::unescape(&w[2], line)?, f))
}

fn event(lines: &[Line], pos: &mut usize, head: &Line, input: &str, next: &mut usize) -> Result<EventDef, ParseError> {
    words::at_least(&head.w, 2, head.no, "event <level> [name=<name>] [target=<target>] [writes=N]")?;
    let o = options(&head.w[2..], &["name", "target", "writes"], head.no)?;
    let mut e = EventDef {
        line: head.no,
        level: level(&head.w[1], head.no)?,
        // event!'s own name and target when the call gives none: "event <file>:<line>",
        // the module path (this binary's is `emit`).
        name: match opt(&o, "name") {
            Some(n) => words::unescape(n, head.no)?,
            None => format!("event impl/otel-appender/inputs/{}.inputs:{}", input, head.no),
        },
        target: match opt(&o, "target") {
            Some(t) => words::unescape(t, head.no)?,
            None => "emit".into(),
        },
        fields: Vec::new(),
        writes: words::writes(&o, 1, head.no)?,
        first: 0,
    };
    loop {
        let Some(l) = lines.get(*pos) else {
            return err(head.no, "no `end` for this event");
        };
        *pos += 1;
        match l.w[0].as_str() {
            "end" => break,
            // info!("text"): the macros' `message` field, a format_args! (recorded as Debug).
            "message" => {
                if l.w.len() != 2 {
                    return err(l.no, "message <text>");
                }
                e.fields.push(("message".into(), Field::Display(words::unescape(&l.w[1], l.no)?)));
            }
            "field" => e.fields.push(field(&l.w, l.no)?),
            x => return err(l.no, format!("unknown event line {:?}", x)),
        }
    }
    e.first = if e.writes > 0 { *next } else { 0 };
    *next += e.writes;
    Ok(e)
}

fn trace_ids(w: &[String], line: usize) -> Result<SpanContext, ParseError> {
    if w.len() != 2 {
        return err(line, "context <trace id: 32 hex> <span id: 16 hex> | context none");
    }
    let t: [u8; 16] = words::hex_id(&w[0], 16, line)?.try_into().unwrap();
    let s: [u8; 8] = words::hex_id(&w[1], 8, line)?.try_into().unwrap();
    Ok(SpanContext::new(TraceId::from_bytes(t), SpanId::from_bytes(s), TraceFlags::SAMPLED, true, TraceState::default()))
}

pub(crate) fn parse(text: &str) -> Result<Inputs, ParseError> {
    let lines = statements::statement_lines(text)?;
    let input = lines[0].w[1].clone();
    let (mut pos, mut next, mut in_steps) = (1, 1, false);
    let mut inp = Inputs {
        clock: None,
        processors: Vec::new(),
        resource_base: ResourceBase::Empty,
        resource: Vec::new(),
        off: Vec::new(),
        catch: false,
        steps: Vec::new(),
        events: 0,
    };
    while let Some(l) = lines.get(pos) {
        pos += 1;
        let (no, w) = (l.no, &l.w);
        statements::setup_first(w, no, in_steps, &["processor", "resource", "resource_base", "filter", "panics"], "event")?;
        match w[0].as_str() {
            "clock" => statements::clock_at(w, no, in_steps, &mut inp.clock, &mut inp.steps, Step::Clock)?,
            "processor" => {
                words::at_least(w, 2, no, "processor <provider> [event_name=record:<fallback>]")?;
                let o = options(&w[2..], &["event_name"], no)?;
                let event_name = match opt(&o, "event_name") {
                    None => EventName::Default,
                    Some(v) => match v.split_once(':') {
                        Some(("record", n)) => EventName::Record(leak(&words::unescape(n, no)?)),
                        _ => return err(no, "event_name=record:<fallback>"),
                    },
                };
                inp.processors.push(ProcessorDef { line: no, provider: words::unescape(&w[1], no)?, event_name });
            }
            "resource_base" => inp.resource_base = statements::resource_base(w, no)?,
            "resource" => inp.resource.push(words::keyed(&w[1..], no)?),
            "filter" => {
                if w.len() < 3 || w[1] != "off" {
                    return err(no, "filter off <target prefix>...");
                }
                inp.off.extend(w[2..].iter().cloned());
            }
            "panics" => inp.catch = statements::panics(w, no)?,
            "event" => {
                in_steps = true;
                let e = event(&lines, &mut pos, l, &input, &mut next)?;
                inp.steps.push(Step::Event(e));
            }
            "context" => {
                in_steps = true;
                let sc = if w.len() == 2 && w[1] == "none" { None } else { Some(trace_ids(&w[1..], no)?) };
                inp.steps.push(Step::Context(no, sc));
            }
            x => return err(no, format!("unknown statement {:?}", x)),
        }
    }
    if inp.processors.is_empty() {
        return err(lines[0].no, "at least one `processor`");
    }
    inp.events = next - 1;
    Ok(inp)
}

// ---- the provider and the subscriber ---------------------------------------------------------

struct RecordName(&'static str);
impl EventNameCallback for RecordName {
    fn get_name(&self, r: &SdkLogRecord) -> &'static str {
        r.event_name().unwrap_or(self.0)
    }
}

fn add_processor(b: LoggerProviderBuilder, p: &ProcessorDef) -> Result<LoggerProviderBuilder, String> {
    let pb = Processor::builder(&p.provider);
    match &p.event_name {
        EventName::Default => pb.build().map(|x| b.with_log_processor(x)).map_err(|e| e.to_string()),
        EventName::Record(n) => {
            pb.with_event_name_callback(RecordName(n)).build().map(|x| b.with_log_processor(x)).map_err(|e| e.to_string())
        }
    }
}

pub(crate) fn install(inp: &Inputs, r: &Report) -> Option<SdkLoggerProvider> {
    let mut b = SdkLoggerProvider::builder();
    let mut kvs = Vec::new();
    for (k, v) in &inp.resource {
        match scalar_value(v) {
            Some(v) => kvs.push(KeyValue::new(k.clone(), v)),
            None => {
                r.step_error(0, &format!("resource {}: int, double, bool, str or arr-*", k));
                return None;
            }
        }
    }
    if let Some(res) = resource(inp.resource_base, kvs) {
        b = b.with_resource(res);
    }
    for p in &inp.processors {
        match add_processor(b, p) {
            Ok(nb) => b = nb,
            Err(e) => {
                r.step_error(p.line, &format!("processor {:?}: build(): {}", p.provider, e));
                return None;
            }
        }
    }
    let provider = b.build();
    // The service's setup as the crate's docs give it (src/lib.rs "Register the tracing
    // Subscriber"): the registry with the bridge layer, the global default; the layer's
    // filter turns the `filter off` targets off as examples/basic.rs does ("opentelemetry=off":
    // a target prefix, as Targets and EnvFilter match), everything else on.
    let filter = inp.off.iter().fold(Targets::new().with_default(LevelFilter::TRACE), |f, t| f.with_target(t.clone(), LevelFilter::OFF));
    let subscriber = tracing_subscriber::registry().with(OpenTelemetryTracingBridge::new(&provider).with_filter(filter));
    if let Err(e) = tracing::subscriber::set_global_default(subscriber) {
        r.step_error(0, &format!("set_global_default: {}", e));
        return None;
    }
    Some(provider)
}

// ---- callsites made at run time (as impl/tracing-etw's) ---------------------------------------

/// A callsite whose metadata comes from the inputs: leaked, as a macro's static is forever.
pub(crate) struct DynCallsite {
    meta: OnceLock<Metadata<'static>>,
    /// What the dispatchers said at registration, as DefaultCallsite keeps it: 0 never, 1
    /// sometimes, 2 always.
    interest: AtomicU8,
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

pub(crate) fn callsite(e: &EventDef) -> &'static DynCallsite {
    let cs: &'static DynCallsite = Box::leak(Box::new(DynCallsite { meta: OnceLock::new(), interest: AtomicU8::new(1) }));
    let names: &'static [&'static str] =
        Box::leak(e.fields.iter().map(|(k, _)| leak(k)).collect::<Vec<_>>().into_boxed_slice());
    let meta = Metadata::new(
        leak(&e.name),
        leak(&e.target),
        e.level,
        Some("impl/otel-appender/inputs"),
        Some(e.line as u32),
        Some("emit"),
        FieldSet::new(names, tracing_core::identify_callsite!(cs)),
        Kind::EVENT,
    );
    let _ = cs.meta.set(meta);
    tracing_core::callsite::register(cs);
    cs
}

/// What the macros check before they dispatch (level_enabled!, the callsite's interest,
/// __is_enabled): Err(why) when the event is disabled.
fn enabled(cs: &'static DynCallsite) -> Result<&'static Metadata<'static>, String> {
    let meta = cs.meta.get().unwrap();
    if *meta.level() > LevelFilter::current() {
        return Err(format!("level {} is above the max level hint {}", meta.level(), LevelFilter::current()));
    }
    let interest = match cs.interest.load(Ordering::Acquire) {
        0 => Interest::never(),
        2 => Interest::always(),
        _ => Interest::sometimes(),
    };
    if interest.is_never() {
        return Err("the subscriber's interest is never".into());
    }
    if !tracing::__macro_support::__is_enabled(meta, interest) {
        return Err("the subscriber's enabled() is false".into());
    }
    Ok(meta)
}

// ---- values ----------------------------------------------------------------------------------

/// A field's value as the macros hand it to tracing, owned for the time of one call.
enum Owned {
    V(Box<dyn Value>),
    Err(Box<dyn std::error::Error + Send + Sync + 'static>),
}

fn owned(v: &Field) -> Owned {
    use tracing::field::{debug, display};
    Owned::V(match v {
        Field::I64(x) => Box::new(*x),
        Field::U64(x) => Box::new(*x),
        Field::I128(x) => Box::new(*x),
        Field::U128(x) => Box::new(*x),
        Field::F64(x) => Box::new(*x),
        Field::Bool(x) => Box::new(*x),
        Field::Str(s) => Box::new(s.clone()),
        Field::Bytes(b) => Box::new(b.clone().into_boxed_slice()),
        Field::Debug(s) => Box::new(debug(s.clone())),
        Field::Display(s) => Box::new(display(s.clone())),
        Field::Error(s) => return Owned::Err(Box::new(Text(s.clone()))),
    })
}

impl Owned {
    fn as_value(&self) -> &dyn Value {
        match self {
            Owned::V(b) => b.as_ref(),
            // dyn Error + Send + Sync is a Value (record_error): `error = &e as &dyn Error`.
            Owned::Err(e) => e as &dyn Value,
        }
    }
}

/// One event: the callsite's checks, then Event::dispatch with every field's value.
pub(crate) fn dispatch(cs: &'static DynCallsite, e: &EventDef) -> Result<(), String> {
    let meta = enabled(cs)?;
    let vals: Vec<Owned> = e.fields.iter().map(|(_, v)| owned(v)).collect();
    let opts: Vec<Option<&dyn Value>> = vals.iter().map(|v| Some(v.as_value())).collect();
    let vs = meta.fields().value_set_all(&opts);
    Event::dispatch(meta, &vs);
    Ok(())
}

fn main() {
    ehconf_emit::emit_main(otel::emitter(|| Box::new(contract_api::AppenderApi::default()), |n, f| bench_api::run(n, f), |p| run(p)))
}

/// The inputs file at path; ends the process.
fn run(path: &str) -> ! {
    let inp = statements::read_inputs(path, parse);
    clock::pin_start(inp.clock);
    let r = Report::default();
    let Some(provider) = install(&inp, &r) else {
        process::exit(r.finish(inp.events).max(1));
    };
    let mut guard = None;
    for s in &inp.steps {
        match s {
            Step::Event(e) => {
                let cs = callsite(e);
                let outcome = report::guarded(inp.catch, || dispatch(cs, e)).and_then(|x| x);
                if e.writes == 0 {
                    r.note(e.line, &format!("event dispatched (expects no event): {:?}", outcome));
                }
                r.events(e.first, e.writes, &outcome);
            }
            Step::Clock(secs, nanos) => clock::pin(*secs, *nanos),
            Step::Context(line, sc) => {
                guard = None;
                if let Some(sc) = sc {
                    guard = Some(opentelemetry::Context::new().with_remote_span_context(sc.clone()).attach());
                    r.note(*line, "context: a remote span context is the active span");
                } else {
                    r.note(*line, "context: no active span");
                }
            }
        }
    }
    drop(guard);
    let code = r.finish(inp.events);
    let _ = provider.shutdown();
    process::exit(code);
}
