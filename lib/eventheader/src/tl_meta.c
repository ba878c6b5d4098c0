/* SPDX-License-Identifier: MIT */
/*
 * EventHeader metadata -> TraceLogging event metadata (tracelogging_wire.h), and the
 * node plan that tl_payload.c follows to convert each write's payload. A struct whose
 * metadata ends early gets the member count actually present.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_read.h"
#include "tl_translate.h"

void eh_tl_put_tags(struct eh_buf_ *b, uint32_t tags)
{
    tags &= TL_TAGS_MAX;
    for (;;) {
        uint8_t group = (uint8_t)((tags >> 21) & 0x7F);
        if ((tags & 0x1FFFFF) == 0) {
            eh_buf_u8(b, group);
            return;
        }
        eh_buf_u8(b, (uint8_t)(group | 0x80));
        tags = (tags << 7) & TL_TAGS_MAX;
    }
}

struct meta_ctx {
    const uint8_t *m;
    size_t n, pos;
    struct eh_buf_ *out;
    struct tl_node *nodes;
    uint32_t n_nodes, cap;
    const uint8_t *hints; /* one per field definition, n_hints of them */
    size_t n_hints;
};

/* Translates the field at m[pos] and, for a struct, its members (recursively);
 * returns 0 or an errno. *present is set to 1 when a field was read. */
static int meta_field(struct meta_ctx *c, int in_array, unsigned depth)
{
    const uint8_t *nul = memchr(c->m + c->pos, 0, c->n - c->pos);
    if (!nul)
        return EINVAL;
    size_t name_len = (size_t)(nul - (c->m + c->pos));
    const uint8_t *name = c->m + c->pos;
    c->pos += name_len + 1;
    if (c->pos >= c->n)
        return EINVAL;
    uint8_t enc = c->m[c->pos++], fmt = 0;
    uint16_t tag = 0, carray = 0;
    if (enc & EH_ENC_CHAIN_FLAG) {
        if (c->pos >= c->n)
            return EINVAL;
        fmt = c->m[c->pos++];
        if (fmt & EH_FMT_CHAIN_FLAG) {
            if (c->n - c->pos < 2)
                return EINVAL;
            tag = eh_read_u16(c->m + c->pos, 0);
            c->pos += 2;
        }
    }
    uint8_t array = 0;
    if ((enc & (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG)) ==
        (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG))
        return EINVAL;
    if (enc & EH_ENC_CARRAY_FLAG) {
        if (c->n - c->pos < 2)
            return EINVAL;
        carray = eh_read_u16(c->m + c->pos, 0);
        c->pos += 2;
        if (carray == 0)
            return EINVAL;
        array = TL_IN_CCOUNT;
    } else if (enc & EH_ENC_VARRAY_FLAG) {
        array = TL_IN_VCOUNT;
    }
    if (c->n_nodes == c->cap)
        return EINVAL; /* cannot happen: cap >= fields the metadata can hold */
    uint32_t idx = c->n_nodes++;
    struct tl_node *nd = &c->nodes[idx];
    memset(nd, 0, sizeof *nd);
    nd->enc = enc & EH_ENC_VALUE_MASK;
    nd->array = array;
    nd->carray = carray;
    in_array |= array != 0;

    eh_buf_put(c->out, name, name_len);
    eh_buf_u8(c->out, 0);
    if (nd->enc == EH_ENC_STRUCT) {
        unsigned members = fmt & EH_FMT_VALUE_MASK;
        if (members == 0 || depth >= TL_MAX_DEPTH)
            return EINVAL;
        nd->conv = CV_STRUCT;
        eh_buf_u8(c->out, (uint8_t)(TL_IN_STRUCT | array | TL_IN_CHAIN));
        size_t count_at = c->out->len;
        eh_buf_u8(c->out, (uint8_t)(members | (tag ? TL_OUT_CHAIN : 0)));
        if (tag)
            eh_tl_put_tags(c->out, tag);
        if (array == TL_IN_CCOUNT)
            eh_buf_u16le(c->out, carray);
        unsigned present = 0;
        for (; present < members && c->pos < c->n; present++) {
            int err = meta_field(c, in_array, depth + 1);
            if (err)
                return err;
        }
        /* A struct may end early with the metadata; TraceLogging gets the real count. */
        if (present != members && !c->out->err) {
            if (present == 0)
                return EINVAL;
            c->out->p[count_at] = (uint8_t)(present | (tag ? TL_OUT_CHAIN : 0));
        }
        c->nodes[idx].end = c->n_nodes;
        return 0;
    }
    uint8_t in, out, conv, size = 0;
    int err = eh_tl_map_type(nd->enc, fmt & EH_FMT_VALUE_MASK, in_array, &in, &out, &conv, &size);
    if (err)
        return err;
    if (idx < c->n_hints) /* node idx is the idx-th field definition */
        eh_tl_apply_hint(c->hints[idx], nd->enc, fmt & EH_FMT_VALUE_MASK, in_array, &in, &out);
    nd->conv = conv;
    nd->size = size;
    nd->end = idx + 1;
    if (out || tag) {
        eh_buf_u8(c->out, (uint8_t)(in | array | TL_IN_CHAIN));
        eh_buf_u8(c->out, (uint8_t)(out | (tag ? TL_OUT_CHAIN : 0)));
        if (tag)
            eh_tl_put_tags(c->out, tag);
    } else {
        eh_buf_u8(c->out, (uint8_t)(in | array));
    }
    if (array == TL_IN_CCOUNT)
        eh_buf_u16le(c->out, carray);
    return 0;
}

/* Builds TraceLogging metadata and the node plan from an EventHeader metadata body. */
int eh_tl_build_meta(struct eh_buf_ *out, struct tl_node **nodes_out, uint32_t *n_nodes,
                     const uint8_t *m, size_t n, uint16_t event_tag, const uint8_t *hints,
                     size_t n_hints)
{
    const uint8_t *nul = memchr(m, 0, n);
    if (!nul || nul == m)
        return EINVAL;
    size_t name_len = (size_t)(nul - m);
    struct meta_ctx c = {.m = m,
                         .n = n,
                         .pos = name_len + 1,
                         .out = out,
                         .hints = hints,
                         .n_hints = hints ? n_hints : 0};
    c.cap = (uint32_t)((n - c.pos) / 2 + 1); /* a field definition takes >= 2 bytes */
    c.nodes = malloc(c.cap * sizeof *c.nodes);
    if (!c.nodes)
        return ENOMEM;
    size_t start = out->len;
    eh_buf_u16le(out, 0);
    eh_tl_put_tags(out, event_tag);
    eh_buf_put(out, m, name_len + 1);
    int err = 0;
    while (!err && c.pos < c.n)
        err = meta_field(&c, 0, 0);
    if (!err)
        err = out->err;
    if (!err && out->len - start > 0xFFFF)
        err = E2BIG;
    if (err) {
        free(c.nodes);
        out->len = start;
        return err;
    }
    size_t size = out->len - start;
    out->p[start] = (uint8_t)size;
    out->p[start + 1] = (uint8_t)(size >> 8);
    if (nodes_out) {
        *nodes_out = c.nodes;
        *n_nodes = c.n_nodes;
    } else {
        free(c.nodes);
    }
    return 0;
}

int eh_tl_build_event_meta(struct eh_buf_ *out, const uint8_t *eh_meta, size_t eh_meta_len,
                           uint16_t event_tag)
{
    return eh_tl_build_meta(out, NULL, NULL, eh_meta, eh_meta_len, event_tag, NULL, 0);
}

int eh_tl_build_event_meta_hinted(struct eh_buf_ *out, const uint8_t *eh_meta, size_t eh_meta_len,
                                  uint16_t event_tag, const uint8_t *hints, size_t n_hints)
{
    return eh_tl_build_meta(out, NULL, NULL, eh_meta, eh_meta_len, event_tag, hints, n_hints);
}
