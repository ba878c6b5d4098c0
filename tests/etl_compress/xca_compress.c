/* SPDX-License-Identifier: MIT */
/* The test compressors by name (xca_compress.h). */
#include <string.h>

#include "xca_compress.h"

static const char *const names[] = {"xpress", "lznt1", "huffman", "mixed"};

size_t xca_compress_bound(size_t n)
{
    /* worst cases: XPRESS 4 flag bytes per 32 literals; LZNT1 2 header bytes per 4096;
     * Huffman 256 table bytes and 4 word bytes per 65536, and (a literal code can be
     * up to 15 bits long) up to twice the input */
    return 2 * n + (n / 65536 + 1) * 264 + 64;
}

int xca_compress(enum xca_alg alg, const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                 size_t *out_n)
{
    switch (alg) {
    case XCA_XPRESS: return xca_xpress_compress(in, n, out, cap, out_n);
    case XCA_LZNT1: return xca_lznt1_compress(in, n, out, cap, out_n);
    case XCA_HUFFMAN: return xca_huffman_compress(in, n, out, cap, out_n);
    case XCA_MIXED: break;
    }
    return -1;
}

const char *xca_alg_name(enum xca_alg alg)
{
    return (unsigned)alg < sizeof names / sizeof names[0] ? names[alg] : "?";
}

int xca_alg_parse(const char *name, enum xca_alg *alg)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *alg = (enum xca_alg)i;
            return 0;
        }
    return -1;
}
