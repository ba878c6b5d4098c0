/* SPDX-License-Identifier: MIT */
/*
 * Reader of ehconf's TraceLogging capture files (.tlcap; format in ehd_tl.h).
 * Streaming: memory is bounded by the largest record. A record whose size or inner
 * sizes do not add up stops the reading (sizes cannot be resynchronised).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_internal.h"
#include "ehd_readers.h"
#include "ehd_tl.h"
#include "eventheader_read.h"

struct ehd_tlcap_reader {
    FILE *f;
    uint64_t offset; /* file offset of the next record */
    uint8_t *buf;
    size_t cap;
    int done;
};

int ehd_tlcap_is_magic(const void *head, size_t n)
{
    return n >= EHD_TLCAP_MAGIC_SIZE && memcmp(head, EHD_TLCAP_MAGIC, EHD_TLCAP_MAGIC_SIZE) == 0;
}

ehd_tlcap_reader *ehd_tlcap_open(FILE *f, const char **reason)
{
    uint8_t magic[EHD_TLCAP_MAGIC_SIZE];
    if (fread(magic, 1, sizeof magic, f) != sizeof magic ||
        !ehd_tlcap_is_magic(magic, sizeof magic)) {
        *reason = "not a TraceLogging capture file (no EHTLCAP1 magic)";
        return NULL;
    }
    ehd_tlcap_reader *r = calloc(1, sizeof *r);
    if (!r) {
        *reason = "out of memory";
        return NULL;
    }
    r->f = f;
    r->offset = EHD_TLCAP_MAGIC_SIZE;
    return r;
}

static int bad(ehd_tlcap_reader *r, const char *why, const char **reason, uint64_t *offset,
               uint64_t at)
{
    r->done = 1;
    *reason = why;
    *offset = at;
    return -1;
}

int ehd_tlcap_next(ehd_tlcap_reader *r, ehd_tlcap_record *rec, const char **reason,
                   uint64_t *offset)
{
    if (r->done)
        return 0;
    uint8_t head[4];
    size_t got = fread(head, 1, 4, r->f);
    if (got == 0 && feof(r->f)) {
        r->done = 1;
        return 0;
    }
    if (got != 4)
        return bad(r, ferror(r->f) ? "read error" : "truncated record size", reason, offset,
                   r->offset);
    uint32_t size = eh_read_u32(head, 0);
    if (size < EHD_TLCAP_FIXED)
        return bad(r, "record size smaller than the 80-byte fixed part", reason, offset, r->offset);
    if (r->cap < size) {
        uint8_t *q = realloc(r->buf, size);
        if (!q)
            return bad(r, "out of memory", reason, offset, r->offset);
        r->buf = q;
        r->cap = size;
    }
    memcpy(r->buf, head, 4);
    if (fread(r->buf + 4, 1, size - 4, r->f) != size - 4)
        return bad(r, ferror(r->f) ? "read error" : "truncated record", reason, offset, r->offset);
    const uint8_t *p = r->buf;
    size_t pm = eh_read_u16(p + 72, 0), em = eh_read_u16(p + 74, 0), dn = eh_read_u32(p + 76, 0);
    if ((uint64_t)EHD_TLCAP_FIXED + pm + em + dn != size)
        return bad(r, "record sizes do not add up to the record size", reason, offset, r->offset);
    memset(rec, 0, sizeof *rec);
    rec->file_offset = r->offset;
    ehd_tl_event *ev = &rec->ev;
    ev->level = p[4];
    ev->opcode = p[5];
    ev->version = p[6];
    ev->channel = p[7];
    ev->id = eh_read_u16(p + 8, 0);
    ev->keyword = eh_read_u64(p + 12, 0);
    memcpy(rec->provider_guid, p + 20, 16);
    ev->activity = (p[36] & 1) ? p + 40 : NULL;
    ev->related = (p[36] & 2) ? p + 56 : NULL;
    ev->provider_meta = p + EHD_TLCAP_FIXED;
    ev->provider_meta_size = pm;
    ev->event_meta = p + EHD_TLCAP_FIXED + pm;
    ev->event_meta_size = em;
    ev->data = p + EHD_TLCAP_FIXED + pm + em;
    ev->data_size = dn;
    r->offset += size;
    return 1;
}

void ehd_tlcap_close(ehd_tlcap_reader *r)
{
    if (r) {
        free(r->buf);
        free(r);
    }
}

static void error_json(ehd_buf *b, const uint8_t guid[16], const char *reason, uint64_t off,
                       unsigned flags)
{
    char g[37], n[64];
    ehd_win_guid_text(guid, g);
    snprintf(n, sizeof n, "tracelogging:%s", g);
    ehd_error_json(b, n, strlen(n), reason, off, flags);
}

int ehd_tlcap_decode(FILE *f, unsigned flags, ehd_tl_emit_fn *emit, void *emit_ctx,
                     ehd_tl_diag_fn *diag, void *diag_ctx)
{
    const char *reason = NULL;
    ehd_tlcap_reader *r = ehd_tlcap_open(f, &reason);
    if (!r) {
        diag(diag_ctx, 0, reason);
        return 1;
    }
    int status = 0, rc;
    uint64_t off = 0;
    ehd_tlcap_record rec;
    ehd_buf b;
    ehd_buf_init(&b);
    while ((rc = ehd_tlcap_next(r, &rec, &reason, &off)) > 0) {
        ehd_buf_reset(&b);
        size_t at = 0;
        int err = ehd_tl_json(&b, &rec.ev, NULL, flags, &reason, &at);
        if (err) {
            char why[300];
            snprintf(why, sizeof why, "%s (offset %zu in the blob it names)", reason, at);
            error_json(&b, rec.provider_guid, reason, rec.file_offset, flags);
            diag(diag_ctx, rec.file_offset, why);
            status = 1;
        }
        if (b.oom) {
            diag(diag_ctx, rec.file_offset, "out of memory");
            status = 1;
            break;
        }
        emit(emit_ctx, b.data ? b.data : "", b.len);
    }
    if (rc < 0) {
        diag(diag_ctx, off, reason);
        status = 1;
    }
    ehd_buf_free(&b);
    ehd_tlcap_close(r);
    return status;
}

/* ---- the registry's reader `tlcap` (ehd_readers.h) ---- */

int ehd_reader_tlcap_probe(const void *head, size_t n)
{
    return ehd_tlcap_is_magic(head, n) ? EHD_PROBE_SIGNATURE : EHD_PROBE_NO;
}

int ehd_reader_tlcap_decode(FILE *f, const struct ehd_read_args *a)
{
    return ehd_tlcap_decode(f, a->flags, a->emit, a->emit_ctx, a->diag, a->diag_ctx) ? 1 : 0;
}
