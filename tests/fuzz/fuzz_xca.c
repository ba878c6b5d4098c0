/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the MS-XCA decompressors of compressed .etl buffers
 * (lib/decode/internal/ehd_xca.h, Documentation/etl-format.md §9). Input: one byte
 * choosing the decompressor (low 2 bits: 0 XPRESS, 1 LZNT1, 2 XPRESS Huffman, 3 all in
 * turn as the .etl reader tries them), a u24 little-endian declared size (at most 256 KiB
 * is used), then the compressed stream. The output buffer is exactly the declared size,
 * so ASan sees any write past it; a success must have filled it.
 *
 * Seeds (seeds-fuzz_xca/, written by `etl_compress --seeds`, tests/etl_compress/README.md):
 * the worked examples of MS-XCA section 3, and the events buffer of tests/data/etl's
 * capture compressed with each algorithm by the test compressors.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_xca.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    size_t want = (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16;
    if (want > (size_t)1 << 18) /* room for 4 Huffman blocks; more only slows the fuzzer */
        want = (size_t)1 << 18;
    const uint8_t *in = data + 4;
    size_t n = size - 4;
    uint8_t *out = malloc(want ? want : 1);
    if (!out)
        return 0;
    struct ehd_xca_err err;
    enum ehd_xca_alg alg = EHD_XCA_NONE;
    int rc;
    switch (data[0] & 3) {
    case 0: rc = ehd_xca_xpress(in, n, out, want, &err); break;
    case 1: rc = ehd_xca_lznt1(in, n, out, want, &err); break;
    case 2: rc = ehd_xca_huffman(in, n, out, want, &err); break;
    default:
        (void)ehd_xca_looks_lznt1(in, n);
        (void)ehd_xca_looks_huffman(in, n);
        rc = ehd_xca_decompress_any(in, n, out, want, &alg, &err);
        if (rc == 0 && alg == EHD_XCA_NONE && (n || want))
            abort(); /* only nothing decompresses to nothing without an algorithm */
        break;
    }
    /* a success wrote every byte (MSan would flag the rest; here: touch them all) */
    volatile uint8_t sink = 0;
    if (rc == 0)
        for (size_t i = 0; i < want; i++)
            sink ^= out[i];
    else if (!memchr(err.msg, 0, sizeof err.msg) || !err.msg[0])
        abort(); /* every failure says why */
    (void)sink;
    free(out);
    return 0;
}
