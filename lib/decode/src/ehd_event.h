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
    size_t pos; /* payload cursor */
    int be;     /* the event's fields are big-endian */
    struct ehd_node *nodes;
    uint32_t n_nodes;
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

#endif /* EHD_EVENT_H */
