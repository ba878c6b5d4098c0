/* SPDX-License-Identifier: MIT */
/*
 * Test-only LZNT1 compressor (MS-XCA 2.5): chunks of 4096 input bytes, each compressed
 * on its own (matches never reach into an earlier chunk) with flag bytes and 16-bit
 * words whose distance/length split follows how much of the chunk is done; a chunk that
 * would not shrink is stored. No end-of-buffer mark, as in MS-XCA's example (3.3).
 */
#include <string.h>

#include "xca_compress.h"
#include "xca_match.h"
#include "xca_out.h"

enum { CHUNK = 4096, SIG = 0x3000, COMPRESSED = 0x8000 };

/* Distance bits of a word when u bytes (>= 1) of the chunk are done: 4 up to 16, then
 * one more each time u doubles, at most 12 (MS-XCA 2.5.1.4). */
static unsigned dist_bits(size_t u)
{
    unsigned bits = 4;
    while (bits < 12 && ((size_t)1 << bits) < u)
        bits++;
    return bits;
}

static void chunk(struct xca_out *o, struct xca_matcher *m, const uint8_t *in, size_t cs, size_t ce)
{
    size_t hdr = xca_out_reserve(o, 2), flag_at = 0;
    unsigned items = 0;
    for (size_t ip = cs; ip < ce && !o->full; items++) {
        if (items % 8 == 0)
            flag_at = xca_out_reserve(o, 1);
        size_t u = ip - cs, dist = 0, len = 0;
        unsigned db = dist_bits(u ? u : 1);
        if (u)
            len = xca_matcher_find(m, ip, cs, (size_t)1 << db,
                                   ((size_t)1 << (16 - db)) - 1 + 3 < ce - ip
                                       ? ((size_t)1 << (16 - db)) - 1 + 3
                                       : ce - ip,
                                   &dist);
        if (!len) {
            xca_out_put(o, in[ip++], 1);
            continue;
        }
        xca_out_put(o, (uint64_t)(dist - 1) << (16 - db) | (len - 3), 2);
        if (flag_at < o->cap)
            o->p[flag_at] |= (uint8_t)(1u << (items % 8));
        ip += len;
    }
    if (o->full)
        return;
    size_t stored = o->len - hdr - 2;
    if (stored >= ce - cs) { /* no gain: store the chunk as it is */
        o->len = hdr;
        xca_out_put(o, SIG | (ce - cs - 1), 2);
        if (o->cap - o->len < ce - cs) {
            o->full = 1;
            return;
        }
        memcpy(o->p + o->len, in + cs, ce - cs);
        o->len += ce - cs;
        return;
    }
    xca_out_set(o, hdr, COMPRESSED | SIG | (o->len - hdr - 3), 2);
}

int xca_lznt1_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n)
{
    struct xca_out o = {out, cap, 0, 0};
    struct xca_matcher m;
    if (xca_matcher_init(&m, in, n))
        return -1;
    for (size_t cs = 0; cs < n && !o.full; cs += CHUNK)
        chunk(&o, &m, in, cs, n - cs < CHUNK ? n : cs + CHUNK);
    xca_matcher_free(&m);
    *out_n = o.len;
    return o.full ? -1 : 0;
}
