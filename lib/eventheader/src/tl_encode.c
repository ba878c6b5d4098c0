/* SPDX-License-Identifier: MIT */
/*
 * EventHeader event -> TraceLogging event (metadata + payload), platform-neutral.
 *
 * TYPE MAPPING (tracelogging-etw.md "EventHeader -> TraceLogging type mapping"; the
 * decoder lib/decode/src/tl_json.c maps back, so one golden JSON serves both):
 *   value8   signed I8 | hex U8+Hex | boolean U8+Boolean | string8 U8+String | else U8
 *   value16  signed I16 | hex U16+Hex | string_utf U16+String | port U16+Port (bytes kept
 *            big-endian) | boolean -> Bool32 (widened, zero-extended) | else U16
 *   value32  signed I32 | hex Hex32 | errno I32 (name lost) | pid U32+Pid | time FileTime |
 *            boolean Bool32 | float F32 | ip_address U32+IPv4 | string_utf (one char32)
 *            -> Str16 (transcoded to UTF-16) | else U32
 *   value64  signed I64 | hex Hex64 | time FileTime | float F64 | else U64
 *   value128 uuid Guid (Data1-3 swapped: EventHeader is RFC 4122 big-endian) |
 *            ip_address Binary+IPv6 (u16 length 16 added) | else BinaryC (hex bytes)
 *   any value with hex_bytes -> BinaryC (u16 length added)
 *   zstring_char8  utf/default CStr8+Utf8 | string8 CStr8 | json CStr8+Json | xml CStr8+Xml
 *   zstring_char16 CStr16 (+Json / +Xml);  zstring_char32 -> CStr16 (transcoded)
 *   string_length16_char8  Str8+Utf8 | string8 Str8 | json/xml Str8+Json/Xml
 *   string_length16_char16 Str16 (u16 count of units -> u16 BYTE count)
 *   string_length16_char32 -> Str16 (transcoded)
 *   binary_length16_char8  BinaryC (string8/utf/json/xml formats -> Str8 as above)
 *   strings with hex_bytes -> BinaryC of the bytes (without the NUL of a zstring)
 *   struct   Struct, member count in the OutType slot
 * Binary (14) is only used for fields outside every array (TraceLogging decoders do not
 * support arrays of it); inside arrays BinaryC (25) is used instead.
 * time -> FILETIME: t * 10^7 + 116444736000000000, wrapping modulo 2^64 for times that
 * FILETIME cannot hold (the decoded JSON then differs; documented in tl_json.c).
 * Tags: EventHeader's u16 event/field tags become TraceLogging's 28-bit tags unchanged.
 * Only little-endian EventHeader events are translated (EINVAL otherwise).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_read.h"
#include "tl_encode.h"

/* How one value is moved from the EventHeader payload to the TraceLogging payload. */
enum conv {
    CV_COPY,      /* fixed-size value, bytes unchanged */
    CV_WIDEN16,   /* u16 -> u32 */
    CV_TIME32,    /* i32 seconds -> FILETIME */
    CV_TIME64,    /* i64 seconds -> FILETIME */
    CV_GUID,      /* RFC 4122 -> Windows GUID layout */
    CV_PREFIX,    /* fixed-size value -> u16 byte count + bytes */
    CV_CHAR32,    /* one UTF-32 code unit -> u16 byte count + UTF-16 */
    CV_ZCOPY,     /* zero-terminated string, unchanged (terminator included) */
    CV_Z32,       /* zero-terminated UTF-32 -> zero-terminated UTF-16 */
    CV_ZBIN,      /* zero-terminated string -> u16 byte count + bytes (no terminator) */
    CV_COUNTED,   /* u16 count of units -> u16 byte count + bytes */
    CV_COUNTED32, /* u16 count of UTF-32 units -> u16 byte count + UTF-16 */
    CV_STRUCT,
};

struct tl_node {
    uint32_t end;    /* index after this node's subtree */
    uint16_t carray; /* constant element count (array == CCOUNT) */
    uint8_t enc;     /* EventHeader encoding, low 5 bits */
    uint8_t array;   /* 0, TL_IN_CCOUNT or TL_IN_VCOUNT */
    uint8_t conv;
    uint8_t size; /* CV_COPY/CV_PREFIX/...: value bytes; strings: unit bytes */
};

/* One translated event definition (cache entry; never freed). */
struct tl_def {
    struct tl_def *next;
    uint32_t hash;
    uint16_t tag;
    size_t eh_len;
    uint8_t *eh_meta; /* copy of the EventHeader metadata body (the key) */
    uint8_t *tl_meta;
    size_t tl_len;
    struct tl_node *nodes;
    uint32_t n_nodes;
};

#define TL_MAX_DEPTH 256 /* struct nesting translated (the payload walk recurses) */

void eh_tl_put_tags(struct eh_buf_ *b, uint32_t tags)
{
    tags &= TL_TAGS_MAX;
    for (;;) {
        uint8_t group = (uint8_t)((tags >> 21) & 0x7F);
        if ((tags & 0x1FFFFF) == 0) {
            eh_buf_u8(b, group);
            return;
        }
        eh_buf_u8(b, (uint8_t)(group | 0x80));
        tags = (tags << 7) & TL_TAGS_MAX;
    }
}

static int is_hexbytes_string_fmt(unsigned fmt)
{
    return fmt == EH_FMT_HEX_BYTES;
}

/* Chooses InType, OutType and the conversion of a non-struct field. */
static int map_type(unsigned enc, unsigned fmt, int in_array, uint8_t *in, uint8_t *out,
                    uint8_t *conv, uint8_t *size)
{
    uint8_t binary = in_array ? TL_IN_BINARYC : TL_IN_BINARY;
    *out = TL_OUT_DEFAULT;
    *conv = CV_COPY;
    switch (enc) {
    case EH_ENC_VALUE8:
    case EH_ENC_VALUE16:
    case EH_ENC_VALUE32:
    case EH_ENC_VALUE64:
    case EH_ENC_VALUE128:
        *size = (uint8_t)(enc == EH_ENC_VALUE8    ? 1
                          : enc == EH_ENC_VALUE16 ? 2
                          : enc == EH_ENC_VALUE32 ? 4
                          : enc == EH_ENC_VALUE64 ? 8
                                                  : 16);
        if (fmt == EH_FMT_HEX_BYTES) {
            *in = TL_IN_BINARYC;
            *conv = CV_PREFIX;
            return 0;
        }
        break;
    default: break;
    }
    switch (enc) {
    case EH_ENC_VALUE8:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I8; break;
        case EH_FMT_HEX_INT: *in = TL_IN_U8, *out = TL_OUT_HEX; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_U8, *out = TL_OUT_BOOLEAN; break;
        case EH_FMT_STRING8: *in = TL_IN_U8, *out = TL_OUT_STRING; break;
        default: *in = TL_IN_U8; break;
        }
        return 0;
    case EH_ENC_VALUE16:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I16; break;
        case EH_FMT_HEX_INT: *in = TL_IN_U16, *out = TL_OUT_HEX; break;
        case EH_FMT_STRING_UTF: *in = TL_IN_U16, *out = TL_OUT_STRING; break;
        case EH_FMT_PORT: *in = TL_IN_U16, *out = TL_OUT_PORT; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_BOOL32, *conv = CV_WIDEN16; break;
        default: *in = TL_IN_U16; break;
        }
        return 0;
    case EH_ENC_VALUE32:
        switch (fmt) {
        case EH_FMT_SIGNED_INT:
        case EH_FMT_ERRNO: *in = TL_IN_I32; break;
        case EH_FMT_HEX_INT: *in = TL_IN_HEX32; break;
        case EH_FMT_PID: *in = TL_IN_U32, *out = TL_OUT_PID; break;
        case EH_FMT_TIME: *in = TL_IN_FILETIME, *conv = CV_TIME32; break;
        case EH_FMT_BOOLEAN: *in = TL_IN_BOOL32; break;
        case EH_FMT_FLOAT: *in = TL_IN_F32; break;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE: *in = TL_IN_U32, *out = TL_OUT_IPV4; break;
        case EH_FMT_STRING_UTF: *in = TL_IN_STR16, *conv = CV_CHAR32; break;
        default: *in = TL_IN_U32; break;
        }
        return 0;
    case EH_ENC_VALUE64:
        switch (fmt) {
        case EH_FMT_SIGNED_INT: *in = TL_IN_I64; break;
        case EH_FMT_HEX_INT: *in = TL_IN_HEX64; break;
        case EH_FMT_TIME: *in = TL_IN_FILETIME, *conv = CV_TIME64; break;
        case EH_FMT_FLOAT: *in = TL_IN_F64; break;
        default: *in = TL_IN_U64; break;
        }
        return 0;
    case EH_ENC_VALUE128:
        switch (fmt) {
        case EH_FMT_UUID: *in = TL_IN_GUID, *conv = CV_GUID; break;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE: *in = binary, *out = TL_OUT_IPV6, *conv = CV_PREFIX; break;
        default: *in = TL_IN_BINARYC, *conv = CV_PREFIX; break;
        }
        return 0;
    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_ZSTRING_CHAR32:
        *size = (uint8_t)(enc == EH_ENC_ZSTRING_CHAR8 ? 1 : enc == EH_ENC_ZSTRING_CHAR16 ? 2 : 4);
        if (is_hexbytes_string_fmt(fmt)) {
            *in = binary, *conv = CV_ZBIN;
            return 0;
        }
        *conv = enc == EH_ENC_ZSTRING_CHAR32 ? CV_Z32 : CV_ZCOPY;
        *in = enc == EH_ENC_ZSTRING_CHAR8 ? TL_IN_CSTR8 : TL_IN_CSTR16;
        if (fmt == EH_FMT_STRING_JSON)
            *out = TL_OUT_JSON;
        else if (fmt == EH_FMT_STRING_XML)
            *out = TL_OUT_XML;
        else if (enc == EH_ENC_ZSTRING_CHAR8 && fmt != EH_FMT_STRING8)
            *out = TL_OUT_UTF8;
        return 0;
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR32:
    case EH_ENC_BINARY_LENGTH16_CHAR8:
        *size = (uint8_t)(enc == EH_ENC_STRING_LENGTH16_CHAR16   ? 2
                          : enc == EH_ENC_STRING_LENGTH16_CHAR32 ? 4
                                                                 : 1);
        *conv = enc == EH_ENC_STRING_LENGTH16_CHAR32 ? CV_COUNTED32 : CV_COUNTED;
        if (is_hexbytes_string_fmt(fmt) ||
            (enc == EH_ENC_BINARY_LENGTH16_CHAR8 && fmt != EH_FMT_STRING8 &&
             fmt != EH_FMT_STRING_UTF && fmt != EH_FMT_STRING_JSON && fmt != EH_FMT_STRING_XML)) {
            *in = binary;
            *conv = CV_COUNTED;
            return 0;
        }
        *in = *size == 1 ? TL_IN_STR8 : TL_IN_STR16;
        if (fmt == EH_FMT_STRING_JSON)
            *out = TL_OUT_JSON;
        else if (fmt == EH_FMT_STRING_XML)
            *out = TL_OUT_XML;
        else if (*size == 1 && fmt != EH_FMT_STRING8)
            *out = TL_OUT_UTF8;
        return 0;
    default: return EINVAL;
    }
}

/* ---- metadata ------------------------------------------------------------ */

struct meta_ctx {
    const uint8_t *m;
    size_t n, pos;
    struct eh_buf_ *out;
    struct tl_node *nodes;
    uint32_t n_nodes, cap;
};

/* Translates the field at m[pos] and, for a struct, its members (recursively);
 * returns 0 or an errno. *present is set to 1 when a field was read. */
static int meta_field(struct meta_ctx *c, int in_array, unsigned depth)
{
    const uint8_t *nul = memchr(c->m + c->pos, 0, c->n - c->pos);
    if (!nul)
        return EINVAL;
    size_t name_len = (size_t)(nul - (c->m + c->pos));
    const uint8_t *name = c->m + c->pos;
    c->pos += name_len + 1;
    if (c->pos >= c->n)
        return EINVAL;
    uint8_t enc = c->m[c->pos++], fmt = 0;
    uint16_t tag = 0, carray = 0;
    if (enc & EH_ENC_CHAIN_FLAG) {
        if (c->pos >= c->n)
            return EINVAL;
        fmt = c->m[c->pos++];
        if (fmt & EH_FMT_CHAIN_FLAG) {
            if (c->n - c->pos < 2)
                return EINVAL;
            tag = eh_read_u16(c->m + c->pos, 0);
            c->pos += 2;
        }
    }
    uint8_t array = 0;
    if ((enc & (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG)) ==
        (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG))
        return EINVAL;
    if (enc & EH_ENC_CARRAY_FLAG) {
        if (c->n - c->pos < 2)
            return EINVAL;
        carray = eh_read_u16(c->m + c->pos, 0);
        c->pos += 2;
        if (carray == 0)
            return EINVAL;
        array = TL_IN_CCOUNT;
    } else if (enc & EH_ENC_VARRAY_FLAG) {
        array = TL_IN_VCOUNT;
    }
    if (c->n_nodes == c->cap)
        return EINVAL; /* cannot happen: cap >= fields the metadata can hold */
    uint32_t idx = c->n_nodes++;
    struct tl_node *nd = &c->nodes[idx];
    memset(nd, 0, sizeof *nd);
    nd->enc = enc & EH_ENC_VALUE_MASK;
    nd->array = array;
    nd->carray = carray;
    in_array |= array != 0;

    eh_buf_put(c->out, name, name_len);
    eh_buf_u8(c->out, 0);
    if (nd->enc == EH_ENC_STRUCT) {
        unsigned members = fmt & EH_FMT_VALUE_MASK;
        if (members == 0 || depth >= TL_MAX_DEPTH)
            return EINVAL;
        nd->conv = CV_STRUCT;
        eh_buf_u8(c->out, (uint8_t)(TL_IN_STRUCT | array | TL_IN_CHAIN));
        size_t count_at = c->out->len;
        eh_buf_u8(c->out, (uint8_t)(members | (tag ? TL_OUT_CHAIN : 0)));
        if (tag)
            eh_tl_put_tags(c->out, tag);
        if (array == TL_IN_CCOUNT)
            eh_buf_u16le(c->out, carray);
        unsigned present = 0;
        for (; present < members && c->pos < c->n; present++) {
            int err = meta_field(c, in_array, depth + 1);
            if (err)
                return err;
        }
        /* A struct may end early with the metadata; TraceLogging gets the real count. */
        if (present != members && !c->out->err) {
            if (present == 0)
                return EINVAL;
            c->out->p[count_at] = (uint8_t)(present | (tag ? TL_OUT_CHAIN : 0));
        }
        c->nodes[idx].end = c->n_nodes;
        return 0;
    }
    uint8_t in, out, conv, size = 0;
    int err = map_type(nd->enc, fmt & EH_FMT_VALUE_MASK, in_array, &in, &out, &conv, &size);
    if (err)
        return err;
    nd->conv = conv;
    nd->size = size;
    nd->end = idx + 1;
    if (out || tag) {
        eh_buf_u8(c->out, (uint8_t)(in | array | TL_IN_CHAIN));
        eh_buf_u8(c->out, (uint8_t)(out | (tag ? TL_OUT_CHAIN : 0)));
        if (tag)
            eh_tl_put_tags(c->out, tag);
    } else {
        eh_buf_u8(c->out, (uint8_t)(in | array));
    }
    if (array == TL_IN_CCOUNT)
        eh_buf_u16le(c->out, carray);
    return 0;
}

/* Builds TraceLogging metadata and the node plan from an EventHeader metadata body. */
static int build_meta(struct eh_buf_ *out, struct tl_node **nodes_out, uint32_t *n_nodes,
                      const uint8_t *m, size_t n, uint16_t event_tag)
{
    const uint8_t *nul = memchr(m, 0, n);
    if (!nul || nul == m)
        return EINVAL;
    size_t name_len = (size_t)(nul - m);
    struct meta_ctx c = {.m = m, .n = n, .pos = name_len + 1, .out = out};
    c.cap = (uint32_t)((n - c.pos) / 2 + 1); /* a field definition takes >= 2 bytes */
    c.nodes = malloc(c.cap * sizeof *c.nodes);
    if (!c.nodes)
        return ENOMEM;
    size_t start = out->len;
    eh_buf_u16le(out, 0);
    eh_tl_put_tags(out, event_tag);
    eh_buf_put(out, m, name_len + 1);
    int err = 0;
    while (!err && c.pos < c.n)
        err = meta_field(&c, 0, 0);
    if (!err)
        err = out->err;
    if (!err && out->len - start > 0xFFFF)
        err = E2BIG;
    if (err) {
        free(c.nodes);
        out->len = start;
        return err;
    }
    size_t size = out->len - start;
    out->p[start] = (uint8_t)size;
    out->p[start + 1] = (uint8_t)(size >> 8);
    if (nodes_out) {
        *nodes_out = c.nodes;
        *n_nodes = c.n_nodes;
    } else {
        free(c.nodes);
    }
    return 0;
}

int eh_tl_build_event_meta(struct eh_buf_ *out, const uint8_t *eh_meta, size_t eh_meta_len,
                           uint16_t event_tag)
{
    return build_meta(out, NULL, NULL, eh_meta, eh_meta_len, event_tag);
}

/* ---- cache: one translation per distinct (metadata bytes, event tag) ------ */

#define TL_CACHE_BUCKETS 256
/* Bound of the cache: beyond it (a program that builds endless distinct events with the
 * dynamic builder), definitions are translated per write and freed with the event. */
#define TL_CACHE_MAX_BYTES ((size_t)16 << 20)
static struct tl_def *g_cache[TL_CACHE_BUCKETS];
static size_t g_cache_bytes;
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void free_def(struct tl_def *d)
{
    if (d) {
        free(d->eh_meta);
        free(d->tl_meta);
        free(d->nodes);
        free(d);
    }
}

static uint32_t fnv1a(const uint8_t *p, size_t n, uint16_t tag)
{
    uint32_t h = 2166136261u ^ tag;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* *owned is set when the definition is not cached (the caller frees it). */
static int lookup_def(const uint8_t *m, size_t n, uint16_t tag, const struct tl_def **out,
                      struct tl_def **owned)
{
    *owned = NULL;
    uint32_t h = fnv1a(m, n, tag);
    struct tl_def **bucket = &g_cache[h % TL_CACHE_BUCKETS];
    int err = 0;
    pthread_mutex_lock(&g_cache_lock);
    for (struct tl_def *d = *bucket; d; d = d->next) {
        if (d->hash == h && d->tag == tag && d->eh_len == n && memcmp(d->eh_meta, m, n) == 0) {
            *out = d;
            goto done;
        }
    }
    struct tl_def *d = calloc(1, sizeof *d);
    struct eh_buf_ meta = {0};
    if (!d || !(d->eh_meta = malloc(n))) {
        free(d);
        err = ENOMEM;
        goto done;
    }
    err = build_meta(&meta, &d->nodes, &d->n_nodes, m, n, tag);
    if (err) {
        eh_buf_free(&meta);
        free(d->eh_meta);
        free(d);
        goto done;
    }
    memcpy(d->eh_meta, m, n);
    d->eh_len = n;
    d->hash = h;
    d->tag = tag;
    d->tl_meta = meta.p;
    d->tl_len = meta.len;
    *out = d;
    size_t bytes = sizeof *d + n + meta.len + d->n_nodes * sizeof *d->nodes;
    if (g_cache_bytes + bytes > TL_CACHE_MAX_BYTES) {
        *owned = d;
        goto done;
    }
    g_cache_bytes += bytes;
    d->next = *bucket;
    *bucket = d;
done:
    pthread_mutex_unlock(&g_cache_lock);
    return err;
}

/* ---- payload --------------------------------------------------------------- */

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
        /* Wrapping arithmetic: FILETIME cannot hold every int64 second count. */
        uint64_t ft =
            (uint64_t)t * (uint64_t)TL_FILETIME_PER_SECOND + (uint64_t)TL_FILETIME_UNIX_EPOCH;
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

void eh_tl_event_release(struct eh_tl_event *ev)
{
    eh_buf_free(&ev->data);
    free_def(ev->owned_);
    ev->owned_ = NULL;
    ev->meta = NULL;
    ev->meta_len = 0;
}

int eh_tl_event_fits(size_t provider_meta_len, const struct eh_tl_event *ev)
{
    size_t total = provider_meta_len + ev->meta_len + ev->data.len;
    return total > EH_TL_EVENT_MAX ? E2BIG : 0;
}

int eh_tl_from_eventheader(struct eh_tl_event *ev, const uint8_t *e, size_t len)
{
    free_def(ev->owned_);
    ev->owned_ = NULL;
    ev->meta = NULL;
    ev->meta_len = 0;
    ev->data.len = 0;
    ev->data.err = 0;
    if (len < sizeof(struct eh_wire_header))
        return EINVAL;
    if ((e[0] & ~EH_FLAG_ALL) || !(e[0] & EH_FLAG_LITTLE_ENDIAN))
        return EINVAL;
    ev->version = e[1];
    ev->id = eh_read_u16(e + 2, 0);
    uint16_t tag = eh_read_u16(e + 4, 0);
    ev->opcode = e[6];
    ev->level = e[7];
    ev->activity = ev->related = NULL;
    const uint8_t *meta = NULL;
    size_t meta_len = 0;
    struct eh_ext_walk w;
    struct eh_ext x;
    int r;
    eh_ext_walk_init(&w, e, len, 0);
    while ((r = eh_ext_walk_next(&w, &x)) == EH_EXT_WALK_NEXT) {
        if (x.kind == EH_EXT_KIND_METADATA) {
            meta = e + x.body;
            meta_len = x.size;
        } else if (x.kind == EH_EXT_KIND_ACTIVITY_ID) {
            if (x.size != 16 && x.size != 32)
                return EINVAL;
            ev->activity = e + x.body;
            ev->related = x.size == 32 ? e + x.body + 16 : NULL;
        }
    }
    if (r != EH_EXT_WALK_END || !meta)
        return EINVAL;
    size_t pos = w.pos;
    const struct tl_def *d;
    int err = lookup_def(meta, meta_len, tag, &d, &ev->owned_);
    if (err)
        return err;
    ev->meta = d->tl_meta;
    ev->meta_len = d->tl_len;
    struct pay_ctx c = {.p = e, .n = len, .pos = pos, .out = &ev->data, .nodes = d->nodes};
    for (uint32_t idx = 0; idx < d->n_nodes; idx = d->nodes[idx].end) {
        err = put_field(&c, idx);
        if (err)
            return err;
    }
    return ev->data.err;
}
