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
//   - `--contract`: the protocol of Documentation/impl-contract.md (emitlib/rust/contract.rs
//     runs it). Until the producer's own calls are in a src/contract_api.rs of this folder,
//     the template answers with rust-dynamic's eventheader_dynamic calls (linked below).
//
// Its inputs, one statement per line (`#` starts a comment):
//   provider <name>                    the provider of the events after it
//   event <name> <level> <value>       one event at that level, keyword 1, one u32 field `value`

#[path = "../../../emitlib/rust/contract.rs"]
mod contract;
#[path = "../../rust-dynamic/src/contract_api.rs"]
mod contract_api;
#[path = "../../../emitlib/rust/forked.rs"]
mod forked;

use eventheader_dynamic::{EventBuilder, FieldFormat, Level, Provider};
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 2 && args[1] == "--contract" {
        contract::run(&mut contract_api::Dynamic::new());
    }
    if args.len() != 2 {
        eprintln!("usage: emit <file.inputs> | emit --contract");
        process::exit(2);
    }
    // The whole file is read first: one that cannot be read writes nothing.
    let steps = read(&args[1]).unwrap_or_else(|e| {
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
    process::exit(if failed > 0 { 1 } else { 0 });
}
