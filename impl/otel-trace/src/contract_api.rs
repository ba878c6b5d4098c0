// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through opentelemetry-user-events-trace (Documentation/impl-contract.md;
// the loop: emitlib/rust/contract.rs). What the crate's API offers for each command
// (Documentation/producers-otel.md §5.2):
//
//   register         SdkTracerProvider::builder().with_user_events_exporter("EhconfContract")
//                    .build() (empty resource): always `ok`; the extension returns the builder
//                    whatever happens (an invalid name adds no exporter, src/trace/mod.rs:47-58)
//   unregister       SdkTracerProvider::shutdown(): `ok`, or `error 5` when the SDK returns an
//                    error (an OTelSdkError, no errno: EIO stands for it, the message on
//                    stderr). The provider object is kept; the next `register` replaces it.
//   enabled          `none`: neither the SDK's Tracer nor the crate has a check; the exporter
//                    asks its EventSet only inside export (src/trace/exporter.rs:181).
//   write <seq> <n>  a span "Contract" with attributes seq (I64) and pad (String), started and
//                    ended: `none` (Span::end returns nothing, and the processor drops the
//                    exporter's result, src/trace/reentrant_spanprocessor.rs:35)
//
// The event is `EhconfContract:Span` (tracepoint EhconfContract_L4K1) with `seq` and `pad` in
// its PartC.

use opentelemetry::trace::{Span as _, Tracer as _, TracerProvider as _};
use opentelemetry::KeyValue;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use opentelemetry_sdk::Resource;

use ehconf_emit::contract::{Api, WRITE_NONE};

#[derive(Default)]
pub struct TraceApi {
    provider: Option<(SdkTracerProvider, SdkTracer)>,
}

impl Api for TraceApi {
    fn register(&mut self) -> i32 {
        let b = SdkTracerProvider::builder().with_resource(Resource::builder_empty().build());
        let provider = crate::add_exporter(b, "EhconfContract").0.build();
        let tracer = provider.tracer("ehconf-contract");
        self.provider = Some((provider, tracer));
        0
    }

    fn unregister(&mut self) -> i32 {
        ehconf_emit::entry::shutdown("SdkTracerProvider::shutdown()", self.provider.as_ref().map(|(p, _)| p.shutdown()))
    }

    fn enabled(&self) -> Option<bool> {
        None
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        let pad = String::from_utf8_lossy(pad).into_owned();
        if let Some((_, t)) = &self.provider {
            // Fixed times: PartA time and PartB startTime have 0, 3, 6 or 9 fraction digits
            // as the clock reads, so the event's size would move by a few bytes between the
            // measurement of its unpadded size and the size row's writes.
            let start = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
            let mut span = t
                .span_builder("Contract")
                .with_start_time(start)
                .with_attributes([KeyValue::new("seq", seq as i64), KeyValue::new("pad", pad)])
                .start(t);
            span.end_with_timestamp(start + std::time::Duration::from_secs(1));
        }
        WRITE_NONE
    }
}
