/* SPDX-License-Identifier: MIT */
/*
 * Test-only XPRESS "plain LZ77" compressor (MS-XCA 2.3): 32-bit flag words, literals,
 * 16-bit match tokens with distances up to 8192, and every length escape of the format
 * (the shared nibble, the byte, the u16 and the u32), so the decoder's paths all get
 * real data. Greedy matching (xca_match.c).
 */
#include "xca_compress.h"
#include "xca_match.h"
#include "xca_out.h"

enum { XPRESS_MAX_DIST = 8192 };

/* A match's length - 3 beyond the 3-bit field: nibble, byte, u16, u32 (MS-XCA 2.3.4). */
static void long_length(struct xca_out *o, uint64_t l, size_t *half, int *have_half)
{
    l -= 7;
    if (!*have_half) {
        *half = o->len;
        *have_half = 1;
        xca_out_put(o, l < 15 ? l : 15, 1);
    } else {
        /* the second long match since a nibble byte takes its high half */
        if (*half < o->cap)
            o->p[*half] |= (uint8_t)((l < 15 ? l : 15) << 4);
        *have_half = 0;
    }
    if (l < 15)
        return;
    l -= 15;
    if (l < 255) {
        xca_out_put(o, l, 1);
        return;
    }
    xca_out_put(o, 255, 1);
    l += 15 + 7; /* the u16 and u32 count what the 3-bit field and nibble said too */
    if (l < 65536) {
        xca_out_put(o, l, 2);
    } else {
        xca_out_put(o, 0, 2);
        xca_out_put(o, l, 4);
    }
}

int xca_xpress_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n)
{
    struct xca_out o = {out, cap, 0, 0};
    struct xca_matcher m;
    if (xca_matcher_init(&m, in, n))
        return -1;
    uint64_t flags = 0;
    unsigned nflags = 0;
    size_t flag_at = xca_out_reserve(&o, 4), half = 0;
    int have_half = 0;
    for (size_t ip = 0; ip < n && !o.full;) {
        size_t dist = 0, len = xca_matcher_find(&m, ip, 0, XPRESS_MAX_DIST, n - ip, &dist);
        if (!len) {
            xca_out_put(&o, in[ip++], 1);
            flags <<= 1;
        } else {
            uint64_t l = len - 3;
            uint32_t tok = (uint32_t)(dist - 1) << 3;
            xca_out_put(&o, tok | (l < 7 ? l : 7), 2);
            if (l >= 7)
                long_length(&o, l, &half, &have_half);
            ip += len;
            flags = flags << 1 | 1;
        }
        if (++nflags == 32) {
            xca_out_set(&o, flag_at, flags, 4);
            flags = 0;
            nflags = 0;
            flag_at = xca_out_reserve(&o, 4);
        }
    }
    /* the unused flags of the last word are 1s: a match with no input is the end */
    flags = flags << (32 - nflags) | ((1ull << (32 - nflags)) - 1);
    xca_out_set(&o, flag_at, flags, 4);
    xca_matcher_free(&m);
    *out_n = o.len;
    return o.full ? -1 : 0;
}
