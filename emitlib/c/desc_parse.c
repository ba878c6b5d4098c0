/* SPDX-License-Identifier: MIT */
/*
 * The statements and blocks of a case description (Documentation/case-descriptions.md)
 * into struct desc. The whole file is read before anything runs, so a description with
 * a mistake anywhere emits nothing; every mistake is "path:line: reason" (the line of
 * the block that lacks its `end`, for a missing one).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "desc.h"

#define MAX_WORDS 16
#define MAX_DEPTH 1024 /* structs within structs; EventHeader decoders go this deep */

enum ctx { CTX_TOP, CTX_THREAD, CTX_CHILD, CTX_PARENT };

struct parser {
    struct desc *d;
    FILE *f;
    char *buf;
    size_t cap;
    unsigned line;
    char *w[MAX_WORDS];
    unsigned n;
    struct desc_provider *current;
    unsigned depth;
    char *err;
    size_t err_cap;
};

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, unsigned line,
                                                      const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(p->err, p->err_cap, "%s:%u: ", p->d->path, line);
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < p->err_cap)
        vsnprintf(p->err + k, p->err_cap - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

/* A growing array in the arena: outgrown copies stay there until desc_free, so an
 * error anywhere frees everything at once. */
struct vec {
    void *items;
    uint32_t n, cap;
    size_t size;
};

static void *vec_push(struct parser *p, struct vec *v)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 8;
        void *items = desc_alloc(p->d, cap * v->size);
        if (!items)
            return NULL;
        if (v->n)
            memcpy(items, v->items, v->n * v->size);
        v->items = items;
        v->cap = cap;
    }
    return (char *)v->items + v->n++ * v->size;
}

/* The next statement's words in p->w: 1, 0 at the end of the file, -1 on an error. */
static int next_statement(struct parser *p)
{
    for (;;) {
        ssize_t len = getline(&p->buf, &p->cap, p->f);
        if (len < 0)
            return ferror(p->f) ? fail(p, p->line, "read error: %s", strerror(errno)) : 0;
        p->line++;
        if (memchr(p->buf, 0, (size_t)len))
            return fail(p, p->line, "a NUL byte in the line");
        p->n = 0;
        for (char *s = strtok(p->buf, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
            if (p->n == MAX_WORDS)
                return fail(p, p->line, "more than %d words in one statement", MAX_WORDS);
            p->w[p->n++] = s;
        }
        if (p->n && p->w[0][0] != '#')
            return 1;
    }
}

/* A number word: decimal, or 0x + hex when hex; at most max. */
static int number(const char *s, int hex, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = hex ? 16 : 10, digits = 0;
    if (hex && strncmp(s, "0x", 2) != 0)
        return -1;
    for (s += hex ? 2 : 0; *s; s++, digits++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (hex && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
            d = (unsigned)((*s | 0x20) - 'a' + 10);
        else
            return -1;
        if (v > (max - d) / base)
            return -1;
        v = v * base + d;
    }
    if (!digits)
        return -1;
    *out = v;
    return 0;
}

/* "tag=0x<hex>" as the optional last word of a field or struct. */
static int tag_word(struct parser *p, const char *w, uint16_t *tag)
{
    uint64_t v;
    if (strncmp(w, "tag=", 4) != 0 || number(w + 4, 1, UINT16_MAX, &v))
        return fail(p, p->line, "expected tag=0x<hex of at most 4 digits>, not '%s'", w);
    *tag = (uint16_t)v;
    return 0;
}

static int name_word(struct parser *p, const char *w, const char **out)
{
    const char *why = NULL;
    *out = desc_name(p->d, w, &why);
    return *out ? 0 : fail(p, p->line, "name '%s': %s", w, why);
}

/* A comma-separated list of features (needs=, or the `needs` statement). */
static int needs_list(struct parser *p, const char *s)
{
    size_t n = strlen(s);
    if (!n || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,"))
        return fail(p, p->line, "needs takes features separated by ',', not '%s'", s);
    return 0;
}

static int is_statement(const char *w)
{
    static const char *const words[] = {"case",       "needs",  "provider", "register",
                                        "unregister", "event",  "threads",  "thread",
                                        "fork",       "parent", "element"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    return 0;
}

static int parse_fields(struct parser *p, struct desc_field **out, uint32_t *n_out,
                        const char *opener, unsigned open_line);

static int missing_end(struct parser *p, const char *opener, unsigned open_line)
{
    return fail(p, open_line, "`%s` has no `end` (the file ends at line %u)", opener, p->line);
}

/* struct_slice <name> <count> [tag=]: count `element` blocks (one when count is 0), `end`. */
static int parse_struct_slice(struct parser *p, struct desc_field *f)
{
    unsigned line = p->line;
    uint64_t count;
    if (p->n < 3 || p->n > 4 || number(p->w[2], 0, UINT16_MAX, &count))
        return fail(p, line, "expected: struct_slice <name> <count 0..65535> [tag=0x<hex>]");
    if (name_word(p, p->w[1], &f->name) || (p->n == 4 && tag_word(p, p->w[3], &f->tag)))
        return -1;
    f->kind = DESC_STRUCT_SLICE;
    f->count = (uint32_t)count;
    uint32_t want = count ? (uint32_t)count : 1;
    f->members = desc_alloc(p->d, want * sizeof *f->members);
    if (!f->members)
        return fail(p, line, "out of memory");
    for (;;) {
        int r = next_statement(p);
        if (r <= 0)
            return r < 0 ? -1 : missing_end(p, "struct_slice", line);
        if (strcmp(p->w[0], "end") == 0 && p->n == 1)
            break;
        if (strcmp(p->w[0], "element") != 0 || p->n != 1)
            return fail(p, p->line, "expected `element` or `end` in struct_slice of line %u", line);
        if (f->n_members == want)
            return fail(p, p->line,
                        "struct_slice of line %u has %u element block(s), and this "
                        "is one more",
                        line, want);
        struct desc_field *e = &f->members[f->n_members++];
        e->kind = DESC_STRUCT;
        e->line = p->line;
        e->name = f->name;
        if (parse_fields(p, &e->members, &e->n_members, "element", p->line))
            return -1;
        if (!e->n_members)
            return fail(p, e->line, "an element needs at least one member");
    }
    if (f->n_members != want)
        return fail(p, p->line, "struct_slice of line %u needs %u element block(s), not %u", line,
                    want, f->n_members);
    return 0;
}

/* <type> <name> <value> [tag=0x<hex>] */
static int parse_field(struct parser *p, struct desc_field *f)
{
    const char *why = NULL;
    if (p->n < 3 || p->n > 4)
        return fail(p, p->line, "expected: <type> <name> <value> [tag=0x<hex>]");
    if (desc_type(p->w[0], f, &why))
        return fail(p, p->line, "type '%s': %s", p->w[0], why);
    if (name_word(p, p->w[1], &f->name) || (p->n == 4 && tag_word(p, p->w[3], &f->tag)))
        return -1;
    if (desc_value(p->d, p->w[2], f, &why))
        return fail(p, p->line, "field '%s' (%s): %s", p->w[1], p->w[0], why);
    return 0;
}

/* Fields up to the `end` of the block opened at open_line. */
static int parse_fields(struct parser *p, struct desc_field **out, uint32_t *n_out,
                        const char *opener, unsigned open_line)
{
    struct vec v = {.size = sizeof **out};
    int err = 0;
    if (++p->depth > MAX_DEPTH + 1) /* + 1: the event's own fields */
        return fail(p, p->line, "structs nested deeper than %d", MAX_DEPTH);
    for (;;) {
        int r = next_statement(p);
        if (r <= 0) {
            err = r < 0 ? -1 : missing_end(p, opener, open_line);
            break;
        }
        if (strcmp(p->w[0], "end") == 0 && p->n == 1)
            break;
        if (is_statement(p->w[0])) {
            err = fail(p, p->line, "`%s` inside the `%s` of line %u: is its `end` missing?",
                       p->w[0], opener, open_line);
            break;
        }
        struct desc_field *f = vec_push(p, &v);
        if (!f) {
            err = fail(p, p->line, "out of memory");
            break;
        }
        f->line = p->line;
        if (strcmp(p->w[0], "struct") == 0) {
            f->kind = DESC_STRUCT;
            if (p->n < 2 || p->n > 3) {
                err = fail(p, p->line, "expected: struct <name> [tag=0x<hex>]");
                break;
            }
            err = name_word(p, p->w[1], &f->name) || (p->n == 3 && tag_word(p, p->w[2], &f->tag))
                      ? -1
                      : parse_fields(p, &f->members, &f->n_members, "struct", f->line);
            if (!err && !f->n_members)
                err = fail(p, f->line, "a struct needs at least one member");
        } else if (strcmp(p->w[0], "struct_slice") == 0) {
            err = parse_struct_slice(p, f);
        } else {
            err = parse_field(p, f);
        }
        if (err)
            break;
    }
    p->depth--;
    *out = v.items;
    *n_out = v.n;
    return err;
}

/* event <name> level=<n> keyword=0x<hex> [opcode= tag= id= version= activity= related=
 * needs=], its fields, `end`. */
static int parse_event(struct parser *p, struct desc_event *e)
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
        return fail(p, p->line, "`event` before any `provider`");
    if (p->n < 2 || name_word(p, p->w[1], &e->name))
        return p->n < 2 ? fail(p, p->line, "expected: event <name> level=<n> keyword=0x<hex>") : -1;
    for (unsigned i = 2; i < p->n; i++) {
        const char *w = p->w[i], *eq = strchr(w, '=');
        size_t k = 0, klen = eq ? (size_t)(eq - w) : 0;
        while (k < KEYS && (strlen(keys[k]) != klen || strncmp(keys[k], w, klen) != 0))
            k++;
        if (k == KEYS)
            return fail(p, p->line, "unknown event attribute '%s'", w);
        if (seen & 1u << k)
            return fail(p, p->line, "event attribute %s given twice", keys[k]);
        seen |= 1u << k;
        const char *val = eq + 1;
        uint64_t v = 0;
        if (k <= VERSION) {
            int hex = k == KEYWORD || k == TAG;
            if (number(val, hex, max[k], &v))
                return fail(p, p->line, "%s=%s: expected %s up to %llu", keys[k], val,
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
        case RELATED: {
            struct desc_field id = {.kind = DESC_VALUE, .unit = 16};
            const char *why = NULL;
            if (desc_value(p->d, val, &id, &why))
                return fail(p, p->line, "%s= takes 32 hex digits", keys[k]);
            memcpy(k == ACTIVITY ? e->activity : e->related, id.data, 16);
            *(k == ACTIVITY ? &e->has_activity : &e->has_related) = 1;
            break;
        }
        default:
            if (needs_list(p, val))
                return -1;
        }
    }
    if ((seen & (1u << LEVEL | 1u << KEYWORD)) != (1u << LEVEL | 1u << KEYWORD))
        return fail(p, p->line, "an event needs level=<n> and keyword=0x<hex>");
    return parse_fields(p, &e->fields, &e->n_fields, "event", e->line);
}

static int provider_statement(struct parser *p)
{
    const char *name, *group = NULL;
    if (p->n < 2 || p->n > 3 || (p->n == 3 && strncmp(p->w[2], "group=", 6) != 0))
        return fail(p, p->line, "expected: provider <name> [group=<group>]");
    if (name_word(p, p->w[1], &name) || (p->n == 3 && name_word(p, p->w[2] + 6, &group)))
        return -1;
    for (uint32_t i = 0; i < p->d->n_providers; i++) {
        struct desc_provider *q = p->d->providers[i];
        if (strcmp(q->name, name) == 0 &&
            (q->group && group ? strcmp(q->group, group) == 0 : q->group == group)) {
            p->current = q;
            return 0;
        }
    }
    struct vec v = {p->d->providers, p->d->n_providers, p->d->n_providers, sizeof(void *)};
    struct desc_provider **slot = vec_push(p, &v);
    struct desc_provider *q = desc_alloc(p->d, sizeof *q);
    if (!slot || !q)
        return fail(p, p->line, "out of memory");
    q->name = name;
    q->group = group;
    *slot = p->current = q;
    p->d->providers = v.items;
    p->d->n_providers = v.n;
    return 0;
}

static int parse_steps(struct parser *p, struct desc_block *out, enum ctx ctx, const char *opener,
                       unsigned open_line, int *ended_by_parent);

/* threads, then `thread` blocks up to `end`. */
static int parse_threads(struct parser *p, struct desc_step *s)
{
    struct vec v = {.size = sizeof *s->blocks};
    for (;;) {
        int r = next_statement(p);
        if (r <= 0)
            return r < 0 ? -1 : missing_end(p, "threads", s->line);
        if (strcmp(p->w[0], "end") == 0 && p->n == 1)
            break;
        if (strcmp(p->w[0], "thread") != 0 || p->n != 1)
            return fail(p, p->line, "only `thread` blocks go inside `threads` (line %u)", s->line);
        struct desc_block *b = vec_push(p, &v);
        if (!b)
            return fail(p, p->line, "out of memory");
        if (parse_steps(p, b, CTX_THREAD, "thread", p->line, NULL))
            return -1;
    }
    if (!v.n)
        return fail(p, s->line, "`threads` without a `thread` block");
    s->blocks = v.items;
    s->n_blocks = v.n;
    return 0;
}

/* fork, the child's statements, optionally `parent` and the parent's, `end`. */
static int parse_fork(struct parser *p, struct desc_step *s)
{
    int parent = 0;
    s->blocks = desc_alloc(p->d, 2 * sizeof *s->blocks);
    if (!s->blocks)
        return fail(p, p->line, "out of memory");
    s->n_blocks = 2;
    if (parse_steps(p, &s->blocks[0], CTX_CHILD, "fork", s->line, &parent))
        return -1;
    return parent ? parse_steps(p, &s->blocks[1], CTX_PARENT, "fork", s->line, NULL) : 0;
}

/* One statement of a step list; *done when it closed the list. */
static int parse_step(struct parser *p, struct vec *steps, enum ctx ctx, int *done,
                      int *ended_by_parent)
{
    const char *w = p->w[0];
    if (strcmp(w, "end") == 0 || strcmp(w, "parent") == 0) {
        int parent = w[0] == 'p';
        if (p->n != 1 || ctx == CTX_TOP || (parent && ctx != CTX_CHILD))
            return fail(p, p->line,
                        parent ? "`parent` belongs inside a `fork` block, once"
                               : "`end` without a block");
        *done = 1;
        if (ended_by_parent)
            *ended_by_parent = parent;
        return 0;
    }
    if (strcmp(w, "case") == 0) {
        if (p->n != 2 || p->d->case_name || ctx != CTX_TOP)
            return fail(p, p->line, "`case <name>` is the first statement, once");
        return name_word(p, p->w[1], &p->d->case_name);
    }
    if (!p->d->case_name)
        return fail(p, p->line, "the first statement must be `case <name>`");
    if (strcmp(w, "needs") == 0) {
        if (p->n != 2 || ctx != CTX_TOP)
            return fail(p, p->line, "expected, outside any block: needs <feature>[,<feature>...]");
        return needs_list(p, p->w[1]);
    }
    if (strcmp(w, "provider") == 0)
        return provider_statement(p);
    struct desc_step *s = vec_push(p, steps);
    if (!s)
        return fail(p, p->line, "out of memory");
    s->line = p->line;
    if (strcmp(w, "event") == 0) {
        s->kind = DESC_STEP_EVENT;
        s->event = desc_alloc(p->d, sizeof *s->event);
        return s->event ? parse_event(p, s->event) : fail(p, p->line, "out of memory");
    }
    int reg = strcmp(w, "register") == 0, unreg = strcmp(w, "unregister") == 0;
    int threads = strcmp(w, "threads") == 0, fork = strcmp(w, "fork") == 0;
    if (!reg && !unreg && !threads && !fork) {
        if (strcmp(w, "thread") == 0 || strcmp(w, "element") == 0)
            return fail(p, p->line, "`%s` outside `%s`", w,
                        w[0] == 't' ? "threads" : "struct_slice");
        return fail(p, p->line, "unknown statement '%s'", w);
    }
    if (ctx != CTX_TOP)
        return fail(p, p->line,
                    "`%s` inside a `thread` or `fork` block: only `provider` and "
                    "`event` go there",
                    w);
    if (p->n != 1)
        return fail(p, p->line, "`%s` takes no words", w);
    if (threads || fork) {
        s->kind = threads ? DESC_STEP_THREADS : DESC_STEP_FORK;
        return threads ? parse_threads(p, s) : parse_fork(p, s);
    }
    if (!p->current)
        return fail(p, p->line, "`%s` before any `provider`", w);
    s->kind = reg ? DESC_STEP_REGISTER : DESC_STEP_UNREGISTER;
    s->provider = p->current;
    return 0;
}

/* Statements up to the block's `end` (or `parent`), or the end of the file at the top. */
static int parse_steps(struct parser *p, struct desc_block *out, enum ctx ctx, const char *opener,
                       unsigned open_line, int *ended_by_parent)
{
    struct vec v = {.size = sizeof *out->steps};
    int done = 0, err = 0;
    while (!done && !err) {
        int r = next_statement(p);
        if (r <= 0) {
            if (r < 0)
                err = -1;
            else if (ctx != CTX_TOP)
                err = missing_end(p, opener, open_line);
            break;
        }
        err = parse_step(p, &v, ctx, &done, ended_by_parent);
    }
    out->steps = v.items;
    out->n_steps = v.n;
    return err;
}

int desc_parse(const char *path, struct desc *d, char *err, size_t err_cap)
{
    struct parser p = {.d = d, .err = err, .err_cap = err_cap};
    memset(d, 0, sizeof *d);
    d->path = path;
    p.f = fopen(path, "r");
    if (!p.f) {
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    int r = parse_steps(&p, &d->main, CTX_TOP, "", 0, NULL);
    if (!r && !d->case_name)
        r = fail(&p, p.line, "the file has no `case <name>` statement");
    free(p.buf);
    fclose(p.f);
    if (r)
        desc_free(d);
    return r;
}
