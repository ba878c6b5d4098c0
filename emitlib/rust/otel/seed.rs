// SPDX-License-Identifier: GPL-2.0
//
// The pinned seed of the OpenTelemetry emitters' `emit --bench` (make bench-impls): std's
// HashMap keys (RandomState) come from getrandom once per thread, and the SDK's metrics
// aggregation keeps each attribute set in a HashMap that is iterated, at every collection,
// up to the bucket of its last entry (opentelemetry_sdk 0.32.1 src/metrics/internal/mod.rs:
// 340, a table made with room for the cardinality limit, :114): where that bucket lies
// depends on the keys, so one process costs a few hundred instructions per collection more
// or less than the next, and two callgrind runs at two counts would not repeat. Pinned, every
// run hashes alike and callgrind repeats; the figure is then that of one key, which
// Documentation/performance.md says beside it. The same interposition as clock.rs: this
// binary's own `getrandom`, which std links to (weakly, GLIBC_2.25). Unpinned (every run but
// --bench), the kernel's answer as for any program. ehconf_emit::otel::seed.

use std::sync::atomic::{AtomicBool, Ordering};

static PINNED: AtomicBool = AtomicBool::new(false);

/// From now on getrandom fills every buffer with the same bytes; call it before the first
/// HashMap of any thread.
pub fn pin() {
    PINNED.store(true, Ordering::Release);
}

#[no_mangle]
pub unsafe extern "C" fn getrandom(buf: *mut libc::c_void, len: libc::size_t, flags: libc::c_uint) -> libc::ssize_t {
    if PINNED.load(Ordering::Acquire) {
        let out = std::slice::from_raw_parts_mut(buf as *mut u8, len);
        for (i, b) in out.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(151).wrapping_add(29);
        }
        return len as libc::ssize_t;
    }
    libc::syscall(libc::SYS_getrandom, buf, len, flags) as libc::ssize_t
}
