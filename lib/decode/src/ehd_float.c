/* SPDX-License-Identifier: MIT */
/*
 * Shortest round-trip float/double text, reproducing what C++17
 * std::to_chars(first, last, value) prints (Documentation/decoder-json.md §4.4):
 *
 *  1. Digits: the fewest significant decimal digits that read back (strtod /
 *     strtof) as the same value; among candidates of that length the one
 *     closest to the exact value. For each length p we take printf's correctly
 *     rounded p-digit value and, if it does not read back and the value is a
 *     power of two (the only place where the rounding interval is lopsided:
 *     the gap below is half the gap above), its two decimal neighbours, as
 *     there the nearest p-digit number may miss while the next one hits.
 *  2. Notation: fixed if it is not longer than scientific (ties -> fixed).
 *     Fixed notation of an integer value prints the exact integer
 *     (f32 123456789 -> "123456792", not "123456790"), as to_chars does.
 *  3. Scientific exponent "e+dd"/"e-dd", at least two digits.
 *  Non-finite values: "nan", "-nan" (sign bit shown), "inf", "-inf".
 *
 * This file is the reference: simple and checked by strtod, but about 8 us
 * a double. ehd_format_float32/64 (ehd_float_fast.c) use the integer digit
 * generator of ehd_float_shortest.c and come here only for the values it
 * does not cover; the unit tests compare both on millions of values.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_float.h"
#include "ehd.h"

/* Does the decimal D * 10^exp10 read back as the value? */
static int reads_back(unsigned long long d, int exp10, double v, int is_float)
{
    char t[48];
    snprintf(t, sizeof t, "%llue%d", d, exp10);
    if (is_float)
        return strtof(t, NULL) == (float)v;
    return strtod(t, NULL) == v;
}

/* Is av (finite, > 0) a power of two with a smaller gap below it than above?
 * Only then is the rounding interval lopsided (see step 1 above). */
static int lopsided(double av, int is_float)
{
    if (is_float) {
        float f = (float)av;
        uint32_t u;
        memcpy(&u, &f, 4);
        return (u & 0x7FFFFFu) == 0 && (u >> 23) > 1;
    }
    uint64_t u;
    memcpy(&u, &av, 8);
    return (u & 0xFFFFFFFFFFFFFull) == 0 && (u >> 52) > 1;
}

/* Parses printf's "d.ddde[+-]xx" into digits (no point) and the exponent. */
static int parse_e(const char *t, char *digits, int *n)
{
    int k = 0;
    const char *c = t;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9')
            digits[k++] = *c;
    digits[k] = 0;
    *n = k;
    return atoi(c + 1);
}

static unsigned long long digits_value(const char *d, int n)
{
    unsigned long long m = 0;
    for (int i = 0; i < n; i++)
        m = m * 10 + (unsigned long long)(d[i] - '0');
    return m;
}

/*
 * Finds the shortest digits for |v| (finite, non-zero). Writes the digits
 * (no trailing zeros, NUL-terminated) to digits and returns the scientific
 * exponent E: value = d.ddd * 10^E.
 *
 * The correctly rounded p-digit value is derived from one correctly rounded
 * maxp-digit printf (maxp = 9 / 17 always reads back). Rounding that string
 * again is exact unless its tail after p digits is exactly "50...0" (it may
 * itself have been rounded to look like a tie); then printf is asked for p
 * digits directly.
 */
static int shortest_digits(double av, int is_float, char *digits)
{
    int maxp = is_float ? 9 : 17;
    char t[48], full[24], alt[24];
    int nfull, nalt;
    snprintf(t, sizeof t, "%.*e", maxp - 1, av);
    int E = parse_e(t, full, &nfull);
    int check_neighbours = lopsided(av, is_float);
    unsigned long long d = digits_value(full, nfull);
    int e10 = E - (nfull - 1);
    for (int p = 1; p < maxp; p++) {
        unsigned long long m;
        int x = E - (p - 1);
        int tie = full[p] == '5';
        for (int i = p + 1; i < nfull && tie; i++)
            tie = full[i] == '0';
        if (tie) {
            snprintf(t, sizeof t, "%.*e", p - 1, av);
            x = parse_e(t, alt, &nalt) - (p - 1);
            m = digits_value(alt, nalt);
        } else {
            m = digits_value(full, p) + (full[p] >= '5');
        }
        unsigned long long lo = 1;
        for (int i = 1; i < p; i++)
            lo *= 10;
        unsigned long long hi = lo * 10; /* p-digit numbers are [lo, hi) */
        if (m == hi) {
            m = lo;
            x++;
        }
        if (reads_back(m, x, av, is_float)) {
            d = m;
            e10 = x;
            break;
        }
        if (!check_neighbours)
            continue;
        unsigned long long up = m + 1, down = m - 1;
        int xup = x, xdown = x;
        if (up == hi) {
            up = lo;
            xup = x + 1;
        }
        if (m == lo) {
            down = hi - 1;
            xdown = x - 1;
        }
        if (reads_back(up, xup, av, is_float)) {
            d = up;
            e10 = xup;
            break;
        }
        if (reads_back(down, xdown, av, is_float)) {
            d = down;
            e10 = xdown;
            break;
        }
    }
    while (d > 9 && d % 10 == 0) {
        d /= 10;
        e10++;
    }
    int n = snprintf(digits, 24, "%llu", d);
    return e10 + n - 1;
}

/* %.0f prints a double that holds an integer exactly. */
static size_t integer_text(char *out, const void *ctx)
{
    return (size_t)sprintf(out, "%.0f", *(const double *)ctx);
}

size_t ehd_float_layout(char *o, const char *digits, int n, int E,
                        size_t (*exact_integer)(char *out, const void *ctx), const void *ctx)
{
    char *start = o;
    int ryu_exp = E - (n - 1); /* value = digits * 10^ryu_exp */
    int sci_len = n + (n > 1) + 2 + (E >= 100 || E <= -100 ? 3 : 2);
    int fixed_len;
    if (ryu_exp >= 0)
        fixed_len = n + ryu_exp;
    else if (E >= 0)
        fixed_len = n + 1;
    else
        fixed_len = 1 - E + n;

    if (fixed_len <= sci_len) {
        if (ryu_exp >= 0) {
            o += exact_integer(o, ctx);
        } else if (E >= 0) {
            memcpy(o, digits, (size_t)E + 1);
            o += E + 1;
            *o++ = '.';
            memcpy(o, digits + E + 1, (size_t)(n - E - 1));
            o += n - E - 1;
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -E - 1; i++)
                *o++ = '0';
            memcpy(o, digits, (size_t)n);
            o += n;
        }
    } else {
        *o++ = digits[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)n - 1);
            o += n - 1;
        }
        *o++ = 'e';
        *o++ = E < 0 ? '-' : '+';
        unsigned ae = (unsigned)(E < 0 ? -E : E);
        if (ae >= 100)
            *o++ = (char)('0' + ae / 100);
        *o++ = (char)('0' + ae / 10 % 10);
        *o++ = (char)('0' + ae % 10);
    }
    *o = 0;
    return (size_t)(o - start);
}

size_t ehd_format_float_reference(char *dst, double v, int is_float)
{
    char *o = dst;
    if (isnan(v))
        return (size_t)sprintf(dst, "%s", signbit(v) ? "-nan" : "nan");
    if (signbit(v))
        *o++ = '-';
    double av = fabs(v);
    if (isinf(av))
        return (size_t)(o - dst) + (size_t)sprintf(o, "inf");
    if (av == 0)
        return (size_t)(o - dst) + (size_t)sprintf(o, "0");

    char digits[24];
    int E = shortest_digits(av, is_float, digits);
    int n = (int)strlen(digits);
    return (size_t)(o - dst) + ehd_float_layout(o, digits, n, E, integer_text, &av);
}
