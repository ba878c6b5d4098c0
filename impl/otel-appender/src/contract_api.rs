// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through tracing, the bridge layer and the user_events logs exporter
// (Documentation/impl-contract.md; the loop, fork and thread-register are
// emitlib/rust/contract.rs's). What a service has for each command:
//
//   register         Processor::builder("EhconfContract").build() in a new SdkLoggerProvider
//                    (empty resource), and a tracing Dispatch of the registry with
//                    OpenTelemetryTracingBridge::new(&provider): `ok`, or `error 22` when
//                    build() refuses. It registers EhconfContract_L1K1 ... _L5K1. The clock is
//                    pinned to a whole second (2023-11-14T22:13:20): the bridge sets no
//                    timestamp, so PartA's time is the SDK's observed one, and its fraction
//                    digits would move the event's size between the size row's writes.
//   unregister       SdkLoggerProvider::shutdown(): `ok`, or `error 5` (an OTelSdkError).
//   enabled          tracing's own question, event_enabled!(target: "EhconfContract",
//                    Level::INFO) under that Dispatch: what a service can ask before it builds
//                    an event (the bridge asks Logger::event_enabled inside on_event, which
//                    tracing never sees)
//   write <seq> <n>  info!(name: "Contract", target: "EhconfContract", seq, pad) under that
//                    Dispatch (a real macro call site): `none`, the macros return nothing.

use opentelemetry_appender_tracing::layer::OpenTelemetryTracingBridge;
use opentelemetry_sdk::logs::SdkLoggerProvider;
use opentelemetry_sdk::Resource;
use opentelemetry_user_events_logs::Processor;
use tracing::Dispatch;
use tracing_subscriber::layer::SubscriberExt;

use ehconf_emit::contract::{Api, WRITE_NONE};
use ehconf_emit::otel::clock;

#[derive(Default)]
pub struct AppenderApi {
    provider: Option<(SdkLoggerProvider, Dispatch)>,
}

impl Api for AppenderApi {
    fn register(&mut self) -> i32 {
        match Processor::builder("EhconfContract").build() {
            Ok(p) => {
                clock::pin(1_700_000_000, 0);
                let provider = SdkLoggerProvider::builder()
                    .with_resource(Resource::builder_empty().build())
                    .with_log_processor(p)
                    .build();
                let d = Dispatch::new(tracing_subscriber::registry().with(OpenTelemetryTracingBridge::new(&provider)));
                self.provider = Some((provider, d));
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
            Some((_, d)) => tracing::dispatcher::with_default(d, || {
                tracing::event_enabled!(target: "EhconfContract", tracing::Level::INFO)
            }),
            None => false,
        })
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        if let Some((_, d)) = &self.provider {
            let pad = String::from_utf8_lossy(pad);
            tracing::dispatcher::with_default(d, || {
                tracing::info!(name: "Contract", target: "EhconfContract", seq = seq as i64, pad = &*pad);
            });
        }
        WRITE_NONE
    }
}
