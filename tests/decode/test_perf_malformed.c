/* SPDX-License-Identifier: MIT */
/*
 * Malformed perf.data: every prefix of small files, a record with size 0,
 * an attr whose size lies, a feature section beyond the end of the file.
 * The decoder must not crash or hang, must report (result 1 = "something
 * skipped or malformed") and every object it emits must be valid JSON.
 * Offsets used to patch the files follow from the writer's documented
 * layout: file header (104 bytes), then the data section.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

#define GOLDEN (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN)

/* EventHeader event: flags 07, level 4, metadata "E\0" "v\0" value8; v = 9 */
static const uint8_t ev[] = {0x07, 0,    0,    0,   0, 0,   0, 0x04, 0x05,
                             0x00, 0x01, 0x00, 'E', 0, 'v', 0, 0x02, 9};

static uint8_t *make(int pipe, int be, unsigned nsamples, size_t *size)
{
    ehd_perf_writer_opts o = {0};
    o.pipe = pipe;
    o.big_endian = be;
    o.round_every = 2;
    static const char *const names[1] = {"P_L4K0"};
    FILE *out = tmpfile();
    const char *reason;
    ehd_perf_writer *w = ehd_perf_writer_open(out, &o, names, 1, &reason);
    for (unsigned i = 0; w && i < nsamples; i++)
        ehd_perf_writer_sample(w, 0, ev, sizeof ev, 10 + i, 1, 1, 0);
    uint8_t *img = w && ehd_perf_writer_finish(w) == 0 ? perf_test_slurp(out, size) : NULL;
    fclose(out);
    return img;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static const char want_event[] = "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }";

static void test_intact_file_decodes(void)
{
    size_t size;
    uint8_t *img = make(0, 0, 3, &size);
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(img, size, GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.n, 3);
    for (size_t i = 0; i < o.n; i++)
        KT_EXPECT_STR(o.ev[i], want_event);
    perf_test_out_free(&o);
    free(img);
}

/* Every prefix of a file-mode file is malformed (the feature sections end
 * the file, so any cut loses something the header points at). */
static void test_every_prefix_file_mode(void)
{
    for (int be = 0; be < 2; be++) {
        size_t size;
        uint8_t *img = make(0, be, 3, &size);
        KT_EXPECT(img != NULL);
        size_t bad_rc = 0, bad_json = 0;
        for (size_t n = 0; img && n < size; n++) {
            struct perf_test_out o;
            int rc = perf_test_decode(img, n, GOLDEN, &o);
            if (rc != 1)
                bad_rc++;
            if (o.invalid)
                bad_json++;
            if (o.ndiag == 0)
                bad_rc++;
            /* whatever is emitted is a complete event or an error object */
            for (size_t i = 0; i < o.n; i++)
                if (strcmp(o.ev[i], want_event) != 0 && !strstr(o.ev[i], "\"error\": "))
                    bad_json++;
            perf_test_out_free(&o);
        }
        KT_EXPECT_EQ(bad_rc, 0);
        KT_EXPECT_EQ(bad_json, 0);
        free(img);
    }
}

/* Pipe mode has no end marker: a cut exactly between records is a valid
 * shorter stream. The test finds those boundaries with its own walk (u16 size
 * at +6; tracing data payload = u32 at +8 after its record). */
static void test_every_prefix_pipe_mode(void)
{
    size_t size;
    uint8_t *img = make(1, 0, 3, &size);
    KT_EXPECT(img != NULL);
    if (!img)
        return;
    uint8_t *boundary = calloc(size + 1, 1);
    size_t pos = 16;
    boundary[16] = 1;
    while (pos + 8 <= size) {
        uint32_t type = (uint32_t)img[pos] | (uint32_t)img[pos + 1] << 8;
        size_t rs = (size_t)img[pos + 6] | (size_t)img[pos + 7] << 8;
        size_t next = pos + rs;
        if (type == 66)
            next += (size_t)img[pos + 8] | (size_t)img[pos + 9] << 8 | (size_t)img[pos + 10] << 16;
        if (rs < 8 || next > size)
            break;
        pos = next;
        boundary[pos] = 1;
    }
    KT_EXPECT_EQ(pos, size);
    size_t bad = 0, samples_seen_max = 0;
    for (size_t n = 0; n < size; n++) {
        struct perf_test_out o;
        int rc = perf_test_decode(img, n, GOLDEN, &o);
        if (o.invalid)
            bad++;
        if (!boundary[n] && rc != 1)
            bad++;
        if (o.n > samples_seen_max)
            samples_seen_max = o.n;
        perf_test_out_free(&o);
    }
    KT_EXPECT_EQ(bad, 0);
    KT_EXPECT_EQ(samples_seen_max, 3); /* only the final FINISHED_ROUND may be cut off */
    free(boundary);
    free(img);
}

static void test_record_size_zero_stops(void)
{
    size_t size;
    uint8_t *img = make(0, 0, 3, &size);
    if (!img)
        return;
    /* second sample record: data starts at 104; a sample of this event is
     * 8 + 32 + 4 + raw(round_up(8+18+4, 8) - 4 = 28) = 72 bytes */
    img[104 + 72 + 6] = 0;
    img[104 + 72 + 7] = 0;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(img, size, GOLDEN, &o), 1);
    KT_EXPECT_EQ(o.n, 1); /* the first sample still comes out */
    KT_EXPECT(o.ndiag >= 1);
    KT_EXPECT(o.ndiag >= 1 && o.diag_off[0] == 104 + 72);
    KT_EXPECT(perf_test_diag_has(&o, "smaller than its header"));
    perf_test_out_free(&o);
    free(img);
}

static void test_attr_size_lies(void)
{
    size_t size;
    uint8_t *img = make(0, 0, 3, &size);
    if (!img)
        return;
    uint64_t attrs_off = le64(img + 24);
    img[attrs_off + 4] = 0x00; /* attr.size = 4096 (> 128 bytes of space) */
    img[attrs_off + 5] = 0x10;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(img, size, GOLDEN, &o), 1);
    KT_EXPECT_EQ(o.n, 3); /* the fields that are there still describe the samples */
    KT_EXPECT(perf_test_diag_has(&o, "attr size 4096"));
    perf_test_out_free(&o);
    /* attr_size in the file header that is not plausible: no attrs at all */
    uint8_t *img2 = make(0, 0, 3, &size);
    img2[16] = 8;
    img2[17] = 0;
    KT_EXPECT_EQ(perf_test_decode(img2, size, GOLDEN, &o), 1);
    KT_EXPECT_EQ(o.invalid, 0);
    for (size_t i = 0; i < o.n; i++)
        KT_EXPECT(strstr(o.ev[i], "\"error\": \"sample before any attr\"") != NULL);
    perf_test_out_free(&o);
    free(img2);
    free(img);
}

static void test_feature_section_beyond_eof(void)
{
    size_t size;
    uint8_t *img = make(0, 0, 3, &size);
    if (!img)
        return;
    uint64_t table = le64(img + 40) + le64(img + 48);
    /* first entry = TRACING_DATA (bit 1): offset far past the end */
    img[table + 6] = 0x10;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(img, size, GOLDEN, &o), 1);
    KT_EXPECT(perf_test_diag_has(&o, "feature 1 section beyond the end of the file"));
    KT_EXPECT_EQ(o.n, 3);
    /* no formats: the samples fall back to §7 "raw" under their EVENT_DESC name */
    for (size_t i = 0; i < o.n; i++)
        KT_EXPECT(strncmp(o.ev[i], "{ \"n\": \"user_events:P_L4K0\", \"raw\": \"", 37) == 0);
    KT_EXPECT_EQ(o.invalid, 0);
    perf_test_out_free(&o);
    free(img);
}

static void test_not_perf_data(void)
{
    static const uint8_t junk[] = "PERFILE3 this is not a perf file";
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(junk, sizeof junk, GOLDEN, &o), 1);
    KT_EXPECT(perf_test_diag_has(&o, "bad magic"));
    KT_EXPECT_EQ(o.n, 0);
    perf_test_out_free(&o);
}

/* A tracing-data blob whose counts lie: rejected without reading outside it. */
static void test_tracing_data_counts_lie(void)
{
    static const uint8_t blob[] = {0x17, 0x08, 0x44, 't',  'r',  'a',  'c', 'i',  'n', 'g',
                                   '0',  '.',  '6',  0,    0,    8,    0,   0x10, 0,   0,
                                   'h',  'e',  'a',  'd',  'e',  'r',  '_', 'p',  'a', 'g',
                                   'e',  0,    0xff, 0xff, 0xff, 0xff, 0,   0,    0,   0};
    ehd_tracing_data td;
    const char *reason;
    size_t at;
    KT_EXPECT_EQ(ehd_tracing_data_parse(&td, blob, sizeof blob, &reason, &at), EBADMSG);
    KT_EXPECT_STR(reason, "tracing data: header file size beyond the data");
    KT_EXPECT_EQ(at, 40);
    ehd_tracing_data_free(&td);
}

KT_MAIN(KT_CASE(test_intact_file_decodes), KT_CASE(test_every_prefix_file_mode),
        KT_CASE(test_every_prefix_pipe_mode), KT_CASE(test_record_size_zero_stops),
        KT_CASE(test_attr_size_lies), KT_CASE(test_feature_section_beyond_eof),
        KT_CASE(test_not_perf_data), KT_CASE(test_tracing_data_counts_lie))
