/* SPDX-License-Identifier: MIT */
/*
 * The ehdecode command line: document framing (Documentation/decoder-json.md §0),
 * --json-lines / --golden, stdin, exit status 0/1/2, error objects.
 * Runs $EHCONF_BUILD/bin/ehdecode (make unit sets EHCONF_BUILD); skipped
 * without it. test_perf_jobs.c checks that --jobs never changes the output. Inputs are written by the library's perf.data writer.
 */
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

/* EventHeader event: flags 07, level 4, metadata "E\0" "v\0" value8; v = 9 */
static const uint8_t ev[] = {0x07, 0,    0,    0,   0, 0,   0, 0x04, 0x05,
                             0x00, 0x01, 0x00, 'E', 0, 'v', 0, 0x02, 9};

/* Writes a perf.data with two samples (times 20 and 10, one round) to path. */
static int write_perf(const char *path, int pipe, int truncate_by)
{
    ehd_perf_writer_opts o = {0};
    o.pipe = pipe;
    static const char *const names[1] = {"P_L4K0"};
    FILE *out = tmpfile();
    const char *reason;
    ehd_perf_writer *w = ehd_perf_writer_open(out, &o, names, 1, &reason);
    if (!w)
        return -1;
    ehd_perf_writer_sample(w, 0, ev, sizeof ev, 20, 1, 2, 3);
    ehd_perf_writer_sample(w, 0, ev, sizeof ev, 10, 1, 2, 3);
    ehd_perf_writer_finish(w);
    size_t size;
    uint8_t *img = perf_test_slurp(out, &size);
    fclose(out);
    FILE *f = fopen(path, "wb");
    if (!f || !img) {
        free(img);
        return -1;
    }
    fwrite(img, 1, size - (size_t)truncate_by, f);
    fclose(f);
    free(img);
    return 0;
}

static void test_default_document(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    char a[128], cmd[1024], out[4096], want[2048];
    snprintf(a, sizeof a, "%s/a.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_perf(a, 0, 0), 0);
    snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", perf_test_tool, a);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 0);
    /* BOM (stdout is a pipe), sorted by time within the round */
    snprintf(want, sizeof want,
             "\xEF\xBB\xBF{\n\"%s\": [\n"
             "  { \"n\": \"P:E\", \"v\": 9, \"meta\": { \"time\": 0.000000010, \"cpu\": 3, "
             "\"pid\": 1, \"tid\": 2, \"level\": 4 } },\n"
             "  { \"n\": \"P:E\", \"v\": 9, \"meta\": { \"time\": 0.000000020, \"cpu\": 3, "
             "\"pid\": 1, \"tid\": 2, \"level\": 4 } } ]\n}\n",
             a);
    KT_EXPECT_STR(out, want);

    /* two inputs, --no-bom, one that does not exist (exit 1, empty array) */
    snprintf(cmd, sizeof cmd, "%s --no-bom --compact %s %s/missing 2>/dev/null", perf_test_tool, a,
             perf_test_dir);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    snprintf(want, sizeof want,
             "{\n\"%s\": [\n {\"n\":\"P:E\",\"v\":9,\"meta\":{\"time\":0.000000010,\"cpu\":3,"
             "\"pid\":1,\"tid\":2,\"level\":4}},\n {\"n\":\"P:E\",\"v\":9,\"meta\":{\"time\":"
             "0.000000020,\"cpu\":3,\"pid\":1,\"tid\":2,\"level\":4}} ],\n\"%s/missing\": [ ]\n}\n",
             a, perf_test_dir);
    KT_EXPECT_STR(out, want);
    KT_EXPECT(perf_test_json_valid(out, strlen(out)));
}

static void test_golden_lines_and_stdin_pipe_mode(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    char p[128], cmd[1024], out[4096];
    snprintf(p, sizeof p, "%s/p.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_perf(p, 1, 0), 0);
    snprintf(cmd, sizeof cmd, "cat %s | %s --golden - 2>/dev/null", p, perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 0);
    KT_EXPECT_STR(out, "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }\n"
                       "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }\n");
    /* file mode through a pipe (spooled to a temporary file) */
    char a[128];
    snprintf(a, sizeof a, "%s/a.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_perf(a, 0, 0), 0);
    snprintf(cmd, sizeof cmd, "cat %s | %s --json-lines --compact \"\" 2>/dev/null", a,
             perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 0);
    KT_EXPECT_STR(out, "{\"n\":\"P:E\",\"v\":9,\"meta\":{\"time\":0.000000010,\"cpu\":3,\"pid\":1,"
                       "\"tid\":2,\"level\":4}}\n"
                       "{\"n\":\"P:E\",\"v\":9,\"meta\":{\"time\":0.000000020,\"cpu\":3,\"pid\":1,"
                       "\"tid\":2,\"level\":4}}\n");
}

static void test_exit_status_and_messages(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "%s --no-such-option x 2>&1", perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 2);
    KT_EXPECT(strstr(out, "usage: ehdecode") != NULL);
    snprintf(cmd, sizeof cmd, "%s 2>&1", perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "%s --help", perf_test_tool);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 0);
    KT_EXPECT(strncmp(out, "usage: ehdecode", 15) == 0);
    KT_EXPECT(strstr(out, "--jobs") != NULL);
    /* --jobs takes a number of threads, 1 or more */
    static const char *const bad_jobs[] = {"--jobs 0", "--jobs x", "--jobs=-1", "-j 2x", "-j"};
    for (size_t i = 0; i < sizeof bad_jobs / sizeof bad_jobs[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s %s %s/none 2>&1", perf_test_tool, bad_jobs[i], perf_test_dir);
        KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 2);
        KT_EXPECT(strstr(out, "usage: ehdecode") != NULL);
    }

    /* truncated pipe stream: the last sample is cut -> message, exit 1, valid document */
    char t[128];
    snprintf(t, sizeof t, "%s/t.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_perf(t, 1, 8 + 30), 0); /* drops FINISHED_ROUND + part of a sample */
    snprintf(cmd, sizeof cmd, "%s --no-bom %s 2>&1 >/dev/null", perf_test_tool, t);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    char want[256];
    snprintf(want, sizeof want, "ehdecode: %s:", t);
    KT_EXPECT(strncmp(out, want, strlen(want)) == 0);
    KT_EXPECT(strstr(out, "is truncated") != NULL);
    snprintf(cmd, sizeof cmd, "%s --no-bom %s 2>/dev/null", perf_test_tool, t);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    KT_EXPECT(perf_test_json_valid(out, strlen(out)));

    /* an EventHeader sample that does not decode: the pinned error object (the header
     * announces an extension, and one byte follows it: the extension header is cut) */
    ehd_perf_writer_opts o = {0};
    static const char *const names[1] = {"Bad_L4K0"};
    static const uint8_t bad[] = {0x07, 0, 0, 0, 0, 0, 0, 0x04, 'x'};
    char b[128];
    snprintf(b, sizeof b, "%s/b.perf.data", perf_test_dir);
    FILE *f = fopen(b, "w+b");
    const char *reason;
    ehd_perf_writer *w = f ? ehd_perf_writer_open(f, &o, names, 1, &reason) : NULL;
    if (w) {
        ehd_perf_writer_sample(w, 0, bad, sizeof bad, 5, 1, 1, 0);
        ehd_perf_writer_finish(w);
    }
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "%s --golden %s 2>/dev/null", perf_test_tool, b);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    /* data section starts right after the 104-byte header: the sample is at 104 */
    KT_EXPECT(strncmp(out, "{ \"n\": \"user_events:Bad_L4K0\", \"error\": \"", 41) == 0);
    KT_EXPECT(strstr(out, "\", \"fileOffset\": 104 }\n") != NULL);

    /* a header-only event (no extension at all) is valid (eventheader.h: its payload's
     * decoding is defined externally): the tracepoint's format fields, exit 0 */
    static const uint8_t header_only[] = {0x03, 0, 0, 0, 0, 0, 0, 0x04, 'x'};
    f = fopen(b, "w+b");
    w = f ? ehd_perf_writer_open(f, &o, names, 1, &reason) : NULL;
    if (w) {
        ehd_perf_writer_sample(w, 0, header_only, sizeof header_only, 5, 1, 1, 0);
        ehd_perf_writer_finish(w);
    }
    if (f)
        fclose(f);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 0);
    KT_EXPECT(strncmp(out, "{ \"n\": \"user_events:Bad_L4K0\", \"eventheader_flags\": 3, ", 55) ==
              0);
    KT_EXPECT(strstr(out, "\"level\": 4, \"meta\": { } }\n") != NULL);
}

/* Appends one capture record (Documentation/eventheader-wire.md §9: u32 LE size
 * including itself, then the name bytes, then the event) to f. */
static void put_record(FILE *f, const void *name, size_t name_len, const uint8_t *data, size_t size)
{
    uint32_t total = (uint32_t)(4 + name_len + size);
    uint8_t le[4] = {(uint8_t)total, (uint8_t)(total >> 8), (uint8_t)(total >> 16),
                     (uint8_t)(total >> 24)};
    fwrite(le, 1, 4, f);
    fwrite(name, 1, name_len, f);
    if (size)
        fwrite(data, 1, size, f);
}

/* A .dat record whose name has no NUL but whose size is sound: reported
 * (exit 1, message on stderr), shown as an error object, and the records
 * after it are still decoded. A record whose size runs past the end stops
 * the file. */
static void test_dat_bad_record_continues(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    char d[128], cmd[1024], out[4096];
    snprintf(d, sizeof d, "%s/bad-name.dat", perf_test_dir);
    FILE *f = fopen(d, "wb");
    KT_EXPECT(f != NULL);
    if (!f)
        return;
    put_record(f, "P_L4K0", 7, ev, sizeof ev); /* offset 0, 4 + 7 + 18 = 29 bytes */
    put_record(f, "abc", 3, NULL, 0);          /* offset 29, 7 bytes, name without NUL */
    put_record(f, "P_L4K0", 7, ev, sizeof ev); /* offset 36 */
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s --golden %s 2>/dev/null", perf_test_tool, d);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    KT_EXPECT_STR(out, "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }\n"
                       "{ \"n\": \"user_events:\", \"error\": \"tracepoint name not "
                       "NUL-terminated inside the record\", \"fileOffset\": 29 }\n"
                       "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }\n");
    /* the message names the name field, 4 bytes into the record at 29 */
    snprintf(cmd, sizeof cmd, "%s --golden %s 2>&1 >/dev/null", perf_test_tool, d);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    char want[256];
    snprintf(want, sizeof want,
             "ehdecode: %s:33: tracepoint name not NUL-terminated inside the record\n", d);
    KT_EXPECT_STR(out, want);

    /* a size that lies (100 bytes claimed, 11 there) ends the file after record 1 */
    f = fopen(d, "wb");
    KT_EXPECT(f != NULL);
    if (!f)
        return;
    put_record(f, "P_L4K0", 7, ev, sizeof ev);
    static const uint8_t lie[] = {100, 0, 0, 0, 'P', 0, 1, 2, 3, 4, 5};
    fwrite(lie, 1, sizeof lie, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s --golden %s 2>/dev/null", perf_test_tool, d);
    KT_EXPECT_EQ(perf_test_run(cmd, out, sizeof out), 1);
    KT_EXPECT_STR(out, "{ \"n\": \"P:E\", \"v\": 9, \"meta\": { \"level\": 4 } }\n");
}

KT_MAIN(KT_CASE(test_default_document), KT_CASE(test_golden_lines_and_stdin_pipe_mode),
        KT_CASE(test_exit_status_and_messages), KT_CASE(test_dat_bad_record_continues))
