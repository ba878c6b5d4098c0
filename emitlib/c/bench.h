/* SPDX-License-Identifier: MIT */
/*
 * `emit --bench COUNT FILE.events` for the C and C++ emitters (make bench-impls,
 * harness/impl/bench.py): the parts every emitter shares, so that what is timed and how
 * it is printed is the same whatever the API. The emitter runs the description's register
 * and unregister steps as usual; each event step is written COUNT times in a row the way a
 * user of the API writes an event on a hot path (what the API looks up once, looked up
 * before the loop; in the loop the API's enabled check where the user makes it, then the
 * event built and written), timed with bench_now_ns() around the loop, then reported with
 * bench_report(). stdout holds nothing else.
 */
#ifndef EMITLIB_BENCH_H
#define EMITLIB_BENCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

/* COUNT: decimal digits only, 1 to 10^10. Returns 0, or -1 (the emitter then prints its
 * usage and exits 2). */
int bench_count(const char *text, uint64_t *count);

/* "bench <ordinal> <count> <ns> <failed>": event <ordinal> of the description written
 * <count> times in <ns> ns of wall time, <failed> of the writes returning an error (a
 * disabled event that is not written is not a failure). Flushed at once. */
void bench_report(uint32_t ordinal, uint64_t count, uint64_t ns, uint64_t failed);

#ifdef __cplusplus
}
#endif

#endif /* EMITLIB_BENCH_H */
