/* SPDX-License-Identifier: MIT */
/* The growable byte buffer of eh_buf.h: metadata, builder payload, TraceLogging. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_buf.h"

void eh_buf_reserve(struct eh_buf_ *b, size_t more)
{
    if (b->err || b->cap - b->len >= more)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more) {
        if (cap > SIZE_MAX / 2) {
            b->err = ENOMEM;
            return;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->err = ENOMEM;
        return;
    }
    b->p = p;
    b->cap = cap;
}

void eh_buf_put_slow(struct eh_buf_ *b, const void *p, size_t len)
{
    if (!len)
        return;
    eh_buf_reserve(b, len);
    if (b->err)
        return;
    memcpy(b->p + b->len, p, len);
    b->len += len;
}

void eh_buf_u16le(struct eh_buf_ *b, uint16_t v)
{
    uint8_t le[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    eh_buf_put(b, le, 2);
}

void eh_buf_u64le(struct eh_buf_ *b, uint64_t v)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    eh_buf_put(b, le, 8);
}

void eh_buf_free(struct eh_buf_ *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->err = 0;
}
