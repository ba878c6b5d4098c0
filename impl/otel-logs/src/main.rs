// SPDX-License-Identifier: GPL-2.0
//
// emit <file.inputs>: ehconf's emitter for OpenTelemetry's user_events logs exporter,
// opentelemetry-user-events-logs 0.16.0 (EventHeader over user_events through
// eventheader_dynamic, in the Common Schema layout: PartA, PartB, PartC).
//
// The exporter takes OpenTelemetry log records, not EventHeader field lists, so its inputs
// are their own (impl/otel-logs/inputs/*.inputs, Documentation/producers-otel.md §2.3): the
// processors to build with Processor::builder, the resource, then log records with every
// field the LogRecord API sets, emitted through one SdkLoggerProvider's logger. Each record
// is checked first with Logger::event_enabled, as the appenders (opentelemetry-appender-
// tracing, -log) check before they build a record, then handed to Logger::emit.
//
// `clock <seconds>` pins CLOCK_REALTIME (emitlib/rust/otel/clock.rs): the observed timestamp
// the SDK gives a record without one is then the same on every run. `panics catch` catches
// a panic of Logger::emit (as a server catches a request's) and goes on: that record's
// events fail with the panic's message; without it a panic ends the emitter.
//
// Prints one line per golden event a statement accounts for (writes=, §2.5), numbered from 1
// in file order: `event <n> written` once Logger::emit returned (it returns nothing), `event
// <n> failed <why>` when event_enabled said no and the record was not emitted; `line <l>: ...`
// for the rest; then `emit: N written, 0 skipped, N failed`. Exit 0 when every event was
// written and every step held, 1 otherwise, 2 for an inputs file it cannot parse
// (`file:line: reason` on stderr). `emit --contract`: src/contract_api.rs. `emit --bench
// COUNT <file.inputs>`: each record COUNT times, timed (src/bench_api.rs, make bench-impls).

use std::process;

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState};
use opentelemetry::{Key, KeyValue, Value};
use opentelemetry_sdk::logs::{LoggerProviderBuilder, SdkLogRecord, SdkLogger, SdkLoggerProvider};
use opentelemetry_user_events_logs::{EventNameCallback, Processor};

// What every OpenTelemetry emitter shares, from the ehconf-emit crate (emitlib/rust):
// the inputs' words and statements, the pinned clock, the report lines and emit_main; this
// crate's calls for emit --contract and --bench are in contract_api.rs and bench_api.rs.
use ehconf_emit::otel::{self, clock, report, statements, words};
mod bench_api;
mod contract_api;
// otel_values: the resource and the inputs' values as this crate's OpenTelemetry types
// (the opentelemetry version its Cargo.lock pins).
ehconf_emit::otel_values!();
use otel_values::{resource, scalar_value};

use report::Report;
use statements::ResourceBase;
use words::{err, opt, options, Line, ParseError, Val};

// ---- the inputs ------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum EventName {
    /// No callback: the crate's DefaultEventNameCallback ("Log").
    Default,
    /// A callback that always answers this name.
    Fixed(&'static str),
    /// A callback answering the record's event name, or this one when it has none.
    Record(&'static str),
}

#[derive(Clone, Debug)]
struct ProcessorDef {
    line: usize,
    provider: String,
    resource_attributes: Option<Vec<String>>,
    event_name: EventName,
    invalid: bool,
}

#[derive(Clone, Debug, Default)]
struct RecordDef {
    line: usize,
    severity: Option<Severity>,
    text: Option<&'static str>,
    name: Option<&'static str>,
    target: Option<String>,
    time: Option<std::time::SystemTime>,
    observed: Option<std::time::SystemTime>,
    trace: Option<(TraceId, SpanId, Option<TraceFlags>)>,
    body: Option<Val>,
    attrs: Vec<(String, Val)>,
    /// Logger::event_enabled first (the default), or emit without asking (`check=no`).
    check: bool,
    writes: usize,
    first: usize,
}

#[derive(Clone, Debug)]
enum Step {
    Record(RecordDef),
    Clock(i64, u32),
    /// The active context's span from here on: a remote span context, or none.
    Context(usize, Option<SpanContext>),
}

struct Inputs {
    clock: Option<(i64, u32)>,
    processors: Vec<ProcessorDef>,
    resource_base: ResourceBase,
    resource: Vec<(String, Val)>,
    scope: String,
    catch: bool,
    steps: Vec<Step>,
    events: usize,
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn severity(w: &str, line: usize) -> Result<Severity, ParseError> {
    const ALL: [Severity; 24] = [
        Severity::Trace, Severity::Trace2, Severity::Trace3, Severity::Trace4,
        Severity::Debug, Severity::Debug2, Severity::Debug3, Severity::Debug4,
        Severity::Info, Severity::Info2, Severity::Info3, Severity::Info4,
        Severity::Warn, Severity::Warn2, Severity::Warn3, Severity::Warn4,
        Severity::Error, Severity::Error2, Severity::Error3, Severity::Error4,
        Severity::Fatal, Severity::Fatal2, Severity::Fatal3, Severity::Fatal4,
    ];
    if let Ok(n) = w.parse::<usize>() {
        if (1..=24).contains(&n) {
            return Ok(ALL[n - 1]);
        }
    }
    ALL.iter()
        .find(|s| s.name().eq_ignore_ascii_case(w))
        .copied()
        .ok_or_else(|| ParseError { line, why: format!("severity {:?}: 1..24 or a name (Trace ... Fatal4)", w) })
}

fn trace_ids(w: &[String], line: usize) -> Result<(TraceId, SpanId, Option<TraceFlags>), ParseError> {
    if w.len() != 2 && w.len() != 3 {
        return err(line, "<trace id: 32 hex> <span id: 16 hex> [<flags: 2 hex>]");
    }
    let t: [u8; 16] = words::hex_id(&w[0], 16, line)?.try_into().unwrap();
    let s: [u8; 8] = words::hex_id(&w[1], 8, line)?.try_into().unwrap();
    let f = match w.get(2) {
        Some(f) => Some(TraceFlags::new(words::hex_id(f, 1, line)?[0])),
        None => None,
    };
    Ok((TraceId::from_bytes(t), SpanId::from_bytes(s), f))
}

fn record(lines: &[Line], pos: &mut usize, head: &Line, next: &mut usize) -> Result<RecordDef, ParseError> {
    let o = options(&head.w[1..], &["writes", "check"], head.no)?;
    let mut r = RecordDef {
        line: head.no,
        check: match opt(&o, "check") {
            None | Some("yes") => true,
            Some("no") => false,
            Some(x) => return err(head.no, format!("check={} (yes or no)", x)),
        },
        writes: words::writes(&o, 1, head.no)?,
        ..Default::default()
    };
    loop {
        let Some(l) = lines.get(*pos) else {
            return err(head.no, "no `end` for this record");
        };
        *pos += 1;
        let (no, w) = (l.no, &l.w);
        let one = |what: &str| -> Result<&String, ParseError> {
            if w.len() != 2 {
                return err(no, format!("{} <{}>", w[0], what));
            }
            Ok(&w[1])
        };
        match w[0].as_str() {
            "end" => break,
            "severity" => r.severity = Some(severity(one("number or name")?, no)?),
            "text" => r.text = Some(leak(words::unescape(one("text")?, no)?)),
            "name" => r.name = Some(leak(words::unescape(one("event name")?, no)?)),
            "target" => r.target = Some(words::unescape(one("target")?, no)?),
            "time" => r.time = Some(words::system_time(one("seconds")?, no)?),
            "observed" => r.observed = Some(words::system_time(one("seconds")?, no)?),
            "trace" => r.trace = Some(trace_ids(&w[1..], no)?),
            "body" => {
                if w.len() != 3 {
                    return err(no, "body <kind> <value>");
                }
                r.body = Some(words::val(&w[1], &w[2], no)?);
            }
            "attr" => r.attrs.extend(words::keyed_repeat(&w[1..], no)?),
            x => return err(no, format!("unknown record line {:?}", x)),
        }
    }
    r.first = if r.writes > 0 { *next } else { 0 };
    *next += r.writes;
    Ok(r)
}

fn parse(text: &str) -> Result<Inputs, ParseError> {
    let lines = statements::statement_lines(text)?;
    // The line after `inputs <name>`, the next event's number, and whether a record came.
    let (mut pos, mut next, mut in_steps) = (1, 1, false);
    let mut inp = Inputs {
        clock: None,
        processors: Vec::new(),
        resource_base: ResourceBase::Empty,
        resource: Vec::new(),
        scope: "ehconf".into(),
        catch: false,
        steps: Vec::new(),
        events: 0,
    };
    while let Some(l) = lines.get(pos) {
        pos += 1;
        let (no, w) = (l.no, &l.w);
        statements::setup_first(w, no, in_steps, &["processor", "resource", "resource_base", "scope", "panics"], "record")?;
        match w[0].as_str() {
            "clock" => statements::clock_at(w, no, in_steps, &mut inp.clock, &mut inp.steps, Step::Clock)?,
            "processor" => {
                words::at_least(w, 2, no, "processor <provider> [resource_attributes=a,b] [event_name=...] [expect=invalid]")?;
                let o = options(&w[2..], &["resource_attributes", "event_name", "expect"], no)?;
                let event_name = match opt(&o, "event_name") {
                    None => EventName::Default,
                    Some(v) => match v.split_once(':') {
                        Some(("fixed", n)) => EventName::Fixed(leak(words::unescape(n, no)?)),
                        Some(("record", n)) => EventName::Record(leak(words::unescape(n, no)?)),
                        _ => return err(no, "event_name=fixed:<name> or event_name=record:<fallback>"),
                    },
                };
                inp.processors.push(ProcessorDef {
                    line: no,
                    provider: words::unescape(&w[1], no)?,
                    resource_attributes: match opt(&o, "resource_attributes") {
                        None => None,
                        Some(v) => Some(v.split(',').map(|k| words::unescape(k, no)).collect::<Result<_, _>>()?),
                    },
                    event_name,
                    invalid: match opt(&o, "expect") {
                        None => false,
                        Some("invalid") => true,
                        Some(x) => return err(no, format!("expect={} (only expect=invalid)", x)),
                    },
                });
            }
            "resource_base" => inp.resource_base = statements::resource_base(w, no)?,
            "resource" => inp.resource.push(words::keyed(&w[1..], no)?),
            "panics" => inp.catch = statements::panics(w, no)?,
            "scope" => {
                if w.len() != 2 {
                    return err(no, "scope <logger name>");
                }
                inp.scope = words::unescape(&w[1], no)?;
            }
            "record" => {
                in_steps = true;
                let r = record(&lines, &mut pos, l, &mut next)?;
                inp.steps.push(Step::Record(r));
            }
            "context" => {
                in_steps = true;
                let sc = if w.len() == 2 && w[1] == "none" {
                    None
                } else {
                    let (t, s, f) = trace_ids(&w[1..], no)?;
                    Some(SpanContext::new(t, s, f.unwrap_or(TraceFlags::SAMPLED), true, TraceState::default()))
                };
                inp.steps.push(Step::Context(no, sc));
            }
            x => return err(no, format!("unknown statement {:?}", x)),
        }
    }
    if !inp.processors.iter().any(|p| !p.invalid) {
        return err(lines[0].no, "at least one `processor` that builds");
    }
    inp.events = next - 1;
    Ok(inp)
}

// ---- values ----------------------------------------------------------------------------------

fn any_value(v: &Val) -> AnyValue {
    match v {
        Val::Int(i) => AnyValue::Int(*i),
        Val::Double(d) => AnyValue::Double(*d),
        Val::Bool(b) => AnyValue::Boolean(*b),
        Val::Str(s) => AnyValue::String(s.clone().into()),
        Val::Bytes(b) => AnyValue::Bytes(Box::new(b.clone())),
        Val::List(l) => AnyValue::ListAny(Box::new(l.iter().map(any_value).collect())),
        Val::Map(m) => AnyValue::Map(Box::new(m.iter().map(|(k, v)| (Key::new(k.clone()), any_value(v))).collect())),
        // Arrays are a Value (span and resource attributes) kind; as a log value, a list.
        Val::ArrBool(a) => AnyValue::ListAny(Box::new(a.iter().map(|x| AnyValue::Boolean(*x)).collect())),
        Val::ArrInt(a) => AnyValue::ListAny(Box::new(a.iter().map(|x| AnyValue::Int(*x)).collect())),
        Val::ArrDouble(a) => AnyValue::ListAny(Box::new(a.iter().map(|x| AnyValue::Double(*x)).collect())),
        Val::ArrStr(a) => AnyValue::ListAny(Box::new(a.iter().map(|x| AnyValue::String(x.clone().into())).collect())),
    }
}

/// A resource attribute value (opentelemetry::Value): the scalar kinds and the arrays.
fn value(v: &Val, line: usize) -> Result<Value, ParseError> {
    scalar_value(v)
        .map_or_else(|| err(line, "a resource attribute is int, double, bool, str or arr-*"), Ok)
}

// ---- the provider ----------------------------------------------------------------------------

struct FixedName(&'static str);
impl EventNameCallback for FixedName {
    fn get_name(&self, _: &SdkLogRecord) -> &'static str {
        self.0
    }
}

struct RecordName(&'static str);
impl EventNameCallback for RecordName {
    fn get_name(&self, r: &SdkLogRecord) -> &'static str {
        r.event_name().unwrap_or(self.0)
    }
}

/// Processor::builder(...) with the options of a `processor` line, added to `b` when built.
fn add_processor(b: LoggerProviderBuilder, p: &ProcessorDef) -> (LoggerProviderBuilder, Result<(), String>) {
    let mut pb = Processor::builder(&p.provider);
    if let Some(keys) = &p.resource_attributes {
        pb = pb.with_resource_attributes(keys.clone());
    }
    match &p.event_name {
        EventName::Default => match pb.build() {
            Ok(proc_) => (b.with_log_processor(proc_), Ok(())),
            Err(e) => (b, Err(e.to_string())),
        },
        EventName::Fixed(n) => match pb.with_event_name_callback(FixedName(n)).build() {
            Ok(proc_) => (b.with_log_processor(proc_), Ok(())),
            Err(e) => (b, Err(e.to_string())),
        },
        EventName::Record(n) => match pb.with_event_name_callback(RecordName(n)).build() {
            Ok(proc_) => (b.with_log_processor(proc_), Ok(())),
            Err(e) => (b, Err(e.to_string())),
        },
    }
}

fn install(inp: &Inputs, r: &Report) -> Option<SdkLoggerProvider> {
    let mut b = SdkLoggerProvider::builder();
    let mut kvs = Vec::new();
    for (k, v) in &inp.resource {
        match value(v, 0) {
            Ok(v) => kvs.push(KeyValue::new(k.clone(), v)),
            Err(e) => {
                r.step_error(0, &format!("resource {}: {}", k, e.why));
                return None;
            }
        }
    }
    if let Some(res) = resource(inp.resource_base, kvs) {
        b = b.with_resource(res);
    }
    for p in &inp.processors {
        let (nb, res) = add_processor(b, p);
        b = nb;
        match (res, p.invalid) {
            (Ok(()), false) => {}
            (Err(e), true) => r.note(p.line, &format!("processor {:?}: build() refused it, as expected: {}", p.provider, e)),
            (Ok(()), true) => r.step_error(p.line, &format!("processor {:?} was built, expected build() to refuse it", p.provider)),
            (Err(e), false) => r.step_error(p.line, &format!("processor {:?}: build(): {}", p.provider, e)),
        }
    }
    Some(b.build())
}

fn emit_record(logger: &SdkLogger, d: &RecordDef, r: &Report, catch: bool) {
    if d.check {
        if let Some(sev) = d.severity {
            let target = d.target.as_deref().unwrap_or("");
            if !logger.event_enabled(sev, target, d.name) {
                let why = "Logger::event_enabled() is false: the record was not emitted".to_string();
                if d.writes == 0 {
                    r.note(d.line, &why);
                }
                r.events(d.first, d.writes, &Err(why));
                return;
            }
        }
    }
    let mut rec = logger.create_log_record();
    fill_record(&mut rec, d);
    let outcome = report::guarded(catch, || logger.emit(rec));
    if d.writes == 0 {
        match &outcome {
            Ok(()) => r.note(d.line, "record emitted (expects no event)"),
            Err(why) => r.step_error(d.line, why),
        }
    }
    r.events(d.first, d.writes, &outcome);
}

/// Every field the record statement sets, through the LogRecord API.
fn fill_record(rec: &mut SdkLogRecord, d: &RecordDef) {
    if let Some(s) = d.severity {
        rec.set_severity_number(s);
    }
    if let Some(t) = d.text {
        rec.set_severity_text(t);
    }
    if let Some(n) = d.name {
        rec.set_event_name(n);
    }
    if let Some(t) = &d.target {
        rec.set_target(t.clone());
    }
    if let Some(t) = d.time {
        rec.set_timestamp(t);
    }
    if let Some(t) = d.observed {
        rec.set_observed_timestamp(t);
    }
    if let Some((t, s, f)) = d.trace {
        rec.set_trace_context(t, s, f);
    }
    if let Some(b) = &d.body {
        rec.set_body(any_value(b));
    }
    for (k, v) in &d.attrs {
        rec.add_attribute(Key::new(k.clone()), any_value(v));
    }
}

fn main() {
    ehconf_emit::emit_main(otel::emitter(|| Box::new(contract_api::LogsApi::default()), |n, f| bench_api::run(n, f), |p| run(p)))
}

/// The inputs file at path; ends the process (process::exit: no destructor runs, so a
/// provider the file did not shut down is not shut down at exit either).
fn run(path: &str) -> ! {
    let inp = statements::read_inputs(path, parse);
    clock::pin_start(inp.clock);
    let r = Report::default();
    let Some(provider) = install(&inp, &r) else {
        process::exit(r.finish(inp.events).max(1));
    };
    let logger = provider.logger(inp.scope.clone());
    let mut guard = None;
    for s in &inp.steps {
        match s {
            Step::Record(d) => emit_record(&logger, d, &r, inp.catch),
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
