// SPDX-License-Identifier: GPL-2.0
//
// The Rust parser of the case descriptions (emitlib/rust/desc.rs) held to the format's
// snippets, tests/desc-format/ (README.md there), as tests/desc/test_desc_format.c holds
// libdesc: each valid/<name>.events must parse and print (desc_print.rs) exactly as
// valid/<name>.printed; each malformed/<name>.events must be refused with the
// "path:line: reason" its first line gives. KTAP, one test per snippet, under the C test's
// names. Built by make (emitlib/build.mk) with rustc alone, the folder and the type table
// compiled in: DESC_FORMAT_ROOT and EHCONF_TYPES_TXT at build time.

#[path = "../../emitlib/rust/desc.rs"]
mod desc;
#[path = "../../emitlib/rust/desc_print.rs"]
mod desc_print;

use std::fs;

const ROOT: &str = env!("DESC_FORMAT_ROOT");
const TYPES_TXT: &str = include_str!(env!("EHCONF_TYPES_TXT"));

/// The snippets of one folder, sorted: their paths.
fn snippets(kind: &str) -> Vec<String> {
    let dir = format!("{}/{}", ROOT, kind);
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect())
        .unwrap_or_default();
    names.retain(|n| n.len() > 7 && n.ends_with(".events"));
    names.sort();
    names.into_iter().map(|n| format!("{}/{}", dir, n)).collect()
}

/// Diagnostics of what is wrong, empty when the snippet passes.
fn valid(path: &str, types: &[desc::TypeRow]) -> Vec<String> {
    let text = fs::read(path).unwrap_or_default();
    let d = match desc::parse(&text, types) {
        Ok(d) => d,
        Err(e) => return vec![format!("{}:{}: {}", path, e.line, e.why)],
    };
    let got = desc_print::print(&d, types);
    let want_path = format!("{}.printed", &path[..path.len() - 7]);
    let want = fs::read_to_string(&want_path).unwrap_or_default();
    if got == want {
        return Vec::new();
    }
    let (g, w): (Vec<&str>, Vec<&str>) = (got.split('\n').collect(), want.split('\n').collect());
    let at = (0..g.len().max(w.len())).find(|&i| g.get(i) != w.get(i)).unwrap_or(0);
    vec![
        format!("printed text differs at line {}:", at + 1),
        format!("  got : {}", g.get(at).unwrap_or(&"")),
        format!("  want: {}", w.get(at).unwrap_or(&"")),
    ]
}

fn malformed(path: &str, types: &[desc::TypeRow]) -> Vec<String> {
    let text = fs::read(path).unwrap_or_default();
    let first = text.split(|&c| c == b'\n').next().unwrap_or(b"");
    let expect = match std::str::from_utf8(first).ok().and_then(|l| l.strip_prefix("# refused: ")) {
        Some(e) => format!("{}:{}", path, e),
        None => return vec!["the first line is not `# refused: <line>: <reason>`".into()],
    };
    match desc::parse(&text, types) {
        Ok(_) => vec!["parsed, not refused".into()],
        Err(e) => {
            let got = format!("{}:{}: {}", path, e.line, e.why);
            if got == expect {
                Vec::new()
            } else {
                vec![format!("got : {}", got), format!("want: {}", expect)]
            }
        }
    }
}

fn main() {
    let types = match desc::read_types(TYPES_TXT, std::mem::size_of::<usize>()) {
        Ok(t) => t,
        Err(why) => {
            println!("KTAP version 1\n1..1\nnot ok 1 types\n# {}", why);
            std::process::exit(1);
        }
    };
    let (valid_paths, malformed_paths) = (snippets("valid"), snippets("malformed"));
    let total = valid_paths.len() + malformed_paths.len();
    println!("KTAP version 1\n1..{}", total.max(1));
    if valid_paths.is_empty() || malformed_paths.is_empty() {
        println!("not ok 1 snippets\n# no valid or no malformed snippets in {}", ROOT);
        std::process::exit(1);
    }
    let mut failed = 0;
    let runs: [(&str, &Vec<String>, fn(&str, &[desc::TypeRow]) -> Vec<String>); 2] =
        [("valid", &valid_paths, valid), ("malformed", &malformed_paths, malformed)];
    let mut k = 0;
    for (kind, paths, check) in runs {
        for path in paths {
            k += 1;
            let problems = check(path, &types);
            for p in &problems {
                println!("# {}", p);
            }
            let base = path.rsplit('/').next().unwrap_or("");
            let name = base[..base.len() - 7].replace('-', "_");
            println!("{}ok {} {}_{}", if problems.is_empty() { "" } else { "not " }, k, kind, name);
            failed += !problems.is_empty() as usize;
        }
    }
    println!("# {} passed, {} failed, 0 skipped", total - failed, failed);
    std::process::exit(if failed > 0 { 1 } else { 0 });
}
