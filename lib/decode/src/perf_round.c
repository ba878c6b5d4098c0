/* SPDX-License-Identifier: MIT */
/*
 * Rounds (Documentation/decoder-json.md §0): every sample's JSON object is held back
 * until the next FINISHED_ROUND (or the end, or an early flush once the round's text
 * exceeds EHD_PERF_ROUND_MAX) and then emitted sorted by sample time, stable: equal
 * times keep file order. Also what one SAMPLE or LOST record adds (its text, its diag
 * line). Both pipelines (perf_decode.c, perf_jobs.c) use only these functions, so their
 * decisions depend on the same inputs (text lengths, times, round markers) and their
 * output is the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "perf_round.h"

struct perf_pending {
    uint64_t time;
    size_t seq;    /* position in the round: makes the sort stable */
    const char *p; /* the text elsewhere (perf_round_push_ref), or NULL: at rd->text + off */
    size_t off, len;
};

void perf_round_init(struct perf_round *rd, ehd_perf_emit_fn *emit, void *emit_ctx)
{
    rd->v = NULL;
    rd->n = rd->cap = 0;
    rd->bytes = 0;
    rd->oom = 0;
    rd->emit = emit;
    rd->emit_ctx = emit_ctx;
    ehd_buf_init(&rd->text);
}

void perf_round_free(struct perf_round *rd)
{
    ehd_buf_free(&rd->text);
    free(rd->v);
    rd->v = NULL;
    rd->n = rd->cap = 0;
}

int perf_round_oom(const struct perf_round *rd)
{
    return rd->oom || rd->text.oom;
}

static int cmp_pending(const void *a, const void *b)
{
    const struct perf_pending *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void perf_round_flush(struct perf_round *rd)
{
    /* Rounds are usually already in time order; checking is far cheaper than
     * qsort. (time, seq) is a total order, so either way gives one result. */
    size_t in_order = 1;
    while (in_order < rd->n && cmp_pending(&rd->v[in_order - 1], &rd->v[in_order]) < 0)
        in_order++;
    if (in_order < rd->n)
        qsort(rd->v, rd->n, sizeof *rd->v, cmp_pending);
    for (size_t i = 0; rd->emit && i < rd->n; i++) {
        const struct perf_pending *e = &rd->v[i];
        rd->emit(rd->emit_ctx, e->p ? e->p : rd->text.data + e->off, e->len);
    }
    rd->n = 0;
    rd->bytes = 0;
    ehd_buf_reset(&rd->text);
}

/* Room for one more pending event; 0 when out of memory. */
static int reserve(struct perf_round *rd)
{
    if (rd->n < rd->cap)
        return 1;
    size_t cap = rd->cap ? rd->cap * 2 : 1024;
    struct perf_pending *nv = realloc(rd->v, cap * sizeof *nv);
    if (!nv) {
        rd->oom = 1;
        return 0;
    }
    rd->v = nv;
    rd->cap = cap;
    return 1;
}

/* The early flush depends on the round's text size alone, wherever the text is. */
static void add(struct perf_round *rd, uint64_t time, const char *p, size_t off, size_t len)
{
    rd->v[rd->n] = (struct perf_pending){time, rd->n, p, off, len};
    rd->n++;
    rd->bytes += len;
    if (rd->bytes > EHD_PERF_ROUND_MAX)
        perf_round_flush(rd);
}

void perf_round_push(struct perf_round *rd, uint64_t time, size_t start)
{
    if (!reserve(rd)) {
        ehd_buf_truncate(&rd->text, start);
        return;
    }
    add(rd, time, NULL, start, rd->text.len - start);
}

void perf_round_push_ref(struct perf_round *rd, uint64_t time, const char *text, size_t len)
{
    if (reserve(rd))
        add(rd, time, text, 0, len);
}

void perf_round_keep(struct perf_round *rd)
{
    for (size_t i = 0; i < rd->n; i++) {
        struct perf_pending *e = &rd->v[i];
        if (!e->p)
            continue;
        e->off = rd->text.len;
        ehd_buf_append(&rd->text, e->p, e->len);
        e->p = NULL;
    }
}

int perf_round_sample(const ehd_perf_reader *r, const ehd_perf_record *rec, unsigned flags,
                      ehd_buf *text, ehd_buf *name, char why[PERF_WHY_MAX], uint64_t *time)
{
    ehd_perf_sample s;
    const char *reason;
    size_t start = text->len;
    int err = ehd_perf_parse_sample(r, rec, &s, &reason);
    if (!err)
        err = ehd_perf_sample_json(r, &s, flags, text, &reason);
    *time = s.has_time ? s.time : 0;
    if (!err)
        return 0;
    ehd_buf_reset(name);
    ehd_perf_sample_name(&s, name);
    ehd_buf_truncate(text, start);
    ehd_perf_error_json(text, name->data ? name->data : "", name->len, reason, rec->file_offset,
                        flags);
    snprintf(why, PERF_WHY_MAX, "%.*s: %s", (int)(name->len < 120 ? name->len : 120),
             name->data ? name->data : "", reason);
    return 1;
}

int perf_round_lost(const ehd_perf_reader *r, const ehd_perf_record *rec, char why[PERF_WHY_MAX])
{
    if (rec->type != EHD_PERF_RECORD_LOST || rec->size < 24)
        return 0;
    ehd_perf_sample sid;
    const char *reason;
    int with_cpu = ehd_perf_parse_sample_id(r, rec, &sid, &reason) == 0 && sid.has_cpu;
    uint64_t lost = ehd_perf_u64(r, rec->data + 16);
    if (with_cpu)
        snprintf(why, PERF_WHY_MAX, "the kernel lost %" PRIu64 " samples on cpu %" PRIu32, lost,
                 sid.cpu);
    else
        snprintf(why, PERF_WHY_MAX, "the kernel lost %" PRIu64 " samples", lost);
    return 1;
}

int perf_round_result(int oom, unsigned long problems, int rc, ehd_perf_diag_fn *diag,
                      void *diag_ctx)
{
    if (oom) {
        if (diag)
            diag(diag_ctx, 0, "out of memory");
        return ENOMEM;
    }
    return problems || rc < 0 ? 1 : 0;
}

ehd_perf_reader *perf_round_open(FILE *f, ehd_perf_diag_fn *diag, void *diag_ctx)
{
    const char *reason;
    uint64_t off;
    ehd_perf_reader *r = ehd_perf_open(f, diag, diag_ctx, &reason, &off);
    if (!r && diag)
        diag(diag_ctx, off, reason);
    return r;
}
