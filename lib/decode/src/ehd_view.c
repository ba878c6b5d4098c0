/* SPDX-License-Identifier: MIT */
/*
 * ehd_view (internal/ehd_view.h): an EventHeader event taken apart with the decoder's
 * own parse and value cutter, for ehconf's tools. The JSON writer keeps its own cached,
 * allocation-free path (eventheader_json.c); this one favours plainness.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_event.h"
#include "ehd_view.h"
#include "eventheader_wire.h"

/* A decode context over the view's bytes, for the shared parse and cut functions. */
static void view_ctx(struct ehd_ctx *c, const uint8_t *data, size_t size, int be,
                     const char **reason, size_t *err_offset)
{
    memset(c, 0, sizeof *c);
    c->data = data;
    c->size = size;
    c->be = be;
    c->reason = reason;
    c->err_offset = err_offset;
}

int ehd_view_open(struct ehd_view *v, const char *tp_name, size_t tp_name_len, const uint8_t *data,
                  size_t size, const char **reason, size_t *err_offset)
{
    struct ehd_ctx c;
    struct ehd_event_parts ev;
    struct eh_tp_name tp = {0};
    memset(v, 0, sizeof *v);
    view_ctx(&c, data, size, 0, reason, err_offset);
    size_t provider_len, options_start;
    int err = ehd_parse_header(&c);
    if (!err)
        err = ehd_parse_tp_name(&c, tp_name, tp_name_len, data[7], &provider_len, &v->keyword,
                                &options_start);
    if (!err)
        err = ehd_parse_extensions(&c, &ev);
    if (err)
        return err;
    const uint8_t *ename_end = memchr(ev.meta, 0, ev.meta_size);
    if (!ename_end)
        return ehd_fail(&c, EBADMSG, ev.meta_offset,
                        "event name not NUL-terminated in the metadata");
    /* No small_nodes: ehd_parse_fields allocates, and the view owns the result. */
    err = ehd_parse_fields(&c, &ev, (size_t)(ename_end - ev.meta) + 1);
    if (err) {
        free(c.nodes);
        return err;
    }
    /* ehd_parse_tp_name accepted the name, so this parse succeeds too; it adds the group. */
    eh_tp_name_parse(tp_name, tp_name_len, &tp);
    v->provider = tp_name;
    v->provider_len = provider_len;
    v->group = tp.group;
    v->group_len = tp.group_len;
    v->version = data[1];
    v->id = eh_read_u16(data + 2, c.be);
    v->tag = eh_read_u16(data + 4, c.be);
    v->opcode = data[6];
    v->level = data[7];
    v->big_endian = c.be;
    v->name = ev.meta;
    v->name_len = (size_t)(ename_end - ev.meta);
    v->activity = ev.activity;
    v->activity_size = ev.activity_size;
    v->fields = v->owned_ = c.nodes;
    v->n_fields = c.n_nodes;
    v->data = data;
    v->size = size;
    v->payload = ev.payload;
    return 0;
}

void ehd_view_close(struct ehd_view *v)
{
    free(v->owned_);
    memset(v, 0, sizeof *v);
}

int ehd_view_count(const struct ehd_view *v, const struct ehd_node *f, size_t *pos, uint32_t *count,
                   const char **reason, size_t *err_offset)
{
    if (f->array == EH_ENC_CARRAY_FLAG) {
        *count = f->carray_count;
        return 0;
    }
    struct ehd_ctx c;
    view_ctx(&c, v->data, v->size, v->big_endian, reason, err_offset);
    if (f->array != EH_ENC_VARRAY_FLAG)
        return ehd_fail(&c, EINVAL, *pos, "field is not an array");
    if (v->size - *pos < 2) {
        char fname[80];
        return ehd_fail(&c, EBADMSG, *pos, "array field '%s' count runs past the end of the event",
                        ehd_field_name(f, fname, sizeof fname));
    }
    *count = eh_read_u16(v->data + *pos, v->big_endian);
    *pos += 2;
    return 0;
}

int ehd_view_value(const struct ehd_view *v, const struct ehd_node *f, size_t *pos,
                   const uint8_t **value, size_t *size, const char **reason, size_t *err_offset)
{
    struct ehd_ctx c;
    size_t start = 0, next = 0; /* gcc cannot see that ehd_fail returns non-zero */
    view_ctx(&c, v->data, v->size, v->big_endian, reason, err_offset);
    c.pos = *pos;
    int err = ehd_cut_value(&c, f, &start, size, &next);
    if (err)
        return err;
    *value = v->data + start;
    *pos = next;
    return 0;
}
