/* SPDX-License-Identifier: MIT */
/*
 * The "mixed" perf.data of the decoder benchmark (issue 15): EventHeader events of five
 * realistic shapes written through libeventheader, rotating over many values, then
 * replayed as perf samples. Used by tests/bench/bench_decode.c (make bench) and by the
 * unit test that pins ehdecode's output on a small mixed file.
 *
 * The shapes: a log line (cstr8, u32, i64, u32 hex, struct {str8, i32, cstr8}); metrics
 * (f64, f32, u64 slice of 1..8, i32 array of 4, f64 slice of 6, bool8); a network event
 * with an activity id and opcode (ipv4, port, ipv6, port, guid, u64, cstr8); a failure
 * (errno, hresult, time64, bool32, 24 bytes of binary, cstr8, u16 hex); a wide message
 * (cstr16 with non-ASCII text, i8, u16, str8, i16 hex). Values stay where every decoder
 * agrees (finite floats, valid UTF-8/UTF-16, times within years 1970..2100).
 */
#ifndef EHCONF_SUPPORT_MIXED_H
#define EHCONF_SUPPORT_MIXED_H

/* Writes MIXED_VARIANTS events of each shape to the capture file dat_path through
 * libeventheader's capture backend (sets EHCONF_CAPTURE: call before any other
 * provider registration of the process). 0 or an errno. */
#define MIXED_VARIANTS 64u
int mixed_write_capture(const char *dat_path);

/* Writes perf.data to perf_path with nevents samples, cycling through the capture's
 * records in shape order (every fifth event has the same shape), times increasing with
 * a little disorder, CPU 0 and 1 alternating. 0 or an errno. */
int mixed_write_perf(const char *dat_path, const char *perf_path, unsigned nevents);

#endif /* EHCONF_SUPPORT_MIXED_H */
