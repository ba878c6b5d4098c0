/* SPDX-License-Identifier: MIT */
/* Growable byte buffer of the TraceLogging encoder (errors are sticky, never a crash). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_encode.h"

void tl_buf_put(struct tl_buf *b, const void *p, size_t n)
{
    if (b->err || n == 0)
        return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n) {
            if (cap > ((size_t)1 << 30)) {
                b->err = E2BIG;
                return;
            }
            cap *= 2;
        }
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->err = ENOMEM;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void tl_buf_u8(struct tl_buf *b, uint8_t v)
{
    tl_buf_put(b, &v, 1);
}

void tl_buf_u16(struct tl_buf *b, uint16_t v)
{
    uint8_t le[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    tl_buf_put(b, le, 2);
}

void tl_buf_free(struct tl_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->err = 0;
}
