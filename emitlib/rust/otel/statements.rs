// SPDX-License-Identifier: GPL-2.0
//
// What the three OpenTelemetry inputs families share beyond words.rs's words and values
// (Documentation/producers-otel.md §2.1): the statements `clock`, `resource_base` and
// `panics`, read alike in each; and reading an inputs file, which ends the emitter with
// `file:line: reason` and status 2 when it cannot be parsed (the conformance run and
// `--bench` alike). The resource a provider is built with and an inputs value as an
// attribute Value are made of the OpenTelemetry crates' types: otel_values! (otel/mod.rs).

use std::process;

use super::words::{self, err, ParseError};

/// The resource a provider is built with (`resource_base`; the default is Empty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResourceBase {
    /// Resource::builder_empty(): only the `resource` lines.
    Empty,
    /// Resource::builder(): the SDK's detectors (service.name unknown_service, telemetry.sdk.*).
    Default,
    /// No with_resource call: what the provider's builder has by itself.
    None,
}

/// `resource_base empty|default|none`.
pub fn resource_base(w: &[String], no: usize) -> Result<ResourceBase, ParseError> {
    match (w.get(1).map(String::as_str), w.len()) {
        (Some("empty"), 2) => Ok(ResourceBase::Empty),
        (Some("default"), 2) => Ok(ResourceBase::Default),
        (Some("none"), 2) => Ok(ResourceBase::None),
        _ => err(no, "resource_base empty|default|none"),
    }
}

/// `clock <unix seconds>[.<fraction>]`.
pub fn clock(w: &[String], no: usize) -> Result<(i64, u32), ParseError> {
    if w.len() != 2 {
        return err(no, "clock <unix seconds>[.<fraction>]");
    }
    words::time(&w[1], no)
}

/// The file's statement lines, after its first, which must be `inputs <name>`.
pub fn statement_lines(text: &str) -> Result<Vec<words::Line>, ParseError> {
    let lines = words::lines(text);
    let Some(first) = lines.first() else {
        return err(1, "empty file: the first statement is `inputs <name>`");
    };
    if first.w[0] != "inputs" || first.w.len() != 2 {
        return err(first.no, "the first statement is `inputs <name>`");
    }
    Ok(lines)
}

/// A `clock` statement where it stands: before the first step it pins the clock the run
/// starts with (`start`), after it it is a step of its own (`step` makes it).
pub fn clock_at<S>(
    w: &[String],
    no: usize,
    in_steps: bool,
    start: &mut Option<(i64, u32)>,
    steps: &mut Vec<S>,
    step: fn(i64, u32) -> S,
) -> Result<(), ParseError> {
    let (s, n) = clock(w, no)?;
    if in_steps {
        steps.push(step(s, n));
    } else {
        *start = Some((s, n));
    }
    Ok(())
}

/// A setup statement (its first word one of `setup`) where the steps have begun: the error
/// `<word> comes before the first <step>`.
pub fn setup_first(w: &[String], no: usize, in_steps: bool, setup: &[&str], step: &str) -> Result<(), ParseError> {
    if in_steps && setup.contains(&w[0].as_str()) {
        return err(no, format!("{} comes before the first {}", w[0], step));
    }
    Ok(())
}

/// `panics catch|end`: whether a panic of a step is caught (true) or ends the emitter.
pub fn panics(w: &[String], no: usize) -> Result<bool, ParseError> {
    match (w.get(1).map(String::as_str), w.len()) {
        (Some("catch"), 2) => Ok(true),
        (Some("end"), 2) => Ok(false),
        _ => err(no, "panics catch|end"),
    }
}

/// The inputs file at path, parsed; exit 2 with the reason when it cannot be read or parsed.
pub fn read_inputs<T>(path: &str, parse: impl FnOnce(&str) -> Result<T, ParseError>) -> T {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{}: {}", path, e);
        process::exit(2)
    });
    parse(&text).unwrap_or_else(|e| {
        eprintln!("{}:{}: {}", path, e.line, e.why);
        process::exit(2)
    })
}
