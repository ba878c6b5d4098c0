/* SPDX-License-Identifier: MIT */
/*
 * Internal to the EventHeader decoder: the parsed shape of one event, shared
 * by ehd_event_parse.c (tracepoint name, header extensions, metadata -> field
 * tree) and eventheader_json.c (payload walk and JSON output).
 */
#ifndef EHD_EVENT_H
#define EHD_EVENT_H

#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ehd_internal.h"
#include "ehd_view.h" /* struct ehd_node */

/* ehconf's own safety bounds (documented in eventheader_json.c; E2BIG). */
#define EHD_MAX_DEPTH  1024
#define EHD_MAX_OUTPUT ((size_t)64 << 20)

/* One decode call: input, output and the parsed field tree. */
struct ehd_ctx {
    ehd_buf *out;
    size_t out_start;
    unsigned flags;
    const uint8_t *data;
    size_t size;
    size_t pos;             /* payload cursor */
    int be;                 /* the event's fields are big-endian */
    struct ehd_node *nodes; /* written by ehd_parse_fields */
    uint32_t n_nodes;
    /* The tree the payload walk reads: nodes, or a cached layout's. */
    const struct ehd_node *fields;
    const struct ehd_schema *schema; /* the cached layout in use, or NULL */
    /* Caller-provided room for small events, so the common case allocates
     * nothing per event; nodes == small_nodes means "do not free". */
    struct ehd_node *small_nodes;
    uint32_t small_cap;
    const char **reason;
    size_t *err_offset;
};

struct ehd_event_parts {
    const uint8_t *meta; /* metadata extension payload */
    size_t meta_size;
    size_t meta_offset; /* offset of meta within data */
    const uint8_t *activity;
    size_t activity_size;
    size_t payload; /* offset of the first field's data */
};

/* Sets *c->reason (thread-local text) and *c->err_offset, returns err. */
int ehd_fail(struct ehd_ctx *c, int err, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Printable, bounded copy of a field name for messages. */
const char *ehd_field_name(const struct ehd_node *n, char *dst, size_t cap);

/* "<provider>_L<level>K<keyword><options>" with the header's level. *options_start is
 * where the options begin in the name (n when there are none). */
int ehd_parse_tp_name(struct ehd_ctx *c, const char *name, size_t n, unsigned level,
                      size_t *provider_len, uint64_t *keyword, size_t *options_start);
/* The 8-byte header's size and flags; sets c->be from them. */
int ehd_parse_header(struct ehd_ctx *c);
/* The extension chain after the 8-byte header; metadata is required. */
int ehd_parse_extensions(struct ehd_ctx *c, struct ehd_event_parts *ev);
/* Field definitions after the event name -> c->nodes (pre-order tree). */
int ehd_parse_fields(struct ehd_ctx *c, const struct ehd_event_parts *ev, size_t fields_start);

/* "string", "binary" or "value": how messages name a field of encoding enc. */
static inline const char *ehd_enc_kind(unsigned enc)
{
    switch (enc) {
    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_ZSTRING_CHAR32:
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR32: return "string";
    case EH_ENC_BINARY_LENGTH16_CHAR8: return "binary";
    default: return "value";
    }
}

/* Cuts the next value of node nd (not a struct) out of the payload at c->pos: its
 * bytes are [*vstart, *vstart + *vsize) (a string's code units, without length or
 * terminator) and *next is where the following item starts. Inline: the JSON writer
 * calls it for every value, and ehd_view.c for the tools. */
static inline int ehd_cut_value(struct ehd_ctx *c, const struct ehd_node *nd, size_t *vstart,
                                size_t *vsize, size_t *next)
{
    size_t pos = c->pos, left = c->size - pos;
    char fname[80];
    switch (nd->enc) {
    case EH_ENC_VALUE8:
    case EH_ENC_VALUE16:
    case EH_ENC_VALUE32:
    case EH_ENC_VALUE64:
    case EH_ENC_VALUE128:
        *vsize = eh_enc_value_size(nd->enc);
        if (left < *vsize)
            return ehd_fail(c, EBADMSG, pos, "value field '%s' runs past the end of the event",
                            ehd_field_name(nd, fname, sizeof fname));
        *vstart = pos;
        *next = pos + *vsize;
        return 0;
    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_ZSTRING_CHAR32: {
        size_t unit = nd->enc == EH_ENC_ZSTRING_CHAR8    ? 1
                      : nd->enc == EH_ENC_ZSTRING_CHAR16 ? 2
                                                         : 4;
        const uint8_t *p = c->data + pos;
        size_t k = 0;
        int found = 0;
        if (unit == 1) {
            const uint8_t *z = memchr(p, 0, left);
            if (z) {
                k = (size_t)(z - p);
                found = 1;
            }
        } else {
            for (; k + unit <= left; k += unit) {
                if (p[k] == 0 && p[k + 1] == 0 && (unit == 2 || (p[k + 2] == 0 && p[k + 3] == 0))) {
                    found = 1;
                    break;
                }
            }
        }
        if (!found)
            return ehd_fail(c, EBADMSG, pos,
                            "string field '%s' has no terminator before the end of the event",
                            ehd_field_name(nd, fname, sizeof fname));
        *vstart = pos;
        *vsize = k;
        *next = pos + k + unit;
        return 0;
    }
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR32:
    case EH_ENC_BINARY_LENGTH16_CHAR8: {
        size_t unit = nd->enc == EH_ENC_STRING_LENGTH16_CHAR16   ? 2
                      : nd->enc == EH_ENC_STRING_LENGTH16_CHAR32 ? 4
                                                                 : 1;
        if (left < 2)
            return ehd_fail(c, EBADMSG, pos, "%s field '%s' length runs past the end of the event",
                            ehd_enc_kind(nd->enc), ehd_field_name(nd, fname, sizeof fname));
        *vsize = (size_t)eh_read_u16(c->data + pos, c->be) * unit;
        if (left - 2 < *vsize)
            return ehd_fail(c, EBADMSG, pos, "%s field '%s' runs past the end of the event",
                            ehd_enc_kind(nd->enc), ehd_field_name(nd, fname, sizeof fname));
        *vstart = pos + 2;
        *next = *vstart + *vsize;
        return 0;
    }
    default:
        return ehd_fail(c, ENOTSUP, pos, "field '%s' has unsupported encoding %u",
                        ehd_field_name(nd, fname, sizeof fname), nd->enc);
    }
}

/* Everything a parsed layout depends on: the tracepoint name (provider and
 * keyword; its level is checked against the header's), the metadata bytes,
 * the event's byte order (tags and carray counts) and the output flags (the
 * prepared texts). hash covers all of them. */
struct ehd_schema_key {
    const char *tp_name;
    size_t tp_len;
    const uint8_t *meta;
    size_t meta_len;
    unsigned flags;
    uint8_t be, level;
    uint64_t hash;
};

/* One successfully parsed event layout, with its JSON pieces ready to copy:
 * head is '{' "n": "<provider>:<event>" and names + name_off[i] ..
 * name_off[i + 1] is node i's quoted name, tag and colon. */
struct ehd_schema {
    struct ehd_schema_key key;
    size_t provider_len;
    uint64_t keyword;
    size_t options_start; /* the options' index in key.tp_name, key.tp_len without any */
    const char *head;
    size_t head_len;
    const struct ehd_node *nodes;
    uint32_t n_nodes;
    const char *names;
    const uint32_t *name_off; /* n_nodes + 1 offsets into names */
};

/* ehd_schema_cache.c: the calling thread's cache of layouts. */
void ehd_schema_key_init(struct ehd_schema_key *k, const char *tp_name, size_t tp_len,
                         const uint8_t *meta, size_t meta_len, unsigned flags, int be,
                         uint8_t level);
/* The layout stored under k by this thread, or NULL. */
const struct ehd_schema *ehd_schema_find(const struct ehd_schema_key *k);
/* Stores a copy of parsed (its pointers may point into the event); returns the
 * copy, or NULL when it is too large for the cache or memory is short. */
const struct ehd_schema *ehd_schema_store(const struct ehd_schema *parsed);

#endif /* EHD_EVENT_H */
