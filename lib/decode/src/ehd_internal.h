/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers shared by the libehdecode source files (not installed API).
 * "Body" functions append escaped JSON string content without the quotes, so
 * callers can build one string from several pieces (e.g. a name plus ";tag=").
 */
#ifndef EHD_INTERNAL_H
#define EHD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ehd.h"
#include "eventheader_read.h" /* eh_read_u16/32/64: the byte-order-explicit loads */

/* json.c */
void ehd_json_codepoint(ehd_buf *b, uint32_t cp); /* invalid code points -> U+FFFD */
void ehd_json_utf8_body(ehd_buf *b, const uint8_t *s, size_t n);
void ehd_json_latin1_body(ehd_buf *b, const uint8_t *s, size_t n);
void ehd_json_utf16_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian);
void ehd_json_utf32_body(ehd_buf *b, const uint8_t *s, size_t n, int big_endian);
/* BOM sniffing (Documentation/decoder-json.md §4.8); without a BOM the bytes are
 * read as UTF-<unit_bits> (8, 16 or 32) in the event's byte order. */
void ehd_json_bom_body(ehd_buf *b, const uint8_t *s, size_t n, unsigned unit_bytes, int big_endian);
/* Lowercase hex bytes separated by single spaces, no quotes. */
void ehd_hex_bytes_body(ehd_buf *b, const uint8_t *s, size_t n);

/* The separators of §1, inline because every member of every event writes two
 * or three of them. space: EHD_JSON_SPACE is set; first: nothing was written in this
 * container yet. The _put_ forms write at a cursor (ehd_buf_room with room for 2
 * bytes) and return the end; the others append to b. They are defined below the
 * ehd_buf fast paths. */
/* json.c: the error object every reader prints for what it cannot decode,
 * { "n": name, "error": reason, "fileOffset": N } (Documentation/decoder-json.md §2.2). */
void ehd_error_json(ehd_buf *b, const char *name, size_t name_len, const char *reason,
                    uint64_t file_offset, unsigned flags);
/* json.c: "b3864c38-4273-58c5-545b-8b3608343471" of a GUID in Windows memory layout
 * (Data1-3 little-endian), as the .tlcap and .etl readers name providers. */
void ehd_win_guid_text(const uint8_t g[16], char t[37]);
/* json.c: an RFC 4122 uuid as a JSON string, "00112233-4455-6677-8899-aabbccddeeff". */
void ehd_json_uuid(ehd_buf *b, const uint8_t g[16]);

/* buf_num.c: decimal ("%" PRIu64, "%" PRId64) and hex without prefix
 * ("%" PRIX64 when upper, else "%" PRIx64) appended without printf. */
void ehd_buf_u64(ehd_buf *b, uint64_t v);
void ehd_buf_i64(ehd_buf *b, int64_t v);
void ehd_buf_hex(ehd_buf *b, uint64_t v, int upper);

/* Inline fast paths of ehd_buf_append / ehd_buf_putc / ehd_buf_puts for the
 * decoder's inner loops: when the bytes (plus the NUL) fit in the current
 * capacity they are stored directly, otherwise the out-of-line function
 * grows the buffer (and handles out-of-memory). A sticky oom implies the
 * data is never written past cap, so skipping the oom check here is safe:
 * ehd_buf_reset clears oom, and a failed grow leaves len unchanged. */
static inline void ehd_buf_append_fast(ehd_buf *b, const void *p, size_t n)
{
    if (!b->oom && n < b->cap - b->len) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;
        return;
    }
    ehd_buf_append(b, p, n);
}
static inline void ehd_buf_putc_fast(ehd_buf *b, char c)
{
    if (!b->oom && b->cap - b->len > 1) {
        b->data[b->len++] = c;
        b->data[b->len] = 0;
        return;
    }
    ehd_buf_putc(b, c);
}
static inline void ehd_buf_puts_fast(ehd_buf *b, const char *s)
{
    ehd_buf_append_fast(b, s, strlen(s));
}

/* Direct writing for runs of small pieces: ehd_buf_room returns where up to
 * n bytes may be written (room for the NUL too), or NULL when out of memory;
 * ehd_buf_commit ends the run at end and restores the NUL. Writing through a
 * local cursor avoids re-reading b->len/b->data after every byte (char
 * stores may alias them). */
int ehd_buf_grow(ehd_buf *b, size_t n); /* buf.c: 1, or 0 with b->oom set */
static inline char *ehd_buf_room(ehd_buf *b, size_t n)
{
    if (!b->oom && n < b->cap - b->len)
        return b->data + b->len;
    return ehd_buf_grow(b, n) ? b->data + b->len : NULL;
}
static inline void ehd_buf_commit(ehd_buf *b, char *end)
{
    b->len = (size_t)(end - b->data);
    *end = 0;
}
/* Compact: "," between members, nothing else. Spaced (EHD_JSON_SPACE): ", " between
 * members, a space after the opening bracket too, ": " after a key and " " before the
 * closing bracket. Every JSON writer of the decoder (EventHeader, TraceLogging, perf
 * sample fields) goes through these, so the kinds of event cannot drift apart. */
static inline char *ehd_json_put_sep(char *o, int space, int first)
{
    if (!first)
        *o++ = ',';
    if (space)
        *o++ = ' ';
    return o;
}

static inline char *ehd_json_put_colon(char *o, int space)
{
    *o++ = ':';
    if (space)
        *o++ = ' ';
    return o;
}

static inline char *ehd_json_put_close(char *o, int space, char closer)
{
    if (space)
        *o++ = ' ';
    *o++ = closer;
    return o;
}

static inline void ehd_json_sep(ehd_buf *b, int space, int first)
{
    char *o = ehd_buf_room(b, 2);
    if (o)
        ehd_buf_commit(b, ehd_json_put_sep(o, space, first));
}

static inline void ehd_json_colon(ehd_buf *b, int space)
{
    char *o = ehd_buf_room(b, 2);
    if (o)
        ehd_buf_commit(b, ehd_json_put_colon(o, space));
}

static inline void ehd_json_close(ehd_buf *b, int space, char closer)
{
    char *o = ehd_buf_room(b, 2);
    if (o)
        ehd_buf_commit(b, ehd_json_put_close(o, space, closer));
}

/* Writes the decimal text of v at o; returns the end. */
char *ehd_put_u64(char *o, uint64_t v); /* buf_num.c */

/* ehd_errno.c: "EPERM" for 1 .. "EHWPOISON" for 133; NULL when the table has no name. */
const char *ehd_errno_name(int32_t value);

/* The structs still open while a metadata's pre-order field list is read (the
 * EventHeader and the TraceLogging parsers): every field counts against the innermost
 * open struct, a struct field opens with its member count, and a struct closes when its
 * members are all read, or when the metadata ends (a struct may end early). */
struct ehd_open_struct {
    uint32_t node, remaining;
};
struct ehd_struct_stack {
    struct ehd_open_struct *open; /* cap entries */
    uint32_t depth, cap;
};

/* Counts field idx against the innermost open struct and opens it when it is a struct
 * (members > 0). Returns 0, or -1 when cap structs are open already. */
static inline int ehd_struct_push(struct ehd_struct_stack *s, uint32_t idx, uint32_t members)
{
    if (s->depth > 0)
        s->open[s->depth - 1].remaining--;
    if (members == 0)
        return 0;
    if (s->depth == s->cap)
        return -1;
    s->open[s->depth].node = idx;
    s->open[s->depth].remaining = members;
    s->depth++;
    return 0;
}

/* Pops the innermost struct if it is complete, or any (all: the metadata has ended),
 * returning its field index; -1 when there is none. The caller sets its end. */
static inline int64_t ehd_struct_pop(struct ehd_struct_stack *s, int all)
{
    if (s->depth == 0 || (!all && s->open[s->depth - 1].remaining != 0))
        return -1;
    return s->open[--s->depth].node;
}

/* values.c: renders one value (JSON text, quoted where §4 says so).
 * data/size are the value's bytes (for strings: the code units without the
 * length prefix or terminator). Returns 0, or an errno with *reason set. */
int ehd_render_value(ehd_buf *b, unsigned encoding, unsigned format, const uint8_t *data,
                     size_t size, int big_endian, const char **reason);

#endif /* EHD_INTERNAL_H */
