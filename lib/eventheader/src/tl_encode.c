/* SPDX-License-Identifier: MIT */
/*
 * One EventHeader event -> one TraceLogging event (internal/tl_encode.h): the header,
 * the extension chain (eventheader_read.h's walker: metadata, activity ids), the
 * translation of the metadata from the cache, and the payload. The jobs themselves are
 * in tl_typemap.c, tl_meta.c, tl_cache.c and tl_payload.c (tl_translate.h).
 * Only little-endian EventHeader events are translated (EINVAL otherwise).
 */
#include <errno.h>
#include <stdlib.h>

#include "eh_internal.h"
#include "eventheader_read.h"
#include "tl_translate.h"

void eh_tl_event_release(struct eh_tl_event *ev)
{
    eh_buf_free(&ev->data);
    eh_tl_def_free(ev->owned_);
    ev->owned_ = NULL;
    ev->meta = NULL;
    ev->meta_len = 0;
}

int eh_tl_event_fits(size_t provider_meta_len, const struct eh_tl_event *ev)
{
    size_t total = provider_meta_len + ev->meta_len + ev->data.len;
    return total > EH_TL_EVENT_MAX ? E2BIG : 0;
}

int eh_tl_from_eventheader(struct eh_tl_event *ev, const uint8_t *e, size_t len)
{
    return eh_tl_from_eventheader_hinted(ev, e, len, NULL, 0);
}

int eh_tl_from_eventheader_hinted(struct eh_tl_event *ev, const uint8_t *e, size_t len,
                                  const uint8_t *hints, size_t n_hints)
{
    eh_tl_def_free(ev->owned_);
    ev->owned_ = NULL;
    ev->meta = NULL;
    ev->meta_len = 0;
    ev->data.len = 0;
    ev->data.err = 0;
    if (len < sizeof(struct eh_wire_header))
        return EINVAL;
    if ((e[0] & ~EH_FLAG_ALL) || !(e[0] & EH_FLAG_LITTLE_ENDIAN))
        return EINVAL;
    ev->version = e[1];
    ev->id = eh_read_u16(e + 2, 0);
    uint16_t tag = eh_read_u16(e + 4, 0);
    ev->opcode = e[6];
    ev->level = e[7];
    ev->activity = ev->related = NULL;
    const uint8_t *meta = NULL;
    size_t meta_len = 0;
    struct eh_ext_walk w;
    struct eh_ext x;
    int r;
    eh_ext_walk_init(&w, e, len, 0);
    while ((r = eh_ext_walk_next(&w, &x)) == EH_EXT_WALK_NEXT) {
        if (x.kind == EH_EXT_KIND_METADATA) {
            meta = e + x.body;
            meta_len = x.size;
        } else if (x.kind == EH_EXT_KIND_ACTIVITY_ID) {
            if (x.size != 16 && x.size != 32)
                return EINVAL;
            ev->activity = e + x.body;
            ev->related = x.size == 32 ? e + x.body + 16 : NULL;
        }
    }
    if (r != EH_EXT_WALK_END || !meta)
        return EINVAL;
    const struct tl_def *d;
    int err = eh_tl_def_lookup(meta, meta_len, tag, hints, n_hints, &d, &ev->owned_);
    if (err)
        return err;
    ev->meta = d->tl_meta;
    ev->meta_len = d->tl_len;
    return eh_tl_put_payload(&ev->data, d, e, len, w.pos);
}

int eh_tl_from_write(struct eh_buf_ *flat, struct eh_tl_event *ev, const struct iovec *iov,
                     int iovcnt, size_t event_len, size_t provider_meta_len,
                     const struct eh_tl_hints *hints)
{
    for (int i = EH_IOV_BACKEND; i < iovcnt; i++)
        eh_buf_put(flat, iov[i].iov_base, iov[i].iov_len);
    int err = flat->err ? flat->err : flat->len != event_len ? EINVAL : 0;
    if (!err)
        err = eh_tl_from_eventheader_hinted(ev, flat->p, flat->len, hints ? hints->p : NULL,
                                            hints ? hints->n : 0);
    if (!err) /* both TraceLogging backends refuse alike (tl_encode.h) */
        err = eh_tl_event_fits(provider_meta_len, ev);
    return err;
}
