/* SPDX-License-Identifier: MIT */
/*
 * A parsed description written back as a description, in one canonical form: what
 * tests/desc-format/ holds a parser to (the Rust parser prints the same form,
 * emitlib/rust/desc.rs), and what `emit --print` shows. Repeats come out unrolled, each
 * event after a `# event <n>, line <l>` comment; a `provider` line wherever the provider
 * of the next statement changes; a type by the first name types.txt gives its encoding
 * and format (else raw:); attributes and tags only when not 0; no `needs`.
 */
#include <stdlib.h>
#include <string.h>

#include "desc_internal.h"

struct printer {
    FILE *out;
    const struct desc_provider *current;
    char *token; /* room for the longest name's token */
    size_t token_cap;
};

static void indent(struct printer *pr, unsigned depth)
{
    fprintf(pr->out, "%*s", (int)(2 * depth), "");
}

/* A name's token: 3 bytes a byte at most, and the "-" of the empty name. */
static void put_name(struct printer *pr, const char *name)
{
    size_t need = 3 * strlen(name) + 2;
    if (need > pr->token_cap) {
        char *t = realloc(pr->token, need);
        if (!t) {
            fputs("(out of memory)", pr->out);
            return;
        }
        pr->token = t;
        pr->token_cap = need;
    }
    fputs(desc_name_token(name, pr->token, pr->token_cap), pr->out);
}

static void put_hex(FILE *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
}

static void put_type(FILE *out, const struct desc_field *f)
{
    uint8_t enc, fmt;
    const char *name;
    for (size_t i = 0; (name = desc_type_at(i, &enc, &fmt)); i++) {
        if (enc == f->encoding && fmt == f->format) {
            fprintf(out, "%s%s", name,
                    f->kind == DESC_VARRAY   ? "_slice"
                    : f->kind == DESC_CARRAY ? "_array"
                                             : "");
            return;
        }
    }
    fprintf(out, "raw:%02x:%02x",
            f->encoding | (f->kind == DESC_VARRAY   ? 0x40
                           : f->kind == DESC_CARRAY ? 0x20
                                                    : 0),
            f->format);
}

/* The values as the file writes them: little-endian (the parser keeps the machine's
 * order, desc.h). */
static void put_value(FILE *out, const struct desc_field *f)
{
    const uint8_t *data = f->data;
    uint8_t *copy = NULL;
    if (DESC_BIG_ENDIAN && desc_order_unit(f) && f->size) {
        if (!(copy = malloc(f->size))) {
            fputs("(out of memory)", out);
            return;
        }
        memcpy(copy, f->data, f->size);
        desc_reverse_units(f, copy);
        data = copy;
    }
    if (f->kind == DESC_STRING || f->kind == DESC_VALUE) {
        if (!f->size)
            fputc('-', out);
        put_hex(out, data, f->size);
    } else {
        if (!f->count)
            fputc('-', out);
        for (uint32_t i = 0; i < f->count; i++) {
            if (i)
                fputc(',', out);
            put_hex(out, data + (size_t)i * f->unit, f->unit);
        }
    }
    free(copy);
}

static void put_tag(FILE *out, uint16_t tag)
{
    if (tag)
        fprintf(out, " tag=0x%x", tag);
}

static void put_fields(struct printer *pr, const struct desc_field *fields, uint32_t n,
                       unsigned depth)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct desc_field *f = &fields[i];
        indent(pr, depth);
        if (f->kind == DESC_STRUCT || f->kind == DESC_STRUCT_SLICE) {
            fputs(f->kind == DESC_STRUCT ? "struct " : "struct_slice ", pr->out);
            put_name(pr, f->name);
            if (f->kind == DESC_STRUCT_SLICE)
                fprintf(pr->out, " %u", f->count);
            put_tag(pr->out, f->tag);
            fputc('\n', pr->out);
            if (f->kind == DESC_STRUCT) {
                put_fields(pr, f->members, f->n_members, depth + 1);
            } else {
                for (uint32_t e = 0; e < f->n_members; e++) {
                    indent(pr, depth + 1);
                    fputs("element\n", pr->out);
                    put_fields(pr, f->members[e].members, f->members[e].n_members, depth + 2);
                    indent(pr, depth + 1);
                    fputs("end\n", pr->out);
                }
            }
            indent(pr, depth);
            fputs("end\n", pr->out);
            continue;
        }
        put_type(pr->out, f);
        fputc(' ', pr->out);
        put_name(pr, f->name);
        fputc(' ', pr->out);
        put_value(pr->out, f);
        put_tag(pr->out, f->tag);
        fputc('\n', pr->out);
    }
}

/* `provider` when q is not the provider of the statements before. */
static void put_provider(struct printer *pr, const struct desc_provider *q, unsigned depth)
{
    if (q == pr->current)
        return;
    pr->current = q;
    indent(pr, depth);
    fputs("provider ", pr->out);
    put_name(pr, q->name);
    if (q->group) {
        fputs(" group=", pr->out);
        put_name(pr, q->group);
    }
    fputc('\n', pr->out);
}

static void put_event(struct printer *pr, const struct desc_event *e, unsigned depth)
{
    FILE *out = pr->out;
    put_provider(pr, e->provider, depth);
    indent(pr, depth);
    fprintf(out, "# event %u, line %u\n", e->ordinal, e->line);
    indent(pr, depth);
    fputs("event ", out);
    put_name(pr, e->name);
    fprintf(out, " level=%u keyword=0x%llx", e->level, (unsigned long long)e->keyword);
    if (e->opcode)
        fprintf(out, " opcode=%u", e->opcode);
    if (e->tag)
        fprintf(out, " tag=0x%x", e->tag);
    if (e->id)
        fprintf(out, " id=%u", e->id);
    if (e->version)
        fprintf(out, " version=%u", e->version);
    if (e->has_activity) {
        fputs(" activity=", out);
        put_hex(out, e->activity, 16);
    }
    if (e->has_related) {
        fputs(" related=", out);
        put_hex(out, e->related, 16);
    }
    fputc('\n', out);
    put_fields(pr, e->fields, e->n_fields, depth + 1);
    indent(pr, depth);
    fputs("end\n", out);
}

static void put_block(struct printer *pr, const struct desc_block *blk, unsigned depth)
{
    for (uint32_t i = 0; i < blk->n_steps; i++) {
        const struct desc_step *s = &blk->steps[i];
        switch (s->kind) {
        case DESC_STEP_EVENT: put_event(pr, s->event, depth); break;
        case DESC_STEP_REGISTER:
        case DESC_STEP_UNREGISTER:
            put_provider(pr, s->provider, depth);
            indent(pr, depth);
            fputs(s->kind == DESC_STEP_REGISTER ? "register\n" : "unregister\n", pr->out);
            break;
        case DESC_STEP_THREADS:
            indent(pr, depth);
            fputs("threads\n", pr->out);
            for (uint32_t t = 0; t < s->n_blocks; t++) {
                indent(pr, depth + 1);
                fputs("thread\n", pr->out);
                put_block(pr, &s->blocks[t], depth + 2);
                indent(pr, depth + 1);
                fputs("end\n", pr->out);
            }
            indent(pr, depth);
            fputs("end\n", pr->out);
            break;
        case DESC_STEP_FORK:
            indent(pr, depth);
            fputs("fork\n", pr->out);
            put_block(pr, &s->blocks[0], depth + 1);
            if (s->blocks[1].n_steps) {
                indent(pr, depth);
                fputs("parent\n", pr->out);
                put_block(pr, &s->blocks[1], depth + 1);
            }
            indent(pr, depth);
            fputs("end\n", pr->out);
            break;
        }
    }
}

int desc_print(FILE *out, const struct desc *d)
{
    struct printer pr = {.out = out};
    fputs("case ", out);
    put_name(&pr, d->case_name);
    fputc('\n', out);
    put_block(&pr, &d->main, 0);
    free(pr.token);
    return fflush(out) || ferror(out) ? -1 : 0;
}
