/* SPDX-License-Identifier: MIT */
/*
 * Number text appended to an ehd_buf without printf: the decoder prints
 * several integers per event, and vsnprintf's setup cost (a FILE object per
 * call, format parsing) was a third of the decode time. Output is exactly
 * what "%" PRIu64 / PRId64 / PRIX64 / "%x" print.
 */
#include "ehd_internal.h"

static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

/* Writes the digits backwards from end; returns the first character. */
static char *u64_backwards(char *end, uint64_t v)
{
    char *o = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        o -= 2;
        o[0] = digit_pairs[2 * r];
        o[1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        o -= 2;
        o[0] = digit_pairs[2 * v];
        o[1] = digit_pairs[2 * v + 1];
    } else {
        *--o = (char)('0' + v);
    }
    return o;
}

/* Number of decimal digits of v. */
static unsigned dec_len(uint64_t v)
{
    unsigned n = 1;
    for (; v >= 10000; v /= 10000)
        n += 4;
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Digits go straight to their place: no copy through a scratch array (the
 * small memcpy calls were a tenth of the decode time). */
char *ehd_put_u64(char *o, uint64_t v)
{
    char *end = o + dec_len(v);
    u64_backwards(end, v);
    return end;
}

void ehd_buf_u64(ehd_buf *b, uint64_t v)
{
    char *o = ehd_buf_room(b, 24);
    if (o)
        ehd_buf_commit(b, ehd_put_u64(o, v));
}

void ehd_buf_i64(ehd_buf *b, int64_t v)
{
    char *o = ehd_buf_room(b, 24);
    if (!o)
        return;
    if (v < 0)
        *o++ = '-';
    /* magnitude computed in unsigned arithmetic so INT64_MIN is fine */
    ehd_buf_commit(b, ehd_put_u64(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v));
}

void ehd_buf_hex(ehd_buf *b, uint64_t v, int upper)
{
    const char *xd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char t[16];
    char *o = t + sizeof t;
    do {
        *--o = xd[v & 15];
        v >>= 4;
    } while (v);
    ehd_buf_append_fast(b, o, (size_t)(t + sizeof t - o));
}
