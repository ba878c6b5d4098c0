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

#endif /* XCA_INTERNAL_H */
