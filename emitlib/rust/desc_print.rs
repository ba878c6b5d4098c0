// SPDX-License-Identifier: GPL-2.0
//
// A description parsed by desc.rs written back as a description, in the canonical form of
// libdesc's desc_print (emitlib/c/desc_print.c): repeats unrolled, `# event <n>, line <l>`
// before each event, a `provider` line wherever the provider of the next statement
// changes, a type by the first name types.txt gives its encoding and format (else raw:),
// attributes and tags only when not 0, no `needs`. tests/desc/desc_format.rs compares it
// with the .printed files of tests/desc-format/valid/, as the C test does libdesc's.
// A module of the ehconf-emit crate beside desc.rs (it uses crate::desc).

#![allow(dead_code)]

use crate::desc::{Array, Description, Event, Field, Kind, ProviderKey, Step, TypeRow};
use std::fmt::Write as _;

/// The token of a name: %XX for a byte outside 0x21..0x7E and for '%', "-" for the empty
/// name, %2D for the name "-" (as libdesc's desc_name_token).
pub fn name_token(name: &[u8]) -> String {
    if name.is_empty() {
        return "-".into();
    }
    let mut out = String::new();
    for (i, &c) in name.iter().enumerate() {
        if !(0x21..=0x7e).contains(&c) || c == b'%' || (c == b'-' && name.len() == 1 && i == 0) {
            let _ = write!(out, "%{:02X}", c);
        } else {
            out.push(c as char);
        }
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

struct Printer<'a> {
    out: String,
    current: Option<ProviderKey>,
    types: &'a [TypeRow],
}

impl<'a> Printer<'a> {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{:width$}{}", "", text, width = 2 * depth);
    }

    fn provider(&mut self, key: &ProviderKey, depth: usize) {
        if self.current.as_ref() == Some(key) {
            return;
        }
        self.current = Some(key.clone());
        let mut s = format!("provider {}", name_token(&key.name));
        if let Some(g) = &key.group {
            let _ = write!(s, " group={}", name_token(g));
        }
        self.line(depth, &s);
    }

    fn type_name(&self, enc: u8, fmt: u8, array: Array) -> String {
        match self.types.iter().find(|r| r.enc == enc && r.fmt == fmt) {
            Some(r) => {
                let suffix = match array {
                    Array::Variable => "_slice",
                    Array::Constant => "_array",
                    Array::None => "",
                };
                format!("{}{}", r.name, suffix)
            }
            None => {
                let flag = match array {
                    Array::Variable => 0x40,
                    Array::Constant => 0x20,
                    Array::None => 0,
                };
                format!("raw:{:02x}:{:02x}", enc | flag, fmt)
            }
        }
    }

    fn fields(&mut self, fields: &[Field], depth: usize) {
        for f in fields {
            let tag = match f.tag {
                Some(t) if t != 0 => format!(" tag=0x{:x}", t),
                _ => String::new(),
            };
            match &f.kind {
                Kind::Value { enc, fmt, array, values, .. } => {
                    let value = if values.is_empty() || (*array == Array::None && values[0].is_empty()) {
                        "-".to_string()
                    } else {
                        values.iter().map(|v| hex(v)).collect::<Vec<_>>().join(",")
                    };
                    let text = format!("{} {} {}{}", self.type_name(*enc, *fmt, *array), name_token(&f.name), value, tag);
                    self.line(depth, &text);
                }
                Kind::Struct(members) => {
                    self.line(depth, &format!("struct {}{}", name_token(&f.name), tag));
                    self.fields(members, depth + 1);
                    self.line(depth, "end");
                }
                Kind::StructSlice { shape, elements } => {
                    self.line(depth, &format!("struct_slice {} {}{}", name_token(&f.name), elements.len(), tag));
                    let blocks = if elements.is_empty() { std::slice::from_ref(shape) } else { &elements[..] };
                    for e in blocks {
                        self.line(depth + 1, "element");
                        self.fields(e, depth + 2);
                        self.line(depth + 1, "end");
                    }
                    self.line(depth, "end");
                }
            }
        }
    }

    fn event(&mut self, e: &Event, depth: usize) {
        self.provider(&e.provider, depth);
        self.line(depth, &format!("# event {}, line {}", e.ordinal, e.line));
        let mut s = format!("event {} level={} keyword=0x{:x}", name_token(&e.name), e.level, e.keyword);
        if e.opcode != 0 {
            let _ = write!(s, " opcode={}", e.opcode);
        }
        if e.tag != 0 {
            let _ = write!(s, " tag=0x{:x}", e.tag);
        }
        if e.id != 0 {
            let _ = write!(s, " id={}", e.id);
        }
        if e.version != 0 {
            let _ = write!(s, " version={}", e.version);
        }
        if let Some(a) = &e.activity {
            let _ = write!(s, " activity={}", hex(a));
        }
        if let Some(r) = &e.related {
            let _ = write!(s, " related={}", hex(r));
        }
        self.line(depth, &s);
        self.fields(&e.fields, depth + 1);
        self.line(depth, "end");
    }

    fn block(&mut self, steps: &[Step], depth: usize) {
        for s in steps {
            match s {
                Step::Event(e) => self.event(e, depth),
                Step::Register(k) | Step::Unregister(k) => {
                    self.provider(k, depth);
                    self.line(depth, if matches!(s, Step::Register(_)) { "register" } else { "unregister" });
                }
                Step::Threads(blocks) => {
                    self.line(depth, "threads");
                    for b in blocks {
                        self.line(depth + 1, "thread");
                        self.block(b, depth + 2);
                        self.line(depth + 1, "end");
                    }
                    self.line(depth, "end");
                }
                Step::Fork(child, parent) => {
                    self.line(depth, "fork");
                    self.block(child, depth + 1);
                    if !parent.is_empty() {
                        self.line(depth, "parent");
                        self.block(parent, depth + 1);
                    }
                    self.line(depth, "end");
                }
                Step::Repeat(..) => unreachable!("printed unrolled"),
            }
        }
    }
}

/// The canonical text of a description.
pub fn print(d: &Description, types: &[TypeRow]) -> String {
    let mut p = Printer { out: String::new(), current: None, types };
    p.line(0, &format!("case {}", name_token(&d.case)));
    p.block(&d.unrolled(), 0);
    p.out
}
