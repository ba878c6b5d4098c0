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
//       static ITEMS: the hash of each item of the description (src/desc.rs)
//   }
//   static CASES: [Case; ..]
//
// One function per event SHAPE (everything but the values: provider, name, attributes,
// field types, names and tags): the values are its arguments, decoded from the hex at
// generation time into typed literals (u16 from two bytes, f32 from its bits, a byte
// string for a &[u8]). Consecutive events of one shape in one block (concurrency's 8 x 1,000
// events "T") become a loop over a static table of their values, in their order: one call
// site, as a user writing them in a loop would have, and a crate that compiles in seconds.
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

#[path = "src/desc.rs"]
mod desc;

// ---- the type table -------------------------------------------------------------------------

const ENC_VALUE8: u8 = 2;
const ENC_VALUE128: u8 = 6;
const ENC_ZSTRING8: u8 = 7;
const ENC_ZSTRING32: u8 = 9;
const ENC_STRING8: u8 = 10;
const ENC_BINARY8: u8 = 13;
const CARRAY: u8 = 0x20;
const VARRAY: u8 = 0x40;

const ENCODINGS: &[&str] = &[
    "invalid",
    "struct",
    "value8",
    "value16",
    "value32",
    "value64",
    "value128",
    "zstring_char8",
    "zstring_char16",
    "zstring_char32",
    "string_length16_char8",
    "string_length16_char16",
    "string_length16_char32",
    "binary_length16_char8",
];

const FORMATS: &[&str] = &[
    "default",
    "unsigned_int",
    "signed_int",
    "hex_int",
    "errno",
    "pid",
    "time",
    "boolean",
    "float",
    "hex_bytes",
    "string8",
    "string_utf",
    "string_utf_bom",
    "string_xml",
    "string_json",
    "uuid",
    "port",
    "ip_address",
    "ip_address_obsolete",
];

/// The write_event! scalar types that have no `_slice` type (lib.rs's table of field types).
const NO_SLICE: &[&str] = &["ipv6", "ipv6c", "time32", "time64", "systemtime"];

#[derive(Clone, Copy)]
struct TypeRow {
    enc: u8,
    fmt: u8,
}

/// Bytes of one value or code unit of an encoding (value_ptr is resolved already).
fn unit_size(enc: u8) -> usize {
    match enc {
        2 | 7 | 10 | 13 => 1,
        3 | 8 | 11 => 2,
        4 | 9 | 12 => 4,
        5 => 8,
        6 => 16,
        _ => 0,
    }
}

fn read_types(path: &Path, ptr: usize) -> HashMap<String, TypeRow> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| fail(path, 0, &e.to_string()));
    let mut rows = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let w: Vec<&str> = line.split_ascii_whitespace().collect();
        if w.is_empty() || w[0].starts_with('#') {
            continue;
        }
        if w.len() != 4 {
            fail(path, i + 1, "expected `name encoding format unit`");
        }
        let enc = if w[1] == "value_ptr" {
            if ptr == 8 {
                5
            } else {
                4
            }
        } else {
            match ENCODINGS.iter().position(|e| *e == w[1]) {
                Some(e) => e as u8,
                None => fail(path, i + 1, &format!("unknown encoding {}", w[1])),
            }
        };
        let fmt = match FORMATS.iter().position(|f| *f == w[2]) {
            Some(f) => f as u8,
            None => fail(path, i + 1, &format!("unknown format {}", w[2])),
        };
        rows.entry(w[0].to_string()).or_insert(TypeRow { enc, fmt });
    }
    rows
}

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

// ---- the description ------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Array {
    None,
    Variable,
    Constant,
}

enum Kind {
    /// A value or string field. `ty` is the type name without _slice / _array ("" for a
    /// raw:<enc>:<fmt> field); values: one per element (strings: one).
    Value { ty: String, enc: u8, fmt: u8, array: Array, values: Vec<Vec<u8>> },
    Struct(Vec<Field>),
    StructSlice { shape: Vec<Field>, elements: Vec<Vec<Field>> },
}

struct Field {
    name: Vec<u8>,
    tag: Option<u16>,
    kind: Kind,
}

struct Event {
    ordinal: usize,
    provider: usize,
    name: Vec<u8>,
    level: u8,
    keyword: u64,
    opcode: u8,
    tag: u16,
    id: u16,
    version: u8,
    activity: Option<[u8; 16]>,
    related: Option<[u8; 16]>,
    fields: Vec<Field>,
}

enum Step {
    Register(usize),
    Unregister(usize),
    Event(Box<Event>),
    Threads(Vec<Vec<Step>>),
    Fork(Vec<Step>, Vec<Step>),
}

struct Provider {
    name: Vec<u8>,
    group: Option<Vec<u8>>,
}

fn fail(path: &Path, line: usize, why: &str) -> ! {
    eprintln!("{}:{}: {}", path.display(), line, why);
    std::process::exit(1);
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn parse_hex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return None;
    }
    b.chunks(2).map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?)).collect()
}

fn parse_name(s: &str) -> Option<Vec<u8>> {
    if s == "-" {
        return Some(Vec::new());
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(hex_digit(*b.get(i + 1)?)? << 4 | hex_digit(*b.get(i + 2)?)?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        None
    } else {
        Some(out)
    }
}

fn parse_uint(s: &str, max: u64) -> Option<u64> {
    let v = match s.strip_prefix("0x") {
        Some(h) if !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()) => {
            u64::from_str_radix(h, 16).ok()?
        }
        Some(_) => return None,
        None if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) => s.parse().ok()?,
        None => return None,
    };
    if v > max {
        None
    } else {
        Some(v)
    }
}

struct Parser<'a> {
    path: &'a Path,
    lines: Vec<(usize, Vec<&'a str>)>,
    pos: usize,
    ordinal: usize,
    current: Option<usize>,
    providers: Vec<Provider>,
    types: &'a HashMap<String, TypeRow>,
}

impl<'a> Parser<'a> {
    fn bad(&self, line: usize, why: &str) -> ! {
        fail(self.path, line, why)
    }

    fn next(&mut self) -> Option<(usize, Vec<&'a str>)> {
        let l = self.lines.get(self.pos).cloned();
        self.pos += 1;
        l
    }

    fn name(&self, line: usize, s: &str) -> Vec<u8> {
        parse_name(s).unwrap_or_else(|| self.bad(line, &format!("bad name {:.60}", s)))
    }

    /// Statements up to the `end` of a block (or the file's end); true when a fork's
    /// child block ended at `parent`.
    fn steps(&mut self, block: Option<&str>) -> (Vec<Step>, bool) {
        let mut steps = Vec::new();
        loop {
            let (n, w) = match self.next() {
                Some(l) => l,
                None if block.is_none() => return (steps, false),
                None => self.bad(self.lines.last().map(|l| l.0).unwrap_or(1), "a block has no `end`"),
            };
            match w[0] {
                "end" if block.is_some() => return (steps, false),
                "parent" if block == Some("fork") => return (steps, true),
                "case" | "needs" if block.is_none() => {}
                "provider" => {
                    let name = self.name(n, w.get(1).copied().unwrap_or(""));
                    let group = w.get(2).map(|g| match g.strip_prefix("group=") {
                        Some(g) => self.name(n, g),
                        None => self.bad(n, "expected group=<group>"),
                    });
                    let k = match self.providers.iter().position(|p| p.name == name && p.group == group) {
                        Some(k) => k,
                        None => {
                            self.providers.push(Provider { name, group });
                            self.providers.len() - 1
                        }
                    };
                    self.current = Some(k);
                }
                "register" | "unregister" => {
                    let p = self.current.unwrap_or_else(|| self.bad(n, "no provider before it"));
                    steps.push(if w[0] == "register" { Step::Register(p) } else { Step::Unregister(p) });
                }
                "event" => steps.push(Step::Event(Box::new(self.event(n, &w)))),
                "threads" => {
                    let mut threads = Vec::new();
                    loop {
                        match self.next() {
                            Some((_, t)) if t[0] == "end" => break,
                            Some((_, t)) if t[0] == "thread" => threads.push(self.steps(Some("thread")).0),
                            Some((tn, _)) => self.bad(tn, "expected `thread` or `end`"),
                            None => self.bad(n, "`threads` has no `end`"),
                        }
                    }
                    steps.push(Step::Threads(threads));
                }
                "fork" => {
                    let (child, more) = self.steps(Some("fork"));
                    let parent = if more { self.steps(Some("parent")).0 } else { Vec::new() };
                    steps.push(Step::Fork(child, parent));
                }
                _ => self.bad(n, &format!("unexpected statement `{}`", w.join(" "))),
            }
        }
    }

    fn event(&mut self, n: usize, w: &[&str]) -> Event {
        self.ordinal += 1;
        let provider = self.current.unwrap_or_else(|| self.bad(n, "no provider before the event"));
        let mut e = Event {
            ordinal: self.ordinal,
            provider,
            name: self.name(n, w.get(1).copied().unwrap_or("")),
            level: 0,
            keyword: 0,
            opcode: 0,
            tag: 0,
            id: 0,
            version: 0,
            activity: None,
            related: None,
            fields: Vec::new(),
        };
        let (mut level, mut keyword) = (false, false);
        for a in &w[2..] {
            let (k, v) = a.split_once('=').unwrap_or_else(|| self.bad(n, &format!("bad option {}", a)));
            let num = |max| parse_uint(v, max).unwrap_or_else(|| self.bad(n, &format!("bad {}", a)));
            let id16 = || -> [u8; 16] {
                parse_hex(v).and_then(|b| b.try_into().ok()).unwrap_or_else(|| self.bad(n, &format!("bad {}", a)))
            };
            match k {
                "level" => {
                    e.level = num(255) as u8;
                    level = true
                }
                "keyword" => {
                    e.keyword = num(u64::MAX);
                    keyword = true
                }
                "opcode" => e.opcode = num(255) as u8,
                "tag" => e.tag = num(65535) as u16,
                "id" => e.id = num(65535) as u16,
                "version" => e.version = num(255) as u8,
                "activity" => e.activity = Some(id16()),
                "related" => e.related = Some(id16()),
                "needs" => {}
                _ => self.bad(n, &format!("unknown option {}", a)),
            }
        }
        if !level || !keyword {
            self.bad(n, "an event needs level= and keyword=");
        }
        e.fields = self.fields(n, true);
        e
    }

    /// Fields up to `end`; `with_values` false inside a count-0 struct_slice's element.
    fn fields(&mut self, at: usize, with_values: bool) -> Vec<Field> {
        let mut fields = Vec::new();
        loop {
            let (n, w) = self.next().unwrap_or_else(|| self.bad(at, "no `end`"));
            if w[0] == "end" && w.len() == 1 {
                return fields;
            }
            fields.push(self.field(n, &w, with_values));
        }
    }

    fn tag(&self, n: usize, w: Option<&&str>) -> Option<u16> {
        w.map(|t| match t.strip_prefix("tag=").and_then(|v| parse_uint(v, 65535)) {
            Some(v) => v as u16,
            None => self.bad(n, &format!("expected tag=0x<hex>, got {}", t)),
        })
    }

    fn field(&mut self, n: usize, w: &[&str], with_values: bool) -> Field {
        if w.len() < 2 {
            self.bad(n, "a field needs a name");
        }
        let name = self.name(n, w[1]);
        match w[0] {
            "struct" => {
                let tag = self.tag(n, w.get(2));
                let members = self.fields(n, with_values);
                if members.is_empty() {
                    self.bad(n, "a struct needs members");
                }
                return Field { name, tag, kind: Kind::Struct(members) };
            }
            "struct_slice" => {
                let count = w.get(2).and_then(|c| parse_uint(c, 65535)).unwrap_or_else(|| self.bad(n, "bad count")) as usize;
                let tag = self.tag(n, w.get(3));
                let mut elements = Vec::new();
                loop {
                    let (en, ew) = self.next().unwrap_or_else(|| self.bad(n, "no `end`"));
                    match ew[0] {
                        "end" => break,
                        "element" => elements.push(self.fields(en, with_values && count > 0)),
                        _ => self.bad(en, "expected `element` or `end`"),
                    }
                }
                if elements.len() != count.max(1) {
                    self.bad(n, &format!("{} elements for a count of {}", elements.len(), count));
                }
                let shape = elements.remove(0);
                let mut all = Vec::new();
                if count > 0 {
                    all.push(shape);
                    all.append(&mut elements);
                    let shape = self.reshape(&all[0]);
                    return Field { name, tag, kind: Kind::StructSlice { shape, elements: all } };
                }
                return Field { name, tag, kind: Kind::StructSlice { shape, elements: all } };
            }
            _ => {}
        }
        if w.len() < 3 {
            self.bad(n, "a field needs a value");
        }
        let tag = self.tag(n, w.get(3));
        let (ty, row, array) = if let Some(raw) = w[0].strip_prefix("raw:") {
            let (e, f) = raw.split_once(':').unwrap_or_else(|| self.bad(n, "expected raw:<enc>:<fmt>"));
            let e = parse_hex(e).filter(|v| v.len() == 1).unwrap_or_else(|| self.bad(n, "bad raw encoding"))[0];
            let f = parse_hex(f).filter(|v| v.len() == 1).unwrap_or_else(|| self.bad(n, "bad raw format"))[0];
            let array = match e & 0x60 {
                0 => Array::None,
                VARRAY => Array::Variable,
                CARRAY => Array::Constant,
                _ => self.bad(n, "both array flags"),
            };
            (String::new(), TypeRow { enc: e & 0x1f, fmt: f & 0x7f }, array)
        } else {
            let (base, array) = if let Some(b) = w[0].strip_suffix("_slice") {
                (b, Array::Variable)
            } else if let Some(b) = w[0].strip_suffix("_array") {
                (b, Array::Constant)
            } else {
                (w[0], Array::None)
            };
            let row = *self.types.get(base).unwrap_or_else(|| self.bad(n, &format!("unknown type {}", w[0])));
            (base.to_string(), row, array)
        };
        let unit = unit_size(row.enc);
        let is_value = (ENC_VALUE8..=ENC_VALUE128).contains(&row.enc);
        if unit == 0 || (array != Array::None && !is_value) {
            self.bad(n, &format!("{}: not a value or string type", w[0]));
        }
        let values: Vec<Vec<u8>> = if !with_values {
            Vec::new()
        } else if array == Array::None {
            let v = if w[2] == "-" { Vec::new() } else { parse_hex(w[2]).unwrap_or_else(|| self.bad(n, "bad hex")) };
            if (is_value && v.len() != unit) || v.len() % unit != 0 {
                self.bad(n, &format!("{} bytes for {}", v.len(), w[0]));
            }
            vec![v]
        } else if w[2] == "-" {
            Vec::new()
        } else {
            w[2].split(',')
                .map(|x| {
                    let v = parse_hex(x).unwrap_or_else(|| self.bad(n, "bad hex"));
                    if v.len() != unit {
                        self.bad(n, &format!("{} bytes for an element of {}", v.len(), w[0]));
                    }
                    v
                })
                .collect()
        };
        Field { name, tag, kind: Kind::Value { ty, enc: row.enc, fmt: row.fmt, array, values } }
    }

    /// The members of an element, for the metadata (same shape, values dropped).
    fn reshape(&self, members: &[Field]) -> Vec<Field> {
        members
            .iter()
            .map(|f| Field {
                name: f.name.clone(),
                tag: f.tag,
                kind: match &f.kind {
                    Kind::Value { ty, enc, fmt, array, .. } => {
                        Kind::Value { ty: ty.clone(), enc: *enc, fmt: *fmt, array: *array, values: Vec::new() }
                    }
                    Kind::Struct(m) => Kind::Struct(self.reshape(m)),
                    Kind::StructSlice { shape, .. } => {
                        Kind::StructSlice { shape: self.reshape(shape), elements: Vec::new() }
                    }
                },
            })
            .collect()
    }
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

/// The literal of one value of Rust type `t` from its little-endian bytes.
fn literal(t: &str, b: &[u8]) -> String {
    let v = le(b);
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
                let mut items = Vec::new();
                self.raw_meta(f, &mut items)?;
                let mut data = Vec::new();
                raw_data(f, &mut data);
                let a = self.arg("&[u8]".into(), "&'static [u8]".into(), false, byte_str(&data));
                items.push(format!("raw_data({})", a));
                Ok(items.join(", "))
            }
            Kind::Value { ty, enc, fmt, array, values } => {
                if *array == Array::Constant {
                    return Err(carray());
                }
                let unit = unit_size(*enc);
                let is_value = (ENC_VALUE8..=ENC_VALUE128).contains(enc);
                if ty.is_empty() || (*array == Array::Variable && NO_SLICE.contains(&ty.as_str())) {
                    // raw:<enc>:<fmt>, or an array of a type with no _slice: raw_field(_slice)
                    // with the encoding and format, the bytes as the payload has them.
                    let mut data = Vec::new();
                    value_data(*enc, *array, values, unit, &mut data);
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
                    let a = self.arg(format!("&[{}]", t), format!("&'static [{}]", t), false, units_literal(t, unit, &values[0]));
                    return Ok(format!("{}({}, {}{})", ty, rust_str(name), a, self.opts(None, f.tag)));
                }
                let mut rt = rust_type(ty).ok_or_else(|| format!("{}: no write_event! value type", ty))?;
                let mut mty = ty.clone();
                let mut fmt_opt = None;
                if ty == "bool8" && values.iter().any(|v| v[0] > 1) {
                    // bool8 takes &bool: a byte other than 0 or 1 is no Rust bool. u8 with
                    // format(Boolean) writes the same metadata (Value8 + Boolean).
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
                            s.push_str(&literal(rt, v));
                        }
                        s.push(']');
                        s
                    };
                    let a = self.arg(format!("&[{}]", rt), format!("&'static [{}]", rt), false, lit);
                    Ok(format!("{}_slice({}, {}{})", mty, rust_str(name), a, self.opts(fmt_opt, f.tag)))
                } else {
                    let a = self.arg(format!("&{}", rt), rt.to_string(), true, literal(rt, &values[0]));
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

/// The payload bytes of a value field.
fn value_data(enc: u8, array: Array, values: &[Vec<u8>], unit: usize, out: &mut Vec<u8>) {
    if array == Array::Variable {
        out.extend_from_slice(&(values.len() as u16).to_le_bytes());
    }
    for v in values {
        match enc {
            7..=9 => {
                out.extend_from_slice(v);
                out.extend(std::iter::repeat(0).take(unit));
            }
            ENC_STRING8..=ENC_BINARY8 => {
                out.extend_from_slice(&((v.len() / unit) as u16).to_le_bytes());
                out.extend_from_slice(v);
            }
            _ => out.extend_from_slice(v),
        }
    }
}

/// The payload bytes of a field inside a flattened array of structs.
fn raw_data(f: &Field, out: &mut Vec<u8>) {
    match &f.kind {
        Kind::Value { enc, array, values, .. } => value_data(*enc, *array, values, unit_size(*enc).max(1), out),
        Kind::Struct(m) => m.iter().for_each(|x| raw_data(x, out)),
        Kind::StructSlice { elements, .. } => {
            out.extend_from_slice(&(elements.len() as u16).to_le_bytes());
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
fn provider_problem(p: &Provider) -> Option<String> {
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
    providers: &'a [Provider],
    symbols: Vec<String>,
    problems: Vec<Option<String>>,
    shapes: Vec<Shape>,
    shape_ids: HashMap<(String, Vec<Arg>), usize>,
    blocks: Vec<String>,
}

enum Planned {
    Skip(usize, String),
    Call(usize, usize, Vec<String>),
}

impl<'a> CaseGen<'a> {
    fn plan(&mut self, e: &Event) -> Planned {
        match self.try_plan(e) {
            Ok((code, args, values)) => {
                let key = (code, args);
                let id = match self.shape_ids.get(&key) {
                    Some(&id) => id,
                    None => {
                        self.shapes.push(Shape { code: key.0.clone(), args: key.1.clone() });
                        self.shape_ids.insert(key, self.shapes.len() - 1);
                        self.shapes.len() - 1
                    }
                };
                Planned::Call(e.ordinal, id, values)
            }
            Err(why) => Planned::Skip(e.ordinal, why),
        }
    }

    fn try_plan(&self, e: &Event) -> Result<(String, Vec<Arg>, Vec<String>), String> {
        if let Some(why) = &self.problems[e.provider] {
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
        let mut g = Gen { code: String::new(), args: Vec::new(), values: Vec::new(), meta: 1 + e.name.len() + 1, top: 0 };
        let mut parts = vec![
            self.symbols[e.provider].clone(),
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
        Ok((g.code, g.args, g.values))
    }

    /// The body of a block of steps.
    fn body(&mut self, steps: &[Step]) -> String {
        let mut out = String::new();
        let mut i = 0;
        while i < steps.len() {
            match &steps[i] {
                Step::Register(p) | Step::Unregister(p) => {
                    let reg = matches!(steps[i], Step::Register(_));
                    let pname = String::from_utf8_lossy(&self.providers[*p].name).into_owned();
                    let call = match &self.problems[*p] {
                        Some(_) => "None".to_string(),
                        None if reg => format!("Some(&|| unsafe {{ {}.register() }})", self.symbols[*p]),
                        None => format!("Some(&|| {}.unregister())", self.symbols[*p]),
                    };
                    let _ = writeln!(out, "    r.{}({}, {}, {});", if reg { "register" } else { "unregister" }, p, rust_str(&pname), call);
                    i += 1;
                }
                Step::Event(_) => {
                    // A run of events: consecutive calls of one shape become a table.
                    let mut plans = Vec::new();
                    while let Some(Step::Event(e)) = steps.get(i) {
                        plans.push(self.plan(e));
                        i += 1;
                    }
                    let mut k = 0;
                    while k < plans.len() {
                        match &plans[k] {
                            Planned::Skip(o, why) => {
                                let _ = writeln!(out, "    r.skip({}, {});", o, rust_str(why));
                                k += 1;
                            }
                            Planned::Call(_, id, _) => {
                                let id = *id;
                                let mut end = k;
                                while matches!(plans.get(end), Some(Planned::Call(_, s, _)) if *s == id) {
                                    end += 1;
                                }
                                self.calls(&mut out, id, &plans[k..end]);
                                k = end;
                            }
                        }
                    }
                }
                Step::Threads(blocks) => {
                    let fns: Vec<String> = blocks.iter().map(|b| self.block(b)).collect();
                    let _ = writeln!(out, "    r.threads(&[{}]);", fns.join(", "));
                    i += 1;
                }
                Step::Fork(child, parent) => {
                    let mut ords = Vec::new();
                    ordinals(child, &mut ords);
                    let c = self.block(child);
                    let p = self.block(parent);
                    let list: Vec<String> = ords.iter().map(|o| o.to_string()).collect();
                    let _ = writeln!(out, "    r.fork({}, {}, &[{}]);", c, p, list.join(", "));
                    i += 1;
                }
            }
        }
        out
    }

    fn calls(&self, out: &mut String, id: usize, run: &[Planned]) {
        let shape = &self.shapes[id];
        let pass = |row: &str| -> String {
            shape
                .args
                .iter()
                .enumerate()
                .map(|(k, a)| if a.by_ref { format!("&{}.{}", row, k + 1) } else { format!("{}.{}", row, k + 1) })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if run.len() == 1 {
            if let Planned::Call(o, _, values) = &run[0] {
                let args: Vec<String> = shape
                    .args
                    .iter()
                    .zip(values)
                    .map(|(a, v)| if a.by_ref { format!("&{}", v) } else { v.clone() })
                    .collect();
                let _ = writeln!(out, "    r.event({}, || s{}({}));", o, id, args.join(", "));
            }
            return;
        }
        let mut row_ty = String::from("(usize");
        for a in &shape.args {
            let _ = write!(row_ty, ", {}", a.row);
        }
        row_ty.push(')');
        let _ = writeln!(out, "    {{\n        static T: [{}; {}] = [", row_ty, run.len());
        for p in run {
            if let Planned::Call(o, _, values) = p {
                let _ = write!(out, "            ({}", o);
                for v in values {
                    let _ = write!(out, ", {}", v);
                }
                out.push_str("),\n");
            }
        }
        let _ = writeln!(out, "        ];\n        for row in T.iter() {{\n            r.event(row.0, || s{}({}));\n        }}\n    }}", id, pass("row"));
    }

    /// A block as a function of its own; its name.
    fn block(&mut self, steps: &[Step]) -> String {
        let body = self.body(steps);
        let name = format!("b{}", self.blocks.len());
        self.blocks.push(format!("fn {}(r: &Runner) {{\n{}}}\n", name, body));
        name
    }
}

fn ordinals(steps: &[Step], out: &mut Vec<usize>) {
    for s in steps {
        match s {
            Step::Event(e) => out.push(e.ordinal),
            Step::Threads(b) => b.iter().for_each(|x| ordinals(x, out)),
            Step::Fork(c, p) => {
                ordinals(c, out);
                ordinals(p, out)
            }
            _ => {}
        }
    }
}

fn generate_case(path: &Path, types: &HashMap<String, TypeRow>, out: &mut String) -> (String, String) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| fail(path, 0, &format!("{} (descriptions are ASCII)", e)));
    let items = desc::items(&text).unwrap_or_else(|(n, why)| fail(path, n, &why));
    let lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_ascii_whitespace().collect::<Vec<_>>()))
        .filter(|(_, w)| !w.is_empty() && !w[0].starts_with('#'))
        .collect();
    let mut p = Parser { path, lines, pos: 0, ordinal: 0, current: None, providers: Vec::new(), types };
    let steps = p.steps(None).0;
    let case = items.case.clone();
    let ident: String = case.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let module = format!("c_{}", ident.to_ascii_lowercase());
    let symbols: Vec<String> = (0..p.providers.len()).map(|k| format!("P_{}_{}", ident.to_ascii_uppercase(), k)).collect();
    let problems: Vec<Option<String>> = p.providers.iter().map(provider_problem).collect();
    let mut g = CaseGen { providers: &p.providers, symbols, problems, shapes: Vec::new(), shape_ids: HashMap::new(), blocks: Vec::new() };
    let main = g.body(&steps);

    let _ = writeln!(out, "/// impl/events/{}.events\n#[allow(unused_imports, clippy::all)]\nmod {} {{\n    use super::Runner;", case, module);
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
    let _ = write!(out, "    pub static ITEMS: &[(bool, u64)] = &[");
    for it in &items.items {
        let _ = write!(out, "({}, 0x{:016x}),", it.is_event, it.hash);
    }
    out.push_str("];\n");
    let names: Vec<String> = p.providers.iter().map(|pr| rust_str(&String::from_utf8_lossy(&pr.name))).collect();
    let _ = writeln!(out, "    pub static PROVIDERS: &[&str] = &[{}];\n}}\n", names.join(", "));
    let events = items.items.iter().filter(|i| i.is_event).count();
    assert_eq!(events, p.ordinal, "{}: item and event counts differ", path.display());
    (case, format!("Case {{ name: {}, items: {m}::ITEMS, events: {}, providers: {m}::PROVIDERS, run: {m}::run }}", rust_str(&items.case), events, m = module))
}

fn main() {
    let events_dir = PathBuf::from(env::var("EHCONF_EVENTS_DIR").expect("EHCONF_EVENTS_DIR: the folder of the case descriptions (impl/rust-macro/build sets it)"));
    let types_txt = PathBuf::from(env::var("EHCONF_TYPES_TXT").expect("EHCONF_TYPES_TXT: impl/events/types.txt (impl/rust-macro/build sets it)"));
    let ptr: usize = env::var("CARGO_CFG_TARGET_POINTER_WIDTH").ok().and_then(|w| w.parse().ok()).unwrap_or(64) / 8;
    println!("cargo:rerun-if-env-changed=EHCONF_EVENTS_DIR");
    println!("cargo:rerun-if-env-changed=EHCONF_TYPES_TXT");
    println!("cargo:rerun-if-changed={}", events_dir.display());
    println!("cargo:rerun-if-changed={}", types_txt.display());
    let types = read_types(&types_txt, ptr);
    let mut files: Vec<PathBuf> = fs::read_dir(&events_dir)
        .unwrap_or_else(|e| fail(&events_dir, 0, &e.to_string()))
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().map(|e| e == "events").unwrap_or(false))
        .collect();
    files.sort();
    let mut out = String::from("// Generated by impl/rust-macro/build.rs from the case descriptions: do not edit.\n\n");
    let mut cases = Vec::new();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        cases.push(generate_case(f, &types, &mut out).1);
    }
    let _ = writeln!(out, "pub static CASES: &[Case] = &[\n    {}\n];", cases.join(",\n    "));
    let dest = PathBuf::from(env::var("OUT_DIR").unwrap()).join("cases.rs");
    fs::write(&dest, out).unwrap_or_else(|e| fail(&dest, 0, &e.to_string()));
}
