/* SPDX-License-Identifier: MIT */
/*
 * What each perf record adds to the output, and when it is emitted: shared by
 * the one-thread pipeline (perf_decode.c) and the --jobs pipeline (perf_jobs.c),
 * so both make the same push and flush decisions and print the same bytes.
 * Not installed API.
 */
#ifndef PERF_ROUND_H
#define PERF_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "ehd_perf.h"

struct perf_pending;

/* The formatted events of one FINISHED_ROUND, held back for sorting. */
struct perf_round {
    ehd_buf text; /* the held-back texts that are not referenced in place */
    struct perf_pending *v;
    size_t n, cap;
    size_t bytes; /* text held back, referenced or not: decides the early flush */
    int oom;
    ehd_perf_emit_fn *emit;
    void *emit_ctx;
};

void perf_round_init(struct perf_round *rd, ehd_perf_emit_fn *emit, void *emit_ctx);
void perf_round_free(struct perf_round *rd);
/* The event rd->text[start, rd->text.len) was just appended: holds it back with its sort
 * key, and flushes the round early once its text exceeds EHD_PERF_ROUND_MAX. */
void perf_round_push(struct perf_round *rd, uint64_t time, size_t start);
/* The same for an event whose text stays at text[0, len) until the next
 * perf_round_keep or perf_round_flush (the --jobs pipeline emits from the batch the
 * text was formatted into, on the thread that formatted it, without copying it). */
void perf_round_push_ref(struct perf_round *rd, uint64_t time, const char *text, size_t len);
/* Copies the referenced texts still held back into the round's own buffer. */
void perf_round_keep(struct perf_round *rd);
/* Emits the held-back events sorted by (time, push order) and empties the round. */
void perf_round_flush(struct perf_round *rd);
/* 1 if an event was dropped for lack of memory. */
int perf_round_oom(const struct perf_round *rd);

/* The diag line size both pipelines use. */
#define PERF_WHY_MAX 200

/* Appends the JSON object of one PERF_RECORD_SAMPLE to text and sets *time (its sort
 * key). 0, or 1 if it did not decode: then text got the pinned error object instead and
 * why the diag line. name is scratch. */
int perf_round_sample(const ehd_perf_reader *r, const ehd_perf_record *rec, unsigned flags,
                      ehd_buf *text, ehd_buf *name, char why[PERF_WHY_MAX], uint64_t *time);

/* 1 if rec is a PERF_RECORD_LOST that gets a diag line, which goes into why. */
int perf_round_lost(const ehd_perf_reader *r, const ehd_perf_record *rec, char why[PERF_WHY_MAX]);

/* ehd_perf_open; NULL after reporting why through diag. */
ehd_perf_reader *perf_round_open(FILE *f, ehd_perf_diag_fn *diag, void *diag_ctx);

/* The pipeline's return value (ehd_perf_decode): reports "out of memory" if oom. */
int perf_round_result(int oom, unsigned long problems, int rc, ehd_perf_diag_fn *diag,
                      void *diag_ctx);

#endif /* PERF_ROUND_H */
