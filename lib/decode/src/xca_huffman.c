/* SPDX-License-Identifier: MIT */
/*
 * XPRESS Huffman ("LZ77+Huffman") decompression (MS-XCA 2.2), recognised in compressed
 * .etl buffers beside plain XPRESS and LZNT1 (Documentation/etl-format.md §9).
 *
 * The output comes in blocks of 65536 bytes. Each block's input starts with 256 bytes
 * holding a 4-bit code length for each of 512 symbols (even symbols in the low nibble),
 * which define a canonical prefix code (shorter codes first, then lower symbols). Then
 * a bit stream of 16-bit little-endian words read most significant bit first: symbols
 * 0-255 are literals, 256-511 matches whose low 4 bits are the length - 3 (15: the
 * length continues in whole bytes of the input, see below) and high bits the number of
 * distance bits that follow the symbol (distance = 2^bits + those bits). Symbol 256 after
 * the last byte marks the end.
 *
 * The reader keeps 32 bits in a register and refills 16 at a time, exactly as MS-XCA
 * describes it, because the long-length bytes sit at the input position that this
 * schedule reaches: any other read-ahead would take them from the wrong place.
 */
#include <stdlib.h>

#include "xca_internal.h"

enum {
    HUFF_TABLE = 256, /* bytes of code lengths before each block's bit stream */
    HUFF_SYMBOLS = 512,
    HUFF_MAX_BITS = 15,
    HUFF_BLOCK = 65536,
    HUFF_EOF = 256,
};

/* The code lengths of a block's table; 1 if they form a complete prefix code. */
static int lengths_of(const uint8_t *t, uint8_t len[HUFF_SYMBOLS])
{
    uint32_t kraft = 0; /* sum of 2^(15 - length), 2^15 when complete */
    for (unsigned s = 0; s < HUFF_SYMBOLS; s++) {
        len[s] = s & 1 ? t[s / 2] >> 4 : t[s / 2] & 15;
        if (len[s])
            kraft += 1u << (HUFF_MAX_BITS - len[s]);
    }
    return kraft == 1u << HUFF_MAX_BITS;
}

int ehd_xca_looks_huffman(const uint8_t *in, size_t n)
{
    if (n < HUFF_TABLE + 4)
        return 0;
    /* lengths_of's sum, stopping as soon as it is too large: on an XPRESS stream (the
     * usual case, where this is asked first) that comes within a few bytes */
    uint32_t kraft = 0;
    for (unsigned s = 0; s < HUFF_SYMBOLS && kraft <= 1u << HUFF_MAX_BITS; s++) {
        unsigned l = s & 1 ? in[s / 2] >> 4 : in[s / 2] & 15;
        if (l)
            kraft += 1u << (HUFF_MAX_BITS - l);
    }
    return kraft == 1u << HUFF_MAX_BITS;
}

/* The decoding table: entry i is the symbol whose code is a prefix of the 15 bits i. */
static void build_table(const uint8_t len[HUFF_SYMBOLS], uint16_t *table)
{
    size_t next = 0;
    for (unsigned bits = 1; bits <= HUFF_MAX_BITS; bits++)
        for (unsigned s = 0; s < HUFF_SYMBOLS; s++)
            if (len[s] == bits)
                for (size_t k = (size_t)1 << (HUFF_MAX_BITS - bits); k > 0; k--)
                    table[next++] = (uint16_t)s;
}

struct bits {
    const uint8_t *in;
    size_t n, pos;
    uint32_t reg; /* the next bits, most significant first */
    int extra;    /* MS-XCA's ExtraBitCount: bits beyond 16 left in reg */
};

/* Drops k bits (k <= 16), reading the next word when fewer than 16 are left. */
static int consume(struct bits *b, unsigned k)
{
    if (k == 0)
        return 0;
    b->reg <<= k;
    b->extra -= (int)k;
    if (b->extra < 0) {
        if (b->n - b->pos < 2)
            return -1;
        b->reg |= (uint32_t)eh_read_u16(b->in + b->pos, 0) << -b->extra;
        b->pos += 2;
        b->extra += 16;
    }
    return 0;
}

/* A match's length from its symbol's nibble and, for 15, the input bytes after it. */
static int match_length(struct bits *b, unsigned nibble, uint64_t *len)
{
    uint64_t v = nibble;
    if (v == 15) {
        if (b->pos == b->n)
            return -1;
        v = b->in[b->pos++];
        if (v == 255) {
            if (b->n - b->pos < 2)
                return -1;
            v = eh_read_u16(b->in + b->pos, 0);
            b->pos += 2;
            if (v == 0) { /* what the compressor writes for lengths of 64 KiB and more */
                if (b->n - b->pos < 4)
                    return -1;
                v = eh_read_u32(b->in + b->pos, 0);
                b->pos += 4;
            }
            if (v < 15)
                return -2;
            v -= 15;
        }
        v += 15;
    }
    *len = v + 3;
    return 0;
}

/* Symbols of one block into out[*op_io..end); a match may run past end (the next block
 * starts after it), never past want. */
static int block(struct bits *b, const uint8_t len[HUFF_SYMBOLS], const uint16_t *table,
                 uint8_t *out, size_t *op_io, size_t end, size_t want, struct ehd_xca_err *err)
{
    size_t op = *op_io;
    while (op < end) {
        size_t at = b->pos;
        unsigned sym = table[b->reg >> (32 - HUFF_MAX_BITS)];
        if (consume(b, len[sym]))
            return ehd_xca_fail(err, "XPRESS Huffman: input ends inside the bit stream (byte %zu)",
                                at);
        if (sym < 256) {
            out[op++] = (uint8_t)sym;
            continue;
        }
        sym -= 256;
        unsigned dbits = sym >> 4;
        uint64_t mlen;
        int rc = match_length(b, sym & 15, &mlen);
        if (rc)
            return ehd_xca_fail(err,
                                rc == -1
                                    ? "XPRESS Huffman: length of the match near input byte %zu "
                                      "runs past the end"
                                    : "XPRESS Huffman: bad long length near input byte %zu",
                                at);
        size_t dist = (dbits ? (size_t)(b->reg >> (32 - dbits)) : 0) + ((size_t)1 << dbits);
        if (consume(b, dbits))
            return ehd_xca_fail(err, "XPRESS Huffman: input ends inside the bit stream (byte %zu)",
                                at);
        rc = xca_match(out, &op, want, dist, mlen, "XPRESS Huffman", at, err);
        if (rc)
            return rc;
    }
    *op_io = op;
    return 0;
}

int ehd_xca_huffman(const uint8_t *in, size_t n, uint8_t *out, size_t want, struct ehd_xca_err *err)
{
    uint8_t len[HUFF_SYMBOLS];
    uint16_t *table = malloc(sizeof *table << HUFF_MAX_BITS);
    if (!table) {
        ehd_xca_fail(err, "XPRESS Huffman: out of memory");
        return ENOMEM;
    }
    struct bits b = {in, n, 0, 0, 0};
    size_t op = 0, start = 0;
    int rc = 0, in_block = 0;
    for (;;) {
        if (!in_block) {
            /* no room for another table: the end, complete or not */
            if (n - b.pos < HUFF_TABLE + 4) {
                if (op != want)
                    rc = ehd_xca_fail(err, "XPRESS Huffman: decodes to %zu bytes, %zu declared", op,
                                      want);
                break;
            }
            if (!lengths_of(in + b.pos, len)) {
                rc = ehd_xca_fail(err,
                                  "XPRESS Huffman: the code lengths at input byte %zu are not a "
                                  "complete prefix code",
                                  b.pos);
                break;
            }
            build_table(len, table);
            b.pos += HUFF_TABLE;
            b.reg = (uint32_t)eh_read_u16(in + b.pos, 0) << 16 | eh_read_u16(in + b.pos + 2, 0);
            b.pos += 4;
            b.extra = 16;
            start = op;
            in_block = 1;
        }
        if (op == want) {
            /* all out: the next symbol must be the end mark when the table gives it a
             * code; anything else means the stream holds more than declared */
            if (len[HUFF_EOF] && table[b.reg >> (32 - HUFF_MAX_BITS)] != HUFF_EOF)
                rc = ehd_xca_fail(err,
                                  "XPRESS Huffman: more data than the declared %zu bytes (no end "
                                  "mark near input byte %zu)",
                                  want, b.pos);
            break;
        }
        size_t end = want - start < HUFF_BLOCK ? want : start + HUFF_BLOCK;
        rc = block(&b, len, table, out, &op, end, want, err);
        if (rc)
            break;
        if (op - start >= HUFF_BLOCK)
            in_block = 0;
    }
    free(table);
    return rc;
}
