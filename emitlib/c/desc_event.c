/* SPDX-License-Identifier: MIT */
/*
 * The `event` statement of a case description and everything up to its `end`: the
 * attributes, the fields, structs and arrays of structs (Documentation/case-descriptions.md).
 */
#include <string.h>

#include "desc_internal.h"

/* "tag=0x<hex>" as the optional last word of a field or struct. */
static int tag_word(struct desc_parser *p, const char *w, uint16_t *tag)
{
    uint64_t v;
    if (strncmp(w, "tag=", 4) != 0 || desc_number(w + 4, 1, UINT16_MAX, &v))
        return desc_fail(p, p->line, "expected tag=0x<hex of at most 4 digits>, not '%s'", w);
    *tag = (uint16_t)v;
    return 0;
}

static int name_word(struct desc_parser *p, const char *w, const char **out)
{
    const char *why = NULL;
    *out = desc_name(p->d, w, &why);
    return *out ? 0 : desc_fail(p, p->line, "name '%s': %s", w, why);
}

int desc_needs_list(struct desc_parser *p, const char *s)
{
    size_t n = strlen(s);
    if (!n || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
        return desc_fail(p, p->line, "needs takes features separated by ',', not '%s'", s);
    return 0;
}

/* Words that begin a statement of the step list: inside an event they mean a missing `end`. */
static int is_statement(const char *w)
{
    static const char *const words[] = {"case",       "needs",  "provider", "register",
                                        "unregister", "event",  "threads",  "thread",
                                        "fork",       "parent", "element",  "repeat"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    return 0;
}

static int parse_fields(struct desc_parser *p, struct desc_field **out, uint32_t *n_out,
                        const char *opener, unsigned open_line);

/* Whether two elements of an array of structs have the same members (names, types, tags,
 * the counts of constant-length arrays): the metadata is written once, for all of them. */
static int same_shape(const struct desc_field *a, const struct desc_field *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct desc_field *x = &a[i], *y = &b[i];
        if (x->kind != y->kind || strcmp(x->name, y->name) != 0 || x->encoding != y->encoding ||
            x->format != y->format || x->tag != y->tag ||
            (x->kind == DESC_CARRAY && x->count != y->count))
            return 0;
        if (x->kind == DESC_STRUCT &&
            (x->n_members != y->n_members || !same_shape(x->members, y->members, x->n_members)))
            return 0;
        if (x->kind == DESC_STRUCT_SLICE &&
            (x->members[0].n_members != y->members[0].n_members ||
             !same_shape(x->members[0].members, y->members[0].members, x->members[0].n_members)))
            return 0;
    }
    return 1;
}

/* struct_slice <name> <count> [tag=]: count `element` blocks (one when count is 0), `end`. */
static int parse_struct_slice(struct desc_parser *p, struct desc_field *f)
{
    unsigned line = p->line;
    uint64_t count;
    if (p->n < 3 || p->n > 4 || desc_number(p->w[2], 0, UINT16_MAX, &count))
        return desc_fail(p, line, "expected: struct_slice <name> <count 0..65535> [tag=0x<hex>]");
    if (name_word(p, p->w[1], &f->name) || (p->n == 4 && tag_word(p, p->w[3], &f->tag)))
        return -1;
    f->kind = DESC_STRUCT_SLICE;
    f->count = (uint32_t)count;
    uint32_t want = count ? (uint32_t)count : 1;
    f->members = desc_alloc(p->d, want * sizeof *f->members);
    if (!f->members)
        return desc_fail(p, line, "out of memory");
    int r;
    while ((r = desc_inner(p, "struct_slice", line)) > 0) {
        if (strcmp(p->w[0], "element") != 0 || p->n != 1)
            return desc_fail(p, p->line, "expected `element` or `end` in struct_slice of line %u",
                             line);
        if (f->n_members == want)
            return desc_fail(p, p->line,
                             "struct_slice of line %u has %u element block(s), and this is one "
                             "more",
                             line, want);
        struct desc_field *e = &f->members[f->n_members++];
        e->kind = DESC_STRUCT;
        e->line = p->line;
        e->name = f->name;
        if (parse_fields(p, &e->members, &e->n_members, "element", p->line))
            return -1;
        if (!e->n_members)
            return desc_fail(p, e->line, "an element needs at least one member");
        if (f->n_members > 1 && (e->n_members != f->members[0].n_members ||
                                 !same_shape(e->members, f->members[0].members, e->n_members)))
            return desc_fail(p, e->line,
                             "element %u of the struct_slice of line %u has other members than "
                             "element 1",
                             f->n_members, line);
    }
    if (r < 0)
        return -1;
    if (f->n_members != want)
        return desc_fail(p, p->line, "struct_slice of line %u needs %u element block(s), not %u",
                         line, want, f->n_members);
    return 0;
}

/* A value token's "+<step>" (in a repeat, a scalar of a value type only): cut off the
 * token, into f->step. */
static int step_suffix(struct desc_parser *p, struct desc_field *f, char *plus)
{
    uint64_t step;
    const char *type = p->w[0], *name = p->w[1];
    *plus = 0;
    if (f->kind != DESC_VALUE)
        return desc_fail(p, p->line,
                         "field '%s' (%s): only a scalar of a value type takes "
                         "+<step>",
                         name, type);
    if (!p->repeat_line)
        return desc_fail(p, p->line,
                         "field '%s' (%s): a value with +<step> belongs inside a "
                         "`repeat`",
                         name, type);
    if (desc_number(plus + 1, 0, UINT16_MAX, &step) || step == 0)
        return desc_fail(p, p->line,
                         "field '%s' (%s): +<step> is a decimal number from 1 to "
                         "65535, not '+%s'",
                         name, type, plus + 1);
    f->step = (uint32_t)step;
    return 0;
}

/* <type> <name> <value>[+<step>] [tag=0x<hex>] */
static int parse_field(struct desc_parser *p, struct desc_field *f)
{
    const char *why = NULL;
    if (p->n < 3 || p->n > 4)
        return desc_fail(p, p->line, "expected: <type> <name> <value> [tag=0x<hex>]");
    if (desc_type(p->w[0], f, &why))
        return desc_fail(p, p->line, "type '%s': %s", p->w[0], why);
    if (name_word(p, p->w[1], &f->name) || (p->n == 4 && tag_word(p, p->w[3], &f->tag)))
        return -1;
    char *plus = strchr(p->w[2], '+');
    if (plus && step_suffix(p, f, plus))
        return -1;
    if (desc_value(p->d, p->w[2], f, &why))
        return desc_fail(p, p->line, "field '%s' (%s): %s", p->w[1], p->w[0], why);
    return 0;
}

/* struct <name> [tag=0x<hex>], its members up to `end`. */
static int parse_struct(struct desc_parser *p, struct desc_field *f)
{
    f->kind = DESC_STRUCT;
    if (p->n < 2 || p->n > 3)
        return desc_fail(p, p->line, "expected: struct <name> [tag=0x<hex>]");
    if (name_word(p, p->w[1], &f->name) || (p->n == 3 && tag_word(p, p->w[2], &f->tag)) ||
        parse_fields(p, &f->members, &f->n_members, "struct", f->line))
        return -1;
    return f->n_members ? 0 : desc_fail(p, f->line, "a struct needs at least one member");
}

/* Fields up to the `end` of the block opened at open_line. */
static int parse_fields(struct desc_parser *p, struct desc_field **out, uint32_t *n_out,
                        const char *opener, unsigned open_line)
{
    struct desc_vec v = {.size = sizeof **out};
    int err = 0;
    if (++p->depth > DESC_MAX_DEPTH + 1) /* + 1: the event's own fields */
        return desc_fail(p, p->line, "structs nested deeper than %d", DESC_MAX_DEPTH);
    int r;
    while ((r = desc_inner(p, opener, open_line)) > 0) {
        if (is_statement(p->w[0])) {
            err = desc_fail(p, p->line, "`%s` inside the `%s` of line %u: is its `end` missing?",
                            p->w[0], opener, open_line);
            break;
        }
        struct desc_field *f = desc_vec_push(p, &v);
        if (!f) {
            err = desc_fail(p, p->line, "out of memory");
            break;
        }
        f->line = p->line;
        if (strcmp(p->w[0], "struct") == 0)
            err = parse_struct(p, f);
        else if (strcmp(p->w[0], "struct_slice") == 0)
            err = parse_struct_slice(p, f);
        else
            err = parse_field(p, f);
        if (err)
            break;
    }
    if (r < 0)
        err = -1;
    p->depth--;
    *out = v.items;
    *n_out = v.n;
    return err;
}

/* activity= / related=: the 16 bytes of an id. */
static int id_value(struct desc_parser *p, const char *key, const char *val, uint8_t out[16])
{
    struct desc_field id = {.kind = DESC_VALUE, .unit = 16};
    const char *why = NULL;
    if (desc_value(p->d, val, &id, &why))
        return desc_fail(p, p->line, "%s= takes 32 hex digits", key);
    memcpy(out, id.data, 16);
    return 0;
}

/* event <name> level=<n> keyword=0x<hex> [opcode= tag= id= version= activity= related=
 * needs=], its fields, `end`. */
int desc_parse_event(struct desc_parser *p, struct desc_event *e)
{
    enum { LEVEL, KEYWORD, OPCODE, TAG, ID, VERSION, ACTIVITY, RELATED, NEEDS, KEYS };
    static const char *const keys[KEYS] = {"level",   "keyword",  "opcode",  "tag",  "id",
                                           "version", "activity", "related", "needs"};
    /* the numbers' largest values, LEVEL .. VERSION */
    static const uint64_t max[] = {UINT8_MAX,  UINT64_MAX, UINT8_MAX,
                                   UINT16_MAX, UINT16_MAX, UINT8_MAX};
    unsigned seen = 0;
    e->line = p->line;
    e->provider = p->current;
    e->ordinal = ++p->d->n_events;
    if (!p->current)
        return desc_fail(p, p->line, "`event` before any `provider`");
    if (p->n < 2)
        return desc_fail(p, p->line, "expected: event <name> level=<n> keyword=0x<hex>");
    if (name_word(p, p->w[1], &e->name))
        return -1;
    for (unsigned i = 2; i < p->n; i++) {
        const char *w = p->w[i], *eq = strchr(w, '=');
        size_t k = 0, klen = eq ? (size_t)(eq - w) : 0;
        while (k < KEYS && (strlen(keys[k]) != klen || strncmp(keys[k], w, klen) != 0))
            k++;
        if (k == KEYS)
            return desc_fail(p, p->line, "unknown event attribute '%s'", w);
        if (seen & 1u << k)
            return desc_fail(p, p->line, "event attribute %s given twice", keys[k]);
        seen |= 1u << k;
        const char *val = eq + 1;
        uint64_t v = 0;
        if (k <= VERSION) {
            int hex = k == KEYWORD || k == TAG;
            if (desc_number(val, hex, max[k], &v))
                return desc_fail(p, p->line, "%s=%s: expected %s up to %llu", keys[k], val,
                                 hex ? "0x<hex>" : "a decimal number", (unsigned long long)max[k]);
        }
        switch (k) {
        case LEVEL: e->level = (uint8_t)v; break;
        case KEYWORD: e->keyword = v; break;
        case OPCODE: e->opcode = (uint8_t)v; break;
        case TAG: e->tag = (uint16_t)v; break;
        case ID: e->id = (uint16_t)v; break;
        case VERSION: e->version = (uint8_t)v; break;
        case ACTIVITY:
        case RELATED:
            if (id_value(p, keys[k], val, k == ACTIVITY ? e->activity : e->related))
                return -1;
            *(k == ACTIVITY ? &e->has_activity : &e->has_related) = 1;
            break;
        default:
            if (desc_needs_list(p, val))
                return -1;
        }
    }
    if ((seen & (1u << LEVEL | 1u << KEYWORD)) != (1u << LEVEL | 1u << KEYWORD))
        return desc_fail(p, p->line, "an event needs level=<n> and keyword=0x<hex>");
    return parse_fields(p, &e->fields, &e->n_fields, "event", e->line);
}
