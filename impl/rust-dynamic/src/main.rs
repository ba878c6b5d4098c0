// SPDX-License-Identifier: GPL-2.0
//
// emit <file.events>: ehconf's emitter for microsoft/LinuxTracepoints-Rust's
// eventheader_dynamic crate (Provider, EventSet, EventBuilder).
//
// Reads a case description (Documentation/case-descriptions.md) and writes every event of
// it through that crate, with the steps it names (register, unregister, threads, fork: the
// child's block in a forked child while this process runs the `parent` block, then waits).
// eventheader_dynamic registers nothing per provider: `register` creates the Provider, and
// each event takes Provider::register_set(level, keyword); `unregister` is
// Provider::unregister, after which an event goes to an unregistered EventSet.
// Prints one line per `event` statement, numbered from 1 in file order:
//   event <n> written
//   event <n> skipped <reason>       the crate cannot express it: nothing was written
//   event <n> failed <reason>        the crate refused it (`<call> returned <ERRNO> (<n>)`)
//                                    or panicked (`panic: <message> at <crate file:line>`)
// then `emit: N written, N skipped, N failed`. Exit status 0 when every event was
// written, 1 otherwise, 2 for a description it cannot parse (`file:line: reason` on
// stderr). `emit --types` prints the type table it was built with (name, encoding and
// format in hex, unit size).
//
// A field type name means the encoding and format impl/events/types.txt gives it (compiled
// in by impl/rust-dynamic/build); the emitter then calls the EventBuilder method that
// writes that encoding with that format: add_value (value8..value128, by the Rust type's
// size), add_value_sequence (their variable-length arrays), add_cstr (zstring_char8/16/32),
// add_str (string_length16_char8/16/32), add_binary (binary_length16_char8), add_struct.
// An array of structs has no add_* method: it goes through raw_add_meta_vcount /
// raw_add_meta_scalar / raw_add_data_value / raw_add_data_slice, which the crate documents
// for it (builder.rs, "e.g. array-of-struct"). Built in release mode (debug assertions
// off), as users ship it: a precondition the crate only debug_asserts is then what a
// user's release build does.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use eventheader_dynamic as ehd;
use ehd::{EventBuilder, EventSet, FieldEncoding, FieldFormat, Level, Opcode, Provider};

/// impl/events/types.txt, as it was when the emitter was built.
const TYPES_TXT: &str = include_str!(env!("EHCONF_TYPES_TXT"));

// ---- encodings --------------------------------------------------------------------------

const ENC_STRUCT: u8 = 1;
const ENC_VALUE8: u8 = 2;
const ENC_VALUE16: u8 = 3;
const ENC_VALUE32: u8 = 4;
const ENC_VALUE64: u8 = 5;
const ENC_VALUE128: u8 = 6;
const ENC_ZSTRING8: u8 = 7;
const ENC_ZSTRING16: u8 = 8;
const ENC_ZSTRING32: u8 = 9;
const ENC_STRING8: u8 = 10;
const ENC_STRING16: u8 = 11;
const ENC_STRING32: u8 = 12;
const ENC_BINARY8: u8 = 13;
const CARRAY_FLAG: u8 = 0x20;
/// Structs within structs the parser follows (as ehconf's own emitter).
const MAX_DEPTH: usize = 1024;
const VARRAY_FLAG: u8 = 0x40;

const ENCODING_NAMES: &[(&str, u8)] = &[
    ("struct", ENC_STRUCT),
    ("value8", ENC_VALUE8),
    ("value16", ENC_VALUE16),
    ("value32", ENC_VALUE32),
    ("value64", ENC_VALUE64),
    ("value128", ENC_VALUE128),
    ("zstring_char8", ENC_ZSTRING8),
    ("zstring_char16", ENC_ZSTRING16),
    ("zstring_char32", ENC_ZSTRING32),
    ("string_length16_char8", ENC_STRING8),
    ("string_length16_char16", ENC_STRING16),
    ("string_length16_char32", ENC_STRING32),
    ("binary_length16_char8", ENC_BINARY8),
];

const FORMAT_NAMES: &[&str] = &[
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

/// Bytes of one value (value encodings) or one code unit (strings); 0 for a struct.
fn unit_size(enc: u8) -> usize {
    match enc {
        ENC_VALUE8 | ENC_ZSTRING8 | ENC_STRING8 | ENC_BINARY8 => 1,
        ENC_VALUE16 | ENC_ZSTRING16 | ENC_STRING16 => 2,
        ENC_VALUE32 | ENC_ZSTRING32 | ENC_STRING32 => 4,
        ENC_VALUE64 => 8,
        ENC_VALUE128 => 16,
        _ => 0,
    }
}

fn is_value(enc: u8) -> bool {
    (ENC_VALUE8..=ENC_VALUE128).contains(&enc)
}

struct TypeRow {
    name: String,
    enc: u8,
    fmt: u8,
}

/// types.txt: `name encoding format unit` rows (names of Documentation/eventheader-wire.md;
/// value_ptr is value64 or value32 by the size of a pointer).
fn read_types(text: &str) -> Result<Vec<TypeRow>, String> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("types.txt:{}: {}", i + 1, why);
        if words.len() != 4 {
            return Err(bad("expected `name encoding format unit`"));
        }
        let enc = if words[1] == "value_ptr" {
            if std::mem::size_of::<usize>() == 8 {
                ENC_VALUE64
            } else {
                ENC_VALUE32
            }
        } else {
            match ENCODING_NAMES.iter().find(|(n, _)| *n == words[1]) {
                Some((_, e)) => *e,
                None => return Err(bad(&format!("unknown encoding {}", words[1]))),
            }
        };
        let fmt = match FORMAT_NAMES.iter().position(|n| *n == words[2]) {
            Some(f) => f as u8,
            None => return Err(bad(&format!("unknown format {}", words[2]))),
        };
        let unit = if words[3] == "ptr" {
            std::mem::size_of::<usize>()
        } else {
            words[3].parse::<usize>().unwrap_or(0)
        };
        if unit != unit_size(enc) {
            return Err(bad(&format!("unit {} does not match {}", words[3], words[1])));
        }
        rows.push(TypeRow { name: words[0].to_string(), enc, fmt });
    }
    Ok(rows)
}

// ---- the description --------------------------------------------------------------------

type ProviderKey = (Vec<u8>, Option<Vec<u8>>);

#[derive(Clone, Copy, PartialEq)]
enum Array {
    None,
    Variable,
    Constant,
}

enum Kind {
    /// A value or string field (enc without array flags); values: one per element.
    Value { enc: u8, fmt: u8, array: Array, values: Vec<Vec<u8>> },
    Struct(Vec<Field>),
    /// shape: the members for the metadata; elements: each element's members.
    StructSlice { shape: Vec<Field>, elements: Vec<Vec<Field>> },
}

struct Field {
    name: Vec<u8>,
    tag: u16,
    kind: Kind,
}

struct Event {
    ordinal: usize,
    provider: ProviderKey,
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
    Register(ProviderKey),
    Unregister(ProviderKey),
    Event(Box<Event>),
    Threads(Vec<Vec<Step>>),
    /// The child's block and the parent's (`parent`), run at the same time.
    Fork(Vec<Step>, Vec<Step>),
}

struct ParseError {
    line: usize,
    why: String,
}

fn perr<T>(line: usize, why: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, why: why.into() })
}

struct Parser<'a> {
    lines: Vec<(usize, Vec<&'a str>)>,
    pos: usize,
    ordinal: usize,
    provider: Option<ProviderKey>,
    types: &'a [TypeRow],
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
    b.chunks(2)
        .map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?))
        .collect()
}

/// A name token: `%XX` escapes, `-` for the empty name.
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
    Some(out)
}

/// A name token that EventHeader can carry: no NUL byte (names end with one).
fn name_token(line: usize, s: &str) -> Result<Vec<u8>, ParseError> {
    match parse_name(s) {
        None => perr(line, format!("bad %XX escape in {:.60}", s)),
        Some(v) if v.contains(&0) => perr(line, "a name cannot hold a NUL byte (%00)"),
        Some(v) => Ok(v),
    }
}

fn parse_uint(s: &str, max: u64) -> Option<u64> {
    let v = if let Some(h) = s.strip_prefix("0x") {
        if h.is_empty() || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(h, 16).ok()?
    } else {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse::<u64>().ok()?
    };
    if v > max {
        None
    } else {
        Some(v)
    }
}

fn parse_id16(s: &str) -> Option<[u8; 16]> {
    let v = parse_hex(s)?;
    v.try_into().ok()
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, types: &'a [TypeRow]) -> Self {
        let lines = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.split_ascii_whitespace().collect::<Vec<_>>()))
            .filter(|(_, w)| !w.is_empty() && !w[0].starts_with('#'))
            .collect();
        Parser { lines, pos: 0, ordinal: 0, provider: None, types }
    }

    fn next(&mut self) -> Option<(usize, Vec<&'a str>)> {
        let l = self.lines.get(self.pos).cloned();
        self.pos += 1;
        l
    }

    fn last_line(&self) -> usize {
        self.lines.last().map(|l| l.0).unwrap_or(1)
    }

    /// The file ended inside the block `what` opened on line `at`.
    fn unclosed<T>(&self, what: &str, at: usize) -> Result<T, ParseError> {
        perr(self.last_line(), format!("`{}` of line {} has no `end`", what, at))
    }

    fn parse(&mut self) -> Result<Vec<Step>, ParseError> {
        match self.next() {
            Some((_, w)) if w[0] == "case" && w.len() == 2 => {}
            Some((n, _)) => return perr(n, "the first statement must be `case <name>`"),
            None => return perr(1, "empty description: expected `case <name>`"),
        }
        Ok(self.steps(None)?.0)
    }

    /// Statements up to the `end` of `block` (None: the end of the file), or up to the
    /// `parent` of a `fork` block (then true).
    fn steps(&mut self, block: Option<(usize, &str)>) -> Result<(Vec<Step>, bool), ParseError> {
        let mut steps = Vec::new();
        loop {
            let (n, w) = match self.next() {
                Some(l) => l,
                None => match block {
                    None => return Ok((steps, false)),
                    Some((at, what)) => return self.unclosed(what, at),
                },
            };
            match w[0] {
                "end" if w.len() == 1 => match block {
                    Some(_) => return Ok((steps, false)),
                    None => return perr(n, "`end` without a block"),
                },
                "parent" if w.len() == 1 => match block {
                    Some((_, "fork")) => return Ok((steps, true)),
                    _ => return perr(n, "`parent` belongs inside a `fork` block, once"),
                },
                "needs" if w.len() == 2 && block.is_none() => {}
                "provider" => {
                    if w.len() < 2 || w.len() > 3 {
                        return perr(n, "expected `provider <name> [group=<group>]`");
                    }
                    let name = name_token(n, w[1])?;
                    let group = match w.get(2) {
                        None => None,
                        Some(g) => match g.strip_prefix("group=") {
                            Some(g) => Some(name_token(n, g)?),
                            None => return perr(n, format!("expected group=<group>, got {}", g)),
                        },
                    };
                    self.provider = Some((name, group));
                }
                "register" | "unregister" if w.len() == 1 => {
                    let key = match &self.provider {
                        Some(k) => k.clone(),
                        None => return perr(n, format!("`{}` needs a `provider` before it", w[0])),
                    };
                    steps.push(if w[0] == "register" { Step::Register(key) } else { Step::Unregister(key) });
                }
                "event" => steps.push(Step::Event(Box::new(self.event(n, &w)?))),
                "threads" if w.len() == 1 => {
                    let mut threads = Vec::new();
                    loop {
                        match self.next() {
                            Some((_, t)) if t[0] == "end" && t.len() == 1 => break,
                            Some((tn, t)) if t[0] == "thread" && t.len() == 1 => {
                                threads.push(self.steps(Some((tn, "thread")))?.0)
                            }
                            Some((tn, _)) => return perr(tn, "expected `thread` or `end` inside `threads`"),
                            None => return self.unclosed("threads", n),
                        }
                    }
                    steps.push(Step::Threads(threads));
                }
                "fork" if w.len() == 1 => {
                    let (child, more) = self.steps(Some((n, "fork")))?;
                    let parent = if more { self.steps(Some((n, "fork/parent")))?.0 } else { Vec::new() };
                    steps.push(Step::Fork(child, parent));
                }
                _ => return perr(n, format!("unexpected statement `{}`", w.join(" "))),
            }
        }
    }

    fn event(&mut self, n: usize, w: &[&str]) -> Result<Event, ParseError> {
        self.ordinal += 1;
        if w.len() < 2 {
            return perr(n, "expected `event <name> level=<n> keyword=0x<hex> ...`");
        }
        let provider = match &self.provider {
            Some(k) => k.clone(),
            None => return perr(n, "an event needs a `provider` before it"),
        };
        let mut e = Event {
            ordinal: self.ordinal,
            provider,
            name: name_token(n, w[1])?,
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
            let (k, v) = match a.split_once('=') {
                Some(kv) => kv,
                None => return perr(n, format!("expected key=value, got {}", a)),
            };
            let bad = || ParseError { line: n, why: format!("bad {} value {}", k, v) };
            match k {
                "level" => {
                    e.level = parse_uint(v, 255).ok_or_else(bad)? as u8;
                    level = true;
                }
                "keyword" => {
                    if !v.starts_with("0x") {
                        return Err(bad());
                    }
                    e.keyword = parse_uint(v, u64::MAX).ok_or_else(bad)?;
                    keyword = true;
                }
                "opcode" => e.opcode = parse_uint(v, 255).ok_or_else(bad)? as u8,
                "tag" => e.tag = parse_uint(v, 0xffff).ok_or_else(bad)? as u16,
                "id" => e.id = parse_uint(v, 0xffff).ok_or_else(bad)? as u16,
                "version" => e.version = parse_uint(v, 255).ok_or_else(bad)? as u8,
                "activity" => e.activity = Some(parse_id16(v).ok_or_else(bad)?),
                "related" => e.related = Some(parse_id16(v).ok_or_else(bad)?),
                "needs" => {}
                _ => return perr(n, format!("unknown event attribute {}", k)),
            }
        }
        if !level || !keyword {
            return perr(n, "an event needs level=<n> and keyword=0x<hex>");
        }
        e.fields = self.fields(n, "event", 0)?;
        Ok(e)
    }

    /// Fields up to the `end` of the block opened on line `at`, `depth` structs down.
    fn fields(&mut self, at: usize, what: &str, depth: usize) -> Result<Vec<Field>, ParseError> {
        if depth > MAX_DEPTH {
            return perr(at, format!("structs nested deeper than {}", MAX_DEPTH));
        }
        let mut fields = Vec::new();
        loop {
            let (n, w) = match self.next() {
                Some(l) => l,
                None => return self.unclosed(what, at),
            };
            if w[0] == "end" && w.len() == 1 {
                return Ok(fields);
            }
            fields.push(self.field(n, &w, depth)?);
        }
    }

    fn tag(n: usize, w: Option<&&str>) -> Result<u16, ParseError> {
        match w {
            None => Ok(0),
            Some(t) => match t.strip_prefix("tag=") {
                Some(v) if v.starts_with("0x") => match parse_uint(v, 0xffff) {
                    Some(t) => Ok(t as u16),
                    None => perr(n, format!("bad tag {}", v)),
                },
                _ => perr(n, format!("expected tag=0x<hex>, got {}", t)),
            },
        }
    }

    fn field(&mut self, n: usize, w: &[&str], depth: usize) -> Result<Field, ParseError> {
        let name_of = |s: &str| name_token(n, s);
        match w[0] {
            "struct" => {
                if w.len() < 2 || w.len() > 3 {
                    return perr(n, "expected `struct <name> [tag=0x<hex>]`");
                }
                let name = name_of(w[1])?;
                let tag = Self::tag(n, w.get(2))?;
                let members = self.fields(n, "struct", depth + 1)?;
                Ok(Field { name, tag, kind: Kind::Struct(members) })
            }
            "struct_slice" => {
                if w.len() < 3 || w.len() > 4 {
                    return perr(n, "expected `struct_slice <name> <count> [tag=0x<hex>]`");
                }
                let name = name_of(w[1])?;
                let count = match parse_uint(w[2], 65535) {
                    Some(c) => c as usize,
                    None => return perr(n, format!("bad count {}", w[2])),
                };
                let tag = Self::tag(n, w.get(3))?;
                let mut blocks = Vec::new();
                for _ in 0..count.max(1) {
                    match self.next() {
                        Some((en, e)) if e[0] == "element" && e.len() == 1 => {
                            blocks.push(self.fields(en, "element", depth + 1)?)
                        }
                        Some((en, _)) => {
                            let why = format!("expected `element` ({} of {})", blocks.len() + 1, count.max(1));
                            return perr(en, why);
                        }
                        None => return self.unclosed("struct_slice", n),
                    }
                }
                match self.next() {
                    Some((_, e)) if e[0] == "end" && e.len() == 1 => {}
                    Some((en, _)) => {
                        return perr(en, format!("expected `end` after {} element block(s)", count.max(1)))
                    }
                    None => return self.unclosed("struct_slice", n),
                }
                let shape_sig = signature(&blocks[0]);
                if blocks.iter().any(|b| signature(b) != shape_sig) {
                    return perr(n, "the elements of a struct_slice have different members");
                }
                let shape = blocks.remove(0);
                let elements = if count == 0 {
                    Vec::new()
                } else {
                    let mut all = vec![clone_shape(&shape)];
                    all.extend(blocks);
                    all
                };
                Ok(Field { name, tag, kind: Kind::StructSlice { shape, elements } })
            }
            _ => {
                if w.len() < 3 || w.len() > 4 {
                    return perr(n, "expected `<type> <name> <value> [tag=0x<hex>]`");
                }
                let (enc, fmt, array) = self.resolve(n, w[0])?;
                let name = name_of(w[1])?;
                let tag = Self::tag(n, w.get(3))?;
                let unit = unit_size(enc);
                if array != Array::None && !is_value(enc) {
                    return perr(n, "an array of strings has no description syntax");
                }
                let texts: Vec<&str> = match (array, w[2]) {
                    (Array::None, "-") => vec![""],
                    (Array::None, v) => vec![v],
                    (_, "-") => Vec::new(),
                    (_, v) => v.split(',').collect(),
                };
                if array == Array::Constant && texts.is_empty() {
                    return perr(n, "a constant-length array needs 1 to 65535 values");
                }
                let mut values = Vec::with_capacity(texts.len());
                for t in texts {
                    let v = match parse_hex(t) {
                        Some(v) => v,
                        None => return perr(n, format!("bad hex value {:.40}", t)),
                    };
                    if is_value(enc) && v.len() != unit {
                        return perr(n, format!("{} needs {} bytes per value, got {}", w[0], unit, v.len()));
                    }
                    if v.len() % unit != 0 {
                        let why = format!("{} needs a multiple of {} bytes, got {}", w[0], unit, v.len());
                        return perr(n, why);
                    }
                    if !is_value(enc) && v.len() / unit > 65535 {
                        return perr(n, "a string has at most 65535 units");
                    }
                    let zstring = (ENC_ZSTRING8..=ENC_ZSTRING32).contains(&enc);
                    if zstring && v.chunks(unit).any(|u| u.iter().all(|&b| b == 0)) {
                        return perr(n, format!("{}: a 0 unit inside a zero-terminated string", w[0]));
                    }
                    values.push(v);
                }
                if values.len() > 65535 {
                    return perr(n, "an array has at most 65535 values");
                }
                Ok(Field { name, tag, kind: Kind::Value { enc, fmt, array, values } })
            }
        }
    }

    /// A type name: a types.txt row, `<row>_slice`, `<row>_array` or raw:<enc>:<format>.
    fn resolve(&self, n: usize, t: &str) -> Result<(u8, u8, Array), ParseError> {
        if let Some(raw) = t.strip_prefix("raw:") {
            let parts: Vec<&str> = raw.split(':').collect();
            let byte = |s: &str| if s.len() == 2 { parse_hex(s).map(|b| b[0]) } else { None };
            let (e, f) = match (parts.as_slice(), parts.first().and_then(|s| byte(s))) {
                ([_, f], Some(e)) if byte(f).is_some() => (e, byte(f).unwrap_or(0)),
                _ => return perr(n, format!("expected raw:<enc hex>:<format hex>, got {}", t)),
            };
            let base = e & 0x1f;
            if e & 0x80 != 0 || f & 0x80 != 0 || e & 0x60 == 0x60 {
                return perr(n, format!("{}: chain flags or both array flags", t));
            }
            if base == ENC_STRUCT || base == 0 || base > ENC_BINARY8 {
                return perr(n, format!("{}: encoding {} is not a value or string encoding", t, base));
            }
            let array = match e & 0x60 {
                VARRAY_FLAG => Array::Variable,
                CARRAY_FLAG => Array::Constant,
                _ => Array::None,
            };
            return Ok((base, f, array));
        }
        let find = |name: &str| self.types.iter().find(|r| r.name == name);
        if let Some(r) = find(t) {
            return Ok((r.enc, r.fmt, Array::None));
        }
        for (suffix, array) in [("_slice", Array::Variable), ("_array", Array::Constant)] {
            if let Some(r) = t.strip_suffix(suffix).and_then(find) {
                return Ok((r.enc, r.fmt, array));
            }
        }
        perr(n, format!("unknown field type {} (impl/events/types.txt)", t))
    }
}

/// Names and types of a struct's members, to check a struct_slice's elements agree.
fn signature(fields: &[Field]) -> String {
    let mut s = String::new();
    for f in fields {
        s.push_str(&format!("{:?}/{}:", f.name, f.tag));
        match &f.kind {
            Kind::Value { enc, fmt, array, values } => {
                let len = if *array == Array::Constant { values.len() } else { 0 };
                s.push_str(&format!("v{}.{}.{}.{};", enc, fmt, *array as u8, len))
            }
            Kind::Struct(m) => s.push_str(&format!("s{{{}}};", signature(m))),
            Kind::StructSlice { shape, .. } => s.push_str(&format!("a{{{}}};", signature(shape))),
        }
    }
    s
}

fn clone_shape(fields: &[Field]) -> Vec<Field> {
    fields
        .iter()
        .map(|f| Field {
            name: f.name.clone(),
            tag: f.tag,
            kind: match &f.kind {
                Kind::Value { enc, fmt, array, values } => {
                    Kind::Value { enc: *enc, fmt: *fmt, array: *array, values: values.clone() }
                }
                Kind::Struct(m) => Kind::Struct(clone_shape(m)),
                Kind::StructSlice { shape, elements } => Kind::StructSlice {
                    shape: clone_shape(shape),
                    elements: elements.iter().map(|e| clone_shape(e)).collect(),
                },
            },
        })
        .collect()
}

// ---- what the crate cannot express ------------------------------------------------------

fn utf8(name: &[u8]) -> Option<&str> {
    std::str::from_utf8(name).ok()
}

/// Why the crate's API cannot write this event, or None.
fn inexpressible(e: &Event) -> Option<String> {
    fn fields(fs: &[Field], in_raw: bool) -> Option<String> {
        for f in fs {
            if utf8(&f.name).is_none() {
                return Some(format!(
                    "name-non-utf8: field name {:?} is not UTF-8; EventBuilder's add_* take field_name: &str",
                    String::from_utf8_lossy(&f.name)
                ));
            }
            match &f.kind {
                Kind::Value { array: Array::Constant, .. } => {
                    return Some(
                        "carray: no constant-length array in eventheader_dynamic \
                         (add_value_sequence, raw_add_meta_vcount: variable-length only)"
                            .into(),
                    )
                }
                Kind::Value { .. } => {}
                Kind::Struct(m) => {
                    if m.len() > 255 {
                        return Some(format!(
                            "struct-members>127: a struct of {} members; add_struct takes the count as a u8",
                            m.len()
                        ));
                    }
                    if in_raw && (m.is_empty() || m.len() > 127) {
                        return Some(format!(
                            "a struct of {} members inside an array of structs: the raw_add_meta_* \
                             format byte holds 1 to 127",
                            m.len()
                        ));
                    }
                    if let Some(r) = fields(m, in_raw) {
                        return Some(r);
                    }
                }
                Kind::StructSlice { shape, .. } => {
                    if shape.is_empty() || shape.len() > 127 {
                        return Some(format!(
                            "an array of structs of {} members: the raw_add_meta_vcount format \
                             byte holds 1 to 127",
                            shape.len()
                        ));
                    }
                    if let Some(r) = fields(shape, true) {
                        return Some(r);
                    }
                }
            }
        }
        None
    }
    let (name, group) = &e.provider;
    if utf8(name).is_none() || group.as_deref().map_or(false, |g| utf8(g).is_none()) {
        return Some("name-non-utf8: the provider name is not UTF-8; Provider::new takes name: &str".into());
    }
    if utf8(&e.name).is_none() {
        return Some(
            "name-non-utf8: the event name is not UTF-8; EventBuilder::reset takes name: &str".to_string(),
        );
    }
    if e.related.is_some() && e.activity.is_none() {
        return Some(
            "related-without-activity: EventBuilder::write drops related_id when activity_id is None".into(),
        );
    }
    fields(&e.fields, false)
}

// ---- building an event ------------------------------------------------------------------

fn units16(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()
}

fn units32(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(b);
    a
}

/// A field through the crate's add_* methods.
fn add_field(b: &mut EventBuilder, f: &Field) {
    let name = utf8(&f.name).unwrap_or_default();
    match &f.kind {
        Kind::Value { enc, fmt, array: Array::None, values } => {
            let v = &values[0];
            let fmt = FieldFormat::from_int(*fmt);
            match *enc {
                ENC_VALUE8 => b.add_value(name, v[0], fmt, f.tag),
                ENC_VALUE16 => b.add_value(name, u16::from_le_bytes(arr(v)), fmt, f.tag),
                ENC_VALUE32 => b.add_value(name, u32::from_le_bytes(arr(v)), fmt, f.tag),
                ENC_VALUE64 => b.add_value(name, u64::from_le_bytes(arr(v)), fmt, f.tag),
                ENC_VALUE128 => b.add_value(name, arr::<16>(v), fmt, f.tag),
                ENC_ZSTRING8 => b.add_cstr(name, &v[..], fmt, f.tag),
                ENC_ZSTRING16 => b.add_cstr(name, units16(v), fmt, f.tag),
                ENC_ZSTRING32 => b.add_cstr(name, units32(v), fmt, f.tag),
                ENC_STRING8 => b.add_str(name, &v[..], fmt, f.tag),
                ENC_STRING16 => b.add_str(name, units16(v), fmt, f.tag),
                ENC_STRING32 => b.add_str(name, units32(v), fmt, f.tag),
                ENC_BINARY8 => b.add_binary(name, &v[..], fmt, f.tag),
                _ => unreachable!("resolve() admits value and string encodings only"),
            };
        }
        Kind::Value { enc, fmt, values, .. } => {
            // A variable-length array (constant-length ones were skipped).
            let fmt = FieldFormat::from_int(*fmt);
            match *enc {
                ENC_VALUE8 => {
                    let v: Vec<u8> = values.iter().map(|v| v[0]).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag)
                }
                ENC_VALUE16 => {
                    let v: Vec<u16> = values.iter().map(|v| u16::from_le_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag)
                }
                ENC_VALUE32 => {
                    let v: Vec<u32> = values.iter().map(|v| u32::from_le_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag)
                }
                ENC_VALUE64 => {
                    let v: Vec<u64> = values.iter().map(|v| u64::from_le_bytes(arr(v))).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag)
                }
                ENC_VALUE128 => {
                    let v: Vec<[u8; 16]> = values.iter().map(|v| arr::<16>(v)).collect();
                    b.add_value_sequence(name, v.iter(), fmt, f.tag)
                }
                _ => unreachable!("the parser admits arrays of values only"),
            };
        }
        Kind::Struct(members) => {
            b.add_struct(name, members.len() as u8, f.tag);
            for m in members {
                add_field(b, m);
            }
        }
        Kind::StructSlice { shape, elements } => {
            let members = FieldFormat::from_int(shape.len() as u8);
            b.raw_add_meta_vcount(name, FieldEncoding::Struct, members, f.tag);
            for m in shape {
                raw_meta(b, m);
            }
            b.raw_add_data_value(&(elements.len() as u16));
            for e in elements {
                for m in e {
                    raw_data(b, m);
                }
            }
        }
    }
}

/// The metadata of a member of an array of structs (raw_add_meta_*).
fn raw_meta(b: &mut EventBuilder, f: &Field) {
    let name = utf8(&f.name).unwrap_or_default();
    match &f.kind {
        Kind::Value { enc, fmt, array, .. } => {
            let (e, ft) = (FieldEncoding::from_int(*enc), FieldFormat::from_int(*fmt));
            if *array == Array::Variable {
                b.raw_add_meta_vcount(name, e, ft, f.tag);
            } else {
                b.raw_add_meta_scalar(name, e, ft, f.tag);
            }
        }
        Kind::Struct(m) => {
            b.raw_add_meta_scalar(name, FieldEncoding::Struct, FieldFormat::from_int(m.len() as u8), f.tag);
            for x in m {
                raw_meta(b, x);
            }
        }
        Kind::StructSlice { shape, .. } => {
            let members = FieldFormat::from_int(shape.len() as u8);
            b.raw_add_meta_vcount(name, FieldEncoding::Struct, members, f.tag);
            for x in shape {
                raw_meta(b, x);
            }
        }
    }
}

/// The payload of a member of one element of an array of structs (raw_add_data_*).
fn raw_data(b: &mut EventBuilder, f: &Field) {
    match &f.kind {
        Kind::Value { enc, array, values, .. } => {
            if *array == Array::Variable {
                b.raw_add_data_value(&(values.len() as u16));
            }
            for v in values {
                match *enc {
                    ENC_ZSTRING8 | ENC_ZSTRING16 | ENC_ZSTRING32 => {
                        b.raw_add_data_slice(&v[..]);
                        b.raw_add_data_slice(&vec![0u8; unit_size(*enc)]);
                    }
                    ENC_STRING8 | ENC_STRING16 | ENC_STRING32 | ENC_BINARY8 => {
                        b.raw_add_data_value(&((v.len() / unit_size(*enc)) as u16));
                        b.raw_add_data_slice(&v[..]);
                    }
                    _ => {
                        b.raw_add_data_slice(&v[..]);
                    }
                }
            }
        }
        Kind::Struct(m) => {
            for x in m {
                raw_data(b, x);
            }
        }
        Kind::StructSlice { elements, .. } => {
            b.raw_add_data_value(&(elements.len() as u16));
            for e in elements {
                for x in e {
                    raw_data(b, x);
                }
            }
        }
    }
}

// ---- running the steps ------------------------------------------------------------------

fn errno_name(e: i32) -> String {
    let name = match e {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EBADF => "EBADF",
        libc::E2BIG => "E2BIG",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EEXIST => "EEXIST",
        libc::EINVAL => "EINVAL",
        libc::ENOTTY => "ENOTTY",
        libc::ENOSPC => "ENOSPC",
        libc::ERANGE => "ERANGE",
        libc::EMSGSIZE => "EMSGSIZE",
        libc::EADDRINUSE => "EADDRINUSE",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::EALREADY => "EALREADY",
        _ => return format!("errno {}", e),
    };
    format!("{} ({})", name, e)
}

thread_local! {
    /// The message and place of the last panic on this thread (set by the hook).
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// A path inside the crate's checkout, from the crate folder on (eventheader_dynamic/src/...).
fn short_path(p: &str) -> &str {
    match p.rfind("/src/") {
        Some(i) => match p[..i].rfind('/') {
            Some(j) => &p[j + 1..],
            None => p,
        },
        None => p,
    }
}

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let p = info.payload();
        let msg = if let Some(s) = p.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = p.downcast_ref::<String>() {
            s.clone()
        } else {
            "(no message)".to_string()
        };
        let at = match info.location() {
            Some(l) => format!(" at {}:{}", short_path(l.file()), l.line()),
            None => String::new(),
        };
        let text = format!("{}{}", msg.replace('\n', " "), at);
        eprintln!("emit: panic: {}", text);
        LAST_PANIC.with(|l| *l.borrow_mut() = text);
    }));
}

fn take_panic() -> String {
    LAST_PANIC.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

#[derive(Default)]
struct Slot {
    provider: Option<Provider>,
    registered: bool,
    /// Provider::new panicked: every event of the provider fails with this.
    broken: Option<String>,
}

struct Runner {
    slots: Mutex<HashMap<ProviderKey, Slot>>,
    written: AtomicUsize,
    skipped: AtomicUsize,
    failed: AtomicUsize,
}

enum Outcome {
    Written,
    Skipped(String),
    Failed(String),
}

impl Runner {
    fn report(&self, ordinal: usize, o: Outcome) {
        let line = match o {
            Outcome::Written => {
                self.written.fetch_add(1, Ordering::Relaxed);
                format!("event {} written", ordinal)
            }
            Outcome::Skipped(why) => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
                format!("event {} skipped {}", ordinal, why)
            }
            Outcome::Failed(why) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                format!("event {} failed {}", ordinal, why)
            }
        };
        let out = io::stdout();
        let mut out = out.lock();
        let _ = writeln!(out, "{}", line);
        let _ = out.flush();
    }

    fn register(&self, key: &ProviderKey) {
        let mut slots = self.slots.lock().unwrap();
        let slot = slots.entry(key.clone()).or_default();
        if slot.provider.is_none() && slot.broken.is_none() {
            let (name, group) = key;
            if let (Some(name), Some(group)) = (utf8(name), group.as_deref().map(utf8).unwrap_or(Some(""))) {
                // eventheader_dynamic has no provider registration of its own: Provider::new
                // only keeps the names, and register_set registers a tracepoint per level and
                // keyword at its first use. `register` creates the provider.
                let made = panic::catch_unwind(|| {
                    let mut options = Provider::new_options();
                    if !group.is_empty() {
                        options.group_name(group);
                    }
                    Provider::new(name, &options)
                });
                match made {
                    Ok(p) => slot.provider = Some(p),
                    Err(_) => slot.broken = Some(format!("Provider::new: panic: {}", take_panic())),
                }
            }
        }
        slot.registered = true;
    }

    fn unregister(&self, key: &ProviderKey) {
        let mut slots = self.slots.lock().unwrap();
        if let Some(slot) = slots.get_mut(key) {
            if let Some(p) = slot.provider.as_mut() {
                p.unregister();
            }
            slot.registered = false;
        }
    }

    /// The event set of the event's provider, level and keyword.
    fn event_set(&self, e: &Event) -> Result<Arc<EventSet>, String> {
        let mut slots = self.slots.lock().unwrap();
        let slot = slots.entry(e.provider.clone()).or_default();
        if let Some(why) = &slot.broken {
            return Err(why.clone());
        }
        match (&mut slot.provider, slot.registered) {
            (Some(p), true) => {
                let level = Level::from_int(e.level);
                let set = panic::catch_unwind(AssertUnwindSafe(|| p.register_set(level, e.keyword)))
                    .map_err(|_| format!("register_set: panic: {}", take_panic()))?;
                match set.errno() {
                    0 => Ok(set),
                    err => Err(format!("register_set returned {}", errno_name(err))),
                }
            }
            // Not registered: the event goes to an unregistered set, as a user's would.
            _ => Ok(Arc::new(EventSet::new_unregistered())),
        }
    }

    fn event(&self, e: &Event) {
        if let Some(why) = inexpressible(e) {
            return self.report(e.ordinal, Outcome::Skipped(why));
        }
        let set = match self.event_set(e) {
            Ok(s) => s,
            Err(why) => return self.report(e.ordinal, Outcome::Failed(why)),
        };
        let built = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut b = EventBuilder::new();
            b.reset(utf8(&e.name).unwrap_or_default(), e.tag);
            if e.opcode != 0 {
                b.opcode(Opcode::from_int(e.opcode));
            }
            if e.id != 0 || e.version != 0 {
                b.id_version(e.id, e.version);
            }
            for f in &e.fields {
                add_field(&mut b, f);
            }
            b.write(&set, e.activity.as_ref(), e.related.as_ref())
        }));
        let o = match built {
            Ok(0) => Outcome::Written,
            Ok(err) => Outcome::Failed(format!("write returned {}", errno_name(err))),
            Err(_) => Outcome::Failed(format!("panic: {}", take_panic())),
        };
        self.report(e.ordinal, o);
    }

    fn run(&self, steps: &[Step]) {
        for s in steps {
            match s {
                Step::Register(k) => self.register(k),
                Step::Unregister(k) => self.unregister(k),
                Step::Event(e) => self.event(e),
                Step::Threads(blocks) => std::thread::scope(|scope| {
                    for b in blocks {
                        scope.spawn(move || self.run(b));
                    }
                }),
                Step::Fork(child, parent) => self.fork(child, parent),
            }
        }
    }

    fn counts(&self) -> [usize; 3] {
        [
            self.written.load(Ordering::Relaxed),
            self.skipped.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        ]
    }

    /// The child's block in a forked child, which reports its counts to the parent over a
    /// pipe, while this process runs the parent's block; then waits for the child.
    fn fork(&self, block: &[Step], parent: &[Step]) {
        let _ = io::stdout().flush();
        let _ = io::stderr().flush();
        let mut fds = [0 as libc::c_int; 2];
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            let err = io::Error::last_os_error().raw_os_error().unwrap_or(0);
            fail_all(self, block, &format!("pipe returned {}", errno_name(err)));
            return self.run(parent);
        }
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            let err = io::Error::last_os_error().raw_os_error().unwrap_or(0);
            unsafe {
                libc::close(fds[0]);
                libc::close(fds[1]);
            }
            fail_all(self, block, &format!("fork returned {}", errno_name(err)));
            return self.run(parent);
        }
        if pid == 0 {
            unsafe { libc::close(fds[0]) };
            let before = self.counts();
            self.run(block);
            let after = self.counts();
            let msg = format!("{} {} {}\n", after[0] - before[0], after[1] - before[1], after[2] - before[2]);
            let _ = io::stdout().flush();
            unsafe {
                libc::write(fds[1], msg.as_ptr() as *const libc::c_void, msg.len());
                libc::close(fds[1]);
            }
            process::exit(if after[1] > before[1] || after[2] > before[2] { 1 } else { 0 });
        }
        unsafe { libc::close(fds[1]) };
        self.run(parent);
        let mut got = String::new();
        let mut pipe = unsafe { <fs::File as std::os::unix::io::FromRawFd>::from_raw_fd(fds[0]) };
        let _ = pipe.read_to_string(&mut got);
        let mut status = 0;
        while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
        let n: Vec<usize> = got.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        if n.len() == 3 {
            self.written.fetch_add(n[0], Ordering::Relaxed);
            self.skipped.fetch_add(n[1], Ordering::Relaxed);
            self.failed.fetch_add(n[2], Ordering::Relaxed);
        } else {
            eprintln!("emit: the forked child ended without its counts (wait status {:#x})", status);
            self.failed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn fail_all(r: &Runner, steps: &[Step], why: &str) {
    for s in steps {
        match s {
            Step::Event(e) => r.report(e.ordinal, Outcome::Failed(why.to_string())),
            Step::Threads(blocks) => blocks.iter().for_each(|b| fail_all(r, b, why)),
            Step::Fork(b, p) => {
                fail_all(r, b, why);
                fail_all(r, p, why)
            }
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        eprintln!("usage: emit <file.events> | emit --types");
        process::exit(2);
    }
    let types = match read_types(TYPES_TXT) {
        Ok(t) => t,
        Err(why) => {
            eprintln!("emit: {} (compiled in by impl/rust-dynamic/build)", why);
            process::exit(2);
        }
    };
    if args[1] == "--types" {
        for r in &types {
            println!("{} 0x{:02x} 0x{:02x} {}", r.name, r.enc, r.fmt, unit_size(r.enc));
        }
        return;
    }
    let path = &args[1];
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {}", path, e);
            process::exit(2);
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|&&c| c == b'\n').count();
            eprintln!("{}:{}: the description is not ASCII (names are %XX-escaped)", path, line);
            process::exit(2);
        }
    };
    let steps = match Parser::new(&text, &types).parse() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}:{}: {}", path, e.line, e.why);
            process::exit(2);
        }
    };
    install_panic_hook();
    let r = Runner {
        slots: Mutex::new(HashMap::new()),
        written: AtomicUsize::new(0),
        skipped: AtomicUsize::new(0),
        failed: AtomicUsize::new(0),
    };
    r.run(&steps);
    // Dropping the providers unregisters what is still registered.
    r.slots.lock().unwrap().clear();
    let [w, s, f] = r.counts();
    println!("emit: {} written, {} skipped, {} failed", w, s, f);
    let _ = io::stdout().flush();
    process::exit(if s > 0 || f > 0 { 1 } else { 0 });
}
