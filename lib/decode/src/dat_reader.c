/* SPDX-License-Identifier: MIT */
/*
 * Capture (.dat) file reader (Documentation/eventheader-wire.md §9): records of
 *   u32 record_size (little-endian, includes these 4 bytes)
 *   tracepoint name, NUL-terminated
 *   event bytes (header onwards)
 * concatenated without padding or file header. Streaming: one buffer that
 * grows to the largest record seen, so memory is bounded by that record.
 */
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "ehd_perf.h"
#include "ehd_readers.h"
#include "eventheader_read.h"

struct ehd_dat_reader {
    FILE *f;
    uint64_t offset; /* file offset of the next record */
    uint8_t *buf;
    size_t cap;
    int fatal; /* a fatal error happened: nothing more to read */
    int can_continue;
};

ehd_dat_reader *ehd_dat_open(FILE *f)
{
    ehd_dat_reader *r = calloc(1, sizeof *r);
    if (r)
        r->f = f;
    return r;
}

void ehd_dat_close(ehd_dat_reader *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r);
}

int ehd_dat_can_continue(const ehd_dat_reader *r)
{
    return r->can_continue;
}

static int fatal(ehd_dat_reader *r, const char **reason, uint64_t *offset, const char *why,
                 uint64_t at)
{
    r->fatal = 1;
    r->can_continue = 0;
    *reason = why;
    *offset = at;
    return -1;
}

int ehd_dat_next(ehd_dat_reader *r, ehd_dat_record *rec, const char **reason, uint64_t *offset)
{
    uint8_t hdr[4];
    if (r->fatal)
        return 0;
    r->can_continue = 0;
    uint64_t at = r->offset;
    size_t got = fread(hdr, 1, 4, r->f);
    if (got == 0 && !ferror(r->f))
        return 0; /* clean end of file */
    if (got < 4)
        return fatal(r, reason, offset,
                     ferror(r->f) ? "read error" : "record size field cut short by end of file",
                     at);
    uint32_t size = eh_read_u32(hdr, 0);
    if (size < 5)
        return fatal(r, reason, offset, "record size is smaller than 5 (size field + name NUL)",
                     at);
    size_t body = size - 4;
    /* Grow while reading, so a size field that lies near the end of a file
     * costs at most about twice the bytes really there, never 4 GiB. */
    size_t have = 0;
    while (have < body) {
        if (r->cap <= have) {
            size_t want = r->cap < 65536 ? 65536 : r->cap * 2;
            if (want > body)
                want = body;
            uint8_t *p = realloc(r->buf, want);
            if (!p)
                return fatal(r, reason, offset, "out of memory for the record", at);
            r->buf = p;
            r->cap = want;
        }
        size_t chunk = (r->cap < body ? r->cap : body) - have;
        size_t got_now = fread(r->buf + have, 1, chunk, r->f);
        have += got_now;
        if (got_now < chunk)
            return fatal(r, reason, offset,
                         ferror(r->f) ? "read error" : "record runs past the end of the file", at);
    }
    r->offset = at + size;
    const uint8_t *nul = memchr(r->buf, 0, body);
    if (!nul) {
        /* The size was sound, so the next record can still be read. */
        r->can_continue = 1;
        *reason = "tracepoint name not NUL-terminated inside the record";
        *offset = at + 4;
        return -1;
    }
    rec->file_offset = at;
    rec->tp_name = (const char *)r->buf;
    rec->tp_name_len = (size_t)(nul - r->buf);
    rec->data = nul + 1;
    rec->size = body - rec->tp_name_len - 1;
    return 1;
}

/* ---- the registry's reader `dat` (ehd_readers.h) ---- */

/* A capture file has no signature: it is what a file is when no other reader claims it. */
int ehd_reader_dat_probe(const void *head, size_t n)
{
    (void)head;
    (void)n;
    return EHD_PROBE_FALLBACK;
}

/* Capture records -> JSON, one object per record. A record whose size is sound but whose
 * name is not NUL-terminated is reported and emitted as { "n": "user_events:", "error":
 * ..., "fileOffset": <record offset> }; decoding goes on with the next record. */
int ehd_reader_dat_decode(FILE *f, const struct ehd_read_args *a)
{
    int status = 0;
    ehd_dat_reader *r = ehd_dat_open(f);
    if (!r) {
        a->diag(a->diag_ctx, 0, "out of memory");
        return 1;
    }
    ehd_buf b, name;
    ehd_buf_init(&b);
    ehd_buf_init(&name);
    ehd_dat_record rec;
    const char *reason;
    uint64_t off;
    int rc;
    while ((rc = ehd_dat_next(r, &rec, &reason, &off)) != 0) {
        if (rc < 0) {
            a->diag(a->diag_ctx, off, reason);
            status = 1;
            if (!ehd_dat_can_continue(r))
                break; /* the record size lied: nothing after it can be trusted */
            /* Only this record's name is bad (its size was sound), so the
             * records after it still decode. The name is unusable, hence the
             * bare system in "n"; fileOffset is the record's start (the size
             * field, 4 bytes before the name the reader reports). */
            ehd_buf_reset(&b);
            ehd_perf_error_json(&b, "user_events:", 12, reason, off - 4, a->flags);
            a->emit(a->emit_ctx, b.data ? b.data : "", b.len);
            continue;
        }
        ehd_buf_reset(&b);
        size_t at;
        int err = ehd_eventheader_json(&b, rec.tp_name, rec.tp_name_len, rec.data, rec.size, NULL,
                                       a->flags, &reason, &at);
        if (err) {
            /* same "n" as the perf path gives the same event: user_events:<tracepoint> */
            ehd_buf_reset(&name);
            ehd_buf_puts(&name, "user_events:");
            ehd_buf_append(&name, rec.tp_name, rec.tp_name_len);
            ehd_buf_reset(&b);
            ehd_perf_error_json(&b, name.data, name.len, reason, rec.file_offset, a->flags);
            char why[300];
            snprintf(why, sizeof why, "%.*s: %s (event offset %zu)", (int)(name.len % 200),
                     name.data, reason, at);
            a->diag(a->diag_ctx, rec.file_offset, why);
            status = 1;
        }
        a->emit(a->emit_ctx, b.data ? b.data : "", b.len);
    }
    if (b.oom || name.oom) {
        a->diag(a->diag_ctx, 0, "out of memory");
        status = 1;
    }
    ehd_buf_free(&b);
    ehd_buf_free(&name);
    ehd_dat_close(r);
    return status;
}
