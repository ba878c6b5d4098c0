// SPDX-License-Identifier: GPL-2.0
/*
 * emitlib/gencase/gen_common.c: what every per-case generator shares (gen_common.h). Built
 * into each generator by its row's build (impl/lttp-c/build, impl/ehconf-macros/build),
 * with libdesc; it runs on the build machine only.
 */
#define _POSIX_C_SOURCE 200809L

#include "gen_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory and strings ----------------------------------------------------------------- */

void *gen_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gen: out of memory\n");
        exit(1);
    }
    return p;
}

void gen_sb_add(struct gen_sb *s, char const *text, size_t n)
{
    if (s->n + n + 1 > s->cap) {
        s->cap = (s->n + n + 1) * 2;
        s->p = gen_xrealloc(s->p, s->cap);
    }
    memcpy(s->p + s->n, text, n);
    s->n += n;
    s->p[s->n] = '\0';
}

void gen_sb_printf(struct gen_sb *s, char const *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *buf = gen_xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gen_sb_add(s, buf, (size_t)n);
    free(buf);
}

void gen_sb_literal(struct gen_sb *s, unsigned char const *p, size_t n)
{
    gen_sb_add(s, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?')
            gen_sb_add(s, (char const *)&c, 1);
        else
            gen_sb_printf(s, "\\%03o", c);
    }
    gen_sb_add(s, "\"", 1);
}

void gen_sb_cstr(struct gen_sb *s, char const *text)
{
    gen_sb_literal(s, (unsigned char const *)text, strlen(text));
}

void gen_reason_set(struct gen_reason *r, char const *fmt, ...)
{
    if (r->why)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->buf, sizeof(r->buf), fmt, ap);
    va_end(ap);
    r->why = r->buf;
}

/* ---- the header the reasons cite ----------------------------------------------------------- */

static char *g_header;
static size_t g_header_len;

void gen_header_load(char const *path)
{
    g_header = gencase_read_file(path, &g_header_len);
}

int gen_header_line(char const *what)
{
    int line = 1;
    size_t wn = strlen(what);
    for (size_t i = 0; i + wn <= g_header_len; i++) {
        if (g_header[i] == '\n')
            line++;
        else if (memcmp(g_header + i, what, wn) == 0)
            return line;
    }
    return 0;
}

/* ---- the case ------------------------------------------------------------------------------ */

int gen_provider_index(struct gen_source const *c, struct desc_provider const *p)
{
    for (uint32_t i = 0; i < c->desc.n_providers; i++)
        if (c->desc.providers[i] == p)
            return (int)i;
    return -1;
}

static void add_step(struct gen_source *c, int kind, int line, int arg)
{
    c->steps = gen_xrealloc(c->steps, (c->nsteps + 1) * sizeof(*c->steps));
    c->steps[c->nsteps++] = (struct gen_step){kind, line, arg};
}

/* gencase.h's flat list: a block's steps, then its END. */
static void flatten(struct gen_source *c, struct desc_block const *b)
{
    for (uint32_t i = 0; i < b->n_steps; i++) {
        struct desc_step const *s = &b->steps[i];
        int line = (int)s->line;
        switch (s->kind) {
        case DESC_STEP_EVENT:
            c->events[s->event->ordinal - 1] = s->event;
            add_step(c, GENCASE_EVENT, line, (int)s->event->ordinal);
            break;
        case DESC_STEP_REGISTER:
        case DESC_STEP_UNREGISTER:
            add_step(c, s->kind == DESC_STEP_REGISTER ? GENCASE_REGISTER : GENCASE_UNREGISTER, line,
                     gen_provider_index(c, s->provider));
            break;
        case DESC_STEP_THREADS:
            add_step(c, GENCASE_THREADS, line, 0);
            for (uint32_t t = 0; t < s->n_blocks; t++) {
                add_step(c, GENCASE_THREAD, line, 0);
                flatten(c, &s->blocks[t]);
                add_step(c, GENCASE_END, line, 0);
            }
            add_step(c, GENCASE_END, line, 0);
            break;
        case DESC_STEP_FORK:
            add_step(c, GENCASE_FORK, line, 0);
            flatten(c, &s->blocks[0]);
            if (s->blocks[1].n_steps) {
                add_step(c, GENCASE_PARENT, line, 0);
                flatten(c, &s->blocks[1]);
            }
            add_step(c, GENCASE_END, line, 0);
            break;
        }
    }
}

/* The C identifier of a case name: letters and digits as they are, any other byte _xx. */
static char *ident_of(char const *name)
{
    size_t n = strlen(name);
    char *out = gen_xrealloc(NULL, n * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
            out[o++] = (char)ch;
        else
            o += (size_t)sprintf(out + o, "_%02x", ch);
    }
    out[o] = '\0';
    return out;
}

static void collect_item(void *ctx, struct gencase_item const *item)
{
    struct gen_source *c = ctx;
    c->items = gen_xrealloc(c->items, (c->nitems + 1) * sizeof(*c->items));
    c->items[c->nitems++] = *item;
}

/* The ordinals an event item of the text stands for: the events of its line, one or one per
 * repetition of a repeat, at a constant distance. */
static void item_ordinals(struct gen_source const *c, struct gencase_item *it)
{
    it->first = it->count = it->stride = 0;
    for (uint32_t o = 1; o <= c->desc.n_events; o++) {
        if ((int)c->events[o - 1]->line != it->line)
            continue;
        if (it->count == 1)
            it->stride = (int)o - it->first;
        if (!it->count++)
            it->first = (int)o;
    }
}

void gen_source_load(struct gen_source *c, char const *path)
{
    char err[1024];
    memset(c, 0, sizeof(*c));
    c->path = path;
    if (desc_parse(path, &c->desc, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    c->events = gen_xrealloc(NULL, (c->desc.n_events + 1) * sizeof(*c->events));
    flatten(c, &c->desc.main);
    desc_name_token(c->desc.case_name, c->name, sizeof(c->name));
    c->ident = ident_of(c->name);

    size_t len;
    char *text = gencase_read_file(path, &len);
    int open = gencase_items(text, len, collect_item, c);
    free(text);
    if (open) {
        fprintf(stderr, "%s:%d: an event without `end`\n", path, open);
        exit(2);
    }
    for (size_t i = 0; i < c->nitems; i++)
        if (c->items[i].is_event)
            item_ordinals(c, &c->items[i]);
}

/* ---- the output ---------------------------------------------------------------------------- */

FILE *gen_open_out(struct gen_source const *c, char const *dir, char const *suffix, char *path,
                   size_t size)
{
    snprintf(path, size, "%s/%s%s.c", dir, c->ident, suffix);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

int gen_close_out(FILE *f, char const *path)
{
    if (fflush(f) != 0 || ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "gen: %s: write error\n", path);
        return 1;
    }
    return 0;
}

char *gen_provider_token(struct desc_provider const *p)
{
    size_t n = 3 * strlen(p->name) + 2 + (p->group ? 3 * strlen(p->group) + 9 : 0);
    char *token = gen_xrealloc(NULL, n);
    desc_name_token(p->name, token, n);
    if (p->group) {
        strcat(token, " group=");
        desc_name_token(p->group, token + strlen(token), n - strlen(token));
    }
    return token;
}

static void provider_literal(struct gen_sb *s, struct desc_provider const *p)
{
    char *token = gen_provider_token(p);
    gen_sb_cstr(s, token);
    free(token);
}

static char const *const STEP_NAMES[] = {
    [GENCASE_REGISTER] = "GENCASE_REGISTER", [GENCASE_UNREGISTER] = "GENCASE_UNREGISTER",
    [GENCASE_EVENT] = "GENCASE_EVENT",       [GENCASE_THREADS] = "GENCASE_THREADS",
    [GENCASE_THREAD] = "GENCASE_THREAD",     [GENCASE_FORK] = "GENCASE_FORK",
    [GENCASE_PARENT] = "GENCASE_PARENT",     [GENCASE_END] = "GENCASE_END",
};

void gen_source_tables(FILE *out, struct gen_source *c, char const *fn, unsigned char const *usable)
{
    size_t nevents = c->desc.n_events, nproviders = c->desc.n_providers;
    fprintf(out, "\n");
    for (size_t i = 0; i < nevents; i++)
        fprintf(out, "int %s_%s_e%zu(char const **call);\n", fn, c->ident, i + 1);

    fprintf(out, "\nstatic const struct gencase_provider gencase_providers[] = {\n");
    for (size_t i = 0; i < nproviders; i++) {
        struct desc_provider const *p = c->desc.providers[i];
        struct gen_sb token = {0}, group = {0};
        provider_literal(&token, p);
        gen_sb_cstr(&group, p->group ? p->group : "");
        if (usable && !usable[i])
            fprintf(out, "    {%s, %s, NULL, NULL},\n", token.p, group.p);
        else
            fprintf(out, "    {%s, %s, %s_reg%zu, %s_unreg%zu},\n", token.p, group.p, fn, i, fn, i);
        free(token.p);
        free(group.p);
    }
    if (!nproviders)
        fprintf(out, "    {\"\", \"\", NULL, NULL},\n");

    fprintf(out, "};\n\nstatic const gencase_event_fn gencase_events[] = {");
    for (size_t i = 0; i < nevents; i++)
        fprintf(out, "%s%s_%s_e%zu",
                i == 0  ? "\n    "
                : i % 6 ? ", "
                        : ",\n    ",
                fn, c->ident, i + 1);
    if (!nevents)
        fprintf(out, "NULL");

    fprintf(out, "\n};\n\nstatic const struct gencase_step gencase_steps[] = {\n");
    for (size_t i = 0; i < c->nsteps; i++)
        fprintf(out, "    {%s, %d, %d},\n", STEP_NAMES[c->steps[i].kind], c->steps[i].line,
                c->steps[i].arg);
    if (!c->nsteps)
        fprintf(out, "    {GENCASE_END, 0, 0},\n");

    fprintf(out, "};\n\nstatic const struct gencase_item gencase_items_[] = {\n");
    for (size_t i = 0; i < c->nitems; i++) {
        struct gencase_item const *it = &c->items[i];
        fprintf(out, "    {%d, %d, UINT64_C(0x%016llx), %d, %d, %d},\n", it->is_event, it->line,
                (unsigned long long)it->hash, it->first, it->count, it->stride);
    }

    struct gen_sb cname = {0}, cpath = {0};
    gen_sb_cstr(&cname, c->name);
    gen_sb_cstr(&cpath, c->path);
    fprintf(out,
            "};\n\nconst struct gencase_case gencase_case_%s = {\n"
            "    %s, %s,\n    gencase_items_, %zu,\n    gencase_steps, %zu,\n"
            "    gencase_providers, %zu,\n    gencase_events, %zu,\n};\n",
            c->ident, cname.p, cpath.p, c->nitems, c->nsteps, nproviders, nevents);
    free(cname.p);
    free(cpath.p);
}

int gen_cases_table(int n, char **paths, char const *by, char const *include,
                    struct gencase_api const *api)
{
    printf("/* Generated by %s --table: do not edit. */\n%s\n\n", by, include);
    char **idents = gen_xrealloc(NULL, (size_t)(n + 1) * sizeof(char *));
    for (int i = 0; i < n; i++) {
        struct desc d;
        char err[1024], token[1024];
        if (desc_parse(paths[i], &d, err, sizeof(err))) {
            fprintf(stderr, "%s\n", err);
            exit(2);
        }
        idents[i] = ident_of(desc_name_token(d.case_name, token, sizeof(token)));
        desc_free(&d);
        printf("extern const struct gencase_case gencase_case_%s;\n", idents[i]);
    }
    printf("\nconst struct gencase_case *const gencase_cases[] = {\n");
    for (int i = 0; i < n; i++)
        printf("    &gencase_case_%s,\n", idents[i]);
    printf("    NULL,\n};\n");
    printf("\nconst struct gencase_api gencase_api = {\"%s\", \"%s\"};\n", api->register_call,
           api->build);
    return fflush(stdout) == 0 ? 0 : 1;
}
