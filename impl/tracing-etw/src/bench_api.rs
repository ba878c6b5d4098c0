// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.inputs (ehconf_emit::bench, make bench-impls) through
// tracing-etw: the file's layers installed as the conformance run installs them; each
// `event` statement COUNT times in a row the way `event!` writes one on a hot path: the
// callsite registered once and the values owned once (a user's are in variables), then per
// write the checks the macro makes (enabled(): the max level, the callsite's interest,
// Dispatch::enabled, which asks the layer) and, when enabled, Event::dispatch. Spans and
// etw_event! statements are not timed (the workloads have none).

use ehconf_emit::bench;
use super::inputs::{self, Step};
use super::{callsite, enabled, install, owned, Owned};
use std::process;
use tracing::field::Value;
use tracing::metadata::Kind;
use tracing::Event;

/// The exit status.
pub fn run(count: u64, path: &str) -> i32 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{}: {}", path, e);
        process::exit(2)
    });
    let inputs = inputs::parse(&text).unwrap_or_else(|e| {
        eprintln!("{}:{}: {}", path, e.line, e.why);
        process::exit(2)
    });
    if !install(&inputs) {
        process::exit(1);
    }
    let mut ordinal = 0;
    for s in &inputs.steps {
        let e = match s {
            Step::Event(e) if !e.etw => e,
            _ => {
                eprintln!("{}: emit --bench times plain `event` statements only", path);
                process::exit(2)
            }
        };
        ordinal += 1;
        let cs = callsite(&e.name, &e.target, e.level, &e.fields, Kind::EVENT, e.line);
        let vals: Vec<Owned> = e.fields.iter().map(|f| owned(&f.val)).collect();
        let opts: Vec<Option<&dyn Value>> = vals.iter().map(|v| Some(v.as_value())).collect();
        // event! returns nothing and the layer drops the write's result: nothing can fail.
        bench::time(ordinal, count, || {
            if let Ok(meta) = enabled(cs) {
                Event::dispatch(meta, &meta.fields().value_set_all(&opts));
            }
            false
        });
    }
    0
}
