// SPDX-License-Identifier: GPL-2.0
//
// emit FILE.inputs | emit --contract: ehconf's emitter for @NAME@ (impl/@NAME@/), made by
// `make new-impl NAME=@NAME@ KIND=crates` from emitlib/templates/crates/. It starts as a
// working producer family over the eventheader_dynamic crate, so that it passes at once;
// replace the crate's calls with those of the producer you judge, its inputs with the ones
// its users give it (impl/@NAME@/inputs/), and what follows is the same:
//   - one line per expected event, `event <n> written` or `event <n> failed <why>`, event n
//     being line n of impl/@NAME@/expected/<input>.json;
//   - exit 0 when every event was written, 1 when one failed, 2 (and nothing written) for
//     an inputs file it cannot read, naming the file and line;
//   - `--contract`: the protocol of Documentation/impl-contract.md (the ehconf-emit crate,
//     emitlib/rust, runs it: ehconf_emit::emit_main). Until the producer's own calls are in
//     a src/contract_api.rs of this folder, the template answers with rust-dynamic's
//     eventheader_dynamic calls (linked below);
//   - `--bench COUNT FILE`: each event COUNT times, timed with ehconf_emit::bench::time
//     (make bench-impls); the template has none and says so.
//
// Its inputs, one statement per line (`#` starts a comment):
//   provider <name>                    the provider of the events after it
//   event <name> <level> <value>       one event at that level, keyword 1, one u32 field `value`

// rust-dynamic's contract calls, until this producer's own replace them.
#[path = "../../rust-dynamic/src/contract_api.rs"]
mod contract_api;

use eventheader_dynamic::{EventBuilder, FieldFormat, Level, Provider};
use ehconf_emit::Emitter;
use std::process;

enum Step {
    Provider(String),
    Event(String, u8, u32),
}

fn read(path: &str) -> Result<Vec<Step>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {}", path, e))?;
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let at = || format!("{}:{}", path, i + 1);
        match w.as_slice() {
            [] => {}
            [first, ..] if first.starts_with('#') => {}
            ["provider", name] => steps.push(Step::Provider(name.to_string())),
            ["event", name, level, value] => match (level.parse::<u8>(), value.parse::<u32>()) {
                (Ok(l), Ok(v)) if l > 0 => steps.push(Step::Event(name.to_string(), l, v)),
                _ => return Err(format!("{}: event <name> <level 1-255> <u32 value>", at())),
            },
            _ => return Err(format!("{}: expected `provider <name>` or `event <name> <level> <value>`", at())),
        }
    }
    Ok(steps)
}

/// `emit --bench COUNT FILE`: the template has no bench loop (make bench-impls lists it as
/// not measured); a producer's is each event COUNT times through ehconf_emit::bench::time.
fn bench(_count: u64, _file: &str) -> i32 {
    eprintln!("emit: --bench: not written yet (the template's emitter has no bench loop)");
    2
}

fn main() {
    ehconf_emit::emit_main(Emitter {
        usage: "emit <file.inputs> | emit --contract",
        unset: &[],
        contract: || Box::new(contract_api::Dynamic::new()),
        bench,
        run,
    })
}

/// The inputs file at path: the exit status.
fn run(path: &str) -> i32 {
    // The whole file is read first: one that cannot be read writes nothing.
    let steps = read(path).unwrap_or_else(|e| {
        eprintln!("{}", e);
        process::exit(2)
    });
    let mut provider: Option<Provider> = None;
    let (mut n, mut failed) = (0, 0);
    for step in steps {
        match step {
            Step::Provider(name) => provider = Some(Provider::new(&name, &Provider::new_options())),
            Step::Event(name, level, value) => {
                n += 1;
                let Some(p) = provider.as_mut() else {
                    println!("event {} failed no provider before it", n);
                    failed += 1;
                    continue;
                };
                let set = p.register_set(Level::from_int(level), 1);
                let e = EventBuilder::new()
                    .reset(&name, 0)
                    .add_value("value", value, FieldFormat::Default, 0)
                    .write(&set, None, None);
                if e == 0 {
                    println!("event {} written", n);
                } else {
                    println!("event {} failed write returned {}", n, e);
                    failed += 1;
                }
            }
        }
    }
    if failed > 0 {
        1
    } else {
        0
    }
}
