/* SPDX-License-Identifier: MIT */
/*
 * Fast shortest round-trip digits for float/double (the hot path of
 * ehd_float.c), after Steele & White / Burger & Dybvig's "free-format"
 * algorithm, done in exact 64/128-bit integer arithmetic:
 *
 *   v = f * 2^e. The values that read back as v are those inside the
 *   rounding interval (v - m-, v + m+), endpoints included only when f is
 *   even (strtod rounds ties to even). m- = m+ = half an ulp, except for a
 *   power of two (frac bits 0, not the smallest normal), where the gap below
 *   is half the gap above. Everything is scaled by 2 or 4 so it is integral:
 *   v = r/s, m+ = mp/s, m- = mm/s, then by 10^k so that v + m+ < 1 (r + mp < s).
 *   Digits of v are generated one at a time (r = r*10 mod s); we stop at the
 *   first position where the truncated digits (d) or the next number up
 *   (d + 1) lies inside the interval, choosing the closer one and, on an
 *   exact tie, the even digit (as printf's correctly rounded output does).
 *   This is the shortest length with the closest candidate of that length:
 *   what C++17 to_chars and the reference implementation in ehd_float.c print.
 *
 * Only values whose scaled integers stay below 2^122 are handled (roughly
 * 1e-20 .. 1e35 for doubles, all but the tiniest floats); the caller falls
 * back to the slow, strtod-checked search for the rest.
 */
#include <stdint.h>
#include <string.h>

#include "ehd_float.h"

typedef unsigned __int128 u128;

/* 10^0 .. 10^38 (10^38 < 2^128). */
static u128 pow10_u128(int n)
{
    u128 p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

/* The digit loop in 64-bit arithmetic: used when 20 * s < 2^64, which covers
 * most everyday values (|v| around 1e-3 .. 1e5 for doubles). */
static int digits_u64(uint64_t r, uint64_t s, uint64_t mp, uint64_t mm, int even, char *out)
{
    int n = 0;
    for (;;) {
        r *= 10;
        mp *= 10;
        mm *= 10;
        unsigned d = (unsigned)(r / s);
        r %= s;
        int low = even ? r <= mm : r < mm;
        int high = even ? r + mp >= s : r + mp > s;
        if (!low && !high) {
            out[n++] = (char)('0' + d);
            continue;
        }
        if (low && high) {
            uint64_t r2 = 2 * r;
            if (r2 > s || (r2 == s && (d & 1)))
                d++;
        } else if (high) {
            d++;
        }
        out[n++] = (char)('0' + d);
        return n;
    }
}

static int digits_u128(u128 r, u128 s, u128 mp, u128 mm, int even, char *out)
{
    int n = 0;
    for (;;) {
        r *= 10;
        mp *= 10;
        mm *= 10;
        unsigned d = 0;
        while (r >= s) { /* r < 10 s: at most nine subtractions, cheaper than a 128-bit divide */
            r -= s;
            d++;
        }
        int low = even ? r <= mm : r < mm;
        int high = even ? r + mp >= s : r + mp > s;
        if (!low && !high) {
            out[n++] = (char)('0' + d);
            continue;
        }
        if (low && high) {
            u128 r2 = 2 * r;
            if (r2 > s || (r2 == s && (d & 1)))
                d++;
        } else if (high) {
            d++;
        }
        out[n++] = (char)('0' + d);
        return n;
    }
}

static int bit_length(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    if (hi)
        return 128 - __builtin_clzll(hi);
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

#define LIMIT_BITS 122 /* 20 * s and 2 * (r + mp) * 10 stay below 2^128 */

int ehd_float_shortest_fast(uint64_t f, int e, int lopsided, char *digits, int *ndigits,
                            int *sci_exp)
{
    if (f == 0)
        return 0;
    int flen = 64 - __builtin_clzll(f);
    int sh = lopsided ? 2 : 1;
    u128 r, s, mp, mm;
    if (e >= 0) {
        if (flen + e + sh > LIMIT_BITS)
            return 0;
        r = (u128)f << (e + sh);
        s = (u128)1 << sh;
        mm = (u128)1 << e;
        mp = lopsided ? mm << 1 : mm;
    } else {
        if (sh - e > LIMIT_BITS)
            return 0;
        r = (u128)f << sh;
        s = (u128)1 << (sh - e);
        mm = 1;
        mp = lopsided ? 2 : 1;
    }
    /* k: 10^(k-1) <= v + m+ < 10^k. The estimate from the binary exponent
     * (log10(2) rounded down, minus a little) is k or k - 1. */
    int k = (int)((flen - 1 + e) * 0.30102999566398114 + 1.0 - 1e-10);
    if (flen - 1 + e < 0 && (flen - 1 + e) * 0.30102999566398114 + 1.0 - 1e-10 < k)
        k--; /* the cast truncated toward zero; we want floor */
    if (k > 38 || k < -38)
        return 0;
    if (k >= 0) {
        u128 p = pow10_u128(k);
        if (bit_length(s) + bit_length(p) > LIMIT_BITS)
            return 0;
        s *= p;
    } else {
        u128 p = pow10_u128(-k);
        if (bit_length(r) + bit_length(p) > LIMIT_BITS)
            return 0;
        r *= p;
        mp *= p;
        mm *= p;
    }
    int even = (f & 1) == 0;
    if (even ? r + mp >= s : r + mp > s) {
        if (bit_length(s) + 4 > LIMIT_BITS)
            return 0;
        s *= 10;
        k++;
    }
    if (bit_length(s) > LIMIT_BITS)
        return 0;
    int n;
    if ((s >> 59) == 0)
        n = digits_u64((uint64_t)r, (uint64_t)s, (uint64_t)mp, (uint64_t)mm, even, digits);
    else
        n = digits_u128(r, s, mp, mm, even, digits);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    *ndigits = n;
    *sci_exp = k - 1;
    return 1;
}
