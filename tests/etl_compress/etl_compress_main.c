/* SPDX-License-Identifier: MIT */
/*
 * etl_compress: the test compressors (xca_compress.h) from the command line, to look at
 * what the tests make in memory and to write the fuzz seeds (README.md here).
 *
 *   etl_compress [--alg xpress|lznt1|huffman|mixed] [--split] IN.etl OUT.etl
 *       IN rewritten as a compressed .etl (etl-format.md §9); --split puts each record
 *       in a buffer of its own.
 *   etl_compress --seeds IN.etl FUZZDIR
 *       the seeds of fuzz_etl (compressed files), fuzz_xca (MS-XCA's examples and IN's
 *       events buffer compressed, as: algorithm byte, u24 size, stream) and
 *       fuzz_xca_roundtrip (algorithm byte, plain bytes) under FUZZDIR/seeds-<target>/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xca_compress.h"
#include "xca_vectors.h"

static uint8_t *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, got;
    uint8_t *p = malloc(cap);
    while (p && (got = fread(p + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q)
                free(p);
            p = q;
        }
    }
    if (ferror(f)) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *n = len;
    return p;
}

static int write_all(const char *path, const void *a, size_t an, const void *b, size_t bn)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, an, f) != an || (bn && fwrite(b, 1, bn, f) != bn)) {
        perror(path);
        if (f)
            fclose(f);
        return -1;
    }
    if (fclose(f)) {
        perror(path);
        return -1;
    }
    printf("wrote %s (%zu bytes)\n", path, an + bn);
    return 0;
}

/* A fuzz_xca input: the algorithm (0-2, 3: try all as the .etl reader does), the
 * declared size, the stream (tests/fuzz/fuzz_xca.c). */
static int xca_seed(const char *path, unsigned alg, size_t size, const uint8_t *s, size_t n)
{
    uint8_t h[4] = {(uint8_t)alg, (uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16)};
    return write_all(path, h, 4, s, n);
}

static int seeds(const uint8_t *etl, size_t n, const char *dir)
{
    char path[4096];
    int rc = 0;
    static const struct {
        enum xca_alg alg;
        unsigned flags;
        const char *name;
    } files[] = {
        {XCA_XPRESS, 0, "compressed-xpress.etl"},
        {XCA_LZNT1, 0, "compressed-lznt1.etl"},
        {XCA_HUFFMAN, 0, "compressed-huffman.etl"},
        {XCA_MIXED, ETL_COMPRESS_SPLIT, "compressed-mixed-split.etl"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char why[200];
        size_t cn;
        uint8_t *c = etl_compress_image(etl, n, files[i].alg, files[i].flags, &cn, why, sizeof why);
        if (!c) {
            fprintf(stderr, "etl_compress: %s\n", why);
            return 1;
        }
        snprintf(path, sizeof path, "%s/seeds-fuzz_etl/%s", dir, files[i].name);
        rc |= write_all(path, c, cn, NULL, 0);
        free(c);
    }
    for (size_t i = 0; i < xca_nvectors; i++) {
        const struct xca_vector *v = &xca_vectors[i];
        snprintf(path, sizeof path, "%s/seeds-fuzz_xca/%s", dir, v->name);
        rc |= xca_seed(path, v->alg, v->plain_n, v->compressed, v->compressed_n);
    }
    /* the second buffer's records (the five TraceLogging events), in three forms */
    size_t used = n >= 8192 + 8 ? (size_t)etl[8192 + 4] | (size_t)etl[8192 + 5] << 8 : 0;
    if (used < 0x48 || n < 8192 + used) {
        fprintf(stderr, "etl_compress: the input has no second buffer of records (it should "
                        "be tests/data/etl/primitive-types.etl)\n");
        return 1;
    }
    const uint8_t *rec = etl + 8192 + 0x48;
    size_t rn = used - 0x48, cap = xca_compress_bound(rn);
    uint8_t *c = malloc(cap);
    for (unsigned a = 0; c && a < 3; a++) {
        size_t cn = 0;
        rc |= xca_compress((enum xca_alg)a, rec, rn, c, cap, &cn);
        snprintf(path, sizeof path, "%s/seeds-fuzz_xca/capture-records-%s", dir,
                 xca_alg_name((enum xca_alg)a));
        rc |= xca_seed(path, 3, rn, c, cn);
        uint8_t sel = (uint8_t)a;
        snprintf(path, sizeof path, "%s/seeds-fuzz_xca_roundtrip/capture-records-%s", dir,
                 xca_alg_name((enum xca_alg)a));
        rc |= write_all(path, &sel, 1, rec, rn);
        snprintf(path, sizeof path, "%s/seeds-fuzz_xca_roundtrip/abc-%s", dir,
                 xca_alg_name((enum xca_alg)a));
        rc |= write_all(path, &sel, 1, xca_vectors[1].plain, xca_vectors[1].plain_n);
    }
    free(c);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    enum xca_alg alg = XCA_XPRESS;
    unsigned flags = 0;
    int i = 1, seed_mode = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--alg") == 0 && i + 1 < argc && xca_alg_parse(argv[i + 1], &alg) == 0)
            i++;
        else if (strcmp(argv[i], "--split") == 0)
            flags |= ETL_COMPRESS_SPLIT;
        else if (strcmp(argv[i], "--seeds") == 0)
            seed_mode = 1;
        else
            break;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: etl_compress [--alg xpress|lznt1|huffman|mixed] [--split] IN.etl "
                        "OUT.etl\n       etl_compress --seeds IN.etl FUZZDIR\n");
        return 2;
    }
    size_t n;
    uint8_t *in = read_all(argv[i], &n);
    if (!in) {
        perror(argv[i]);
        return 1;
    }
    int rc;
    if (seed_mode) {
        rc = seeds(in, n, argv[i + 1]);
    } else {
        char why[200];
        size_t cn;
        uint8_t *c = etl_compress_image(in, n, alg, flags, &cn, why, sizeof why);
        if (!c)
            fprintf(stderr, "etl_compress: %s: %s\n", argv[i], why);
        rc = !c || write_all(argv[i + 1], c, cn, NULL, 0) ? 1 : 0;
        free(c);
    }
    free(in);
    return rc;
}
