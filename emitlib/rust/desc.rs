// SPDX-License-Identifier: GPL-2.0
//
// The case descriptions (Documentation/case-descriptions.md) as Rust data: the one parser
// of both Rust emitters, so that they read a description alike and refuse a malformed one
// with the same `file:line: reason`. impl/rust-dynamic/src/main.rs parses at run time;
// impl/rust-macro/build.rs (the generator: write_event! needs each schema at compile time)
// at build time, and its src/main.rs only cuts a description into items (items(), below)
// to check it is the one compiled in. Each includes this file with
// `#[path = "../../../emitlib/rust/desc.rs"] mod desc;` (the build scripts point cargo at the
// sources in this checkout, so the relative path holds): a file, not a crate, because the
// emitters build offline with Debian's cargo and a path crate would be one more manifest
// to write for nothing.
//
// The type table (descriptions/types.txt) resolves each field type name to the EventHeader
// encoding and format ehconf's EH_* macro of that name writes.

#![allow(dead_code)]

// ---- encodings and the type table --------------------------------------------------------------------------

pub const ENC_STRUCT: u8 = 1;
pub const ENC_VALUE8: u8 = 2;
pub const ENC_VALUE16: u8 = 3;
pub const ENC_VALUE32: u8 = 4;
pub const ENC_VALUE64: u8 = 5;
pub const ENC_VALUE128: u8 = 6;
pub const ENC_ZSTRING8: u8 = 7;
pub const ENC_ZSTRING16: u8 = 8;
pub const ENC_ZSTRING32: u8 = 9;
pub const ENC_STRING8: u8 = 10;
pub const ENC_STRING16: u8 = 11;
pub const ENC_STRING32: u8 = 12;
pub const ENC_BINARY8: u8 = 13;
pub const CARRAY_FLAG: u8 = 0x20;
/// Structs within structs the parser follows (as ehconf's own emitter).
pub const MAX_DEPTH: usize = 1024;
pub const VARRAY_FLAG: u8 = 0x40;

pub const ENCODING_NAMES: &[(&str, u8)] = &[
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

pub const FORMAT_NAMES: &[&str] = &[
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
pub fn unit_size(enc: u8) -> usize {
    match enc {
        ENC_VALUE8 | ENC_ZSTRING8 | ENC_STRING8 | ENC_BINARY8 => 1,
        ENC_VALUE16 | ENC_ZSTRING16 | ENC_STRING16 => 2,
        ENC_VALUE32 | ENC_ZSTRING32 | ENC_STRING32 => 4,
        ENC_VALUE64 => 8,
        ENC_VALUE128 => 16,
        _ => 0,
    }
}

pub fn is_value(enc: u8) -> bool {
    (ENC_VALUE8..=ENC_VALUE128).contains(&enc)
}

pub struct TypeRow {
    pub name: String,
    pub enc: u8,
    pub fmt: u8,
}

/// types.txt: `name encoding format unit` rows (names of Documentation/eventheader-wire.md;
/// value_ptr is value64 or value32 by `ptr`, the target's pointer size in bytes: a build
/// script runs on the build machine, not the target).
pub fn read_types(text: &str, ptr: usize) -> Result<Vec<TypeRow>, String> {
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
            if ptr == 8 {
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
            ptr
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

/// A provider: the same name and group are the same provider.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ProviderKey {
    pub name: Vec<u8>,
    pub group: Option<Vec<u8>>,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Array {
    None,
    Variable,
    Constant,
}

pub enum Kind {
    /// A value or string field (enc without array flags); values: one per element. `ty` is
    /// the type name without _slice / _array, "" for a raw:<enc>:<fmt> field (a macro API
    /// names the type, a builder only needs the encoding and format).
    Value { ty: String, enc: u8, fmt: u8, array: Array, values: Vec<Vec<u8>> },
    Struct(Vec<Field>),
    /// shape: the members for the metadata; elements: each element's members.
    StructSlice { shape: Vec<Field>, elements: Vec<Vec<Field>> },
}

pub struct Field {
    pub name: Vec<u8>,
    /// None without tag=: a macro API then writes no tag() option at all.
    pub tag: Option<u16>,
    pub kind: Kind,
}

pub struct Event {
    pub ordinal: usize,
    pub provider: ProviderKey,
    pub name: Vec<u8>,
    pub level: u8,
    pub keyword: u64,
    pub opcode: u8,
    pub tag: u16,
    pub id: u16,
    pub version: u8,
    pub activity: Option<[u8; 16]>,
    pub related: Option<[u8; 16]>,
    pub fields: Vec<Field>,
}

pub enum Step {
    Register(ProviderKey),
    Unregister(ProviderKey),
    Event(Box<Event>),
    Threads(Vec<Vec<Step>>),
    /// The child's block and the parent's (`parent`), run at the same time.
    Fork(Vec<Step>, Vec<Step>),
}

pub struct ParseError {
    pub line: usize,
    pub why: String,
}

fn perr<T>(line: usize, why: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, why: why.into() })
}

struct Parser<'a> {
    lines: Vec<(usize, Vec<&'a str>)>,
    pos: usize,
    ordinal: usize,
    provider: Option<ProviderKey>,
    /// Every provider, in the order of its first `provider` statement.
    providers: Vec<ProviderKey>,
    types: &'a [TypeRow],
}

/// A description: its steps, its providers (first-seen order) and how many events.
pub struct Description {
    pub steps: Vec<Step>,
    pub providers: Vec<ProviderKey>,
    pub events: usize,
}

/// The text of the description an emitter is given; else its reason on stderr (`file: error`
/// when it cannot be read, `file:line: ...` at the first byte that is not ASCII) and exit 2,
/// as for a description it cannot parse.
pub fn read_or_exit(path: &str) -> String {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {}", path, e);
            std::process::exit(2);
        }
    };
    match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = 1 + valid.iter().filter(|&&c| c == b'\n').count();
            eprintln!("{}:{}: the description is not ASCII (names are %XX-escaped)", path, line);
            std::process::exit(2);
        }
    }
}

/// Parses a whole description, or says where and why it cannot.
pub fn parse(text: &str, types: &[TypeRow]) -> Result<Description, ParseError> {
    let mut p = Parser::new(text, types);
    let steps = p.parse()?;
    Ok(Description { steps, providers: p.providers, events: p.ordinal })
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
        Parser { lines, pos: 0, ordinal: 0, provider: None, providers: Vec::new(), types }
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
                    let key = ProviderKey { name, group };
                    if !self.providers.contains(&key) {
                        self.providers.push(key.clone());
                    }
                    self.provider = Some(key);
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

    fn tag(n: usize, w: Option<&&str>) -> Result<Option<u16>, ParseError> {
        match w {
            None => Ok(None),
            Some(t) => match t.strip_prefix("tag=") {
                Some(v) if v.starts_with("0x") => match parse_uint(v, 0xffff) {
                    Some(t) => Ok(Some(t as u16)),
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
                if members.is_empty() {
                    return perr(n, "a struct needs at least one member");
                }
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
                let (ty, enc, fmt, array) = self.resolve(n, w[0])?;
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
                Ok(Field { name, tag, kind: Kind::Value { ty, enc, fmt, array, values } })
            }
        }
    }

    /// A type name: a types.txt row, `<row>_slice`, `<row>_array` or raw:<enc>:<format>.
    fn resolve(&self, n: usize, t: &str) -> Result<(String, u8, u8, Array), ParseError> {
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
            return Ok((String::new(), base, f, array));
        }
        let find = |name: &str| self.types.iter().find(|r| r.name == name);
        if let Some(r) = find(t) {
            return Ok((r.name.clone(), r.enc, r.fmt, Array::None));
        }
        for (suffix, array) in [("_slice", Array::Variable), ("_array", Array::Constant)] {
            if let Some(r) = t.strip_suffix(suffix).and_then(find) {
                return Ok((r.name.clone(), r.enc, r.fmt, array));
            }
        }
        perr(n, format!("unknown field type {} (descriptions/types.txt)", t))
    }
}

/// Names and types of a struct's members, to check a struct_slice's elements agree.
fn signature(fields: &[Field]) -> String {
    let mut s = String::new();
    for f in fields {
        s.push_str(&format!("{:?}/{:?}:", f.name, f.tag));
        match &f.kind {
            Kind::Value { enc, fmt, array, values, .. } => {
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
                Kind::Value { ty, enc, fmt, array, values } => Kind::Value {
                    ty: ty.clone(),
                    enc: *enc,
                    fmt: *fmt,
                    array: *array,
                    values: values.clone(),
                },
                Kind::Struct(m) => Kind::Struct(clone_shape(m)),
                Kind::StructSlice { shape, elements } => Kind::StructSlice {
                    shape: clone_shape(shape),
                    elements: elements.iter().map(|e| clone_shape(e)).collect(),
                },
            },
        })
        .collect()
}

// ---- the items of a description ------------------------------------------------------
//
// rust-macro's emitter runs only the descriptions compiled into it, and must see any
// change: every `event ... end` block is one item, every other statement (case, needs,
// provider, register, unregister, threads, thread, fork, parent, end) one item each;
// comments and blank lines are not items, and words are compared, not spacing. Each item
// has a hash (FNV-1a 64 of its words): the emitter compares the description it is given
// with the one compiled in item by item, so that the runner's copy without the events a
// profile lacks (harness/impls.py without_events) still matches, and any other change is
// seen.

/// One item: an event block or a statement.
pub struct Item {
    pub is_event: bool,
    pub hash: u64,
    /// The line (from 1) it starts on.
    pub line: usize,
}

/// The words of the `case` statement, the items, or (line, reason).
pub struct Items {
    pub case: String,
    pub items: Vec<Item>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// Statements that open a block closed by `end` inside an event.
const EVENT_OPENERS: &[&str] = &["struct", "struct_slice", "element"];

/// Cuts `text` into items. The first statement must be `case <name>`.
pub fn items(text: &str) -> Result<Items, (usize, String)> {
    let mut out = Vec::new();
    let mut case = String::new();
    let mut depth = 0usize; // inside an event: blocks open, the event included
    let mut hash = 0u64;
    let mut start = 0usize;
    for (i, raw) in text.split('\n').enumerate() {
        let n = i + 1;
        let words: Vec<&str> = raw.split_ascii_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        let mut h = if depth > 0 { fnv(hash, b"\n") } else { FNV_OFFSET };
        for (k, w) in words.iter().enumerate() {
            if k > 0 {
                h = fnv(h, b" ");
            }
            h = fnv(h, w.as_bytes());
        }
        if case.is_empty() {
            if words[0] != "case" || words.len() != 2 {
                return Err((n, "the first statement must be `case <name>`".to_string()));
            }
            case = words[1].to_string();
        }
        if depth > 0 {
            hash = h;
            if words[0] == "end" && words.len() == 1 {
                depth -= 1;
                if depth == 0 {
                    out.push(Item { is_event: true, hash, line: start });
                }
            } else if EVENT_OPENERS.contains(&words[0]) {
                depth += 1;
            } else if words[0] == "event" {
                return Err((n, "an event inside an event".to_string()));
            }
        } else if words[0] == "event" {
            depth = 1;
            hash = h;
            start = n;
        } else {
            out.push(Item { is_event: false, hash: h, line: n });
        }
    }
    if case.is_empty() {
        return Err((1, "empty description: expected `case <name>`".to_string()));
    }
    if depth > 0 {
        return Err((start, "the event has no `end`".to_string()));
    }
    Ok(Items { case, items: out })
}
