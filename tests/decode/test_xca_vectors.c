/* SPDX-License-Identifier: MIT */
/*
 * The MS-XCA decompressors of compressed .etl buffers (lib/decode/internal/ehd_xca.h,
 * Documentation/etl-format.md §9): the worked examples of MS-XCA section 3 as known
 * answers (tests/etl_compress/xca_vectors.c, bytes as the specification prints them),
 * hand-made bad streams for every way a stream can be wrong, and round trips through
 * the test compressors (tests/etl_compress/) over inputs chosen to reach every path:
 * long-length escapes, several Huffman blocks, stored LZNT1 chunks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_xca.h"
#include "etl_compress/xca_compress.h"
#include "etl_compress/xca_vectors.h"
#include "ktap.h"

static int run(enum xca_alg a, const uint8_t *in, size_t n, uint8_t *out, size_t want,
               struct ehd_xca_err *err)
{
    switch (a) {
    case XCA_XPRESS: return ehd_xca_xpress(in, n, out, want, err);
    case XCA_LZNT1: return ehd_xca_lznt1(in, n, out, want, err);
    case XCA_HUFFMAN: return ehd_xca_huffman(in, n, out, want, err);
    case XCA_MIXED: break;
    }
    return -1;
}

/* The library's name for a test compressor's algorithm. */
static enum ehd_xca_alg lib_alg(enum xca_alg a)
{
    return a == XCA_XPRESS ? EHD_XCA_XPRESS : a == XCA_LZNT1 ? EHD_XCA_LZNT1 : EHD_XCA_HUFFMAN;
}

/* A failure whose reason contains part (printed for the log). */
static int fails_with(enum xca_alg a, const uint8_t *in, size_t n, size_t want, const char *part)
{
    uint8_t *out = malloc(want ? want : 1);
    struct ehd_xca_err err = {{0}};
    int rc = run(a, in, n, out, want, &err);
    free(out);
    printf("# %s, %zu bytes declared: %s\n", xca_alg_name(a), want, rc ? err.msg : "(success)");
    return rc == EINVAL && strstr(err.msg, part) != NULL;
}

static void test_ms_xca_examples(void)
{
    for (size_t i = 0; i < xca_nvectors; i++) {
        const struct xca_vector *v = &xca_vectors[i];
        uint8_t out[512];
        struct ehd_xca_err err;
        printf("# %s (%zu -> %zu bytes)\n", v->name, v->compressed_n, v->plain_n);
        memset(out, 0xEE, sizeof out);
        KT_EXPECT_EQ(run(v->alg, v->compressed, v->compressed_n, out, v->plain_n, &err), 0);
        KT_EXPECT_MEM(out, v->plain_n, v->plain, v->plain_n);
        /* the .etl reader's try-each path names the right algorithm */
        enum ehd_xca_alg got;
        memset(out, 0xEE, sizeof out);
        KT_EXPECT_EQ(
            ehd_xca_decompress_any(v->compressed, v->compressed_n, out, v->plain_n, &got, &err), 0);
        KT_EXPECT_EQ(got, lib_alg(v->alg));
        KT_EXPECT_MEM(out, v->plain_n, v->plain, v->plain_n);
        /* one byte more or less declared, and every cut of the stream, fail; except that
         * the Huffman end mark's look-ahead words (the last 4 bytes) are never read */
        KT_EXPECT(fails_with(v->alg, v->compressed, v->compressed_n, v->plain_n - 1, ""));
        KT_EXPECT(fails_with(v->alg, v->compressed, v->compressed_n, v->plain_n + 1, "declared"));
        for (size_t cut = 0; cut < v->compressed_n; cut++) {
            uint8_t *c = malloc(cut ? cut : 1); /* exact size: ASan sees a read past it */
            memcpy(c, v->compressed, cut);
            int lookahead = v->alg == XCA_HUFFMAN && cut + 4 >= v->compressed_n;
            if (run(v->alg, c, cut, out, v->plain_n, &err) == 0 && !lookahead) {
                printf("# %s cut to %zu bytes decodes\n", v->name, cut);
                KT_EXPECT(0);
            }
            free(c);
        }
    }
}

static void test_xpress_bad_streams(void)
{
    /* the first item a match of distance 1: nothing is out yet */
    static const uint8_t before[] = {0x00, 0x00, 0x00, 0x80, 0x00, 0x00};
    KT_EXPECT(fails_with(XCA_XPRESS, before, sizeof before, 3, "before the start"));
    /* a match flag with one byte of token left */
    static const uint8_t token[] = {0x00, 0x00, 0x00, 0x40, 'a', 0x00};
    KT_EXPECT(fails_with(XCA_XPRESS, token, sizeof token, 4, "runs past the end"));
    /* a long length whose u16 escape is below the 22 it counts */
    static const uint8_t esc[] = {0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x10, 0x00};
    KT_EXPECT(fails_with(XCA_XPRESS, esc, sizeof esc, 100, "bad long length"));
    /* a literal flag with no byte left; a flag word cut short */
    static const uint8_t lit[] = {0x00, 0x00, 0x00, 0x00, 'a'};
    KT_EXPECT(fails_with(XCA_XPRESS, lit, sizeof lit, 2, "literal is due"));
    KT_EXPECT(fails_with(XCA_XPRESS, lit, 3, 0, "flag word cut short"));
    /* the examples with the wrong size */
    const struct xca_vector *abc = &xca_vectors[1];
    KT_EXPECT(
        fails_with(XCA_XPRESS, abc->compressed, abc->compressed_n, 299, "runs past the declared"));
    KT_EXPECT(
        fails_with(XCA_XPRESS, abc->compressed, abc->compressed_n, 301, "decodes to 300 bytes"));
}

static void test_lznt1_bad_streams(void)
{
    const struct xca_vector *v = &xca_vectors[4];
    uint8_t c[128];
    memcpy(c, v->compressed, v->compressed_n);
    c[1] = 0xA0; /* signature 2 */
    KT_EXPECT(fails_with(XCA_LZNT1, c, v->compressed_n, v->plain_n, "no signature 3"));
    KT_EXPECT(!ehd_xca_looks_lznt1(c, v->compressed_n));
    KT_EXPECT(ehd_xca_looks_lznt1(v->compressed, v->compressed_n));
    /* a chunk longer than the input */
    KT_EXPECT(
        fails_with(XCA_LZNT1, v->compressed, v->compressed_n - 1, v->plain_n, "runs past the end"));
    /* a word as the chunk's first item; a word reaching before the chunk */
    static const uint8_t first[] = {0x02, 0xB0, 0x01, 0x00, 0x00};
    KT_EXPECT(fails_with(XCA_LZNT1, first, sizeof first, 3, "starts a chunk"));
    static const uint8_t back[] = {0x03, 0xB0, 0x02, 'a', 0x00, 0x10};
    KT_EXPECT(fails_with(XCA_LZNT1, back, sizeof back, 4, "before the start of its chunk"));
    /* a stored chunk of 3 bytes followed by another chunk: only the last may be short */
    static const uint8_t shortc[] = {0x02, 0x30, 'a', 'b', 'c', 0x00, 0x30, 'd'};
    KT_EXPECT(fails_with(XCA_LZNT1, shortc, sizeof shortc, 4, "not the last"));
    /* a stored chunk, then the end mark and bytes after it that are not read */
    static const uint8_t stored[] = {0x02, 0x30, 'a', 'b', 'c', 0x00, 0x00, 0xde, 0xad};
    uint8_t out[3];
    struct ehd_xca_err err;
    KT_EXPECT_EQ(ehd_xca_lznt1(stored, sizeof stored, out, 3, &err), 0);
    KT_EXPECT_MEM(out, 3, "abc", 3);
    KT_EXPECT(fails_with(XCA_LZNT1, stored, sizeof stored, 2, "runs past the declared"));
    KT_EXPECT(fails_with(XCA_LZNT1, v->compressed, v->compressed_n, v->plain_n - 1, "more data"));
}

static void test_huffman_bad_streams(void)
{
    const struct xca_vector *v = &xca_vectors[3];
    uint8_t c[300];
    memcpy(c, v->compressed, v->compressed_n);
    c[48] = 0x31; /* symbol 96 given 1 bit too: the lengths over-fill the code */
    KT_EXPECT(!ehd_xca_looks_huffman(c, v->compressed_n));
    KT_EXPECT(ehd_xca_looks_huffman(v->compressed, v->compressed_n));
    KT_EXPECT(fails_with(XCA_HUFFMAN, c, v->compressed_n, 300, "not a complete prefix code"));
    /* the codes are c 00, end 01, match 10, a 110, b 111; the stream starts 110 111 00
     * 10 1 (a b c, the match with distance bit 1). Made to start 10 0: the match first,
     * distance 2, with nothing out yet */
    memcpy(c, v->compressed, v->compressed_n);
    c[257] = 0x9C;
    KT_EXPECT(fails_with(XCA_HUFFMAN, c, v->compressed_n, 300, "before the start"));
    /* a stream ending inside its bit stream, and one without its long-length bytes */
    KT_EXPECT(fails_with(XCA_HUFFMAN, v->compressed, 256 + 4, 300, "runs past the end"));
    KT_EXPECT(fails_with(XCA_HUFFMAN, v->compressed, 256 + 3, 300, "decodes to 0 bytes"));
    /* more data than declared: no end mark where the output is complete */
    KT_EXPECT(fails_with(XCA_HUFFMAN, xca_vectors[2].compressed, xca_vectors[2].compressed_n, 25,
                         "no end mark"));
    /* the u32 length escape (u16 0 then u32), which the compressor only writes for
     * lengths of 64 KiB and more. 'a' 1 bit (code 0), the end 2 (10), match symbol 271
     * (length nibble 15, distance 1) 2 (11): 'a', the match with its bytes ff, 0000 and
     * the length - 3 as a u32, the end */
    uint8_t big[256 + 4 + 7] = {[48] = 0x10, [128] = 0x02, [135] = 0x20};
    big[256] = 0x00, big[257] = 0x70; /* 0 11 10 -> 0111 0000 0000 0000 */
    size_t len = 70000;
    big[260] = 0xff, big[261] = 0, big[262] = 0;
    for (int i = 0; i < 4; i++)
        big[263 + i] = (uint8_t)((len - 3) >> (8 * i));
    uint8_t *out = malloc(len + 1);
    struct ehd_xca_err err;
    KT_EXPECT_EQ(ehd_xca_huffman(big, sizeof big, out, len + 1, &err), 0);
    size_t as = 0;
    for (size_t i = 0; i < len + 1; i++)
        as += out[i] == 'a';
    KT_EXPECT_EQ(as, len + 1);
    free(out);
    KT_EXPECT(fails_with(XCA_HUFFMAN, big, sizeof big, len, "runs past the declared"));
}

/* Which algorithm: found by fuzz_xca_roundtrip when XPRESS was tried first, a 6-byte
 * LZNT1 stream (one stored chunk) that XPRESS decoded to 6 bytes, the wrong ones. XPRESS
 * now refuses it (its last flag word's unused bits are not all 1), and LZNT1, whose
 * chunk chain covers the stream exactly, is tried first anyway. */
static void test_detection(void)
{
    static const uint8_t stream[] = {0x05, 0x30, 'r', '_', 0x00, 0x01, 0x00, 0x08};
    static const uint8_t plain[] = {'r', '_', 0x00, 0x01, 0x00, 0x08};
    uint8_t out[6];
    struct ehd_xca_err err;
    enum ehd_xca_alg alg;
    KT_EXPECT(fails_with(XCA_XPRESS, stream, sizeof stream, 6, "more items follow"));
    KT_EXPECT(ehd_xca_looks_lznt1(stream, sizeof stream));
    KT_EXPECT_EQ(ehd_xca_decompress_any(stream, sizeof stream, out, 6, &alg, &err), 0);
    KT_EXPECT_EQ(alg, EHD_XCA_LZNT1);
    KT_EXPECT_MEM(out, 6, plain, 6);
    /* the chain must cover the stream: an end mark may be followed by zeros only */
    static const uint8_t marked[] = {0x02, 0x30, 'a', 'b', 'c', 0x00, 0x00, 0x00, 0x00};
    static const uint8_t tail[] = {0x02, 0x30, 'a', 'b', 'c', 0x00, 0x00, 0x00, 0x01};
    KT_EXPECT(ehd_xca_looks_lznt1(marked, sizeof marked));
    KT_EXPECT(!ehd_xca_looks_lznt1(tail, sizeof tail));
    KT_EXPECT(!ehd_xca_looks_lznt1(stream, sizeof stream - 1));
    /* nothing stored is right for nothing declared only */
    KT_EXPECT_EQ(ehd_xca_decompress_any(stream, 0, out, 0, &alg, &err), 0);
    KT_EXPECT_EQ(ehd_xca_decompress_any(stream, 0, out, 1, &alg, &err), EINVAL);
}

/* Inputs for the round trips, each reaching some path of the format. */
static uint8_t *make_input(int which, size_t *n, const char **name)
{
    static const char text[] = "TraceLogging events over ETW: solar_system PrimitiveTypesTest "
                               "Mercury Venus Earth Mars Jupiter; ";
    uint8_t *p;
    uint32_t x = 12345;
    switch (which) {
    case 0:
        *name = "empty";
        *n = 0;
        return malloc(1);
    case 1:
        *name = "one byte";
        *n = 1;
        p = malloc(1);
        p[0] = 'x';
        return p;
    case 2: /* XPRESS: the u32 length escape; Huffman: 4 blocks; LZNT1: 49 chunks */
        *name = "200000 zeros";
        *n = 200000;
        return calloc(*n, 1);
    case 3: /* LZNT1: stored chunks; Huffman: near 8 bits a literal */
        *name = "10000 noise bytes";
        *n = 10000;
        p = malloc(*n);
        for (size_t i = 0; i < *n; i++)
            p[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 24);
        return p;
    default: /* text with varied repeats over 3 Huffman blocks: matches across blocks */
        *name = "150000 bytes of text";
        *n = 150000;
        p = malloc(*n);
        for (size_t i = 0; i < *n; i++) {
            x = x * 1103515245u + 12345u;
            p[i] = (x >> 28) == 0 ? (uint8_t)(x >> 8)
                                  : (uint8_t)text[(i + (x >> 20) % 3) % (sizeof text - 1)];
        }
        return p;
    }
}

static void test_round_trips(void)
{
    for (int which = 0; which < 5; which++) {
        size_t n;
        const char *name;
        uint8_t *plain = make_input(which, &n, &name);
        size_t cap = xca_compress_bound(n);
        uint8_t *c = malloc(cap), *out = malloc(n + 1);
        for (int a = 0; a < 3; a++) {
            size_t cn = 0;
            KT_EXPECT_EQ(xca_compress((enum xca_alg)a, plain, n, c, cap, &cn), 0);
            printf("# %s, %s: %zu -> %zu bytes\n", name, xca_alg_name((enum xca_alg)a), n, cn);
            struct ehd_xca_err err;
            memset(out, 0xEE, n + 1);
            int rc = run((enum xca_alg)a, c, cn, out, n, &err);
            if (rc)
                printf("# %s\n", err.msg);
            KT_EXPECT_EQ(rc, 0);
            KT_EXPECT(memcmp(out, plain, n) == 0);
            enum ehd_xca_alg got;
            KT_EXPECT_EQ(ehd_xca_decompress_any(c, cn, out, n, &got, &err), 0);
            /* (no output at all is also what an empty XPRESS stream says) */
            if (n)
                KT_EXPECT_EQ(got, lib_alg((enum xca_alg)a));
            KT_EXPECT(memcmp(out, plain, n) == 0);
            KT_EXPECT(run((enum xca_alg)a, c, cn, out, n + 1, &err) == EINVAL);
            if (n)
                KT_EXPECT(run((enum xca_alg)a, c, cn, out, n - 1, &err) == EINVAL);
            /* the paths these inputs are for were really taken */
            if (which == 2 && a == XCA_XPRESS)
                KT_EXPECT(cn < 32); /* one match of 199999 bytes: the u32 escape */
            if (which == 3 && a == XCA_LZNT1)
                KT_EXPECT(cn == n + 2 * 3); /* three stored chunks */
        }
        free(c);
        free(out);
        free(plain);
    }
}

KT_MAIN(KT_CASE(test_ms_xca_examples), KT_CASE(test_xpress_bad_streams),
        KT_CASE(test_lznt1_bad_streams), KT_CASE(test_huffman_bad_streams), KT_CASE(test_detection),
        KT_CASE(test_round_trips))
