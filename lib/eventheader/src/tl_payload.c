/* SPDX-License-Identifier: MIT */
/*
 * The payload of one write, EventHeader -> TraceLogging, value by value along the node
 * plan of tl_meta.c: the conversions (enum conv in tl_translate.h) the type map of
 * tl_typemap.c chose, e.g. GUID byte order, time -> FILETIME, UTF-32 -> UTF-16, unit
 * counts -> byte counts.
 */
#include <errno.h>
#include <string.h>

#include "eventheader_read.h"
#include "tl_translate.h"

struct pay_ctx {
    const uint8_t *p;
    size_t n, pos;
    struct eh_buf_ *out;
    const struct tl_node *nodes;
};

/* UTF-32 code unit -> UTF-16 units (invalid code points become U+FFFD, as the
 * EventHeader decoder renders them). Returns the number of units (1 or 2). */
static unsigned utf16_of(uint32_t cp, uint16_t u[2])
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    if (cp < 0x10000) {
        u[0] = (uint16_t)cp;
        return 1;
    }
    cp -= 0x10000;
    u[0] = (uint16_t)(0xD800 | (cp >> 10));
    u[1] = (uint16_t)(0xDC00 | (cp & 0x3FF));
    return 2;
}

/* Appends UTF-16LE of n UTF-32LE units; returns the bytes appended. */
static size_t put_utf16_of_utf32(struct eh_buf_ *b, const uint8_t *s, size_t units)
{
    size_t bytes = 0;
    for (size_t i = 0; i < units; i++) {
        uint16_t u[2];
        unsigned k = utf16_of(eh_read_u32(s + 4 * i, 0), u);
        for (unsigned j = 0; j < k; j++)
            eh_buf_u16le(b, u[j]);
        bytes += 2 * k;
    }
    return bytes;
}

static size_t utf16_bytes_of_utf32(const uint8_t *s, size_t units)
{
    size_t bytes = 0;
    for (size_t i = 0; i < units; i++) {
        uint16_t u[2];
        bytes += 2 * utf16_of(eh_read_u32(s + 4 * i, 0), u);
    }
    return bytes;
}

static int put_value(struct pay_ctx *c, const struct tl_node *nd)
{
    size_t left = c->n - c->pos;
    const uint8_t *p = c->p + c->pos;
    switch (nd->conv) {
    case CV_COPY:
        if (left < nd->size)
            return EINVAL;
        eh_buf_put(c->out, p, nd->size);
        c->pos += nd->size;
        return 0;
    case CV_WIDEN16: {
        if (left < 2)
            return EINVAL;
        uint8_t v[4] = {p[0], p[1], 0, 0};
        eh_buf_put(c->out, v, 4);
        c->pos += 2;
        return 0;
    }
    case CV_TIME32:
    case CV_TIME64: {
        size_t sz = nd->conv == CV_TIME32 ? 4 : 8;
        if (left < sz)
            return EINVAL;
        int64_t t =
            sz == 4
                ? (int64_t)(int32_t)eh_read_u32(p, 0)
                : (int64_t)((uint64_t)eh_read_u32(p, 0) | (uint64_t)eh_read_u32(p + 4, 0) << 32);
        /* Clamped as Microsoft's TraceLogging encoders do (Documentation/tracelogging.md
         * §5): a time before 1601 becomes FILETIME 0 and one after 30827-12-31T23:59:59
         * becomes TL_FILETIME_MAX, the largest FILETIME Windows converts to a date. */
        uint64_t ft = t < TL_FILETIME_MIN_SECONDS ? 0
                      : t > TL_FILETIME_MAX_SECONDS
                          ? (uint64_t)TL_FILETIME_MAX
                          : (uint64_t)(t * TL_FILETIME_PER_SECOND + TL_FILETIME_UNIX_EPOCH);
        eh_buf_u64le(c->out, ft);
        c->pos += sz;
        return 0;
    }
    case CV_GUID: {
        if (left < 16)
            return EINVAL;
        uint8_t g[16] = {p[3], p[2], p[1], p[0], p[5], p[4], p[7], p[6]};
        memcpy(g + 8, p + 8, 8);
        eh_buf_put(c->out, g, 16);
        c->pos += 16;
        return 0;
    }
    case CV_PREFIX:
        if (left < nd->size)
            return EINVAL;
        eh_buf_u16le(c->out, nd->size);
        eh_buf_put(c->out, p, nd->size);
        c->pos += nd->size;
        return 0;
    case CV_CHAR32: {
        if (left < 4)
            return EINVAL;
        uint16_t u[2];
        unsigned k = utf16_of(eh_read_u32(p, 0), u);
        eh_buf_u16le(c->out, (uint16_t)(2 * k));
        for (unsigned j = 0; j < k; j++)
            eh_buf_u16le(c->out, u[j]);
        c->pos += 4;
        return 0;
    }
    case CV_ZCOPY:
    case CV_Z32:
    case CV_ZBIN: {
        size_t unit = nd->size, k = 0;
        for (;; k += unit) {
            if (left - k < unit)
                return EINVAL; /* no terminator */
            int zero = 1;
            for (size_t j = 0; j < unit; j++)
                zero &= p[k + j] == 0;
            if (zero)
                break;
        }
        if (nd->conv == CV_ZCOPY) {
            eh_buf_put(c->out, p, k + unit);
        } else if (nd->conv == CV_Z32) {
            put_utf16_of_utf32(c->out, p, k / 4);
            eh_buf_u16le(c->out, 0);
        } else {
            if (k > 0xFFFF)
                return E2BIG;
            eh_buf_u16le(c->out, (uint16_t)k);
            eh_buf_put(c->out, p, k);
        }
        c->pos += k + unit;
        return 0;
    }
    case CV_COUNTED:
    case CV_COUNTED32: {
        if (left < 2)
            return EINVAL;
        size_t units = eh_read_u16(p, 0), bytes = units * nd->size;
        if (left - 2 < bytes)
            return EINVAL;
        if (nd->conv == CV_COUNTED) {
            if (bytes > 0xFFFF)
                return E2BIG;
            eh_buf_u16le(c->out, (uint16_t)bytes);
            eh_buf_put(c->out, p + 2, bytes);
        } else {
            size_t out_bytes = utf16_bytes_of_utf32(p + 2, units);
            if (out_bytes > 0xFFFF)
                return E2BIG;
            eh_buf_u16le(c->out, (uint16_t)out_bytes);
            put_utf16_of_utf32(c->out, p + 2, units);
        }
        c->pos += 2 + bytes;
        return 0;
    }
    default: return EINVAL;
    }
}

static int put_field(struct pay_ctx *c, uint32_t idx);

/* One element of node idx: a struct body or a single value. */
static int put_item(struct pay_ctx *c, uint32_t idx)
{
    const struct tl_node *nd = &c->nodes[idx];
    if (nd->conv != CV_STRUCT)
        return put_value(c, nd);
    for (uint32_t m = idx + 1; m < nd->end; m = c->nodes[m].end) {
        int err = put_field(c, m);
        if (err)
            return err;
    }
    return 0;
}

static int put_field(struct pay_ctx *c, uint32_t idx)
{
    const struct tl_node *nd = &c->nodes[idx];
    uint32_t count = 1;
    if (nd->array == TL_IN_CCOUNT) {
        count = nd->carray;
    } else if (nd->array == TL_IN_VCOUNT) {
        if (c->n - c->pos < 2)
            return EINVAL;
        count = eh_read_u16(c->p + c->pos, 0);
        eh_buf_put(c->out, c->p + c->pos, 2);
        c->pos += 2;
    }
    for (uint32_t i = 0; i < count; i++) {
        int err = put_item(c, idx);
        if (err)
            return err;
        if (c->out->err)
            return c->out->err;
    }
    return 0;
}

int eh_tl_put_payload(struct eh_buf_ *out, const struct tl_def *d, const uint8_t *e, size_t len,
                      size_t pos)
{
    struct pay_ctx c = {.p = e, .n = len, .pos = pos, .out = out, .nodes = d->nodes};
    for (uint32_t idx = 0; idx < d->n_nodes; idx = d->nodes[idx].end) {
        int err = put_field(&c, idx);
        if (err)
            return err;
    }
    return out->err;
}
