// SPDX-License-Identifier: GPL-2.0
//
// emit --bench COUNT FILE.events (ehconf_emit::bench, make bench-impls) through the
// eventheader_dynamic crate: the description's register and unregister steps as the
// conformance run takes them (Runner); each event COUNT times in a row the way a user of
// the crate writes one: the EventSet (register_set) and one EventBuilder once, then per
// write EventSet::enabled() and, when enabled, reset, the adds (add_field, the same calls
// the conformance run makes) and write.

use ehconf_emit::bench;
use ehconf_emit::desc::{self, read_types, Step};
use super::{write_event, EventBuilder, Runner, TYPES_TXT};
use std::collections::HashMap;
use std::process;
use std::sync::atomic::AtomicUsize;
use std::sync::Mutex;

/// The exit status.
pub fn run(count: u64, path: &str) -> i32 {
    let types = read_types(TYPES_TXT, std::mem::size_of::<usize>()).unwrap_or_else(|why| {
        eprintln!("emit: {}", why);
        process::exit(2)
    });
    let text = desc::read_or_exit(path);
    let steps = desc::parse(&text, &types).map(|d| d.unrolled()).unwrap_or_else(|e| {
        eprintln!("{}:{}: {}", path, e.line, e.why);
        process::exit(2)
    });
    let r = Runner {
        slots: Mutex::new(HashMap::new()),
        written: AtomicUsize::new(0),
        skipped: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
    };
    let mut failed = 0;
    for s in &steps {
        match s {
            Step::Register(k) => r.register(k),
            Step::Unregister(k) => r.unregister(k),
            Step::Event(e) => {
                let set = r.event_set(e).unwrap_or_else(|why| {
                    eprintln!("emit: bench: event {}: {}", e.ordinal, why);
                    process::exit(1)
                });
                let mut b = EventBuilder::new();
                failed += bench::time(e.ordinal, count, || {
                    if !set.enabled() {
                        return false;
                    }
                    write_event(&mut b, &set, e) != 0
                });
            }
            _ => {
                eprintln!("{}: emit --bench times events of the main flow only", path);
                process::exit(2)
            }
        }
    }
    r.slots.lock().unwrap().clear();
    if failed > 0 {
        1
    } else {
        0
    }
}
