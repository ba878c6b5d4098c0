/* SPDX-License-Identifier: MIT */
/*
 * ehd_tl_json: one TraceLogging event (provider metadata, event metadata, user data,
 * descriptor) -> the JSON object ehd_eventheader_json() prints for the EventHeader form
 * of the same event, so one golden file serves the EventHeader and the ETW transports.
 * Values are rendered by the shared ehd_render_value() after mapping each TraceLogging
 * InType/OutType back to the EventHeader encoding/format that libeventheader's encoder
 * (lib/eventheader/src/tl_typemap.c) maps from.
 *
 * DIFFERENCES BY DESIGN (TraceLogging cannot carry the EventHeader detail; the JSON of
 * the ETW transport differs from golden/ exactly here, and golden data must declare it):
 * | name                  | EventHeader JSON                       | TraceLogging JSON                    |
 * |-----------------------|----------------------------------------|--------------------------------------|
 * | errno-lost            | value32 errno: "ENOENT(2)"             | I32: 2                               |
 * | time-range            | any int64 seconds                      | t*10^7 + 116444736000000000 clamped  |
 * |                       |                                        | to [0, 0x7FFF35F4F06C7FFF] as        |
 * |                       |                                        | Microsoft's encoders do: before 1601 |
 * |                       |                                        | -> 1601-01-01T00:00:00, after        |
 * |                       |                                        | 30827-12-31T23:59:59 -> that second  |
 * | utf-bom-lost          | utf_bom formats sniff a BOM            | read as UTF-8 / UTF-16 only          |
 * | fixed-format-string   | str8/binary + int/float/... format     | the bytes as a string or hex;        |
 * |                       | renders a value (§4.12), empty: null   | empty: ""                            |
 * | size-limit            | events up to 65535 bytes               | over 64 KB in total (header, ext     |
 * |                       |                                        | items, payload): EventWriteTransfer  |
 * |                       |                                        | fails, the write returns E2BIG       |
 * | group-guid            | meta "options": "Ggrp1" (the tracepoint| the provider-group trait holds only  |
 * |                       | name's options, decoder-json.md §2)    | the GUID hashed from the group name: |
 * |                       |                                        | "options": "G" + the GUID's 32 hex   |
 * |                       |                                        | digits, lowercase, in text order     |
 * No JSON difference (transcoded, checked by tests/tl): char32 strings and value32
 * string_utf -> UTF-16 (invalid code points are U+FFFD in both paths); value16 boolean ->
 * Bool32 (zero-extended); value128 ip -> Binary+IPv6; uuid -> Guid (Data1-3 swapped);
 * time -> FILETIME; id/version -> EVENT_DESCRIPTOR Id/Version. Big-endian EventHeader
 * events are not translated (EINVAL).
 * Measured with EHCONF_CAPTURE_TL on every case: 6 of 9 golden files identical;
 * field_types differs in 6 events (declared in its golden directive line): errno-lost (4), time-range (1),
 * fixed-format-string + utf-bom-lost (1, event "format_override"); attributes in 3 and
 * lifecycle in 2 (group-guid, the events of a provider with a group).
 * FileTime fractions and SystemTime (Windows writers, .etl files) print as dates with a
 * fraction (Documentation/tracelogging.md §5, "Times from Windows writers").
 * The OutTypes of libeventheader's type hints (tl_typemap.c: hresult I32+HResult, tid
 * U32+Tid, codepointer Hex64+CodePointer, socketaddress(c) Binary(C)+SocketAddress,
 * binaryc BinaryC, ipv6c BinaryC+IPv6) map back to the EventHeader form those
 * write_event! types have (value32 hex, value32 pid, value64 hex, hex bytes, value128
 * ip), so they decode as on EventHeader: no JSON difference.
 * tests/tl/test_tl_field_types.c decodes the TraceLogging form of every row of the field-type
 * table (lib/eventheader/include/eh_field_types.def) here and expects the JSON of its
 * EventHeader form (errno as above), so a new type this reverse map does not know fails.
 * Values TraceLogging has but ehconf never writes (Sid, Win32Error, NTStatus,
 * DateTimeUtc) decode to the nearest EventHeader rendering (hex bytes or hex integer);
 * custom-schema fields are ENOTSUP.
 *
 * Bounds: struct nesting deeper than TL_MAX_DEPTH (256) -> E2BIG; more than 64 MiB of
 * JSON for one event -> E2BIG. Malformed input -> EBADMSG with the offset in the blob
 * named by the reason ("event metadata", "provider metadata", "data").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_internal.h"
#include "ehd_tl.h"
#include "eventheader_wire.h"

#define TL_MAX_DEPTH  256
#define TL_MAX_OUTPUT ((size_t)64 << 20)

struct tnode {
    const uint8_t *name;
    uint32_t name_len;
    uint32_t end; /* index after the subtree */
    uint32_t tag;
    uint16_t ccount;
    uint8_t in;    /* InType */
    uint8_t out;   /* OutType (struct: member count) */
    uint8_t array; /* 0, TL_IN_CCOUNT or TL_IN_VCOUNT */
};

struct tctx {
    ehd_buf *out;
    size_t out_start;
    unsigned flags;
    const uint8_t *d;
    size_t n, pos;
    struct tnode *nodes;
    uint32_t n_nodes;
    const char **reason;
    size_t *err_offset;
};

static _Thread_local char tl_reason[200];

__attribute__((format(printf, 4, 5))) static int tfail(const char **reason, size_t *off, size_t at,
                                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_reason, sizeof tl_reason, fmt, ap);
    va_end(ap);
    *reason = tl_reason;
    *off = at;
    return EBADMSG;
}

/* ---- whitespace: the same rules as eventheader_json.c (Documentation/decoder-json.md §1) ---- */

static void sep(struct tctx *c, int *first)
{
    ehd_json_sep(c->out, (c->flags & EHD_JSON_SPACE) != 0, *first);
    *first = 0;
}

static void colon(struct tctx *c)
{
    ehd_json_colon(c->out, (c->flags & EHD_JSON_SPACE) != 0);
}

static void closer(struct tctx *c, char ch)
{
    ehd_json_close(c->out, (c->flags & EHD_JSON_SPACE) != 0, ch);
}

static void key(struct tctx *c, int *first, const char *k)
{
    sep(c, first);
    ehd_buf_putc(c->out, '"');
    ehd_buf_puts(c->out, k);
    ehd_buf_putc(c->out, '"');
    colon(c);
}

/* ---- metadata ---------------------------------------------------------------- */

/* Reads 1-4 tag bytes at m[*pos]; returns 0 or -1 (runs past the end / too long). */
static int read_tags(const uint8_t *m, size_t n, size_t *pos, uint32_t *tags)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        if (*pos >= n)
            return -1;
        uint8_t b = m[(*pos)++];
        v |= (uint32_t)(b & 0x7F) << (21 - 7 * i);
        if (!(b & 0x80)) {
            *tags = v;
            return 0;
        }
    }
    return -1;
}

static const char *printable(const uint8_t *s, size_t n, char *dst, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < cap; i++)
        dst[k++] = (s[i] >= 0x20 && s[i] < 0x7F && s[i] != '\'') ? (char)s[i] : '?';
    dst[k] = 0;
    return dst;
}

static int parse_fields(struct tctx *c, const uint8_t *m, size_t n, size_t pos)
{
    struct ehd_struct_stack st = {.cap = TL_MAX_DEPTH};
    size_t cap = (n - pos) / 2 + 1;
    c->nodes = malloc(cap * sizeof *c->nodes);
    st.open = malloc(TL_MAX_DEPTH * sizeof *st.open);
    int err = 0;
    if (!c->nodes || !st.open) {
        *c->reason = "out of memory";
        *c->err_offset = 0;
        err = ENOMEM;
        goto out;
    }
    c->n_nodes = 0;
    while (pos < n) {
        size_t def = pos;
        char nm[64];
        const uint8_t *nul = memchr(m + pos, 0, n - pos);
        if (!nul) {
            err = tfail(c->reason, c->err_offset, def,
                        "event metadata: field name not NUL-terminated");
            goto out;
        }
        struct tnode *nd = &c->nodes[c->n_nodes];
        memset(nd, 0, sizeof *nd);
        nd->name = m + pos;
        nd->name_len = (uint32_t)(nul - (m + pos));
        pos = (size_t)(nul - m) + 1;
        if (pos >= n)
            goto trunc;
        uint8_t inmeta = m[pos++];
        nd->in = inmeta & TL_IN_TYPE_MASK;
        nd->array = inmeta & TL_IN_COUNT_MASK;
        if (inmeta & TL_IN_CHAIN) {
            if (pos >= n)
                goto trunc;
            uint8_t outmeta = m[pos++];
            nd->out = outmeta & TL_OUT_TYPE_MASK;
            if ((outmeta & TL_OUT_CHAIN) && read_tags(m, n, &pos, &nd->tag) != 0)
                goto trunc;
        }
        if (nd->array == TL_IN_CCOUNT) {
            if (n - pos < 2)
                goto trunc;
            nd->ccount = eh_read_u16(m + pos, 0);
            pos += 2;
        } else if (nd->array == TL_IN_CUSTOM) {
            *c->reason = "event metadata: custom-schema fields are not supported";
            *c->err_offset = def;
            err = ENOTSUP;
            goto out;
        }
        if (nd->in == TL_IN_STRUCT && nd->out == 0) {
            err = tfail(c->reason, c->err_offset, def, "event metadata: struct '%s' has 0 members",
                        printable(nd->name, nd->name_len, nm, sizeof nm));
            goto out;
        }
        uint32_t idx = c->n_nodes++;
        nd->end = idx + 1;
        if (ehd_struct_push(&st, idx, nd->in == TL_IN_STRUCT ? nd->out : 0) != 0) {
            *c->reason = "struct nesting deeper than 256 levels (ehconf bound)";
            *c->err_offset = def;
            err = E2BIG;
            goto out;
        }
        for (int64_t k; (k = ehd_struct_pop(&st, 0)) >= 0;)
            c->nodes[k].end = c->n_nodes;
        continue;
    trunc:
        err = tfail(c->reason, c->err_offset, def,
                    "event metadata ends inside the definition of field '%s'",
                    printable(nd->name, nd->name_len, nm, sizeof nm));
        goto out;
    }
    /* structs may end early with the metadata */
    for (int64_t k; (k = ehd_struct_pop(&st, 1)) >= 0;)
        c->nodes[k].end = c->n_nodes;
out:
    free(st.open);
    return err;
}

/* ---- values -------------------------------------------------------------------- */

/* The EventHeader encoding/format an encoder-produced TraceLogging type came from. */
static int eh_type_of(const struct tnode *nd, unsigned *enc, unsigned *fmt)
{
    unsigned o = nd->out;
    *fmt = EH_FMT_DEFAULT;
    switch (nd->in) {
    case TL_IN_I8: *enc = EH_ENC_VALUE8, *fmt = EH_FMT_SIGNED_INT; return 0;
    case TL_IN_U8:
        *enc = EH_ENC_VALUE8;
        *fmt = o == TL_OUT_HEX       ? EH_FMT_HEX_INT
               : o == TL_OUT_BOOLEAN ? EH_FMT_BOOLEAN
               : o == TL_OUT_STRING  ? EH_FMT_STRING8
                                     : EH_FMT_DEFAULT;
        return 0;
    case TL_IN_I16: *enc = EH_ENC_VALUE16, *fmt = EH_FMT_SIGNED_INT; return 0;
    case TL_IN_U16:
        *enc = EH_ENC_VALUE16;
        *fmt = o == TL_OUT_HEX       ? EH_FMT_HEX_INT
               : o == TL_OUT_STRING  ? EH_FMT_STRING_UTF
               : o == TL_OUT_PORT    ? EH_FMT_PORT
               : o == TL_OUT_BOOLEAN ? EH_FMT_BOOLEAN
                                     : EH_FMT_DEFAULT;
        return 0;
    case TL_IN_I32:
        *enc = EH_ENC_VALUE32;
        *fmt = o == TL_OUT_HRESULT || o == TL_OUT_HEX ? EH_FMT_HEX_INT : EH_FMT_SIGNED_INT;
        return 0;
    case TL_IN_U32:
        *enc = EH_ENC_VALUE32;
        *fmt = o == TL_OUT_PID || o == TL_OUT_TID ? EH_FMT_PID
               : o == TL_OUT_IPV4                 ? EH_FMT_IP_ADDRESS
               : o == TL_OUT_BOOLEAN              ? EH_FMT_BOOLEAN
               : (o == TL_OUT_HEX || o == TL_OUT_WIN32ERROR || o == TL_OUT_NTSTATUS ||
                  o == TL_OUT_HRESULT || o == TL_OUT_CODEPOINTER)
                   ? EH_FMT_HEX_INT
                   : EH_FMT_DEFAULT;
        return 0;
    case TL_IN_I64: *enc = EH_ENC_VALUE64, *fmt = EH_FMT_SIGNED_INT; return 0;
    case TL_IN_U64:
        *enc = EH_ENC_VALUE64;
        *fmt = o == TL_OUT_HEX || o == TL_OUT_CODEPOINTER ? EH_FMT_HEX_INT : EH_FMT_DEFAULT;
        return 0;
    case TL_IN_F32: *enc = EH_ENC_VALUE32, *fmt = EH_FMT_FLOAT; return 0;
    case TL_IN_F64: *enc = EH_ENC_VALUE64, *fmt = EH_FMT_FLOAT; return 0;
    case TL_IN_BOOL32: *enc = EH_ENC_VALUE32, *fmt = EH_FMT_BOOLEAN; return 0;
    case TL_IN_HEX32: *enc = EH_ENC_VALUE32, *fmt = EH_FMT_HEX_INT; return 0;
    case TL_IN_HEX64: *enc = EH_ENC_VALUE64, *fmt = EH_FMT_HEX_INT; return 0;
    case TL_IN_GUID: *enc = EH_ENC_VALUE128, *fmt = EH_FMT_UUID; return 0;
    case TL_IN_FILETIME: *enc = EH_ENC_VALUE64, *fmt = EH_FMT_TIME; return 0;
    case TL_IN_CSTR8:
    case TL_IN_STR8:
        *enc = nd->in == TL_IN_CSTR8 ? EH_ENC_ZSTRING_CHAR8 : EH_ENC_STRING_LENGTH16_CHAR8;
        *fmt = o == TL_OUT_JSON   ? EH_FMT_STRING_JSON
               : o == TL_OUT_XML  ? EH_FMT_STRING_XML
               : o == TL_OUT_UTF8 ? EH_FMT_DEFAULT
                                  : EH_FMT_STRING8;
        return 0;
    case TL_IN_CSTR16:
    case TL_IN_STR16:
        *enc = nd->in == TL_IN_CSTR16 ? EH_ENC_ZSTRING_CHAR16 : EH_ENC_STRING_LENGTH16_CHAR16;
        *fmt = o == TL_OUT_JSON  ? EH_FMT_STRING_JSON
               : o == TL_OUT_XML ? EH_FMT_STRING_XML
                                 : EH_FMT_DEFAULT;
        return 0;
    case TL_IN_BINARY:
    case TL_IN_BINARYC:
    case TL_IN_SYSTEMTIME:
    case TL_IN_SID: *enc = EH_ENC_BINARY_LENGTH16_CHAR8, *fmt = EH_FMT_HEX_BYTES; return 0;
    default: return ENOTSUP;
    }
}

/*
 * A FILETIME or SYSTEMTIME with a fraction of a second (Windows writers fill it in,
 * ehconf's encoder never does): the time text gets ".<digits>" before its closing
 * quote, trailing zeros dropped, so whole seconds print exactly as the EventHeader
 * time (Documentation/tracelogging.md §5).
 */
static void put_fraction(struct tctx *c, uint32_t frac, int digits)
{
    if (!frac || c->out->oom || !c->out->len || c->out->data[c->out->len - 1] != '"')
        return;
    char t[16];
    int n = snprintf(t, sizeof t, ".%0*" PRIu32, digits, frac);
    while (n > 1 && t[n - 1] == '0')
        n--;
    c->out->len--;
    ehd_buf_append(c->out, t, (size_t)n);
    ehd_buf_putc(c->out, '"');
}

/* SYSTEMTIME (u16 year, month, day of week, day, hour, minute, second, milliseconds)
 * as "YYYY-MM-DDTHH:MM:SS[.mmm]"; 0 when a member is out of range (then hex bytes). */
static int put_systemtime(struct tctx *c, const uint8_t *p)
{
    unsigned v[8];
    for (int i = 0; i < 8; i++)
        v[i] = eh_read_u16(p + 2 * i, 0);
    if (v[1] < 1 || v[1] > 12 || v[3] < 1 || v[3] > 31 || v[4] > 23 || v[5] > 59 || v[6] > 59 ||
        v[7] > 999)
        return 0;
    ehd_buf_printf(c->out, "\"%04u-%02u-%02uT%02u:%02u:%02u\"", v[0], v[1], v[3], v[4], v[5], v[6]);
    put_fraction(c, v[7], 3);
    return 1;
}

static int put_value(struct tctx *c, const struct tnode *nd)
{
    char nm[64];
    unsigned enc, fmt;
    size_t pos = c->pos, left = c->n - pos, vstart = pos, vsize = 0, next;
    const uint8_t *p = c->d + pos;
    uint8_t tmp[16];
    const uint8_t *vp = NULL;
    if (eh_type_of(nd, &enc, &fmt) != 0) {
        *c->reason = tl_reason;
        *c->err_offset = pos;
        snprintf(tl_reason, sizeof tl_reason, "field '%s' has InType %u, which ehconf never writes",
                 printable(nd->name, nd->name_len, nm, sizeof nm), nd->in);
        return ENOTSUP;
    }
    switch (nd->in) {
    case TL_IN_CSTR8:
    case TL_IN_CSTR16: {
        size_t unit = nd->in == TL_IN_CSTR8 ? 1 : 2, k = 0;
        for (;; k += unit) {
            if (left - k < unit)
                return tfail(c->reason, c->err_offset, pos,
                             "data: string field '%s' has no terminator before the end of the data",
                             printable(nd->name, nd->name_len, nm, sizeof nm));
            if (p[k] == 0 && (unit == 1 || p[k + 1] == 0))
                break;
        }
        vsize = k;
        next = pos + k + unit;
        break;
    }
    case TL_IN_STR8:
    case TL_IN_STR16:
    case TL_IN_BINARY:
    case TL_IN_BINARYC:
        if (left < 2)
            return tfail(c->reason, c->err_offset, pos,
                         "data: field '%s' length runs past the end of the data",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        vsize = eh_read_u16(p, 0);
        if (left - 2 < vsize)
            return tfail(c->reason, c->err_offset, pos,
                         "data: field '%s' runs past the end of the data",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        if (nd->in == TL_IN_STR16 && vsize % 2)
            return tfail(c->reason, c->err_offset, pos,
                         "data: Str16 field '%s' has an odd byte count",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        vstart = pos + 2;
        next = vstart + vsize;
        /* Binary+IPv6/IPv4 of the address size: the value128/value32 ip_address form. */
        if ((nd->in == TL_IN_BINARY || nd->in == TL_IN_BINARYC) &&
            ((nd->out == TL_OUT_IPV6 && vsize == 16) || (nd->out == TL_OUT_IPV4 && vsize == 4))) {
            enc = vsize == 16 ? EH_ENC_VALUE128 : EH_ENC_VALUE32;
            fmt = EH_FMT_IP_ADDRESS;
        }
        break;
    case TL_IN_SID: {
        if (left < 8 || left < 8 + 4 * (size_t)p[1])
            return tfail(c->reason, c->err_offset, pos, "data: Sid field '%s' runs past the end",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        vsize = 8 + 4 * (size_t)p[1];
        next = pos + vsize;
        break;
    }
    default: {
        size_t sz = nd->in == TL_IN_SYSTEMTIME || nd->in == TL_IN_GUID ? 16
                    : enc == EH_ENC_VALUE8                             ? 1
                    : enc == EH_ENC_VALUE16                            ? 2
                    : enc == EH_ENC_VALUE32                            ? 4
                                                                       : 8;
        if (left < sz)
            return tfail(c->reason, c->err_offset, pos,
                         "data: value field '%s' runs past the end of the data",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        vsize = sz;
        next = pos + sz;
        if (nd->in == TL_IN_GUID) {
            /* Windows GUID layout -> RFC 4122 byte order (the EventHeader form). */
            const uint8_t g[16] = {p[3], p[2], p[1],  p[0],  p[5],  p[4],  p[7],  p[6],
                                   p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]};
            memcpy(tmp, g, 16);
            vp = tmp;
        } else if (nd->in == TL_IN_FILETIME) {
            uint64_t ft = eh_read_u64(p, 0);
            /* Seconds since 1970, floor division (FILETIME counts 100 ns since 1601). */
            int64_t rel = (int64_t)(ft - (uint64_t)TL_FILETIME_UNIX_EPOCH);
            int64_t t = rel / TL_FILETIME_PER_SECOND;
            if (rel % TL_FILETIME_PER_SECOND < 0)
                t--;
            for (int i = 0; i < 8; i++)
                tmp[i] = (uint8_t)((uint64_t)t >> (8 * i));
            vp = tmp;
        }
        break;
    }
    }
    if (nd->in == TL_IN_SYSTEMTIME && put_systemtime(c, p)) {
        c->pos = next;
        return 0;
    }
    const char *why = NULL;
    int err = ehd_render_value(c->out, enc, fmt, vp ? vp : c->d + vstart, vsize, 0, &why);
    if (!err && nd->in == TL_IN_FILETIME) {
        /* the fraction of the same floored division as the seconds above */
        int64_t rel = (int64_t)(eh_read_u64(p, 0) - (uint64_t)TL_FILETIME_UNIX_EPOCH);
        int64_t frac = rel % TL_FILETIME_PER_SECOND;
        put_fraction(c, (uint32_t)(frac < 0 ? frac + TL_FILETIME_PER_SECOND : frac), 7);
    }
    if (err) {
        *c->reason = tl_reason;
        *c->err_offset = pos;
        snprintf(tl_reason, sizeof tl_reason, "data: field '%s': %s",
                 printable(nd->name, nd->name_len, nm, sizeof nm), why);
        return err;
    }
    c->pos = next;
    return 0;
}

static void field_name(struct tctx *c, const struct tnode *nd)
{
    ehd_buf_putc(c->out, '"');
    ehd_json_utf8_body(c->out, nd->name, nd->name_len);
    if ((c->flags & EHD_JSON_FIELD_TAG) && nd->tag != 0)
        ehd_buf_printf(c->out, ";tag=0x%" PRIX32, nd->tag);
    ehd_buf_putc(c->out, '"');
    colon(c);
}

static int put_field(struct tctx *c, uint32_t idx, unsigned depth);

static int put_item(struct tctx *c, uint32_t idx, unsigned depth)
{
    const struct tnode *nd = &c->nodes[idx];
    if (c->out->oom) {
        *c->reason = "out of memory";
        *c->err_offset = c->pos;
        return ENOMEM;
    }
    if (c->out->len - c->out_start > TL_MAX_OUTPUT) {
        *c->reason = "event JSON larger than 64 MiB (ehconf bound)";
        *c->err_offset = c->pos;
        return E2BIG;
    }
    if (nd->in != TL_IN_STRUCT)
        return put_value(c, nd);
    int first = 1;
    ehd_buf_putc(c->out, '{');
    for (uint32_t m = idx + 1; m < nd->end; m = c->nodes[m].end) {
        sep(c, &first);
        int err = put_field(c, m, depth + 1);
        if (err)
            return err;
    }
    closer(c, '}');
    return 0;
}

/* Name, then the value, array or struct of node idx. */
static int put_field(struct tctx *c, uint32_t idx, unsigned depth)
{
    const struct tnode *nd = &c->nodes[idx];
    field_name(c, nd);
    if (!nd->array)
        return put_item(c, idx, depth);
    uint32_t count = nd->ccount;
    if (nd->array == TL_IN_VCOUNT) {
        char nm[64];
        if (c->n - c->pos < 2)
            return tfail(c->reason, c->err_offset, c->pos,
                         "data: array field '%s' count runs past the end of the data",
                         printable(nd->name, nd->name_len, nm, sizeof nm));
        count = eh_read_u16(c->d + c->pos, 0);
        c->pos += 2;
    }
    int first = 1;
    ehd_buf_putc(c->out, '[');
    for (uint32_t i = 0; i < count; i++) {
        sep(c, &first);
        int err = put_item(c, idx, depth);
        if (err)
            return err;
    }
    closer(c, ']');
    return 0;
}

/* ---- meta ------------------------------------------------------------------------ */

static void uuid_member(struct tctx *c, int *first, const char *k, const uint8_t *p)
{
    key(c, first, k);
    ehd_buf_printf(c->out,
                   "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"", p[0],
                   p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13],
                   p[14], p[15]);
}

/* The provider-group GUID of the provider traits after the name (tracelogging.md §3):
 * each trait u16 size (itself included), u8 type, data; NULL without a group trait or
 * when the traits do not add up. */
static const uint8_t *group_guid(const uint8_t *pm, size_t pm_n, size_t pos)
{
    while (pos + 3 <= pm_n) {
        size_t size = eh_read_u16(pm + pos, 0);
        if (size < 3 || size > pm_n - pos)
            return NULL;
        if (pm[pos + 2] == TL_PROVIDER_TRAIT_GROUP && size == 3 + 16)
            return pm + pos + 3;
        pos += size;
    }
    return NULL;
}

/* group: the provider-group GUID (Windows layout) or NULL. */
static void put_meta(struct tctx *c, const ehd_tl_event *ev, const ehd_sample_info *si,
                     uint32_t event_tags, const uint8_t *group)
{
    int outer = 0, first = 1;
    key(c, &outer, "meta");
    ehd_buf_putc(c->out, '{');
    if (si && !(c->flags & EHD_META_GOLDEN)) {
        if (si->time_json) {
            key(c, &first, "time");
            ehd_buf_puts(c->out, si->time_json);
        }
        if (si->has_cpu) {
            key(c, &first, "cpu");
            ehd_buf_printf(c->out, "%" PRIu32, si->cpu);
        }
        if (si->has_pid) {
            key(c, &first, "pid");
            ehd_buf_printf(c->out, "%" PRIu32, si->pid);
            key(c, &first, "tid");
            ehd_buf_printf(c->out, "%" PRIu32, si->tid);
        }
    }
    if (ev->id) {
        key(c, &first, "id");
        ehd_buf_printf(c->out, "%u", (unsigned)ev->id);
    }
    if (ev->version) {
        key(c, &first, "version");
        ehd_buf_printf(c->out, "%u", (unsigned)ev->version);
    }
    if (ev->level) {
        key(c, &first, "level");
        ehd_buf_printf(c->out, "%u", (unsigned)ev->level);
    }
    if (ev->keyword) {
        key(c, &first, "keyword");
        ehd_buf_printf(c->out, "\"0x%" PRIX64 "\"", ev->keyword);
    }
    if (ev->opcode) {
        key(c, &first, "opcode");
        ehd_buf_printf(c->out, "%u", (unsigned)ev->opcode);
    }
    if (event_tags) {
        key(c, &first, "tag");
        ehd_buf_printf(c->out, "\"0x%" PRIX32 "\"", event_tags);
    }
    if (ev->activity) {
        uuid_member(c, &first, "activity", ev->activity);
        if (ev->related)
            uuid_member(c, &first, "relatedActivity", ev->related);
    }
    if (group) {
        /* group-guid: the options member of the EventHeader form, with the GUID in the
         * group name's place (its text order: Data1-3 byte-reversed, tracelogging.md §2) */
        const uint8_t *g = group;
        key(c, &first, "options");
        ehd_buf_printf(c->out,
                       "\"G%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x\"",
                       g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11],
                       g[12], g[13], g[14], g[15]);
    }
    closer(c, '}');
}

/* ---- entry point -------------------------------------------------------------------- */

int ehd_tl_json(ehd_buf *out, const ehd_tl_event *ev, const ehd_sample_info *si, unsigned flags,
                const char **reason, size_t *err_offset)
{
    struct tctx c;
    memset(&c, 0, sizeof c);
    c.out = out;
    c.out_start = out->len;
    c.flags = flags;
    c.d = ev->data;
    c.n = ev->data ? ev->data_size : 0;
    c.reason = reason;
    c.err_offset = err_offset;

    const uint8_t *pm = ev->provider_meta, *em = ev->event_meta;
    if (!pm || ev->provider_meta_size < 3 || eh_read_u16(pm, 0) < 3 ||
        eh_read_u16(pm, 0) > ev->provider_meta_size)
        return tfail(reason, err_offset, 0, "provider metadata: size missing or out of range");
    size_t pm_n = eh_read_u16(pm, 0);
    const uint8_t *pnul = memchr(pm + 2, 0, pm_n - 2);
    if (!pnul)
        return tfail(reason, err_offset, 2, "provider metadata: name not NUL-terminated");
    if (!em || ev->event_meta_size < 4 || eh_read_u16(em, 0) < 4 ||
        eh_read_u16(em, 0) > ev->event_meta_size)
        return tfail(reason, err_offset, 0, "event metadata: size missing or out of range");
    size_t em_n = eh_read_u16(em, 0), pos = 2;
    uint32_t event_tags = 0;
    if (read_tags(em, em_n, &pos, &event_tags) != 0)
        return tfail(reason, err_offset, 2, "event metadata: event tags run past the end");
    const uint8_t *enul = memchr(em + pos, 0, em_n - pos);
    if (!enul)
        return tfail(reason, err_offset, pos, "event metadata: event name not NUL-terminated");
    const uint8_t *ename = em + pos;
    size_t ename_len = (size_t)(enul - ename);
    const uint8_t *semi = memchr(ename, ';', ename_len);
    size_t shown = semi ? (size_t)(semi - ename) : ename_len;

    int err = parse_fields(&c, em, em_n, (size_t)(enul - em) + 1);
    if (!err) {
        int first = 1;
        ehd_buf_putc(out, '{');
        key(&c, &first, "n");
        ehd_buf_putc(out, '"');
        ehd_json_utf8_body(out, pm + 2, (size_t)(pnul - (pm + 2)));
        ehd_buf_putc(out, ':');
        ehd_json_utf8_body(out, ename, shown);
        ehd_buf_putc(out, '"');
        for (uint32_t idx = 0; !err && idx < c.n_nodes; idx = c.nodes[idx].end) {
            sep(&c, &first);
            err = put_field(&c, idx, 0);
        }
    }
    if (!err) {
        put_meta(&c, ev, si, event_tags, group_guid(pm, pm_n, (size_t)(pnul - pm) + 1));
        closer(&c, '}');
        if (out->oom) {
            *reason = "out of memory";
            *err_offset = c.pos;
            err = ENOMEM;
        }
    }
    free(c.nodes);
    if (err)
        ehd_buf_truncate(out, c.out_start);
    return err;
}
