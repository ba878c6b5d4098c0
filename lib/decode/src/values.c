/* SPDX-License-Identifier: MIT */
/*
 * One EventHeader value -> JSON text (Documentation/decoder-json.md §4.2-§4.13).
 * The enumerator (eventheader_json.c) has already cut the value's bytes out
 * of the event; here only the encoding/format pair decides the rendering.
 * Byte order is explicit (big_endian flag of the event), never the host's.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "ehd_internal.h"
#include "eventheader_wire.h"

static void put_u64(ehd_buf *b, uint64_t v)
{
    ehd_buf_u64(b, v);
}

static void put_i64(ehd_buf *b, int64_t v)
{
    ehd_buf_i64(b, v);
}

static void put_hex(ehd_buf *b, uint64_t v)
{
    ehd_buf_append_fast(b, "\"0x", 3);
    ehd_buf_hex(b, v, 1);
    ehd_buf_putc_fast(b, '"');
}

static void put_hex_bytes(ehd_buf *b, const uint8_t *p, size_t n)
{
    ehd_buf_putc_fast(b, '"');
    ehd_hex_bytes_body(b, p, n);
    ehd_buf_putc_fast(b, '"');
}

/* §4.3: 0 -> false, 1 -> true, anything else as an int32. */
static void put_boolean(ehd_buf *b, uint32_t v)
{
    if (v == 0)
        ehd_buf_puts_fast(b, "false");
    else if (v == 1)
        ehd_buf_puts_fast(b, "true");
    else
        put_i64(b, (int32_t)v);
}

/* §4.6, with the pinned any-int64 calendar of datetime.c. */
static void put_time(ehd_buf *b, int64_t seconds)
{
    char t[32];
    size_t n = ehd_format_datetime(t, seconds);
    ehd_buf_putc_fast(b, '"');
    ehd_buf_append_fast(b, t, n);
    ehd_buf_putc_fast(b, '"');
}

static void put_errno(ehd_buf *b, int32_t v)
{
    const char *name = ehd_errno_name(v);
    ehd_buf_putc_fast(b, '"');
    ehd_buf_puts_fast(b, name ? name : "ERRNO");
    ehd_buf_putc_fast(b, '(');
    ehd_buf_i64(b, v);
    ehd_buf_append_fast(b, ")\"", 2);
}

/* Finite values unquoted, nan/inf quoted (§4.4). */
static void put_float_text(ehd_buf *b, const char *t, size_t n, int finite)
{
    if (!finite)
        ehd_buf_putc_fast(b, '"');
    ehd_buf_append_fast(b, t, n);
    if (!finite)
        ehd_buf_putc_fast(b, '"');
}

static void put_float32(ehd_buf *b, uint32_t bits)
{
    float f;
    char t[40];
    memcpy(&f, &bits, 4);
    size_t n = ehd_format_float32(t, f);
    put_float_text(b, t, n, (bits & 0x7F800000u) != 0x7F800000u);
}

static void put_float64(ehd_buf *b, uint64_t bits)
{
    double d;
    char t[40];
    memcpy(&d, &bits, 8);
    size_t n = ehd_format_float64(t, d);
    put_float_text(b, t, n, (bits & 0x7FF0000000000000ull) != 0x7FF0000000000000ull);
}

static void put_uuid(ehd_buf *b, const uint8_t *p)
{
    ehd_json_uuid(b, p);
}

static void put_ipv4_body(ehd_buf *b, const uint8_t *p)
{
    for (unsigned i = 0; i < 4; i++) {
        if (i)
            ehd_buf_putc_fast(b, '.');
        ehd_buf_u64(b, p[i]);
    }
}

/*
 * IPv6 text as glibc's inet_ntop(AF_INET6) prints it (written here so the
 * output does not depend on the platform's C library): lowercase hex groups
 * without leading zeros; the first longest run of two or more zero groups
 * becomes "::"; "::a.b.c.d" / "::ffff:a.b.c.d" when the first six groups
 * are zero, or the first five zero and the sixth ffff.
 */
static void put_ipv6(ehd_buf *b, const uint8_t *p)
{
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = eh_read_u16(p + 2 * i, 1);
    int best = -1, best_len = 0, cur = -1, cur_len = 0;
    for (int i = 0; i <= 8; i++) {
        if (i < 8 && w[i] == 0) {
            if (cur < 0) {
                cur = i;
                cur_len = 0;
            }
            cur_len++;
        } else if (cur >= 0) {
            if (cur_len > best_len) {
                best = cur;
                best_len = cur_len;
            }
            cur = -1;
        }
    }
    if (best_len < 2)
        best = -1;
    ehd_buf_putc_fast(b, '"');
    for (int i = 0; i < 8; i++) {
        if (best >= 0 && i >= best && i < best + best_len) {
            if (i == best)
                ehd_buf_putc_fast(b, ':');
            continue;
        }
        if (i != 0)
            ehd_buf_putc_fast(b, ':');
        if (i == 6 && best == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff))) {
            put_ipv4_body(b, p + 12);
            ehd_buf_putc_fast(b, '"');
            return;
        }
        ehd_buf_hex(b, w[i], 0);
    }
    if (best >= 0 && best + best_len == 8)
        ehd_buf_putc_fast(b, ':');
    ehd_buf_putc_fast(b, '"');
}

static void put_char_codepoint(ehd_buf *b, uint32_t cp)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_codepoint(b, cp);
    ehd_buf_putc_fast(b, '"');
}

/* value8/16/32/64/128 of exactly 1/2/4/8/16 bytes (§4.2, which formats each
 * width honours; anything else falls back to the width's default). */
static void render_fixed(ehd_buf *b, size_t size, unsigned fmt, const uint8_t *p, int be)
{
    switch (size) {
    case 1: {
        uint8_t v = p[0];
        switch (fmt) {
        case EH_FMT_SIGNED_INT: put_i64(b, (int8_t)v); return;
        case EH_FMT_HEX_INT: put_hex(b, v); return;
        case EH_FMT_BOOLEAN: put_boolean(b, v); return;
        case EH_FMT_HEX_BYTES: put_hex_bytes(b, p, 1); return;
        case EH_FMT_STRING8: put_char_codepoint(b, v); return;
        default: put_u64(b, v); return;
        }
    }
    case 2: {
        uint16_t v = eh_read_u16(p, be);
        switch (fmt) {
        case EH_FMT_SIGNED_INT: put_i64(b, (int16_t)v); return;
        case EH_FMT_HEX_INT: put_hex(b, v); return;
        case EH_FMT_BOOLEAN: put_boolean(b, v); return;
        case EH_FMT_HEX_BYTES: put_hex_bytes(b, p, 2); return;
        case EH_FMT_STRING_UTF: put_char_codepoint(b, v); return;
        case EH_FMT_PORT: put_u64(b, eh_read_u16(p, 1)); return; /* network order */
        default: put_u64(b, v); return;
        }
    }
    case 4: {
        uint32_t v = eh_read_u32(p, be);
        switch (fmt) {
        case EH_FMT_SIGNED_INT:
        case EH_FMT_PID: put_i64(b, (int32_t)v); return;
        case EH_FMT_HEX_INT: put_hex(b, v); return;
        case EH_FMT_ERRNO: put_errno(b, (int32_t)v); return;
        case EH_FMT_TIME: put_time(b, (int32_t)v); return;
        case EH_FMT_BOOLEAN: put_boolean(b, v); return;
        case EH_FMT_FLOAT: put_float32(b, v); return;
        case EH_FMT_HEX_BYTES: put_hex_bytes(b, p, 4); return;
        case EH_FMT_STRING_UTF: put_char_codepoint(b, v); return;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE:
            ehd_buf_putc_fast(b, '"');
            put_ipv4_body(b, p);
            ehd_buf_putc_fast(b, '"');
            return;
        default: put_u64(b, v); return;
        }
    }
    case 8: {
        uint64_t v = eh_read_u64(p, be);
        switch (fmt) {
        case EH_FMT_SIGNED_INT: put_i64(b, (int64_t)v); return;
        case EH_FMT_HEX_INT: put_hex(b, v); return;
        case EH_FMT_TIME: put_time(b, (int64_t)v); return;
        case EH_FMT_FLOAT: put_float64(b, v); return;
        case EH_FMT_HEX_BYTES: put_hex_bytes(b, p, 8); return;
        default: put_u64(b, v); return; /* includes pid: unsupported on 64-bit */
        }
    }
    default: /* 16 */
        switch (fmt) {
        case EH_FMT_UUID: put_uuid(b, p); return;
        case EH_FMT_IP_ADDRESS:
        case EH_FMT_IP_ADDRESS_OBSOLETE: put_ipv6(b, p); return;
        default: put_hex_bytes(b, p, 16); return;
        }
    }
}

/*
 * §4.12: a "fixed" format on string_length16_char8 / binary_length16_char8.
 * Returns 1 if fmt is one of them, with *ok telling whether size fits.
 */
static int fixed_format_size(unsigned fmt, size_t size, int *ok)
{
    switch (fmt) {
    case EH_FMT_UNSIGNED_INT:
    case EH_FMT_SIGNED_INT:
    case EH_FMT_HEX_INT: *ok = size == 1 || size == 2 || size == 4 || size == 8; return 1;
    case EH_FMT_ERRNO:
    case EH_FMT_PID: *ok = size == 4; return 1;
    case EH_FMT_TIME:
    case EH_FMT_FLOAT: *ok = size == 4 || size == 8; return 1;
    case EH_FMT_BOOLEAN: *ok = size == 1 || size == 2 || size == 4; return 1;
    case EH_FMT_UUID: *ok = size == 16; return 1;
    case EH_FMT_PORT: *ok = size == 2; return 1;
    case EH_FMT_IP_ADDRESS:
    case EH_FMT_IP_ADDRESS_OBSOLETE: *ok = size == 4 || size == 16; return 1;
    default: *ok = 0; return 0;
    }
}

static void put_string_utf8(ehd_buf *b, const uint8_t *p, size_t n)
{
    ehd_json_string_utf8(b, p, n);
}

static void put_string_bom(ehd_buf *b, const uint8_t *p, size_t n, unsigned unit, int be)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_bom_body(b, p, n, unit, be);
    ehd_buf_putc_fast(b, '"');
}

static int is_bom_format(unsigned fmt)
{
    return fmt == EH_FMT_STRING_UTF_BOM || fmt == EH_FMT_STRING_XML || fmt == EH_FMT_STRING_JSON;
}

/* A counted string or binary field with a fixed (non-string) format: null when empty,
 * the value when its size fits the format (ok), else its bytes as the encoding's
 * usual text (hex: binary, else UTF-8). */
static void put_fixed_format(ehd_buf *b, size_t size, unsigned format, const uint8_t *p, int be,
                             int ok, int hex)
{
    if (size == 0)
        ehd_buf_puts_fast(b, "null");
    else if (ok)
        render_fixed(b, size, format, p, be);
    else if (hex)
        put_hex_bytes(b, p, size);
    else
        put_string_utf8(b, p, size);
}

int ehd_render_value(ehd_buf *b, unsigned encoding, unsigned format, const uint8_t *p, size_t size,
                     int be, const char **reason)
{
    int ok;
    switch (encoding) {
    case EH_ENC_VALUE8:
    case EH_ENC_VALUE16:
    case EH_ENC_VALUE32:
    case EH_ENC_VALUE64:
    case EH_ENC_VALUE128:
        if (size != eh_enc_value_size(encoding)) {
            *reason = "value size does not match its encoding";
            return EINVAL;
        }
        render_fixed(b, size, format, p, be);
        return 0;

    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR8:
        if (encoding == EH_ENC_STRING_LENGTH16_CHAR8 && fixed_format_size(format, size, &ok)) {
            put_fixed_format(b, size, format, p, be, ok, 0);
            return 0;
        }
        if (format == EH_FMT_HEX_BYTES)
            put_hex_bytes(b, p, size);
        else if (format == EH_FMT_STRING8)
            ehd_json_string_latin1(b, p, size);
        else if (is_bom_format(format))
            put_string_bom(b, p, size, 1, be);
        else
            put_string_utf8(b, p, size);
        return 0;

    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_ZSTRING_CHAR32:
    case EH_ENC_STRING_LENGTH16_CHAR32: {
        unsigned unit =
            (encoding == EH_ENC_ZSTRING_CHAR16 || encoding == EH_ENC_STRING_LENGTH16_CHAR16) ? 2
                                                                                             : 4;
        if (size % unit) {
            *reason = "string data is not a whole number of code units";
            return EINVAL;
        }
        if (format == EH_FMT_HEX_BYTES)
            put_hex_bytes(b, p, size);
        else if (is_bom_format(format))
            put_string_bom(b, p, size, unit, be);
        else if (unit == 2)
            ehd_json_string_utf16(b, p, size, be);
        else
            ehd_json_string_utf32(b, p, size, be);
        return 0;
    }

    case EH_ENC_BINARY_LENGTH16_CHAR8:
        if (fixed_format_size(format, size, &ok)) {
            put_fixed_format(b, size, format, p, be, ok, 1);
            return 0;
        }
        if (format == EH_FMT_STRING8)
            ehd_json_string_latin1(b, p, size);
        else if (format == EH_FMT_STRING_UTF)
            put_string_utf8(b, p, size);
        else if (is_bom_format(format))
            put_string_bom(b, p, size, 1, be);
        else
            put_hex_bytes(b, p, size);
        return 0;

    default: *reason = "unsupported field encoding"; return ENOTSUP;
    }
}
