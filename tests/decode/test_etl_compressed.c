/* SPDX-License-Identifier: MIT */
/*
 * Compressed .etl files (Documentation/etl-format.md §9). No Windows here can record
 * one, so the test compressors (tests/etl_compress/) rewrite the real capture of
 * tests/data/etl as Windows 8 and later lay such files out: the logfile header buffer as
 * it is, with EVENT_TRACE_COMPRESSED_MODE in its LogFileMode, every other buffer as its
 * header (flag 0x40) and one compressed stream of its records, stored at its compressed
 * size with no alignment. Decoding one must print exactly what the same file
 * uncompressed prints, with each algorithm; damaged copies give valid JSON, one error per
 * bad buffer with its file offset, and the next buffer is still read.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehd_tl.h"
#include "ehd_xca.h"
#include "etl_compress/xca_compress.h"
#include "ktap.h"
#include "support_etl_out.h"
#include "support_perf_util.h"

#define ETL_PATH "tests/data/etl/primitive-types.etl"
#define FLAGS    (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG)

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The capture, and its uncompressed twin: the same bytes with the compressed mode set in
 * the logfile header, which is all the compressor changes besides the buffers. */
static uint8_t *load(size_t *n, int twin)
{
    uint8_t *d = perf_test_read_file(ETL_PATH, n);
    if (!d)
        printf("# %s: cannot open (run from the top of the checkout)\n", ETL_PATH);
    else if (twin)
        wr32(d + ETL_LOGFILE_MODE_AT, rd32(d + ETL_LOGFILE_MODE_AT) | ETL_COMPRESSED_MODE);
    return d;
}

static uint8_t *compress(const uint8_t *d, size_t n, enum xca_alg alg, unsigned flags, size_t *cn)
{
    char why[200];
    uint8_t *c = etl_compress_image(d, n, alg, flags, cn, why, sizeof why);
    if (!c)
        printf("# etl_compress_image: %s\n", why);
    return c;
}

/* The file offsets of the buffers of an image (at most max). */
static size_t buffers(const uint8_t *c, size_t n, uint64_t *at, size_t max)
{
    size_t k = 0;
    for (size_t pos = 0; pos + 0x48 <= n && k < max; pos += rd32(c + pos))
        at[k++] = pos;
    return k;
}

static void test_decodes_like_the_original(void)
{
    size_t n;
    uint8_t *orig = load(&n, 0), *twin = load(&n, 1);
    KT_EXPECT(orig && twin);
    if (!orig || !twin)
        return;
    struct etl_out want, plain;
    /* the twin prints what the original prints, but for the header's LogFileMode byte */
    KT_EXPECT_EQ(etl_out_decode(orig, n, FLAGS, &plain), 0);
    KT_EXPECT_EQ(etl_out_decode(twin, n, FLAGS, &want), 0);
    KT_EXPECT_EQ(want.n, 7);
    KT_EXPECT_EQ(plain.n, 7);
    for (size_t i = 0; i < want.n && i < plain.n; i++)
        KT_EXPECT_EQ(strcmp(want.ev[i], plain.ev[i]) == 0, i != 0);
    etl_out_free(&plain);
    static const enum xca_alg algs[] = {XCA_XPRESS, XCA_LZNT1, XCA_HUFFMAN, XCA_MIXED};
    for (size_t a = 0; a < 4; a++)
        for (unsigned split = 0; split < 2; split++) {
            size_t cn;
            uint8_t *c = compress(orig, n, algs[a], split ? ETL_COMPRESS_SPLIT : 0, &cn);
            KT_EXPECT(c != NULL);
            if (!c)
                continue;
            uint64_t at[16];
            size_t nb = buffers(c, cn, at, 16);
            printf("# %s%s: %zu bytes, %zu buffers\n", xca_alg_name(algs[a]),
                   split ? ", one record a buffer" : "", cn, nb);
            KT_EXPECT_EQ(nb, split ? 6 : 2);
            /* the layout: header buffer kept whole; the others flagged 0x40 (0x61 here, as
             * Windows writes them), each as long as stored, the next right after it */
            KT_EXPECT_EQ(rd32(c), 8192);
            KT_EXPECT(rd32(c + ETL_LOGFILE_MODE_AT) & ETL_COMPRESSED_MODE);
            int unaligned = 0;
            for (size_t b = 1; b < nb; b++) {
                KT_EXPECT_EQ(c[at[b] + 0x34], 0x61);
                unaligned |= at[b] % 8 != 0;
            }
            KT_EXPECT_EQ(at[nb - 1] + rd32(c + at[nb - 1]), cn);
            if (split)
                KT_EXPECT(unaligned);
            for (unsigned golden = 0; golden < 2; golden++) {
                unsigned fl = FLAGS | (golden ? EHD_META_GOLDEN : 0);
                struct etl_out w, got;
                KT_EXPECT_EQ(etl_out_decode(twin, n, fl, &w), 0);
                KT_EXPECT_EQ(etl_out_decode(c, cn, fl, &got), 0);
                KT_EXPECT_EQ(got.ndiag, 0);
                KT_EXPECT_EQ(got.n, w.n);
                for (size_t i = 0; i < got.n && i < w.n; i++)
                    KT_EXPECT_STR(got.ev[i], w.ev[i]);
                etl_out_free(&w);
                etl_out_free(&got);
            }
            free(c);
        }
    etl_out_free(&want);
    free(orig);
    free(twin);
}

/* Each buffer of a mixed file decompresses with the algorithm that compressed it. */
static void test_each_buffer_its_algorithm(void)
{
    size_t n, cn;
    uint8_t *orig = load(&n, 0);
    KT_EXPECT(orig != NULL);
    if (!orig)
        return;
    uint8_t *c = compress(orig, n, XCA_MIXED, ETL_COMPRESS_SPLIT, &cn);
    KT_EXPECT(c != NULL);
    uint64_t at[16];
    size_t nb = c ? buffers(c, cn, at, 16) : 0;
    for (size_t b = 1; b < nb; b++) {
        const uint8_t *h = c + at[b];
        size_t want = rd32(h + 0x30) - 0x48;
        uint8_t *out = malloc(want);
        struct ehd_xca_err err;
        enum ehd_xca_alg alg;
        KT_EXPECT_EQ(ehd_xca_decompress_any(h + 0x48, rd32(h) - 0x48, out, want, &alg, &err), 0);
        printf("# buffer at %" PRIu64 ": %s, %" PRIu32 " -> %zu bytes\n", at[b], ehd_xca_name(alg),
               rd32(h) - 0x48, want);
        /* the compressor takes XPRESS, LZNT1, XPRESS Huffman in turn */
        KT_EXPECT_EQ(alg, (enum ehd_xca_alg)((b - 1) % 3 + 1));
        /* the records as they are in the original's second buffer */
        KT_EXPECT(memmem(orig + 8192 + 0x48, rd32(orig + 8192 + 4) - 0x48, out, want) != NULL);
        free(out);
    }
    free(c);
    free(orig);
}

/* A damaged copy: valid JSON, the error at the expected offset with the reason, and the
 * other buffers' events still there. */
static void expect_damage(const char *what, const uint8_t *d, size_t n, size_t want_events,
                          uint64_t want_off, const char *reason_part)
{
    struct etl_out o;
    printf("# %s\n", what);
    KT_EXPECT_EQ(etl_out_decode(d, n, FLAGS, &o), 1);
    KT_EXPECT_EQ(o.invalid, 0);
    size_t events = 0, found = 0;
    char off[48];
    snprintf(off, sizeof off, "\"fileOffset\": %" PRIu64 " }", want_off);
    for (size_t i = 0; i < o.n; i++) {
        if (!strstr(o.ev[i], "\"error\": "))
            events++;
        else if (strstr(o.ev[i], off) && strstr(o.ev[i], reason_part))
            found++;
    }
    if (found != 1 || events != want_events)
        for (size_t i = 0; i < o.n; i++)
            printf("#   got %.400s\n", o.ev[i]);
    KT_EXPECT_EQ(found, 1);
    KT_EXPECT_EQ(events, want_events);
    KT_EXPECT(o.ndiag >= 1 && o.diag_off[0] == want_off);
    etl_out_free(&o);
}

/* The image with buffer k's compressed stream replaced by s[0..sn), the buffers after it
 * moved to follow it. */
static uint8_t *replace_stream(const uint8_t *c, size_t cn, uint64_t at, const uint8_t *s,
                               size_t sn, size_t *out_n)
{
    size_t old = rd32(c + at), rest = cn - (at + old);
    uint8_t *d = malloc(at + 0x48 + sn + rest);
    memcpy(d, c, at + 0x48);
    memcpy(d + at + 0x48, s, sn);
    memcpy(d + at + 0x48 + sn, c + at + old, rest);
    wr32(d + at, (uint32_t)(0x48 + sn));
    *out_n = at + 0x48 + sn + rest;
    return d;
}

static void test_damaged(void)
{
    size_t n, cn, dn;
    uint8_t *orig = load(&n, 0);
    KT_EXPECT(orig != NULL);
    if (!orig)
        return;
    /* five compressed buffers of one event each, after the 2 events of the header buffer */
    uint8_t *c = compress(orig, n, XCA_XPRESS, ETL_COMPRESS_SPLIT, &cn);
    uint64_t at[16];
    size_t nb = c ? buffers(c, cn, at, 16) : 0;
    KT_EXPECT_EQ(nb, 6);
    if (nb != 6) {
        free(c);
        free(orig);
        return;
    }
    uint8_t *d = malloc(cn > n ? cn : n);
    const uint64_t b2 = at[2]; /* the second compressed buffer (Venus) */
    const uint8_t *s2 = c + b2 + 0x48;
    size_t s2n = rd32(c + b2) - 0x48;

    memcpy(d, c, cn);
    wr32(d + b2 + 0x30, rd32(d + b2 + 0x30) + 8); /* declared 8 bytes more than it holds */
    expect_damage("decodes to fewer bytes than declared", d, cn, 6, b2, "decodes to");
    memcpy(d, c, cn);
    wr32(d + b2 + 0x30, rd32(d + b2 + 0x30) - 8);
    expect_damage("decodes to more bytes than declared", d, cn, 6, b2, "declared");
    memcpy(d, c, cn);
    wr32(d + b2 + 0x30, 0x40);
    expect_damage("declared size below the header", d, cn, 6, b2,
                  "uncompressed size 64 out of range");
    memcpy(d, c, cn);
    wr32(d + b2 + 0x30, (64u << 20) + 1);
    expect_damage("declared size above 64 MiB", d, cn, 6, b2, "out of range");
    memcpy(d, c, cn);
    wr32(d + b2 + 0x30, 64u << 20); /* allowed, so decompressed as far as it goes: 64 MiB */
    expect_damage("declared size of 64 MiB", d, cn, 6, b2, "decodes to");
    /* the saved offset is not what a compressed buffer's size is read from */
    memcpy(d, c, cn);
    wr32(d + b2 + 4, 0xFFFFFFFFu);
    struct etl_out o;
    KT_EXPECT_EQ(etl_out_decode(d, cn, FLAGS, &o), 0);
    KT_EXPECT_EQ(o.n, 7);
    etl_out_free(&o);

    /* a stream whose first item is a match: nothing to copy from yet */
    uint8_t *s = malloc(s2n);
    memcpy(s, s2, s2n);
    s[0] = s[1] = s[2] = 0, s[3] = 0x80, s[4] = 0x08, s[5] = 0x00;
    uint8_t *e = replace_stream(c, cn, b2, s, s2n, &dn);
    expect_damage("match before the start", e, dn, 6, b2, "before the start");
    free(e);
    /* the stream cut short by 3 bytes (the buffer and the file with it): a token or a
     * literal past its end */
    e = replace_stream(c, cn, b2, s2, s2n - 3, &dn);
    expect_damage("stream cut short", e, dn, 6, b2, "XPRESS: ");
    free(e);
    /* noise: no algorithm fits */
    for (size_t i = 0; i < s2n; i++)
        s[i] = (uint8_t)(i * 7919u >> 3);
    e = replace_stream(c, cn, b2, s, s2n, &dn);
    expect_damage("unknown algorithm", e, dn, 6, b2,
                  "do not decompress to the 376 bytes its header declares with XPRESS, LZNT1 "
                  "or XPRESS Huffman");
    free(e);
    free(s);
    /* the last buffer cut off in the file: the events before it are all there */
    expect_damage("file cut inside a compressed buffer", c, cn - 5, 6, at[5], "truncated buffer");

    /* a bad record inside a compressed buffer: the buffer's offset, the position in it */
    memcpy(d, orig, n);
    memset(d + 0x21C0, 0x11, 8); /* garbage where Venus starts: Mercury survives */
    uint8_t *g = compress(d, n, XCA_LZNT1, 0, &dn);
    expect_damage("garbage record in a compressed buffer", g, dn, 3, 8192,
                  "trace header flag; rest of the buffer skipped (at byte 448 of the "
                  "decompressed buffer)");
    free(g);
    free(d);
    free(c);
    free(orig);
}

/* ehdecode on a compressed file prints what it prints for the uncompressed twin. */
static void test_ehdecode_reads_compressed(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    size_t n, cn;
    uint8_t *twin = load(&n, 1), *orig = load(&n, 0);
    uint8_t *c = orig ? compress(orig, n, XCA_MIXED, ETL_COMPRESS_SPLIT, &cn) : NULL;
    KT_EXPECT(c != NULL);
    char tp[200], cp[200], cmd[1000];
    snprintf(tp, sizeof tp, "%s/twin.etl", perf_test_dir);
    snprintf(cp, sizeof cp, "%s/compressed.etl", perf_test_dir);
    FILE *f1 = fopen(tp, "wb"), *f2 = fopen(cp, "wb");
    KT_EXPECT(f1 && f2 && c && twin);
    if (f1 && f2 && c && twin) {
        KT_EXPECT_EQ(fwrite(twin, 1, n, f1), n);
        KT_EXPECT_EQ(fwrite(c, 1, cn, f2), cn);
    }
    if (f1)
        fclose(f1);
    if (f2)
        fclose(f2);
    static char a[1 << 16], b[1 << 16];
    snprintf(cmd, sizeof cmd, "%s --golden %s", perf_test_tool, tp);
    KT_EXPECT_EQ(perf_test_run(cmd, a, sizeof a), 0);
    snprintf(cmd, sizeof cmd, "cat %s | %s --golden -", cp, perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, b, sizeof b), 0);
    KT_EXPECT_STR(b, a);
    KT_EXPECT(strstr(a, "\"Jupiter\"") != NULL);
    free(c);
    free(orig);
    free(twin);
}

KT_MAIN(KT_CASE(test_decodes_like_the_original), KT_CASE(test_each_buffer_its_algorithm),
        KT_CASE(test_damaged), KT_CASE(test_ehdecode_reads_compressed))
