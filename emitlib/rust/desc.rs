// SPDX-License-Identifier: GPL-2.0
//
// The case descriptions (Documentation/case-descriptions.md) as Rust data: the parser of
// both Rust emitters. impl/rust-dynamic/src/main.rs parses at run time; impl/rust-macro/
// build.rs (the generator: write_event! needs each schema at compile time) at build time.
// A module of the ehconf-emit crate (emitlib/rust/Cargo.toml), which both take as a path
// dependency (rust-macro's build script as a build-dependency); the unit tests of
// tests/desc/ still include the file by #[path], with rustc alone.
//
// It reads a description as libdesc, the C parser (emitlib/c), does, statement for
// statement and message for message: tests/desc-format/ holds both to the same snippets
// (tests/desc/desc_format.rs here, with desc_print.rs). Unlike libdesc it keeps a `repeat`
// as a step, so a generator can write a loop; `Description::unrolled` gives the steps as
// libdesc gives them, every repetition an event of its own.
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
pub const VARRAY_FLAG: u8 = 0x40;
/// Structs within structs the parser follows (as libdesc).
pub const MAX_DEPTH: usize = 1024;
/// Words of one statement (as libdesc).
pub const MAX_WORDS: usize = 16;
/// Events a description may unroll to (as libdesc).
pub const MAX_EVENTS: usize = 1_000_000;

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
        let unit = if words[3] == "ptr" { ptr } else { words[3].parse::<usize>().unwrap_or(0) };
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

#[derive(Clone)]
pub enum Kind {
    /// A value or string field (enc without array flags); values: one per element. `ty` is
    /// the type name without _slice / _array, "" for a raw:<enc>:<fmt> field (a macro API
    /// names the type, a builder only needs the encoding and format). `step`: the +<step>
    /// of a value in a `repeat` (0: none), values[0] being the first repetition's.
    Value { ty: String, enc: u8, fmt: u8, array: Array, values: Vec<Vec<u8>>, step: u32 },
    Struct(Vec<Field>),
    /// shape: the members for the metadata; elements: each element's members (none when
    /// the count is 0: the shape's values are then placeholders).
    StructSlice { shape: Vec<Field>, elements: Vec<Vec<Field>> },
}

#[derive(Clone)]
pub struct Field {
    pub name: Vec<u8>,
    /// None without tag=: a macro API then writes no tag() option at all.
    pub tag: Option<u16>,
    pub kind: Kind,
}

#[derive(Clone)]
pub struct Event {
    /// Its number (Documentation/case-descriptions.md); in a `repeat`, the first repetition's.
    pub ordinal: usize,
    /// The line of its `event` statement.
    pub line: usize,
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

#[derive(Clone)]
pub enum Step {
    Register(ProviderKey),
    Unregister(ProviderKey),
    Event(Box<Event>),
    Threads(Vec<Vec<Step>>),
    /// The child's block and the parent's (`parent`), run at the same time.
    Fork(Vec<Step>, Vec<Step>),
    /// `repeat <count>`: its events (Step::Event only), count times in a row.
    Repeat(usize, Vec<Step>),
}

pub struct ParseError {
    pub line: usize,
    pub why: String,
}

/// A description: its steps, its providers (first-seen order) and how many events it
/// unrolls to.
pub struct Description {
    pub case: Vec<u8>,
    pub steps: Vec<Step>,
    pub providers: Vec<ProviderKey>,
    pub events: usize,
}

impl Description {
    /// The steps with every `repeat` unrolled, as libdesc gives them: repetition r of a
    /// repeat of k events numbered after repetition r - 1, its +<step> values advanced r steps.
    pub fn unrolled(&self) -> Vec<Step> {
        unroll(&self.steps)
    }
}

fn unroll(steps: &[Step]) -> Vec<Step> {
    let mut out = Vec::new();
    for s in steps {
        match s {
            Step::Repeat(count, body) => {
                for rep in 0..*count {
                    for b in body {
                        if let Step::Event(e) = b {
                            out.push(Step::Event(Box::new(repetition(e, rep, body.len()))));
                        }
                    }
                }
            }
            Step::Threads(blocks) => out.push(Step::Threads(blocks.iter().map(|b| unroll(b)).collect())),
            Step::Fork(c, p) => out.push(Step::Fork(unroll(c), unroll(p))),
            other => out.push(other.clone()),
        }
    }
    out
}

/// Repetition rep of an event of a repeat of k events.
pub fn repetition(e: &Event, rep: usize, k: usize) -> Event {
    let mut r = e.clone();
    r.ordinal = e.ordinal + rep * k;
    advance_fields(&mut r.fields, rep as u64);
    r
}

fn advance_fields(fields: &mut [Field], rep: u64) {
    for f in fields {
        match &mut f.kind {
            Kind::Value { values, step, .. } if *step != 0 => advance(&mut values[0], rep * *step as u64),
            Kind::Value { .. } => {}
            Kind::Struct(m) => advance_fields(m, rep),
            Kind::StructSlice { shape, elements } => {
                advance_fields(shape, rep);
                elements.iter_mut().for_each(|e| advance_fields(e, rep));
            }
        }
    }
}

/// value += add, as an unsigned little-endian number of its size, wrapping around.
fn advance(value: &mut [u8], mut add: u64) {
    let mut carry = 0u32;
    for b in value.iter_mut() {
        let sum = *b as u32 + (add & 0xff) as u32 + carry;
        *b = sum as u8;
        carry = sum >> 8;
        add >>= 8;
    }
}

/// The bytes of the description an emitter is given; else `file: error` on stderr and exit
/// 2, as for a description it cannot parse.
pub fn read_or_exit(path: &str) -> Vec<u8> {
    match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {}", path, e);
            std::process::exit(2);
        }
    }
}

/// Parses a whole description, or says where and why it cannot (libdesc's reasons).
pub fn parse(text: &[u8], types: &[TypeRow]) -> Result<Description, ParseError> {
    let mut p = Parser::new(text, types);
    let steps = p.steps(Ctx::Top, "", 0)?.0;
    let case = match p.case.take() {
        Some(c) => c,
        None => return p.fail(p.line, "the file has no `case <name>` statement"),
    };
    Ok(Description { case, steps, providers: p.providers, events: p.events })
}

// ---- the parser, statement by statement as libdesc ------------------------------------------

/// The blocks a step list can be in: what may go inside differs.
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Top,
    Thread,
    Child,
    Parent,
    Repeat,
}

impl Ctx {
    fn name(self) -> &'static str {
        match self {
            Ctx::Thread => "thread",
            Ctx::Repeat => "repeat",
            _ => "fork",
        }
    }
}

struct Parser<'a> {
    lines: Vec<&'a [u8]>,
    /// Lines read so far: the current statement's line.
    line: usize,
    /// The words of the current statement.
    w: Vec<&'a str>,
    current: Option<usize>,
    providers: Vec<ProviderKey>,
    case: Option<Vec<u8>>,
    depth: usize,
    in_repeat: bool,
    events: usize,
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

/// n hex digits into bytes (n even); None at a digit that is not hex.
fn hex_bytes(s: &[u8]) -> Option<Vec<u8>> {
    s.chunks(2).map(|p| Some(hex_digit(p[0])? << 4 | hex_digit(p[1])?)).collect()
}

/// A number word: decimal, or 0x + hex when hex; at most max.
fn number(s: &str, hex: bool, max: u64) -> Option<u64> {
    let digits = if hex { s.strip_prefix("0x")? } else { s };
    if digits.is_empty() {
        return None;
    }
    let base = if hex { 16 } else { 10 };
    let mut v: u64 = 0;
    for c in digits.bytes() {
        let d = match hex_digit(c) {
            Some(d) if hex || c.is_ascii_digit() => d as u64,
            _ => return None,
        };
        if d > max || v > (max - d) / base {
            return None;
        }
        v = v * base + d;
    }
    Some(v)
}

/// A name token: %XX escapes, "-" the empty name; the reason it is not one.
fn name(token: &str) -> Result<Vec<u8>, &'static str> {
    if token == "-" {
        return Ok(Vec::new());
    }
    let b = token.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let hi = if i + 2 < b.len() { hex_digit(b[i + 1]) } else { None };
        let (hi, lo) = match (hi, hi.and(hex_digit(*b.get(i + 2).unwrap_or(&0)))) {
            (Some(h), Some(l)) => (h, l),
            _ => return Err("a '%' in a name must be followed by two hex digits"),
        };
        if hi == 0 && lo == 0 {
            return Err("a name cannot hold a NUL byte (%00)");
        }
        out.push(hi << 4 | lo);
        i += 3;
    }
    Ok(out)
}

/// Words that begin a statement of the step list: inside an event they mean a missing `end`.
const STATEMENTS: &[&str] = &[
    "case", "needs", "provider", "register", "unregister", "event", "threads", "thread", "fork", "parent", "element",
    "repeat",
];

fn string_unit(enc: u8) -> usize {
    if is_value(enc) {
        0
    } else {
        unit_size(enc)
    }
}

/// raw:<encoding byte>:<format>: each exactly two hex digits.
fn raw_type(t: &str) -> Option<(u8, u8)> {
    let (e, f) = t.split_once(':')?;
    let byte = |s: &str| if s.len() == 2 { hex_bytes(s.as_bytes()).map(|b| b[0]) } else { None };
    Some((byte(e)?, byte(f)?))
}

/// The field of a type token: (type name, encoding, format, array).
fn field_type(token: &str, types: &[TypeRow]) -> Result<(String, u8, u8, Array), &'static str> {
    let (ty, enc, fmt, array) = if let Some(raw) = token.strip_prefix("raw:") {
        let (e, f) = raw_type(raw).ok_or("a raw type is raw:<encoding hex>:<format hex>")?;
        let array = e & (CARRAY_FLAG | VARRAY_FLAG);
        if e & 0x80 != 0 || f & 0x80 != 0 || array == CARRAY_FLAG | VARRAY_FLAG {
            return Err("a raw type's encoding takes 0x20 or 0x40 and its format no flag");
        }
        (String::new(), e & 0x1f, f, array)
    } else {
        let mut found = None;
        for r in types {
            let rest = match token.strip_prefix(r.name.as_str()) {
                Some(rest) => rest,
                None => continue,
            };
            found = match rest {
                "" => Some((r, 0)),
                "_slice" => Some((r, VARRAY_FLAG)),
                "_array" => Some((r, CARRAY_FLAG)),
                _ => continue,
            };
            break;
        }
        let (r, array) = found.ok_or("unknown field type (descriptions/types.txt lists them)")?;
        (r.name.clone(), r.enc, r.fmt, array)
    };
    if !is_value(enc) && string_unit(enc) == 0 {
        return Err("the encoding is not a value or string encoding");
    }
    if array != 0 && !is_value(enc) {
        return Err("only value types have _slice and _array forms");
    }
    let array = match array {
        VARRAY_FLAG => Array::Variable,
        CARRAY_FLAG => Array::Constant,
        _ => Array::None,
    };
    Ok((ty, enc, fmt, array))
}

/// The values of a value token for a field of that encoding and array kind.
fn field_values(token: &str, enc: u8, array: Array) -> Result<Vec<Vec<u8>>, &'static str> {
    let unit = unit_size(enc);
    let t = token.as_bytes();
    if !is_value(enc) {
        let hex: &[u8] = if token == "-" { b"" } else { t };
        let v = match hex.len() % (2 * unit) {
            0 => hex_bytes(hex),
            _ => None,
        };
        let v = v.ok_or(if unit == 1 {
            "a string value is hex bytes, or - when empty"
        } else {
            "a string value is hex code units of its width, or - when empty"
        })?;
        if v.len() / unit > 65535 {
            return Err("a string of more than 65535 code units");
        }
        if (ENC_ZSTRING8..=ENC_ZSTRING32).contains(&enc) && v.chunks(unit).any(|u| u.iter().all(|&b| b == 0)) {
            return Err("a zero-terminated string cannot hold a 0 code unit");
        }
        return Ok(vec![v]);
    }
    let is_array = array != Array::None;
    let width = 2 * unit;
    if !is_array && t.len() != width {
        return Err("the value is not hex bytes of the type's size");
    }
    let a = is_array as usize;
    let mut count = 0;
    if !is_array || token != "-" {
        if (t.len() + a) % (width + a) != 0 {
            return Err("array elements are hex values of the type's size separated by ','");
        }
        count = (t.len() + a) / (width + a);
    }
    if count > 65535 {
        return Err("an array of more than 65535 elements");
    }
    if array == Array::Constant && count == 0 {
        return Err("a constant-length array needs at least one element");
    }
    let mut values = Vec::with_capacity(count);
    for i in 0..count {
        let e = &t[i * (width + a)..];
        if i + 1 < count && e[width] != b',' {
            return Err("bad hex in the value");
        }
        values.push(hex_bytes(&e[..width]).ok_or("bad hex in the value")?);
    }
    Ok(values)
}

/// Whether two elements of an array of structs have the same members (names, types, tags,
/// the counts of constant-length arrays): the metadata is written once, for all of them.
fn same_shape(a: &[Field], b: &[Field]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.tag.unwrap_or(0) == y.tag.unwrap_or(0)
                && match (&x.kind, &y.kind) {
                    (Kind::Value { enc: e1, fmt: f1, array: a1, values: v1, .. }, Kind::Value { enc: e2, fmt: f2, array: a2, values: v2, .. }) => {
                        e1 == e2 && f1 == f2 && a1 == a2 && (*a1 != Array::Constant || v1.len() == v2.len())
                    }
                    (Kind::Struct(m1), Kind::Struct(m2)) => same_shape(m1, m2),
                    (Kind::StructSlice { shape: s1, .. }, Kind::StructSlice { shape: s2, .. }) => same_shape(s1, s2),
                    _ => false,
                }
        })
}

impl<'a> Parser<'a> {
    fn new(text: &'a [u8], types: &'a [TypeRow]) -> Self {
        let mut lines: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
        if lines.last().map(|l| l.is_empty()).unwrap_or(false) {
            lines.pop(); // the empty piece after the last newline, or of an empty file
        }
        Parser {
            lines,
            line: 0,
            w: Vec::new(),
            current: None,
            providers: Vec::new(),
            case: None,
            depth: 0,
            in_repeat: false,
            events: 0,
            types,
        }
    }

    fn fail<T>(&self, line: usize, why: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { line: line.max(1), why: why.into() })
    }

    fn missing_end<T>(&self, opener: &str, open_line: usize) -> Result<T, ParseError> {
        self.fail(open_line, format!("`{}` has no `end` (the file ends at line {})", opener, self.line))
    }

    /// The next statement's words in self.w: true, false at the end of the file.
    fn next(&mut self) -> Result<bool, ParseError> {
        while let Some(&l) = self.lines.get(self.line) {
            self.line += 1;
            if let Some(&c) = l.iter().find(|&&c| (c < 0x20 && c != b'\t' && c != b'\r') || c > 0x7e) {
                return self.fail(self.line, format!("byte 0x{:02X} is not printable ASCII (a name writes it %{:02X})", c, c));
            }
            let text = std::str::from_utf8(l).unwrap_or(""); // printable ASCII by now
            let words: Vec<&'a str> = text.split(|c| c == ' ' || c == '\t' || c == '\r').filter(|w| !w.is_empty()).collect();
            if words.is_empty() || words[0].starts_with('#') {
                continue; // a blank line or a comment, whatever its words
            }
            if words.len() > MAX_WORDS {
                return self.fail(self.line, format!("more than {} words in one statement", MAX_WORDS));
            }
            self.w = words;
            return Ok(true);
        }
        Ok(false)
    }

    /// The next statement inside the block `opener` opened on line `at`: false at its `end`.
    fn inner(&mut self, opener: &str, at: usize) -> Result<bool, ParseError> {
        if !self.next()? {
            return self.missing_end(opener, at);
        }
        Ok(!self.is("end"))
    }

    fn is(&self, word: &str) -> bool {
        self.w[0] == word && self.w.len() == 1
    }

    fn name_word(&self, token: &str) -> Result<Vec<u8>, ParseError> {
        name(token).or_else(|why| self.fail(self.line, format!("name '{}': {}", token, why)))
    }

    fn tag_word(&self, w: &str) -> Result<Option<u16>, ParseError> {
        match w.strip_prefix("tag=").and_then(|v| number(v, true, 0xffff)) {
            Some(t) => Ok(Some(t as u16)),
            None => self.fail(self.line, format!("expected tag=0x<hex of at most 4 digits>, not '{}'", w)),
        }
    }

    fn needs_list(&self, s: &str) -> Result<(), ParseError> {
        if s.is_empty() || s.starts_with(',') || s.ends_with(',') || s.contains(",,") {
            return self.fail(self.line, format!("needs takes features separated by ',', not '{}'", s));
        }
        Ok(())
    }

    // ---- steps ----

    /// Statements up to the block's `end` (or `parent`: then true), or the end of the file
    /// at the top.
    fn steps(&mut self, ctx: Ctx, opener: &str, open_line: usize) -> Result<(Vec<Step>, bool), ParseError> {
        let mut steps = Vec::new();
        loop {
            if !self.next()? {
                if ctx != Ctx::Top {
                    return self.missing_end(opener, open_line);
                }
                return Ok((steps, false));
            }
            if let Some(parent) = self.step(&mut steps, ctx)? {
                return Ok((steps, parent));
            }
        }
    }

    /// One statement of a step list: Some(closed by `parent`) when it closed the list.
    fn step(&mut self, steps: &mut Vec<Step>, ctx: Ctx) -> Result<Option<bool>, ParseError> {
        let w = self.w[0];
        let n = self.w.len();
        if w == "end" || w == "parent" {
            let parent = w == "parent";
            if n != 1 || ctx == Ctx::Top || (parent && ctx != Ctx::Child) {
                let why = if parent { "`parent` belongs inside a `fork` block, once" } else { "`end` without a block" };
                return self.fail(self.line, why);
            }
            return Ok(Some(parent));
        }
        if w == "case" {
            if n != 2 || self.case.is_some() || ctx != Ctx::Top {
                return self.fail(self.line, "`case <name>` is the first statement, once");
            }
            self.case = Some(self.name_word(self.w[1])?);
            return Ok(None);
        }
        if self.case.is_none() {
            return self.fail(self.line, "the first statement must be `case <name>`");
        }
        if w == "needs" {
            if n != 2 || ctx != Ctx::Top {
                return self.fail(self.line, "expected, outside any block: needs <feature>[,<feature>...]");
            }
            self.needs_list(self.w[1])?;
            return Ok(None);
        }
        if w == "provider" {
            self.provider()?;
            return Ok(None);
        }
        let (reg, unreg, threads, fork, repeat) = (w == "register", w == "unregister", w == "threads", w == "fork", w == "repeat");
        if w != "event" && !reg && !unreg && !threads && !fork && !repeat {
            if w == "thread" || w == "element" {
                let outside = if w == "thread" { "threads" } else { "struct_slice" };
                return self.fail(self.line, format!("`{}` outside `{}`", w, outside));
            }
            return self.fail(self.line, format!("unknown statement '{}'", w));
        }
        // thread, fork and repeat blocks hold events (and repeats, but not a repeat)
        let misplaced = if reg || unreg || threads || fork { ctx != Ctx::Top } else { repeat && ctx == Ctx::Repeat };
        if misplaced {
            return self.fail(self.line, format!("`{}` inside a `{}` block: only `provider` and `event` go there", w, ctx.name()));
        }
        if repeat {
            let s = self.repeat()?;
            steps.push(s);
            return Ok(None);
        }
        if w == "event" {
            let e = self.event()?;
            steps.push(Step::Event(Box::new(e)));
            return Ok(None);
        }
        if n != 1 {
            return self.fail(self.line, format!("`{}` takes no words", w));
        }
        if threads {
            let s = self.threads()?;
            steps.push(s);
        } else if fork {
            let at = self.line;
            let (child, parent) = self.steps(Ctx::Child, "fork", at)?;
            let parent = if parent { self.steps(Ctx::Parent, "fork", at)?.0 } else { Vec::new() };
            steps.push(Step::Fork(child, parent));
        } else {
            let key = match self.current {
                Some(k) => self.providers[k].clone(),
                None => return self.fail(self.line, format!("`{}` before any `provider`", w)),
            };
            steps.push(if reg { Step::Register(key) } else { Step::Unregister(key) });
        }
        Ok(None)
    }

    fn provider(&mut self) -> Result<(), ParseError> {
        let w = &self.w;
        if w.len() < 2 || w.len() > 3 || (w.len() == 3 && !w[2].starts_with("group=")) {
            return self.fail(self.line, "expected: provider <name> [group=<group>]");
        }
        let name = self.name_word(w[1])?;
        let group = match w.get(2) {
            Some(g) => Some(self.name_word(&g["group=".len()..])?),
            None => None,
        };
        let key = ProviderKey { name, group };
        self.current = Some(match self.providers.iter().position(|p| *p == key) {
            Some(i) => i,
            None => {
                self.providers.push(key);
                self.providers.len() - 1
            }
        });
        Ok(())
    }

    /// threads, then `thread` blocks up to `end`.
    fn threads(&mut self) -> Result<Step, ParseError> {
        let at = self.line;
        let mut blocks = Vec::new();
        while self.inner("threads", at)? {
            if !self.is("thread") {
                return self.fail(self.line, format!("only `thread` blocks go inside `threads` (line {})", at));
            }
            let t = self.line;
            blocks.push(self.steps(Ctx::Thread, "thread", t)?.0);
        }
        if blocks.is_empty() {
            return self.fail(at, "`threads` without a `thread` block");
        }
        Ok(Step::Threads(blocks))
    }

    /// repeat <count>, its events up to `end`.
    fn repeat(&mut self) -> Result<Step, ParseError> {
        let at = self.line;
        let first = self.events;
        let count = match (self.w.len(), self.w.get(1).and_then(|c| number(c, false, 65535))) {
            (2, Some(c)) if c > 0 => c as usize,
            _ => return self.fail(at, "expected: repeat <count 1..65535>"),
        };
        self.in_repeat = true;
        let body = self.steps(Ctx::Repeat, "repeat", at);
        self.in_repeat = false;
        let body = body?.0;
        if body.len() * count > MAX_EVENTS - first {
            return self.fail(at, format!("the description unrolls to more than {} events", MAX_EVENTS));
        }
        self.events = first + body.len() * count;
        Ok(Step::Repeat(count, body))
    }

    // ---- the event statement ----

    /// event <name> level=<n> keyword=0x<hex> [opcode= tag= id= version= activity= related=
    /// needs=], its fields, `end`.
    fn event(&mut self) -> Result<Event, ParseError> {
        const KEYS: [&str; 9] = ["level", "keyword", "opcode", "tag", "id", "version", "activity", "related", "needs"];
        const MAX: [u64; 6] = [255, u64::MAX, 255, 0xffff, 0xffff, 255];
        self.events += 1;
        let line = self.line;
        let provider = match self.current {
            Some(k) => self.providers[k].clone(),
            None => return self.fail(line, "`event` before any `provider`"),
        };
        if self.w.len() < 2 {
            return self.fail(line, "expected: event <name> level=<n> keyword=0x<hex>");
        }
        let mut e = Event {
            ordinal: self.events,
            line,
            provider,
            name: self.name_word(self.w[1])?,
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
        let mut seen = [false; 9];
        for &w in &self.w[2..] {
            let (key, val) = w.split_once('=').unwrap_or(("", ""));
            let k = match KEYS.iter().position(|&x| x == key && w.contains('=')) {
                Some(k) => k,
                None => return self.fail(line, format!("unknown event attribute '{}'", w)),
            };
            if seen[k] {
                return self.fail(line, format!("event attribute {} given twice", key));
            }
            seen[k] = true;
            let mut v = 0;
            if k <= 5 {
                let hex = k == 1 || k == 3;
                v = match number(val, hex, MAX[k]) {
                    Some(v) => v,
                    None => {
                        let what = if hex { "0x<hex>" } else { "a decimal number" };
                        return self.fail(line, format!("{}={}: expected {} up to {}", key, val, what, MAX[k]));
                    }
                };
            }
            match k {
                0 => e.level = v as u8,
                1 => e.keyword = v,
                2 => e.opcode = v as u8,
                3 => e.tag = v as u16,
                4 => e.id = v as u16,
                5 => e.version = v as u8,
                6 | 7 => {
                    let id = match field_values(val, ENC_VALUE128, Array::None) {
                        Ok(v) => v[0].clone().try_into().unwrap_or([0; 16]),
                        Err(_) => return self.fail(line, format!("{}= takes 32 hex digits", key)),
                    };
                    if k == 6 {
                        e.activity = Some(id);
                    } else {
                        e.related = Some(id);
                    }
                }
                _ => self.needs_list(val)?,
            }
        }
        if !seen[0] || !seen[1] {
            return self.fail(line, "an event needs level=<n> and keyword=0x<hex>");
        }
        e.fields = self.fields("event", line)?;
        Ok(e)
    }

    /// Fields up to the `end` of the block opened at open_line.
    fn fields(&mut self, opener: &str, open_line: usize) -> Result<Vec<Field>, ParseError> {
        self.depth += 1;
        let r = self.fields_in(opener, open_line);
        self.depth -= 1;
        r
    }

    fn fields_in(&mut self, opener: &str, open_line: usize) -> Result<Vec<Field>, ParseError> {
        if self.depth > MAX_DEPTH + 1 {
            // + 1: the event's own fields
            return self.fail(self.line, format!("structs nested deeper than {}", MAX_DEPTH));
        }
        let mut fields = Vec::new();
        while self.inner(opener, open_line)? {
            let w0 = self.w[0];
            if STATEMENTS.contains(&w0) {
                let why = format!("`{}` inside the `{}` of line {}: is its `end` missing?", w0, opener, open_line);
                return self.fail(self.line, why);
            }
            let f = match w0 {
                "struct" => self.structure()?,
                "struct_slice" => self.struct_slice()?,
                _ => self.field()?,
            };
            fields.push(f);
        }
        Ok(fields)
    }

    /// struct <name> [tag=0x<hex>], its members up to `end`.
    fn structure(&mut self) -> Result<Field, ParseError> {
        let line = self.line;
        if self.w.len() < 2 || self.w.len() > 3 {
            return self.fail(line, "expected: struct <name> [tag=0x<hex>]");
        }
        let name = self.name_word(self.w[1])?;
        let tag = match self.w.get(2) {
            Some(t) => self.tag_word(t)?,
            None => None,
        };
        let members = self.fields("struct", line)?;
        if members.is_empty() {
            return self.fail(line, "a struct needs at least one member");
        }
        Ok(Field { name, tag, kind: Kind::Struct(members) })
    }

    /// struct_slice <name> <count> [tag=]: count `element` blocks (one when count is 0), `end`.
    fn struct_slice(&mut self) -> Result<Field, ParseError> {
        let line = self.line;
        let count = match (self.w.len(), number(self.w.get(2).unwrap_or(&""), false, 65535)) {
            (3..=4, Some(c)) => c as usize,
            _ => return self.fail(line, "expected: struct_slice <name> <count 0..65535> [tag=0x<hex>]"),
        };
        let name = self.name_word(self.w[1])?;
        let tag = match self.w.get(3) {
            Some(t) => self.tag_word(t)?,
            None => None,
        };
        let want = count.max(1);
        let mut blocks: Vec<Vec<Field>> = Vec::new();
        while self.inner("struct_slice", line)? {
            if !self.is("element") {
                return self.fail(self.line, format!("expected `element` or `end` in struct_slice of line {}", line));
            }
            if blocks.len() == want {
                let why = format!("struct_slice of line {} has {} element block(s), and this is one more", line, want);
                return self.fail(self.line, why);
            }
            let at = self.line;
            let members = self.fields("element", at)?;
            if members.is_empty() {
                return self.fail(at, "an element needs at least one member");
            }
            if !blocks.is_empty() && !same_shape(&members, &blocks[0]) {
                let why = format!("element {} of the struct_slice of line {} has other members than element 1", blocks.len() + 1, line);
                return self.fail(at, why);
            }
            blocks.push(members);
        }
        if blocks.len() != want {
            let why = format!("struct_slice of line {} needs {} element block(s), not {}", line, want, blocks.len());
            return self.fail(self.line, why);
        }
        let shape = blocks[0].clone();
        let elements = if count == 0 { Vec::new() } else { blocks };
        Ok(Field { name, tag, kind: Kind::StructSlice { shape, elements } })
    }

    /// <type> <name> <value>[+<step>] [tag=0x<hex>]
    fn field(&mut self) -> Result<Field, ParseError> {
        let (line, w) = (self.line, self.w.clone());
        if w.len() < 3 || w.len() > 4 {
            return self.fail(line, "expected: <type> <name> <value> [tag=0x<hex>]");
        }
        let (ty, enc, fmt, array) = match field_type(w[0], self.types) {
            Ok(t) => t,
            Err(why) => return self.fail(line, format!("type '{}': {}", w[0], why)),
        };
        let name = self.name_word(w[1])?;
        let tag = match w.get(3) {
            Some(t) => self.tag_word(t)?,
            None => None,
        };
        let (value, step) = match w[2].split_once('+') {
            None => (w[2], 0),
            Some((value, step)) => (value, self.step_suffix(&w, enc, array, step)?),
        };
        let values = match field_values(value, enc, array) {
            Ok(v) => v,
            Err(why) => return self.fail(line, format!("field '{}' ({}): {}", w[1], w[0], why)),
        };
        Ok(Field { name, tag, kind: Kind::Value { ty, enc, fmt, array, values, step } })
    }

    /// A value's "+<step>": in a repeat, on a scalar of a value type only.
    fn step_suffix(&self, w: &[&str], enc: u8, array: Array, step: &str) -> Result<u32, ParseError> {
        let field = format!("field '{}' ({})", w[1], w[0]);
        if !is_value(enc) || array != Array::None {
            return self.fail(self.line, format!("{}: only a scalar of a value type takes +<step>", field));
        }
        if !self.in_repeat {
            return self.fail(self.line, format!("{}: a value with +<step> belongs inside a `repeat`", field));
        }
        match number(step, false, 65535) {
            Some(s) if s > 0 => Ok(s as u32),
            _ => self.fail(self.line, format!("{}: +<step> is a decimal number from 1 to 65535, not '+{}'", field, step)),
        }
    }
}
