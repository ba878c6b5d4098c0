/* SPDX-License-Identifier: MIT */
/*
 * Reader of ETW log files (.etl, as WPR, xperf and tracelog write them), decoding
 * TraceLogging events through ehd_tl_json() (the same JSON as the .tlcap path) and
 * listing every other event with its provider, id and raw bytes. The format facts this
 * relies on, with the section numbers cited below, are in Documentation/etl-format.md.
 *
 * Streaming, one buffer at a time: memory is bounded by the largest buffer (and, for a
 * compressed buffer, its declared uncompressed size, at most 64 MiB). What cannot be
 * decoded is an error object { "n": ..., "error": ..., "fileOffset": ... } plus a
 * diagnostic, and reading goes on where the layout still says where the next thing is
 * (etl-format.md §6): a bad record loses the rest of its buffer, a bad buffer size loses
 * the rest of the file, a compressed buffer that does not decompress is skipped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_internal.h"
#include "ehd_readers.h"
#include "ehd_tl.h"
#include "ehd_xca.h"
#include "eventheader_read.h"

/* etl-format.md §2: the buffer header. */
enum {
    ETL_BUF_HEADER = 0x48,
    ETL_BUF_SIZE = 0x00,       /* u32 the whole buffer, header included */
    ETL_BUF_SAVED = 0x04,      /* u32 bytes in use, header included */
    ETL_BUF_CPU = 0x28,        /* u8 processor number */
    ETL_BUF_OFFSET = 0x30,     /* u32 bytes in use; of a compressed buffer, once decompressed */
    ETL_BUF_FLAGS = 0x34,      /* u16 */
    ETL_BUF_COMPRESSED = 0x40, /* buffer flag: payload compressed */
    ETL_BUF_MAX = 64 << 20,    /* ehconf bound (ETW's own maximum is far below) */
};

/* etl-format.md §3: the header types (byte 2 of every record). */
enum {
    ETL_HT_SYSTEM32 = 1,
    ETL_HT_SYSTEM64 = 2,
    ETL_HT_COMPACT32 = 3,
    ETL_HT_COMPACT64 = 4,
    ETL_HT_FULL32 = 10,
    ETL_HT_PERFINFO32 = 16,
    ETL_HT_PERFINFO64 = 17,
    ETL_HT_EVENT32 = 18,
    ETL_HT_EVENT64 = 19,
    ETL_HT_FULL64 = 20,
};

/* etl-format.md §4: the event header record and its extended data items. */
enum {
    ETL_EV_HEADER = 80,
    ETL_EV_FLAG_EXT = 0x0001,
    ETL_EXT_HEADER = 8,
    ETL_EXT_RELATED = 1,
    ETL_EXT_SCHEMA_TL = 11,
    ETL_EXT_PROV_TRAITS = 12,
};

/* etl-format.md §5: the logfile header (payload of the first EventTrace event). */
enum {
    ETL_LH_PERF_FREQ = 256, /* with 8-byte pointers; 8 less with 4-byte ones */
    ETL_LH_START_TIME = 264,
    ETL_LH_CLOCK = 272,
    ETL_LH_POINTER_SIZE = 44,
    ETL_LH_CPU_MHZ = 52,
};

#define ETL_FILETIME_UNIX_EPOCH 116444736000000000ULL /* 100 ns units 1601 -> 1970 */

/* EventTrace, the provider of the logfile header (group 0 of the system events),
 * {68fdd900-4a3e-11d1-84f4-0000f80464e3}, in Windows memory layout. */
static const uint8_t etl_eventtrace_guid[16] = {0x00, 0xd9, 0xfd, 0x68, 0x3e, 0x4a, 0xd1, 0x11,
                                                0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3};

struct etl {
    FILE *f;
    unsigned flags;
    ehd_tl_emit_fn *emit;
    void *emit_ctx;
    ehd_tl_diag_fn *diag;
    void *diag_ctx;
    uint8_t *buf;
    size_t cap;
    uint64_t buf_off; /* file offset of the current buffer */
    /* a compressed buffer decompressed (etl-format.md §9): its records have no file
     * offset of their own, so errors give the buffer's and say where in it they are */
    uint8_t *dbuf;
    size_t dcap;
    int in_decompressed;
    int status;
    ehd_buf out;
    /* clock, from the logfile header (§5); have_clock 0 until it is seen */
    int have_clock;
    uint32_t clock_type;
    uint64_t freq;     /* ticks per second (QPC or CPU clock) */
    uint64_t start_ft; /* StartTime, FILETIME */
    uint64_t start_ts; /* the header event's own time stamp */
};

int ehd_etl_is_magic(const void *head, size_t n)
{
    const uint8_t *h = head;
    if (n < EHD_ETL_SNIFF)
        return 0;
    uint32_t size = eh_read_u32(h, 0), saved = eh_read_u32(h + ETL_BUF_SAVED, 0);
    const uint8_t *r = h + ETL_BUF_HEADER;
    /* the first record of a log file is the system-header EventTrace header event,
     * hook 0 (etl-format.md §5) */
    return size >= EHD_ETL_SNIFF && size <= ETL_BUF_MAX && saved >= EHD_ETL_SNIFF &&
           saved <= size && (r[3] & 0xC0) == 0xC0 &&
           (r[2] == ETL_HT_SYSTEM32 || r[2] == ETL_HT_SYSTEM64) && eh_read_u16(r + 6, 0) == 0;
}

static void emit_out(struct etl *e)
{
    e->emit(e->emit_ctx, e->out.data ? e->out.data : "", e->out.len);
}

/* The error object (decoder-json.md §2.2) for what is at file offset off; inside a
 * decompressed buffer, off counts from the buffer's file offset as if it were not
 * compressed, and the error names the buffer's offset and the position in it. */
static void report_why(struct etl *e, const char *n, const char *reason, const char *why,
                       uint64_t off)
{
    char r2[800], w2[800];
    if (e->in_decompressed && off >= e->buf_off) {
        uint64_t at = off - e->buf_off;
        snprintf(r2, sizeof r2, "%s (at byte %" PRIu64 " of the decompressed buffer)", reason, at);
        snprintf(w2, sizeof w2, "%s (at byte %" PRIu64 " of the decompressed buffer)", why, at);
        reason = r2;
        why = w2;
        off = e->buf_off;
    }
    ehd_buf_reset(&e->out);
    ehd_error_json(&e->out, n, strlen(n), reason, off, e->flags);
    emit_out(e);
    e->diag(e->diag_ctx, off, why);
    e->status = 1;
}

static void report(struct etl *e, const char *n, const char *reason, uint64_t off)
{
    report_why(e, n, reason, reason, off);
}

/* "YYYY-MM-DDTHH:MM:SS.nnnnnnnZ" of a FILETIME (100 ns since 1601, UTC). */
static size_t filetime_json(char *dst, uint64_t ft)
{
    int64_t rel = (int64_t)(ft - ETL_FILETIME_UNIX_EPOCH);
    int64_t s = rel / 10000000, frac = rel % 10000000;
    if (frac < 0) {
        frac += 10000000;
        s--;
    }
    size_t n = 0;
    dst[n++] = '"';
    n += ehd_format_datetime(dst + n, s);
    n += (size_t)sprintf(dst + n, ".%07" PRId64 "Z\"", frac);
    return n;
}

/* The wall-clock time of a time stamp (etl-format.md §5), or 0 when unknown. */
static size_t time_json(const struct etl *e, uint64_t ts, char *dst)
{
    if (!e->have_clock)
        return 0;
    uint64_t ft;
    if (e->clock_type == 2) { /* system time: time stamps are FILETIMEs */
        ft = ts;
    } else {
        if (!e->freq)
            return 0;
        /* ticks since the header event -> 100 ns units, without overflowing */
        int64_t d = (int64_t)(ts - e->start_ts);
        uint64_t ad = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
        uint64_t q = ad / e->freq, r = ad % e->freq;
        /* r < freq; exact unless the clock runs above 1.8 THz */
        uint64_t sub = e->freq <= UINT64_MAX / 10000000u
                           ? r * 10000000u / e->freq
                           : (uint64_t)((double)r * 1e7 / (double)e->freq);
        uint64_t u = q * 10000000u + sub;
        ft = d < 0 ? e->start_ft - u : e->start_ft + u;
    }
    return filetime_json(dst, ft);
}

static void put_sample_meta(struct etl *e, int *first, const char *time, uint32_t cpu, uint32_t pid,
                            uint32_t tid)
{
    int sp = (e->flags & EHD_JSON_SPACE) != 0;
    if (e->flags & EHD_META_GOLDEN)
        return;
    if (time) {
        ehd_json_sep(&e->out, sp, *first);
        ehd_buf_puts(&e->out, "\"time\"");
        ehd_json_colon(&e->out, sp);
        ehd_buf_puts(&e->out, time);
        *first = 0;
    }
    ehd_json_sep(&e->out, sp, *first);
    ehd_buf_printf(&e->out, "\"cpu\"%s%" PRIu32, sp ? ": " : ":", cpu);
    ehd_json_sep(&e->out, sp, 0);
    ehd_buf_printf(&e->out, "\"pid\"%s%" PRIu32, sp ? ": " : ":", pid);
    ehd_json_sep(&e->out, sp, 0);
    ehd_buf_printf(&e->out, "\"tid\"%s%" PRIu32, sp ? ": " : ":", tid);
    *first = 0;
}

static void put_num(struct etl *e, int *first, const char *k, uint64_t v)
{
    int sp = (e->flags & EHD_JSON_SPACE) != 0;
    ehd_json_sep(&e->out, sp, *first);
    ehd_buf_printf(&e->out, "\"%s\"", k);
    ehd_json_colon(&e->out, sp);
    ehd_buf_u64(&e->out, v);
    *first = 0;
}

/*
 * An event that is not TraceLogging (etl-format.md §7): provider GUID in "n", the id,
 * the payload as hex bytes, and meta. For system-header records id is the hook id.
 */
static void other_json(struct etl *e, const uint8_t guid[16], uint32_t id, const uint8_t *raw,
                       size_t raw_n, const char *time, uint32_t cpu, uint32_t pid, uint32_t tid,
                       unsigned version, unsigned level, unsigned opcode, uint64_t keyword)
{
    int sp = (e->flags & EHD_JSON_SPACE) != 0, first = 1;
    char g[37], n[48];
    ehd_win_guid_text(guid, g);
    snprintf(n, sizeof n, "etw:%s", g);
    ehd_buf_reset(&e->out);
    ehd_buf_putc(&e->out, '{');
    ehd_json_sep(&e->out, sp, 1);
    ehd_buf_puts(&e->out, "\"n\"");
    ehd_json_colon(&e->out, sp);
    ehd_json_string_utf8(&e->out, n, strlen(n));
    first = 0;
    put_num(e, &first, "id", id);
    ehd_json_sep(&e->out, sp, 0);
    ehd_buf_puts(&e->out, "\"raw\"");
    ehd_json_colon(&e->out, sp);
    ehd_buf_putc(&e->out, '"');
    ehd_hex_bytes_body(&e->out, raw, raw_n);
    ehd_buf_putc(&e->out, '"');
    ehd_json_sep(&e->out, sp, 0);
    ehd_buf_puts(&e->out, "\"meta\"");
    ehd_json_colon(&e->out, sp);
    ehd_buf_putc(&e->out, '{');
    int mfirst = 1;
    put_sample_meta(e, &mfirst, time, cpu, pid, tid);
    if (version)
        put_num(e, &mfirst, "version", version);
    if (level)
        put_num(e, &mfirst, "level", level);
    if (keyword) {
        ehd_json_sep(&e->out, sp, mfirst);
        ehd_buf_puts(&e->out, "\"keyword\"");
        ehd_json_colon(&e->out, sp);
        ehd_buf_printf(&e->out, "\"0x%" PRIX64 "\"", keyword);
        mfirst = 0;
    }
    if (opcode)
        put_num(e, &mfirst, "opcode", opcode);
    ehd_json_close(&e->out, sp, '}');
    ehd_json_close(&e->out, sp, '}');
    emit_out(e);
}

/* The logfile header's clock (etl-format.md §5); a header too short is left unused. */
static void read_logfile_header(struct etl *e, const uint8_t *p, size_t n, uint64_t ts)
{
    if (n < ETL_LH_POINTER_SIZE + 4)
        return;
    uint32_t ptr = eh_read_u32(p + ETL_LH_POINTER_SIZE, 0);
    size_t shift = ptr == 4 ? 8 : 0; /* two pointers before the time zone */
    if (ptr != 4 && ptr != 8)
        return;
    if (n < ETL_LH_CLOCK + 4 - shift)
        return;
    e->freq = eh_read_u64(p + ETL_LH_PERF_FREQ - shift, 0);
    e->start_ft = eh_read_u64(p + ETL_LH_START_TIME - shift, 0);
    e->clock_type = eh_read_u32(p + ETL_LH_CLOCK - shift, 0);
    if (e->clock_type == 3) /* CPU cycle counter: the header gives its speed in MHz */
        e->freq = (uint64_t)eh_read_u32(p + ETL_LH_CPU_MHZ, 0) * 1000000u;
    e->start_ts = ts;
    e->have_clock = 1;
}

/* A record with a system, compact or perfinfo header (etl-format.md §3). */
static void system_record(struct etl *e, const uint8_t *r, size_t size, size_t hdr, uint32_t cpu)
{
    uint16_t hook = eh_read_u16(r + 6, 0);
    uint32_t tid = 0, pid = 0;
    uint64_t ts;
    if (hdr == 16) { /* perfinfo: no thread or process */
        ts = eh_read_u64(r + 8, 0);
    } else {
        tid = eh_read_u32(r + 8, 0);
        pid = eh_read_u32(r + 12, 0);
        ts = eh_read_u64(r + 16, 0);
    }
    if (hook == 0 && !e->have_clock && (r[2] == ETL_HT_SYSTEM32 || r[2] == ETL_HT_SYSTEM64))
        read_logfile_header(e, r + hdr, size - hdr, ts);
    char tbuf[64];
    const char *t = time_json(e, ts, tbuf) ? tbuf : NULL;
    uint8_t guid[16] = {0};
    if ((hook >> 8) == 0)
        memcpy(guid, etl_eventtrace_guid, 16);
    /* other groups: the GUID is not in the record; the nil GUID and the hook id say it */
    other_json(e, guid, hook, r + hdr, size - hdr, t, cpu, pid, tid, eh_read_u16(r, 0), 0,
               hook & 0xFF, 0);
}

/* A record with a classic (EVENT_TRACE_HEADER) header: GUID, no id (etl-format.md §3). */
static void full_record(struct etl *e, const uint8_t *r, size_t size, uint32_t cpu)
{
    char tbuf[64];
    const char *t = time_json(e, eh_read_u64(r + 16, 0), tbuf) ? tbuf : NULL;
    other_json(e, r + 24, 0, r + 48, size - 48, t, cpu, eh_read_u32(r + 12, 0),
               eh_read_u32(r + 8, 0), eh_read_u16(r + 6, 0), r[5], r[4], 0);
}

/* A record with an event header (etl-format.md §4). */
static void event_record(struct etl *e, const uint8_t *r, size_t size, uint64_t off, uint32_t cpu)
{
    uint16_t hflags = eh_read_u16(r + 4, 0);
    uint32_t tid = eh_read_u32(r + 8, 0), pid = eh_read_u32(r + 12, 0);
    uint64_t ts = eh_read_u64(r + 16, 0);
    const uint8_t *guid = r + 24, *d = r + 40, *act = r + 64;
    ehd_tl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.id = eh_read_u16(d, 0);
    ev.version = d[2];
    ev.channel = d[3];
    ev.level = d[4];
    ev.opcode = d[5];
    ev.keyword = eh_read_u64(d + 8, 0);
    static const uint8_t zero[16];
    if (memcmp(act, zero, 16) != 0)
        ev.activity = act;
    size_t pos = ETL_EV_HEADER;
    if (hflags & ETL_EV_FLAG_EXT) {
        for (;;) {
            if (size - pos < ETL_EXT_HEADER) {
                report(e, "etl:", "extended data item header runs past the end of the record",
                       off + pos);
                return;
            }
            const uint8_t *it = r + pos;
            size_t isize = eh_read_u16(it, 0), dsize = eh_read_u16(it + 6, 0);
            uint16_t type = eh_read_u16(it + 2, 0), link = eh_read_u16(it + 4, 0);
            if (isize < ETL_EXT_HEADER + dsize || isize > size - pos) {
                report(e, "etl:", "extended data item size out of range", off + pos);
                return;
            }
            const uint8_t *data = it + ETL_EXT_HEADER;
            if (type == ETL_EXT_SCHEMA_TL) {
                ev.event_meta = data;
                ev.event_meta_size = dsize;
            } else if (type == ETL_EXT_PROV_TRAITS) {
                ev.provider_meta = data;
                ev.provider_meta_size = dsize;
            } else if (type == ETL_EXT_RELATED && dsize == 16) {
                ev.related = data;
            }
            pos += isize;
            if (!(link & 1))
                break;
        }
    }
    char tbuf[64];
    ehd_sample_info si = {NULL, 1, cpu, 1, pid, tid};
    if (time_json(e, ts, tbuf))
        si.time_json = tbuf;
    if (!ev.event_meta) {
        other_json(e, guid, ev.id, r + pos, size - pos, si.time_json, cpu, pid, tid, ev.version,
                   ev.level, ev.opcode, ev.keyword);
        return;
    }
    /* ehd_tl_json prints related only with an activity, as the .tlcap path does */
    if (ev.related && !ev.activity)
        ev.activity = zero;
    ev.data = r + pos;
    ev.data_size = size - pos;
    ehd_buf_reset(&e->out);
    const char *reason = NULL;
    size_t at = 0;
    int err = ehd_tl_json(&e->out, &ev, &si, e->flags, &reason, &at);
    if (err) {
        char g[37], n[64], why[300];
        ehd_win_guid_text(guid, g);
        snprintf(n, sizeof n, "tracelogging:%s", g);
        snprintf(why, sizeof why, "%s (offset %zu in the blob it names)", reason, at);
        report_why(e, n, reason, why, off);
        return;
    }
    emit_out(e);
}

/* The records of the buffer b (header included), used bytes [ETL_BUF_HEADER, used). */
static void buffer_records(struct etl *e, const uint8_t *b, size_t used)
{
    uint32_t cpu = b[ETL_BUF_CPU];
    size_t pos = ETL_BUF_HEADER;
    while (used - pos >= 4) {
        const uint8_t *r = b + pos;
        uint64_t off = e->buf_off + pos;
        if (eh_read_u32(r, 0) == 0xFFFFFFFFu) /* filler after the last record */
            return;
        uint8_t type = r[2], marker = r[3];
        size_t size, hdr;
        if (!(marker & 0x80)) {
            report(e, "etl:", "record without the trace header flag; rest of the buffer skipped",
                   off);
            return;
        }
        switch (type) {
        case ETL_HT_SYSTEM32:
        case ETL_HT_SYSTEM64: hdr = 32; break;
        case ETL_HT_COMPACT32:
        case ETL_HT_COMPACT64: hdr = 24; break;
        case ETL_HT_PERFINFO32:
        case ETL_HT_PERFINFO64: hdr = 16; break;
        case ETL_HT_FULL32:
        case ETL_HT_FULL64: hdr = 48; break;
        case ETL_HT_EVENT32:
        case ETL_HT_EVENT64: hdr = ETL_EV_HEADER; break;
        default: {
            char why[96];
            snprintf(why, sizeof why, "unknown header type %u; rest of the buffer skipped", type);
            report(e, "etl:", why, off);
            return;
        }
        }
        /* the size is the first u16 for event and classic headers, the third for the others */
        int size_first = hdr == ETL_EV_HEADER || hdr == 48;
        if (used - pos < 8) {
            report(e, "etl:", "record header runs past the buffer's used bytes", off);
            return;
        }
        size = eh_read_u16(r + (size_first ? 0 : 4), 0);
        if (size < hdr || size > used - pos) {
            char why[120];
            snprintf(why, sizeof why,
                     "record size %zu out of range (header %zu, %zu bytes left in the buffer)",
                     size, hdr, used - pos);
            report(e, "etl:", why, off);
            return;
        }
        if (hdr == ETL_EV_HEADER)
            event_record(e, r, size, off, cpu);
        else if (hdr == 48)
            full_record(e, r, size, cpu);
        else
            system_record(e, r, size, hdr, cpu);
        pos += (size + 7) & ~(size_t)7;
        if (pos > used)
            return;
    }
}

/*
 * A compressed buffer of size bytes in e->buf (etl-format.md §9): its 72-byte header is
 * stored as it is and the rest is one compressed stream that must yield exactly the
 * declared offset minus the header, the records as an uncompressed buffer holds them.
 * Decompressed into e->dbuf, never past that size (itself at most ETL_BUF_MAX), then
 * read like any other buffer. Returns -1 when out of memory (reading stops).
 */
static int compressed_buffer(struct etl *e, uint32_t size)
{
    uint32_t off = eh_read_u32(e->buf + ETL_BUF_OFFSET, 0);
    if (off < ETL_BUF_HEADER || off > ETL_BUF_MAX) {
        char why[120];
        snprintf(why, sizeof why,
                 "compressed buffer's uncompressed size %" PRIu32 " out of range; buffer skipped",
                 off);
        report(e, "etl:", why, e->buf_off);
        return 0;
    }
    if (e->dcap < off) {
        uint8_t *q = realloc(e->dbuf, off);
        if (!q) {
            report(e, "etl:", "out of memory", e->buf_off);
            return -1;
        }
        e->dbuf = q;
        e->dcap = off;
    }
    memcpy(e->dbuf, e->buf, ETL_BUF_HEADER);
    struct ehd_xca_err err;
    enum ehd_xca_alg alg;
    int rc = ehd_xca_decompress_any(e->buf + ETL_BUF_HEADER, size - ETL_BUF_HEADER,
                                    e->dbuf + ETL_BUF_HEADER, off - ETL_BUF_HEADER, &alg, &err);
    if (rc == ENOMEM) {
        report(e, "etl:", "out of memory", e->buf_off);
        return -1;
    }
    if (rc) {
        char why[700];
        snprintf(why, sizeof why,
                 "compressed buffer: its records do not decompress to the %" PRIu32
                 " bytes its header declares with XPRESS, LZNT1 or XPRESS Huffman (%s); buffer "
                 "skipped",
                 off - ETL_BUF_HEADER, err.msg);
        report(e, "etl:", why, e->buf_off);
        return 0;
    }
    e->in_decompressed = 1;
    buffer_records(e, e->dbuf, off);
    e->in_decompressed = 0;
    return 0;
}

int ehd_etl_decode(FILE *f, unsigned flags, ehd_tl_emit_fn *emit, void *emit_ctx,
                   ehd_tl_diag_fn *diag, void *diag_ctx)
{
    struct etl e;
    memset(&e, 0, sizeof e);
    e.f = f;
    e.flags = flags;
    e.emit = emit;
    e.emit_ctx = emit_ctx;
    e.diag = diag;
    e.diag_ctx = diag_ctx;
    ehd_buf_init(&e.out);
    for (;;) {
        uint8_t h[ETL_BUF_HEADER];
        size_t got = fread(h, 1, sizeof h, f);
        if (got == 0 && !ferror(f))
            break;
        if (got != sizeof h) {
            report(&e, "etl:", ferror(f) ? "read error" : "truncated buffer header", e.buf_off);
            break;
        }
        uint32_t size = eh_read_u32(h, ETL_BUF_SIZE), used = eh_read_u32(h + ETL_BUF_SAVED, 0);
        if (size < ETL_BUF_HEADER || size > ETL_BUF_MAX) {
            /* without a size there is no next buffer */
            char why[96];
            snprintf(why, sizeof why,
                     "buffer size %" PRIu32 " out of range; rest of the file skipped", size);
            report(&e, "etl:", why, e.buf_off);
            break;
        }
        if (e.cap < size) {
            uint8_t *q = realloc(e.buf, size);
            if (!q) {
                report(&e, "etl:", "out of memory", e.buf_off);
                break;
            }
            e.buf = q;
            e.cap = size;
        }
        memcpy(e.buf, h, sizeof h);
        got = fread(e.buf + sizeof h, 1, size - sizeof h, f);
        if (got != size - sizeof h) {
            char why[96];
            snprintf(why, sizeof why, "truncated buffer (%zu of %" PRIu32 " bytes)", got + sizeof h,
                     size);
            report(&e, "etl:", ferror(f) ? "read error" : why, e.buf_off);
            break;
        }
        if (eh_read_u16(h + ETL_BUF_FLAGS, 0) & ETL_BUF_COMPRESSED) {
            if (compressed_buffer(&e, size))
                break;
        } else if (used < ETL_BUF_HEADER || used > size) {
            report(&e, "etl:", "buffer's used size out of range; buffer skipped", e.buf_off);
        } else {
            buffer_records(&e, e.buf, used);
        }
        if (e.out.oom) {
            e.diag(e.diag_ctx, e.buf_off, "out of memory");
            e.status = 1;
            break;
        }
        e.buf_off += size;
    }
    ehd_buf_free(&e.out);
    free(e.buf);
    free(e.dbuf);
    return e.status;
}

/* ---- the registry's reader `etl` (ehd_readers.h) ---- */

_Static_assert((int)EHD_ETL_SNIFF <= (int)EHD_READER_SNIFF,
               "ehdecode must sniff what ehd_etl_is_magic needs");

int ehd_reader_etl_probe(const void *head, size_t n)
{
    return ehd_etl_is_magic(head, n) ? EHD_PROBE_SIGNATURE : EHD_PROBE_NO;
}

int ehd_reader_etl_decode(FILE *f, const struct ehd_read_args *a)
{
    return ehd_etl_decode(f, a->flags, a->emit, a->emit_ctx, a->diag, a->diag_ctx) ? 1 : 0;
}
