// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through opentelemetry-user-events-logs (Documentation/impl-contract.md; the
// loop, its grammar, fork and thread-register are emitlib/rust/contract.rs's, shared with the
// other Rust emitters). What the crate's API offers for each command
// (Documentation/producers-otel.md §5.1):
//
//   register         Processor::builder("EhconfContract").build() in a new SdkLoggerProvider
//                    (empty resource): `ok`, or `error 22` when build() refuses (a boxed
//                    error, no errno). It registers EhconfContract_L1K1 ... _L5K1.
//   unregister       SdkLoggerProvider::shutdown(), the SDK's call for it: `ok`, or `error 5`
//                    when the SDK returns an error (an OTelSdkError, no errno: EIO stands for
//                    it, the message on stderr). The provider object is kept, as an
//                    application's global provider is; the next `register` replaces it.
//   enabled          Logger::event_enabled(Severity::Info, "EhconfContract", Some("Contract")),
//                    which asks the exporter's EventSet for level 4 (0 with no provider)
//   write <seq> <n>  a record: severity Info, event name "Contract", attributes seq (Int) and
//                    pad (String): `none` (Logger::emit returns nothing, and the processor
//                    drops the exporter's result, src/logs/processor.rs:45)
//
// The event is `EhconfContract:Log` (tracepoint EhconfContract_L4K1) with `seq` and `pad`
// in its PartC, not at the top level: the crate names every event "Log" and puts attributes
// in PartC (§3.2).

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::Resource;
use opentelemetry_user_events_logs::Processor;

use ehconf_emit::contract::{Api, WRITE_NONE};

#[derive(Default)]
pub struct LogsApi {
    provider: Option<(SdkLoggerProvider, SdkLogger)>,
}

impl Api for LogsApi {
    fn register(&mut self) -> i32 {
        match Processor::builder("EhconfContract").build() {
            Ok(p) => {
                let provider = SdkLoggerProvider::builder()
                    .with_resource(Resource::builder_empty().build())
                    .with_log_processor(p)
                    .build();
                let logger = provider.logger("ehconf-contract");
                self.provider = Some((provider, logger));
                0
            }
            Err(e) => {
                eprintln!("emit: Processor::builder(\"EhconfContract\").build(): {}", e);
                libc::EINVAL
            }
        }
    }

    fn unregister(&mut self) -> i32 {
        ehconf_emit::entry::shutdown("SdkLoggerProvider::shutdown()", self.provider.as_ref().map(|(p, _)| p.shutdown()))
    }

    fn enabled(&self) -> Option<bool> {
        Some(match &self.provider {
            Some((_, l)) => l.event_enabled(Severity::Info, "EhconfContract", Some("Contract")),
            None => false,
        })
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        if let Some((_, l)) = &self.provider {
            let mut rec = l.create_log_record();
            rec.set_severity_number(Severity::Info);
            rec.set_event_name("Contract");
            // A fixed time: PartA's time text has 0, 3, 6 or 9 fraction digits as the clock
            // reads, so the event's size would move by a few bytes between the measurement of
            // its unpadded size and the size row's writes.
            rec.set_timestamp(contract_time());
            rec.add_attribute("seq", AnyValue::Int(seq as i64));
            rec.add_attribute("pad", AnyValue::String(String::from_utf8_lossy(pad).into_owned().into()));
            l.emit(rec);
        }
        WRITE_NONE
    }
}

/// The contract record's time, whole seconds (2023-11-14T22:13:20Z).
fn contract_time() -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000)
}
