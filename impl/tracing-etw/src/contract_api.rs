// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through tracing-etw (Documentation/impl-contract.md; the loop, its
// grammar, fork and thread-register are emitlib/rust/contract.rs's, shared with the other
// Rust emitters). The one event is `tracing::event!(name: "Contract", target:
// "EhconfContract", Level::INFO, seq, pad)` through a layer of provider `EhconfContract`
// (default keyword 1: tracepoint EhconfContract_L4K1). What tracing-etw's API offers for
// each command (impl/tracing-etw/README.md §5):
//
//   register         LayerBuilder::new("EhconfContract").build(), in a registry made a
//                    Dispatch: `ok`, or `error 22` when build() refuses (EtwError, no errno)
//   unregister       no such call: the Dispatch (and with it the layer and its
//                    eventheader_dynamic Provider, whose Drop unregisters) is dropped: `ok`
//   enabled          tracing::enabled!(target: "EhconfContract", Level::INFO) under that
//                    Dispatch: the layer's filter asks the provider's EventSet (1 or 0)
//   write <seq> <n>  the event under that Dispatch: `none` (event! returns nothing;
//                    tracing-etw drops EventBuilder::write's result, user_events.rs:377)

use tracing::{Dispatch, Level};
use tracing_subscriber::layer::SubscriberExt;

use ehconf_emit::contract::{Api, WRITE_NONE};

pub struct Etw {
    dispatch: Option<Dispatch>,
}

impl Etw {
    pub fn new() -> Self {
        Etw { dispatch: None }
    }

    fn under<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.dispatch {
            Some(d) => tracing::dispatcher::with_default(d, f),
            None => f(),
        }
    }
}

impl Api for Etw {
    fn register(&mut self) -> i32 {
        match tracing_etw::LayerBuilder::new("EhconfContract").build() {
            Ok(layer) => {
                self.dispatch = Some(Dispatch::new(tracing_subscriber::registry().with(layer)));
                0
            }
            Err(e) => {
                eprintln!("emit: LayerBuilder::build: {}", e);
                libc::EINVAL
            }
        }
    }

    fn unregister(&mut self) -> i32 {
        self.dispatch = None;
        0
    }

    fn enabled(&self) -> Option<bool> {
        Some(self.under(|| tracing::enabled!(target: "EhconfContract", Level::INFO)))
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        let pad = String::from_utf8_lossy(pad);
        self.under(|| {
            tracing::event!(name: "Contract", target: "EhconfContract", Level::INFO,
                            seq = seq, pad = pad.as_ref())
        });
        WRITE_NONE
    }
}
