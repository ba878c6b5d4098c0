/* SPDX-License-Identifier: MIT */
/*
 * Test-only XPRESS Huffman ("LZ77+Huffman") compressor (MS-XCA 2.1): blocks of 65536
 * input bytes, each an LZ77 pass (distances up to 65535, reaching into earlier blocks),
 * a canonical prefix code of at most 15 bits per symbol built from that block's symbol
 * counts, the 256-byte table of code lengths, and the bit stream written with the
 * two-word look-ahead of MS-XCA 2.1.4.3 so that long-length bytes land where the
 * decoder's reads reach them. The last block ends with the end symbol 256.
 */
#include <stdlib.h>

#include "xca_compress.h"
#include "xca_match.h"
#include "xca_out.h"

enum {
    BLOCK = 65536,
    SYMBOLS = 512,
    MAX_BITS = 15,
    MAX_DIST = 65535,
    END_SYMBOL = 256,
};

struct item {
    uint32_t len; /* 0: a literal */
    uint32_t val; /* the literal, or the match distance */
};

static unsigned high_bit(size_t v)
{
    unsigned b = 0;
    while (v >> (b + 1))
        b++;
    return b;
}

static unsigned symbol_of(const struct item *it)
{
    if (!it->len)
        return it->val;
    unsigned l = it->len - 3;
    return 256 + (l < 15 ? l : 15) + 16 * high_bit(it->val);
}

/* Huffman code lengths of the counts, once (0 when a length passes 15). */
static int huffman_lengths(const uint32_t *count, uint8_t *len)
{
    uint64_t w[2 * SYMBOLS];
    int parent[2 * SYMBOLS], alive[2 * SYMBOLS];
    int nodes = 0, leaf_of[SYMBOLS];
    for (int s = 0; s < SYMBOLS; s++) {
        leaf_of[s] = -1;
        if (count[s]) {
            leaf_of[s] = nodes;
            w[nodes] = count[s];
            alive[nodes] = 1;
            parent[nodes++] = -1;
        }
    }
    int live = nodes;
    while (live > 1) { /* join the two lightest (quadratic: at most 512 leaves) */
        int a = -1, b = -1;
        for (int i = 0; i < nodes; i++) {
            if (!alive[i])
                continue;
            if (a < 0 || w[i] < w[a]) {
                b = a;
                a = i;
            } else if (b < 0 || w[i] < w[b]) {
                b = i;
            }
        }
        w[nodes] = w[a] + w[b];
        alive[nodes] = 1;
        parent[nodes] = -1;
        alive[a] = alive[b] = 0;
        parent[a] = parent[b] = nodes++;
        live--;
    }
    for (int s = 0; s < SYMBOLS; s++) {
        unsigned d = 0;
        for (int i = leaf_of[s]; i >= 0 && parent[i] >= 0; i = parent[i])
            d++;
        if (d > MAX_BITS)
            return 0;
        len[s] = (uint8_t)d;
    }
    return 1;
}

/* Lengths of at most 15 bits forming a complete code: the counts are halved (kept
 * above 0) until the tree is shallow enough, and a lone symbol gets a partner. */
static void code_lengths(const uint32_t *count_in, uint8_t *len)
{
    uint32_t count[SYMBOLS];
    int used = 0;
    for (int s = 0; s < SYMBOLS; s++)
        used += (count[s] = count_in[s]) != 0;
    if (used == 0)
        count[0] = 1;
    if (used < 2) /* a complete code needs two symbols at least */
        count[count[0] ? 1 : 0] = 1;
    while (!huffman_lengths(count, len))
        for (int s = 0; s < SYMBOLS; s++)
            if (count[s])
                count[s] = (count[s] + 1) / 2;
}

/* The bit writer of MS-XCA 2.1.4.3: the word being filled and the one after it are
 * reserved in the output; bytes written meanwhile go after both. */
struct bits {
    struct xca_out *o;
    uint32_t word;
    unsigned free;
    size_t slot1, slot2;
};

static void bits_start(struct bits *b, struct xca_out *o)
{
    b->o = o;
    b->word = 0;
    b->free = 16;
    b->slot1 = xca_out_reserve(o, 2);
    b->slot2 = xca_out_reserve(o, 2);
}

static void bits_put(struct bits *b, unsigned nbits, uint32_t v)
{
    if (b->free >= nbits) {
        b->word = (b->word << nbits | v) & 0xFFFF;
        b->free -= nbits;
        return;
    }
    unsigned rest = nbits - b->free;
    xca_out_set(b->o, b->slot1, (b->word << b->free | v >> rest) & 0xFFFF, 2);
    b->slot1 = b->slot2;
    b->slot2 = xca_out_reserve(b->o, 2);
    b->word = v & ((1u << rest) - 1);
    b->free = 16 - rest;
}

static void bits_end(struct bits *b)
{
    xca_out_set(b->o, b->slot1, (b->word << b->free) & 0xFFFF, 2);
    xca_out_set(b->o, b->slot2, 0, 2);
}

static void block(struct xca_out *o, const struct item *items, size_t nitems, int last)
{
    uint32_t count[SYMBOLS] = {0};
    uint8_t len[SYMBOLS];
    uint32_t code[SYMBOLS];
    for (size_t i = 0; i < nitems; i++)
        count[symbol_of(&items[i])]++;
    if (last)
        count[END_SYMBOL]++;
    code_lengths(count, len);
    /* canonical codes: by length, then symbol; a code is its first decoding-table slot */
    uint32_t next = 0;
    for (unsigned bits = 1; bits <= MAX_BITS; bits++)
        for (unsigned s = 0; s < SYMBOLS; s++)
            if (len[s] == bits) {
                code[s] = next >> (MAX_BITS - bits);
                next += 1u << (MAX_BITS - bits);
            }
    size_t table = xca_out_reserve(o, 256);
    if (o->full)
        return;
    for (unsigned s = 0; s < SYMBOLS; s += 2)
        o->p[table + s / 2] = (uint8_t)(len[s] | len[s + 1] << 4);
    struct bits b;
    bits_start(&b, o);
    for (size_t i = 0; i < nitems && !o->full; i++) {
        unsigned s = symbol_of(&items[i]);
        bits_put(&b, len[s], code[s]);
        if (!items[i].len)
            continue;
        uint64_t l = items[i].len - 3;
        if (l >= 15) { /* the length continues in whole bytes after the reserved words */
            l -= 15;
            if (l < 255) {
                xca_out_put(o, l, 1);
            } else {
                xca_out_put(o, 255, 1);
                l += 15;
                if (l < 65536) {
                    xca_out_put(o, l, 2);
                } else {
                    xca_out_put(o, 0, 2);
                    xca_out_put(o, l, 4);
                }
            }
        }
        unsigned hb = high_bit(items[i].val);
        bits_put(&b, hb, items[i].val - (1u << hb));
    }
    if (last)
        bits_put(&b, len[END_SYMBOL], code[END_SYMBOL]);
    bits_end(&b);
}

int xca_huffman_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n)
{
    struct xca_out o = {out, cap, 0, 0};
    struct xca_matcher m;
    struct item *items = malloc((n < BLOCK ? n + 1 : BLOCK) * sizeof *items);
    if (!items || xca_matcher_init(&m, in, n)) {
        free(items);
        return -1;
    }
    size_t bs = 0;
    do { /* at least one block, so even no input ends with the end symbol */
        size_t be = n - bs < BLOCK ? n : bs + BLOCK, nitems = 0;
        for (size_t ip = bs; ip < be;) {
            size_t dist = 0, len = xca_matcher_find(&m, ip, 0, MAX_DIST, be - ip, &dist);
            if (len) {
                items[nitems++] = (struct item){(uint32_t)len, (uint32_t)dist};
                ip += len;
            } else {
                items[nitems++] = (struct item){0, in[ip++]};
            }
        }
        block(&o, items, nitems, be == n);
        bs = be;
    } while (bs < n && !o.full);
    xca_matcher_free(&m);
    free(items);
    *out_n = o.len;
    return o.full ? -1 : 0;
}
