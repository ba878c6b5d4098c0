/* SPDX-License-Identifier: MIT */
/*
 * The writer's one growable byte buffer (struct eh_buf_, declared in eventheader.h
 * because eh_builder holds two): EventHeader metadata, the dynamic builder's payload
 * and every TraceLogging translation (metadata, payload) are built in it. Errors are
 * sticky: after a failed growth err is ENOMEM and later appends are dropped, so callers
 * check once at the end. Zero-initialise before the first use; buf.c.
 */
#ifndef EH_BUF_H
#define EH_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "eventheader.h"

void eh_buf_reserve(struct eh_buf_ *b, size_t more);
/* eh_buf_put's way when the bytes do not fit (or err is set): grow, then append. */
void eh_buf_put_slow(struct eh_buf_ *b, const void *p, size_t len);

/* Appends len bytes. Inline because an event is dozens of appends of a few bytes each
 * (a name, an encoding byte, a value): with room in the buffer, which is the case for
 * every event after the first, an append is a bounds check and a copy the compiler
 * turns into a store (make bench-impls: the dynamic builder's 5-field event went from
 * 2,428 to 1,883 instructions with this, Documentation/performance.md). */
static inline void eh_buf_put(struct eh_buf_ *b, const void *p, size_t len)
{
    if (!b->err && b->cap - b->len >= len && len) {
        memcpy(b->p + b->len, p, len);
        b->len += len;
        return;
    }
    eh_buf_put_slow(b, p, len);
}

static inline void eh_buf_u8(struct eh_buf_ *b, uint8_t v)
{
    eh_buf_put(b, &v, 1);
}

/* Host byte order: EventHeader events are in the producer's order (the header flags
 * say which). */
static inline void eh_buf_u16(struct eh_buf_ *b, uint16_t v)
{
    eh_buf_put(b, &v, 2);
}

/* Little-endian, whatever the host: TraceLogging and the .tlcap format. */
void eh_buf_u16le(struct eh_buf_ *b, uint16_t v);
void eh_buf_u64le(struct eh_buf_ *b, uint64_t v);
void eh_buf_free(struct eh_buf_ *b);

#endif /* EH_BUF_H */
