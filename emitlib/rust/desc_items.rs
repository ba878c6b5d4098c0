// SPDX-License-Identifier: GPL-2.0
//
// The items of a case description, for impl/rust-macro: its emitter runs only the
// descriptions compiled into it, and must see any change. Every `event ... end` block is one
// item, every other statement (case, needs, provider, register, unregister, threads, thread,
// fork, parent, repeat, end) one item each; comments and blank lines are not items, and
// words are compared, not spacing. Each item has a hash (FNV-1a 64 of its words): the
// emitter compares the description it is given with the one compiled in item by item, so
// that the runner's copy without the events a profile lacks (harness/impl/registry.py
// without_events) still matches, and any other change is seen. The generator (build.rs)
// adds which ordinals each event item stands for (one, or one per repetition of a repeat).
// A module of the ehconf-emit crate, as desc.rs is.

#![allow(dead_code)]

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
const EVENT_OPENERS: &[&[u8]] = &[b"struct", b"struct_slice", b"element"];

/// Cuts `text` into items. The first statement must be `case <name>`.
pub fn items(text: &[u8]) -> Result<Items, (usize, String)> {
    let mut out = Vec::new();
    let mut case = None;
    let mut depth = 0usize; // inside an event: blocks open, the event included
    let mut hash = 0u64;
    let mut start = 0usize;
    for (i, raw) in text.split(|&c| c == b'\n').enumerate() {
        let n = i + 1;
        let words: Vec<&[u8]> = raw.split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).collect();
        if words.is_empty() || words[0].starts_with(b"#") {
            continue;
        }
        let mut h = if depth > 0 { fnv(hash, b"\n") } else { FNV_OFFSET };
        for (k, w) in words.iter().enumerate() {
            if k > 0 {
                h = fnv(h, b" ");
            }
            h = fnv(h, w);
        }
        if case.is_none() {
            if words[0] != b"case" || words.len() != 2 {
                return Err((n, "the first statement must be `case <name>`".to_string()));
            }
            case = Some(String::from_utf8_lossy(words[1]).into_owned());
        }
        if depth > 0 {
            hash = h;
            if words[0] == b"end" && words.len() == 1 {
                depth -= 1;
                if depth == 0 {
                    out.push(Item { is_event: true, hash, line: start });
                }
            } else if EVENT_OPENERS.contains(&words[0]) {
                depth += 1;
            } else if words[0] == b"event" {
                return Err((n, "an event inside an event".to_string()));
            }
        } else if words[0] == b"event" {
            depth = 1;
            hash = h;
            start = n;
        } else {
            out.push(Item { is_event: false, hash: h, line: n });
        }
    }
    let case = match case {
        Some(c) => c,
        None => return Err((1, "empty description: expected `case <name>`".to_string())),
    };
    if depth > 0 {
        return Err((start, "the event has no `end`".to_string()));
    }
    Ok(Items { case, items: out })
}
