// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.inputs (ehconf_emit::bench, make bench-impls) through
// OpenTelemetry's span exporter: the file's exporters added to one SdkTracerProvider as the
// conformance run adds them (provider()); each `span` statement followed by its `end`
// started and ended COUNT times in a row the way an instrumented function makes a span: the
// SpanBuilder with its attributes started under its parent's context (start_span, the
// conformance run's calls), then Span::end, which returns nothing (no write is counted
// failed); the exporter writes the span when it ends. The SDK has no enabled check to ask
// first (Documentation/producers-otel.md §5.2): with nobody listening the span is still
// built, ended and handed to the exporter, which drops it at its event-set check. What is
// looked up once is looked up before the loop: the tracer, and the parent's context (a root's,
// or a remote parent's). Only root and remote parents, no clock: the workloads have neither.

use ehconf_emit::bench;
use super::{parse, provider, start_span, Parent, Step};
use opentelemetry::trace::{Span as _, TraceContextExt, TracerProvider as _};
use opentelemetry::Context;
use std::process;

pub fn run(count: u64, path: &str) -> ! {
    // std's HashMap keys fixed before the first map (emitlib/rust/otel/seed.rs).
    super::seed::pin();
    let inp = super::statements::read_inputs(path, parse);
    let refuse = |why: &str| -> ! {
        eprintln!("{}: emit --bench times `span` statements each followed by its `end`: {}", path, why);
        process::exit(2)
    };
    if let Some((s, n)) = inp.clock {
        super::clock::pin(s, n);
    }
    let provider = provider(&inp, None);
    let tracer = provider.tracer("ehconf");
    let mut ordinal = 0;
    let mut steps = inp.steps.iter();
    while let Some(s) = steps.next() {
        let Step::Start(d) = s else { refuse("a statement other than `span` first") };
        let time = match steps.next() {
            Some(Step::End { id, time, .. }) if *id == d.id => *time,
            _ => refuse(&format!("span {:?} is not followed by its `end`", d.id)),
        };
        let parent_cx = match &d.parent {
            Parent::Root => Context::new(),
            Parent::Remote(sc) => Context::new().with_remote_span_context(sc.clone()),
            Parent::Span(p) => refuse(&format!("span {:?} has a parent of the file ({:?})", d.id, p)),
        };
        ordinal += 1;
        bench::time(ordinal, count, || {
            let mut span = start_span(&tracer, d, &parent_cx);
            match time {
                Some(t) => span.end_with_timestamp(t),
                None => span.end(),
            }
            false
        });
    }
    let _ = provider.shutdown();
    process::exit(0);
}
