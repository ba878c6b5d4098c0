// SPDX-License-Identifier: GPL-2.0
//
// `emit --contract` through opentelemetry-user-events-metrics (Documentation/impl-contract.md;
// the loop: emitlib/rust/contract.rs). The exporter has one fixed tracepoint,
// `otlp_metrics`, not the contract's EhconfContract_L4K1, and its events are OTLP protobuf,
// not EventHeader: the guest needs scripts/otlp-decode.py to find `seq` (the data point's
// value, and its attribute `seq`, where harness/impl/contract_run.py's seqs_in looks). What the
// API offers for each command (Documentation/producers-otel.md §5.3):
//
//   register         MetricsExporter::new() (registers otlp_metrics; the result is dropped,
//                    src/exporter/mod.rs:74) in a new SdkMeterProvider with a periodic reader, a
//                    meter and a u64 counter "Contract": always `ok`
//   unregister       SdkMeterProvider::shutdown(): `ok`, or `error 5` (an OTelSdkError, no
//                    errno: EIO stands for it, the message on stderr). The provider is kept
//                    (the exporter's shutdown does nothing; its tracepoint goes when it is
//                    dropped, src/exporter/mod.rs:610-614); the next `register` replaces it.
//   enabled          `none`: no API asks the tracepoint (the exporter asks inside export,
//                    src/exporter/mod.rs:593)
//   write <seq> <n>  Counter::add(seq, [seq=<seq>, pad=<n bytes>]), then
//                    SdkMeterProvider::force_flush():
//                    `0` when it returned Ok (also when the tracepoint was disabled and nothing
//                    was written, src/exporter/mod.rs:593-596), `5` when it returned an
//                    error (EIO stands for the OTelSdkError; an event over 65,360 bytes is
//                    refused so, src/exporter/mod.rs:432)

use opentelemetry::metrics::{Counter, MeterProvider as _};
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::Resource;
use opentelemetry_user_events_metrics::MetricsExporter;

use ehconf_emit::contract::{Api, WRITE_NONE};

#[derive(Default)]
pub struct MetricsApi {
    provider: Option<(SdkMeterProvider, Counter<u64>)>,
}

impl Api for MetricsApi {
    fn register(&mut self) -> i32 {
        let provider = SdkMeterProvider::builder()
            .with_resource(Resource::builder_empty().build())
            .with_reader(crate::reader(MetricsExporter::new()))
            .build();
        let counter = provider.meter("ehconf-contract").u64_counter("Contract").build();
        self.provider = Some((provider, counter));
        0
    }

    fn unregister(&mut self) -> i32 {
        ehconf_emit::entry::shutdown("SdkMeterProvider::shutdown()", self.provider.as_ref().map(|(p, _)| p.shutdown()))
    }

    fn enabled(&self) -> Option<bool> {
        None
    }

    fn write(&self, seq: u32, pad: &[u8]) -> i32 {
        match &self.provider {
            Some((p, c)) => {
                // seq also as an attribute: each write is a data point of its own (a Delta
                // counter sums equal attribute sets), and the attribute names it.
                c.add(
                    seq as u64,
                    &[
                        KeyValue::new("seq", seq as i64),
                        KeyValue::new("pad", String::from_utf8_lossy(pad).into_owned()),
                    ],
                );
                match p.force_flush() {
                    Ok(()) => 0,
                    Err(e) => {
                        eprintln!("emit: SdkMeterProvider::force_flush(): {}", e);
                        libc::EIO
                    }
                }
            }
            None => WRITE_NONE,
        }
    }
}
