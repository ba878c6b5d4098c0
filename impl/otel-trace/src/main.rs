// SPDX-License-Identifier: GPL-2.0
//
// emit <file.inputs>: ehconf's emitter for OpenTelemetry's user_events span exporter,
// opentelemetry-user-events-trace 0.5.0 (EventHeader over user_events through
// eventheader_dynamic, in the Common Schema layout: PartA, PartB, PartC; one event per ended
// span).
//
// The exporter takes finished spans, not EventHeader field lists, so its inputs are their own
// (impl/otel-trace/inputs/*.inputs, Documentation/producers-otel.md §2.4): the exporter added
// with with_user_events_exporter, the resource, then spans started with a SpanBuilder (kind,
// parent, start time, attributes, links), given events and a status, and ended at a time.
// Span and trace ids come from an IdGenerator of the emitter's (the inputs' ids, else
// 1, 2, 3 ...), so the golden files hold them exactly.
//
// `clock <seconds>` pins CLOCK_REALTIME (emitlib/rust/otel/clock.rs) for the times the inputs
// leave to the SDK (a span's start and end). `panics catch` catches a panic of a step (as a
// server catches a request's) and goes on; without it a panic ends the emitter.
//
// Prints one line per golden event a statement accounts for (writes=, §2.5): an `end` writes
// 1 by default: `event <n> written` once Span::end returned (it returns nothing), `event <n>
// failed <why>` when it panicked; `line <l>: ...` for the rest; then `emit: N written, 0
// skipped, N failed`. Exit 0 when every event was written and every step held, 1 otherwise, 2
// for an inputs file it cannot parse. `emit --contract`: src/contract_api.rs. `emit --bench
// COUNT <file.inputs>`: each span started and ended COUNT times, timed (src/bench_api.rs,
// make bench-impls).

use std::collections::{HashMap, VecDeque};
use std::process;
use std::sync::Mutex;

use opentelemetry::trace::{
    Link, Span as _, SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState,
    Tracer as _, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::{IdGenerator, SdkTracer, SdkTracerProvider, Span as SdkSpan, TracerProviderBuilder};

// What every OpenTelemetry emitter shares, from the ehconf-emit crate (emitlib/rust):
// the inputs' words and statements, the pinned clock, the report lines and emit_main; this
// crate's calls for emit --contract and --bench are in contract_api.rs and bench_api.rs.
use ehconf_emit::otel::{self, clock, report, seed, statements, words};
mod bench_api;
mod contract_api;
// otel_values: the resource and the inputs' values as this crate's OpenTelemetry types
// (the opentelemetry version its Cargo.lock pins).
ehconf_emit::otel_values!();
use otel_values::{kvs, resource, value};

use report::Report;
use statements::ResourceBase;
use words::{err, opt, options, Line, ParseError, Val};

// ---- the inputs ------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Parent {
    /// No parent: a root (the SDK's Context::new()).
    Root,
    /// A span of the file, started before.
    Span(String),
    /// A remote parent: Context::with_remote_span_context.
    Remote(SpanContext),
}

#[derive(Clone, Debug)]
enum StatusDef {
    Unset,
    Ok,
    Error(String),
}

#[derive(Clone, Debug)]
struct SpanDef {
    line: usize,
    id: String,
    name: String,
    kind: SpanKind,
    parent: Parent,
    start: Option<std::time::SystemTime>,
    trace_id: Option<TraceId>,
    span_id: Option<SpanId>,
    attrs: Vec<(String, Val)>,
    links: Vec<(SpanContext, Vec<(String, Val)>)>,
    events: Vec<(String, Option<std::time::SystemTime>, Vec<(String, Val)>)>,
    status: Option<StatusDef>,
}

#[derive(Clone, Debug)]
enum Step {
    Start(SpanDef),
    End { line: usize, id: String, time: Option<std::time::SystemTime>, writes: usize, first: usize },
    Clock(i64, u32),
}

struct ExporterDef {
    line: usize,
    provider: String,
    invalid: bool,
}

struct Inputs {
    clock: Option<(i64, u32)>,
    exporters: Vec<ExporterDef>,
    resource_base: ResourceBase,
    resource: Vec<(String, Val)>,
    max_attributes: Option<u32>,
    catch: bool,
    steps: Vec<Step>,
    events: usize,
}

fn span_context(w: &[&str], line: usize) -> Result<SpanContext, ParseError> {
    if w.len() != 2 && w.len() != 3 {
        return err(line, "<trace id: 32 hex> <span id: 16 hex> [<flags: 2 hex>]");
    }
    let t: [u8; 16] = words::hex_id(w[0], 16, line)?.try_into().unwrap();
    let s: [u8; 8] = words::hex_id(w[1], 8, line)?.try_into().unwrap();
    let f = match w.get(2) {
        Some(f) => TraceFlags::new(words::hex_id(f, 1, line)?[0]),
        None => TraceFlags::SAMPLED,
    };
    Ok(SpanContext::new(TraceId::from_bytes(t), SpanId::from_bytes(s), f, true, TraceState::default()))
}

fn kind(w: &str, line: usize) -> Result<SpanKind, ParseError> {
    Ok(match w {
        "internal" => SpanKind::Internal,
        "server" => SpanKind::Server,
        "client" => SpanKind::Client,
        "producer" => SpanKind::Producer,
        "consumer" => SpanKind::Consumer,
        _ => return err(line, format!("kind={} (internal, server, client, producer, consumer)", w)),
    })
}

/// `attr` lines' words after a keyword, to the end of the line: `<kind> <key> <value>` groups.
fn attr_groups(w: &[String], line: usize) -> Result<Vec<(String, Val)>, ParseError> {
    if w.len() % 3 != 0 {
        return err(line, "attributes are <kind> <key> <value> groups");
    }
    let mut out = Vec::new();
    for g in w.chunks(3) {
        out.push(words::keyed(g, line)?);
    }
    Ok(out)
}

fn span_block(lines: &[Line], pos: &mut usize, head: &Line) -> Result<SpanDef, ParseError> {
    let no = head.no;
    if head.w.len() < 3 {
        return err(no, "span <id> <name> [kind=] [parent=] [start=] [trace_id=] [span_id=]");
    }
    let o = options(&head.w[3..], &["kind", "parent", "start", "trace_id", "span_id"], no)?;
    let parent = match opt(&o, "parent") {
        None | Some("none") => Parent::Root,
        Some(p) => match p.strip_prefix("remote:") {
            Some(r) => Parent::Remote(span_context(&r.split(':').collect::<Vec<_>>(), no)?),
            None => Parent::Span(p.to_string()),
        },
    };
    let mut d = SpanDef {
        line: no,
        id: head.w[1].clone(),
        name: words::unescape(&head.w[2], no)?,
        kind: kind(opt(&o, "kind").unwrap_or("internal"), no)?,
        parent,
        start: opt(&o, "start").map(|t| words::system_time(t, no)).transpose()?,
        trace_id: opt(&o, "trace_id")
            .map(|t| words::hex_id(t, 16, no).map(|b| TraceId::from_bytes(b.try_into().unwrap())))
            .transpose()?,
        span_id: opt(&o, "span_id")
            .map(|t| words::hex_id(t, 8, no).map(|b| SpanId::from_bytes(b.try_into().unwrap())))
            .transpose()?,
        attrs: Vec::new(),
        links: Vec::new(),
        events: Vec::new(),
        status: None,
    };
    loop {
        let Some(l) = lines.get(*pos) else {
            return err(no, "no `end` for this span");
        };
        *pos += 1;
        let (ln, w) = (l.no, &l.w);
        match w[0].as_str() {
            "end" if w.len() == 1 => break,
            "attr" => d.attrs.extend(words::keyed_repeat(&w[1..], ln)?),
            "link" => {
                // link <trace> <span> [<flags>] [attrs <kind> <key> <value> ...]
                let a = w.iter().position(|x| x == "attrs").unwrap_or(w.len());
                let ids: Vec<&str> = w[1..a].iter().map(String::as_str).collect();
                let attrs = if a < w.len() { attr_groups(&w[a + 1..], ln)? } else { Vec::new() };
                d.links.push((span_context(&ids, ln)?, attrs));
            }
            "event" => {
                // event <name> [time=<t>] [attrs <kind> <key> <value> ...]
                words::at_least(w, 2, ln, "event <name> [time=<t>] [attrs ...]")?;
                let a = w.iter().position(|x| x == "attrs").unwrap_or(w.len());
                let eo = options(&w[2..a], &["time"], ln)?;
                let attrs = if a < w.len() { attr_groups(&w[a + 1..], ln)? } else { Vec::new() };
                d.events.push((
                    words::unescape(&w[1], ln)?,
                    opt(&eo, "time").map(|t| words::system_time(t, ln)).transpose()?,
                    attrs,
                ));
            }
            "status" => {
                d.status = Some(match (w.get(1).map(String::as_str), w.len()) {
                    (Some("unset"), 2) => StatusDef::Unset,
                    (Some("ok"), 2) => StatusDef::Ok,
                    (Some("error"), 3) => StatusDef::Error(words::unescape(&w[2], ln)?),
                    _ => return err(ln, "status unset | ok | error <description>"),
                })
            }
            x => return err(ln, format!("unknown span line {:?}", x)),
        }
    }
    Ok(d)
}

fn parse(text: &str) -> Result<Inputs, ParseError> {
    let lines = statements::statement_lines(text)?;
    let mut inp = Inputs {
        clock: None,
        exporters: Vec::new(),
        resource_base: ResourceBase::Empty,
        resource: Vec::new(),
        max_attributes: None,
        catch: false,
        steps: Vec::new(),
        events: 0,
    };
    let (mut pos, mut next, mut in_steps) = (1, 1, false);
    while let Some(l) = lines.get(pos) {
        pos += 1;
        let (no, w) = (l.no, &l.w);
        statements::setup_first(w, no, in_steps, &["exporter", "resource", "resource_base", "limit", "panics"], "span")?;
        match w[0].as_str() {
            "clock" => statements::clock_at(w, no, in_steps, &mut inp.clock, &mut inp.steps, Step::Clock)?,
            "exporter" => {
                words::at_least(w, 2, no, "exporter <provider> [expect=invalid]")?;
                let o = options(&w[2..], &["expect"], no)?;
                inp.exporters.push(ExporterDef {
                    line: no,
                    provider: words::unescape(&w[1], no)?,
                    invalid: match opt(&o, "expect") {
                        None => false,
                        Some("invalid") => true,
                        Some(x) => return err(no, format!("expect={} (only expect=invalid)", x)),
                    },
                });
            }
            "resource_base" => inp.resource_base = statements::resource_base(w, no)?,
            "resource" => inp.resource.push(words::keyed(&w[1..], no)?),
            "limit" => {
                let o = options(&w[1..], &["attributes"], no)?;
                inp.max_attributes = opt(&o, "attributes").map(|n| words::num(n, no, "a count")).transpose()?;
            }
            "panics" => inp.catch = statements::panics(w, no)?,
            "span" => {
                in_steps = true;
                inp.steps.push(Step::Start(span_block(&lines, &mut pos, l)?));
            }
            "end" => {
                in_steps = true;
                words::at_least(w, 2, no, "end <span id> [time=<t>] [writes=<n>]")?;
                let o = options(&w[2..], &["time", "writes"], no)?;
                let writes = words::writes(&o, 1, no)?;
                let first = if writes > 0 { next } else { 0 };
                next += writes;
                inp.steps.push(Step::End {
                    line: no,
                    id: w[1].clone(),
                    time: opt(&o, "time").map(|t| words::system_time(t, no)).transpose()?,
                    writes,
                    first,
                });
            }
            x => return err(no, format!("unknown statement {:?}", x)),
        }
    }
    if !inp.exporters.iter().any(|e| !e.invalid) {
        return err(lines[0].no, "at least one `exporter` that is valid");
    }
    inp.events = next - 1;
    Ok(inp)
}

// ---- values and ids --------------------------------------------------------------------------


/// The ids the next span gets: the inputs' (queued before each start), else 1, 2, 3 ...
#[derive(Debug, Default)]
struct Ids {
    next_trace: Mutex<(VecDeque<TraceId>, u128)>,
    next_span: Mutex<(VecDeque<SpanId>, u64)>,
}

static IDS: std::sync::OnceLock<Ids> = std::sync::OnceLock::new();

fn ids() -> &'static Ids {
    IDS.get_or_init(Ids::default)
}

#[derive(Debug)]
struct InputIds;

impl IdGenerator for InputIds {
    fn new_trace_id(&self) -> TraceId {
        let mut g = ids().next_trace.lock().unwrap();
        g.0.pop_front().unwrap_or_else(|| {
            g.1 += 1;
            TraceId::from(g.1)
        })
    }
    fn new_span_id(&self) -> SpanId {
        let mut g = ids().next_span.lock().unwrap();
        g.0.pop_front().unwrap_or_else(|| {
            g.1 += 1;
            SpanId::from(g.1)
        })
    }
}

// ---- running ---------------------------------------------------------------------------------

/// The provider of the file's exporters, resource and limits; each exporter added is noted on
/// `r` (none for emit --bench, whose stdout holds only its bench line).
fn provider(inp: &Inputs, r: Option<&Report>) -> SdkTracerProvider {
    let mut b: TracerProviderBuilder = SdkTracerProvider::builder().with_id_generator(InputIds);
    if let Some(n) = inp.max_attributes {
        b = b.with_max_attributes_per_span(n);
    }
    let attrs: Vec<KeyValue> = inp.resource.iter().map(|(k, v)| KeyValue::new(k.clone(), value(v))).collect();
    if let Some(res) = resource(inp.resource_base, attrs) {
        b = b.with_resource(res);
    }
    for e in &inp.exporters {
        let (with, said) = add_exporter(b, &e.provider);
        b = with;
        let Some(r) = r else { continue };
        r.note(
            e.line,
            &format!("{}{}", said, if e.invalid { ": an invalid name, expected to add no exporter" } else { "" }),
        );
    }
    b.build()
}

/// The user_events exporter added to the builder as the release documents it, and what was
/// called. 0.5.0: UserEventsTracerProviderBuilderExt::with_user_events_exporter, which
/// returns the builder either way (an invalid name is logged, otel_warn!, and no exporter is
/// added: src/trace/mod.rs:47-58). From 0.6.0 (the emitter's feature `processor`, which
/// impl/otel-trace/versions/0.6.0/Cargo.toml turns on): Processor::builder(name).build(),
/// which returns an invalid configuration to the caller (CHANGELOG 0.6.0), then
/// with_span_processor.
#[cfg(not(feature = "processor"))]
pub fn add_exporter(b: TracerProviderBuilder, name: &str) -> (TracerProviderBuilder, String) {
    use opentelemetry_user_events_trace::UserEventsTracerProviderBuilderExt;
    (b.with_user_events_exporter(name), format!("with_user_events_exporter({:?})", name))
}

#[cfg(feature = "processor")]
pub fn add_exporter(b: TracerProviderBuilder, name: &str) -> (TracerProviderBuilder, String) {
    match opentelemetry_user_events_trace::Processor::builder(name).build() {
        Ok(p) => (b.with_span_processor(p), format!("Processor::builder({:?}).build(): Ok", name)),
        Err(e) => (b, format!("Processor::builder({:?}).build(): Err({})", name, e)),
    }
}

fn start(tracer: &SdkTracer, d: &SpanDef, open: &HashMap<String, Context>) -> Result<Context, String> {
    let parent_cx = match &d.parent {
        Parent::Root => Context::new(),
        Parent::Span(p) => open.get(p).cloned().ok_or_else(|| format!("no open span {:?}", p))?,
        Parent::Remote(sc) => Context::new().with_remote_span_context(sc.clone()),
    };
    let span = start_span(tracer, d, &parent_cx);
    Ok(parent_cx.with_span(span))
}

/// The span of a `span` statement started under `parent_cx`: the SpanBuilder's calls (kind,
/// attributes, start time, links), then its events and status. emit --bench times this.
fn start_span(tracer: &SdkTracer, d: &SpanDef, parent_cx: &Context) -> SdkSpan {
    if let Some(t) = d.trace_id {
        ids().next_trace.lock().unwrap().0.push_back(t);
    }
    if let Some(s) = d.span_id {
        ids().next_span.lock().unwrap().0.push_back(s);
    }
    let mut b = tracer.span_builder(d.name.clone()).with_kind(d.kind.clone()).with_attributes(kvs(&d.attrs));
    if let Some(t) = d.start {
        b = b.with_start_time(t);
    }
    if !d.links.is_empty() {
        b = b.with_links(d.links.iter().map(|(sc, a)| Link::new(sc.clone(), kvs(a), 0)).collect());
    }
    let mut span = b.start_with_context(tracer, parent_cx);
    // Queued ids the SDK did not take (a child takes no trace id) must not leak to the next.
    ids().next_trace.lock().unwrap().0.clear();
    ids().next_span.lock().unwrap().0.clear();
    for (name, time, a) in &d.events {
        match time {
            Some(t) => span.add_event_with_timestamp(name.clone(), *t, kvs(a)),
            None => span.add_event(name.clone(), kvs(a)),
        }
    }
    match &d.status {
        None => {}
        Some(StatusDef::Unset) => span.set_status(Status::Unset),
        Some(StatusDef::Ok) => span.set_status(Status::Ok),
        Some(StatusDef::Error(s)) => span.set_status(Status::error(s.clone())),
    }
    span
}

fn main() {
    ehconf_emit::emit_main(otel::emitter(|| Box::new(contract_api::TraceApi::default()), |n, f| bench_api::run(n, f), |p| run(p)))
}

/// The inputs file at path; ends the process (process::exit: no destructor runs, so a
/// provider the file did not shut down is not shut down at exit either).
fn run(path: &str) -> ! {
    let inp = statements::read_inputs(path, parse);
    clock::pin_start(inp.clock);
    let r = Report::default();
    let provider = provider(&inp, Some(&r));
    let tracer = provider.tracer("ehconf");
    // Started spans, each as the Context that holds it (a child's parent).
    let mut open: HashMap<String, Context> = HashMap::new();
    for s in &inp.steps {
        match s {
            Step::Clock(secs, nanos) => clock::pin(*secs, *nanos),
            Step::Start(d) => match report::guarded(inp.catch, || start(&tracer, d, &open)) {
                Ok(Ok(cx)) => {
                    open.insert(d.id.clone(), cx);
                }
                Ok(Err(why)) | Err(why) => r.step_error(d.line, &format!("span {:?}: {}", d.id, why)),
            },
            Step::End { line, id, time, writes, first } => {
                let outcome = match open.get(id) {
                    None => Err(format!("line {}: no open span {:?}", line, id)),
                    Some(cx) => report::guarded(inp.catch, || {
                        let span = cx.span();
                        match time {
                            Some(t) => span.end_with_timestamp(*t),
                            None => span.end(),
                        }
                    }),
                };
                if *writes == 0 {
                    match &outcome {
                        Ok(()) => r.note(*line, &format!("span {:?} ended (expects no event)", id)),
                        Err(why) => r.step_error(*line, why),
                    }
                }
                r.events(*first, *writes, &outcome);
            }
        }
    }
    let code = r.finish(inp.events);
    drop(open);
    let _ = report::guarded(true, || provider.shutdown());
    process::exit(code);
}
