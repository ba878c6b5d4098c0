// SPDX-License-Identifier: GPL-2.0
//
// The parser of impl/tracing-etw/inputs/<name>.inputs (impl/tracing-etw/README.md §2):
// what `tracing` is asked to do, as data. Shared by the emitter (src/main.rs) and the
// generator of the etw_event! call sites (build.rs, which includes this file by #[path]).
// Standard library and the ehconf-emit crate's tokenizer only (build.rs's one
// build-dependency).
#![allow(dead_code)]

use ehconf_emit::words::{err, num, opt, options, unescape, writes, ParseError};

/// A value kind `tracing` records (impl/tracing-etw/README.md §2.3), with its value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    I32(i32),
    U8(u8),
    F64(f64),
    F32(f32),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    /// `?value` of a String: Debug adds quotes and escapes.
    DebugStr(String),
    /// `?value` of `#[derive(Debug)] struct Point { x: i32, y: i32 }`.
    DebugPoint(i32, i32),
    /// `?value` of a `Vec<i64>`.
    DebugVec(Vec<i64>),
    /// `%value` of a type whose Display writes the text.
    Display(String),
    /// a `&dyn std::error::Error` whose Display writes the text.
    Error(String),
    /// `format_args!` of the text (the `message` field of the macros).
    Message(String),
    /// `tracing::field::Empty`: declared, recorded later (spans).
    Empty,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub val: Val,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl Level {
    pub fn word(&self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Parent {
    /// The current span of the thread (tracing's contextual parent).
    Current,
    /// `parent: None`: a root.
    Root,
    /// `parent: &span`.
    Span(String),
}

#[derive(Clone, Debug)]
pub struct LayerDef {
    pub line: usize,
    pub provider: String,
    pub keyword: Option<u64>,
    pub guid: Option<u128>,
    pub target: Option<String>,
    /// `expect=invalid`: LayerBuilder::build must refuse it.
    pub invalid: bool,
}

/// One `event` or `etw_event` statement.
#[derive(Clone, Debug)]
pub struct EventDef {
    pub line: usize,
    pub etw: bool,
    pub name: String,
    pub target: String,
    pub level: Level,
    pub keyword: u64,
    pub tags: u32,
    pub parent: Parent,
    pub fields: Vec<Field>,
    /// The golden events this statement writes (1, or 0 with `writes=0`).
    pub writes: usize,
    /// Ordinal of its first golden event (from 1), when writes > 0.
    pub first: usize,
}

#[derive(Clone, Debug)]
pub struct SpanDef {
    pub line: usize,
    pub id: String,
    pub name: String,
    pub target: String,
    pub level: Level,
    pub parent: Parent,
    pub fields: Vec<Field>,
    pub writes: usize,
    pub first: usize,
}

#[derive(Clone, Debug)]
pub enum Step {
    Event(EventDef),
    Span(SpanDef),
    /// record <span> <kind> <field> <value>
    Record { line: usize, span: String, field: Field, writes: usize, first: usize },
    Enter { line: usize, span: String, writes: usize, first: usize },
    Exit { line: usize, span: String, writes: usize, first: usize },
    Close { line: usize, span: String, writes: usize, first: usize },
    Threads(Vec<Vec<Step>>),
}

#[derive(Clone, Debug)]
pub struct Inputs {
    pub name: String,
    pub clock: Option<i64>,
    pub layers: Vec<LayerDef>,
    pub steps: Vec<Step>,
    /// The number of golden events (the last ordinal).
    pub events: usize,
}

fn level(w: &str, line: usize) -> Result<Level, ParseError> {
    Ok(match w {
        "error" => Level::Error,
        "warn" => Level::Warn,
        "info" => Level::Info,
        "debug" => Level::Debug,
        "trace" => Level::Trace,
        _ => return err(line, format!("level={} (error, warn, info, debug or trace)", w)),
    })
}

fn hex_u64(w: &str, line: usize) -> Result<u64, ParseError> {
    match w.strip_prefix("0x").map(|h| u64::from_str_radix(h, 16)) {
        Some(Ok(v)) => Ok(v),
        _ => err(line, format!("{:?} is not 0x<hex>", w)),
    }
}

fn list<T: std::str::FromStr>(w: &str, line: usize, what: &str) -> Result<Vec<T>, ParseError> {
    if w == "-" {
        return Ok(Vec::new());
    }
    w.split(',').map(|x| num(x, line, what)).collect()
}

/// A field line: `<kind> <field> <value>` (`empty <field>`, `message <text>`).
fn field(words: &[&str], line: usize) -> Result<Field, ParseError> {
    let kind = words[0];
    if kind == "message" {
        if words.len() != 2 {
            return err(line, "message <text>");
        }
        return Ok(Field { name: "message".into(), val: Val::Message(unescape(words[1], line)?) });
    }
    if kind == "empty" {
        if words.len() != 2 {
            return err(line, "empty <field>");
        }
        return Ok(Field { name: unescape(words[1], line)?, val: Val::Empty });
    }
    if words.len() != 3 {
        return err(line, format!("{} <field> <value>", kind));
    }
    let name = unescape(words[1], line)?;
    if name.is_empty() {
        return err(line, "a field needs a name");
    }
    let v = words[2];
    let val = match kind {
        "i64" => Val::I64(num(v, line, "a i64")?),
        "u64" => Val::U64(num(v, line, "a u64")?),
        "i128" => Val::I128(num(v, line, "a i128")?),
        "u128" => Val::U128(num(v, line, "a u128")?),
        "i32" => Val::I32(num(v, line, "a i32")?),
        "u8" => Val::U8(num(v, line, "a u8")?),
        "f64" => Val::F64(num(v, line, "a f64")?),
        "f32" => Val::F32(num(v, line, "a f32")?),
        "bool" => Val::Bool(num(v, line, "a bool")?),
        "str" => Val::Str(unescape(v, line)?),
        "bytes" => {
            let mut out = Vec::new();
            if v != "-" {
                if v.len() % 2 != 0 {
                    return err(line, "bytes: hex pairs");
                }
                for i in (0..v.len()).step_by(2) {
                    out.push(num_hex(&v[i..i + 2], line)?);
                }
            }
            Val::Bytes(out)
        }
        "debug-str" => Val::DebugStr(unescape(v, line)?),
        "debug-point" => {
            let p: Vec<i32> = list(v, line, "a i32")?;
            if p.len() != 2 {
                return err(line, "debug-point <x>,<y>");
            }
            Val::DebugPoint(p[0], p[1])
        }
        "debug-vec" => Val::DebugVec(list(v, line, "a i64")?),
        "display" => Val::Display(unescape(v, line)?),
        "error" => Val::Error(unescape(v, line)?),
        _ => return err(line, format!("unknown value kind {:?}", kind)),
    };
    Ok(Field { name, val })
}

fn num_hex(w: &str, line: usize) -> Result<u8, ParseError> {
    u8::from_str_radix(w, 16).map_err(|_| ParseError { line, why: format!("{:?} is not a hex byte", w) })
}

fn parent(o: &[(String, String)], line: usize) -> Result<Parent, ParseError> {
    Ok(match opt(o, "parent") {
        None => Parent::Current,
        Some("none") => Parent::Root,
        Some(s) => Parent::Span(unescape(s, line)?),
    })
}

struct Parser<'a> {
    lines: Vec<(usize, Vec<&'a str>)>,
    pos: usize,
    next_event: usize,
}

impl<'a> Parser<'a> {
    fn take(&mut self, n: usize) -> usize {
        let first = self.next_event;
        self.next_event += n;
        if n == 0 {
            0
        } else {
            first
        }
    }

    /// Field lines up to `end`.
    fn fields(&mut self, start: usize) -> Result<Vec<Field>, ParseError> {
        let mut out = Vec::new();
        loop {
            let Some((line, w)) = self.lines.get(self.pos).cloned() else {
                return err(start, "no `end` for this statement");
            };
            self.pos += 1;
            if w[0] == "end" {
                if w.len() != 1 {
                    return err(line, "`end` takes nothing");
                }
                return Ok(out);
            }
            out.push(field(&w, line)?);
        }
    }

    /// Steps up to `end` (inside blocks) or the end of the file (top level).
    fn steps(&mut self, top: bool, in_thread: bool) -> Result<Vec<Step>, ParseError> {
        let mut out = Vec::new();
        while let Some((line, w)) = self.lines.get(self.pos).cloned() {
            self.pos += 1;
            let s = match w[0] {
                "end" if !top => return Ok(out),
                "event" | "etw_event" => {
                    let etw = w[0] == "etw_event";
                    if w.len() < 2 {
                        return err(line, format!("{} <name> level=...", w[0]));
                    }
                    let allowed: &[&str] = if etw {
                        &["level", "keyword", "tags", "target", "parent", "writes"]
                    } else {
                        &["level", "target", "parent", "writes"]
                    };
                    let o = options(&w[2..], allowed, line)?;
                    let lvl = level(opt(&o, "level").unwrap_or(""), line)?;
                    let keyword = match opt(&o, "keyword") {
                        Some(k) => hex_u64(k, line)?,
                        None if etw => return err(line, "etw_event needs keyword=0x<hex>"),
                        None => 0,
                    };
                    let tags = match opt(&o, "tags") {
                        Some(t) => u32::try_from(hex_u64(t, line)?)
                            .map_err(|_| ParseError { line, why: "tags is a u32".into() })?,
                        None => 0,
                    };
                    let name = unescape(w[1], line)?;
                    let target = unescape(opt(&o, "target").unwrap_or("ehconf"), line)?;
                    let parent = parent(&o, line)?;
                    let n = writes(&o, 1, line)?;
                    let fields = self.fields(line)?;
                    if fields.len() > 32 {
                        return err(line, "tracing takes at most 32 fields per callsite");
                    }
                    Step::Event(EventDef {
                        line,
                        etw,
                        name,
                        target,
                        level: lvl,
                        keyword,
                        tags,
                        parent,
                        fields,
                        writes: n,
                        first: self.take(n),
                    })
                }
                "span" => {
                    if w.len() < 3 {
                        return err(line, "span <id> <name> level=...");
                    }
                    let o = options(&w[3..], &["level", "target", "parent", "writes"], line)?;
                    let lvl = level(opt(&o, "level").unwrap_or(""), line)?;
                    let n = writes(&o, 0, line)?;
                    let fields = self.fields(line)?;
                    if fields.len() > 32 {
                        return err(line, "tracing takes at most 32 fields per callsite");
                    }
                    Step::Span(SpanDef {
                        line,
                        id: w[1].to_string(),
                        name: unescape(w[2], line)?,
                        target: unescape(opt(&o, "target").unwrap_or("ehconf"), line)?,
                        level: lvl,
                        parent: parent(&o, line)?,
                        fields,
                        writes: n,
                        first: self.take(n),
                    })
                }
                "record" => {
                    if w.len() < 4 {
                        return err(line, "record <span> <kind> <field> <value>");
                    }
                    let (fw, ow): (Vec<&str>, Vec<&str>) = w[2..].iter().partition(|x| !x.starts_with("writes="));
                    let o = options(&ow, &["writes"], line)?;
                    let n = writes(&o, 0, line)?;
                    Step::Record { line, span: w[1].to_string(), field: field(&fw, line)?, writes: n, first: self.take(n) }
                }
                "enter" | "exit" | "close" => {
                    if w.len() < 2 {
                        return err(line, format!("{} <span>", w[0]));
                    }
                    let o = options(&w[2..], &["writes"], line)?;
                    let n = writes(&o, 0, line)?;
                    let span = w[1].to_string();
                    let first = self.take(n);
                    match w[0] {
                        "enter" => Step::Enter { line, span, writes: n, first },
                        "exit" => Step::Exit { line, span, writes: n, first },
                        _ => Step::Close { line, span, writes: n, first },
                    }
                }
                "threads" => {
                    if in_thread {
                        return err(line, "threads inside a thread");
                    }
                    let mut blocks = Vec::new();
                    loop {
                        let Some((l2, w2)) = self.lines.get(self.pos).cloned() else {
                            return err(line, "no `end` for threads");
                        };
                        self.pos += 1;
                        match w2[0] {
                            "thread" => blocks.push(self.steps(false, true)?),
                            "end" => break,
                            _ => return err(l2, "only `thread` blocks inside threads"),
                        }
                    }
                    Step::Threads(blocks)
                }
                "inputs" | "clock" | "layer" => return err(line, format!("{} comes before the first step", w[0])),
                _ => return err(line, format!("unknown statement {:?}", w[0])),
            };
            out.push(s);
        }
        if top {
            Ok(out)
        } else {
            err(self.lines.last().map_or(0, |l| l.0), "missing `end`")
        }
    }
}

/// The whole file: `inputs`, `clock`, `layer` lines, then the steps.
pub fn parse(text: &str) -> Result<Inputs, ParseError> {
    let lines: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_ascii_whitespace().collect::<Vec<_>>()))
        .filter(|(_, w)| !w.is_empty() && !w[0].starts_with('#'))
        .collect();
    let mut p = Parser { lines, pos: 0, next_event: 1 };
    let Some((line, w)) = p.lines.first().cloned() else {
        return err(1, "empty file: the first statement is `inputs <name>`");
    };
    if w[0] != "inputs" || w.len() != 2 {
        return err(line, "the first statement is `inputs <name>`");
    }
    p.pos = 1;
    let mut inputs = Inputs { name: w[1].to_string(), clock: None, layers: Vec::new(), steps: Vec::new(), events: 0 };
    while let Some((line, w)) = p.lines.get(p.pos).cloned() {
        match w[0] {
            "clock" => {
                if w.len() != 2 || inputs.clock.is_some() {
                    return err(line, "clock <unix seconds>, once");
                }
                inputs.clock = Some(num(w[1], line, "a number of seconds")?);
            }
            "layer" => {
                if w.len() < 2 {
                    return err(line, "layer <provider> [keyword=0x..] [guid=<32 hex>] [target=<t>] [expect=invalid]");
                }
                let o = options(&w[2..], &["keyword", "guid", "target", "expect"], line)?;
                let guid = match opt(&o, "guid") {
                    Some(g) if g.len() == 32 => Some(
                        u128::from_str_radix(g, 16)
                            .map_err(|_| ParseError { line, why: "guid=<32 hex digits>".into() })?,
                    ),
                    Some(_) => return err(line, "guid=<32 hex digits>"),
                    None => None,
                };
                let invalid = match opt(&o, "expect") {
                    None => false,
                    Some("invalid") => true,
                    Some(x) => return err(line, format!("expect={} (only expect=invalid)", x)),
                };
                inputs.layers.push(LayerDef {
                    line,
                    provider: unescape(w[1], line)?,
                    keyword: opt(&o, "keyword").map(|k| hex_u64(k, line)).transpose()?,
                    guid,
                    target: opt(&o, "target").map(|t| unescape(t, line)).transpose()?,
                    invalid,
                });
            }
            _ => break,
        }
        p.pos += 1;
    }
    if !inputs.layers.iter().any(|l| !l.invalid) {
        return err(line, "at least one `layer` that builds");
    }
    inputs.steps = p.steps(true, false)?;
    inputs.events = p.next_event - 1;
    Ok(inputs)
}

/// The key of an etw_event! call site: what the macro takes at compile time (name, target,
/// level, keyword, tags, field names). build.rs generates one call site per key; the emitter
/// finds it by the same key.
pub fn etw_key(e: &EventDef) -> String {
    let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
    format!(
        "{}|{}|{}|0x{:x}|0x{:x}|{}",
        e.name,
        e.target,
        e.level.word(),
        e.keyword,
        e.tags,
        names.join(",")
    )
}

/// Every etw_event statement of the steps, threads included.
pub fn etw_events(steps: &[Step], out: &mut Vec<EventDef>) {
    for s in steps {
        match s {
            Step::Event(e) if e.etw => out.push(e.clone()),
            Step::Threads(b) => b.iter().for_each(|t| etw_events(t, out)),
            _ => {}
        }
    }
}
