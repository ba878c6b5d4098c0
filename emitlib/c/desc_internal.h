/* SPDX-License-Identifier: MIT */
/*
 * What the files of libdesc share and its users do not see: the parser's state, its
 * reader of statements (desc_read.c), the arena (desc_arena.c), the tokens (desc_value.c)
 * and the event statement (desc_event.c), which desc_steps.c drives.
 */
#ifndef DESC_INTERNAL_H
#define DESC_INTERNAL_H

#include "desc.h"

#define DESC_MAX_WORDS  16
#define DESC_MAX_DEPTH  1024    /* structs within structs; EventHeader decoders go this deep */
#define DESC_MAX_EVENTS 1000000 /* what a description unrolls to, so a repeat is bounded */

/* The blocks a step list can be in: what may go inside differs. */
enum desc_ctx { CTX_TOP, CTX_THREAD, CTX_CHILD, CTX_PARENT, CTX_REPEAT };

struct desc_parser {
    struct desc *d;
    FILE *f;
    char *buf;
    size_t cap;
    unsigned line;
    char *w[DESC_MAX_WORDS]; /* the words of the statement just read */
    unsigned n;
    struct desc_provider *current;
    unsigned depth;
    unsigned repeat_line; /* the `repeat` the statements are in, 0 outside */
    char *err;
    size_t err_cap;
};

/* "path:line: reason" into the caller's buffer; returns -1. */
__attribute__((format(printf, 3, 4))) int desc_fail(struct desc_parser *p, unsigned line,
                                                    const char *fmt, ...);

/* The next statement's words in p->w: 1, 0 at the end of the file, -1 on an error. */
int desc_next(struct desc_parser *p);

/* The error of a block the file ends in. */
int desc_missing_end(struct desc_parser *p, const char *opener, unsigned open_line);

/* The next statement inside the block `opener` opened at open_line: 1, 0 at its `end`, -1
 * on an error (the file ending in it is one). */
int desc_inner(struct desc_parser *p, const char *opener, unsigned open_line);

/* A number word: decimal, or 0x + hex when hex; at most max. 0, or -1. */
int desc_number(const char *s, int hex, uint64_t max, uint64_t *out);

/* A growing array in the arena: outgrown copies stay there until desc_free, so an error
 * anywhere frees everything at once. */
struct desc_vec {
    void *items;
    uint32_t n, cap;
    size_t size;
};
void *desc_vec_push(struct desc_parser *p, struct desc_vec *v);

/* The arena every parsed piece lives in, zeroed (freed whole by desc_free). */
void *desc_alloc(struct desc *d, size_t size);

/* Decodes a name token (%XX escapes; "-" is the empty name) into the arena. Returns NULL
 * with *why set for a bad escape or a NUL byte. */
const char *desc_name(struct desc *d, const char *token, const char **why);

/* Fills f's kind, encoding, format and unit from a type token (a types.txt name, with
 * _slice / _array on a value type, or raw:<encoding byte>:<format>). 0, or -1 with *why. */
int desc_type(const char *token, struct desc_field *f, const char **why);

/* Fills f's data, size and count from a value token for its kind (hex bytes, "-",
 * elements separated by ','). 0, or -1 with *why (a static text). */
int desc_value(struct desc *d, const char *token, struct desc_field *f, const char **why);

/* `event` and its fields up to its `end` (desc_event.c), the statement in p->w. */
int desc_parse_event(struct desc_parser *p, struct desc_event *e);

/* A comma-separated list of features (needs=, or the `needs` statement). */
int desc_needs_list(struct desc_parser *p, const char *s);

/* A copy of fields for repetition rep of a repeat: each +<step> value advanced rep steps.
 * NULL when out of memory. */
struct desc_field *desc_fields_at(struct desc *d, const struct desc_field *fields, uint32_t n,
                                  uint32_t rep);

/* Whether any value among fields (struct members included) has a +<step>. */
int desc_fields_step(const struct desc_field *fields, uint32_t n);

#endif /* DESC_INTERNAL_H */
