// SPDX-License-Identifier: GPL-2.0
//
// The words of impl/otel-*/inputs/<name>.inputs (Documentation/producers-otel.md §2): the
// tokenizer every producer family shares (emitlib/rust/words.rs, re-exported here) and the
// OpenTelemetry value kinds below, shared by the three OpenTelemetry emitters.
#![allow(dead_code)]

pub use crate::words::*;

/// Hex digits (no 0x) of exactly `len` bytes: trace ids (16), span ids (8).
pub fn hex_id(w: &str, len: usize, line: usize) -> Result<Vec<u8>, ParseError> {
    if w.len() != 2 * len {
        return err(line, format!("{:?} is not {} hex digits", w, 2 * len));
    }
    hex(w, line)
}

/// Hex pairs (`-`: none).
pub fn hex(w: &str, line: usize) -> Result<Vec<u8>, ParseError> {
    if w == "-" {
        return Ok(Vec::new());
    }
    if w.len() % 2 != 0 {
        return err(line, format!("{:?}: hex pairs", w));
    }
    (0..w.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&w[i..i + 2], 16)
                .map_err(|_| ParseError { line, why: format!("{:?} is not hex", w) })
        })
        .collect()
}

/// A time as `<unix seconds>[.<fraction, up to 9 digits>]`: (seconds, nanoseconds).
pub fn time(w: &str, line: usize) -> Result<(i64, u32), ParseError> {
    let (s, f) = w.split_once('.').unwrap_or((w, ""));
    let secs: i64 = num(s, line, "a number of seconds")?;
    if f.len() > 9 || !f.bytes().all(|c| c.is_ascii_digit()) {
        return err(line, format!("{:?}: at most 9 digits after the point", w));
    }
    let nanos = if f.is_empty() { 0 } else { num::<u32>(&format!("{:0<9}", f), line, "a fraction")? };
    Ok((secs, nanos))
}

/// A time as a SystemTime (seconds may not be negative).
pub fn system_time(w: &str, line: usize) -> Result<std::time::SystemTime, ParseError> {
    let (s, n) = time(w, line)?;
    if s < 0 {
        return err(line, "times before 1970 are not supported");
    }
    Ok(std::time::UNIX_EPOCH + std::time::Duration::new(s as u64, n))
}

/// An OpenTelemetry value, as the inputs give it (Documentation/producers-otel.md §2.2).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Int(i64),
    Double(f64),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    /// AnyValue::ListAny (logs)
    List(Vec<Val>),
    /// AnyValue::Map (logs): keys in the file's order
    Map(Vec<(String, Val)>),
    /// Value::Array (traces, metrics, resources)
    ArrBool(Vec<bool>),
    ArrInt(Vec<i64>),
    ArrDouble(Vec<f64>),
    ArrStr(Vec<String>),
}

fn list<T: std::str::FromStr>(v: &str, line: usize, what: &str) -> Result<Vec<T>, ParseError> {
    if v == "-" {
        return Ok(Vec::new());
    }
    v.split(',').map(|x| num(x, line, what)).collect()
}

/// `<kind>:<value>`, an element of a `list` or a `map` value.
fn item(s: &str, line: usize) -> Result<Val, ParseError> {
    let Some((k, v)) = s.split_once(':') else {
        return err(line, format!("{:?}: a list or map item is <kind>:<value>", s));
    };
    if matches!(k, "list" | "map") {
        return err(line, "lists and maps do not nest in the inputs");
    }
    val(k, v, line)
}

/// A value of a kind: int, double, bool, str, big (`<count>x<text>`: a long string), bytes,
/// list, map, arr-bool, arr-int, arr-double, arr-str.
pub fn val(kind: &str, v: &str, line: usize) -> Result<Val, ParseError> {
    Ok(match kind {
        "int" => Val::Int(num(v, line, "an i64")?),
        "double" => Val::Double(num(v, line, "an f64")?),
        "bool" => Val::Bool(num(v, line, "true or false")?),
        "str" => Val::Str(unescape(v, line)?),
        "big" => Val::Str(big_text(v, line)?),
        "bytes" => Val::Bytes(hex(v, line)?),
        "list" => Val::List(if v == "-" {
            Vec::new()
        } else {
            v.split(',').map(|x| item(x, line)).collect::<Result<_, _>>()?
        }),
        "map" => Val::Map(if v == "-" {
            Vec::new()
        } else {
            v.split(',')
                .map(|x| {
                    let Some((key, it)) = x.split_once('=') else {
                        return err(line, format!("{:?}: a map item is <key>=<kind>:<value>", x));
                    };
                    Ok((unescape(key, line)?, item(it, line)?))
                })
                .collect::<Result<_, _>>()?
        }),
        "arr-bool" => Val::ArrBool(list(v, line, "true or false")?),
        "arr-int" => Val::ArrInt(list(v, line, "an i64")?),
        "arr-double" => Val::ArrDouble(list(v, line, "an f64")?),
        "arr-str" => Val::ArrStr(if v == "-" {
            Vec::new()
        } else {
            v.split(',').map(|x| unescape(x, line)).collect::<Result<_, _>>()?
        }),
        _ => return err(line, format!("unknown value kind {:?}", kind)),
    })
}

/// `<kind> <key> <value>` (the words after `attr`, `resource`, ...): (key, value).
pub fn keyed(words: &[String], line: usize) -> Result<(String, Val), ParseError> {
    if words.len() != 3 {
        return err(line, "<kind> <key> <value>");
    }
    Ok((unescape(&words[1], line)?, val(&words[0], &words[2], line)?))
}

/// `<kind> <key> <value> [x<count>]`: the same value under `<key>0`, `<key>1`, ... when a
/// count is given (many attributes in one line).
pub fn keyed_repeat(words: &[String], line: usize) -> Result<Vec<(String, Val)>, ParseError> {
    if words.len() == 4 {
        if let Some(n) = words[3].strip_prefix('x') {
            let n: usize = num(n, line, "a count")?;
            let (k, v) = keyed(&words[..3], line)?;
            return Ok((0..n).map(|i| (format!("{}{}", k, i), v.clone())).collect());
        }
    }
    Ok(vec![keyed(words, line)?])
}

/// `<count>x<text>`: the text repeated (a long string in one word).
pub fn big_text(w: &str, line: usize) -> Result<String, ParseError> {
    match w.split_once('x') {
        Some((n, t)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            let n: usize = num(n, line, "a count")?;
            Ok(unescape(t, line)?.repeat(n))
        }
        _ => err(line, format!("{:?} is not <count>x<text>", w)),
    }
}
