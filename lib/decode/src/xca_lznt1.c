/* SPDX-License-Identifier: MIT */
/*
 * LZNT1 decompression (MS-XCA 2.5), which older ETW writers are reported to have used
 * for compressed .etl buffers (Documentation/etl-format.md §9).
 *
 * The stream is chunks, each holding up to 4096 bytes of output and decoded on its own
 * (no match reaches into an earlier chunk). A chunk starts with a u16: bit 15 set when
 * it is compressed, bits 12-14 the signature 3, bits 0-11 the chunk's size minus 3; a
 * u16 of 0 ends the stream early. A compressed chunk is flag bytes, each followed by up
 * to 8 items described from bit 0 up: 0 a literal, 1 a u16 whose high bits are the
 * distance - 1 and low bits the length - 3; the split moves with how much of the chunk
 * is already out (4 distance bits up to 16 bytes, then one more each time it doubles,
 * at most 12).
 */
#include "xca_internal.h"

enum {
    LZNT1_CHUNK = 4096,
    LZNT1_COMPRESSED = 0x8000,
    LZNT1_SIG_MASK = 0x7000,
    LZNT1_SIG = 0x3000,
    LZNT1_SIZE_MASK = 0x0FFF,
};

/* The whole stream a chain of chunk headers with signature 3, each chunk ending where
 * the next header starts, the last at the end of the input or at an end mark followed
 * by nothing but zeros: a much stronger sign than one header. */
int ehd_xca_looks_lznt1(const uint8_t *in, size_t n)
{
    size_t ip = 0;
    while (n - ip >= 2) {
        uint16_t h = eh_read_u16(in + ip, 0);
        if (h == 0) {
            if (ip == 0)
                return 0;
            for (ip += 2; ip < n; ip++)
                if (in[ip])
                    return 0;
            return 1;
        }
        size_t size = (size_t)(h & LZNT1_SIZE_MASK) + 1;
        if ((h & LZNT1_SIG_MASK) != LZNT1_SIG || size > n - ip - 2)
            return 0;
        ip += 2 + size;
    }
    return ip > 0 && ip == n;
}

/* Distance bits for a word when u bytes (>= 1) of the chunk are already out. */
static unsigned dist_bits(size_t u)
{
    unsigned bits = 4;
    while (bits < 12 && ((size_t)1 << bits) < u)
        bits++;
    return bits;
}

/* One compressed chunk, in[ip..end) into out[op..limit); returns EINVAL or 0 and
 * advances *op_io. */
static int chunk(const uint8_t *in, size_t ip, size_t end, uint8_t *out, size_t *op_io,
                 size_t limit, size_t want, struct ehd_xca_err *err)
{
    size_t start = *op_io, op = start;
    while (ip < end) {
        unsigned flags = in[ip++];
        /* bits past the chunk's last byte are ignored (MS-XCA 2.5.3) */
        for (unsigned bit = 0; bit < 8 && ip < end; bit++) {
            if (!(flags >> bit & 1)) {
                if (op == limit)
                    goto past;
                out[op++] = in[ip++];
                continue;
            }
            size_t at = ip;
            if (end - ip < 2)
                return ehd_xca_fail(err, "LZNT1: word at input byte %zu runs past its chunk", at);
            unsigned w = eh_read_u16(in + ip, 0);
            ip += 2;
            size_t u = op - start;
            if (u == 0)
                return ehd_xca_fail(err, "LZNT1: word at input byte %zu starts a chunk", at);
            unsigned db = dist_bits(u);
            size_t dist = (size_t)(w >> (16 - db)) + 1;
            size_t len = (size_t)(w & ((1u << (16 - db)) - 1)) + 3;
            if (dist > u)
                return ehd_xca_fail(err,
                                    "LZNT1: word at input byte %zu reaches %zu bytes back, before "
                                    "the start of its chunk (%zu bytes out)",
                                    at, dist, u);
            if (len > limit - op)
                goto past;
            xca_copy_match(out, op, dist, len);
            op += len;
        }
    }
    *op_io = op;
    return 0;
past:
    if (limit == want)
        return ehd_xca_fail(err, "LZNT1: more data than the declared %zu bytes (input byte %zu)",
                            want, ip);
    return ehd_xca_fail(err, "LZNT1: chunk decodes to more than 4096 bytes (input byte %zu)", ip);
}

int ehd_xca_lznt1(const uint8_t *in, size_t n, uint8_t *out, size_t want, struct ehd_xca_err *err)
{
    size_t ip = 0, op = 0;
    size_t short_at = (size_t)-1; /* a chunk of fewer than 4096 bytes must be the last */
    while (ip < n) {
        if (n - ip < 2)
            return ehd_xca_fail(err, "LZNT1: chunk header at input byte %zu cut short", ip);
        uint16_t h = eh_read_u16(in + ip, 0);
        if (h == 0) /* the end-of-buffer mark */
            break;
        if ((h & LZNT1_SIG_MASK) != LZNT1_SIG)
            return ehd_xca_fail(
                err, "LZNT1: chunk header 0x%04x at input byte %zu has no signature 3", h, ip);
        if (short_at != (size_t)-1)
            return ehd_xca_fail(
                err,
                "LZNT1: the chunk before input byte %zu holds fewer than 4096 bytes "
                "but is not the last",
                ip);
        size_t size = (size_t)(h & LZNT1_SIZE_MASK) + 1, at = ip;
        ip += 2;
        if (size > n - ip)
            return ehd_xca_fail(err, "LZNT1: chunk at input byte %zu (%zu bytes) runs past the end",
                                at, size + 2);
        size_t limit = want - op < LZNT1_CHUNK ? want : op + LZNT1_CHUNK;
        size_t start = op;
        if (h & LZNT1_COMPRESSED) {
            int rc = chunk(in, ip, ip + size, out, &op, limit, want, err);
            if (rc)
                return rc;
        } else {
            if (size > limit - op)
                return ehd_xca_fail(err,
                                    "LZNT1: stored chunk at input byte %zu runs past the declared "
                                    "%zu bytes",
                                    at, want);
            memcpy(out + op, in + ip, size);
            op += size;
        }
        ip += size;
        if (op - start < LZNT1_CHUNK)
            short_at = at;
    }
    if (op != want)
        return ehd_xca_fail(err, "LZNT1: decodes to %zu bytes, %zu declared", op, want);
    return 0;
}
