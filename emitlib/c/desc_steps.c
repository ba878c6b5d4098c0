/* SPDX-License-Identifier: MIT */
/*
 * The statements and blocks of a case description (Documentation/case-descriptions.md)
 * into struct desc: case, needs, provider, the steps (register, unregister, threads, fork)
 * and `repeat`, unrolled as it is read. The whole file is read before anything runs, so a
 * description with a mistake anywhere emits nothing; every mistake is "path:line: reason"
 * (the line of the block that lacks its `end`, for a missing one).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "desc_internal.h"

/* What a block's statements are called in a message. */
static const char *block_name(enum desc_ctx ctx)
{
    return ctx == CTX_THREAD ? "thread" : ctx == CTX_REPEAT ? "repeat" : "fork";
}

static int provider_statement(struct desc_parser *p)
{
    const char *name, *group = NULL, *why = NULL;
    if (p->n < 2 || p->n > 3 || (p->n == 3 && strncmp(p->w[2], "group=", 6) != 0))
        return desc_fail(p, p->line, "expected: provider <name> [group=<group>]");
    name = desc_name(p->d, p->w[1], &why);
    if (name && p->n == 3)
        group = desc_name(p->d, p->w[2] + 6, &why);
    if (!name || (p->n == 3 && !group))
        return desc_fail(p, p->line, "name '%s': %s", name ? p->w[2] + 6 : p->w[1], why);
    for (uint32_t i = 0; i < p->d->n_providers; i++) {
        struct desc_provider *q = p->d->providers[i];
        if (strcmp(q->name, name) == 0 &&
            (q->group && group ? strcmp(q->group, group) == 0 : q->group == group)) {
            p->current = q;
            return 0;
        }
    }
    struct desc_vec v = {p->d->providers, p->d->n_providers, p->d->n_providers, sizeof(void *)};
    struct desc_provider **slot = desc_vec_push(p, &v);
    struct desc_provider *q = desc_alloc(p->d, sizeof *q);
    if (!slot || !q)
        return desc_fail(p, p->line, "out of memory");
    q->name = name;
    q->group = group;
    *slot = p->current = q;
    p->d->providers = v.items;
    p->d->n_providers = v.n;
    return 0;
}

static int parse_steps(struct desc_parser *p, struct desc_block *out, enum desc_ctx ctx,
                       const char *opener, unsigned open_line, int *ended_by_parent);

/* threads, then `thread` blocks up to `end`. */
static int parse_threads(struct desc_parser *p, struct desc_step *s)
{
    struct desc_vec v = {.size = sizeof *s->blocks};
    int r;
    while ((r = desc_inner(p, "threads", s->line)) > 0) {
        if (strcmp(p->w[0], "thread") != 0 || p->n != 1)
            return desc_fail(p, p->line, "only `thread` blocks go inside `threads` (line %u)",
                             s->line);
        struct desc_block *b = desc_vec_push(p, &v);
        if (!b)
            return desc_fail(p, p->line, "out of memory");
        if (parse_steps(p, b, CTX_THREAD, "thread", p->line, NULL))
            return -1;
    }
    if (r < 0)
        return -1;
    if (!v.n)
        return desc_fail(p, s->line, "`threads` without a `thread` block");
    s->blocks = v.items;
    s->n_blocks = v.n;
    return 0;
}

/* fork, the child's statements, optionally `parent` and the parent's, `end`. */
static int parse_fork(struct desc_parser *p, struct desc_step *s)
{
    int parent = 0;
    s->blocks = desc_alloc(p->d, 2 * sizeof *s->blocks);
    if (!s->blocks)
        return desc_fail(p, p->line, "out of memory");
    s->n_blocks = 2;
    if (parse_steps(p, &s->blocks[0], CTX_CHILD, "fork", s->line, &parent))
        return -1;
    return parent ? parse_steps(p, &s->blocks[1], CTX_PARENT, "fork", s->line, NULL) : 0;
}

/* repeat <count>, its events up to `end`: count copies of them into steps, repetition i
 * numbered after repetition i - 1 and its +<step> values advanced i steps. */
static int parse_repeat(struct desc_parser *p, struct desc_vec *steps)
{
    unsigned line = p->line, first = p->d->n_events;
    uint64_t count;
    struct desc_block body;
    if (p->n != 2 || desc_number(p->w[1], 0, UINT16_MAX, &count) || !count)
        return desc_fail(p, line, "expected: repeat <count 1..65535>");
    p->repeat_line = line;
    int err = parse_steps(p, &body, CTX_REPEAT, "repeat", line, NULL);
    p->repeat_line = 0;
    if (err)
        return -1;
    if ((uint64_t)body.n_steps * count > DESC_MAX_EVENTS - first)
        return desc_fail(p, line, "the description unrolls to more than %d events",
                         DESC_MAX_EVENTS);
    for (uint32_t rep = 0; rep < count; rep++) {
        for (uint32_t j = 0; j < body.n_steps; j++) {
            struct desc_step *s = desc_vec_push(p, steps);
            struct desc_event *e = rep ? desc_alloc(p->d, sizeof *e) : body.steps[j].event;
            if (!s || !e)
                return desc_fail(p, line, "out of memory");
            *s = body.steps[j];
            s->event = e;
            if (!rep)
                continue;
            *e = *body.steps[j].event;
            e->ordinal = first + rep * body.n_steps + j + 1;
            if (desc_fields_step(e->fields, e->n_fields) &&
                !(e->fields = desc_fields_at(p->d, e->fields, e->n_fields, rep)))
                return desc_fail(p, line, "out of memory");
        }
    }
    p->d->n_events = first + body.n_steps * (uint32_t)count;
    return 0;
}

/* `end` or `parent`: closes the list (*done). */
static int close_statement(struct desc_parser *p, enum desc_ctx ctx, int *done,
                           int *ended_by_parent)
{
    int parent = p->w[0][0] == 'p';
    if (p->n != 1 || ctx == CTX_TOP || (parent && ctx != CTX_CHILD))
        return desc_fail(p, p->line,
                         parent ? "`parent` belongs inside a `fork` block, once"
                                : "`end` without a block");
    *done = 1;
    if (ended_by_parent)
        *ended_by_parent = parent;
    return 0;
}

/* One statement of a step list; *done when it closed the list. */
static int parse_step(struct desc_parser *p, struct desc_vec *steps, enum desc_ctx ctx, int *done,
                      int *ended_by_parent)
{
    const char *w = p->w[0];
    if (strcmp(w, "end") == 0 || strcmp(w, "parent") == 0)
        return close_statement(p, ctx, done, ended_by_parent);
    if (strcmp(w, "case") == 0) {
        if (p->n != 2 || p->d->case_name || ctx != CTX_TOP)
            return desc_fail(p, p->line, "`case <name>` is the first statement, once");
        const char *why = NULL;
        p->d->case_name = desc_name(p->d, p->w[1], &why);
        return p->d->case_name ? 0 : desc_fail(p, p->line, "name '%s': %s", p->w[1], why);
    }
    if (!p->d->case_name)
        return desc_fail(p, p->line, "the first statement must be `case <name>`");
    if (strcmp(w, "needs") == 0) {
        if (p->n != 2 || ctx != CTX_TOP)
            return desc_fail(p, p->line,
                             "expected, outside any block: needs <feature>[,<feature>...]");
        return desc_needs_list(p, p->w[1]);
    }
    if (strcmp(w, "provider") == 0)
        return provider_statement(p);
    int reg = strcmp(w, "register") == 0, unreg = strcmp(w, "unregister") == 0;
    int threads = strcmp(w, "threads") == 0, fork = strcmp(w, "fork") == 0;
    int repeat = strcmp(w, "repeat") == 0;
    if (strcmp(w, "event") != 0 && !reg && !unreg && !threads && !fork && !repeat) {
        if (strcmp(w, "thread") == 0 || strcmp(w, "element") == 0)
            return desc_fail(p, p->line, "`%s` outside `%s`", w,
                             w[0] == 't' ? "threads" : "struct_slice");
        return desc_fail(p, p->line, "unknown statement '%s'", w);
    }
    /* thread, fork and repeat blocks hold events (and repeats, but not a repeat) */
    if ((reg || unreg || threads || fork) ? ctx != CTX_TOP : repeat && ctx == CTX_REPEAT)
        return desc_fail(p, p->line,
                         "`%s` inside a `%s` block: only `provider` and `event` go there", w,
                         block_name(ctx));
    if (repeat)
        return parse_repeat(p, steps);
    struct desc_step *s = desc_vec_push(p, steps);
    if (!s)
        return desc_fail(p, p->line, "out of memory");
    s->line = p->line;
    if (w[0] == 'e') {
        s->kind = DESC_STEP_EVENT;
        s->event = desc_alloc(p->d, sizeof *s->event);
        return s->event ? desc_parse_event(p, s->event) : desc_fail(p, p->line, "out of memory");
    }
    if (p->n != 1)
        return desc_fail(p, p->line, "`%s` takes no words", w);
    if (threads || fork) {
        s->kind = threads ? DESC_STEP_THREADS : DESC_STEP_FORK;
        return threads ? parse_threads(p, s) : parse_fork(p, s);
    }
    if (!p->current)
        return desc_fail(p, p->line, "`%s` before any `provider`", w);
    s->kind = reg ? DESC_STEP_REGISTER : DESC_STEP_UNREGISTER;
    s->provider = p->current;
    return 0;
}

/* Statements up to the block's `end` (or `parent`), or the end of the file at the top. */
static int parse_steps(struct desc_parser *p, struct desc_block *out, enum desc_ctx ctx,
                       const char *opener, unsigned open_line, int *ended_by_parent)
{
    struct desc_vec v = {.size = sizeof *out->steps};
    int done = 0, err = 0;
    while (!done && !err) {
        int r = desc_next(p);
        if (r <= 0) {
            if (r < 0)
                err = -1;
            else if (ctx != CTX_TOP)
                err = desc_missing_end(p, opener, open_line);
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
    struct desc_parser p = {.d = d, .err = err, .err_cap = err_cap};
    memset(d, 0, sizeof *d);
    d->path = path;
    p.f = fopen(path, "r");
    if (!p.f) {
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    int r = parse_steps(&p, &d->main, CTX_TOP, "", 0, NULL);
    if (!r && !d->case_name)
        r = desc_fail(&p, p.line, "the file has no `case <name>` statement");
    free(p.buf);
    fclose(p.f);
    if (r)
        desc_free(d);
    return r;
}
