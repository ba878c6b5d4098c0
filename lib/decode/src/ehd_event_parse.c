/* SPDX-License-Identifier: MIT */
/*
 * EventHeader event structure: the tracepoint name (Documentation/decoder-json.md
 * §2.1, §5), the header's extension chain, and the metadata's field
 * definitions turned into a pre-order tree of nodes (§3). No output here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_event.h"
#include "eventheader_wire.h"

static _Thread_local char reason_buf[200];

/* Sets *reason (formatted into the thread-local buffer) and *err_offset;
 * returns err so callers can write "return ehd_fail(...)". */
int ehd_fail(struct ehd_ctx *c, int err, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason_buf, sizeof reason_buf, fmt, ap);
    va_end(ap);
    *c->reason = reason_buf;
    *c->err_offset = offset;
    return err;
}

/* Printable, bounded copy of a field name for messages. */
const char *ehd_field_name(const struct ehd_node *n, char *dst, size_t cap)
{
    size_t k = 0;
    uint32_t i = 0;
    for (; i < n->name_len && k + 4 < cap; i++) {
        uint8_t ch = n->name[i];
        dst[k++] = (ch >= 0x20 && ch < 0x7F && ch != '\'') ? (char)ch : '?';
    }
    if (i < n->name_len) { /* cut: say so */
        dst[k++] = '.';
        dst[k++] = '.';
        dst[k++] = '.';
    }
    dst[k] = 0;
    return dst;
}

/* ---- tracepoint name --------------------------------------------------- */

int ehd_parse_tp_name(struct ehd_ctx *c, const char *name, size_t n, unsigned level,
                      size_t *provider_len, uint64_t *keyword, size_t *options_start)
{
    static const char *const why[] = {
        [EH_TP_NAME_NO_UNDERSCORE] = "tracepoint name has no '_' before the level and keyword",
        [EH_TP_NAME_NO_LEVEL] = "tracepoint name has no 'L<level>' after the last '_'",
        [EH_TP_NAME_BAD_LEVEL] = "tracepoint name level is not lowercase hex",
        [EH_TP_NAME_NO_KEYWORD] = "tracepoint name has no 'K<keyword>' after the level",
        [EH_TP_NAME_BAD_KEYWORD] = "tracepoint name keyword is not 1..16 lowercase hex digits",
        [EH_TP_NAME_BAD_OPTIONS] = "tracepoint name options are not [A-Z][0-9a-z]* items",
    };
    struct eh_tp_name tp;
    if (memchr(name, 0, n))
        return ehd_fail(c, EINVAL, 0, "tracepoint name contains a NUL byte");
    int r = eh_tp_name_parse(name, n, &tp);
    /* The level is checked as soon as it is read, before what follows it. Both numbers
     * are printed in hex, as the name spells its level: a writer that put the level in
     * decimal shows as "L255 (0x255)" against "0xff". */
    if ((r == EH_TP_NAME_OK || r > EH_TP_NAME_BAD_LEVEL) && tp.level != level)
        return ehd_fail(c, EINVAL, 0,
                        "tracepoint name level L%" PRIx64 " (0x%" PRIx64
                        ") differs from header level 0x%x (both hex)",
                        tp.level, tp.level, level);
    if (r != EH_TP_NAME_OK)
        return ehd_fail(c, EINVAL, 0, "%s", why[r]);
    *provider_len = tp.provider_len;
    *keyword = tp.keyword;
    *options_start = tp.options_start;
    return 0;
}

/* ---- header and extensions --------------------------------------------- */

int ehd_parse_header(struct ehd_ctx *c)
{
    if (c->size < sizeof(struct eh_wire_header))
        return ehd_fail(c, EBADMSG, 0, "event of %zu bytes is shorter than the 8-byte header",
                        c->size);
    if (c->data[0] & ~EH_FLAG_ALL)
        return ehd_fail(c, ENOTSUP, 0, "header flags 0x%02X have unknown bits", c->data[0]);
    c->be = !(c->data[0] & EH_FLAG_LITTLE_ENDIAN);
    return 0;
}

int ehd_parse_extensions(struct ehd_ctx *c, struct ehd_event_parts *ev)
{
    struct eh_ext_walk w;
    struct eh_ext x;
    int r;
    memset(ev, 0, sizeof *ev);
    eh_ext_walk_init(&w, c->data, c->size, c->be);
    while ((r = eh_ext_walk_next(&w, &x)) == EH_EXT_WALK_NEXT) {
        switch (x.kind) {
        case EH_EXT_KIND_INVALID:
            return ehd_fail(c, EBADMSG, x.offset, "extension kind 0 is invalid");
        case EH_EXT_KIND_METADATA:
            if (ev->meta)
                return ehd_fail(c, EBADMSG, x.offset, "event has two metadata extensions");
            ev->meta = c->data + x.body;
            ev->meta_size = x.size;
            ev->meta_offset = x.body;
            break;
        case EH_EXT_KIND_ACTIVITY_ID:
            if (ev->activity)
                return ehd_fail(c, EBADMSG, x.offset, "event has two activity-id extensions");
            if (x.size != 16 && x.size != 32)
                return ehd_fail(c, EBADMSG, x.offset,
                                "activity-id extension size %u is not 16 or 32", x.size);
            ev->activity = c->data + x.body;
            ev->activity_size = x.size;
            break;
        default: break; /* unknown kinds are skipped */
        }
    }
    if (r == EH_EXT_WALK_SHORT_HEADER)
        return ehd_fail(c, EBADMSG, x.offset, "extension header runs past the end of the event");
    if (r == EH_EXT_WALK_SHORT_BODY)
        return ehd_fail(c, EBADMSG, x.offset,
                        "extension of %u bytes runs past the end of the event", x.size);
    if (!ev->meta)
        return ehd_fail(c, EBADMSG, w.pos, "event has no metadata extension");
    ev->payload = w.pos;
    return 0;
}

/* ---- metadata -> field tree -------------------------------------------- */

/* Reads the field definitions after the event name into c->nodes. */
int ehd_parse_fields(struct ehd_ctx *c, const struct ehd_event_parts *ev, size_t fields_start)
{
    const uint8_t *m = ev->meta;
    size_t n = ev->meta_size, pos = fields_start;
    size_t cap = (n - fields_start) / 2 + 1; /* every definition takes >= 2 bytes */
    /* Small events (the common case) use the caller's and this frame's
     * arrays instead of two allocations per event. */
    struct ehd_open_struct open_small[16];
    struct ehd_struct_stack st = {.cap = (uint32_t)(cap < EHD_MAX_DEPTH ? cap : EHD_MAX_DEPTH)};
    c->nodes = cap <= c->small_cap ? c->small_nodes : malloc(cap * sizeof *c->nodes);
    st.open = st.cap <= 16 ? open_small : malloc(st.cap * sizeof *st.open);
    int err = 0;
    if (!c->nodes || !st.open) {
        err = ehd_fail(c, ENOMEM, 0, "out of memory");
        goto out;
    }
    c->n_nodes = 0;
    while (pos < n) {
        size_t def_off = ev->meta_offset + pos;
        const uint8_t *nul = memchr(m + pos, 0, n - pos);
        if (!nul) {
            err = ehd_fail(c, EBADMSG, def_off, "field name not NUL-terminated in the metadata");
            goto out;
        }
        struct ehd_node *nd = &c->nodes[c->n_nodes];
        memset(nd, 0, sizeof *nd);
        nd->name = m + pos;
        nd->name_len = (uint32_t)(nul - (m + pos));
        pos = (size_t)(nul - m) + 1;
        char fname[80];
        if (pos >= n)
            goto trunc;
        uint8_t enc = m[pos++];
        uint8_t fmt = 0;
        if (enc & EH_ENC_CHAIN_FLAG) {
            if (pos >= n)
                goto trunc;
            fmt = m[pos++];
            if (fmt & EH_FMT_CHAIN_FLAG) {
                if (n - pos < 2)
                    goto trunc;
                nd->tag = eh_read_u16(m + pos, c->be);
                pos += 2;
            }
        }
        if (enc & EH_ENC_CARRAY_FLAG && !(enc & EH_ENC_VARRAY_FLAG)) {
            if (n - pos < 2)
                goto trunc;
            nd->carray_count = eh_read_u16(m + pos, c->be);
            pos += 2;
            if (nd->carray_count == 0) {
                err = ehd_fail(c, EBADMSG, def_off, "field '%s' is a carray of 0 elements",
                               ehd_field_name(nd, fname, sizeof fname));
                goto out;
            }
        }
        if ((enc & (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG)) ==
            (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG)) {
            err = ehd_fail(c, ENOTSUP, def_off, "field '%s' has both the carray and varray flags",
                           ehd_field_name(nd, fname, sizeof fname));
            goto out;
        }
        nd->enc = enc & EH_ENC_VALUE_MASK;
        nd->array = enc & (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG);
        nd->fmt = fmt & EH_FMT_VALUE_MASK;
        if (nd->enc == EH_ENC_INVALID || nd->enc >= EH_ENC_MAX) {
            err = ehd_fail(c, ENOTSUP, def_off, "field '%s' has unsupported encoding %u",
                           ehd_field_name(nd, fname, sizeof fname), nd->enc);
            goto out;
        }
        if (nd->enc == EH_ENC_STRUCT && nd->fmt == 0) {
            err = ehd_fail(c, EBADMSG, def_off, "struct field '%s' has 0 members",
                           ehd_field_name(nd, fname, sizeof fname));
            goto out;
        }
        uint32_t idx = c->n_nodes++;
        nd->end = idx + 1;
        if (ehd_struct_push(&st, idx, nd->enc == EH_ENC_STRUCT ? nd->fmt : 0) != 0) {
            err = ehd_fail(c, E2BIG, def_off, "struct nesting deeper than %d levels (ehconf bound)",
                           EHD_MAX_DEPTH);
            goto out;
        }
        for (int64_t k; (k = ehd_struct_pop(&st, 0)) >= 0;)
            c->nodes[k].end = c->n_nodes;
        continue;
    trunc:
        err = ehd_fail(c, EBADMSG, def_off, "metadata ends inside the definition of field '%s'",
                       ehd_field_name(nd, fname, sizeof fname));
        goto out;
    }
    /* Structs still open end early with the metadata (legal). */
    for (int64_t k; (k = ehd_struct_pop(&st, 1)) >= 0;)
        c->nodes[k].end = c->n_nodes;
out:
    if (st.open != open_small)
        free(st.open);
    return err;
}
