/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers shared by the libehdecode source files (not installed API).
 * "Body" functions append escaped JSON string content without the quotes, so
 * callers can build one string from several pieces (e.g. a name plus ";tag=").
 */
#ifndef EH_INTERNAL_H
#define EH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ehd.h"

/* json.c */
void eh_json_codepoint(ehd_buf *b, uint32_t cp); /* invalid code points -> U+FFFD */
void eh_json_utf8_body(ehd_buf *b, const uint8_t *s, size_t n);
void eh_json_latin1_body(ehd_buf *b, const uint8_t *s, size_t n);
void eh_json_utf16_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian);
void eh_json_utf32_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian);
/* BOM sniffing (decode-json-format.md §4.8); without a BOM the bytes are
 * read as UTF-<unit_bits> (8, 16 or 32) in the event's byte order. */
void eh_json_bom_body(ehd_buf *b, const uint8_t *s, size_t n, unsigned unit_bytes,
                      int big_endian);
/* Lowercase hex bytes separated by single spaces, no quotes. */
void eh_hex_bytes_body(ehd_buf *b, const uint8_t *s, size_t n);

/* eh_errno.c: "EPERM" for 1 .. "EHWPOISON" for 133; NULL when the table has no name. */
const char *eh_errno_name(int32_t value);

/* Byte-order-explicit loads (the event says which order its fields use). */
static inline uint16_t eh_load16(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}
static inline uint32_t eh_load32(const uint8_t *p, int big_endian)
{
    uint32_t lo = eh_load16(p + (big_endian ? 2 : 0), big_endian);
    uint32_t hi = eh_load16(p + (big_endian ? 0 : 2), big_endian);
    return hi << 16 | lo;
}
static inline uint64_t eh_load64(const uint8_t *p, int big_endian)
{
    uint64_t lo = eh_load32(p + (big_endian ? 4 : 0), big_endian);
    uint64_t hi = eh_load32(p + (big_endian ? 0 : 4), big_endian);
    return hi << 32 | lo;
}

/* values.c: renders one value (JSON text, quoted where §4 says so).
 * data/size are the value's bytes (for strings: the code units without the
 * length prefix or terminator). Returns 0, or an errno with *reason set. */
int eh_render_value(ehd_buf *b, unsigned encoding, unsigned format, const uint8_t *data,
                    size_t size, int big_endian, const char **reason);

#endif /* EH_INTERNAL_H */
