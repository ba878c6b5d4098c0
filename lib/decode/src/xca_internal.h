/* SPDX-License-Identifier: MIT */
/*
 * Internal to the MS-XCA decompressors (xca_*.c, see ehd_xca.h): the error text and
 * the LZ77 back-reference copy they share.
 */
#ifndef XCA_INTERNAL_H
#define XCA_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ehd_xca.h"
#include "eventheader_read.h" /* eh_read_u16/u32: the little-endian loads */

/* Writes the reason into err (printf format) and returns EINVAL. */
__attribute__((format(printf, 2, 3))) int ehd_xca_fail(struct ehd_xca_err *err, const char *fmt,
                                                       ...);

/*
 * Copies len bytes from dist bytes back (dist >= 1, both checked by the caller). A match
 * may overlap what it writes ("aaaa" is 'a' then a match of distance 1, length 3), so
 * only a match that does not overlap may use memcpy; the rest go byte by byte, in order.
 */
static inline void xca_copy_match(uint8_t *out, size_t op, size_t dist, size_t len)
{
    uint8_t *d = out + op;
    const uint8_t *s = d - dist;
    if (dist >= len) {
        memcpy(d, s, len);
        return;
    }
    for (size_t i = 0; i < len; i++)
        d[i] = s[i];
}

/*
 * A match of the two XPRESS formats, checked and copied: dist bytes back from *op, len
 * long, within the want bytes the buffer declares. 0 (and *op advanced), or EINVAL with
 * the reason naming the format `what` and the input byte `at` it came from.
 */
static inline int xca_match(uint8_t *out, size_t *op, size_t want, size_t dist, uint64_t len,
                            const char *what, size_t at, struct ehd_xca_err *err)
{
    if (dist > *op)
        return ehd_xca_fail(err,
                            "%s: match at input byte %zu reaches %zu bytes back, before the "
                            "start (%zu bytes out)",
                            what, at, dist, *op);
    if (len > want - *op)
        return ehd_xca_fail(err,
                            "%s: match at input byte %zu (length %llu) runs past the declared "
                            "%zu bytes",
                            what, at, (unsigned long long)len, want);
    xca_copy_match(out, *op, dist, (size_t)len);
    *op += (size_t)len;
    return 0;
}

#endif /* XCA_INTERNAL_H */
