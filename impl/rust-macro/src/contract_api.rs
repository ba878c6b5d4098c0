// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through the eventheader crate's macros (ehconf_emit::contract
// runs the protocol): a define_provider! static, its unsafe register() and unregister(),
// provider_enabled! and one write_event! call site. provider_enabled! adds an inert
// tracepoint of the same name (EhconfContract_L4K1) to the provider, so register() registers
// two tracepoints and answers the first error.

use eventheader::{define_provider, provider_enabled, write_event, Level};

use ehconf_emit::contract::Api;

define_provider!(CONTRACT, "EhconfContract");

pub struct Macro;

impl Api for Macro {
    /// A second call while registered panics (the crate asserts it): not caught, see
    /// contract.rs.
    fn register(&mut self) -> i32 {
        // Safety: the static is never unloaded (no shared object), so it may stay registered.
        unsafe { CONTRACT.register() as i32 }
    }

    fn unregister(&mut self) -> i32 {
        CONTRACT.unregister() as i32
    }

    fn enabled(&self) -> Option<bool> {
        Some(provider_enabled!(CONTRACT, Level::Informational, 0x1))
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        write_event!(
            CONTRACT,
            "Contract",
            level(Informational),
            keyword(0x1),
            u32("seq", &seq),
            str8("pad", pad)
        ) as i32
    }
}
