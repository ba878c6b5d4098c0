// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through opentelemetry-user-events-metrics (Documentation/impl-contract.md;
// the loop: emitlib/rust/otel/contract.rs). The exporter has one fixed tracepoint,
// `otlp_metrics`, not the contract's EhconfContract_L4K1, and its events are OTLP protobuf,
// not EventHeader: the guest needs impl/otel-metrics/otlp-decode to find `seq` (the data
// point's value). What the API offers for each command (Documentation/producers-otel.md §5.3):
//
//   register         MetricsExporter::new() (registers otlp_metrics; the result is dropped,
//                    exporter/mod.rs:74) in a new SdkMeterProvider with a periodic reader, a
//                    meter and a u64 counter "Contract": always `ok`
//   unregister       SdkMeterProvider::shutdown(): `ok`, or `error sdk`. The provider is kept
//                    (the exporter's shutdown does nothing; its tracepoint goes when it is
//                    dropped, exporter/mod.rs:610-614); the next `register` replaces it.
//   enabled          `none`: no API asks the tracepoint (the exporter asks inside export,
//                    exporter/mod.rs:593)
//   write <seq> <n>  Counter::add(seq, [pad=<n bytes>]), then SdkMeterProvider::force_flush():
//                    `0` when it returned Ok (also when the tracepoint was disabled and nothing
//                    was written, exporter/mod.rs:593-596), `error sdk` when it returned an
//                    error (an event over 65,360 bytes is refused, exporter/mod.rs:432)

use opentelemetry::metrics::{Counter, MeterProvider as _};
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::Resource;
use opentelemetry_user_events_metrics::MetricsExporter;

use crate::contract::Api;

#[derive(Default)]
pub struct MetricsApi {
    provider: Option<(SdkMeterProvider, Counter<u64>)>,
}

impl Api for MetricsApi {
    fn register(&mut self) -> String {
        let provider = SdkMeterProvider::builder()
            .with_resource(Resource::builder_empty().build())
            .with_reader(crate::reader(MetricsExporter::new()))
            .build();
        let counter = provider.meter("ehconf-contract").u64_counter("Contract").build();
        self.provider = Some((provider, counter));
        "ok".into()
    }

    fn unregister(&mut self) -> String {
        match &self.provider {
            Some((p, _)) => match p.shutdown() {
                Ok(()) => "ok".into(),
                Err(e) => {
                    eprintln!("emit: SdkMeterProvider::shutdown(): {}", e);
                    "error sdk".into()
                }
            },
            None => "ok".into(),
        }
    }

    fn enabled(&self) -> String {
        "none".into()
    }

    fn write(&self, seq: u32, pad: &str) -> String {
        match &self.provider {
            Some((p, c)) => {
                c.add(seq as u64, &[KeyValue::new("pad", pad.to_string())]);
                match p.force_flush() {
                    Ok(()) => "0".into(),
                    Err(e) => {
                        eprintln!("emit: SdkMeterProvider::force_flush(): {}", e);
                        "error sdk".into()
                    }
                }
            }
            None => "none".into(),
        }
    }
}
