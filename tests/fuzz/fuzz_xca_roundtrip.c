/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a round trip through the test compressors (tests/etl_compress/) and
 * the library's MS-XCA decompressors (lib/decode/internal/ehd_xca.h). Input: one byte
 * choosing the algorithm (modulo 3: XPRESS, LZNT1, XPRESS Huffman), then the plain bytes.
 * They are compressed, decompressed to exactly their size by that algorithm's
 * decompressor and by the .etl reader's try-each path, and must come back unchanged;
 * one byte less of declared size must fail. Aborts otherwise.
 *
 * Seeds (seeds-fuzz_xca_roundtrip/, written by `etl_compress --seeds`): the records of
 * tests/data/etl's events buffer and MS-XCA's "abc" x 100, with each algorithm.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_xca.h"
#include "etl_compress/xca_compress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int decompress(enum xca_alg a, const uint8_t *in, size_t n, uint8_t *out, size_t want)
{
    struct ehd_xca_err err;
    switch (a) {
    case XCA_XPRESS: return ehd_xca_xpress(in, n, out, want, &err);
    case XCA_LZNT1: return ehd_xca_lznt1(in, n, out, want, &err);
    case XCA_HUFFMAN: return ehd_xca_huffman(in, n, out, want, &err);
    case XCA_MIXED: break;
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    enum xca_alg a = (enum xca_alg)(data[0] % 3);
    const uint8_t *plain = data + 1;
    size_t n = size - 1, cap = xca_compress_bound(n);
    uint8_t *c = malloc(cap), *out = malloc(n + 1);
    if (!c || !out)
        abort();
    size_t cn;
    if (xca_compress(a, plain, n, c, cap, &cn))
        abort(); /* the bound is always enough */
    /* an exact-size copy of the stream, so that ASan sees a read past its end */
    uint8_t *s = malloc(cn ? cn : 1);
    if (!s)
        abort();
    memcpy(s, c, cn);
    if (decompress(a, s, cn, out, n) != 0 || memcmp(out, plain, n) != 0)
        abort();
    struct ehd_xca_err err;
    enum ehd_xca_alg got;
    if (ehd_xca_decompress_any(s, cn, out, n, &got, &err) != 0)
        abort();
    /* the try-each path may only settle on another algorithm if its output is right too */
    if (memcmp(out, plain, n) != 0)
        abort();
    if (n > 0 && decompress(a, s, cn, out, n - 1) == 0)
        abort();
    if (decompress(a, s, cn, out, n + 1) == 0)
        abort();
    free(s);
    free(c);
    free(out);
    return 0;
}
