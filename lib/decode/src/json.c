/* SPDX-License-Identifier: MIT */
/*
 * JSON string output: escaping (Documentation/decoder-json.md §4.1), UTF-8 validation
 * with the Latin-1 fallback, Latin-1, UTF-16 and UTF-32 transcoding and BOM
 * sniffing (§4.8).
 *
 * Deliberate difference from the reference decoder (pinned, see the comment at
 * the top of eventheader_json.c): a code point that UTF-8 cannot carry (a
 * UTF-16 surrogate, or a value above U+10FFFF) is written as U+FFFD, so the
 * output is always valid UTF-8. This covers lone UTF-16 surrogates, UCS-4
 * values, and 3-byte surrogate encodings (ED A0..BF xx) found in UTF-8 input,
 * which the reference copies through as invalid UTF-8.
 */
#include <string.h>

#include "ehd_internal.h"

static const char hexdig_lower[] = "0123456789abcdef";

/* One ASCII byte, escaped as §4.1 says: '/' and 0x7F stay raw. */
static void put_ascii(ehd_buf *b, uint8_t c)
{
    char esc[7];
    switch (c) {
    case '"': ehd_buf_append_fast(b, "\\\"", 2); return;
    case '\\': ehd_buf_append_fast(b, "\\\\", 2); return;
    case '\b': ehd_buf_append_fast(b, "\\b", 2); return;
    case '\f': ehd_buf_append_fast(b, "\\f", 2); return;
    case '\n': ehd_buf_append_fast(b, "\\n", 2); return;
    case '\r': ehd_buf_append_fast(b, "\\r", 2); return;
    case '\t': ehd_buf_append_fast(b, "\\t", 2); return;
    default: break;
    }
    if (c < 0x20) {
        esc[0] = '\\';
        esc[1] = 'u';
        esc[2] = '0';
        esc[3] = '0';
        esc[4] = hexdig_lower[c >> 4];
        esc[5] = hexdig_lower[c & 15];
        ehd_buf_append_fast(b, esc, 6);
        return;
    }
    ehd_buf_putc_fast(b, (char)c);
}

static int ascii_needs_escape(uint8_t c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

void ehd_json_codepoint(ehd_buf *b, uint32_t cp)
{
    uint8_t u[4];
    if (cp < 0x80) {
        put_ascii(b, (uint8_t)cp);
        return;
    }
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        cp = 0xFFFD;
    if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | cp >> 6);
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        ehd_buf_append_fast(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | cp >> 12);
        u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        ehd_buf_append_fast(b, u, 3);
    } else {
        u[0] = (uint8_t)(0xF0 | cp >> 18);
        u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        ehd_buf_append_fast(b, u, 4);
    }
}

static int is_cont(uint8_t c)
{
    return (c & 0xC0) == 0x80;
}

/*
 * Length of the well-formed UTF-8 sequence at s (1..4), or 0 if the byte at s
 * does not start one. *surrogate is set for ED A0..BF xx (a surrogate code
 * point in 3-byte form: well-formed for the reference, replaced here).
 */
static size_t utf8_seq_len(const uint8_t *s, size_t n, int *surrogate)
{
    uint8_t c = s[0];
    *surrogate = 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && is_cont(s[1]) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || !is_cont(s[1]) || !is_cont(s[2]))
            return 0;
        if (c == 0xE0 && s[1] < 0xA0)
            return 0; /* overlong */
        if (c == 0xED && s[1] >= 0xA0)
            *surrogate = 1;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || !is_cont(s[1]) || !is_cont(s[2]) || !is_cont(s[3]))
            return 0;
        if (c == 0xF0 && s[1] < 0x90)
            return 0; /* overlong */
        if (c == 0xF4 && s[1] >= 0x90)
            return 0; /* above U+10FFFF */
        return 4;
    }
    return 0; /* stray continuation byte, C0/C1, F5..FF */
}

/* Whether 8 bytes are all printable ASCII other than '"' and '\\' (copied as
 * they are), tested a word at a time: strings are mostly such runs. */
static int plain_ascii8(const uint8_t *p)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t quote = v ^ (ones * '"'), backslash = v ^ (ones * '\\');
    uint64_t control = (v - ones * 0x20) & ~v; /* a byte below 0x20 */
    uint64_t special = ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash);
    return ((control | special | v) & highs) == 0;
}

void ehd_json_utf8_body(ehd_buf *b, const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* Copy a run of bytes that need no attention in one append. */
        size_t run = i;
        while (n - run >= 8 && plain_ascii8(s + run))
            run += 8;
        while (run < n && s[run] < 0x80 && !ascii_needs_escape(s[run]))
            run++;
        if (run > i) {
            ehd_buf_append_fast(b, s + i, run - i);
            i = run;
            continue;
        }
        if (s[i] < 0x80) {
            put_ascii(b, s[i]);
            i++;
            continue;
        }
        int surrogate;
        size_t len = utf8_seq_len(s + i, n - i, &surrogate);
        if (len == 0) {
            ehd_json_codepoint(b, s[i]); /* Latin-1 fallback for this one byte */
            i++;
        } else if (surrogate) {
            ehd_json_codepoint(b, 0xFFFD);
            i += len;
        } else {
            ehd_buf_append_fast(b, s + i, len);
            i += len;
        }
    }
}

void ehd_json_latin1_body(ehd_buf *b, const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ehd_json_codepoint(b, s[i]);
}

void ehd_json_utf16_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian)
{
    size_t i = 0;
    while (i + 2 <= n) {
        uint32_t u = eh_read_u16(s + i, big_endian);
        i += 2;
        if (u >= 0xD800 && u <= 0xDBFF && i + 2 <= n) {
            uint32_t lo = eh_read_u16(s + i, big_endian);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                i += 2;
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
        }
        ehd_json_codepoint(b, u); /* a lone surrogate becomes U+FFFD */
    }
    if (i < n)
        ehd_json_codepoint(b, 0xFFFD); /* odd trailing byte */
}

void ehd_json_utf32_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        ehd_json_codepoint(b, eh_read_u32(s + i, big_endian));
    if (i < n)
        ehd_json_codepoint(b, 0xFFFD); /* partial trailing unit */
}

void ehd_json_bom_body(ehd_buf *b, const uint8_t *s, size_t n, unsigned unit_bytes, int big_endian)
{
    /* The sniffing looks at the raw bytes whatever the unit size (§4.8). A
     * BOM says the byte order of what follows, independent of the event's. */
    if (n >= 4 && s[0] == 0xFF && s[1] == 0xFE && s[2] == 0 && s[3] == 0) {
        ehd_json_utf32_body(b, s + 4, n - 4, 0);
    } else if (n >= 4 && s[0] == 0 && s[1] == 0 && s[2] == 0xFE && s[3] == 0xFF) {
        ehd_json_utf32_body(b, s + 4, n - 4, 1);
    } else if (n >= 2 && s[0] == 0xFF && s[1] == 0xFE) {
        ehd_json_utf16_body(b, s + 2, n - 2, 0);
    } else if (n >= 2 && s[0] == 0xFE && s[1] == 0xFF) {
        ehd_json_utf16_body(b, s + 2, n - 2, 1);
    } else if (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) {
        ehd_json_utf8_body(b, s + 3, n - 3);
    } else if (unit_bytes == 2) {
        ehd_json_utf16_body(b, s, n, big_endian);
    } else if (unit_bytes == 4) {
        ehd_json_utf32_body(b, s, n, big_endian);
    } else {
        ehd_json_utf8_body(b, s, n);
    }
}

void ehd_hex_bytes_body(ehd_buf *b, const uint8_t *s, size_t n)
{
    if (n == 0)
        return;
    char *o = ehd_buf_room(b, 3 * n);
    if (!o)
        return;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = ' ';
        *o++ = hexdig_lower[s[i] >> 4];
        *o++ = hexdig_lower[s[i] & 15];
    }
    ehd_buf_commit(b, o);
}

void ehd_json_string_utf8(ehd_buf *b, const void *s, size_t n)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_utf8_body(b, s, n);
    ehd_buf_putc_fast(b, '"');
}

void ehd_json_string_latin1(ehd_buf *b, const void *s, size_t n)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_latin1_body(b, s, n);
    ehd_buf_putc_fast(b, '"');
}

void ehd_json_string_utf16(ehd_buf *b, const void *s, size_t n, int big_endian)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_utf16_body(b, s, n, big_endian);
    ehd_buf_putc_fast(b, '"');
}

void ehd_json_string_utf32(ehd_buf *b, const void *s, size_t n, int big_endian)
{
    ehd_buf_putc_fast(b, '"');
    ehd_json_utf32_body(b, s, n, big_endian);
    ehd_buf_putc_fast(b, '"');
}

/* ---- the error object (Documentation/decoder-json.md §2.2) ---------------- */

void ehd_error_json(ehd_buf *b, const char *name, size_t name_len, const char *reason,
                    uint64_t file_offset, unsigned flags)
{
    int space = (flags & EHD_JSON_SPACE) != 0;

    ehd_buf_putc(b, '{');
    ehd_json_sep(b, space, 1);
    ehd_json_string_utf8(b, "n", 1);
    ehd_json_colon(b, space);
    ehd_json_string_utf8(b, name, name_len);
    ehd_json_sep(b, space, 0);
    ehd_json_string_utf8(b, "error", 5);
    ehd_json_colon(b, space);
    ehd_json_string_utf8(b, reason, strlen(reason));
    ehd_json_sep(b, space, 0);
    ehd_json_string_utf8(b, "fileOffset", 10);
    ehd_json_colon(b, space);
    ehd_buf_u64(b, file_offset);
    ehd_json_close(b, space, '}');
}

/* The 36 characters of a GUID whose byte i is printed from g[order[i]]. */
static void guid_chars(const uint8_t g[16], const uint8_t order[16], char *o)
{
    static const char hex[] = "0123456789abcdef";

    for (unsigned i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        *o++ = hex[g[order[i]] >> 4];
        *o++ = hex[g[order[i]] & 15];
    }
}

void ehd_win_guid_text(const uint8_t g[16], char t[37])
{
    /* Data1-3 are little-endian in a Windows GUID's memory layout. */
    static const uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};

    guid_chars(g, order, t);
    t[36] = 0;
}

void ehd_json_uuid(ehd_buf *b, const uint8_t g[16])
{
    /* EventHeader's uuid is RFC 4122: the bytes in order (Documentation/decoder-json.md §4). */
    static const uint8_t order[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    char *o = ehd_buf_room(b, 38);

    if (!o)
        return;
    *o++ = '"';
    guid_chars(g, order, o);
    o[36] = '"';
    ehd_buf_commit(b, o + 37);
}
