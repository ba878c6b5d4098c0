/* SPDX-License-Identifier: MIT */
/*
 * The perf-decode pipeline on one thread (Documentation/decoder-json.md §0): every
 * PERF_RECORD_SAMPLE becomes one JSON object; objects are held back per round and
 * emitted sorted by sample time (perf_round.c). A sample that cannot be decoded becomes
 * the pinned error object (ehd_perf_error_json). perf_jobs.c is the same on N threads.
 * Memory: one round of formatted text, flushed early above EHD_PERF_ROUND_MAX.
 */
#include "ehd_perf.h"
#include "perf_round.h"

int ehd_perf_decode(FILE *f, unsigned flags, ehd_perf_emit_fn *emit, void *emit_ctx,
                    ehd_perf_diag_fn *diag, void *diag_ctx)
{
    ehd_perf_reader *r = perf_round_open(f, diag, diag_ctx);
    if (!r)
        return 1;
    struct perf_round rd;
    perf_round_init(&rd, emit, emit_ctx);
    ehd_buf name;
    ehd_buf_init(&name);
    unsigned long own_problems = 0;
    char why[PERF_WHY_MAX];
    ehd_perf_record rec;
    int rc;
    while ((rc = ehd_perf_next(r, &rec)) > 0) {
        if (rec.type == EHD_PERF_RECORD_FINISHED_ROUND) {
            perf_round_flush(&rd);
            continue;
        }
        uint64_t time = 0;
        size_t start = rd.text.len;
        int bad = rec.type == EHD_PERF_RECORD_SAMPLE
                      ? perf_round_sample(r, &rec, flags, &rd.text, &name, why, &time)
                      : perf_round_lost(r, &rec, why);
        if (bad) {
            own_problems++;
            if (diag)
                diag(diag_ctx, rec.file_offset, why);
        }
        if (rec.type == EHD_PERF_RECORD_SAMPLE)
            perf_round_push(&rd, time, start);
    }
    perf_round_flush(&rd);
    int oom = perf_round_oom(&rd) || name.oom;
    unsigned long problems = ehd_perf_problem_count(r) + own_problems;
    perf_round_free(&rd);
    ehd_buf_free(&name);
    ehd_perf_close(r);
    return perf_round_result(oom, problems, rc, diag, diag_ctx);
}
