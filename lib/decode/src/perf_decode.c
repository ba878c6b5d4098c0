/* SPDX-License-Identifier: MIT */
/*
 * The perf-decode pipeline (Documentation/decoder-json.md §0): every
 * PERF_RECORD_SAMPLE becomes one JSON object; objects are held back per
 * round and emitted sorted by sample time (stable: equal times keep file
 * order) at each FINISHED_ROUND and at the end. A sample that cannot be
 * decoded becomes the pinned error object (ehd_perf_error_json).
 * Memory: one round of formatted text, flushed early above EHD_PERF_ROUND_MAX.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"

struct pending {
    uint64_t time;
    size_t seq; /* position in the round: makes the sort stable */
    size_t off, len;
};

struct round {
    ehd_buf text;
    struct pending *v;
    size_t n, cap;
    int oom;
};

static int cmp_pending(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void flush(struct round *rd, ehd_perf_emit_fn *emit, void *ctx)
{
    /* Rounds are usually already in time order; checking is far cheaper than
     * qsort. (time, seq) is a total order, so either way gives one result. */
    size_t in_order = 1;
    while (in_order < rd->n && cmp_pending(&rd->v[in_order - 1], &rd->v[in_order]) < 0)
        in_order++;
    if (in_order < rd->n)
        qsort(rd->v, rd->n, sizeof *rd->v, cmp_pending);
    for (size_t i = 0; emit && i < rd->n; i++)
        emit(ctx, rd->text.data + rd->v[i].off, rd->v[i].len);
    rd->n = 0;
    ehd_buf_reset(&rd->text);
}

static void push(struct round *rd, uint64_t time, size_t off)
{
    if (rd->n == rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : 1024;
        struct pending *nv = realloc(rd->v, cap * sizeof *nv);
        if (!nv) {
            rd->oom = 1;
            ehd_buf_truncate(&rd->text, off);
            return;
        }
        rd->v = nv;
        rd->cap = cap;
    }
    rd->v[rd->n] = (struct pending){time, rd->n, off, rd->text.len - off};
    rd->n++;
}

int ehd_perf_decode(FILE *f, unsigned flags, ehd_perf_emit_fn *emit, void *emit_ctx,
                    ehd_perf_diag_fn *diag, void *diag_ctx)
{
    const char *reason;
    uint64_t off;
    ehd_perf_reader *r = ehd_perf_open(f, diag, diag_ctx, &reason, &off);
    if (!r) {
        if (diag)
            diag(diag_ctx, off, reason);
        return 1;
    }
    struct round rd;
    memset(&rd, 0, sizeof rd);
    ehd_buf_init(&rd.text);
    ehd_buf name;
    ehd_buf_init(&name);
    unsigned long own_problems = 0;
    char why[200];
    ehd_perf_record rec;
    int rc;
    while ((rc = ehd_perf_next(r, &rec)) > 0) {
        if (rec.type == EHD_PERF_RECORD_FINISHED_ROUND) {
            flush(&rd, emit, emit_ctx);
            continue;
        }
        if (rec.type == EHD_PERF_RECORD_LOST && rec.size >= 24) {
            ehd_perf_sample sid;
            int with_cpu = ehd_perf_parse_sample_id(r, &rec, &sid, &reason) == 0 && sid.has_cpu;
            uint64_t lost = ehd_perf_u64(r, rec.data + 16);
            if (with_cpu)
                snprintf(why, sizeof why, "the kernel lost %" PRIu64 " samples on cpu %" PRIu32,
                         lost, sid.cpu);
            else
                snprintf(why, sizeof why, "the kernel lost %" PRIu64 " samples", lost);
            own_problems++;
            if (diag)
                diag(diag_ctx, rec.file_offset, why);
            continue;
        }
        if (rec.type != EHD_PERF_RECORD_SAMPLE)
            continue;
        ehd_perf_sample s;
        size_t start = rd.text.len;
        int err = ehd_perf_parse_sample(r, &rec, &s, &reason);
        if (!err)
            err = ehd_perf_sample_json(r, &s, flags, &rd.text, &reason);
        if (err) {
            ehd_buf_reset(&name);
            ehd_perf_sample_name(&s, &name);
            ehd_buf_truncate(&rd.text, start);
            ehd_perf_error_json(&rd.text, name.data ? name.data : "", name.len, reason,
                                rec.file_offset, flags);
            snprintf(why, sizeof why, "%.*s: %s", (int)(name.len < 120 ? name.len : 120),
                     name.data ? name.data : "", reason);
            own_problems++;
            if (diag)
                diag(diag_ctx, rec.file_offset, why);
        }
        push(&rd, s.has_time ? s.time : 0, start);
        if (rd.text.len > EHD_PERF_ROUND_MAX)
            flush(&rd, emit, emit_ctx);
    }
    flush(&rd, emit, emit_ctx);
    int oom = rd.oom || rd.text.oom || name.oom;
    unsigned long problems = ehd_perf_problem_count(r) + own_problems;
    ehd_buf_free(&rd.text);
    ehd_buf_free(&name);
    free(rd.v);
    ehd_perf_close(r);
    if (oom) {
        if (diag)
            diag(diag_ctx, 0, "out of memory");
        return ENOMEM;
    }
    return problems || rc < 0 ? 1 : 0;
}
