// SPDX-License-Identifier: GPL-2.0
//
// emit <file.inputs>: ehconf's emitter for OpenTelemetry's user_events metrics exporter,
// opentelemetry-user-events-metrics 0.13.0. The exporter writes one event per data point to
// the plain user_events tracepoint `otlp_metrics` (`u32 protocol; char[8] version; __rel_loc
// u8[] buffer`), the buffer an OTLP ExportMetricsServiceRequest in protobuf; it is not
// EventHeader, so captures are decoded by scripts/otlp-decode.py, not ehdecode.
//
// Its inputs are their own (impl/otel-metrics/inputs/*.inputs, Documentation/producers-
// otel.md §2.6): the resource, the meter, instruments of each kind, then measurements
// (record, observe) and collections (collect: SdkMeterProvider::force_flush, which has the
// periodic reader collect and the exporter export). The reader's interval is an hour, so
// only `collect` and `shutdown` export. Without a `shutdown` statement the emitter exits
// without shutting the provider down (what was measured after the last collect is lost, as in
// a program that exits without shutdown).
//
// `view <instrument name> exponential <max_size> <max_scale>` gives that instrument the SDK's
// Base2ExponentialHistogram aggregation through a View (SdkMeterProvider::with_view).
//
// `clock <seconds>` pins CLOCK_REALTIME (emitlib/rust/otel/clock.rs): the data points' start
// and end times are the clock's when an instrument was made and when a collection ran.
//
// Prints one line per golden event a statement accounts for (writes=, §2.5): `collect` and
// `shutdown` write writes=<n> (0 by default): `event <n> written` when force_flush (shutdown)
// returned Ok, `event <n> failed <why>` when it returned an error; `line <l>: ...` for the
// rest; then `emit: N written, 0 skipped, N failed`. Exit 0 when every event was written and
// every step held, 1 otherwise, 2 for an inputs file it cannot parse. `emit --contract`:
// src/contract_api.rs. `emit --bench COUNT <file.inputs>`: each group of measurements and the
// `collect` after it COUNT times, timed (src/bench_api.rs, make bench-impls).

use std::collections::HashMap;
use std::process;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter, MeterProvider as _, UpDownCounter};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::metrics::{Aggregation, Instrument, PeriodicReader, SdkMeterProvider, Stream};
use opentelemetry_user_events_metrics::MetricsExporter;

// What every OpenTelemetry emitter shares, from the ehconf-emit crate (emitlib/rust):
// the inputs' words and statements, the pinned clock, the report lines and emit_main; this
// crate's calls for emit --contract and --bench are in contract_api.rs and bench_api.rs.
use ehconf_emit::otel::{self, clock, report, seed, statements, words};
use ehconf_emit::Emitter;
mod bench_api;
mod contract_api;
// otel_values: the resource and the inputs' values as this crate's OpenTelemetry types
// (the opentelemetry version its Cargo.lock pins).
ehconf_emit::otel_values!();
use otel_values::{kvs, resource};

use report::Report;
use statements::ResourceBase;
use words::{err, opt, options, ParseError, Val};

// ---- the inputs ------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    U64Counter,
    F64Counter,
    I64UpDown,
    F64UpDown,
    U64Histogram,
    F64Histogram,
    U64Gauge,
    I64Gauge,
    F64Gauge,
    U64ObsCounter,
    F64ObsCounter,
    I64ObsUpDown,
    F64ObsUpDown,
    U64ObsGauge,
    I64ObsGauge,
    F64ObsGauge,
}

const KINDS: &[(&str, Kind)] = &[
    ("u64_counter", Kind::U64Counter),
    ("f64_counter", Kind::F64Counter),
    ("i64_up_down_counter", Kind::I64UpDown),
    ("f64_up_down_counter", Kind::F64UpDown),
    ("u64_histogram", Kind::U64Histogram),
    ("f64_histogram", Kind::F64Histogram),
    ("u64_gauge", Kind::U64Gauge),
    ("i64_gauge", Kind::I64Gauge),
    ("f64_gauge", Kind::F64Gauge),
    ("u64_observable_counter", Kind::U64ObsCounter),
    ("f64_observable_counter", Kind::F64ObsCounter),
    ("i64_observable_up_down_counter", Kind::I64ObsUpDown),
    ("f64_observable_up_down_counter", Kind::F64ObsUpDown),
    ("u64_observable_gauge", Kind::U64ObsGauge),
    ("i64_observable_gauge", Kind::I64ObsGauge),
    ("f64_observable_gauge", Kind::F64ObsGauge),
];

impl Kind {
    fn observable(self) -> bool {
        matches!(
            self,
            Kind::U64ObsCounter | Kind::F64ObsCounter | Kind::I64ObsUpDown | Kind::F64ObsUpDown
                | Kind::U64ObsGauge | Kind::I64ObsGauge | Kind::F64ObsGauge
        )
    }
}

#[derive(Clone, Debug)]
struct InstrumentDef {
    line: usize,
    id: String,
    kind: Kind,
    name: String,
    unit: Option<String>,
    description: Option<String>,
    bounds: Option<Vec<f64>>,
}

/// A measurement's number as the file gives it; each instrument takes its own type.
#[derive(Clone, Debug, PartialEq)]
enum Num {
    U(u64),
    I(i64),
    F(f64),
}

#[derive(Clone, Debug)]
enum Step {
    Instrument(InstrumentDef),
    Record { line: usize, id: String, value: String, attrs: Vec<(String, Val)> },
    /// What an observable instrument's callback reports from now on (replacing what it did).
    Observe { line: usize, id: String, points: Vec<(String, Vec<(String, Val)>)> },
    Collect { line: usize, writes: usize, first: usize },
    Shutdown { line: usize, writes: usize, first: usize },
    Clock(i64, u32),
}

/// `view <instrument name> exponential <max_size> <max_scale> [no-min-max]`: a View giving
/// that instrument the SDK's Base2ExponentialHistogram aggregation.
#[derive(Clone, Debug)]
struct ViewDef {
    name: String,
    max_size: u32,
    max_scale: i8,
    record_min_max: bool,
}

struct Inputs {
    clock: Option<(i64, u32)>,
    views: Vec<ViewDef>,
    resource_base: ResourceBase,
    resource: Vec<(String, Val)>,
    scope: (String, Option<String>),
    steps: Vec<Step>,
    events: usize,
}

/// `key=kind:value` words: a measurement's attributes.
fn attrs(w: &[String], line: usize) -> Result<Vec<(String, Val)>, ParseError> {
    w.iter()
        .map(|x| {
            let Some((k, kv)) = x.split_once('=') else {
                return err(line, format!("{:?}: an attribute is <key>=<kind>:<value>", x));
            };
            let Some((kind, v)) = kv.split_once(':') else {
                return err(line, format!("{:?}: an attribute is <key>=<kind>:<value>", x));
            };
            Ok((words::unescape(k, line)?, words::val(kind, v, line)?))
        })
        .collect()
}

fn parse(text: &str) -> Result<Inputs, ParseError> {
    let lines = statements::statement_lines(text)?;
    let mut inp = Inputs {
        clock: None,
        views: Vec::new(),
        resource_base: ResourceBase::Empty,
        resource: Vec::new(),
        scope: ("ehconf".into(), None),
        steps: Vec::new(),
        events: 0,
    };
    let (mut next, mut in_steps) = (1, false);
    let mut ids: HashMap<String, Kind> = HashMap::new();
    for l in &lines[1..] {
        let (no, w) = (l.no, &l.w);
        let counted = |o: &[(String, String)], next: &mut usize| -> Result<(usize, usize), ParseError> {
            let n = words::writes(o, 0, no)?;
            let first = if n > 0 { *next } else { 0 };
            *next += n;
            Ok((n, first))
        };
        statements::setup_first(w, no, in_steps, &["resource", "resource_base", "meter", "view"], "instrument")?;
        match w[0].as_str() {
            "clock" => statements::clock_at(w, no, in_steps, &mut inp.clock, &mut inp.steps, Step::Clock)?,
            "resource_base" => inp.resource_base = statements::resource_base(w, no)?,
            "resource" => inp.resource.push(words::keyed(&w[1..], no)?),
            "view" => {
                let usage = "view <instrument name> exponential <max_size> <max_scale> [no-min-max]";
                if !(w.len() == 5 || w.len() == 6) || w[2] != "exponential" || (w.len() == 6 && w[5] != "no-min-max") {
                    return err(no, usage);
                }
                inp.views.push(ViewDef {
                    name: words::unescape(&w[1], no)?,
                    max_size: words::num(&w[3], no, "a bucket count (u32)")?,
                    max_scale: words::num(&w[4], no, "a scale (-10..20)")?,
                    record_min_max: w.len() == 5,
                });
            }
            "meter" => {
                words::at_least(w, 2, no, "meter <scope name> [version=<v>]")?;
                let o = options(&w[2..], &["version"], no)?;
                inp.scope = (words::unescape(&w[1], no)?, opt(&o, "version").map(|v| words::unescape(v, no)).transpose()?);
            }
            "instrument" => {
                in_steps = true;
                if w.len() < 4 {
                    return err(no, "instrument <id> <kind> <name> [unit=] [description=] [bounds=a,b,c]");
                }
                let kind = KINDS
                    .iter()
                    .find(|(k, _)| *k == w[2])
                    .map(|(_, k)| *k)
                    .ok_or_else(|| ParseError { line: no, why: format!("unknown instrument kind {:?}", w[2]) })?;
                let o = options(&w[4..], &["unit", "description", "bounds"], no)?;
                if ids.insert(w[1].clone(), kind).is_some() {
                    return err(no, format!("instrument {} twice", w[1]));
                }
                inp.steps.push(Step::Instrument(InstrumentDef {
                    line: no,
                    id: w[1].clone(),
                    kind,
                    name: words::unescape(&w[3], no)?,
                    unit: opt(&o, "unit").map(|v| words::unescape(v, no)).transpose()?,
                    description: opt(&o, "description").map(|v| words::unescape(v, no)).transpose()?,
                    bounds: opt(&o, "bounds")
                        .map(|v| {
                            if v == "-" {
                                Ok(Vec::new())
                            } else {
                                v.split(',').map(|x| words::num::<f64>(x, no, "a bound")).collect()
                            }
                        })
                        .transpose()?,
                }));
            }
            "record" => {
                if w.len() < 3 {
                    return err(no, "record <instrument> <value> [<key>=<kind>:<value> ...]");
                }
                match ids.get(&w[1]) {
                    Some(k) if !k.observable() => {}
                    Some(_) => return err(no, "an observable instrument takes `observe`, not `record`"),
                    None => return err(no, format!("no instrument {:?} before this line", w[1])),
                }
                inp.steps.push(Step::Record { line: no, id: w[1].clone(), value: w[2].clone(), attrs: attrs(&w[3..], no)? });
            }
            "observe" => {
                // observe <id> <value> [attrs] [; <value> [attrs] ...] | observe <id> -
                if w.len() < 3 {
                    return err(no, "observe <instrument> <value> [attrs] [; <value> [attrs]] ... | observe <instrument> -");
                }
                match ids.get(&w[1]) {
                    Some(k) if k.observable() => {}
                    Some(_) => return err(no, "`observe` is for observable instruments"),
                    None => return err(no, format!("no instrument {:?} before this line", w[1])),
                }
                let mut points = Vec::new();
                if !(w.len() == 3 && w[2] == "-") {
                    for group in w[2..].split(|x| x == ";") {
                        if group.is_empty() {
                            return err(no, "an empty observation");
                        }
                        points.push((group[0].clone(), attrs(&group[1..], no)?));
                    }
                }
                inp.steps.push(Step::Observe { line: no, id: w[1].clone(), points });
            }
            "collect" | "shutdown" => {
                in_steps = true;
                let o = options(&w[1..], &["writes"], no)?;
                let (writes, first) = counted(&o, &mut next)?;
                inp.steps.push(if w[0] == "collect" {
                    Step::Collect { line: no, writes, first }
                } else {
                    Step::Shutdown { line: no, writes, first }
                });
            }
            x => return err(no, format!("unknown statement {:?}", x)),
        }
    }
    inp.events = next - 1;
    Ok(inp)
}

// ---- values ----------------------------------------------------------------------------------


fn number(kind: Kind, w: &str, line: usize) -> Result<Num, ParseError> {
    Ok(match kind {
        Kind::U64Counter | Kind::U64Histogram | Kind::U64Gauge | Kind::U64ObsCounter | Kind::U64ObsGauge => {
            Num::U(words::num(w, line, "a u64")?)
        }
        Kind::I64UpDown | Kind::I64Gauge | Kind::I64ObsUpDown | Kind::I64ObsGauge => Num::I(words::num(w, line, "an i64")?),
        _ => Num::F(words::num(w, line, "an f64")?),
    })
}

// ---- instruments -----------------------------------------------------------------------------

enum Inst {
    U64Counter(Counter<u64>),
    F64Counter(Counter<f64>),
    I64UpDown(UpDownCounter<i64>),
    F64UpDown(UpDownCounter<f64>),
    U64Histogram(Histogram<u64>),
    F64Histogram(Histogram<f64>),
    U64Gauge(Gauge<u64>),
    I64Gauge(Gauge<i64>),
    F64Gauge(Gauge<f64>),
    /// Observable: the SDK holds the instrument; the callback reads `Observations`.
    Observable,
}

/// What each observable instrument's callback reports: (value, attributes) per point.
type Observations = Arc<Mutex<HashMap<String, Vec<(Num, Vec<KeyValue>)>>>>;

macro_rules! build {
    ($b:expr, $d:expr) => {{
        let mut b = $b;
        if let Some(u) = &$d.unit {
            b = b.with_unit(u.clone());
        }
        if let Some(x) = &$d.description {
            b = b.with_description(x.clone());
        }
        b
    }};
}

macro_rules! observable {
    ($meter:expr, $method:ident, $d:expr, $obs:expr, $variant:ident) => {{
        let (obs, id) = ($obs.clone(), $d.id.clone());
        build!($meter.$method($d.name.clone()), $d)
            .with_callback(move |o| {
                for (v, a) in obs.lock().unwrap().get(&id).into_iter().flatten() {
                    if let Num::$variant(x) = v {
                        o.observe(*x, a);
                    }
                }
            })
            .build();
        Inst::Observable
    }};
}

fn instrument(meter: &Meter, d: &InstrumentDef, obs: &Observations) -> Inst {
    let n = d.name.clone();
    match d.kind {
        Kind::U64Counter => Inst::U64Counter(build!(meter.u64_counter(n), d).build()),
        Kind::F64Counter => Inst::F64Counter(build!(meter.f64_counter(n), d).build()),
        Kind::I64UpDown => Inst::I64UpDown(build!(meter.i64_up_down_counter(n), d).build()),
        Kind::F64UpDown => Inst::F64UpDown(build!(meter.f64_up_down_counter(n), d).build()),
        Kind::U64Histogram => {
            let mut b = build!(meter.u64_histogram(n), d);
            if let Some(bounds) = &d.bounds {
                b = b.with_boundaries(bounds.clone());
            }
            Inst::U64Histogram(b.build())
        }
        Kind::F64Histogram => {
            let mut b = build!(meter.f64_histogram(n), d);
            if let Some(bounds) = &d.bounds {
                b = b.with_boundaries(bounds.clone());
            }
            Inst::F64Histogram(b.build())
        }
        Kind::U64Gauge => Inst::U64Gauge(build!(meter.u64_gauge(n), d).build()),
        Kind::I64Gauge => Inst::I64Gauge(build!(meter.i64_gauge(n), d).build()),
        Kind::F64Gauge => Inst::F64Gauge(build!(meter.f64_gauge(n), d).build()),
        Kind::U64ObsCounter => observable!(meter, u64_observable_counter, d, obs, U),
        Kind::F64ObsCounter => observable!(meter, f64_observable_counter, d, obs, F),
        Kind::I64ObsUpDown => observable!(meter, i64_observable_up_down_counter, d, obs, I),
        Kind::F64ObsUpDown => observable!(meter, f64_observable_up_down_counter, d, obs, F),
        Kind::U64ObsGauge => observable!(meter, u64_observable_gauge, d, obs, U),
        Kind::I64ObsGauge => observable!(meter, i64_observable_gauge, d, obs, I),
        Kind::F64ObsGauge => observable!(meter, f64_observable_gauge, d, obs, F),
    }
}

fn measure(inst: &Inst, v: &Num, a: &[KeyValue]) -> Result<(), String> {
    match (inst, v) {
        (Inst::U64Counter(c), Num::U(x)) => c.add(*x, a),
        (Inst::F64Counter(c), Num::F(x)) => c.add(*x, a),
        (Inst::I64UpDown(c), Num::I(x)) => c.add(*x, a),
        (Inst::F64UpDown(c), Num::F(x)) => c.add(*x, a),
        (Inst::U64Histogram(h), Num::U(x)) => h.record(*x, a),
        (Inst::F64Histogram(h), Num::F(x)) => h.record(*x, a),
        (Inst::U64Gauge(g), Num::U(x)) => g.record(*x, a),
        (Inst::I64Gauge(g), Num::I(x)) => g.record(*x, a),
        (Inst::F64Gauge(g), Num::F(x)) => g.record(*x, a),
        _ => return Err("the value does not fit the instrument".into()),
    }
    Ok(())
}

pub fn reader(exporter: MetricsExporter) -> PeriodicReader<MetricsExporter> {
    // An hour: only force_flush and shutdown export during a run.
    PeriodicReader::builder(exporter).with_interval(Duration::from_secs(3600)).build()
}

/// The provider (the exporter in a reader of an hour, the resource) and the file's meter.
fn provider(inp: &Inputs) -> (SdkMeterProvider, Meter) {
    let mut b = SdkMeterProvider::builder().with_reader(reader(MetricsExporter::new()));
    for v in &inp.views {
        // The SDK's documented View (SdkMeterProvider::with_view): a Stream with the
        // exponential aggregation for the instrument of that name, no other change.
        let v = v.clone();
        b = b.with_view(move |i: &Instrument| {
            (i.name() == v.name).then(|| {
                Stream::builder()
                    .with_aggregation(Aggregation::Base2ExponentialHistogram {
                        max_size: v.max_size,
                        max_scale: v.max_scale,
                        record_min_max: v.record_min_max,
                    })
                    .build()
                    .ok()
            })?
        });
    }
    let res = kvs(&inp.resource);
    if let Some(res) = resource(inp.resource_base, res) {
        b = b.with_resource(res);
    }
    let provider = b.build();
    let mut scope = InstrumentationScope::builder(inp.scope.0.clone());
    if let Some(v) = &inp.scope.1 {
        scope = scope.with_version(v.clone());
    }
    let meter = provider.meter_with_scope(scope.build());
    (provider, meter)
}

/// The variables removed: the resource detectors' and the reader's interval (collections
/// happen where the inputs say, nowhere else).
const UNSET: [&str; 3] = [otel::RESOURCE_VARIABLES[0], otel::RESOURCE_VARIABLES[1], "OTEL_METRIC_EXPORT_INTERVAL"];

fn main() {
    let e = otel::emitter(|| Box::new(contract_api::MetricsApi::default()), |n, f| bench_api::run(n, f), |p| run(p));
    ehconf_emit::emit_main(Emitter { unset: &UNSET, ..e })
}

/// The inputs file at path; ends the process (process::exit: no destructor runs, so a
/// provider the file did not shut down is not shut down at exit either).
fn run(path: &str) -> ! {
    let inp = statements::read_inputs(path, parse);
    clock::pin_start(inp.clock);
    let r = Report::default();
    let (provider, meter) = provider(&inp);
    let obs: Observations = Arc::new(Mutex::new(HashMap::new()));
    let mut insts: HashMap<String, (Kind, Inst)> = HashMap::new();
    for s in &inp.steps {
        match s {
            Step::Clock(secs, nanos) => clock::pin(*secs, *nanos),
            Step::Instrument(d) => {
                insts.insert(d.id.clone(), (d.kind, instrument(&meter, d, &obs)));
                let _ = d.line;
            }
            Step::Record { line, id, value: v, attrs: a } => {
                let (kind, inst) = &insts[id];
                let outcome = number(*kind, v, *line).map_err(|e| e.why).and_then(|n| measure(inst, &n, &kvs(a)));
                if let Err(why) = outcome {
                    r.step_error(*line, &why);
                }
            }
            Step::Observe { line, id, points } => {
                let kind = insts[id].0;
                let mut got = Vec::new();
                for (v, a) in points {
                    match number(kind, v, *line) {
                        Ok(n) => got.push((n, kvs(a))),
                        Err(e) => r.step_error(*line, &e.why),
                    }
                }
                obs.lock().unwrap().insert(id.clone(), got);
            }
            Step::Collect { line, writes, first } | Step::Shutdown { line, writes, first } => {
                let shut = matches!(s, Step::Shutdown { .. });
                let res = if shut { provider.shutdown() } else { provider.force_flush() };
                let what = if shut { "SdkMeterProvider::shutdown" } else { "SdkMeterProvider::force_flush" };
                let outcome = res.map_err(|e| format!("{}: {}", what, e));
                match (&outcome, *writes) {
                    (Ok(()), 0) => r.note(*line, &format!("{}: Ok (expects no event)", what)),
                    (Err(why), 0) => r.note(*line, &format!("{} (expects no event)", why)),
                    _ => {}
                }
                r.events(*first, *writes, &outcome);
            }
        }
    }
    // No shutdown unless the file says so: process::exit runs no destructors, so the provider's
    // Drop (which would shut down and export once more) does not run.
    process::exit(r.finish(inp.events));
}
