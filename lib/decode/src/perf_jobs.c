/* SPDX-License-Identifier: MIT */
/*
 * ehd_perf_decode_jobs: the perf-decode pipeline (perf_decode.c) with the sample
 * formatting, most of the work, on `jobs` threads (the calling thread and jobs - 1
 * workers), and output byte for byte the same as on one thread: the same emit and diag
 * calls in the same order, the same problem count and return value.
 *
 * The calling thread reads records (the reader is not thread-safe) and packs them into
 * small batches: copies of SAMPLE records, FINISHED_ROUND markers, and "notes" for
 * every diag line that is not a sample's (LOST records, the reader's own problems,
 * which it reports through a callback that adds them to the batch being filled), so
 * they keep their place among the samples. Workers take submitted batches in order
 * and format each sample into the batch's own text buffer (perf_round_sample: the
 * object, or the error object and its diag line); so does the calling thread whenever
 * it would otherwise wait for a batch (so `jobs` threads are busy, not jobs + 1 on jobs
 * CPUs, and the batches it formats stay in its own cache). The calling thread collects the
 * batches strictly in submission order and feeds their items to the round logic
 * (perf_round.c), the same code the one-thread path uses, which decides alone when to
 * sort and emit; emit and diag are only ever called from the calling thread.
 *
 * Samples are formatted against the reader's state (attrs, ids, names, tracing data,
 * clock data), which metadata records change as ehd_perf_next consumes them; so before
 * such a record (ehd_perf_next_is_meta) every batch in flight is collected first.
 * The *reason strings of the formatters live in thread-local buffers: workers copy them
 * into the batch (perf_round_sample writes the diag line there and then).
 *
 * Synchronisation is per batch (one lock, one signal each way), never per event.
 * Without workers (pthread_create failed) the calling thread formats every batch.
 *
 * Memory bound, independent of the file's size: at most 2 * jobs + 2 batches
 * (jobs <= EHD_PERF_JOBS_MAX), each holding at most BATCH_BYTES of records plus one
 * (records are at most 64 KiB), at most BATCH_ITEMS samples and markers, and the text
 * those format to; plus the round (EHD_PERF_ROUND_MAX plus one event) and the reader's
 * window, as on one thread. Batch buffers are reused, never freed, until the end.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "perf_internal.h"
#include "perf_round.h"

#define BATCH_BYTES (128u << 10)
#define BATCH_ITEMS 2048u
#define NO_NOTE     SIZE_MAX

enum item_kind { ITEM_SAMPLE, ITEM_ROUND, ITEM_NOTE };

struct item {
    uint8_t kind;         /* enum item_kind */
    uint8_t reader_note;  /* ITEM_NOTE from the reader: it counted the problem itself */
    uint32_t rec_size;    /* ITEM_SAMPLE: the record at rec_at in the batch's input */
    uint64_t file_offset; /* of the record: the offset diag reports */
    size_t rec_at;
    uint64_t time;            /* ITEM_SAMPLE, set by the worker: the sort key */
    size_t text_at, text_len; /* ITEM_SAMPLE, set by the worker: its JSON in text */
    size_t note;              /* NUL-terminated diag line in notes, or NO_NOTE */
};

struct batch {
    struct item *items;
    size_t n, cap;
    ehd_buf in;    /* copies of the SAMPLE records */
    ehd_buf text;  /* the worker's output */
    ehd_buf notes; /* diag lines */
    ehd_buf name;  /* the worker's scratch */
    int done;      /* formatted (under lock) */
};

struct jobs {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a batch was submitted, or quit */
    pthread_cond_t done; /* a batch was formatted */
    struct batch *ring;
    size_t nring;
    /* Positions, never wrapped (slot = position % nring): [head, tail) submitted and
     * not yet collected, [claim, tail) not yet taken by a worker, tail the batch being
     * filled. head is the calling thread's alone; claim and tail change under lock. */
    size_t head, claim, tail;
    int quit;
    pthread_t threads[EHD_PERF_JOBS_MAX];
    unsigned nthreads;

    const ehd_perf_reader *r;
    unsigned flags;
    /* the calling thread's */
    struct perf_round rd;
    ehd_perf_diag_fn *diag;
    void *diag_ctx;
    unsigned long own_problems;
    int oom;
};

static struct batch *slot(struct jobs *j, size_t pos)
{
    return &j->ring[pos % j->nring];
}

/* ---- workers ------------------------------------------------------------------ */

static void format_batch(struct jobs *j, struct batch *b)
{
    char why[PERF_WHY_MAX];
    for (size_t i = 0; i < b->n; i++) {
        struct item *it = &b->items[i];
        if (it->kind != ITEM_SAMPLE)
            continue;
        const uint8_t *p = (const uint8_t *)b->in.data + it->rec_at;
        ehd_perf_record rec = {EHD_PERF_RECORD_SAMPLE, ehd_perf_u16(j->r, p + 4), it->rec_size,
                               it->file_offset, p};
        it->text_at = b->text.len;
        it->note = NO_NOTE;
        if (perf_round_sample(j->r, &rec, j->flags, &b->text, &b->name, why, &it->time)) {
            it->note = b->notes.len;
            ehd_buf_append(&b->notes, why, strlen(why) + 1);
        }
        it->text_len = b->text.len - it->text_at;
    }
}

static void *worker(void *arg)
{
    struct jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (j->claim == j->tail && !j->quit)
            pthread_cond_wait(&j->work, &j->lock);
        if (j->claim == j->tail)
            break;
        struct batch *b = slot(j, j->claim++);
        pthread_mutex_unlock(&j->lock);
        format_batch(j, b);
        pthread_mutex_lock(&j->lock);
        b->done = 1;
        pthread_cond_signal(&j->done); /* only the calling thread waits on it */
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- the calling thread: filling ---------------------------------------------- */

static struct item *add_item(struct jobs *j, enum item_kind kind, uint64_t file_offset)
{
    struct batch *b = slot(j, j->tail);
    if (b->n == b->cap) {
        /* notes can outgrow BATCH_ITEMS: the reader may report many problems at once */
        size_t cap = b->cap ? b->cap * 2 : BATCH_ITEMS + 16;
        struct item *nv = realloc(b->items, cap * sizeof *nv);
        if (!nv) {
            j->oom = 1;
            return NULL;
        }
        b->items = nv;
        b->cap = cap;
    }
    struct item *it = &b->items[b->n++];
    memset(it, 0, sizeof *it);
    it->kind = (uint8_t)kind;
    it->file_offset = file_offset;
    it->note = NO_NOTE;
    return it;
}

static void add_note(struct jobs *j, uint64_t file_offset, const char *why, int reader_note)
{
    struct item *it = add_item(j, ITEM_NOTE, file_offset);
    if (!it)
        return;
    struct batch *b = slot(j, j->tail);
    it->reader_note = (uint8_t)reader_note;
    it->note = b->notes.len;
    ehd_buf_append(&b->notes, why, strlen(why) + 1);
}

/* The reader's diag while it runs on the calling thread: in order with the samples. */
static void reader_diag(void *ctx, uint64_t offset, const char *reason)
{
    add_note(ctx, offset, reason, 1);
}

/* ---- the calling thread: collecting ------------------------------------------- */

static void feed(struct jobs *j, struct batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct item *it = &b->items[i];
        if (it->kind == ITEM_ROUND) {
            perf_round_flush(&j->rd);
            continue;
        }
        if (it->note != NO_NOTE) {
            if (!it->reader_note)
                j->own_problems++;
            if (j->diag)
                j->diag(j->diag_ctx, it->file_offset, b->notes.data + it->note);
        }
        if (it->kind == ITEM_SAMPLE) {
            size_t start = j->rd.text.len;
            ehd_buf_append(&j->rd.text, b->text.data + it->text_at, it->text_len);
            perf_round_push(&j->rd, it->time, start);
        }
    }
    if (b->in.oom || b->text.oom || b->notes.oom || b->name.oom)
        j->oom = 1;
    b->n = 0;
    b->done = 0;
    ehd_buf_reset(&b->in);
    ehd_buf_reset(&b->text);
    ehd_buf_reset(&b->notes);
}

/* Collects the oldest batch in flight; waits for it only if wait, formatting the batches
 * no worker has taken yet meanwhile. 0 if it was not ready. */
static int collect(struct jobs *j, int wait)
{
    struct batch *b = slot(j, j->head);
    pthread_mutex_lock(&j->lock);
    while (wait && !b->done) {
        if (j->claim == j->tail) {
            pthread_cond_wait(&j->done, &j->lock);
            continue;
        }
        struct batch *mine = slot(j, j->claim++);
        pthread_mutex_unlock(&j->lock);
        format_batch(j, mine);
        pthread_mutex_lock(&j->lock);
        mine->done = 1;
    }
    int done = b->done;
    pthread_mutex_unlock(&j->lock);
    if (!done)
        return 0;
    feed(j, b);
    j->head++;
    return 1;
}

/* Hands the batch being filled to the workers; collects what is ready, and the oldest
 * batches until there is a free one to fill. */
static void submit(struct jobs *j)
{
    pthread_mutex_lock(&j->lock);
    j->tail++;
    pthread_cond_signal(&j->work);
    pthread_mutex_unlock(&j->lock);
    while (j->head < j->tail && collect(j, j->tail - j->head == j->nring))
        ;
}

/* Every batch formatted and fed: nothing reads the reader's state any more. */
static void drain(struct jobs *j)
{
    if (slot(j, j->tail)->n)
        submit(j);
    while (j->head < j->tail)
        collect(j, 1);
}

static void add_record(struct jobs *j, const ehd_perf_record *rec)
{
    char why[PERF_WHY_MAX];
    if (rec->type == EHD_PERF_RECORD_FINISHED_ROUND) {
        add_item(j, ITEM_ROUND, rec->file_offset);
    } else if (perf_round_lost(j->r, rec, why)) {
        add_note(j, rec->file_offset, why, 0);
    } else if (rec->type == EHD_PERF_RECORD_SAMPLE) {
        struct batch *b = slot(j, j->tail);
        struct item *it = add_item(j, ITEM_SAMPLE, rec->file_offset);
        if (!it)
            return;
        it->rec_at = b->in.len;
        it->rec_size = rec->size;
        ehd_buf_append(&b->in, rec->data, rec->size);
    } else {
        return;
    }
    struct batch *b = slot(j, j->tail);
    if (b->in.len >= BATCH_BYTES || b->n >= BATCH_ITEMS)
        submit(j);
}

/* ---- setup -------------------------------------------------------------------- */

static void stop_workers(struct jobs *j)
{
    pthread_mutex_lock(&j->lock);
    j->quit = 1;
    pthread_cond_broadcast(&j->work);
    pthread_mutex_unlock(&j->lock);
    for (unsigned i = 0; i < j->nthreads; i++)
        pthread_join(j->threads[i], NULL);
    for (size_t i = 0; i < j->nring; i++) {
        struct batch *b = &j->ring[i];
        free(b->items);
        ehd_buf_free(&b->in);
        ehd_buf_free(&b->text);
        ehd_buf_free(&b->notes);
        ehd_buf_free(&b->name);
    }
    free(j->ring);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->done);
    pthread_mutex_destroy(&j->lock);
}

static int start_workers(struct jobs *j, unsigned jobs)
{
    if (jobs > EHD_PERF_JOBS_MAX)
        jobs = EHD_PERF_JOBS_MAX;
    j->nring = 2 * (size_t)jobs + 2;
    jobs--; /* the calling thread formats too, whenever it would wait */
    j->ring = calloc(j->nring, sizeof *j->ring);
    if (!j->ring)
        return -1;
    for (size_t i = 0; i < j->nring; i++) {
        ehd_buf_init(&j->ring[i].in);
        ehd_buf_init(&j->ring[i].text);
        ehd_buf_init(&j->ring[i].notes);
        ehd_buf_init(&j->ring[i].name);
    }
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->done, NULL);
    /* fewer threads than asked for (even none) only make it slower */
    while (j->nthreads < jobs && pthread_create(&j->threads[j->nthreads], NULL, worker, j) == 0)
        j->nthreads++;
    return 0;
}

int ehd_perf_decode_jobs(FILE *f, unsigned flags, unsigned jobs, ehd_perf_emit_fn *emit,
                         void *emit_ctx, ehd_perf_diag_fn *diag, void *diag_ctx)
{
    struct jobs *j = jobs > 1 ? calloc(1, sizeof *j) : NULL;
    if (!j || start_workers(j, jobs) != 0) {
        free(j);
        return ehd_perf_decode(f, flags, emit, emit_ctx, diag, diag_ctx);
    }
    ehd_perf_reader *r = perf_round_open(f, diag, diag_ctx);
    if (!r) {
        stop_workers(j);
        free(j);
        return 1;
    }
    j->r = r;
    j->flags = flags;
    j->diag = diag;
    j->diag_ctx = diag_ctx;
    perf_round_init(&j->rd, emit, emit_ctx);
    /* From here on the reader's problems travel in the batches. */
    r->diag = reader_diag;
    r->diag_ctx = j;

    ehd_perf_record rec;
    int rc;
    for (;;) {
        if (ehd_perf_next_is_meta(r))
            drain(j);
        if ((rc = ehd_perf_next(r, &rec)) <= 0)
            break;
        add_record(j, &rec);
    }
    drain(j);
    perf_round_flush(&j->rd);
    stop_workers(j);
    int oom = j->oom || perf_round_oom(&j->rd);
    unsigned long problems = ehd_perf_problem_count(r) + j->own_problems;
    perf_round_free(&j->rd);
    ehd_perf_close(r);
    free(j);
    return perf_round_result(oom, problems, rc, diag, diag_ctx);
}
