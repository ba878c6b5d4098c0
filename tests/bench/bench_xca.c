/* SPDX-License-Identifier: MIT */
/*
 * Decompression speed of the MS-XCA decompressors that read compressed .etl buffers
 * (lib/decode/internal/ehd_xca.h, Documentation/etl-format.md §9). Inputs: the records
 * of tests/data/etl's events buffer as they are (1880 bytes: one buffer, what the .etl
 * reader decompresses at a time) and repeated to 64 KiB (long matches), compressed by
 * the test compressors (tests/etl_compress/). For each: the compressed size, and MB/s of
 * output for the algorithm's own decompressor and for the try-each path the .etl reader
 * takes (the best of 5 runs of at least 0.2 s each). Figures only, never pass/fail. Run
 * from the top of the checkout (make bench does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ehd_xca.h"
#include "etl_compress/xca_compress.h"

#define ETL_PATH "tests/data/etl/primitive-types.etl"
#define MAXPLAIN (64 * 1024)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int decompress(int any, enum xca_alg a, const uint8_t *c, size_t cn, uint8_t *out, size_t n)
{
    struct ehd_xca_err err;
    enum ehd_xca_alg got;
    if (any)
        return ehd_xca_decompress_any(c, cn, out, n, &got, &err);
    switch (a) {
    case XCA_XPRESS: return ehd_xca_xpress(c, cn, out, n, &err);
    case XCA_LZNT1: return ehd_xca_lznt1(c, cn, out, n, &err);
    case XCA_HUFFMAN: return ehd_xca_huffman(c, cn, out, n, &err);
    case XCA_MIXED: break;
    }
    return -1;
}

/* Output MB/s, the best of 5 runs. */
static double speed(int any, enum xca_alg a, const uint8_t *c, size_t cn, uint8_t *out,
                    size_t plain)
{
    double best = 0;
    for (int run = 0; run < 5; run++) {
        size_t n = 0;
        double t0 = now(), t;
        do {
            if (decompress(any, a, c, cn, out, plain))
                return -1;
            n++;
        } while ((t = now() - t0) < 0.2);
        double mbs = (double)n * (double)plain / t / 1e6;
        if (mbs > best)
            best = mbs;
    }
    return best;
}

int main(void)
{
    FILE *f = fopen(ETL_PATH, "rb");
    static uint8_t etl[16384], plain[MAXPLAIN], out[MAXPLAIN];
    if (!f || fread(etl, 1, sizeof etl, f) != sizeof etl) {
        printf("bench_xca: cannot read %s (run from the top of the checkout)\n", ETL_PATH);
        return 1;
    }
    fclose(f);
    size_t used = (size_t)etl[8192 + 4] | (size_t)etl[8192 + 5] << 8, rn = used - 0x48;
    for (size_t i = 0; i < MAXPLAIN; i++)
        plain[i] = etl[8192 + 0x48 + i % rn];
    size_t cap = xca_compress_bound(MAXPLAIN);
    uint8_t *c = malloc(cap);
    printf("%-9s %-15s %10s %8s %14s %14s\n", "input", "algorithm", "compressed", "ratio",
           "own MB/s", "try-each MB/s");
    const size_t sizes[] = {rn, MAXPLAIN};
    for (int k = 0; c && k < 2; k++)
        for (int a = 0; a < 3; a++) {
            size_t cn, n = sizes[k];
            if (xca_compress((enum xca_alg)a, plain, n, c, cap, &cn))
                return 1;
            double own = speed(0, (enum xca_alg)a, c, cn, out, n);
            double any = speed(1, (enum xca_alg)a, c, cn, out, n);
            if (memcmp(out, plain, n) != 0)
                return 1;
            printf("%-9zu %-15s %10zu %7.1f%% %14.0f %14.0f\n", n, xca_alg_name((enum xca_alg)a),
                   cn, 100.0 * (double)cn / (double)n, own, any);
        }
    free(c);
    return 0;
}
