/* SPDX-License-Identifier: MIT */
/*
 * libdesc: a case description (Documentation/case-descriptions.md) parsed into data: the
 * steps, providers, events and fields of one descriptions/<case>.events file. The one C
 * parser of the format: ehconf's emitter (impl/ehconf/), the LinuxTracepoints C-macro
 * generator (impl/lttp-c/gen.c) and C++ builder emitter (impl/lttp-cpp/emit.cpp, through
 * the extern "C" below) link it; emitlib/rust/desc.rs is the Rust one, and both are held
 * to the snippets of tests/desc-format/ (tests/desc/test_desc_format.c).
 *
 * Values are in the machine's byte order: the file gives them little-endian, and on a
 * big-endian machine desc_parse reverses every number (desc_order.c), so an emitter hands
 * f->data to its API as the machine's numbers on either.
 *
 * A description comes out of desc_parse unrolled: every repetition of a `repeat` is steps
 * and events of its own, with its ordinal and its values (a `+<step>` value already
 * advanced), so a program that runs it walks struct desc and never meets the statement.
 * The library knows the format only (eventheader_wire.h's numbers, the field types of
 * descriptions/types.txt); running the steps is the emitter's job.
 */
#ifndef DESC_H
#define DESC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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
    const uint8_t *data; /* values: every element; strings: the code units; numbers in
                            the machine's byte order (desc_order_unit) */
    size_t size;         /* bytes at data */
    uint32_t count;      /* arrays: values; struct_slice: elements */
    uint32_t step;       /* a value's +<step> in a `repeat` (0: none); data holds this
                            repetition's value */
    struct desc_field *members;
    uint32_t n_members;
};

struct desc_provider {
    const char *name;
    const char *group; /* NULL: no group option */
    void *user;        /* the emitter's own object */
};

struct desc_event {
    unsigned ordinal; /* 1 for the first event of the file, counted as the format says */
    unsigned line;    /* of its `event` statement (every repetition has the same) */
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
    struct desc_provider **providers; /* in the order of their first `provider` */
    uint32_t n_providers;
    struct desc_block main;
    uint32_t n_events;
    struct desc_chunk *memory_;
};

/* Parses the file at path into *d. Returns 0, or -1 with "path:line: reason" in err
 * (nothing to free then). desc_free releases a parsed description. */
int desc_parse(const char *path, struct desc *d, char *err, size_t err_cap);
void desc_free(struct desc *d);

/* Writes d as a description again, in one canonical form (desc_print.c): repeats
 * unrolled, a `# event <n>, line <l>` comment before each event, types by their first
 * name in types.txt, attributes and tags only when not 0, no `needs`. What the
 * conformance snippets of tests/desc-format/ say a description parses to. Returns 0, or
 * -1 when out could not be written. */
int desc_print(FILE *out, const struct desc *d);

/* The token of a name (%XX escapes, "-" for the empty name) into out, cut to cap - 1
 * bytes: what a message quotes, so a name with a newline keeps it on one line. Returns out. */
char *desc_name_token(const char *name, char *out, size_t cap);

/* Big-endian machines reverse the numbers of the little-endian file (desc_order.c). */
#define DESC_BIG_ENDIAN (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* How many bytes make one number of f's data, whose order follows the machine's (2, 4
 * or 8); 0 when its bytes are in an order the format fixes (one-byte units, uuids,
 * addresses, ports, hex_bytes, strings of char8). */
size_t desc_order_unit(const struct desc_field *f);

/* Reverses each number of data (f->size bytes laid out as f's): little-endian to
 * big-endian or back. desc_parse calls it on a big-endian machine; any machine may. */
void desc_reverse_units(const struct desc_field *f, uint8_t *data);

/* Row i of the field-type table (descriptions/types.txt, compiled in): its name, with
 * its encoding and format in *encoding and *format; NULL past the last row. */
const char *desc_type_at(size_t i, uint8_t *encoding, uint8_t *format);

#ifdef __cplusplus
}
#endif

#endif /* DESC_H */
