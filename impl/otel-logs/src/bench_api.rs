// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.inputs (ehconf_emit::bench, make bench-impls) through
// OpenTelemetry's logs exporter: the file's processors installed in one SdkLoggerProvider as
// the conformance run installs them; each `record` statement COUNT times in a row the way an
// appender logs one: Logger::event_enabled (unless the record says check=no), then
// create_log_record, its fields (fill_record, the conformance run's calls) and Logger::emit,
// which returns nothing (no write is counted failed). Clock and context statements are not
// timed (the workloads have none).

use ehconf_emit::bench;
use super::{fill_record, install, parse, Step};
use opentelemetry::logs::{Logger as _, LoggerProvider as _};
use std::process;

pub fn run(count: u64, path: &str) -> ! {
    let inp = super::statements::read_inputs(path, parse);
    let r = super::Report::default();
    let Some(provider) = install(&inp, &r) else {
        process::exit(1);
    };
    let logger = provider.logger(inp.scope.clone());
    let mut ordinal = 0;
    for s in &inp.steps {
        let Step::Record(d) = s else {
            eprintln!("{}: emit --bench times `record` statements only", path);
            process::exit(2)
        };
        ordinal += 1;
        let target = d.target.clone().unwrap_or_default();
        bench::time(ordinal, count, || {
            if d.check {
                if let Some(sev) = d.severity {
                    if !logger.event_enabled(sev, &target, d.name) {
                        return false;
                    }
                }
            }
            let mut rec = logger.create_log_record();
            fill_record(&mut rec, d);
            logger.emit(rec);
            false
        });
    }
    let _ = provider.shutdown();
    process::exit(0);
}
