/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE parsing for sample_type bits before RAW (IP, TID, TIME,
 * ADDR, ID, STREAM_ID, CPU, PERIOD, READ in both read_format shapes,
 * CALLCHAIN) and id -> attr mapping without IDENTIFIER. The pipe-mode streams
 * are built here byte by byte in the layout of perf.data-file-format.txt:
 * perf_event_attr {u32 type, u32 size, u64 config, u64 period, u64
 * sample_type, u64 read_format, u64 flags, ...}, sample fields in bit order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

struct img {
    uint8_t b[4096];
    size_t n;
};

static void u8s(struct img *m, const void *p, size_t n)
{
    memcpy(m->b + m->n, p, n);
    m->n += n;
}
static void u32(struct img *m, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        m->b[m->n++] = (uint8_t)(v >> (8 * i));
}
static void u64(struct img *m, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        m->b[m->n++] = (uint8_t)(v >> (8 * i));
}
static void rec_header(struct img *m, uint32_t type, uint16_t size)
{
    u32(m, type);
    m->b[m->n++] = 0;
    m->b[m->n++] = 0;
    m->b[m->n++] = (uint8_t)size;
    m->b[m->n++] = (uint8_t)(size >> 8);
}

static void pipe_header(struct img *m)
{
    m->n = 0;
    u8s(m, "PERFILE2", 8);
    u64(m, 16);
}

/* HEADER_ATTR: 8 + 128-byte attr + one id */
static void attr_record(struct img *m, uint64_t config, uint64_t st, uint64_t rf, uint64_t id)
{
    rec_header(m, 64, 8 + 128 + 8);
    size_t at = m->n;
    u32(m, 2);   /* PERF_TYPE_TRACEPOINT */
    u32(m, 128); /* attr.size */
    u64(m, config);
    u64(m, 1); /* sample_period */
    u64(m, st);
    u64(m, rf);
    while (m->n < at + 128)
        m->b[m->n++] = 0;
    u64(m, id);
}

#define ST_ALL                                                                                \
    (EHD_PERF_SAMPLE_IP | EHD_PERF_SAMPLE_TID | EHD_PERF_SAMPLE_TIME | EHD_PERF_SAMPLE_ADDR | \
     EHD_PERF_SAMPLE_ID | EHD_PERF_SAMPLE_STREAM_ID | EHD_PERF_SAMPLE_CPU |                   \
     EHD_PERF_SAMPLE_PERIOD | EHD_PERF_SAMPLE_READ | EHD_PERF_SAMPLE_CALLCHAIN |              \
     EHD_PERF_SAMPLE_RAW)

#define RF_FLAT (EHD_PERF_FORMAT_ID | EHD_PERF_FORMAT_LOST | EHD_PERF_FORMAT_TOTAL_TIME_RUNNING)

/* A sample with every field before RAW; read part and callchain count given. */
static void sample_record(struct img *m, uint64_t id, int group, uint64_t callchain_nr)
{
    uint16_t size = (uint16_t)(8 + 8 * 8 /* ip..period */ + (group ? 6 * 8 : 4 * 8) + 8 +
                               3 * 8 /* callchain */ + 4 + 12 /* raw */);
    rec_header(m, 9, size);
    u64(m, 0xffffffff81000000ull); /* IP */
    u32(m, 11);                    /* TID: pid, tid */
    u32(m, 12);
    u64(m, 777); /* TIME */
    u64(m, 0);   /* ADDR */
    u64(m, id);  /* ID */
    u64(m, 99);  /* STREAM_ID */
    u32(m, 3);   /* CPU, res */
    u32(m, 0);
    u64(m, 1);   /* PERIOD */
    if (group) { /* GROUP|ID|TOTAL_TIME_ENABLED: nr, enabled, nr x {value, id} */
        u64(m, 2);
        u64(m, 1000);
        u64(m, 5), u64(m, id);
        u64(m, 6), u64(m, id + 1);
    } else { /* ID|LOST|TOTAL_TIME_RUNNING: value, running, id, lost */
        u64(m, 5), u64(m, 1000), u64(m, id), u64(m, 0);
    }
    u64(m, callchain_nr); /* CALLCHAIN: nr, ips (3 present) */
    u64(m, 1), u64(m, 2), u64(m, 3);
    u32(m, 12); /* RAW: size, common header + 4 payload bytes */
    static const uint8_t raw[12] = {5, 0, 0, 0, 11, 0, 0, 0, 0xA1, 0xA2, 0xA3, 0xA4};
    u8s(m, raw, sizeof raw);
}

static int first_sample(const struct img *m, ehd_perf_sample *s, const char **reason,
                        uint64_t *config)
{
    FILE *f = fmemopen((void *)m->b, m->n, "rb");
    const char *why;
    uint64_t off;
    ehd_perf_reader *r = ehd_perf_open(f, NULL, NULL, &why, &off);
    int rc = -1;
    ehd_perf_record rec;
    while (r && ehd_perf_next(r, &rec) > 0) {
        if (rec.type != EHD_PERF_RECORD_SAMPLE)
            continue;
        rc = ehd_perf_parse_sample(r, &rec, s, reason);
        *config = s->attr ? s->attr->config : 0;
        /* copy the raw bytes out: they live in the reader's window */
        static uint8_t keep[64];
        if (!rc && s->raw && s->raw_size <= sizeof keep) {
            memcpy(keep, s->raw, s->raw_size);
            s->raw = keep;
        }
        break;
    }
    ehd_perf_close(r);
    fclose(f);
    return rc;
}

static void test_every_field_before_raw_group_read(void)
{
    static struct img m;
    pipe_header(&m);
    attr_record(&m, 5, ST_ALL,
                EHD_PERF_FORMAT_GROUP | EHD_PERF_FORMAT_ID | EHD_PERF_FORMAT_TOTAL_TIME_ENABLED,
                42);
    sample_record(&m, 42, 1, 3);
    ehd_perf_sample s;
    const char *reason = NULL;
    uint64_t config;
    KT_EXPECT_EQ(first_sample(&m, &s, &reason, &config), 0);
    KT_EXPECT_EQ(s.time, 777);
    KT_EXPECT_EQ(s.pid, 11);
    KT_EXPECT_EQ(s.tid, 12);
    KT_EXPECT_EQ(s.cpu, 3);
    KT_EXPECT_EQ(s.id, 42);
    KT_EXPECT_EQ(config, 5);
    KT_EXPECT_EQ(s.raw_size, 12);
    KT_EXPECT(s.raw && s.raw[8] == 0xA1 && s.raw[11] == 0xA4);
}

static void test_plain_read_format(void)
{
    static struct img m;
    pipe_header(&m);
    attr_record(&m, 5, ST_ALL, RF_FLAT, 42);
    sample_record(&m, 42, 0, 3);
    ehd_perf_sample s;
    const char *reason = NULL;
    uint64_t config;
    KT_EXPECT_EQ(first_sample(&m, &s, &reason, &config), 0);
    KT_EXPECT_EQ(s.raw_size, 12);
    KT_EXPECT(s.raw && s.raw[8] == 0xA1);
}

static void test_callchain_count_lies(void)
{
    static struct img m;
    pipe_header(&m);
    attr_record(&m, 5, ST_ALL, RF_FLAT, 42);
    sample_record(&m, 42, 0, 3);
    /* callchain nr sits before its 3 ips, the raw size and the 12 raw bytes */
    size_t nr_at = m.n - 12 - 4 - 3 * 8 - 8;
    for (int i = 0; i < 8; i++)
        m.b[nr_at + i] = (uint8_t)(1000ull >> (8 * i));
    ehd_perf_sample s;
    const char *reason = NULL;
    uint64_t config;
    KT_EXPECT_EQ(first_sample(&m, &s, &reason, &config), EBADMSG);
    KT_EXPECT_STR(reason, "sample callchain count beyond the record");
}

/* Two attrs, samples without IDENTIFIER: the id is found after IP, TID, TIME, ADDR. */
static void test_id_maps_sample_to_second_attr(void)
{
    static struct img m;
    ehd_perf_sample s;
    const char *reason = NULL;
    uint64_t config = 0;
    pipe_header(&m);
    attr_record(&m, 5, ST_ALL, RF_FLAT, 42);
    attr_record(&m, 6, ST_ALL, RF_FLAT, 43);
    sample_record(&m, 43, 0, 3);
    KT_EXPECT_EQ(first_sample(&m, &s, &reason, &config), 0);
    KT_EXPECT_EQ(config, 6);
    KT_EXPECT_EQ(s.id, 43);
    KT_EXPECT_EQ(s.raw_size, 12);
    /* an id no attr has */
    pipe_header(&m);
    attr_record(&m, 5, ST_ALL, RF_FLAT, 42);
    attr_record(&m, 6, ST_ALL, RF_FLAT, 43);
    sample_record(&m, 44, 0, 3);
    KT_EXPECT_EQ(first_sample(&m, &s, &reason, &config), EBADMSG);
    KT_EXPECT_STR(reason, "sample id matches no attr");
}

KT_MAIN(KT_CASE(test_every_field_before_raw_group_read), KT_CASE(test_plain_read_format),
        KT_CASE(test_callchain_count_lies), KT_CASE(test_id_maps_sample_to_second_attr))
