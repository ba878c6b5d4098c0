/* SPDX-License-Identifier: MIT */
/*
 * ehd_format_float32/64: the same text as the reference formatter in
 * ehd_float.c (shortest round-trip digits, C++17 to_chars notation rules, see
 * there), without printf or strtod: digits come from ehd_float_shortest.c and
 * the notation is written by hand. Values the fast digit generator does not
 * cover (extreme exponents) go to the reference.
 */
#include <stdint.h>
#include <string.h>

#include "ehd_float.h"
#include "ehd.h"

typedef unsigned __int128 u128;

/* Decimal text of an integer (at most 39 digits); returns the length. */
static size_t put_uint(char *o, u128 v)
{
    char t[40];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + (unsigned)(v % 10));
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        o[i] = t[n - 1 - i];
    return n;
}

static size_t put_str(char *o, const char *s)
{
    size_t n = strlen(s);
    memcpy(o, s, n + 1);
    return n;
}

struct mantissa {
    uint64_t f;
    int e;
};

/* The exact integer f * 2^e. It is an integer whenever ehd_float_layout asks: an
 * integer inside the rounding interval of a value whose ulp is below 1 would be a
 * different representable value, and fixed notation keeps it below 10^23, so it
 * fits in 128 bits. */
static size_t integer_text(char *out, const void *ctx)
{
    const struct mantissa *m = ctx;
    u128 iv = m->e >= 0 ? (u128)m->f << m->e : (u128)(m->f >> -m->e);
    return put_uint(out, iv);
}

/* v = f * 2^e (f < 2^53), sign shown by neg; the value is finite and non-zero. */
static size_t format_finite(char *dst, uint64_t f, int e, int lopsided, int neg, double v,
                            int is_float)
{
    char digits[24];
    int n, E;
    if (!ehd_float_shortest_fast(f, e, lopsided, digits, &n, &E))
        return ehd_format_float_reference(dst, v, is_float);
    char *o = dst;
    if (neg)
        *o++ = '-';
    struct mantissa m = {f, e};
    return (size_t)(o - dst) + ehd_float_layout(o, digits, n, E, integer_text, &m);
}

size_t ehd_format_float64(char *dst, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    int neg = (int)(u >> 63);
    unsigned be = (unsigned)(u >> 52) & 0x7FF;
    uint64_t frac = u & 0xFFFFFFFFFFFFFull;
    if (be == 0x7FF)
        return put_str(dst, frac ? (neg ? "-nan" : "nan") : (neg ? "-inf" : "inf"));
    if (be == 0 && frac == 0)
        return put_str(dst, neg ? "-0" : "0");
    if (be == 0)
        return format_finite(dst, frac, -1074, 0, neg, v, 0);
    return format_finite(dst, frac | 1ull << 52, (int)be - 1075, frac == 0 && be > 1, neg, v, 0);
}

size_t ehd_format_float32(char *dst, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    int neg = (int)(u >> 31);
    unsigned be = (u >> 23) & 0xFF;
    uint32_t frac = u & 0x7FFFFFu;
    if (be == 0xFF)
        return put_str(dst, frac ? (neg ? "-nan" : "nan") : (neg ? "-inf" : "inf"));
    if (be == 0 && frac == 0)
        return put_str(dst, neg ? "-0" : "0");
    if (be == 0)
        return format_finite(dst, frac, -149, 0, neg, (double)v, 1);
    return format_finite(dst, frac | 1u << 23, (int)be - 150, frac == 0 && be > 1, neg, (double)v,
                         1);
}
