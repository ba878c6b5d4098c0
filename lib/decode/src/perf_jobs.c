/* SPDX-License-Identifier: MIT */
/*
 * ehd_perf_decode_jobs: the perf-decode pipeline (perf_decode.c) with the sample
 * formatting, most of the work, on `jobs` threads (the calling thread and jobs - 1
 * workers), and output byte for byte the same as on one thread: the same emit and diag
 * calls in the same order, the same problem count and return value.
 *
 * The calling thread reads records (the reader is not thread-safe) and packs them into
 * batches: where each SAMPLE record is (a regular file) or a copy of it (a pipe),
 * FINISHED_ROUND markers, and "notes" for every diag line that is not a sample's (LOST
 * records, the reader's own problems, which it reports through a callback that adds
 * them to the batch being filled), so they keep their place among the samples. A batch
 * ends at a round's end once it is BATCH_MIN long, so a round is usually in one batch.
 *
 * A thread takes the oldest batch no thread has taken, reads its records from the file
 * itself (pread), formats each sample into its own area (struct own; perf_round_sample:
 * the object, or the error object and its diag line), waits until every earlier batch
 * has been fed, and feeds this one to the round logic (perf_round.c, the same code the
 * one-thread path uses, which alone decides when to sort and emit) with the texts
 * referenced where they are. So a batch's bytes are read, written and emitted on one
 * core: when they crossed between cores (records copied by the calling thread, texts
 * in shared buffers, a round buffer every thread appended to), --jobs 2 spent 60 % more
 * CPU time than --jobs 1 and ran only 1.2x as fast. The calling thread formats too
 * whenever the ring is full, so `jobs` threads are busy, not jobs + 1 on jobs CPUs.
 * emit and diag are called by one thread at a time, in order, never concurrently.
 *
 * Samples are formatted against the reader's state (attrs, ids, names, tracing data,
 * clock data), which metadata records change as ehd_perf_next consumes them; so before
 * such a record (ehd_perf_next_is_meta) every batch in flight is fed first, and the
 * formatting threads read a copy of the reader taken while none is in flight (snap).
 * The *reason strings of the formatters live in thread-local buffers: they are copied
 * into the area's notes there and then.
 *
 * Synchronisation is per batch (one lock, a signal to the workers, a broadcast when a
 * batch has been fed), never per event. Without workers (pthread_create failed) the
 * calling thread formats every batch.
 *
 * Memory bound, independent of the file's size: at most 2 * jobs + 2 batches
 * (jobs <= EHD_PERF_JOBS_MAX), each at most BATCH_BYTES of records plus one (records are
 * at most 64 KiB) and BATCH_RECORDS records; one area per thread, holding one batch's
 * records and text; the round (EHD_PERF_ROUND_MAX plus one event) and the reader's
 * window, as on one thread. Buffers are reused, never freed, until the end.
 */
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_internal.h"
#include "perf_internal.h"
#include "perf_round.h"

#define BATCH_BYTES   (256u << 10)
#define BATCH_RECORDS 4096u
#define BATCH_MIN     (64u << 10) /* a round end closes a batch from this size on */
#define NO_NOTE       SIZE_MAX

/* A diag line of the calling thread's (the reader's problems, LOST records), to be
 * printed before the batch's record number `before`. */
struct note {
    size_t before;
    uint64_t file_offset;
    size_t text;         /* NUL-terminated line in the batch's notes */
    uint8_t reader_note; /* from the reader: it counted the problem itself */
};

/* What the calling thread fills and hands over: a run of consecutive records (never a
 * metadata record other than FINISHED_ROUND, so the run is contiguous in the input),
 * where they are in the file or a copy of them (a pipe), and its notes. Written by the
 * calling thread alone until submitted, then only read. The formatting thread walks the
 * records itself, so the calling thread does no per-record bookkeeping beyond finding
 * them. */
struct batch {
    /* A batch per cache line pair: the calling thread fills one while another thread
     * reads its neighbour. */
    _Alignas(128) struct note *notes;
    size_t nnotes, cap;
    size_t nrec;       /* records in the run */
    uint64_t src_off;  /* the first record's offset in the input */
    size_t src_len;    /* a regular file: the run's bytes, read by the formatting thread */
    ehd_buf in;        /* a pipe: a copy of the run */
    ehd_buf note_text; /* the notes' lines */
};

enum out_kind { OUT_SAMPLE, OUT_ROUND, OUT_NOTE, OUT_OWN_NOTE };

/* One thing feed does, in order: a sample to push (with its diag line if it did not
 * decode), a round's end, or a diag line. */
struct out {
    uint8_t kind;         /* enum out_kind */
    uint8_t reader_note;  /* OUT_NOTE: from the reader */
    uint64_t file_offset; /* what diag reports */
    uint64_t time;        /* OUT_SAMPLE: the sort key */
    size_t text_at, text_len;
    size_t note; /* OUT_SAMPLE: line in the area's notes or NO_NOTE; OUT_NOTE: in the batch's;
                    OUT_OWN_NOTE: in the area's */
};

/* Each formatting thread's own buffers: a batch's records are read, formatted and fed
 * by one thread into memory only that thread writes, so no cache line the other cores
 * write is touched on the way (with the buffers in the batches, used by whichever
 * thread took the batch, --jobs 2 spent 0.85 s of CPU on the bench's file; with these,
 * 0.72-0.79 s, against 0.62 s for --jobs 1). */
struct own {
    ehd_buf in, text, notes, name;
    struct out *outs;
    size_t nouts, cap;
    int oom;
};

struct jobs {
    pthread_mutex_t lock;
    pthread_cond_t work; /* a batch was submitted, or quit */
    pthread_cond_t fed;  /* head moved: a batch's turn to be fed, or a free slot */
    struct batch *ring;
    size_t nring;
    /* Positions, never wrapped (slot = position % nring): [head, tail) submitted and
     * not yet fed, [claim, tail) not yet taken by a thread, tail the batch being
     * filled (the calling thread's alone). All three change under lock. */
    size_t head, claim, tail;
    int quit;
    pthread_t threads[EHD_PERF_JOBS_MAX];
    unsigned nthreads;

    ehd_perf_reader *r; /* the calling thread's: it moves on every record */
    /* What the formatting threads read instead: a copy of the reader taken while no
     * batch is in flight (at the start, and after each metadata record). Reading the
     * live reader, whose record position the calling thread rewrites for every record,
     * kept its cache line moving between the cores (--jobs 2 spent 1.02 s of CPU on the
     * bench's file without the copy, 0.84 s with it). */
    ehd_perf_reader *snap;
    int snap_stale;
    int fd; /* a file the records can be read from by offset, or -1 */
    unsigned flags;
    /* Whoever feeds (one thread at a time, in batch order) */
    struct perf_round rd;
    ehd_perf_diag_fn *diag;
    void *diag_ctx;
    unsigned long own_problems;
    int feed_oom;
    struct own main_own; /* the calling thread's area, when it formats */
    int oom;             /* the calling thread's */
};

static struct batch *slot(struct jobs *j, size_t pos)
{
    return &j->ring[pos % j->nring];
}

/* ---- workers ------------------------------------------------------------------ */

/* A regular file's records are read by the thread that formats them, straight from the
 * file: copied by the calling thread instead, every byte would cross from its core to
 * the formatting one. 0, or -1 if the file no longer holds them. */
static int read_records(struct jobs *j, const struct batch *b, ehd_buf *in)
{
    char *o = ehd_buf_room(in, b->src_len);
    if (!o)
        return -1;
    size_t got = 0;
    while (got < b->src_len) {
        ssize_t k = pread(j->fd, o + got, b->src_len - got, (off_t)(b->src_off + got));
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    ehd_buf_commit(in, o + got);
    return 0;
}

static struct out *add_out(struct own *w, enum out_kind kind, uint64_t file_offset)
{
    if (w->nouts == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : BATCH_RECORDS + 64;
        struct out *nv = realloc(w->outs, cap * sizeof *nv);
        if (!nv) {
            w->oom = 1;
            return NULL;
        }
        w->outs = nv;
        w->cap = cap;
    }
    struct out *o = &w->outs[w->nouts++];
    o->kind = (uint8_t)kind;
    o->reader_note = 0;
    o->file_offset = file_offset;
    o->note = NO_NOTE;
    return o;
}

/* The calling thread's notes that come before record number k. */
static void add_notes_before(const struct batch *b, size_t k, size_t *ni, struct own *w)
{
    for (; *ni < b->nnotes && b->notes[*ni].before <= k; ++*ni) {
        struct out *o = add_out(w, OUT_NOTE, b->notes[*ni].file_offset);
        if (o) {
            o->reader_note = b->notes[*ni].reader_note;
            o->note = b->notes[*ni].text;
        }
    }
}

/* Walks the batch's records, formatting its samples into the area w: the same decisions
 * the one-thread pipeline makes per record (perf_decode.c). */
static void format_batch(struct jobs *j, const struct batch *b, struct own *w)
{
    char why[PERF_WHY_MAX];
    const ehd_perf_reader *r = j->snap; /* locals: j's other members change meanwhile */
    unsigned flags = j->flags;
    const uint8_t *in = (const uint8_t *)b->in.data;
    size_t len = b->in.len, pos = 0, ni = 0, k = 0;
    if (b->src_len) {
        int unread = read_records(j, b, &w->in) != 0;
        in = (const uint8_t *)w->in.data;
        len = unread ? 0 : w->in.len;
    }
    for (; k < b->nrec; k++) {
        add_notes_before(b, k, &ni, w);
        uint32_t type = 0, size = 0;
        if (len - pos >= 8) {
            type = ehd_perf_u32(r, in + pos);
            size = ehd_perf_u16(r, in + pos + 6);
        }
        if (size < 8 || size > len - pos) {
            /* not what the calling thread read: the file shrank or changed under us */
            struct out *o = add_out(w, OUT_OWN_NOTE, b->src_off + pos);
            if (o) {
                static const char gone[] = "the file changed while it was being read";
                o->note = w->notes.len;
                ehd_buf_append(&w->notes, gone, sizeof gone);
            }
            break;
        }
        uint64_t at = b->src_off + pos;
        if (type == EHD_PERF_RECORD_FINISHED_ROUND) {
            add_out(w, OUT_ROUND, at);
        } else if (type == EHD_PERF_RECORD_SAMPLE) {
            struct out *o = add_out(w, OUT_SAMPLE, at);
            if (!o)
                break;
            ehd_perf_record rec = {type, ehd_perf_u16(r, in + pos + 4), (uint16_t)size, at,
                                   in + pos};
            o->text_at = w->text.len;
            if (perf_round_sample(r, &rec, flags, &w->text, &w->name, why, &o->time)) {
                o->note = w->notes.len;
                ehd_buf_append(&w->notes, why, strlen(why) + 1);
            }
            o->text_len = w->text.len - o->text_at;
        }
        pos += size;
    }
    add_notes_before(b, SIZE_MAX, &ni, w);
}

/* The batch's outcome, in order, to the round logic: diag lines, round ends, and each
 * sample's text referenced where it was formatted. What the round still holds at the end
 * is copied into the round's own buffer, since the area is then reused. Runs on one
 * thread at a time, in batch order. */
static void feed(struct jobs *j, struct batch *b, struct own *w)
{
    for (size_t i = 0; i < w->nouts; i++) {
        const struct out *o = &w->outs[i];
        if (o->kind == OUT_ROUND) {
            perf_round_flush(&j->rd);
            continue;
        }
        const char *note = o->kind == OUT_NOTE  ? b->note_text.data + o->note
                           : o->note != NO_NOTE ? w->notes.data + o->note
                                                : NULL;
        if (note) {
            if (!o->reader_note)
                j->own_problems++;
            if (j->diag)
                j->diag(j->diag_ctx, o->file_offset, note);
        }
        if (o->kind == OUT_SAMPLE)
            perf_round_push_ref(&j->rd, o->time, w->text.data + o->text_at, o->text_len);
    }
    perf_round_keep(&j->rd);
    if (w->oom || b->in.oom || b->note_text.oom || w->in.oom || w->text.oom || w->notes.oom ||
        w->name.oom)
        j->feed_oom = 1;
    b->nnotes = 0;
    b->nrec = 0;
    b->src_len = 0;
    ehd_buf_reset(&b->in);
    ehd_buf_reset(&b->note_text);
    w->oom = 0;
    w->nouts = 0;
    ehd_buf_reset(&w->in);
    ehd_buf_reset(&w->text);
    ehd_buf_reset(&w->notes);
}

/* Formats the batch at pos (taken under lock, called without it) in the thread's own
 * area w, then feeds it to the round logic when its turn comes. */
static void format_and_feed(struct jobs *j, size_t pos, struct own *w)
{
    struct batch *b = slot(j, pos);
    format_batch(j, b, w);
    pthread_mutex_lock(&j->lock);
    while (j->head != pos)
        pthread_cond_wait(&j->fed, &j->lock);
    pthread_mutex_unlock(&j->lock);
    feed(j, b, w);
    pthread_mutex_lock(&j->lock);
    j->head++;
    pthread_cond_broadcast(&j->fed);
    pthread_mutex_unlock(&j->lock);
}

static void own_init(struct own *w)
{
    memset(w, 0, sizeof *w);
    ehd_buf_init(&w->in);
    ehd_buf_init(&w->text);
    ehd_buf_init(&w->notes);
    ehd_buf_init(&w->name);
}

static void own_free(struct own *w)
{
    ehd_buf_free(&w->in);
    ehd_buf_free(&w->text);
    ehd_buf_free(&w->notes);
    ehd_buf_free(&w->name);
    free(w->outs);
}

static void *worker(void *arg)
{
    struct jobs *j = arg;
    struct own w;
    own_init(&w);
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (j->claim == j->tail && !j->quit)
            pthread_cond_wait(&j->work, &j->lock);
        if (j->claim == j->tail)
            break;
        size_t pos = j->claim++;
        pthread_mutex_unlock(&j->lock);
        format_and_feed(j, pos, &w);
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    own_free(&w);
    return NULL;
}

/* ---- the calling thread: filling ---------------------------------------------- */

static void add_note(struct jobs *j, uint64_t file_offset, const char *why, int reader_note)
{
    struct batch *b = slot(j, j->tail);
    if (b->nnotes == b->cap) {
        /* the reader may report many problems at once */
        size_t cap = b->cap ? b->cap * 2 : 16;
        struct note *nv = realloc(b->notes, cap * sizeof *nv);
        if (!nv) {
            j->oom = 1;
            return;
        }
        b->notes = nv;
        b->cap = cap;
    }
    b->notes[b->nnotes++] =
        (struct note){b->nrec, file_offset, b->note_text.len, (uint8_t)reader_note};
    ehd_buf_append(&b->note_text, why, strlen(why) + 1);
}

/* The reader's diag while it runs on the calling thread: in order with the samples. */
static void reader_diag(void *ctx, uint64_t offset, const char *reason)
{
    add_note(ctx, offset, reason, 1);
}

/* While the calling thread waits for the batches in flight: it formats (and feeds) the
 * oldest one no thread has taken, or else sleeps until one is fed. Called and returns
 * with the lock held. */
static void help_or_wait(struct jobs *j)
{
    if (j->claim < j->tail) {
        size_t pos = j->claim++;
        pthread_mutex_unlock(&j->lock);
        format_and_feed(j, pos, &j->main_own);
        pthread_mutex_lock(&j->lock);
    } else {
        pthread_cond_wait(&j->fed, &j->lock);
    }
}

/* Hands the batch being filled to the threads, then makes sure the next slot is free:
 * while the ring is full, the calling thread formats (and feeds) batches no thread has
 * taken, or waits for the oldest to be fed. Called with the lock held. */
static void submit_locked(struct jobs *j)
{
    if (j->snap_stale && j->head == j->tail) { /* no batch in flight reads it */
        *j->snap = *j->r;
        j->snap_stale = 0;
    }
    j->tail++;
    pthread_cond_signal(&j->work);
    while (j->tail - j->head >= j->nring)
        help_or_wait(j);
}

static void submit(struct jobs *j)
{
    pthread_mutex_lock(&j->lock);
    submit_locked(j);
    pthread_mutex_unlock(&j->lock);
}

/* Every batch formatted and fed: nothing reads the reader's state any more, and the
 * round logic is the calling thread's again. */
static void drain(struct jobs *j)
{
    pthread_mutex_lock(&j->lock);
    if (slot(j, j->tail)->nrec || slot(j, j->tail)->nnotes)
        submit_locked(j);
    while (j->head < j->tail)
        help_or_wait(j);
    pthread_mutex_unlock(&j->lock);
}

static void add_record(struct jobs *j, const ehd_perf_record *rec)
{
    char why[PERF_WHY_MAX];
    /* Metadata records are applied by the reader (after a drain), never formatted; they
     * may carry payload after them, so a run never spans one. */
    if (perf_changes_reader(rec->type))
        return;
    if (perf_round_lost(j->r, rec, why))
        add_note(j, rec->file_offset, why, 0);
    struct batch *b = slot(j, j->tail);
    if (!b->nrec)
        b->src_off = rec->file_offset;
    if (j->fd >= 0) /* the formatting thread reads the run (read_records) */
        b->src_len = (size_t)(rec->file_offset + rec->size - b->src_off);
    else
        ehd_buf_append(&b->in, rec->data, rec->size);
    b->nrec++;
    /* Batches end at a round's end where they can, so a round's texts are all on the
     * thread that feeds it and nothing needs keeping from one batch to the next. */
    int round_end = rec->type == EHD_PERF_RECORD_FINISHED_ROUND;
    size_t bytes = b->in.len + b->src_len;
    if (bytes >= BATCH_BYTES || b->nrec >= BATCH_RECORDS || (round_end && bytes >= BATCH_MIN))
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
        free(b->notes);
        ehd_buf_free(&b->in);
        ehd_buf_free(&b->note_text);
    }
    free(j->ring);
    free(j->snap);
    own_free(&j->main_own);
    pthread_cond_destroy(&j->work);
    pthread_cond_destroy(&j->fed);
    pthread_mutex_destroy(&j->lock);
}

static int start_workers(struct jobs *j, unsigned jobs)
{
    own_init(&j->main_own);
    if (jobs > EHD_PERF_JOBS_MAX)
        jobs = EHD_PERF_JOBS_MAX;
    j->nring = 2 * (size_t)jobs + 2;
    jobs--; /* the calling thread formats too, whenever it would wait */
    j->ring = aligned_alloc(_Alignof(struct batch), j->nring * sizeof *j->ring);
    if (j->ring)
        memset(j->ring, 0, j->nring * sizeof *j->ring);
    /* its own cache lines: nothing else is written next to it */
    size_t snap_size = (sizeof *j->snap + 63) & ~(size_t)63;
    j->snap = aligned_alloc(64, snap_size);
    if (!j->ring || !j->snap) {
        free(j->ring);
        free(j->snap);
        return -1;
    }
    for (size_t i = 0; i < j->nring; i++) {
        ehd_buf_init(&j->ring[i].in);
        ehd_buf_init(&j->ring[i].note_text);
    }
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->work, NULL);
    pthread_cond_init(&j->fed, NULL);
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
    j->snap_stale = 1;
    /* file mode: the formatting threads read the records themselves (read_records) */
    j->fd = !r->pipe && r->in.seekable ? fileno(r->in.f) : -1;
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
        if (ehd_perf_next_is_meta(r)) {
            drain(j);
            j->snap_stale = 1;
        }
        if ((rc = ehd_perf_next(r, &rec)) <= 0)
            break;
        add_record(j, &rec);
    }
    drain(j);
    perf_round_flush(&j->rd);
    stop_workers(j);
    int oom = j->oom || j->feed_oom || perf_round_oom(&j->rd);
    unsigned long problems = ehd_perf_problem_count(r) + j->own_problems;
    perf_round_free(&j->rd);
    ehd_perf_close(r);
    free(j);
    return perf_round_result(oom, problems, rc, diag, diag_ctx);
}
