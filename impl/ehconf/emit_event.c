/* SPDX-License-Identifier: MIT */
/*
 * One described event through libeventheader's dynamic builder (eventheader.h): the
 * provider's tracepoint for its level and keyword, eh_builder_reset, one add per field
 * (structs and arrays of structs as begin/next_element/end), eh_builder_write with the
 * activity ids. The builder's errors are sticky, so the first call that fails is the
 * one named.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"

/* "<call> '<field>': <errno name> (<text>)" into why; returns err. */
static int failed(int err, const char *call, const char *field, char *why, size_t cap)
{
    const char *name = strerrorname_np(err);
    char token[64];
    snprintf(why, cap, "%s%s%s%s: %s (%s)", call, field ? " '" : "",
             field ? desc_name_token(field, token, sizeof token) : "", field ? "'" : "",
             name ? name : "errno", strerror(err));
    return err;
}

static int add_fields(eh_builder *b, const struct desc_field *fields, uint32_t n, char *why,
                      size_t cap);

static int add_struct_slice(eh_builder *b, const struct desc_field *f, char *why, size_t cap)
{
    int err = eh_builder_begin_struct_array(b, f->name, f->tag, (uint16_t)f->count);
    if (err)
        return failed(err, "eh_builder_begin_struct_array", f->name, why, cap);
    /* count 0: the one element block gives the members for the metadata */
    for (uint32_t e = 0; e < f->n_members; e++) {
        if (e && (err = eh_builder_next_element(b)))
            return failed(err, "eh_builder_next_element", f->name, why, cap);
        err = add_fields(b, f->members[e].members, f->members[e].n_members, why, cap);
        if (err)
            return err;
    }
    err = eh_builder_end_struct(b);
    return err ? failed(err, "eh_builder_end_struct", f->name, why, cap) : 0;
}

static int add_field(eh_builder *b, const struct desc_field *f, char *why, size_t cap)
{
    int err;
    const char *call;
    switch (f->kind) {
    case DESC_VALUE:
        call = "eh_builder_add_value";
        err = eh_builder_add_value(b, f->name, f->encoding, f->format, f->tag, f->data);
        break;
    case DESC_STRING:
        call = "eh_builder_add_string";
        err = eh_builder_add_string(b, f->name, f->encoding, f->format, f->tag, f->data,
                                    f->size / f->unit);
        break;
    case DESC_VARRAY:
        call = "eh_builder_add_array";
        err = eh_builder_add_array(b, f->name, f->encoding, f->format, f->tag, f->data, f->count);
        break;
    case DESC_CARRAY:
        call = "eh_builder_add_carray";
        err = eh_builder_add_carray(b, f->name, f->encoding, f->format, f->tag, f->data, f->count);
        break;
    case DESC_STRUCT:
        err = eh_builder_begin_struct(b, f->name, f->tag);
        if (err)
            return failed(err, "eh_builder_begin_struct", f->name, why, cap);
        err = add_fields(b, f->members, f->n_members, why, cap);
        if (err)
            return err;
        call = "eh_builder_end_struct";
        err = eh_builder_end_struct(b);
        break;
    default: return add_struct_slice(b, f, why, cap);
    }
    return err ? failed(err, call, f->name, why, cap) : 0;
}

static int add_fields(eh_builder *b, const struct desc_field *fields, uint32_t n, char *why,
                      size_t cap)
{
    for (uint32_t i = 0; i < n; i++) {
        int err = add_field(b, &fields[i], why, cap);
        if (err)
            return err;
    }
    return 0;
}

int emit_event(eh_builder *b, const struct desc_event *e, char *why, size_t cap)
{
    eh_tracepoint *tp = NULL;
    int err = eh_provider_tracepoint(e->provider->user, e->level, e->keyword, &tp);
    if (err)
        return failed(err, "eh_provider_tracepoint", NULL, why, cap);
    return emit_event_on(b, tp, e, why, cap);
}

int emit_event_build(eh_builder *b, const struct desc_event *e, char *why, size_t cap)
{
    int err = eh_builder_reset(b, e->name, e->opcode, e->tag, e->id, e->version);
    if (err)
        return failed(err, "eh_builder_reset", NULL, why, cap);
    return add_fields(b, e->fields, e->n_fields, why, cap);
}

/* The eh_arg of each field that carries data, from *k on; -1 for an array of structs or
 * more than cap. */
static int fill_args(const struct desc_field *f, uint32_t n, eh_arg *args, int k, int cap)
{
    for (uint32_t i = 0; i < n && k >= 0; i++, f++) {
        if (f->kind == DESC_STRUCT) {
            k = fill_args(f->members, f->n_members, args, k, cap);
            continue;
        }
        if (k == cap)
            return -1;
        switch (f->kind) {
        case DESC_VALUE: args[k++] = (eh_arg){f->data, 1}; break;
        case DESC_STRING: args[k++] = (eh_arg){f->data, f->size / f->unit}; break;
        case DESC_VARRAY:
        case DESC_CARRAY: args[k++] = (eh_arg){f->data, f->count}; break;
        default: return -1; /* an array of structs: not preparable */
        }
    }
    return k;
}

int emit_event_args(const struct desc_event *e, eh_arg *args, int cap)
{
    return fill_args(e->fields, e->n_fields, args, 0, cap);
}

int emit_event_on(eh_builder *b, eh_tracepoint *tp, const struct desc_event *e, char *why,
                  size_t cap)
{
    int err = emit_event_build(b, e, why, cap);
    if (err)
        return err;
    err = eh_builder_write(b, tp, e->has_activity ? e->activity : NULL,
                           e->has_related ? e->related : NULL);
    return err ? failed(err, "eh_builder_write", NULL, why, cap) : 0;
}
