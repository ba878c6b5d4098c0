// SPDX-License-Identifier: MIT
//
// `emit --bench COUNT FILE.events` for the Rust emitters (make bench-impls,
// harness/impl/bench.py): what emitlib/c/bench.h is for the C and C++ ones, the same
// count grammar and the same line, so that what is timed and how it is printed is the same
// whatever the API. The emitter runs the description's register and unregister steps as
// usual; each event step is written COUNT times in a row the way a user of the API writes
// an event on a hot path (what the API looks up once, looked up before the loop; in the
// loop the API's enabled check where the user makes it, then the event built and
// written), timed by time() around the loop. stdout holds nothing else.

use std::io::Write;
use std::time::Instant;

/// COUNT: decimal digits only, 1 to 10^10.
pub fn count(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 11 || !text.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse::<u64>().ok().filter(|&n| (1..=10_000_000_000).contains(&n))
}

/// The usage line and exit 2, for a COUNT count() refuses.
pub fn bad_count(text: &str) -> ! {
    eprintln!("emit: --bench {}: COUNT is 1 to 10000000000", text);
    std::process::exit(2);
}

/// Writes event `ordinal` `count` times through `write_once` (true when that write returned
/// an error; a disabled event that is not written is not one), timed, and prints
/// "bench <ordinal> <count> <ns> <failed>". Returns the number failed.
pub fn time(ordinal: usize, count: u64, mut write_once: impl FnMut() -> bool) -> u64 {
    let mut failed = 0u64;
    let t0 = Instant::now();
    for _ in 0..count {
        failed += write_once() as u64;
    }
    let ns = t0.elapsed().as_nanos();
    let out = std::io::stdout();
    let mut out = out.lock();
    let _ = writeln!(out, "bench {} {} {} {}", ordinal, count, ns, failed);
    let _ = out.flush();
    failed
}
