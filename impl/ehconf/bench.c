/* SPDX-License-Identifier: MIT */
/*
 * emit --bench COUNT FILE.events (emitlib/c/bench.h, make bench-impls): the description's
 * register and unregister steps as emit runs them; each event COUNT times in a row the way
 * a user of libeventheader's dynamic API writes a hot event: the tracepoint once, the
 * event built once with the builder (reset and the adds, the calls the conformance run
 * makes) and prepared (eh_prepared_init), then per write eh_tracepoint_enabled() and, when
 * enabled, the fields' data stored into the eh_arg array (found in the description once,
 * emit_event_args) and eh_prepared_write. An event that cannot
 * be prepared (an array of structs), or every event with EHCONF_BENCH_BUILDER=1 set, is
 * written as the conformance run writes it: reset, the adds and eh_builder_write per write
 * (emit_event_on), the figure of the builder itself (Documentation/performance.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "emit.h"

/* COUNT writes of a prepared event: per write the enabled check, then the fields' data
 * stored into args and eh_prepared_write. Inlined with n a constant (write_1 to write_8),
 * the store is a few moves, as a user's eh_arg initialiser compiles to; a libc memcpy call
 * of a run-time size would add about 20 instructions per write that no user pays. */
static inline __attribute__((always_inline)) uint64_t
write_prepared(const eh_prepared *ev, eh_tracepoint *tp, eh_arg *args, const eh_arg *data, int n,
               const uint8_t *act, const uint8_t *rel, uint64_t count, int *last_err)
{
    uint64_t failed = 0;
    for (uint64_t i = 0; i < count; i++)
        if (eh_tracepoint_enabled(tp)) {
            memcpy(args, data, (size_t)n * sizeof args[0]);
            int werr = eh_prepared_write(ev, args, (unsigned)n, act, rel);
            if (werr)
                *last_err = werr;
            failed += werr != 0;
        }
    return failed;
}

/* One function per count of an event without activity ids, each with the loop to itself
 * (inlined into bench_event, the loop kept its variables on the stack and reloaded them per
 * write). */
#define WRITE_N(k)                                                                                 \
    static __attribute__((noinline))                                                               \
    uint64_t write_##k(const eh_prepared *ev, eh_tracepoint *tp, eh_arg *args, const eh_arg *data, \
                       uint64_t count, int *last_err)                                              \
    {                                                                                              \
        return write_prepared(ev, tp, args, data, k, NULL, NULL, count, last_err);                 \
    }
WRITE_N(1)
WRITE_N(2)
WRITE_N(3)
WRITE_N(4)
WRITE_N(5)
WRITE_N(6)
WRITE_N(7)
WRITE_N(8)
#undef WRITE_N

static uint64_t bench_prepared(const eh_prepared *ev, eh_tracepoint *tp, eh_arg *args,
                               const eh_arg *data, int n, const uint8_t *act, const uint8_t *rel,
                               uint64_t count, int *last_err)
{
    switch (act || rel ? 0 : n) {
#define CASE_N(k) \
    case k: return write_##k(ev, tp, args, data, count, last_err);
        CASE_N(1)
        CASE_N(2)
        CASE_N(3)
        CASE_N(4)
        CASE_N(5)
        CASE_N(6)
        CASE_N(7)
        CASE_N(8)
#undef CASE_N
    default: return write_prepared(ev, tp, args, data, n, act, rel, count, last_err);
    }
}

static int bench_event(const struct desc_event *e, uint64_t count)
{
    char why[256];
    eh_tracepoint *tp = NULL;
    int err = eh_provider_tracepoint(e->provider->user, e->level, e->keyword, &tp);
    if (err) {
        fprintf(stderr, "emit: bench: event %u: eh_provider_tracepoint: error %d\n", e->ordinal,
                err);
        return 1;
    }
    eh_builder b;
    eh_builder_init(&b);
    eh_prepared ev = {0};
    eh_arg args[128];
    const char *builder_only = getenv("EHCONF_BENCH_BUILDER");
    int prepared = !(builder_only && *builder_only) && !emit_event_build(&b, e, why, sizeof why) &&
                   emit_event_args(e, args, 128) >= 0 && !eh_prepared_init(&ev, &b, tp);
    const uint8_t *act = e->has_activity ? e->activity : NULL;
    const uint8_t *rel = e->has_related ? e->related : NULL;
    uint64_t failed = 0;
    uint64_t t0 = bench_now_ns();
    if (prepared) {
        /* The fields' data as a user has them at hand: the description's, found once; each
         * write stores them into its arguments, as a user's eh_arg initialiser does. */
        eh_arg data[128];
        int n = emit_event_args(e, data, 128);
        int werr = 0;
        failed = bench_prepared(&ev, tp, args, data, n, act, rel, count, &werr);
        if (werr)
            snprintf(why, sizeof why, "eh_prepared_write: error %d", werr);
    } else {
        for (uint64_t i = 0; i < count; i++)
            if (eh_tracepoint_enabled(tp))
                failed += emit_event_on(&b, tp, e, why, sizeof why) != 0;
    }
    uint64_t ns = bench_now_ns() - t0;
    eh_prepared_destroy(&ev);
    eh_builder_destroy(&b);
    bench_report(e->ordinal, count, ns, failed);
    if (failed)
        fprintf(stderr, "emit: bench: event %u: %s\n", e->ordinal, why);
    return failed != 0;
}

int bench_main(const char *count_text, const char *path)
{
    struct desc d;
    char err[512];
    uint64_t count;
    if (bench_count(count_text, &count)) {
        fprintf(stderr, "emit: --bench %s: COUNT is 1 to 10000000000\n", count_text);
        return 2;
    }
    if (desc_parse(path, &d, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    eh_provider *providers = calloc(d.n_providers + 1, sizeof *providers);
    if (!providers) {
        fprintf(stderr, "emit: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < d.n_providers; i++) {
        providers[i].name = d.providers[i]->name;
        providers[i].group = d.providers[i]->group;
        d.providers[i]->user = &providers[i];
    }
    int rc = 0;
    for (uint32_t i = 0; i < d.main.n_steps && rc != 2; i++) {
        const struct desc_step *s = &d.main.steps[i];
        switch (s->kind) {
        case DESC_STEP_EVENT: rc |= bench_event(s->event, count); break;
        case DESC_STEP_REGISTER: rc |= eh_provider_register(s->provider->user) != 0; break;
        case DESC_STEP_UNREGISTER: rc |= eh_provider_unregister(s->provider->user) != 0; break;
        default:
            fprintf(stderr, "%s:%u: emit --bench times events of the main flow only\n", path,
                    s->line);
            rc = 2;
        }
    }
    for (uint32_t i = 0; i < d.n_providers; i++)
        eh_provider_unregister(&providers[i]);
    free(providers);
    desc_free(&d);
    return rc;
}
