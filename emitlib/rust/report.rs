// SPDX-License-Identifier: GPL-2.0
//
// How both Rust emitters (impl/rust-dynamic, impl/rust-macro) word what a call into the
// crate did, for the `event <n> failed <reason>` lines of Documentation/case-descriptions.md:
// an errno by its name and number, and a panic inside the crate (caught with
// std::panic::catch_unwind: the emitters build with panic = "unwind") by its message and the
// crate file and line it comes from, which the tests compare with the lines they cite.
// A module of the ehconf-emit crate, as desc.rs is.

use std::cell::RefCell;
use std::panic;

/// `EINVAL (22)`; an errno without a name here as `errno <n>`.
pub fn errno_name(e: i32) -> String {
    let name = match e {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EBADF => "EBADF",
        libc::E2BIG => "E2BIG",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
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

/// A path inside the checkout, from the crate folder on (tracepoint/src/native.rs).
fn short_path(p: &str) -> &str {
    match p.rfind("/src/") {
        Some(i) => match p[..i].rfind('/') {
            Some(j) => &p[j + 1..],
            None => p,
        },
        None => p,
    }
}

/// Every panic is said on stderr and kept for take_panic(): `<message> at <file>:<line>`.
pub fn install_panic_hook() {
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

/// The last panic caught on this thread, once.
pub fn take_panic() -> String {
    LAST_PANIC.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

/// What a forked child sends its parent (emitlib/rust/forked.rs) about the events of its
/// block: "written skipped failed" counted between `before` and `after`, and the exit
/// status, 1 if it skipped or failed any.
pub fn child_report(before: [usize; 3], after: [usize; 3]) -> (String, i32) {
    let d = [after[0] - before[0], after[1] - before[1], after[2] - before[2]];
    (format!("{} {} {}\n", d[0], d[1], d[2]), if d[1] > 0 || d[2] > 0 { 1 } else { 0 })
}

/// The counts of child_report's line, or None when the child sent no whole line.
pub fn child_counts(line: &str) -> Option<[usize; 3]> {
    let n: Vec<usize> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    (n.len() == 3).then(|| [n[0], n[1], n[2]])
}
