// SPDX-License-Identifier: GPL-2.0
//
// The generator of impl/rust-macro: the build script of the emitter crate (cargo runs it
// before compiling src/main.rs). The eventheader crate's write_event! needs each event's
// schema at compile time, so this reads every case description EHCONF_EVENTS_DIR/<case>.events
// (Documentation/case-descriptions.md) with the type table EHCONF_TYPES_TXT and writes
// OUT_DIR/cases.rs, which main.rs includes:
//
//   mod c_<case> {
//       define_provider!(P_<CASE>_<k>, "<name>", group_name("<group>"));  one per provider
//       fn s<k>(a0: &u32, a1: &[u8], ...) -> u32 { write_event!(P_.., "<event>", level(..),
//           keyword(..), opcode(..), tag(..), id_version(..), activity_id(a..),
//           related_id(a..), <type>("<field>", a0, tag(..)), struct("..", { .. }), ..) }
//       fn run(r: &Runner) { the steps: r.register(..), r.event(<n>, || s<k>(&<literal>, ..)),
//           r.threads(..), r.fork(..), .. }
//       static ITEMS: the hash of each item of the description (emitlib/rust/desc.rs, items())
//   }
//   static CASES: [Case; ..]
//
// One function per event SHAPE (everything but the values: provider, name, attributes,
// field types, names and tags): the values are its arguments, decoded from the hex at
// generation time into typed literals (u16 from two bytes, f32 from its bits, a byte
// string for a &[u8]). A `repeat` (concurrency's 8 threads x 1,000 events "T") becomes a
// `for rep in 0..n` loop around its events' calls, a +<step> value an expression of `rep`
// (the first value plus rep steps, wrapping as the description says): one call site, as a
// user writing them in a loop would have, and a crate that compiles in seconds. Only a
// repeat whose stepped value lands inside raw bytes (an array of structs, a raw: field) is
// written out repetition by repetition.
//
// An event write_event! cannot express is generated as r.skip(<n>, "<feature>: <reason>")
// and no code: names that are not UTF-8 (the macro takes string literals), constant-length
// arrays, more than 254 fields or 127 struct members, metadata over 65,535 bytes. An array
// of structs goes through the raw field types the crate documents for it (raw_struct_slice,
// raw_meta, raw_meta_slice, raw_struct, raw_data), a `raw:<enc>:<fmt>` field through
// raw_field / raw_field_slice. A description it cannot parse fails the build with
// `file:line: reason`.

use std::collections::HashMap;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

// The description parser both Rust emitters share (the ehconf-emit crate, emitlib/rust, a
// build-dependency): this crate's generator and main.rs's items, and impl/rust-dynamic's
// emitter; and the target's byte order for the description's little-endian bytes
// (desc_order: this generator runs on the build machine, the emitter on the target, cargo
// --target s390x-...: big-endian).
use ehconf_emit::{desc, desc_items, desc_order};
use desc::{
    read_types, repetition, unit_size, Array, Event, Field, Kind, ProviderKey, Step, TypeRow, ENC_BINARY8,
    ENC_STRING8, ENC_VALUE128, ENC_VALUE8, ENC_ZSTRING32, ENC_ZSTRING8,
};

// ---- the type names of write_event! ---------------------------------------------------------

/// The write_event! scalar types that have no `_slice` type (lib.rs's table of field types).
const NO_SLICE: &[&str] = &["ipv6", "ipv6c", "time32", "time64", "systemtime"];

/// The Rust type write_event! takes a value of the scalar type `name` as (lib.rs's table:
/// `u16` takes &u16, `bool8` &bool, `ipv4` &[u8; 4], `guid` &eventheader::Guid ...).
fn rust_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "u8" | "u8_hex" | "char8_cp1252" => "u8",
        "u16" | "u16_hex" | "char16" | "port" => "u16",
        "u32" | "u32_hex" | "pid" | "tid" => "u32",
        "u64" | "u64_hex" => "u64",
        "i8" | "i8_hex" => "i8",
        "i16" | "i16_hex" => "i16",
        "i32" | "i32_hex" | "hresult" | "errno" | "bool32" | "time32" => "i32",
        "i64" | "i64_hex" | "time64" => "i64",
        "usize" | "usize_hex" | "pointer" | "codepointer" => "usize",
        "isize" | "isize_hex" => "isize",
        "f32" => "f32",
        "f64" => "f64",
        "bool8" => "bool",
        "guid" => "::eventheader::Guid",
        "ipv4" => "[u8; 4]",
        "ipv6" | "ipv6c" => "[u8; 16]",
        _ => return None,
    })
}

/// A description this generator cannot take: `file:line: reason` (cargo shows it in its
/// log), exit 2 as the emitters exit for a description they cannot parse.
fn fail(path: &Path, line: usize, why: &str) -> ! {
    eprintln!("{}:{}: {}", path.display(), line, why);
    std::process::exit(2);
}

// ---- Rust source ----------------------------------------------------------------------------

/// A Rust string literal holding `s`, in the escapes write_event!'s own literal parser takes
/// (eventheader_macros parser.rs unescape: \u{..}, not \" or \').
fn rust_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if (c.is_ascii_graphic() || c == ' ') && c != '"' && c != '\\' {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    out.push('"');
    out
}

fn byte_str(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 3);
    out.push_str("b\"");
    for &c in b {
        if c.is_ascii_alphanumeric() || c == b' ' || c == b'_' || c == b'.' || c == b'-' {
            out.push(c as char);
        } else {
            let _ = write!(out, "\\x{:02x}", c);
        }
    }
    out.push('"');
    out
}

fn le(b: &[u8]) -> u128 {
    b.iter().rev().fold(0u128, |acc, &x| acc << 8 | x as u128)
}

/// Whether the emitter's target writes its numbers big-endian: what cargo tells a build
/// script (CARGO_CFG_TARGET_ENDIAN), little-endian when nothing says.
fn target_big() -> bool {
    std::env::var("CARGO_CFG_TARGET_ENDIAN").map_or(false, |e| e == "big")
}

/// A value's bytes as the target lays them out (desc_order): the bytes `literal` reads.
fn on_target(enc: u8, fmt: u8, wire: &[u8]) -> Vec<u8> {
    desc_order::ordered(enc, fmt, wire, target_big())
}

/// The number whose target layout is `b` (the literal that the target stores as `b`).
fn on_target_number(b: &[u8]) -> u128 {
    if target_big() {
        b.iter().fold(0u128, |acc, &x| acc << 8 | x as u128)
    } else {
        le(b)
    }
}

/// The literal of one value of Rust type `t` from its bytes as the target lays them out
/// (on_target): a number is the one the description means, a port the one whose bytes in
/// the target's memory are the description's.
fn literal(t: &str, b: &[u8]) -> String {
    let v = on_target_number(b);
    match t {
        "u8" | "u16" | "u32" | "u64" | "usize" => format!("0x{:x}{}", v, t),
        "i8" => format!("{}i8", v as u8 as i8),
        "i16" => format!("{}i16", v as u16 as i16),
        "i32" => format!("{}i32", v as u32 as i32),
        "i64" => format!("{}i64", v as u64 as i64),
        "isize" => format!("{}isize", v as u64 as i64),
        "f32" => format!("f32::from_bits(0x{:08x})", v),
        "f64" => format!("f64::from_bits(0x{:016x})", v),
        "bool" => (if v == 0 { "false" } else { "true" }).to_string(),
        "::eventheader::Guid" => format!("::eventheader::Guid::from_bytes_be(&{})", bytes_array(b)),
        _ => bytes_array(b),
    }
}

fn bytes_array(b: &[u8]) -> String {
    let mut s = String::from("[");
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{}", x);
    }
    s.push(']');
    s
}

/// A &[T] literal of code units or elements of `unit` bytes.
fn units_literal(t: &str, unit: usize, b: &[u8]) -> String {
    if t == "u8" {
        return byte_str(b);
    }
    let mut s = String::from("&[");
    for (i, c) in b.chunks(unit).enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&literal(t, c));
    }
    s.push(']');
    s
}

/// One argument of a shape function.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Arg {
    /// The parameter type (`&u32`, `&[u16]`).
    param: String,
    /// The type of the value in a table row (`u32`, `&'static [u16]`).
    row: String,
    /// The value is passed by reference (`&v`) rather than as it is (a slice literal).
    by_ref: bool,
}

struct Gen {
    code: String,
    args: Vec<Arg>,
    values: Vec<String>,
    /// Per argument: for a +<step> value, its expression of `rep` (the loop's repetition).
    stepped: Vec<Option<String>>,
    /// A +<step> value went into raw bytes, which no expression of `rep` gives.
    step_in_bytes: bool,
    /// Metadata bytes as write_event! estimates them (event_info.rs add_estimated_metadata).
    meta: usize,
    /// Logical fields at the event's top level (event_info.rs: at most 254).
    top: usize,
}

impl Gen {
    fn arg(&mut self, param: String, row: String, by_ref: bool, value: String) -> String {
        let name = format!("a{}", self.args.len());
        self.args.push(Arg { param, row, by_ref });
        self.values.push(value);
        self.stepped.push(None);
        name
    }

    fn opts(&self, fmt: Option<u8>, tag: Option<u16>) -> String {
        let mut s = String::new();
        if let Some(f) = fmt {
            let _ = write!(s, ", format({})", f);
        }
        if let Some(t) = tag {
            let _ = write!(s, ", tag(0x{:x})", t);
        }
        s
    }

    fn count_meta(&mut self, name: &[u8], tag: bool, fmt: bool) {
        self.meta += name.len() + 1 + if tag { 4 } else if fmt { 2 } else { 1 };
    }

    /// A field as write_event! syntax (`in_struct`: inside a struct's braces).
    fn field(&mut self, f: &Field, in_struct: bool) -> Result<String, String> {
        let name = std::str::from_utf8(&f.name).map_err(|_| non_utf8())?;
        if !in_struct {
            self.top += 1;
        }
        match &f.kind {
            Kind::Struct(members) if !has_struct_slice(members) => {
                if members.len() > 127 {
                    return Err("struct-members>127: write_event! refuses a struct of more than 127 fields (eventheader_macros/src/event_info.rs:349)".into());
                }
                self.count_meta(&f.name, f.tag.is_some(), true);
                let mut inner = Vec::new();
                for m in members {
                    inner.push(self.field(m, true)?);
                }
                Ok(format!("struct({}{}, {{ {} }})", rust_str(name), tag_opt(f.tag), inner.join(", ")))
            }
            Kind::Struct(_) | Kind::StructSlice { .. } => {
                if in_struct {
                    // Cannot happen: a struct holding an array of structs is flattened whole.
                    return Err("an array of structs inside a struct's braces".into());
                }
                self.top -= 1;
                self.step_in_bytes |= has_step(std::slice::from_ref(f));
                let mut items = Vec::new();
                self.raw_meta(f, &mut items)?;
                let mut data = Vec::new();
                raw_data(f, &mut data);
                let a = self.arg("&[u8]".into(), "&'static [u8]".into(), false, byte_str(&data));
                items.push(format!("raw_data({})", a));
                Ok(items.join(", "))
            }
            Kind::Value { ty, enc, fmt, array, values, step } => {
                if *array == Array::Constant {
                    return Err(carray());
                }
                let unit = unit_size(*enc);
                let is_value = (ENC_VALUE8..=ENC_VALUE128).contains(enc);
                if ty.is_empty() || (*array == Array::Variable && NO_SLICE.contains(&ty.as_str())) {
                    // raw:<enc>:<fmt>, or an array of a type with no _slice: raw_field(_slice)
                    // with the encoding and format, the bytes as the payload has them.
                    let mut data = Vec::new();
                    value_data(*enc, *fmt, *array, values, unit, &mut data);
                    self.step_in_bytes |= *step != 0;
                    let a = self.arg("&[u8]".into(), "&'static [u8]".into(), false, byte_str(&data));
                    let fmt_opt = if *fmt != 0 { Some(*fmt) } else { None };
                    self.count_meta(&f.name, f.tag.is_some(), fmt_opt.is_some());
                    let which = if *array == Array::Variable { "raw_field_slice" } else { "raw_field" };
                    return Ok(format!("{}({}, {}, {}{})", which, rust_str(name), enc, a, self.opts(fmt_opt, f.tag)));
                }
                self.count_meta(&f.name, f.tag.is_some(), *fmt != 0);
                if ty == "systemtime" {
                    return Err("systemtime: not generated (a description names it time64, the first of the same bytes in types.txt)".into());
                }
                if !is_value {
                    // Strings: &[u8] / &[u16] / &[u32] of code units.
                    let t = match unit {
                        1 => "u8",
                        2 => "u16",
                        _ => "u32",
                    };
                    if (ENC_ZSTRING8..=ENC_ZSTRING32).contains(enc) && values[0].chunks(unit).any(|c| c.iter().all(|&x| x == 0)) {
                        return Err("cstr: a 0 unit ends the string (lib.rs: cstrN writes the value up to its first 0)".into());
                    }
                    let a = self.arg(format!("&[{}]", t), format!("&'static [{}]", t), false, units_literal(t, unit, &on_target(*enc, *fmt, &values[0])));
                    return Ok(format!("{}({}, {}{})", ty, rust_str(name), a, self.opts(None, f.tag)));
                }
                let mut rt = rust_type(ty).ok_or_else(|| format!("{}: no write_event! value type", ty))?;
                let mut mty = ty.clone();
                let mut fmt_opt = None;
                if ty == "bool8" && (*step != 0 || values.iter().any(|v| v[0] > 1)) {
                    // bool8 takes &bool: a byte other than 0 or 1 is no Rust bool (nor, in a
                    // repeat, what a +<step> gives). u8 with format(Boolean) writes the same
                    // metadata (Value8 + Boolean).
                    rt = "u8";
                    mty = "u8".into();
                    fmt_opt = Some(*fmt);
                }
                if *array == Array::Variable {
                    let lit = if rt == "u8" {
                        byte_str(&values.concat())
                    } else {
                        let mut s = String::from("&[");
                        for (i, v) in values.iter().enumerate() {
                            if i > 0 {
                                s.push(',');
                            }
                            s.push_str(&literal(rt, &on_target(*enc, *fmt, v)));
                        }
                        s.push(']');
                        s
                    };
                    let a = self.arg(format!("&[{}]", rt), format!("&'static [{}]", rt), false, lit);
                    Ok(format!("{}_slice({}, {}{})", mty, rust_str(name), a, self.opts(fmt_opt, f.tag)))
                } else {
                    let a = self.arg(format!("&{}", rt), rt.to_string(), true, literal(rt, &on_target(*enc, *fmt, &values[0])));
                    if *step != 0 {
                        let pinned = desc_order::number_width(*enc, *fmt, values[0].len()) == 0;
                        *self.stepped.last_mut().unwrap() = Some(stepped(rt, &values[0], *step, pinned));
                    }
                    Ok(format!("{}({}, {}{})", mty, rust_str(name), a, self.opts(fmt_opt, f.tag)))
                }
            }
        }
    }

    /// The metadata of a field inside a flattened array of structs: raw_struct,
    /// raw_struct_slice, raw_meta, raw_meta_slice, each a logical field at the top level.
    fn raw_meta(&mut self, f: &Field, items: &mut Vec<String>) -> Result<(), String> {
        let name = std::str::from_utf8(&f.name).map_err(|_| non_utf8())?;
        self.top += 1;
        match &f.kind {
            Kind::Struct(m) | Kind::StructSlice { shape: m, .. } => {
                if m.len() > 127 {
                    return Err("struct-members>127: raw_struct takes a field count of 0 to 127 (eventheader/src/lib.rs:748)".into());
                }
                self.count_meta(&f.name, f.tag.is_some(), true);
                let which = if matches!(f.kind, Kind::Struct(_)) { "raw_struct" } else { "raw_struct_slice" };
                items.push(format!("{}({}, {}{})", which, rust_str(name), m.len(), tag_opt(f.tag)));
                for x in m {
                    self.raw_meta(x, items)?;
                }
            }
            Kind::Value { enc, fmt, array, .. } => {
                if *array == Array::Constant {
                    return Err(carray());
                }
                let fmt_opt = if *fmt != 0 { Some(*fmt) } else { None };
                self.count_meta(&f.name, f.tag.is_some(), fmt_opt.is_some());
                let which = if *array == Array::Variable { "raw_meta_slice" } else { "raw_meta" };
                items.push(format!("{}({}, {}{})", which, rust_str(name), enc, self.opts(fmt_opt, f.tag)));
            }
        }
        Ok(())
    }
}

/// The value of repetition `rep` of a +<step> value whose first repetition has the bytes
/// `first`: an unsigned little-endian number of their size plus rep steps, wrapping around
/// (Documentation/case-descriptions.md), then the Rust type write_event! takes. `pinned`:
/// the value's bytes are in the format's fixed order (a port), so the number written is the
/// one whose bytes in memory are the little-endian bytes of the sum, on any target.
fn stepped(t: &str, first: &[u8], step: u32, pinned: bool) -> String {
    let u = match first.len() {
        1 => "u8",
        2 => "u16",
        4 => "u32",
        8 => "u64",
        _ => "u128",
    };
    let x = format!("0x{:x}{u}.wrapping_add((rep as {u}).wrapping_mul({step} as {u}))", le(first), u = u, step = step);
    // in parentheses: the caller may borrow it (`&(...)`)
    match t {
        "f32" | "f64" => format!("({}::from_bits({}))", t, x),
        "bool" => format!("(({}) != 0)", x),
        "::eventheader::Guid" => format!("(::eventheader::Guid::from_bytes_be(&({}).to_le_bytes()))", x),
        "[u8; 4]" | "[u8; 16]" => format!("(({}).to_le_bytes())", x),
        _ if pinned => format!("({}::from_ne_bytes((({}) as {}).to_le_bytes()))", t, x, t),
        _ => format!("(({}) as {})", x, t),
    }
}

fn has_step(fields: &[Field]) -> bool {
    fields.iter().any(|f| match &f.kind {
        Kind::Value { step, .. } => *step != 0,
        Kind::Struct(m) => has_step(m),
        Kind::StructSlice { shape, elements } => has_step(shape) || elements.iter().any(|e| has_step(e)),
    })
}

fn tag_opt(tag: Option<u16>) -> String {
    tag.map(|t| format!(", tag(0x{:x})", t)).unwrap_or_default()
}

fn non_utf8() -> String {
    "name-non-utf8: write_event! and define_provider! take names as string literals, always UTF-8 (eventheader_macros/src/parser.rs:112)".into()
}

fn carray() -> String {
    "carray: write_event! has no constant-length array: a field is a scalar or a _slice, whose metadata gets VArrayFlag (eventheader_macros/src/event_generator.rs:407), never CArrayFlag and a count".into()
}

fn has_struct_slice(fields: &[Field]) -> bool {
    fields.iter().any(|f| match &f.kind {
        Kind::StructSlice { .. } => true,
        Kind::Struct(m) => has_struct_slice(m),
        Kind::Value { .. } => false,
    })
}

/// The payload bytes of a value field, as the target lays them out (its counts and numbers
/// in its byte order).
fn value_data(enc: u8, fmt: u8, array: Array, values: &[Vec<u8>], unit: usize, out: &mut Vec<u8>) {
    let big = target_big();
    if array == Array::Variable {
        out.extend_from_slice(&desc_order::count16(values.len() as u16, big));
    }
    for v in values {
        let v = &on_target(enc, fmt, v);
        match enc {
            7..=9 => {
                out.extend_from_slice(v);
                out.extend(std::iter::repeat(0).take(unit));
            }
            ENC_STRING8..=ENC_BINARY8 => {
                out.extend_from_slice(&desc_order::count16((v.len() / unit) as u16, big));
                out.extend_from_slice(v);
            }
            _ => out.extend_from_slice(v),
        }
    }
}

/// The payload bytes of a field inside a flattened array of structs.
fn raw_data(f: &Field, out: &mut Vec<u8>) {
    match &f.kind {
        Kind::Value { enc, fmt, array, values, .. } => {
            value_data(*enc, *fmt, *array, values, unit_size(*enc).max(1), out)
        }
        Kind::Struct(m) => m.iter().for_each(|x| raw_data(x, out)),
        Kind::StructSlice { elements, .. } => {
            out.extend_from_slice(&desc_order::count16(elements.len() as u16, target_big()));
            for e in elements {
                e.iter().for_each(|x| raw_data(x, out));
            }
        }
    }
}

fn has_carray(fields: &[Field]) -> bool {
    fields.iter().any(|f| match &f.kind {
        Kind::Value { array, .. } => *array == Array::Constant,
        Kind::Struct(m) | Kind::StructSlice { shape: m, .. } => has_carray(m),
    })
}

fn names_utf8(fields: &[Field]) -> bool {
    fields.iter().all(|f| {
        std::str::from_utf8(&f.name).is_ok()
            && match &f.kind {
                Kind::Value { .. } => true,
                Kind::Struct(m) | Kind::StructSlice { shape: m, .. } => names_utf8(m),
            }
    })
}

/// Why define_provider! cannot define the provider (provider_info.rs), if it cannot.
fn provider_problem(p: &ProviderKey) -> Option<String> {
    let name = match std::str::from_utf8(&p.name) {
        Ok(n) => n,
        Err(_) => return Some(non_utf8()),
    };
    let group = match p.group.as_deref().map(std::str::from_utf8) {
        None => "",
        Some(Ok(g)) => g,
        Some(Err(_)) => return Some(non_utf8()),
    };
    if name.len() >= 234 {
        return Some("define_provider! refuses a provider name of 234 bytes or more (eventheader_macros/src/provider_info.rs:53)".into());
    }
    if name.contains(' ') || name.contains(':') {
        return Some("define_provider! refuses ' ' and ':' in a provider name (eventheader_macros/src/provider_info.rs:59)".into());
    }
    if !group.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        return Some("define_provider! takes a group name of lowercase ASCII letters and digits only (eventheader_macros/src/provider_info.rs:102)".into());
    }
    if name.len() + group.len() >= 234 {
        return Some("define_provider! refuses a provider name + group name of 234 bytes or more (eventheader_macros/src/provider_info.rs:111)".into());
    }
    None
}

struct Shape {
    code: String,
    args: Vec<Arg>,
}

struct CaseGen<'a> {
    providers: &'a [ProviderKey],
    symbols: Vec<String>,
    problems: Vec<Option<String>>,
    shapes: Vec<Shape>,
    shape_ids: HashMap<(String, Vec<Arg>), usize>,
    blocks: Vec<String>,
}

impl<'a> CaseGen<'a> {
    /// The number of a provider: its place in the description's list (its symbol's suffix).
    fn index(&self, key: &ProviderKey) -> usize {
        self.providers.iter().position(|p| p == key).expect("the parser lists every provider")
    }

    /// The shape function of a planned event: one per distinct code and arguments.
    fn shape_id(&mut self, g: &Gen) -> usize {
        let key = (g.code.clone(), g.args.clone());
        if let Some(&id) = self.shape_ids.get(&key) {
            return id;
        }
        self.shapes.push(Shape { code: key.0.clone(), args: key.1.clone() });
        self.shape_ids.insert(key, self.shapes.len() - 1);
        self.shapes.len() - 1
    }

    /// The call of an event numbered by `ordinal` (an expression), its arguments those of
    /// g, each +<step> one as its expression of `rep` when `stepped`.
    fn call(&mut self, g: &Gen, ordinal: &str, stepped: bool) -> String {
        let id = self.shape_id(g);
        let args: Vec<String> = (0..g.args.len())
            .map(|k| {
                let v = match &g.stepped[k] {
                    Some(x) if stepped => x.clone(),
                    _ => g.values[k].clone(),
                };
                if g.args[k].by_ref {
                    format!("&{}", v)
                } else {
                    v
                }
            })
            .collect();
        format!("r.event({}, || s{}({}));", ordinal, id, args.join(", "))
    }

    /// One event: its call, or the skip with why write_event! cannot express it.
    fn event(&mut self, e: &Event) -> String {
        match self.try_plan(e) {
            Ok(g) => self.call(&g, &e.ordinal.to_string(), false),
            Err(why) => format!("r.skip({}, {});", e.ordinal, rust_str(&why)),
        }
    }

    fn try_plan(&self, e: &Event) -> Result<Gen, String> {
        if let Some(why) = &self.problems[self.index(&e.provider)] {
            return Err(why.clone());
        }
        let name = std::str::from_utf8(&e.name).map_err(|_| non_utf8())?;
        if !names_utf8(&e.fields) {
            return Err(non_utf8());
        }
        if has_carray(&e.fields) {
            return Err(carray());
        }
        if e.related.is_some() && e.activity.is_none() {
            return Err("related-without-activity: write_eventheader drops a related id without an activity id (eventheader/src/_internal.rs:151, a debug_assert only)".into());
        }
        let mut g = Gen {
            code: String::new(),
            args: Vec::new(),
            values: Vec::new(),
            stepped: Vec::new(),
            step_in_bytes: false,
            meta: 1 + e.name.len() + 1,
            top: 0,
        };
        let mut parts = vec![
            self.symbols[self.index(&e.provider)].clone(),
            rust_str(name),
            format!("level({})", e.level),
            format!("keyword(0x{:x})", e.keyword),
        ];
        if e.opcode != 0 {
            parts.push(format!("opcode({})", e.opcode));
        }
        if e.tag != 0 {
            parts.push(format!("tag(0x{:x})", e.tag));
        }
        if e.id != 0 || e.version != 0 {
            parts.push(format!("id_version({}, {})", e.id, e.version));
        }
        for (opt, id) in [("activity_id", e.activity), ("related_id", e.related)] {
            if let Some(id) = id {
                let a = g.arg("&[u8; 16]".into(), "[u8; 16]".into(), true, bytes_array(&id));
                parts.push(format!("{}({})", opt, a));
            }
        }
        for f in &e.fields {
            parts.push(g.field(f, false)?);
        }
        if g.top > 254 {
            return Err(format!("fields>254: write_event! refuses more than 254 fields at the event's top level, {} here (eventheader_macros/src/event_info.rs:353)", g.top));
        }
        if g.meta > 65535 {
            return Err(format!("metadata>65535: write_event! refuses {} bytes of metadata (eventheader_macros/src/event_info.rs:491)", g.meta));
        }
        g.code = format!("::eventheader::write_event!({})", parts.join(", "));
        Ok(g)
    }

    /// `repeat <count>` of the events `body`: a loop over the repetitions, each event's
    /// number and +<step> values expressions of `rep`. None when a stepped value goes into
    /// raw bytes: the caller then writes every repetition out.
    fn repeat_loop(&mut self, count: usize, body: &[Step]) -> Option<String> {
        let k = body.len();
        let mut inner = String::new();
        for s in body {
            if let Step::Event(e) = s {
                let ordinal = format!("{} + rep * {}", e.ordinal, k);
                let line = match self.try_plan(e) {
                    Ok(g) if g.step_in_bytes => return None,
                    Ok(g) => self.call(&g, &ordinal, true),
                    Err(why) => format!("r.skip({}, {});", ordinal, rust_str(&why)),
                };
                let _ = writeln!(inner, "        {}", line);
            }
        }
        Some(format!("    for rep in 0..{}usize {{\n{}    }}\n", count, inner))
    }

    /// The body of a block of steps.
    fn body(&mut self, steps: &[Step]) -> String {
        let mut out = String::new();
        for step in steps {
            match step {
                Step::Register(key) | Step::Unregister(key) => {
                    let reg = matches!(step, Step::Register(_));
                    let p = self.index(key);
                    let pname = String::from_utf8_lossy(&key.name).into_owned();
                    let call = match &self.problems[p] {
                        Some(_) => "None".to_string(),
                        None if reg => format!("Some(&|| unsafe {{ {}.register() }})", self.symbols[p]),
                        None => format!("Some(&|| {}.unregister())", self.symbols[p]),
                    };
                    let _ = writeln!(out, "    r.{}({}, {}, {});", if reg { "register" } else { "unregister" }, p, rust_str(&pname), call);
                }
                Step::Event(e) => {
                    let line = self.event(e);
                    let _ = writeln!(out, "    {}", line);
                }
                Step::Repeat(count, body) => match self.repeat_loop(*count, body) {
                    Some(code) => out.push_str(&code),
                    None => {
                        for rep in 0..*count {
                            for s in body {
                                if let Step::Event(e) = s {
                                    let line = self.event(&repetition(e, rep, body.len()));
                                    let _ = writeln!(out, "    {}", line);
                                }
                            }
                        }
                    }
                },
                Step::Threads(blocks) => {
                    let fns: Vec<String> = blocks.iter().map(|b| self.block(b)).collect();
                    let _ = writeln!(out, "    r.threads(&[{}]);", fns.join(", "));
                }
                Step::Fork(child, parent) => {
                    let mut ords = Vec::new();
                    ordinals(child, &mut ords);
                    let c = self.block(child);
                    let p = self.block(parent);
                    let list: Vec<String> = ords.iter().map(|o| o.to_string()).collect();
                    let _ = writeln!(out, "    r.fork({}, {}, &[{}]);", c, p, list.join(", "));
                }
            }
        }
        out
    }

    /// A block as a function of its own; its name.
    fn block(&mut self, steps: &[Step]) -> String {
        let body = self.body(steps);
        let name = format!("b{}", self.blocks.len());
        self.blocks.push(format!("fn {}(r: &Runner) {{\n{}}}\n", name, body));
        name
    }
}

/// The ordinals of the events of steps, every repetition of a repeat included.
fn ordinals(steps: &[Step], out: &mut Vec<usize>) {
    for s in steps {
        match s {
            Step::Event(e) => out.push(e.ordinal),
            Step::Repeat(count, body) => {
                for rep in 0..*count {
                    for b in body {
                        if let Step::Event(e) = b {
                            out.push(e.ordinal + rep * body.len());
                        }
                    }
                }
            }
            Step::Threads(b) => b.iter().for_each(|x| ordinals(x, out)),
            Step::Fork(c, p) => {
                ordinals(c, out);
                ordinals(p, out)
            }
            _ => {}
        }
    }
}

/// line -> (first ordinal, repetitions, the ordinals between two repetitions) of each
/// event statement: what each event item of the description stands for.
fn event_lines(steps: &[Step], out: &mut HashMap<usize, (usize, usize, usize)>) {
    for s in steps {
        match s {
            Step::Event(e) => {
                out.insert(e.line, (e.ordinal, 1, 0));
            }
            Step::Repeat(count, body) => {
                for b in body {
                    if let Step::Event(e) = b {
                        out.insert(e.line, (e.ordinal, *count, body.len()));
                    }
                }
            }
            Step::Threads(b) => b.iter().for_each(|x| event_lines(x, out)),
            Step::Fork(c, p) => {
                event_lines(c, out);
                event_lines(p, out)
            }
            _ => {}
        }
    }
}

fn generate_case(path: &Path, types: &[TypeRow], out: &mut String) -> (String, String) {
    let text = fs::read(path).unwrap_or_else(|e| fail(path, 0, &e.to_string()));
    // The parser first: its reasons are the ones the emitters give for the same mistake.
    let p = desc::parse(&text, types).unwrap_or_else(|e| fail(path, e.line, &e.why));
    let items = desc_items::items(&text).unwrap_or_else(|(n, why)| fail(path, n, &why));
    let steps = p.steps;
    let case = items.case.clone();
    let ident: String = case.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let module = format!("c_{}", ident.to_ascii_lowercase());
    let symbols: Vec<String> = (0..p.providers.len()).map(|k| format!("P_{}_{}", ident.to_ascii_uppercase(), k)).collect();
    let problems: Vec<Option<String>> = p.providers.iter().map(provider_problem).collect();
    let mut g = CaseGen { providers: &p.providers, symbols, problems, shapes: Vec::new(), shape_ids: HashMap::new(), blocks: Vec::new() };
    let main = g.body(&steps);

    let _ = writeln!(out, "/// descriptions/{}.events\n#[allow(unused_imports, clippy::all)]\nmod {} {{\n    use super::Runner;", case, module);
    for (k, prov) in p.providers.iter().enumerate() {
        match &g.problems[k] {
            Some(why) => {
                let _ = writeln!(out, "    // provider {}: not defined: {}", k, why);
            }
            None => {
                let group = match &prov.group {
                    Some(gr) => format!(", group_name({})", rust_str(std::str::from_utf8(gr).unwrap())),
                    None => String::new(),
                };
                let _ = writeln!(out, "    ::eventheader::define_provider!({}, {}{});", g.symbols[k], rust_str(std::str::from_utf8(&prov.name).unwrap()), group);
            }
        }
    }
    for (k, s) in g.shapes.iter().enumerate() {
        let params: Vec<String> = s.args.iter().enumerate().map(|(i, a)| format!("a{}: {}", i, a.param)).collect();
        let _ = writeln!(out, "    #[inline(never)]\n    fn s{}({}) -> u32 {{\n        {}\n    }}", k, params.join(", "), s.code);
    }
    for b in &g.blocks {
        out.push_str(b);
    }
    let _ = writeln!(out, "    pub fn run(r: &Runner) {{\n{}    }}", main);
    // Each item's hash, and for an event item the ordinals it stands for: (first,
    // repetitions, step between two).
    let mut lines = HashMap::new();
    event_lines(&steps, &mut lines);
    let mut events = 0;
    let _ = write!(out, "    pub static ITEMS: &[(bool, u64, usize, usize, usize)] = &[");
    for it in &items.items {
        let (first, count, stride) = if it.is_event { lines[&it.line] } else { (0, 0, 0) };
        events += count;
        let _ = write!(out, "({}, 0x{:016x}, {}, {}, {}),", it.is_event, it.hash, first, count, stride);
    }
    out.push_str("];\n");
    let names: Vec<String> = p.providers.iter().map(|pr| rust_str(&String::from_utf8_lossy(&pr.name))).collect();
    let _ = writeln!(out, "    pub static PROVIDERS: &[&str] = &[{}];\n}}\n", names.join(", "));
    assert_eq!(events, p.events, "{}: item and event counts differ", path.display());
    (case, format!("Case {{ name: {}, items: {m}::ITEMS, events: {}, providers: {m}::PROVIDERS, run: {m}::run }}", rust_str(&items.case), events, m = module))
}

fn main() {
    let events_dir = PathBuf::from(env::var("EHCONF_EVENTS_DIR").expect("EHCONF_EVENTS_DIR: the folder of the case descriptions (impl/rust-macro/build sets it)"));
    let types_txt = PathBuf::from(env::var("EHCONF_TYPES_TXT").expect("EHCONF_TYPES_TXT: descriptions/types.txt (impl/rust-macro/build sets it)"));
    let ptr: usize = env::var("CARGO_CFG_TARGET_POINTER_WIDTH").ok().and_then(|w| w.parse().ok()).unwrap_or(64) / 8;
    let types_text = fs::read_to_string(&types_txt).unwrap_or_else(|e| fail(&types_txt, 0, &e.to_string()));
    let types = read_types(&types_text, ptr).unwrap_or_else(|why| fail(&types_txt, 0, &why));
    let mut files: Vec<PathBuf> = fs::read_dir(&events_dir)
        .unwrap_or_else(|e| fail(&events_dir, 0, &e.to_string()))
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().map(|e| e == "events").unwrap_or(false))
        .collect();
    files.sort();
    let mut out = String::from("// Generated by impl/rust-macro/build.rs from the case descriptions: do not edit.\n\n");
    let mut cases = Vec::new();
    for f in &files {
        cases.push(generate_case(f, &types, &mut out).1);
    }
    // What cargo reruns this for, said once all is generated: a description it cannot take
    // is then the one line on stderr and nothing on stdout (cargo reruns a build script that
    // failed anyway).
    println!("cargo:rerun-if-env-changed=EHCONF_EVENTS_DIR");
    println!("cargo:rerun-if-env-changed=EHCONF_TYPES_TXT");
    println!("cargo:rerun-if-changed={}", events_dir.display());
    println!("cargo:rerun-if-changed={}", types_txt.display());
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let _ = writeln!(out, "pub static CASES: &[Case] = &[\n    {}\n];", cases.join(",\n    "));
    let dest = PathBuf::from(env::var("OUT_DIR").unwrap()).join("cases.rs");
    fs::write(&dest, out).unwrap_or_else(|e| fail(&dest, 0, &e.to_string()));
}
