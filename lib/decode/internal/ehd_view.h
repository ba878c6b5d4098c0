/* SPDX-License-Identifier: MIT */
/*
 * One EventHeader event taken apart, for ehconf's own tools that need its pieces
 * rather than its JSON (tools/ehdescribe.c writes a case description from them). It
 * is the decoder's own parse (ehd_event_parse.c: tracepoint name, extensions, field
 * definitions) and its own value cutter (the one ehd_eventheader_json renders), so
 * the tools read an event exactly as the decoder does and report the same errors.
 * Not installed.
 */
#ifndef EHD_VIEW_H
#define EHD_VIEW_H

#include <stddef.h>
#include <stdint.h>

/* One field definition from the metadata, in pre-order (a struct's members follow
 * it, up to index end). */
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

struct ehd_view {
    /* the tracepoint name "<provider>_L<level>K<keyword>[G<group>]" */
    const char *provider;
    size_t provider_len;
    const char *group; /* NULL without a G option */
    size_t group_len;
    uint64_t keyword;
    /* the header */
    uint8_t version, opcode, level;
    uint16_t id, tag;
    int big_endian;
    /* the extensions */
    const uint8_t *name; /* event name, with any ";attr=value" */
    size_t name_len;
    const uint8_t *activity; /* NULL, or activity_size (16 or 32) bytes */
    size_t activity_size;
    const struct ehd_node *fields;
    uint32_t n_fields;
    /* the bytes: the payload starts at offset payload */
    const uint8_t *data;
    size_t size, payload;
    struct ehd_node *owned_; /* private */
};

/* Takes apart an event (data/size: the bytes after the write index) written to
 * tracepoint tp_name. Returns 0, or an errno value with *reason (thread-local text, as
 * ehd_eventheader_json) and *err_offset set. Pointers point into tp_name and data. */
int ehd_view_open(struct ehd_view *v, const char *tp_name, size_t tp_name_len, const uint8_t *data,
                  size_t size, const char **reason, size_t *err_offset);
void ehd_view_close(struct ehd_view *v);

/* The element count of array field f: a constant array's from the metadata, a variable
 * one's u16 read at *pos (which moves past it). 0 or an errno, as above. */
int ehd_view_count(const struct ehd_view *v, const struct ehd_node *f, size_t *pos, uint32_t *count,
                   const char **reason, size_t *err_offset);

/* Cuts one value of field f (not a struct) at *pos: *value and *size are its bytes (a
 * string's code units without length or terminator) and *pos moves past it. */
int ehd_view_value(const struct ehd_view *v, const struct ehd_node *f, size_t *pos,
                   const uint8_t **value, size_t *size, const char **reason, size_t *err_offset);

#endif /* EHD_VIEW_H */
