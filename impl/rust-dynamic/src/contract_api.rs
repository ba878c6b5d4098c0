// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through eventheader_dynamic (ehconf_emit::contract runs the
// protocol). As in the description emitter, `register` creates the Provider once and asks it
// for the (level 4, keyword 0x1) EventSet with register_set, the crate's only registering
// call; the EventSet it returned is kept and written to, as a user keeps it, so after
// `unregister` the writes go to the set the provider unregistered.

use std::sync::Arc;

use eventheader_dynamic::{EventBuilder, EventSet, FieldFormat, Level, Provider};

use ehconf_emit::contract::Api;

pub struct Dynamic {
    provider: Option<Provider>,
    set: Arc<EventSet>,
}

impl Dynamic {
    pub fn new() -> Self {
        // Before `register` there is no set: an unregistered one, never enabled.
        Dynamic {
            provider: None,
            set: Arc::new(EventSet::new_unregistered()),
        }
    }
}

impl Api for Dynamic {
    fn register(&mut self) -> i32 {
        let p = self
            .provider
            .get_or_insert_with(|| Provider::new("EhconfContract", &Provider::new_options()));
        self.set = p.register_set(Level::Informational, 0x1);
        self.set.errno()
    }

    /// Provider::unregister returns nothing: always `ok`.
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
