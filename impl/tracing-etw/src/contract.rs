// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through tracing-etw (Documentation/impl-contract.md). The one event is
// `tracing::event!(name: "Contract", target: "EhconfContract", Level::INFO, seq, pad)`
// through a layer of provider `EhconfContract` (default keyword 1: tracepoint
// EhconfContract_L4K1). What tracing-etw's API offers for each command
// (Documentation/producers-tracing.md §5):
//
//   register         LayerBuilder::new("EhconfContract").build(), in a registry made a
//                    Dispatch: `ok`, or `error 22` when build() refuses (EtwError, no errno)
//   unregister       no such call: the Dispatch (and with it the layer and its
//                    eventheader_dynamic Provider, whose Drop unregisters) is dropped: `ok`
//   enabled          tracing::enabled!(target: "EhconfContract", Level::INFO) under that
//                    Dispatch: the layer's filter asks the provider's EventSet (1 or 0)
//   write <seq> <n>  the event under that Dispatch: `none` (event! returns nothing;
//                    tracing-etw drops EventBuilder::write's result, user_events.rs:377)
//   fork, thread-register  as the protocol says, with the same calls
//
// emitlib/rust/contract.rs is not used: its Api::write returns an errno, and this API has
// none to give (`none` is the protocol's answer for that). The fork helper is shared.

use std::io::{self, BufRead, Write};

use tracing::{Dispatch, Level};
use tracing_subscriber::layer::SubscriberExt;

fn build() -> Result<Dispatch, String> {
    match tracing_etw::LayerBuilder::new("EhconfContract").build() {
        Ok(layer) => Ok(Dispatch::new(tracing_subscriber::registry().with(layer))),
        Err(e) => Err(e.to_string()),
    }
}

struct Api {
    dispatch: Option<Dispatch>,
}

impl Api {
    fn under<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.dispatch {
            Some(d) => tracing::dispatcher::with_default(d, f),
            None => f(),
        }
    }

    fn enabled(&self) -> u8 {
        self.under(|| tracing::enabled!(target: "EhconfContract", Level::INFO)) as u8
    }

    fn write(&self, seq: u32, pad: usize) -> String {
        let mut bytes = Vec::new();
        if bytes.try_reserve_exact(pad).is_err() {
            return libc::ENOMEM.to_string();
        }
        bytes.resize(pad, b'p');
        let pad = String::from_utf8(bytes).unwrap();
        self.under(|| {
            tracing::event!(name: "Contract", target: "EhconfContract", Level::INFO, seq = seq, pad = pad.as_str())
        });
        "none".into()
    }
}

fn registered(r: Result<Dispatch, String>, api: &mut Api) -> String {
    match r {
        Ok(d) => {
            api.dispatch = Some(d);
            "ok".into()
        }
        Err(why) => {
            eprintln!("emit: LayerBuilder::build: {}", why);
            format!("error {}", libc::EINVAL)
        }
    }
}

fn answer(api: &mut Api, line: &str) -> Option<String> {
    let w: Vec<&str> = line.split_ascii_whitespace().collect();
    Some(match w[..] {
        ["quit"] => return None,
        ["register"] => registered(build(), api),
        ["unregister"] => {
            api.dispatch = None;
            "ok".into()
        }
        ["enabled"] => api.enabled().to_string(),
        ["write", seq, pad] => match (seq.parse::<u32>(), pad.parse::<usize>()) {
            (Ok(seq), Ok(pad)) => api.write(seq, pad),
            _ => "error usage".into(),
        },
        ["fork", seq] => match seq.parse::<u32>() {
            Ok(seq) => {
                let child = |a: &Api| (format!("{} {}", a.enabled(), a.write(seq, 0)), 0);
                match crate::forked::run(&*api, child, |_| {}) {
                    Err((_, e)) => format!("error {}", e),
                    Ok((got, _)) if !got.is_empty() => format!("child {}", got),
                    Ok((_, st)) if libc::WIFSIGNALED(st) => format!("error child-signal-{}", libc::WTERMSIG(st)),
                    Ok((_, st)) => format!("error child-exit-{}", libc::WEXITSTATUS(st)),
                }
            }
            _ => "error usage".into(),
        },
        ["thread-register"] => {
            let r = std::thread::spawn(build).join();
            match r {
                Ok(r) => registered(r, api),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        _ => "error usage".into(),
    })
}

/// Answers stdin's commands until `quit` or its end, then exits 0.
pub fn run() -> ! {
    let mut api = Api { dispatch: None };
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Some(a) = answer(&mut api, &String::from_utf8_lossy(&line)) else {
            break;
        };
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "{}", a);
        let _ = out.flush();
    }
    std::process::exit(0)
}
