/* SPDX-License-Identifier: MIT */
/*
 * Round trips through the perf.data writer (the code behind mkperfdata): a
 * capture file written out byte by byte below is wrapped into perf.data in
 * file/pipe mode x little/big endian, then decoded. Expected JSON is worked
 * out by hand from Documentation/decoder-json.md §1-§2 and §7.
 */
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

/* Three capture records: u32 LE record size (incl. itself), name\0, event bytes. */
static const uint8_t capture[] = {
    /* 1: MyProv_L4K2, little-endian event: flags 07, version 1, id 5, tag 0,
     *    opcode 0, level 4; metadata ext (7 bytes) "Ev1\0" "a\0" value32; a = 7 */
    0x27,
    0x00,
    0x00,
    0x00,
    'M',
    'y',
    'P',
    'r',
    'o',
    'v',
    '_',
    'L',
    '4',
    'K',
    '2',
    0,
    0x07,
    0x01,
    0x05,
    0x00,
    0x00,
    0x00,
    0x00,
    0x04,
    0x07,
    0x00,
    0x01,
    0x00,
    'E',
    'v',
    '1',
    0,
    'a',
    0,
    0x04,
    0x07,
    0x00,
    0x00,
    0x00,
    /* 2: MyProv_L4K2, big-endian event (flags 05): level 4; ext size 10 (BE)
     *    "Ev2\0" "b\0" value16 "s\0" zstring8; b = 0x0102 BE, s = "hi" */
    0x2b,
    0x00,
    0x00,
    0x00,
    'M',
    'y',
    'P',
    'r',
    'o',
    'v',
    '_',
    'L',
    '4',
    'K',
    '2',
    0,
    0x05,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x04,
    0x00,
    0x0a,
    0x00,
    0x01,
    'E',
    'v',
    '2',
    0,
    'b',
    0,
    0x03,
    's',
    0,
    0x07,
    0x01,
    0x02,
    'h',
    'i',
    0,
    /* 3: Other_L5K0: flags 07, tag 0x1234, opcode 2, level 5; "Ev3\0", no fields */
    0x1f,
    0x00,
    0x00,
    0x00,
    'O',
    't',
    'h',
    'e',
    'r',
    '_',
    'L',
    '5',
    'K',
    '0',
    0,
    0x07,
    0x00,
    0x00,
    0x00,
    0x34,
    0x12,
    0x02,
    0x05,
    0x04,
    0x00,
    0x01,
    0x00,
    'E',
    'v',
    '3',
    0,
};

/* Sample times: rounds of two samples, so round 1 = {3000, 1000} is sorted
 * and round 2 = {2000, sched 1500} too, but never across rounds. */
static const uint64_t times[3] = {3000, 1000, 2000};

static const char *const want_golden[4] = {
    "{ \"n\": \"MyProv:Ev2\", \"b\": 258, \"s\": \"hi\", \"meta\": { \"level\": 4, \"keyword\": "
    "\"0x2\" } }",
    "{ \"n\": \"MyProv:Ev1\", \"a\": 7, \"meta\": { \"id\": 5, \"version\": 1, \"level\": 4, "
    "\"keyword\": \"0x2\" } }",
    "{ \"n\": \"sched:sched_switch\", \"prev_comm\": \"app\", \"prev_pid\": \"0x7\", "
    "\"prev_prio\": 120, \"prev_state\": -1, \"next_comm\": \"swapper/0\", \"next_pid\": "
    "\"0x0\", \"next_prio\": 99, \"meta\": { } }",
    "{ \"n\": \"Other:Ev3\", \"meta\": { \"level\": 5, \"opcode\": 2, \"tag\": \"0x1234\" } }",
};

/* Builds the perf.data image; returns malloc'd bytes. */
static uint8_t *make_perf(int pipe, int be, int clock, size_t *size)
{
    ehd_perf_writer_opts o = {0};
    o.pipe = pipe;
    o.big_endian = be;
    o.sched = 1;
    o.round_every = 2;
    if (clock) {
        o.clock_data = 1;
        o.wall_ns = 1704067200ull * 1000000000ull; /* 2024-01-01T00:00:00Z ... */
        o.clock_ns = 1000;                         /* ... is perf time 1000 ns */
    }
    static const char *const names[2] = {"MyProv_L4K2", "Other_L5K0"};
    FILE *out = tmpfile();
    const char *reason;
    ehd_perf_writer *w = ehd_perf_writer_open(out, &o, names, 2, &reason);
    if (!w) {
        fclose(out);
        return NULL;
    }
    FILE *in = fmemopen((void *)capture, sizeof capture, "rb");
    ehd_dat_reader *dr = ehd_dat_open(in);
    ehd_dat_record rec;
    uint64_t off;
    size_t i = 0;
    while (dr && ehd_dat_next(dr, &rec, &reason, &off) > 0 && i < 3) {
        size_t tp = rec.tp_name[0] == 'M' ? 0 : 1;
        KT_EXPECT_EQ(ehd_perf_writer_sample(w, tp, rec.data, rec.size, times[i], 7, 7, 1), 0);
        i++;
    }
    KT_EXPECT_EQ(i, 3);
    ehd_dat_close(dr);
    fclose(in);
    uint8_t p[56];
    ehd_perf_writer_sched_payload(w, p, "app", 7, 120, -1, "swapper/0", 0, 99);
    KT_EXPECT_EQ(ehd_perf_writer_sample(w, 2, p, sizeof p, 1500, 7, 7, 1), 0);
    KT_EXPECT_EQ(ehd_perf_writer_finish(w), 0);
    uint8_t *img = perf_test_slurp(out, size);
    fclose(out);
    return img;
}

static void check_variant(int pipe, int be)
{
    size_t size;
    uint8_t *img = make_perf(pipe, be, 0, &size);
    KT_EXPECT(img != NULL);
    if (!img)
        return;
    struct perf_test_out o;
    KT_EXPECT_EQ(
        perf_test_decode(img, size, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.n, 4);
    KT_EXPECT_EQ(o.ndiag, 0);
    for (size_t i = 0; i < o.n && i < 4; i++)
        KT_EXPECT_STR(o.ev[i], want_golden[i]);
    perf_test_out_free(&o);

    /* default meta without clock data: unquoted seconds */
    KT_EXPECT_EQ(perf_test_decode(img, size, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG, &o), 0);
    if (o.n == 4) {
        KT_EXPECT_STR(o.ev[0], "{ \"n\": \"MyProv:Ev2\", \"b\": 258, \"s\": \"hi\", \"meta\": { "
                               "\"time\": 0.000001000, \"cpu\": 1, \"pid\": 7, \"tid\": 7, "
                               "\"level\": 4, \"keyword\": \"0x2\" } }");
        KT_EXPECT_STR(o.ev[2], "{ \"n\": \"sched:sched_switch\", \"prev_comm\": \"app\", "
                               "\"prev_pid\": \"0x7\", \"prev_prio\": 120, \"prev_state\": -1, "
                               "\"next_comm\": \"swapper/0\", \"next_pid\": \"0x0\", "
                               "\"next_prio\": 99, \"meta\": { \"time\": 0.000001500, \"cpu\": 1, "
                               "\"pid\": 7, \"tid\": 7 } }");
    }
    perf_test_out_free(&o);
    free(img);
}

static void test_file_little_endian(void)
{
    check_variant(0, 0);
}
static void test_file_big_endian(void)
{
    check_variant(0, 1);
}
static void test_pipe_little_endian(void)
{
    check_variant(1, 0);
}
static void test_pipe_big_endian(void)
{
    check_variant(1, 1);
}

static void test_clock_data_gives_utc_time(void)
{
    size_t size;
    uint8_t *img = make_perf(0, 1, 1, &size);
    if (!img)
        return;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(img, size, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG, &o), 0);
    KT_EXPECT_EQ(o.n, 4);
    if (o.n == 4) {
        KT_EXPECT_STR(o.ev[1], "{ \"n\": \"MyProv:Ev1\", \"a\": 7, \"meta\": { \"time\": "
                               "\"2024-01-01T00:00:00.000002000Z\", \"cpu\": 1, \"pid\": 7, "
                               "\"tid\": 7, \"id\": 5, \"version\": 1, \"level\": 4, "
                               "\"keyword\": \"0x2\" } }");
        KT_EXPECT(strstr(o.ev[3], "\"time\": \"2024-01-01T00:00:00.000001000Z\"") != NULL);
    }
    perf_test_out_free(&o);
    /* compact */
    KT_EXPECT_EQ(perf_test_decode(img, size, 0, &o), 0);
    if (o.n == 4)
        KT_EXPECT_STR(o.ev[3], "{\"n\":\"Other:Ev3\",\"meta\":{\"time\":"
                               "\"2024-01-01T00:00:00.000001000Z\",\"cpu\":1,\"pid\":7,\"tid\":7,"
                               "\"level\":5,\"opcode\":2,\"tag\":\"0x1234\"}}");
    perf_test_out_free(&o);
    free(img);
}

/* The raw data the writer produced follows the kernel's rules; read back
 * through the reader API. */
static void test_raw_layout_and_padding(void)
{
    for (int be = 0; be < 2; be++) {
        size_t size;
        uint8_t *img = make_perf(0, be, 0, &size);
        if (!img)
            return;
        FILE *f = fmemopen(img, size, "rb");
        const char *reason;
        uint64_t off;
        ehd_perf_reader *r = ehd_perf_open(f, NULL, NULL, &reason, &off);
        KT_EXPECT(r != NULL);
        if (r) {
            KT_EXPECT_EQ(ehd_perf_is_big_endian(r), be);
            KT_EXPECT_EQ(ehd_perf_attr_count(r), 3);
            const ehd_perf_attr *a = ehd_perf_attr_at(r, 0);
            KT_EXPECT(a && a->name && strcmp(a->name, "user_events:MyProv_L4K2") == 0);
            KT_EXPECT(a && (a->flags & EHD_PERF_ATTR_FLAG_SAMPLE_ID_ALL));
            KT_EXPECT(a && a->format && a->format->is_eventheader && a->format->id == 1000);
            ehd_perf_record rec;
            int first = 1;
            while (ehd_perf_next(r, &rec) > 0) {
                if (rec.type != EHD_PERF_RECORD_SAMPLE || !first)
                    continue;
                first = 0;
                ehd_perf_sample s;
                KT_EXPECT_EQ(ehd_perf_parse_sample(r, &rec, &s, &reason), 0);
                /* event 1 is 8 + 4 + 7 + 4 = 23 bytes: P = 23, raw = round_up(8+23+4, 8) - 4 */
                KT_EXPECT_EQ(s.raw_size, 36);
                KT_EXPECT_EQ(s.time, 3000);
                KT_EXPECT_EQ(s.cpu, 1);
                KT_EXPECT_EQ(s.pid, 7);
                KT_EXPECT_EQ(s.id, 100);
                /* common_type = 1000 in the file's byte order */
                KT_EXPECT_EQ(s.raw[0], be ? 0x03 : 0xE8);
                KT_EXPECT_EQ(s.raw[1], be ? 0xE8 : 0x03);
                KT_EXPECT_EQ(s.raw[8], 0x07); /* event bytes as written */
                for (uint32_t k = 31; k < 36; k++)
                    KT_EXPECT_EQ(s.raw[k], 0xAA);
            }
            KT_EXPECT_EQ(ehd_perf_problem_count(r), 0);
            ehd_perf_close(r);
        }
        fclose(f);
        free(img);
    }
}

/* Non-sample records are skipped by their size; their sample_id_all trailer
 * (TID, TIME, CPU, IDENTIFIER for this writer's sample_type) is readable, and
 * PERF_RECORD_LOST is reported. */
static void test_lost_record_and_sample_id_trailer(void)
{
    for (int be = 0; be < 2; be++) {
        ehd_perf_writer_opts o = {0};
        o.big_endian = be;
        static const char *const names[1] = {"MyProv_L4K2"};
        FILE *out = tmpfile();
        const char *reason;
        ehd_perf_writer *w = ehd_perf_writer_open(out, &o, names, 1, &reason);
        if (!w) {
            fclose(out);
            return;
        }
        /* LOST body: u64 id, u64 lost; trailer: pid/tid, time, cpu/res, identifier */
        uint8_t body[48];
        uint64_t vals[6] = {100, 17, 0, 5555, 0, 100};
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 8; k++)
                body[8 * i + (be ? 7 - k : k)] = (uint8_t)(vals[i] >> (8 * k));
        /* pid 9 / tid 10 and cpu 3 / res 0 are u32 pairs */
        for (int k = 0; k < 4; k++) {
            body[16 + (be ? 3 - k : k)] = (uint8_t)(9u >> (8 * k));
            body[20 + (be ? 3 - k : k)] = (uint8_t)(10u >> (8 * k));
            body[32 + (be ? 3 - k : k)] = (uint8_t)(3u >> (8 * k));
            body[36 + (be ? 3 - k : k)] = 0;
        }
        ehd_perf_writer_record(w, EHD_PERF_RECORD_LOST, body, sizeof body);
        ehd_perf_writer_record(w, 3 /* COMM, not parsed */, "\1\0\0\0\1\0\0\0x\0\0\0\0\0\0", 16);
        FILE *in = fmemopen((void *)capture, sizeof capture, "rb");
        ehd_dat_reader *dr = ehd_dat_open(in);
        ehd_dat_record rec;
        uint64_t off;
        if (dr && ehd_dat_next(dr, &rec, &reason, &off) > 0)
            ehd_perf_writer_sample(w, 0, rec.data, rec.size, 1, 7, 7, 1);
        ehd_dat_close(dr);
        fclose(in);
        KT_EXPECT_EQ(ehd_perf_writer_finish(w), 0);
        size_t size;
        uint8_t *img = perf_test_slurp(out, &size);
        fclose(out);

        FILE *f = fmemopen(img, size, "rb");
        ehd_perf_reader *r = ehd_perf_open(f, NULL, NULL, &reason, &off);
        KT_EXPECT(r != NULL);
        ehd_perf_record pr;
        int lost_seen = 0;
        while (r && ehd_perf_next(r, &pr) > 0) {
            if (pr.type != EHD_PERF_RECORD_LOST)
                continue;
            ehd_perf_sample s;
            KT_EXPECT_EQ(ehd_perf_parse_sample_id(r, &pr, &s, &reason), 0);
            KT_EXPECT_EQ(s.pid, 9);
            KT_EXPECT_EQ(s.tid, 10);
            KT_EXPECT_EQ(s.time, 5555);
            KT_EXPECT_EQ(s.cpu, 3);
            KT_EXPECT_EQ(s.id, 100);
            lost_seen++;
        }
        KT_EXPECT_EQ(lost_seen, 1);
        ehd_perf_close(r);
        fclose(f);

        struct perf_test_out t;
        KT_EXPECT_EQ(perf_test_decode(img, size, EHD_JSON_SPACE | EHD_META_GOLDEN, &t), 1);
        KT_EXPECT_EQ(t.n, 1);
        KT_EXPECT(perf_test_diag_has(&t, "the kernel lost 17 samples on cpu 3"));
        perf_test_out_free(&t);
        free(img);
    }
}

KT_MAIN(KT_CASE(test_lost_record_and_sample_id_trailer), KT_CASE(test_file_little_endian),
        KT_CASE(test_file_big_endian), KT_CASE(test_pipe_little_endian),
        KT_CASE(test_pipe_big_endian), KT_CASE(test_clock_data_gives_utc_time),
        KT_CASE(test_raw_layout_and_padding))
