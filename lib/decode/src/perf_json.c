/* SPDX-License-Identifier: MIT */
/*
 * One perf sample -> one JSON object.
 *   EventHeader tracepoints (first user field eventheader_flags at offset 8):
 *     ehd_eventheader_json on the raw bytes after the 8-byte common header; an event
 *     without a metadata extension as any other sample (decoder-json.md §2.1).
 *   Any other sample: Documentation/decoder-json.md §7 — "n" = system:event, one member
 *     per non-common format field, "meta" with time/cpu/pid/tid.
 * Whitespace follows §1 (EHD_JSON_SPACE) so both kinds look alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ehd_internal.h"
#include "ehd_perf.h"
#include "eventheader_read.h"

/* ---- §1 whitespace ------------------------------------------------------- */

struct jw {
    ehd_buf *b;
    int space;
    int first; /* nothing written yet in the innermost container */
};

static void jw_sep(struct jw *w)
{
    ehd_json_sep(w->b, w->space, w->first);
    w->first = 0;
}

static void jw_key(struct jw *w, const char *name)
{
    jw_sep(w);
    ehd_json_string_utf8(w->b, name, strlen(name));
    ehd_json_colon(w->b, w->space);
}

static void jw_open(struct jw *w, char c)
{
    ehd_buf_putc_fast(w->b, c);
    w->first = 1;
}

static void jw_close(struct jw *w, char c)
{
    ehd_json_close(w->b, w->space, c);
    w->first = 0;
}

/* ---- helpers ----------------------------------------------------------------- */

/* ".nnnnnnnnn" (9 digits) at dst; returns 10. Hand-rolled: this runs once per event. */
static size_t put_frac9(char *dst, uint32_t ns)
{
    dst[0] = '.';
    for (int i = 9; i >= 1; i--) {
        dst[i] = (char)('0' + ns % 10);
        ns /= 10;
    }
    return 10;
}

static size_t put_u64(char *dst, uint64_t v)
{
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        dst[i] = t[n - 1 - i];
    return n;
}

static void put_hex_bytes_body(ehd_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        if (i)
            ehd_buf_putc_fast(b, ' ');
        ehd_buf_putc_fast(b, hx[p[i] >> 4]);
        ehd_buf_putc_fast(b, hx[p[i] & 15]);
    }
}

static void put_hex_bytes(ehd_buf *b, const uint8_t *p, size_t n)
{
    ehd_buf_putc_fast(b, '"');
    put_hex_bytes_body(b, p, n);
    ehd_buf_putc_fast(b, '"');
}

/* One numeric element of kind UNSIGNED/SIGNED/HEX. */
static void put_number(ehd_buf *b, uint8_t kind, const uint8_t *p, uint32_t size, int be)
{
    uint64_t v = eh_read_uint(p, size, be);
    char t[24];
    size_t n = 0;
    if (kind == EHD_TP_HEX) {
        static const char hx[] = "0123456789ABCDEF";
        int top = 60;
        while (top > 0 && !(v >> top))
            top -= 4;
        t[n++] = '"';
        t[n++] = '0';
        t[n++] = 'x';
        for (; top >= 0; top -= 4)
            t[n++] = hx[v >> top & 15];
        t[n++] = '"';
    } else if (kind == EHD_TP_SIGNED) {
        if (size < 8 && (v >> (size * 8 - 1) & 1))
            v |= ~((1ull << (size * 8)) - 1); /* sign-extend */
        if ((int64_t)v < 0) {
            t[n++] = '-';
            v = 0 - v;
        }
        n += put_u64(t + n, v);
    } else {
        n = put_u64(t, v);
    }
    ehd_buf_append_fast(b, t, n);
}

static void put_cstring(ehd_buf *b, const uint8_t *p, size_t n)
{
    const uint8_t *nul = memchr(p, 0, n);
    ehd_json_string_latin1(b, p, nul ? (size_t)(nul - p) : n);
}

/* The bytes of an array field (fixed or __data_loc/__rel_loc), or NULL. */
static const uint8_t *array_bytes(const ehd_tp_field *f, const uint8_t *raw, uint32_t raw_size,
                                  int be, size_t *len)
{
    if (f->offset > raw_size || f->size > raw_size - f->offset)
        return NULL;
    if (!f->loc) {
        *len = f->size;
        return raw + f->offset;
    }
    if (f->size < 4)
        return NULL;
    uint32_t v = (uint32_t)eh_read_uint(raw + f->offset, 4, be);
    uint64_t off = v & 0xffff, n = v >> 16;
    if (f->loc == EHD_TP_LOC_REL)
        off += (uint64_t)f->offset + 4;
    if (off > raw_size || n > raw_size - off)
        return NULL;
    *len = (size_t)n;
    return raw + off;
}

static void put_field_value(ehd_buf *b, int space, const ehd_tp_field *f, const uint8_t *raw,
                            uint32_t raw_size, int be)
{
    if (!f->is_array) {
        if (f->offset > raw_size || f->size > raw_size - f->offset || f->size == 0) {
            ehd_buf_puts_fast(b, "null");
            return;
        }
        const uint8_t *p = raw + f->offset;
        if (f->kind == EHD_TP_STRING)
            put_cstring(b, p, f->size);
        else if (f->kind == EHD_TP_NONE || f->size < f->elem_size)
            put_hex_bytes(b, p, f->size);
        else
            put_number(b, f->kind, p, f->elem_size, be);
        return;
    }
    size_t len;
    const uint8_t *p = array_bytes(f, raw, raw_size, be, &len);
    if (!p) {
        ehd_buf_puts_fast(b, "null");
        return;
    }
    if (f->kind == EHD_TP_STRING) {
        put_cstring(b, p, len);
        return;
    }
    if (f->kind == EHD_TP_NONE && f->elem_size <= 1) {
        put_hex_bytes(b, p, len);
        return;
    }
    struct jw w = {b, space, 1};
    jw_open(&w, '[');
    uint32_t es = f->elem_size ? f->elem_size : 1;
    for (size_t i = 0; i + es <= len; i += es) {
        jw_sep(&w);
        if (f->kind == EHD_TP_NONE)
            put_hex_bytes(b, p + i, es);
        else
            put_number(b, f->kind, p + i, es, be);
    }
    jw_close(&w, ']');
}

/* ---- names and time ------------------------------------------------------------ */

static const ehd_tp_format *sample_format(const ehd_perf_reader *r, const ehd_perf_sample *s)
{
    if (s->attr && s->attr->format)
        return s->attr->format;
    const ehd_tracing_data *td = ehd_perf_tracing_data(r);
    /* fall back to common_type, but only for tracepoint attrs */
    if (td && s->raw && s->raw_size >= 2 && s->attr && s->attr->type == EHD_PERF_TYPE_TRACEPOINT)
        return ehd_tracing_data_find(td, (uint32_t)eh_read_uint(s->raw, 2, td->big_endian));
    return NULL;
}

static void sample_name_fmt(const ehd_perf_sample *s, const ehd_tp_format *fmt, ehd_buf *out)
{
    if (s->attr && s->attr->name && s->attr->name[0]) {
        ehd_buf_puts_fast(out, s->attr->name);
    } else if (fmt) {
        ehd_buf_puts_fast(out, fmt->system);
        ehd_buf_putc_fast(out, ':');
        ehd_buf_puts_fast(out, fmt->name);
    }
}

void ehd_perf_sample_name(const ehd_perf_sample *s, ehd_buf *out)
{
    sample_name_fmt(s, s->attr ? s->attr->format : NULL, out);
}

size_t ehd_perf_time_json(const ehd_perf_reader *r, uint64_t time, char *dst)
{
    uint32_t clockid;
    uint64_t wall, clk;
    size_t n = 0;
    if (ehd_perf_clock_data(r, &clockid, &wall, &clk)) {
        uint64_t ns = time - clk + wall; /* wraps like unsigned arithmetic in the reference */
        dst[n++] = '"';
        n += ehd_format_datetime(dst + n, (int64_t)(ns / 1000000000u));
        n += put_frac9(dst + n, (uint32_t)(ns % 1000000000u));
        dst[n++] = 'Z';
        dst[n++] = '"';
    } else {
        n += put_u64(dst, time / 1000000000u);
        n += put_frac9(dst + n, (uint32_t)(time % 1000000000u));
    }
    dst[n] = 0;
    return n;
}

/* ---- the two renderings ----------------------------------------------------------- */

static int eventheader_sample(const ehd_perf_reader *r, const ehd_perf_sample *s,
                              const ehd_tp_format *fmt, unsigned flags, ehd_buf *out,
                              const char **reason)
{
    if (!s->raw || s->raw_size < 8) {
        *reason = "raw data shorter than the tracepoint common header";
        return EBADMSG;
    }
    char tbuf[48];
    ehd_sample_info si = {0};
    if (s->has_time && !(flags & EHD_META_GOLDEN)) {
        ehd_perf_time_json(r, s->time, tbuf);
        si.time_json = tbuf;
    }
    si.has_cpu = s->has_cpu;
    si.cpu = s->cpu;
    si.has_pid = s->has_tid;
    si.pid = s->pid;
    si.tid = s->tid;
    size_t at;
    return ehd_eventheader_json(out, fmt->name, strlen(fmt->name), s->raw + 8, s->raw_size - 8, &si,
                                flags, reason, &at);
}

static void plain_sample(const ehd_perf_reader *r, const ehd_perf_sample *s,
                         const ehd_tp_format *fmt, unsigned flags, ehd_buf *out)
{
    struct jw w = {out, (flags & EHD_JSON_SPACE) != 0, 1};
    const ehd_tracing_data *td = ehd_perf_tracing_data(r);
    int be = td ? td->big_endian : ehd_perf_is_big_endian(r);
    jw_open(&w, '{');
    jw_key(&w, "n");
    size_t mark = out->len;
    sample_name_fmt(s, fmt, out);
    /* §7: the name is escaped as Latin-1; move it out and write it quoted */
    size_t nlen = out->len - mark;
    char name[512];
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy(name, out->data ? out->data + mark : "", nlen);
    ehd_buf_truncate(out, mark);
    ehd_json_string_latin1(out, name, nlen);
    if (fmt) {
        for (size_t i = fmt->first_user; i < fmt->nfields; i++) {
            const ehd_tp_field *f = &fmt->fields[i];
            jw_key(&w, f->name);
            put_field_value(out, w.space, f, s->raw ? s->raw : (const uint8_t *)"",
                            s->raw ? s->raw_size : 0, be);
        }
    } else if (s->raw) {
        jw_key(&w, "raw");
        put_hex_bytes(out, s->raw, s->raw_size);
    }
    jw_key(&w, "meta");
    struct jw m = {out, w.space, 1};
    jw_open(&m, '{');
    if (!(flags & EHD_META_GOLDEN)) {
        if (s->has_time) {
            char tbuf[48];
            size_t tn = ehd_perf_time_json(r, s->time, tbuf);
            jw_key(&m, "time");
            ehd_buf_append_fast(out, tbuf, tn);
        }
        if (s->has_cpu) {
            jw_key(&m, "cpu");
            ehd_buf_u64(out, s->cpu);
        }
        if (s->has_tid) {
            jw_key(&m, "pid");
            ehd_buf_u64(out, s->pid);
            jw_key(&m, "tid");
            ehd_buf_u64(out, s->tid);
        }
    }
    jw_close(&m, '}');
    jw_close(&w, '}');
}

/* Whether an EventHeader event (the bytes after the common header) carries metadata.
 * eventheader.h: without a metadata extension "the payload decoding system is defined
 * externally"; such an event is valid, and the tracepoint's format (the header's
 * fields) is all a decoder knows of it. Anything malformed answers 1, so that the
 * EventHeader path reports it (§2.2). */
static int has_metadata(const uint8_t *ev, size_t n)
{
    if (n < sizeof(struct eh_wire_header) || (ev[0] & ~EH_FLAG_ALL))
        return 1;
    struct eh_ext_walk w;
    struct eh_ext x;
    int r;
    eh_ext_walk_init(&w, ev, n, !(ev[0] & EH_FLAG_LITTLE_ENDIAN));
    while ((r = eh_ext_walk_next(&w, &x)) == EH_EXT_WALK_NEXT)
        if (x.kind == EH_EXT_KIND_METADATA || x.kind == EH_EXT_KIND_INVALID)
            return 1;
    return r != EH_EXT_WALK_END;
}

int ehd_perf_sample_json(const ehd_perf_reader *r, const ehd_perf_sample *s, unsigned flags,
                         ehd_buf *out, const char **reason)
{
    const ehd_tp_format *fmt = sample_format(r, s);
    if (fmt && fmt->is_eventheader &&
        (!s->raw || s->raw_size < 8 || has_metadata(s->raw + 8, s->raw_size - 8)))
        return eventheader_sample(r, s, fmt, flags, out, reason);
    size_t mark = out->len;
    plain_sample(r, s, fmt, flags, out);
    if (out->oom) {
        ehd_buf_truncate(out, mark);
        *reason = "out of memory";
        return ENOMEM;
    }
    return 0;
}

void ehd_perf_error_json(ehd_buf *out, const char *name, size_t name_len, const char *reason,
                         uint64_t file_offset, unsigned flags)
{
    ehd_error_json(out, name, name_len, reason, file_offset, flags);
}
