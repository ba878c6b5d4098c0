/* SPDX-License-Identifier: MIT */
/* Hand assembly of EventHeader events for the decoder tests (see the header). */
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "support_eh_events.h"

static void put(ehb_bytes *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void put16(ehb_bytes *b, uint16_t v, int be)
{
    uint8_t t[2] = {be ? (uint8_t)(v >> 8) : (uint8_t)v, be ? (uint8_t)v : (uint8_t)(v >> 8)};
    put(b, t, 2);
}

void ehb_init(ehb *e, int big_endian, uint8_t level, const char *event_name)
{
    memset(e, 0, sizeof *e);
    e->big_endian = big_endian;
    e->flags = big_endian ? 0x05 : 0x07;
    e->level = level;
    put(&e->meta, event_name, strlen(event_name) + 1);
}

void ehb_free(ehb *e)
{
    free(e->meta.p);
    free(e->data.p);
    free(e->event.p);
    memset(e, 0, sizeof *e);
}

void ehb_field_ex(ehb *e, const char *name, unsigned enc, int fmt, int tag, int carray)
{
    put(&e->meta, name, strlen(name) + 1);
    uint8_t b = (uint8_t)(enc | (fmt >= 0 ? 0x80 : 0));
    put(&e->meta, &b, 1);
    if (fmt >= 0) {
        b = (uint8_t)(fmt | (tag >= 0 ? 0x80 : 0));
        put(&e->meta, &b, 1);
        if (tag >= 0)
            put16(&e->meta, (uint16_t)tag, e->big_endian);
    }
    if (carray >= 0)
        put16(&e->meta, (uint16_t)carray, e->big_endian);
}

void ehb_field(ehb *e, const char *name, unsigned enc, unsigned fmt)
{
    ehb_field_ex(e, name, enc, fmt ? (int)fmt : -1, -1, -1);
}

void ehb_meta_raw(ehb *e, const void *p, size_t n)
{
    put(&e->meta, p, n);
}

void ehb_u8(ehb *e, uint8_t v)
{
    put(&e->data, &v, 1);
}

void ehb_u16(ehb *e, uint16_t v)
{
    put16(&e->data, v, e->big_endian);
}

void ehb_u32(ehb *e, uint32_t v)
{
    if (e->big_endian) {
        ehb_u16(e, (uint16_t)(v >> 16));
        ehb_u16(e, (uint16_t)v);
    } else {
        ehb_u16(e, (uint16_t)v);
        ehb_u16(e, (uint16_t)(v >> 16));
    }
}

void ehb_u64(ehb *e, uint64_t v)
{
    if (e->big_endian) {
        ehb_u32(e, (uint32_t)(v >> 32));
        ehb_u32(e, (uint32_t)v);
    } else {
        ehb_u32(e, (uint32_t)v);
        ehb_u32(e, (uint32_t)(v >> 32));
    }
}

void ehb_raw(ehb *e, const void *p, size_t n)
{
    put(&e->data, p, n);
}

void ehb_str8(ehb *e, const char *s)
{
    ehb_u16(e, (uint16_t)strlen(s));
    put(&e->data, s, strlen(s));
}

void ehb_sz8(ehb *e, const char *s)
{
    put(&e->data, s, strlen(s) + 1);
}

void ehb_activity(ehb *e, const uint8_t id[16], const uint8_t *related)
{
    e->have_activity = 1;
    memcpy(e->activity, id, 16);
    e->activity_size = 16;
    if (related) {
        memcpy(e->activity + 16, related, 16);
        e->activity_size = 32;
    }
}

const uint8_t *ehb_finish(ehb *e, size_t *len)
{
    ehb_bytes *o = &e->event;
    o->len = 0;
    uint8_t h[2] = {e->flags, e->version};
    put(o, h, 2);
    put16(o, e->id, e->big_endian);
    put16(o, e->tag, e->big_endian);
    h[0] = e->opcode;
    h[1] = e->level;
    put(o, h, 2);
    if (e->have_activity) {
        put16(o, (uint16_t)e->activity_size, e->big_endian);
        put16(o, (uint16_t)(2 | (e->no_metadata ? 0 : 0x8000)), e->big_endian);
        put(o, e->activity, e->activity_size);
    }
    if (!e->no_metadata) {
        put16(o, (uint16_t)e->meta.len, e->big_endian);
        put16(o, 1, e->big_endian);
        put(o, e->meta.p, e->meta.len);
    }
    put(o, e->data.p, e->data.len);
    *len = o->len;
    return o->p;
}

int ehb_decode(ehb *e, const char *tp, unsigned flags, const char **json)
{
    static ehd_buf out;
    size_t len;
    const uint8_t *p = ehb_finish(e, &len);
    const char *reason = NULL;
    size_t off = 0;
    ehd_buf_free(&out);
    int err = ehd_eventheader_json(&out, tp, strlen(tp), p, len, NULL, flags, &reason, &off);
    *json = out.data ? out.data : "";
    return err;
}
