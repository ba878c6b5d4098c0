/* SPDX-License-Identifier: MIT */
/*
 * The fast shortest-digits generator (lib/decode/src/ehd_float_shortest.c) and
 * the formatter built on it (ehd_float_fast.c).
 *
 * Hand-checked cases give the expected digits and exponent directly (for
 * doubles taken from Python's repr(), an independent shortest round-trip
 * implementation; for floats from the decimal expansions in the comments).
 * The randomized cases compare ehd_format_float32/64 with the slow
 * strtod-checked reference formatter on random bit patterns, on values
 * inside the fast path's range, and on powers of two (the lopsided case).
 * EHCONF_FLOAT_RANDOM=N sets the count per series (default 20000, a few
 * seconds under ASan; raise it for a longer soak).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_float.h"
#include "ehd.h"
#include "ktap.h"

/* IEEE 754 binary64 fields -> f * 2^e, written out here from the format's
 * definition (not taken from the code under test). */
static int split64(uint64_t u, uint64_t *f, int *e)
{
    unsigned be = (unsigned)(u >> 52) & 0x7FF;
    uint64_t frac = u & ((1ull << 52) - 1);
    *f = be ? frac | 1ull << 52 : frac;
    *e = be ? (int)be - 1075 : -1074;
    return be > 1 && frac == 0;
}

static int split32(uint32_t u, uint64_t *f, int *e)
{
    unsigned be = (u >> 23) & 0xFF;
    uint32_t frac = u & ((1u << 23) - 1);
    *f = be ? frac | 1u << 23 : frac;
    *e = be ? (int)be - 150 : -149;
    return be > 1 && frac == 0;
}

static void expect_digits(uint64_t f, int e, int lop, const char *want, int want_exp)
{
    char d[24];
    int n = -1, x = 999;
    KT_EXPECT_EQ(ehd_float_shortest_fast(f, e, lop, d, &n, &x), 1);
    KT_EXPECT_STR(d, want);
    KT_EXPECT_EQ(n, (int)strlen(want));
    KT_EXPECT_EQ(x, want_exp);
}

static void expect_f64(double v, const char *want, int want_exp)
{
    uint64_t u, f;
    int e;
    memcpy(&u, &v, 8);
    int lop = split64(u, &f, &e);
    expect_digits(f, e, lop, want, want_exp);
}

static void expect_f32(float v, const char *want, int want_exp)
{
    uint32_t u;
    uint64_t f;
    int e;
    memcpy(&u, &v, 4);
    int lop = split32(u, &f, &e);
    expect_digits(f, e, lop, want, want_exp);
}

static void test_doubles_python_repr(void)
{
    expect_f64(3.141592653589793, "3141592653589793", 0); /* repr(math.pi) */
    expect_f64(1.0 / 3.0, "3333333333333333", -1);        /* 0.3333333333333333 */
    expect_f64(0.1, "1", -1);
    expect_f64(0.3, "3", -1);
    expect_f64(0.1 + 0.2, "30000000000000004", -1); /* 0.30000000000000004 */
    expect_f64(1e23, "1", 23);                      /* '1e+23' */
    expect_f64(123456.789, "123456789", 5);
    expect_f64(9007199254740992.0, "9007199254740992", 15);     /* 2^53 */
    expect_f64(0.5, "5", -1);                                   /* lopsided power of two */
    expect_f64(8.673617379884035e-19, "8673617379884035", -19); /* 2^-60 */
    expect_f64(2.86102294921875e-06, "286102294921875", -6);    /* 3 * 2^-20, exact */
    expect_f64(1.0, "1", 0);
    expect_f64(100.0, "1", 2);
    /* Exact ties (values ...185.25 and ...491.625): the even last digit. */
    expect_f64(1961972477945185.25, "19619724779451852", 15);
    expect_f64(76781325334491.625, "7678132533449162", 13);
}

static void test_floats_by_hand(void)
{
    /* 0.1f = 0.100000001490116...; neighbours 0.0999999940... and
     * 0.100000008940...: "0.1" is inside the rounding interval. */
    expect_f32(0.1f, "1", -1);
    /* 1/3f = 0.3333333432674407958984375; 0.3333333 is nearer to the float
     * below, 0.33333334 is the shortest that reads back. */
    expect_f32(1.0f / 3.0f, "33333334", -1);
    /* 2^24 = 16777216, gap below 1, above 2: 1677722e1 is 4 away (outside). */
    expect_f32(16777216.0f, "16777216", 7);
    /* Exact ties between two 8-digit candidates: the even last digit wins. */
    expect_f32(4023748.75f, "40237488", 6);
    expect_f32(28947.1875f, "28947188", 4);
    /* 2^-96 = 1.26217744835361888865876570445245...e-29: the gap below is half
     * the gap above, so 1.2621774e-29 (nearest 8 digits) is outside and its
     * neighbour 1.2621775e-29 is the answer. */
    expect_f32(7.88860905221011805411728565283e-31f * 16.0f, "12621775", -29);
}

/* Out of range values are declined (the caller falls back), never wrong. */
static void test_declines_extremes(void)
{
    char d[24];
    int n, x;
    KT_EXPECT_EQ(ehd_float_shortest_fast(1, -1074, 0, d, &n, &x), 0);              /* 5e-324 */
    KT_EXPECT_EQ(ehd_float_shortest_fast((1ull << 53) - 1, 971, 0, d, &n, &x), 0); /* DBL_MAX */
    KT_EXPECT_EQ(ehd_float_shortest_fast(1, -149, 0, d, &n, &x), 0);               /* 1e-45f */
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    /* xorshift64*: a fixed sequence, so a failure can be reproduced */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static long random_count(void)
{
    const char *s = getenv("EHCONF_FLOAT_RANDOM");
    long n = s ? atol(s) : 0;
    return n > 0 ? n : 20000;
}

static int compare64(uint64_t u)
{
    double v;
    char a[48], b[48];
    memcpy(&v, &u, 8);
    size_t na = ehd_format_float64(a, v);
    size_t nb = ehd_format_float_reference(b, v, 0);
    a[na] = b[nb] = 0;
    if (na == nb && memcmp(a, b, na) == 0)
        return 0;
    printf("# f64 0x%016llx: fast \"%s\" reference \"%s\"\n", (unsigned long long)u, a, b);
    return 1;
}

static int compare32(uint32_t u)
{
    float v;
    char a[48], b[48];
    memcpy(&v, &u, 4);
    size_t na = ehd_format_float32(a, v);
    size_t nb = ehd_format_float_reference(b, (double)v, 1);
    a[na] = b[nb] = 0;
    if (na == nb && memcmp(a, b, na) == 0)
        return 0;
    printf("# f32 0x%08x: fast \"%s\" reference \"%s\"\n", u, a, b);
    return 1;
}

static void test_random_f64_against_reference(void)
{
    long n = random_count(), bad = 0;
    for (long i = 0; i < n && bad < 20; i++) {
        uint64_t r = next_random();
        bad += compare64(r); /* any bit pattern */
        /* biased exponent 900..1150: about 1e-37 .. 1e38, mostly the fast path */
        uint64_t be = 900 + (r >> 53) % 251;
        bad += compare64((r & 0x800FFFFFFFFFFFFFull) | be << 52);
        /* powers of two, and their neighbours */
        uint64_t p = (r >> 52 & 0x7FF) << 52;
        bad += compare64(p) + compare64(p + 1) + compare64(p - 1);
        /* short decimals: integers scaled by powers of ten */
        double d = (double)(int64_t)(r % 100000) / 1000.0;
        uint64_t du;
        memcpy(&du, &d, 8);
        bad += compare64(du);
    }
    KT_EXPECT_EQ(bad, 0);
}

static void test_random_f32_against_reference(void)
{
    long n = random_count(), bad = 0;
    for (long i = 0; i < n && bad < 20; i++) {
        uint64_t r = next_random();
        uint32_t u = (uint32_t)r;
        bad += compare32(u);
        uint32_t p = (uint32_t)(r >> 32) & 0xFF800000u;
        bad += compare32(p) + compare32(p + 1) + compare32(p - 1);
        float f = (float)(int32_t)(r % 100000) / 100.0f;
        memcpy(&u, &f, 4);
        bad += compare32(u);
    }
    KT_EXPECT_EQ(bad, 0);
}

KT_MAIN(KT_CASE(test_doubles_python_repr), KT_CASE(test_floats_by_hand),
        KT_CASE(test_declines_extremes), KT_CASE(test_random_f64_against_reference),
        KT_CASE(test_random_f32_against_reference))
