/* SPDX-License-Identifier: MIT */
/* The bounded output the test compressors write into: past cap, nothing is written and
 * full is set (the compressor then returns 0). Little-endian, as MS-XCA is. */
#ifndef XCA_OUT_H
#define XCA_OUT_H

#include <stddef.h>
#include <stdint.h>

struct xca_out {
    uint8_t *p;
    size_t cap, len;
    int full;
};

/* Reserves k bytes at the end, returning their position (or cap when they do not fit). */
static inline size_t xca_out_reserve(struct xca_out *o, size_t k)
{
    if (o->cap - o->len < k) {
        o->full = 1;
        return o->cap;
    }
    size_t at = o->len;
    for (size_t i = 0; i < k; i++)
        o->p[o->len++] = 0;
    return at;
}

/* Stores a k-byte little-endian value at a reserved position. */
static inline void xca_out_set(struct xca_out *o, size_t at, uint64_t v, size_t k)
{
    if (at > o->cap || o->cap - at < k)
        return; /* a reservation that failed (full is set) */
    for (size_t i = 0; i < k; i++)
        o->p[at + i] = (uint8_t)(v >> (8 * i));
}

static inline void xca_out_put(struct xca_out *o, uint64_t v, size_t k)
{
    xca_out_set(o, xca_out_reserve(o, k), v, k);
}

#endif /* XCA_OUT_H */
