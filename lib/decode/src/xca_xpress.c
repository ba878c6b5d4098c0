/* SPDX-License-Identifier: MIT */
/*
 * XPRESS "plain LZ77" decompression (MS-XCA 2.4), what Windows 8 and later use for
 * compressed .etl buffers (Documentation/etl-format.md §9).
 *
 * The stream is 32-bit little-endian flag words, each followed by the items its bits
 * describe, most significant bit first: 0 a literal byte, 1 a 16-bit match token
 * (distance (T >> 3) + 1, length T & 7 plus 3). Length 7 continues in a nibble (two
 * long matches share one byte: low nibble first), 15 in a byte, 255 in a u16 and a u16
 * of 0 in a u32. The compressor pads the last flag word with 1 bits, so a match flag
 * with no input left is the end of the stream, and every flag bit after it must be 1
 * too: the check that keeps a stream of another algorithm from passing for XPRESS when
 * it happens to decode to the right size (etl-format.md §9.2).
 */
#include "xca_internal.h"

int ehd_xca_xpress(const uint8_t *in, size_t n, uint8_t *out, size_t want, struct ehd_xca_err *err)
{
    size_t ip = 0, op = 0;
    size_t half = 0; /* the byte whose high nibble the next long match uses */
    int have_half = 0;
    uint32_t flags = 0;
    unsigned nflags = 0;
    for (;;) {
        if (nflags == 0) {
            if (n - ip < 4)
                return ehd_xca_fail(err, "XPRESS: flag word cut short at input byte %zu", ip);
            flags = eh_read_u32(in + ip, 0);
            ip += 4;
            nflags = 32;
        }
        nflags--;
        if (!(flags >> nflags & 1)) {
            if (ip == n)
                return ehd_xca_fail(err, "XPRESS: input ends where a literal is due (byte %zu)",
                                    ip);
            if (op == want)
                return ehd_xca_fail(err,
                                    "XPRESS: more data than the declared %zu bytes (literal at "
                                    "input byte %zu)",
                                    want, ip);
            out[op++] = in[ip++];
            continue;
        }
        if (ip == n) { /* the padding flags after the last item */
            uint32_t pad = nflags ? (uint32_t)((1ull << nflags) - 1) : 0;
            if ((flags & pad) != pad)
                return ehd_xca_fail(err,
                                    "XPRESS: input ends at byte %zu where its last flag word says "
                                    "more items follow",
                                    ip);
            if (op != want)
                return ehd_xca_fail(err, "XPRESS: decodes to %zu bytes, %zu declared", op, want);
            return 0;
        }
        size_t at = ip;
        if (n - ip < 2)
            return ehd_xca_fail(err, "XPRESS: match token at input byte %zu runs past the end", at);
        uint32_t tok = eh_read_u16(in + ip, 0);
        ip += 2;
        uint64_t len = tok & 7;
        size_t dist = (size_t)(tok >> 3) + 1;
        if (len == 7) {
            if (!have_half) {
                if (ip == n)
                    return ehd_xca_fail(err,
                                        "XPRESS: length of the match at input byte %zu runs "
                                        "past the end",
                                        at);
                len = in[ip] & 15;
                half = ip++;
                have_half = 1;
            } else {
                len = in[half] >> 4;
                have_half = 0;
            }
            if (len == 15) {
                if (ip == n)
                    return ehd_xca_fail(err,
                                        "XPRESS: length of the match at input byte %zu runs "
                                        "past the end",
                                        at);
                len = in[ip++];
                if (len == 255) {
                    if (n - ip < 2)
                        return ehd_xca_fail(err,
                                            "XPRESS: length of the match at input byte %zu "
                                            "runs past the end",
                                            at);
                    len = eh_read_u16(in + ip, 0);
                    ip += 2;
                    if (len == 0) {
                        if (n - ip < 4)
                            return ehd_xca_fail(err,
                                                "XPRESS: length of the match at input byte "
                                                "%zu runs past the end",
                                                at);
                        len = eh_read_u32(in + ip, 0);
                        ip += 4;
                    }
                    /* the escaped value counts the 15 + 7 already given */
                    if (len < 15 + 7)
                        return ehd_xca_fail(err, "XPRESS: bad long length at input byte %zu", at);
                    len -= 15 + 7;
                }
                len += 15;
            }
            len += 7;
        }
        len += 3;
        int rc = xca_match(out, &op, want, dist, len, "XPRESS", at, err);
        if (rc)
            return rc;
    }
}
