// SPDX-License-Identifier: GPL-2.0
//
// The words of every producer family's inputs (impl/<name>/inputs/*.inputs: tracing-etw's,
// the OpenTelemetry exporters'), the one tokenizer they share: lines of words separated by
// spaces, `#` starts a comment line, indentation ignored, text `%XX`-escaped
// (Documentation/case-descriptions.md's rule), `-` the empty text, options `key=value` words,
// and the parse error naming the line. Each family parses its own statements with these
// (emitlib/rust/otel/words.rs adds the OpenTelemetry value kinds). Standard library only.
#![allow(dead_code)]

use std::fmt;

#[derive(Debug)]
pub struct ParseError {
    pub line: usize,
    pub why: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.why)
    }
}

pub fn err<T>(line: usize, why: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, why: why.into() })
}

/// One statement line: its number (from 1) and its words, still escaped.
#[derive(Clone, Debug)]
pub struct Line {
    pub no: usize,
    pub w: Vec<String>,
}

/// The file's statement lines, comments and blank lines left out.
pub fn lines(text: &str) -> Vec<Line> {
    text.lines()
        .enumerate()
        .map(|(i, l)| Line { no: i + 1, w: l.split_ascii_whitespace().map(str::to_string).collect() })
        .filter(|l| !l.w.is_empty() && !l.w[0].starts_with('#'))
        .collect()
}

/// `%XX` unescaped; `-` is the empty text.
pub fn unescape(word: &str, line: usize) -> Result<String, ParseError> {
    unescape_bytes(word, line).and_then(|b| {
        String::from_utf8(b).map_err(|_| ParseError { line, why: format!("{:?} is not UTF-8", word) })
    })
}

pub fn unescape_bytes(word: &str, line: usize) -> Result<Vec<u8>, ParseError> {
    if word == "-" {
        return Ok(Vec::new());
    }
    let b = word.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = word.get(i + 1..i + 3).unwrap_or("");
            match u8::from_str_radix(hex, 16) {
                Ok(v) if hex.len() == 2 => out.push(v),
                _ => return err(line, format!("bad %XX escape in {:?}", word)),
            }
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// A statement of at least `n` words, else the error `usage`.
pub fn at_least<S>(w: &[S], n: usize, line: usize, usage: &str) -> Result<(), ParseError> {
    if w.len() < n {
        return err(line, usage);
    }
    Ok(())
}

pub fn num<T: std::str::FromStr>(w: &str, line: usize, what: &str) -> Result<T, ParseError> {
    w.parse().map_err(|_| ParseError { line, why: format!("{:?} is not {}", w, what) })
}

/// `key=value` options; every key must be one of `allowed`, once.
pub fn options<S: AsRef<str>>(words: &[S], allowed: &[&str], line: usize) -> Result<Vec<(String, String)>, ParseError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for w in words {
        let w = w.as_ref();
        let Some((k, v)) = w.split_once('=') else {
            return err(line, format!("{:?} is not key=value", w));
        };
        if !allowed.contains(&k) {
            return err(line, format!("unknown option {:?} (allowed: {})", k, allowed.join(", ")));
        }
        if out.iter().any(|(x, _)| x == k) {
            return err(line, format!("option {} given twice", k));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

pub fn opt<'a>(o: &'a [(String, String)], k: &str) -> Option<&'a str> {
    o.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str())
}

/// `writes=<n>` or the default.
pub fn writes(o: &[(String, String)], default: usize, line: usize) -> Result<usize, ParseError> {
    match opt(o, "writes") {
        None => Ok(default),
        Some(w) => num(w, line, "a count of events"),
    }
}


/// An input's text handed to the API under test as an error (`error` values) or a
/// Display value: it prints as itself, and Debug shows it as `Text("...")`.
pub struct Text(pub String);

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Text({:?})", self.0)
    }
}

impl std::error::Error for Text {}
