// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` for @NAME@ (Documentation/impl-contract.md; emitlib/rust/contract.rs
// runs the protocol): the producer's register, unregister, enabled check and write of the
// contract's one event. The template's are eventheader_dynamic's; answer `None` from
// `enabled` and contract::WRITE_NONE from `write` where the producer's API has no answer.

use std::sync::Arc;

use eventheader_dynamic::{EventBuilder, EventSet, FieldFormat, Level, Provider};

use crate::contract::Api;

pub struct Template {
    provider: Option<Provider>,
    set: Arc<EventSet>,
}

impl Template {
    pub fn new() -> Self {
        Template { provider: None, set: Arc::new(EventSet::new_unregistered()) }
    }
}

impl Api for Template {
    fn register(&mut self) -> i32 {
        let p = self
            .provider
            .get_or_insert_with(|| Provider::new("EhconfContract", &Provider::new_options()));
        self.set = p.register_set(Level::Informational, 0x1);
        self.set.errno()
    }

    fn unregister(&mut self) -> i32 {
        if let Some(p) = self.provider.as_mut() {
            p.unregister();
        }
        0
    }

    fn enabled(&self) -> Option<bool> {
        Some(self.set.enabled())
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        EventBuilder::new()
            .reset("Contract", 0)
            .add_value("seq", seq, FieldFormat::Default, 0)
            .add_str("pad", pad, FieldFormat::Default, 0)
            .write(&self.set, None, None)
    }
}
