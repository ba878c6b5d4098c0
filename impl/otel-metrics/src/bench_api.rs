// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.inputs (ehconf_emit::bench, make bench-impls) through
// OpenTelemetry's metrics exporter. A metrics exporter has no "write an event" call: a
// measurement (Counter::add) only updates the SDK's aggregate for its attribute set, and an
// event is written when a collection runs (the periodic reader's timer, force_flush or
// shutdown), one per data point the collection holds (src/exporter/mod.rs:161-166). So
// what is timed is one collected data point: the file's measurements, then
// SdkMeterProvider::force_flush(), which collects and has the exporter write each data point;
// the workloads measure one attribute set per collection, so one data point, one event, per
// repetition (a Delta counter that measured nothing since the last collection has no data
// point, so each repetition's add makes the next one's). A program that adds many times
// between collections pays the add each time and the collection once per data point per
// interval: the figure is the add's cost plus the collection's, not what one add costs.
//
// The file's instruments are made once, before the loop (what a user makes once); then each
// group of `record` statements and the `collect` after it COUNT times in a row: each record
// with the conformance run's calls (its attributes made into KeyValues, then measure()), then
// force_flush (a repetition fails when it returns an error). Nobody listening: the SDK still
// collects and hands the data point to the exporter, which asks its tracepoint and writes
// nothing (src/exporter/mod.rs:593-596); force_flush is Ok. A `clock` before the first step
// pins the time as in the conformance run; no `observe`, `shutdown` or clock step: the
// workloads have none. The provider is not shut down at the end (shutdown
// collects once more), as the conformance run does not without a `shutdown` statement.

use ehconf_emit::bench;
use super::words::Val;
use super::{instrument, kvs, measure, number, parse, provider, Inst, Kind, Num, Observations, Step};
use std::collections::HashMap;
use std::process;

pub fn run(count: u64, path: &str) -> ! {
    // std's HashMap keys fixed before the first map: the SDK's aggregation costs the same in
    // every run (emitlib/rust/otel/seed.rs says why it would not).
    super::seed::pin();
    let inp = super::statements::read_inputs(path, parse);
    // `line` 0: the file as a whole (a clock step has no line).
    let refuse = |line: usize, why: &str| -> ! {
        let at = if line > 0 { format!("{}:{}", path, line) } else { path.to_string() };
        eprintln!("{}: emit --bench times `record` statements, each group ended by `collect`: {}", at, why);
        process::exit(2)
    };
    if let Some((s, n)) = inp.clock {
        super::clock::pin(s, n);
    }
    let (provider, meter) = provider(&inp);
    let obs: Observations = Default::default();
    let mut insts: HashMap<String, (Kind, Inst)> = HashMap::new();
    // The measurements since the last `collect`: instrument, value, attributes.
    let mut group: Vec<(&Inst, Num, &[(String, Val)])> = Vec::new();
    let mut ordinal = 0;
    for s in &inp.steps {
        match s {
            Step::Instrument(d) => {
                if d.kind.observable() {
                    refuse(d.line, "an observable instrument");
                }
                insts.insert(d.id.clone(), (d.kind, instrument(&meter, d, &obs)));
            }
            Step::Record { .. } | Step::Collect { .. } => {}
            Step::Observe { line, .. } | Step::Shutdown { line, .. } => refuse(*line, "`observe` or `shutdown`"),
            Step::Clock(..) => refuse(0, "a `clock` step"),
        }
    }
    for s in &inp.steps {
        match s {
            Step::Record { line, id, value, attrs } => {
                let (kind, inst) = &insts[id];
                let n = number(*kind, value, *line).unwrap_or_else(|e| refuse(e.line, &e.why));
                group.push((inst, n, attrs));
            }
            Step::Collect { line, .. } => {
                if group.is_empty() {
                    refuse(*line, "a `collect` with no `record` before it");
                }
                ordinal += 1;
                bench::time(ordinal, count, || {
                    let mut failed = false;
                    for (inst, n, a) in &group {
                        failed |= measure(inst, n, &kvs(a)).is_err();
                    }
                    failed | provider.force_flush().is_err()
                });
                group.clear();
            }
            _ => {}
        }
    }
    if !group.is_empty() {
        refuse(0, "`record` statements with no `collect` after them");
    }
    process::exit(0);
}
