// SPDX-License-Identifier: GPL-2.0
//
// The pinned wall clock of the OpenTelemetry emitters (impl/otel-*/): `clock <seconds>` in an
// inputs file sets CLOCK_REALTIME for this process, so the times the SDK and the exporters
// take from SystemTime::now (a log record's observed timestamp, a span's start and end when
// the inputs give none, a metric's start and collection times) are the same on every run and
// the golden files hold them exactly (Documentation/producers-otel.md §3.1). The same
// interposition as impl/tracing-etw's: this binary's own `clock_gettime`, which std links to.
// ehconf_emit::otel::clock.

use std::sync::atomic::{AtomicI64, Ordering};

/// CLOCK_REALTIME's seconds while pinned; i64::MIN: not pinned.
static SECS: AtomicI64 = AtomicI64::new(i64::MIN);
static NANOS: AtomicI64 = AtomicI64::new(0);

/// Pins CLOCK_REALTIME to `secs` + `nanos` (0..1e9) until the next call.
pub fn pin(secs: i64, nanos: u32) {
    NANOS.store(nanos as i64, Ordering::Relaxed);
    SECS.store(secs, Ordering::Release);
}

/// The clock an inputs file starts with (its `clock` before the first step), when it has one.
pub fn pin_start(start: Option<(i64, u32)>) {
    if let Some((secs, nanos)) = start {
        pin(secs, nanos);
    }
}

/// libc's own clock_gettime (the vDSO's), looked up once; 1 if there is none.
static NEXT: AtomicI64 = AtomicI64::new(0);

/// CLOCK_REALTIME reads the pinned time when one was set; every other clock (and the real
/// time before any `clock`) is libc's answer, through the vDSO as for any program (a record's
/// time then costs what it costs a user, which make bench-impls times), or the kernel's
/// through the syscall if libc's cannot be found.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: libc::clockid_t, ts: *mut libc::timespec) -> libc::c_int {
    let secs = SECS.load(Ordering::Acquire);
    if clock == libc::CLOCK_REALTIME && secs != i64::MIN && !ts.is_null() {
        (*ts).tv_sec = secs as libc::time_t;
        (*ts).tv_nsec = NANOS.load(Ordering::Relaxed) as libc::c_long;
        return 0;
    }
    let mut next = NEXT.load(Ordering::Relaxed);
    if next == 0 {
        next = libc::dlsym(libc::RTLD_NEXT, c"clock_gettime".as_ptr()) as i64;
        NEXT.store(if next == 0 { 1 } else { next }, Ordering::Relaxed);
    }
    if next > 1 {
        let f: unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int =
            std::mem::transmute(next as usize);
        return f(clock, ts);
    }
    libc::syscall(libc::SYS_clock_gettime, clock as libc::c_long, ts) as libc::c_int
}
