// SPDX-License-Identifier: GPL-2.0
// What every OpenTelemetry emitter shares (ehconf_emit::otel): impl/otel-*/src/main.rs
// `use ehconf_emit::otel::{...}` what they call, and expand otel_values! for what needs the
// OpenTelemetry crates, so that an emitter's own files are its API and its inputs.

/// The command line of every OpenTelemetry emitter (Emitter::usage), and the variables its
/// SDK's resource detectors read, which the emitters remove (Emitter::unset): the inputs
/// alone say what the resource is.
pub const USAGE: &str = "emit <file.inputs> | emit --contract | emit --bench COUNT <file.inputs>";
pub const RESOURCE_VARIABLES: [&str; 2] = ["OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"];

/// An OpenTelemetry emitter for emit_main: this USAGE and RESOURCE_VARIABLES, the emitter's
/// contract calls, bench loop and run (`Emitter { unset: ..., ..otel::emitter(...) }` for
/// more variables).
pub fn emitter(
    contract: fn() -> Box<dyn crate::contract::Api>,
    bench: fn(u64, &str) -> i32,
    run: fn(&str) -> i32,
) -> crate::Emitter {
    crate::Emitter { usage: USAGE, unset: &RESOURCE_VARIABLES, contract, bench, run }
}

// clock and seed interpose libc's clock_gettime and getrandom (#[no_mangle]): only the
// emitters that enable the crate's `otel` feature link them.
pub mod clock;
pub mod report;
pub mod seed;
pub mod statements;
pub mod words;

/// What the OpenTelemetry emitters share that is made of the OpenTelemetry crates' types,
/// expanded in the emitter (`ehconf_emit::otel_values!();` at the top of its main.rs), so
/// that it is compiled against the opentelemetry and opentelemetry_sdk versions that
/// emitter's Cargo.lock pins, whichever release of the exporter it builds; ehconf-emit
/// itself depends on neither. It defines the module `otel_values` in the emitter's crate
/// root, holding:
///   resource(base, attrs)  the resource a provider is built with (`resource_base`, the
///                          `resource` lines), None: no with_resource call
///   scalar_value(v)        an inputs value as an attribute Value; None for the kinds only a
///                          log value has (bytes, lists, maps: the logs emitter's AnyValue)
///   value(v), kvs(a)       an inputs value, and keyed ones, as span or metric attributes
///                          (a log-only kind becomes its text)
#[macro_export]
macro_rules! otel_values {
    () => {
        #[allow(dead_code)]
        mod otel_values {
            pub fn resource(
                base: $crate::otel::statements::ResourceBase,
                attrs: Vec<::opentelemetry::KeyValue>,
            ) -> Option<::opentelemetry_sdk::Resource> {
                use $crate::otel::statements::ResourceBase;
                match base {
                    ResourceBase::Empty => Some(::opentelemetry_sdk::Resource::builder_empty().with_attributes(attrs).build()),
                    ResourceBase::Default => Some(::opentelemetry_sdk::Resource::builder().with_attributes(attrs).build()),
                    ResourceBase::None => None,
                }
            }

            pub fn scalar_value(v: &$crate::otel::words::Val) -> Option<::opentelemetry::Value> {
                use $crate::otel::words::Val;
                use ::opentelemetry::{Array, StringValue, Value};
                Some(match v {
                    Val::Int(i) => Value::I64(*i),
                    Val::Double(d) => Value::F64(*d),
                    Val::Bool(b) => Value::Bool(*b),
                    Val::Str(s) => Value::String(s.clone().into()),
                    Val::ArrBool(a) => Value::Array(Array::Bool(a.clone())),
                    Val::ArrInt(a) => Value::Array(Array::I64(a.clone())),
                    Val::ArrDouble(a) => Value::Array(Array::F64(a.clone())),
                    Val::ArrStr(a) => Value::Array(Array::String(a.iter().map(|s| StringValue::from(s.clone())).collect())),
                    Val::Bytes(_) | Val::List(_) | Val::Map(_) => return None,
                })
            }

            pub fn value(v: &$crate::otel::words::Val) -> ::opentelemetry::Value {
                scalar_value(v).unwrap_or_else(|| ::opentelemetry::Value::String(format!("{:?}", v).into()))
            }

            pub fn kvs(a: &[(String, $crate::otel::words::Val)]) -> Vec<::opentelemetry::KeyValue> {
                a.iter().map(|(k, v)| ::opentelemetry::KeyValue::new(k.clone(), value(v))).collect()
            }
        }
    };
}
