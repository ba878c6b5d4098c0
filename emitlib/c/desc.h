/* SPDX-License-Identifier: MIT */
/*
 * A case description (Documentation/case-descriptions.md) parsed into data: the steps,
 * providers, events and fields of one descriptions/<case>.events file. The parser knows
 * the format only (eventheader_wire.h's numbers, the field types of
 * descriptions/types.txt); running the steps is the emitter's job (emit.c).
 */
#ifndef DESC_H
#define DESC_H

#include <stddef.h>
#include <stdint.h>

enum desc_field_kind {
    DESC_VALUE,        /* one value of a value encoding */
    DESC_STRING,       /* a string or binary encoding */
    DESC_VARRAY,       /* _slice: count values, the count written before them */
    DESC_CARRAY,       /* _array: count values, the count in the metadata */
    DESC_STRUCT,       /* members */
    DESC_STRUCT_SLICE, /* members[i] (DESC_STRUCT) is element i; count 0: members[0] is the
                          element's shape only */
};

struct desc_field {
    enum desc_field_kind kind;
    unsigned line;
    const char *name;
    uint8_t encoding; /* low 5 bits, no flags */
    uint8_t format;   /* low 7 bits */
    uint16_t tag;
    uint32_t unit;       /* bytes per value or code unit */
    const uint8_t *data; /* values: every element; strings: the code units */
    size_t size;         /* bytes at data */
    uint32_t count;      /* arrays: values; struct_slice: elements */
    struct desc_field *members;
    uint32_t n_members;
};

struct desc_provider {
    const char *name;
    const char *group; /* NULL: no group option */
    void *user;        /* the emitter's own object */
};

struct desc_event {
    unsigned ordinal; /* 1 for the first `event` of the file, in file order */
    unsigned line;
    struct desc_provider *provider;
    const char *name;
    uint64_t keyword;
    uint16_t tag, id;
    uint8_t level, opcode, version;
    uint8_t has_activity, has_related;
    uint8_t activity[16], related[16];
    struct desc_field *fields;
    uint32_t n_fields;
};

enum desc_step_kind {
    DESC_STEP_EVENT,
    DESC_STEP_REGISTER,
    DESC_STEP_UNREGISTER,
    DESC_STEP_THREADS, /* blocks[i]: thread i */
    DESC_STEP_FORK,    /* blocks[0]: the child, blocks[1]: the parent meanwhile */
};

struct desc_block;

struct desc_step {
    enum desc_step_kind kind;
    unsigned line;
    struct desc_provider *provider; /* register, unregister */
    struct desc_event *event;
    struct desc_block *blocks;
    uint32_t n_blocks;
};

struct desc_block {
    struct desc_step *steps;
    uint32_t n_steps;
};

struct desc_chunk; /* the parser's memory */

struct desc {
    const char *path;
    const char *case_name;
    struct desc_provider **providers;
    uint32_t n_providers;
    struct desc_block main;
    uint32_t n_events;
    struct desc_chunk *memory_;
};

/* Parses the file at path into *d. Returns 0, or -1 with "path:line: reason" in err
 * (nothing to free then). desc_free releases a parsed description. */
int desc_parse(const char *path, struct desc *d, char *err, size_t err_cap);
void desc_free(struct desc *d);

/* ---- desc_value.c: the tokens of a field line ---- */

/* The arena every parsed piece lives in (freed whole by desc_free). */
void *desc_alloc(struct desc *d, size_t size);

/* Decodes a name token (%XX escapes; "-" is the empty name) into the arena. Returns
 * NULL with *why set for a bad escape or a NUL byte. */
const char *desc_name(struct desc *d, const char *token, const char **why);

/* The token of a name (the inverse of desc_name) into out, cut to cap - 1 bytes: what a
 * message quotes, so a name with a newline keeps the message on one line. Returns out. */
char *desc_name_token(const char *name, char *out, size_t cap);

/* Fills f's kind, encoding, format and unit from a type token (a types.txt name, with
 * _slice / _array on a value type, or raw:<encoding byte>:<format>). 0, or -1 with *why. */
int desc_type(const char *token, struct desc_field *f, const char **why);

/* Fills f's data, size and count from a value token for its kind (hex bytes, "-",
 * elements separated by ','). 0, or -1 with *why (a static text). */
int desc_value(struct desc *d, const char *token, struct desc_field *f, const char **why);

#endif /* DESC_H */
