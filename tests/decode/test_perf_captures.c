/* SPDX-License-Identifier: MIT */
/*
 * The perf reader on the three real captures in tests/data/perf (ehconf's guest kernel
 * 6.12.117, Debian's perf 6.1; made by tests/data/perf/make-captures.sh with the writers
 * of gen_captures.c). Expected values come from gen_captures.c and, for the kernel's
 * sched_switch samples, times and pids, from `perf script` on the same files
 * (the .perf-script.txt files beside them), e.g.
 *   perf 68/68 [000] 3.917426676: sched:sched_switch: prev_comm=perf prev_pid=68
 *   prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=17 next_prio=0
 * never from this decoder's output.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

/* The captures live in the repository; the tests run from the top of the checkout. */
static const char *capture_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "tests/data/perf/%s", name);
    FILE *f = fopen(buf, "rb");
    if (!f) {
        printf("# %s: cannot open (run from the top of the checkout)\n", buf);
        return NULL;
    }
    fclose(f);
    return buf;
}

#define GOLDEN (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN)

/* Hello event i as gen_captures.c writes it: n = i, msg "hello #i",
 * pt {x = i*10-20, y = -i}; tracepoint Sample_Provider_L5K1 -> level 5, keyword 0x1. */
static void expected_hello(char *buf, size_t n, int i)
{
    snprintf(buf, n,
             "{ \"n\": \"Sample_Provider:Hello\", \"n\": %d, \"msg\": \"hello #%d\", "
             "\"pt\": { \"x\": %d, \"y\": %d }, \"meta\": { \"level\": 5, \"keyword\": \"0x1\" } }",
             i, i, i * 10 - 20, -i);
}

static size_t count_prefix(const struct perf_test_out *o, const char *prefix)
{
    size_t k = 0;
    for (size_t i = 0; i < o->n; i++)
        if (strncmp(o->ev[i], prefix, strlen(prefix)) == 0)
            k++;
    return k;
}

static void test_file_mode_hello_and_sched_switch(void)
{
    char path[512];
    KT_EXPECT(capture_path("hello-file-mode.perf.data", path, sizeof path) != NULL);
    size_t size;
    uint8_t *d = perf_test_read_file(path, &size);
    KT_EXPECT(d != NULL);
    if (!d)
        return;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(d, size, GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.invalid, 0);
    KT_EXPECT_EQ(o.ndiag, 0);
    KT_EXPECT_EQ(count_prefix(&o, "{ \"n\": \"sched:sched_switch\", "), 64);
    KT_EXPECT_EQ(count_prefix(&o, "{ \"n\": \"Sample_Provider:Hello\", "), 5);
    KT_EXPECT_EQ(o.n, 69);
    /* the five Hello events, in order, exactly */
    int seen = 0;
    for (size_t i = 0; i < o.n; i++) {
        if (strncmp(o.ev[i], "{ \"n\": \"Sample_Provider:", 24) != 0)
            continue;
        char want[300];
        expected_hello(want, sizeof want, seen);
        KT_EXPECT_STR(o.ev[i], want);
        seen++;
    }
    KT_EXPECT_EQ(seen, 5);
    perf_test_out_free(&o);

    /* default meta: the first sample in time, checked against perf script's first line
     * (prev_state D is TASK_UNINTERRUPTIBLE, 2) */
    KT_EXPECT_EQ(perf_test_decode(d, size, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG, &o), 0);
    KT_EXPECT(o.n > 0);
    if (o.n > 0)
        KT_EXPECT_STR(o.ev[0],
                      "{ \"n\": \"sched:sched_switch\", \"prev_comm\": \"perf\", \"prev_pid\": "
                      "\"0x44\", \"prev_prio\": 120, \"prev_state\": 2, \"next_comm\": "
                      "\"migration/0\", \"next_pid\": \"0x11\", \"next_prio\": 0, \"meta\": { "
                      "\"time\": 3.917426676, \"cpu\": 0, \"pid\": 68, \"tid\": 68 } }");
    /* perf script: migration/0 17/17 3.918261136 ... prev_state=S (1) ==> swapper/0 0 */
    if (o.n > 1)
        KT_EXPECT(strstr(o.ev[1],
                         "\"prev_comm\": \"migration/0\", \"prev_pid\": \"0x11\", "
                         "\"prev_prio\": 0, \"prev_state\": 1, \"next_comm\": "
                         "\"swapper/0\", \"next_pid\": \"0x0\", \"next_prio\": 120") != NULL);
    /* compact form of the same event */
    perf_test_out_free(&o);
    KT_EXPECT_EQ(perf_test_decode(d, size, EHD_META_GOLDEN, &o), 0);
    if (o.n > 0)
        KT_EXPECT_STR(o.ev[0],
                      "{\"n\":\"sched:sched_switch\",\"prev_comm\":\"perf\",\"prev_pid\":"
                      "\"0x44\",\"prev_prio\":120,\"prev_state\":2,\"next_comm\":"
                      "\"migration/0\",\"next_pid\":\"0x11\",\"next_prio\":0,\"meta\":{}}");
    perf_test_out_free(&o);
    free(d);
}

/* Times in default output never go backwards (the samples of both CPUs merged in time order). */
static void test_file_mode_times_sorted(void)
{
    char path[512];
    KT_EXPECT(capture_path("hello-file-mode.perf.data", path, sizeof path) != NULL);
    size_t size;
    uint8_t *d = perf_test_read_file(path, &size);
    if (!d)
        return;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(d, size, EHD_JSON_SPACE, &o), 0);
    unsigned long long prev = 0;
    size_t with_time = 0;
    for (size_t i = 0; i < o.n; i++) {
        const char *t = strstr(o.ev[i], "\"time\": ");
        unsigned long long s;
        unsigned ns;
        if (!t || sscanf(t + 8, "%llu.%9u", &s, &ns) != 2)
            continue;
        unsigned long long v = s * 1000000000ull + ns;
        KT_EXPECT(v >= prev);
        prev = v;
        with_time++;
    }
    KT_EXPECT_EQ(with_time, 69);
    perf_test_out_free(&o);
    free(d);
}

static void test_pipe_mode_hello_decoded_as_eventheader(void)
{
    char path[512];
    KT_EXPECT(capture_path("hello-pipe-mode.perf.data", path, sizeof path) != NULL);
    size_t size;
    uint8_t *d = perf_test_read_file(path, &size);
    if (!d)
        return;
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(d, size, GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.n, 5);
    KT_EXPECT_EQ(o.ndiag, 0);
    for (size_t i = 0; i < o.n && i < 5; i++) {
        char want[300];
        expected_hello(want, sizeof want, (int)i);
        KT_EXPECT_STR(o.ev[i], want);
    }
    perf_test_out_free(&o);
    /* with meta: perf script shows gen_captures 73/73 on cpu 0 */
    KT_EXPECT_EQ(perf_test_decode(d, size, EHD_JSON_SPACE, &o), 0);
    if (o.n > 0)
        KT_EXPECT(
            strstr(o.ev[0],
                   "\"time\": 5.444584671, \"cpu\": 0, \"pid\": 73, \"tid\": 73, \"level\": 5, "
                   "\"keyword\": \"0x1\" } }") != NULL);
    perf_test_out_free(&o);
    free(d);
}

/* Reads the six recorded samples through the reader API and checks the N
 * stored in the first 8 data bytes (after 8 common + 8 eventheader bytes). */
static void test_size_ladder_samples(void)
{
    char path[512];
    if (!capture_path("size-ladder.perf.data", path, sizeof path)) {
        KT_EXPECT(0);
        return;
    }
    FILE *f = fopen(path, "rb");
    const char *reason;
    uint64_t off;
    ehd_perf_reader *r = ehd_perf_open(f, NULL, NULL, &reason, &off);
    KT_EXPECT(r != NULL);
    if (!r) {
        fclose(f);
        return;
    }
    static const uint64_t want_n[6] = {16, 4000, 4100, 8000, 8150, 8170};
    uint64_t offsets[6] = {0};
    size_t k = 0;
    ehd_perf_record rec;
    while (ehd_perf_next(r, &rec) > 0) {
        if (rec.type != EHD_PERF_RECORD_SAMPLE)
            continue;
        ehd_perf_sample s;
        KT_EXPECT_EQ(ehd_perf_parse_sample(r, &rec, &s, &reason), 0);
        KT_EXPECT(s.raw != NULL);
        if (!s.raw || k >= 6) {
            k++;
            continue;
        }
        KT_EXPECT(s.attr && s.attr->format && s.attr->format->is_eventheader);
        KT_EXPECT_STR(s.attr->format->name, "TestProv_L5K1");
        uint64_t n = 0;
        for (int b = 7; b >= 0; b--)
            n = n << 8 | s.raw[16 + b];
        KT_EXPECT_EQ(n, want_n[k]);
        /* kernel raw size rule with P = 8 (header) + N */
        KT_EXPECT_EQ(s.raw_size, ((8 + 8 + want_n[k] + 4 + 7) & ~7ull) - 4);
        KT_EXPECT_EQ(s.raw[8], 0x03); /* eventheader flags: no extension */
        offsets[k] = rec.file_offset;
        k++;
    }
    KT_EXPECT_EQ(k, 6);
    ehd_perf_close(r);
    fclose(f);

    /* eventheader.h: without a metadata extension "the payload decoding system is
     * defined externally", so a header-only event is valid: it prints as any other
     * tracepoint (decoder-json.md §2.1, §7), its fields those of the tracepoint's format,
     * with the header gen_captures wrote (flags 0x03, level 5, the rest 0); exit 0. */
    size_t size;
    uint8_t *d = perf_test_read_file(path, &size);
    struct perf_test_out o;
    KT_EXPECT_EQ(perf_test_decode(d, size, GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.n, 6);
    KT_EXPECT_EQ(o.invalid, 0);
    for (size_t i = 0; i < o.n && i < 6; i++)
        KT_EXPECT_STR(o.ev[i], "{ \"n\": \"user_events:TestProv_L5K1\", \"eventheader_flags\": 3, "
                               "\"version\": 0, \"id\": 0, \"tag\": 0, \"opcode\": 0, "
                               "\"level\": 5, \"meta\": { } }");
    KT_EXPECT_EQ(o.ndiag, 0);
    (void)offsets;
    perf_test_out_free(&o);
    free(d);
}

KT_MAIN(KT_CASE(test_file_mode_hello_and_sched_switch), KT_CASE(test_file_mode_times_sorted),
        KT_CASE(test_pipe_mode_hello_decoded_as_eventheader), KT_CASE(test_size_ladder_samples))
