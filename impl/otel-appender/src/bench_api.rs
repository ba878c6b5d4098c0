// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.inputs (ehconf_emit::bench, make bench-impls) through tracing and
// the bridge layer: the file's processors installed as the conformance run installs them;
// each `event` statement's callsite made once, then the event dispatched COUNT times in a row
// as a macro call site in a loop would be (the checks, then Event::dispatch). Clock and
// context statements are not timed.

use ehconf_emit::bench;
use super::{callsite, dispatch, install, parse, Step};
use std::process;

pub fn run(count: u64, path: &str) -> ! {
    let inp = super::statements::read_inputs(path, parse);
    let r = super::Report::default();
    let Some(provider) = install(&inp, &r) else {
        process::exit(1);
    };
    let mut ordinal = 0;
    for s in &inp.steps {
        let Step::Event(e) = s else {
            eprintln!("{}: emit --bench times `event` statements only", path);
            process::exit(2)
        };
        ordinal += 1;
        let cs = callsite(e);
        bench::time(ordinal, count, || dispatch(cs, e).is_err());
    }
    let _ = provider.shutdown();
    process::exit(0);
}
