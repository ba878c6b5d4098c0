/* SPDX-License-Identifier: MIT */
/*
 * Internal to the EventHeader decoder: the parsed shape of one event, shared
 * by ehd_event_parse.c (tracepoint name, header extensions, metadata -> field
 * tree) and eventheader_json.c (payload walk and JSON output).
 */
#ifndef EHD_EVENT_H
#define EHD_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "ehd_internal.h"

/* ehconf's own safety bounds (documented in eventheader_json.c; E2BIG). */
#define EHD_MAX_DEPTH  1024
#define EHD_MAX_OUTPUT ((size_t)64 << 20)

/* One field definition from the metadata, in pre-order. */
struct ehd_node {
    const uint8_t *name;
    uint32_t name_len;
    uint32_t end; /* index just past this node's subtree (struct members) */
    uint16_t tag;
    uint16_t carray_count;
    uint8_t enc;   /* low 5 bits */
    uint8_t array; /* 0, EH_ENC_CARRAY_FLAG or EH_ENC_VARRAY_FLAG */
    uint8_t fmt;   /* low 7 bits; for a struct: the member count */
};

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

/* "<provider>_L<level>K<keyword><options>" with the header's level. */
int ehd_parse_tp_name(struct ehd_ctx *c, const char *name, size_t n, unsigned level,
                      size_t *provider_len, uint64_t *keyword);
/* The extension chain after the 8-byte header; metadata is required. */
int ehd_parse_extensions(struct ehd_ctx *c, struct ehd_event_parts *ev);
/* Field definitions after the event name -> c->nodes (pre-order tree). */
int ehd_parse_fields(struct ehd_ctx *c, const struct ehd_event_parts *ev, size_t fields_start);

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
