/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader, file mode and pipe mode (tools/perf/Documentation/
 * perf.data-file-format.txt describes the layout; numbers are in ehd_perf.h).
 *
 * File mode: perf_file_header {u64 magic, size, attr_size; {offset,size}
 * attrs, data, event_types; u64 adds_features[4]}, attrs section of
 * perf_file_attr {perf_event_attr; {offset,size} ids}, data section of
 * records, then one {offset,size} per set feature bit.
 * Pipe mode: {u64 magic, size = 16}, then records only; metadata arrives as
 * HEADER_ATTR / HEADER_TRACING_DATA / HEADER_FEATURE / EVENT_UPDATE records.
 *
 * Byte order comes from the magic. Every offset, size and count is checked
 * against the file size (or EHD_PERF_META_MAX for pipes) before use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"
#include "ehd_readers.h"
#include "perf_internal.h"

#define PERF_MAGIC_LE    0x32454c4946524550ull /* "PERFILE2" read as little-endian */
#define PERF_MAGIC_BE    0x50455246494c4532ull
#define FILE_HEADER_SIZE 104
#define ATTR_SIZE_VER0   64
#define ATTR_MIN_USED    48 /* type .. flags: all the reader needs */

/* ---- byte order --------------------------------------------------------- */

uint16_t ehd_perf_u16(const ehd_perf_reader *r, const void *p)
{
    return (uint16_t)perf_load(p, 2, r->be);
}
uint32_t ehd_perf_u32(const ehd_perf_reader *r, const void *p)
{
    return (uint32_t)perf_load(p, 4, r->be);
}
uint64_t ehd_perf_u64(const ehd_perf_reader *r, const void *p)
{
    return perf_load(p, 8, r->be);
}

/* The attr bitfield word: big-endian producers allocate bit 0 at the top of
 * the first byte, so reversing the bits of each byte gives the little-endian
 * numbering (perf does the same when it swaps attrs). */
static uint64_t load_attr_flags(const ehd_perf_reader *r, const uint8_t *p)
{
    if (!r->be)
        return perf_load(p, 8, 0);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        uint8_t b = p[i], rev = 0;
        for (int k = 0; k < 8; k++)
            rev |= (uint8_t)(((b >> k) & 1) << (7 - k));
        v = v << 8 | rev;
    }
    return v;
}

/* ---- diagnostics -------------------------------------------------------- */

static void report(ehd_perf_reader *r, uint64_t off, const char *reason)
{
    r->problems++;
    if (r->diag)
        r->diag(r->diag_ctx, off, reason);
}

__attribute__((format(printf, 3, 4))) static void reportf(ehd_perf_reader *r, uint64_t off,
                                                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    report(r, off, r->why);
}

/* ---- attrs and their ids ------------------------------------------------ */

static int cmp_idmap(const void *a, const void *b)
{
    const struct id_map *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Rebuilds the id -> attr index, links attrs to tracefs formats and works
 * out where a sample carries its id. Called after every metadata change. */
static int relink(ehd_perf_reader *r)
{
    size_t total = 0;
    for (size_t i = 0; i < r->nattrs; i++)
        total += r->attrs[i].nids;
    free(r->idmap);
    r->idmap = NULL;
    r->nidmap = 0;
    if (total) {
        r->idmap = malloc(total * sizeof *r->idmap);
        if (!r->idmap)
            return ENOMEM;
        for (size_t i = 0; i < r->nattrs; i++)
            for (size_t k = 0; k < r->attrs[i].nids; k++)
                r->idmap[r->nidmap++] = (struct id_map){r->attrs[i].ids[k], i};
        qsort(r->idmap, r->nidmap, sizeof *r->idmap, cmp_idmap);
    }
    for (size_t i = 0; i < r->nattrs; i++) {
        ehd_perf_attr *a = &r->attrs[i];
        a->format = NULL;
        if (r->has_td && a->type == EHD_PERF_TYPE_TRACEPOINT && a->config <= UINT32_MAX)
            a->format = ehd_tracing_data_find(&r->td, (uint32_t)a->config);
    }
    r->id_pos = -1;
    if (r->nattrs) {
        uint64_t st = r->attrs[0].sample_type;
        if (st & EHD_PERF_SAMPLE_IDENTIFIER)
            r->id_pos = 0;
        else if (st & EHD_PERF_SAMPLE_ID)
            r->id_pos = 8 * (!!(st & EHD_PERF_SAMPLE_IP) + !!(st & EHD_PERF_SAMPLE_TID) +
                             !!(st & EHD_PERF_SAMPLE_TIME) + !!(st & EHD_PERF_SAMPLE_ADDR));
    }
    return 0;
}

/* Adds one attr from perf_event_attr bytes (avail bytes present) and ids. */
static int add_attr(ehd_perf_reader *r, uint64_t off, const uint8_t *p, size_t avail,
                    const uint64_t *ids, size_t nids)
{
    if (r->nattrs >= EHD_PERF_MAX_ATTRS) {
        report(r, off, "too many attrs");
        return EBADMSG;
    }
    uint32_t declared = U32(p + 4);
    if (declared < ATTR_SIZE_VER0)
        reportf(r, off, "attr size %" PRIu32 " is smaller than the first ABI version (64)",
                declared);
    else if (declared > avail)
        reportf(r, off, "attr size %" PRIu32 " is larger than its %zu bytes of space", declared,
                avail);
    if (avail < ATTR_MIN_USED) {
        report(r, off, "attr too short to use");
        return EBADMSG;
    }
    ehd_perf_attr *na = realloc(r->attrs, (r->nattrs + 1) * sizeof *na);
    if (!na)
        return ENOMEM;
    r->attrs = na;
    ehd_perf_attr *a = &r->attrs[r->nattrs];
    memset(a, 0, sizeof *a);
    a->type = U32(p);
    a->config = U64(p + 8);
    a->sample_type = U64(p + 24);
    a->read_format = U64(p + 32);
    a->flags = load_attr_flags(r, p + 40);
    if (nids) {
        a->ids = malloc(nids * sizeof *a->ids);
        if (!a->ids)
            return ENOMEM;
        memcpy(a->ids, ids, nids * sizeof *ids);
        a->nids = nids;
    }
    r->nattrs++;
    return 0;
}

ehd_perf_attr *ehd_perf_attr_by_id(const ehd_perf_reader *r, uint64_t id)
{
    size_t lo = 0, hi = r->nidmap;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->idmap[mid].id < id)
            lo = mid + 1;
        else if (r->idmap[mid].id > id)
            hi = mid;
        else
            return &r->attrs[r->idmap[mid].attr];
    }
    return NULL;
}

static void set_attr_name(ehd_perf_reader *r, ehd_perf_attr *a, const char *s, size_t n)
{
    (void)r;
    char *name = malloc(n + 1);
    if (!name)
        return;
    memcpy(name, s, n);
    name[n] = 0;
    free(a->name);
    a->name = name;
}

/* ---- feature sections --------------------------------------------------- */

/* HEADER_EVENT_DESC: u32 nr, u32 attr_size, nr x {attr, u32 nr_ids,
 * u32 len + name[len], u64 ids[nr_ids]}. Names are matched to attrs by id,
 * else by position. */
static void parse_event_desc(ehd_perf_reader *r, uint64_t off, const uint8_t *p, size_t n)
{
    if (n < 8) {
        report(r, off, "EVENT_DESC feature truncated");
        return;
    }
    uint32_t nr = U32(p), asz = U32(p + 4);
    size_t pos = 8;
    for (uint32_t i = 0; i < nr; i++) {
        if (asz > n - pos || n - pos - asz < 8) {
            report(r, off + pos, "EVENT_DESC entry beyond the section");
            return;
        }
        pos += asz;
        uint32_t nids = U32(p + pos), len = U32(p + pos + 4);
        pos += 8;
        if (len > n - pos) {
            report(r, off + pos, "EVENT_DESC name beyond the section");
            return;
        }
        const char *name = (const char *)(p + pos);
        size_t nlen = strnlen(name, len);
        pos += len;
        if (nids > (n - pos) / 8) {
            report(r, off + pos, "EVENT_DESC id count beyond the section");
            return;
        }
        ehd_perf_attr *a = nids ? ehd_perf_attr_by_id(r, U64(p + pos)) : NULL;
        if (!a && i < r->nattrs && nr == r->nattrs)
            a = &r->attrs[i];
        if (a)
            set_attr_name(r, a, name, nlen);
        pos += (size_t)nids * 8;
    }
}

static void parse_feature(ehd_perf_reader *r, unsigned bit, uint64_t off, const uint8_t *p,
                          size_t n)
{
    if (bit == EHD_PERF_FEAT_TRACING_DATA) {
        if (r->has_td) {
            ehd_tracing_data_free(&r->td);
            r->has_td = 0;
        }
        const char *why;
        size_t at;
        int rc = ehd_tracing_data_parse(&r->td, p, n, &why, &at);
        if (rc == ENOMEM) {
            report(r, off, "out of memory reading tracing data");
            ehd_tracing_data_free(&r->td);
            return;
        }
        if (why)
            report(r, off + at, why);
        r->has_td = 1;
    } else if (bit == EHD_PERF_FEAT_EVENT_DESC) {
        parse_event_desc(r, off, p, n);
    } else if (bit == EHD_PERF_FEAT_CLOCK_DATA) {
        if (n < 24) {
            report(r, off, "CLOCK_DATA feature truncated");
            return;
        }
        r->clockid = U32(p + 4);
        r->wall_ns = U64(p + 8);
        r->clock_ns = U64(p + 16);
        r->has_clock = 1;
    }
}

/* Reads a metadata blob of n bytes at off into a fresh allocation. */
static uint8_t *read_blob(ehd_perf_reader *r, uint64_t off, uint64_t n, const char *what)
{
    uint64_t limit = r->in.seekable ? r->in.size : EHD_PERF_META_MAX;
    if (n > limit || (r->in.seekable && off > r->in.size - n)) {
        reportf(r, off, "%s of %" PRIu64 " bytes goes beyond the end of the file", what, n);
        return NULL;
    }
    uint8_t *b = malloc(n ? (size_t)n : 1);
    if (!b) {
        reportf(r, off, "out of memory for %s", what);
        return NULL;
    }
    if (ehd_perf_input_copy(&r->in, off, b, (size_t)n) != 0) {
        reportf(r, off, "%s truncated", what);
        free(b);
        return NULL;
    }
    return b;
}

static int is_wanted_feature(unsigned bit)
{
    return bit == EHD_PERF_FEAT_TRACING_DATA || bit == EHD_PERF_FEAT_EVENT_DESC ||
           bit == EHD_PERF_FEAT_CLOCK_DATA;
}

/* ---- file-mode header --------------------------------------------------- */

static int open_file_mode(ehd_perf_reader *r, const char **reason, uint64_t *offset)
{
    const uint8_t *h = ehd_perf_input_view(&r->in, 0, FILE_HEADER_SIZE);
    if (!h) {
        *reason = "perf.data header truncated";
        *offset = 0;
        return EBADMSG;
    }
    uint64_t hsize = U64(h + 8), attr_size = U64(h + 16);
    uint64_t attrs_off = U64(h + 24), attrs_size = U64(h + 32);
    uint64_t data_off = U64(h + 40), data_size = U64(h + 48);
    uint64_t feat[4];
    for (int i = 0; i < 4; i++)
        feat[i] = U64(h + 72 + 8 * i);
    uint64_t fsize = r->in.size;
    if (hsize < FILE_HEADER_SIZE) {
        *reason = "perf.data header size is smaller than 104";
        *offset = 8;
        return EBADMSG;
    }

    /* attrs */
    if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 65536) {
        reportf(r, 16, "attr_size %" PRIu64 " is not plausible; no attrs read", attr_size);
    } else if (attrs_off > fsize || attrs_size > fsize - attrs_off) {
        report(r, 24, "attrs section beyond the end of the file");
    } else {
        uint64_t nattrs = attrs_size / attr_size;
        if (attrs_size % attr_size)
            report(r, 32, "attrs section size is not a multiple of attr_size");
        uint8_t *one = malloc((size_t)attr_size);
        if (!one)
            return ENOMEM;
        for (uint64_t i = 0; i < nattrs; i++) {
            uint64_t aoff = attrs_off + i * attr_size;
            if (ehd_perf_input_copy(&r->in, aoff, one, (size_t)attr_size) != 0) {
                report(r, aoff, "attr truncated");
                break;
            }
            size_t avail = (size_t)attr_size - 16;
            uint64_t ids_off = U64(one + avail), ids_size = U64(one + avail + 8);
            uint64_t *ids = NULL;
            size_t nids = 0;
            if (ids_size) {
                if (ids_off > fsize || ids_size > fsize - ids_off) {
                    report(r, aoff + avail, "attr ids section beyond the end of the file");
                } else {
                    uint8_t *raw = read_blob(r, ids_off, ids_size, "attr ids");
                    nids = (size_t)(ids_size / 8);
                    ids = raw ? malloc((nids ? nids : 1) * sizeof *ids) : NULL;
                    if (ids)
                        for (size_t k = 0; k < nids; k++)
                            ids[k] = U64(raw + 8 * k);
                    else
                        nids = 0;
                    free(raw);
                }
            }
            int rc = add_attr(r, aoff, one, avail, ids, nids);
            free(ids);
            if (rc == ENOMEM) {
                free(one);
                return rc;
            }
        }
        free(one);
    }
    if (relink(r))
        return ENOMEM;

    /* data section: a section that runs past the end is read up to the end */
    r->next_off = data_off;
    r->data_end = data_off + data_size;
    if (data_off > fsize || data_size > fsize - data_off || r->data_end < data_off) {
        report(r, 40, "data section goes beyond the end of the file (truncated?)");
        r->data_end = fsize;
        if (r->next_off > fsize)
            r->next_off = fsize;
    }

    /* feature sections: one {offset,size} per set bit, after the data */
    uint64_t table = data_off + data_size, idx = 0;
    for (unsigned bit = 0; bit < 256; bit++) {
        if (!(feat[bit / 64] >> (bit % 64) & 1))
            continue;
        uint64_t ent = table + 16 * idx++;
        /* every entry is checked, wanted or not: a truncated file shows here */
        if (table < data_off || ent > fsize || fsize - ent < 16) {
            reportf(r, ent, "feature %u table entry beyond the end of the file", bit);
            continue;
        }
        uint8_t e[16];
        if (ehd_perf_input_copy(&r->in, ent, e, 16) != 0) {
            reportf(r, ent, "feature %u table entry unreadable", bit);
            continue;
        }
        uint64_t soff = U64(e), ssize = U64(e + 8);
        if (soff > fsize || ssize > fsize - soff) {
            reportf(r, ent, "feature %u section beyond the end of the file", bit);
            continue;
        }
        if (!is_wanted_feature(bit))
            continue;
        uint8_t *blob = read_blob(r, soff, ssize, "feature section");
        if (!blob)
            continue;
        parse_feature(r, bit, soff, blob, (size_t)ssize);
        free(blob);
    }
    return relink(r);
}

/* ---- open / close ------------------------------------------------------- */

/* Copies a non-seekable stream (the bytes already read plus the rest) to a
 * temporary file, so the file-mode reader can seek to the feature sections. */
static FILE *spool(const uint8_t *head, size_t n, FILE *f)
{
    FILE *t = tmpfile();
    if (!t)
        return NULL;
    char buf[65536];
    size_t got;
    if (fwrite(head, 1, n, t) != n)
        goto fail;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, got, t) != got)
            goto fail;
    if (fflush(t) != 0 || fseeko(t, 0, SEEK_SET) != 0)
        goto fail;
    return t;
fail:
    fclose(t);
    return NULL;
}

ehd_perf_reader *ehd_perf_open(FILE *f, ehd_perf_diag_fn *diag, void *diag_ctx, const char **reason,
                               uint64_t *offset)
{
    *reason = NULL;
    *offset = 0;
    ehd_perf_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->scratch = malloc(65536))) { /* records are at most 64 KiB */
        free(r);
        *reason = "out of memory";
        return NULL;
    }
    r->diag = diag;
    r->diag_ctx = diag_ctx;
    r->id_pos = -1;

    int seekable = 0;
    uint64_t size = UINT64_MAX;
    off_t here = ftello(f);
    if (here == 0 && fseeko(f, 0, SEEK_END) == 0) {
        off_t end = ftello(f);
        if (end >= 0 && fseeko(f, 0, SEEK_SET) == 0) {
            seekable = 1;
            size = (uint64_t)end;
        }
    }
    if (ehd_perf_input_init(&r->in, f, seekable, size) != 0) {
        *reason = "out of memory";
        goto fail;
    }
    const uint8_t *h = ehd_perf_input_view(&r->in, 0, 16);
    if (!h) {
        *reason = "too short for a perf.data header";
        goto fail;
    }
    uint64_t magic = perf_load(h, 8, 0);
    if (magic == PERF_MAGIC_LE)
        r->be = 0;
    else if (magic == PERF_MAGIC_BE)
        r->be = 1;
    else {
        *reason = "not a perf.data file (bad magic)";
        goto fail;
    }
    if (U64(h + 8) == 16) {
        r->pipe = 1;
        r->next_off = 16;
        r->data_end = UINT64_MAX;
        return r;
    }
    if (!seekable) {
        /* read what is buffered so far, spool it and the rest to a temp file */
        size_t have = r->in.win_len;
        r->tmp = spool(r->in.buf, have, f);
        if (!r->tmp) {
            *reason = "cannot copy the non-seekable input to a temporary file";
            goto fail;
        }
        ehd_perf_input_free(&r->in);
        if (fseeko(r->tmp, 0, SEEK_END) != 0)
            goto fail;
        off_t end = ftello(r->tmp);
        if (end < 0 || fseeko(r->tmp, 0, SEEK_SET) != 0 ||
            ehd_perf_input_init(&r->in, r->tmp, 1, (uint64_t)end) != 0) {
            *reason = "cannot read the temporary copy";
            goto fail;
        }
    }
    int rc = open_file_mode(r, reason, offset);
    if (rc) {
        if (!*reason)
            *reason = "out of memory";
        goto fail;
    }
    return r;
fail:
    ehd_perf_close(r);
    return NULL;
}

void ehd_perf_close(ehd_perf_reader *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nattrs; i++) {
        free(r->attrs[i].ids);
        free(r->attrs[i].name);
    }
    free(r->attrs);
    free(r->idmap);
    if (r->has_td)
        ehd_tracing_data_free(&r->td);
    ehd_perf_input_free(&r->in);
    if (r->tmp)
        fclose(r->tmp);
    free(r->scratch);
    free(r);
}

int ehd_perf_is_pipe(const ehd_perf_reader *r)
{
    return r->pipe;
}
int ehd_perf_is_big_endian(const ehd_perf_reader *r)
{
    return r->be;
}
size_t ehd_perf_attr_count(const ehd_perf_reader *r)
{
    return r->nattrs;
}
const ehd_perf_attr *ehd_perf_attr_at(const ehd_perf_reader *r, size_t i)
{
    return i < r->nattrs ? &r->attrs[i] : NULL;
}
const ehd_tracing_data *ehd_perf_tracing_data(const ehd_perf_reader *r)
{
    return r->has_td ? &r->td : NULL;
}
int ehd_perf_clock_data(const ehd_perf_reader *r, uint32_t *clockid, uint64_t *wall_ns,
                        uint64_t *clock_ns)
{
    if (!r->has_clock)
        return 0;
    *clockid = r->clockid;
    *wall_ns = r->wall_ns;
    *clock_ns = r->clock_ns;
    return 1;
}
unsigned long ehd_perf_problem_count(const ehd_perf_reader *r)
{
    return r->problems;
}

/* ---- records -------------------------------------------------------------- */

/* Metadata records of pipe mode (also accepted in file mode). Returns the
 * number of payload bytes that follow the record, or -1 to stop. */
static int64_t handle_meta(ehd_perf_reader *r, const ehd_perf_record *rec)
{
    const uint8_t *p = rec->data;
    size_t n = rec->size;
    switch (rec->type) {
    case EHD_PERF_RECORD_HEADER_ATTR: {
        if (n < 8 + ATTR_MIN_USED) {
            report(r, rec->file_offset, "HEADER_ATTR record too short");
            return 0;
        }
        uint32_t asz = U32(p + 8 + 4);
        size_t avail = n - 8;
        size_t used = asz >= ATTR_MIN_USED && asz <= avail ? asz : avail;
        size_t nids = (n - 8 - used) / 8;
        uint64_t ids[8192];
        for (size_t i = 0; i < nids; i++)
            ids[i] = U64(p + 8 + used + 8 * i);
        if (add_attr(r, rec->file_offset, p + 8, used, ids, nids) == ENOMEM)
            return -1;
        if (relink(r))
            return -1;
        return 0;
    }
    case EHD_PERF_RECORD_HEADER_TRACING_DATA: {
        if (n < 12) {
            report(r, rec->file_offset, "HEADER_TRACING_DATA record too short");
            return -1;
        }
        uint32_t size = U32(p + 8);
        uint64_t padded = ((uint64_t)size + 7) & ~7ull;
        uint8_t *blob = read_blob(r, rec->file_offset + n, size, "tracing data");
        if (!blob)
            return -1;
        parse_feature(r, EHD_PERF_FEAT_TRACING_DATA, rec->file_offset + n, blob, size);
        free(blob);
        if (relink(r))
            return -1;
        return (int64_t)padded;
    }
    case EHD_PERF_RECORD_HEADER_FEATURE: {
        if (n < 16) {
            report(r, rec->file_offset, "HEADER_FEATURE record too short");
            return 0;
        }
        uint64_t feat = U64(p + 8);
        if (feat < 256 && is_wanted_feature((unsigned)feat)) {
            parse_feature(r, (unsigned)feat, rec->file_offset + 16, p + 16, n - 16);
            if (relink(r))
                return -1;
        }
        return 0;
    }
    case EHD_PERF_RECORD_EVENT_UPDATE: {
        if (n < 24)
            return 0;
        if (U64(p + 8) == EHD_PERF_EVENT_UPDATE_NAME) {
            ehd_perf_attr *a = ehd_perf_attr_by_id(r, U64(p + 16));
            if (a)
                set_attr_name(r, a, (const char *)p + 24, strnlen((const char *)p + 24, n - 24));
        }
        return 0;
    }
    case EHD_PERF_RECORD_AUXTRACE:
        if (n < 16)
            return 0;
        {
            uint64_t sz = U64(p + 8);
            if (sz > INT64_MAX / 2) {
                report(r, rec->file_offset, "AUXTRACE payload size not plausible");
                return -1;
            }
            return (int64_t)sz;
        }
    case EHD_PERF_RECORD_COMPRESSED:
    case EHD_PERF_RECORD_COMPRESSED2:
        report(r, rec->file_offset,
               "compressed records (perf record -z) are not supported; skipped");
        return 0;
    default: return 0;
    }
}

int ehd_perf_next(ehd_perf_reader *r, ehd_perf_record *rec)
{
    if (r->stopped)
        return -1;
    uint64_t off = r->next_off;
    if (off >= r->data_end)
        return 0;
    if (!r->pipe && r->data_end - off < 8) {
        report(r, off, "truncated record header at the end of the data section");
        r->stopped = 1;
        return -1;
    }
    const uint8_t *h = ehd_perf_input_view(&r->in, off, 8);
    if (!h) {
        if (r->pipe && ehd_perf_input_view(&r->in, off, 1) == NULL)
            return 0; /* clean end of a stream */
        report(r, off, "truncated record header");
        r->stopped = 1;
        return -1;
    }
    uint32_t type = U32(h);
    uint16_t misc = U16(h + 4), size = U16(h + 6);
    if (size < 8) {
        reportf(r, off, "record size %u is smaller than its header; cannot continue", size);
        r->stopped = 1;
        return -1;
    }
    if (size > r->data_end - off) {
        reportf(r, off, "record of %u bytes runs past the end of the data section", size);
        r->stopped = 1;
        return -1;
    }
    const uint8_t *p = ehd_perf_input_view(&r->in, off, size);
    if (!p) {
        reportf(r, off, "record of %u bytes is truncated", size);
        r->stopped = 1;
        return -1;
    }
    rec->type = type;
    rec->misc = misc;
    rec->size = size;
    rec->file_offset = off;
    rec->data = p;
    r->next_off = off + size;
    if (perf_is_meta_type(type)) {
        /* the handler may move the window: give the caller a stable copy */
        memcpy(r->scratch, p, size);
        rec->data = r->scratch;
        int64_t extra = handle_meta(r, rec);
        if (extra < 0) {
            r->stopped = 1;
            return -1;
        }
        if ((uint64_t)extra > r->data_end - r->next_off) {
            report(r, off, "record payload runs past the end of the data");
            r->stopped = 1;
            return -1;
        }
        r->next_off += (uint64_t)extra;
    }
    return 1;
}

int ehd_perf_next_is_meta(ehd_perf_reader *r)
{
    uint64_t off = r->next_off;
    if (r->stopped || off >= r->data_end || r->data_end - off < 8)
        return 0; /* nothing more, or a problem ehd_perf_next reports */
    const uint8_t *h = ehd_perf_input_view(&r->in, off, 8);
    if (!h)
        return 0;
    return perf_changes_reader(U32(h));
}

/* ---- the registry's reader `perf` (ehd_readers.h) ---- */

/* perf.data's magic in either byte order; file and pipe mode both start with it. */
int ehd_reader_perf_probe(const void *head, size_t n)
{
    return n >= 8 && (memcmp(head, "PERFILE2", 8) == 0 || memcmp(head, "2ELIFREP", 8) == 0)
               ? EHD_PROBE_SIGNATURE
               : EHD_PROBE_NO;
}

int ehd_reader_perf_decode(FILE *f, const struct ehd_read_args *a)
{
    return ehd_perf_decode_jobs(f, a->flags, a->jobs, a->emit, a->emit_ctx, a->diag, a->diag_ctx)
               ? 1
               : 0;
}
