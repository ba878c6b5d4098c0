/* SPDX-License-Identifier: MIT */
/*
 * Reading EventHeader bytes (eventheader_wire.h): byte-order-explicit loads and the
 * walker of the extension chain. Header-only (static inline), so that the writer's
 * TraceLogging translation (lib/eventheader/src/tl_*.c) and the decoder (lib/decode)
 * read events with the same code while libeventheader depends on nothing of
 * lib/decode and the decoder links no code of libeventheader.
 */
#ifndef EVENTHEADER_READ_H
#define EVENTHEADER_READ_H

#include <stddef.h>
#include <stdint.h>

#include "eventheader_wire.h"

/* Unaligned loads in the given byte order (an event's header flags, or a perf file's
 * header, say which); big_endian 0 is little-endian. The byte shifts compile to one
 * load (plus a swap) on common targets and never read past the value. */
static inline uint16_t eh_read_u16(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t eh_read_u32(const uint8_t *p, int big_endian)
{
    uint32_t lo = eh_read_u16(p + (big_endian ? 2 : 0), big_endian);
    uint32_t hi = eh_read_u16(p + (big_endian ? 0 : 2), big_endian);
    return hi << 16 | lo;
}

static inline uint64_t eh_read_u64(const uint8_t *p, int big_endian)
{
    uint64_t lo = eh_read_u32(p + (big_endian ? 4 : 0), big_endian);
    uint64_t hi = eh_read_u32(p + (big_endian ? 0 : 4), big_endian);
    return hi << 32 | lo;
}

/* An unsigned integer of n bytes (0..8), for formats whose field widths are data. */
static inline uint64_t eh_read_uint(const uint8_t *p, size_t n, int big_endian)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[big_endian ? i : n - 1 - i];
    return v;
}

/* ---- the extension chain ------------------------------------------------ */

/* One extension: its 4-byte header at offset, size payload bytes at body. */
struct eh_ext {
    size_t offset;
    size_t body;
    uint16_t size;
    uint16_t kind; /* EH_EXT_KIND_*, chain bit removed */
};

/* Cursor over the chain that follows the 8-byte header. */
struct eh_ext_walk {
    const uint8_t *event; /* the bytes after the write index */
    size_t len, pos;      /* pos: the next extension, or the payload when done */
    int big_endian, more;
};

enum {
    EH_EXT_WALK_NEXT = 1,          /* *x is the next extension */
    EH_EXT_WALK_END = 0,           /* no more; w->pos is the payload's offset */
    EH_EXT_WALK_SHORT_HEADER = -1, /* an extension header runs past the end (x->offset) */
    EH_EXT_WALK_SHORT_BODY = -2,   /* x->size bytes of payload run past the end */
};

/* event holds len >= sizeof(struct eh_wire_header) bytes; the header's
 * EH_FLAG_EXTENSION says whether a chain follows. */
static inline void eh_ext_walk_init(struct eh_ext_walk *w, const uint8_t *event, size_t len,
                                    int big_endian)
{
    w->event = event;
    w->len = len;
    w->pos = sizeof(struct eh_wire_header);
    w->big_endian = big_endian;
    w->more = (event[0] & EH_FLAG_EXTENSION) != 0;
}

/* Steps to the next extension; returns one of EH_EXT_WALK_*. Only the bounds are
 * checked: what a kind or size means is the caller's (the decoder reports more
 * malformations than the encoder needs to). */
static inline int eh_ext_walk_next(struct eh_ext_walk *w, struct eh_ext *x)
{
    if (!w->more)
        return EH_EXT_WALK_END;
    x->offset = w->pos;
    if (w->len - w->pos < 4)
        return EH_EXT_WALK_SHORT_HEADER;
    uint16_t kind = eh_read_u16(w->event + w->pos + 2, w->big_endian);
    x->size = eh_read_u16(w->event + w->pos, w->big_endian);
    x->kind = kind & EH_EXT_KIND_MASK;
    x->body = w->pos + 4;
    if (w->len - x->body < x->size)
        return EH_EXT_WALK_SHORT_BODY;
    w->pos = x->body + x->size;
    w->more = (kind & EH_EXT_CHAIN) != 0;
    return EH_EXT_WALK_NEXT;
}

#endif /* EVENTHEADER_READ_H */
