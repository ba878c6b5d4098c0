/* SPDX-License-Identifier: MIT */
/*
 * ehdecode --jobs N prints exactly what --jobs 1 prints (lib/decode/src/perf_jobs.c
 * against perf_decode.c): the same stdout bytes, the same stderr lines in the same
 * order and the same exit status, for N = 2, 3 and 8, in the default, --json-lines and
 * --golden forms. Inputs: every perf.data of the repository (captures, fuzz seeds,
 * both byte orders, pipe mode), cut and corrupted copies of them, and generated files
 * that reach every path of the N-thread pipeline: many batches and rounds, times out of
 * order within a round, a round beyond EHD_PERF_ROUND_MAX, undecodable samples, LOST
 * records, metadata records in the middle of the stream (which change how the samples
 * after them decode) and a stream cut inside a record. Pipe-mode files are also read
 * through a real pipe. Runs $EHCONF_BUILD/bin/ehdecode; skipped without it.
 */
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

/* EventHeader event: flags 07, level 4, metadata "E\0" "v\0" value8; v = 9 */
static const uint8_t ev[] = {0x07, 0,    0,    0,   0, 0,   0, 0x04, 0x05,
                             0x00, 0x01, 0x00, 'E', 0, 'v', 0, 0x02, 9};
/* An EventHeader event whose extension header is cut (the header announces one, one byte
 * follows): the error object and a diag line */
static const uint8_t bad[] = {0x07, 0, 0, 0, 0, 0, 0, 0x04, 'x'};

#define BIG_SIZE 16000
/* a type the decoder does not know: hex bytes, 3 characters per byte */
static const char big_fields[] =
    "\tfield:struct foo big[16000];\toffset:8;\tsize:16000;\tsigned:0;\n";

/* ---- running ehdecode ------------------------------------------------------------- */

static const char *const modes[] = {"", "--json-lines", "--golden"};
static const unsigned jobs[] = {2, 3, 8};

/* ehdecode -j j MODE on files (file names for the shell, or with pipe one file read
 * through cat): stdout and stderr into <dir>/<tag>.out and .err. Returns the exit
 * status. Several files in one run keep the number of runs (and the time) down: the
 * diag lines name their file, and each file's events are a member of their own. */
static int run_tool(const char *files, int pipe, const char *mode, unsigned j, const char *tag)
{
    char cmd[8192], none[8];
    if (pipe)
        snprintf(cmd, sizeof cmd, "cat %s | %s -j %u %s - >%s/%s.out 2>%s/%s.err", files,
                 perf_test_tool, j, mode, perf_test_dir, tag, perf_test_dir, tag);
    else
        snprintf(cmd, sizeof cmd, "%s --jobs %u %s %s >%s/%s.out 2>%s/%s.err", perf_test_tool, j,
                 mode, files, perf_test_dir, tag, perf_test_dir, tag);
    return perf_test_run(cmd, none, sizeof none);
}

struct result {
    int status;
    uint8_t *out, *err;
    size_t nout, nerr;
};

static struct result run_result(const char *src, int pipe, const char *mode, unsigned j,
                                const char *tag)
{
    struct result r = {0};
    char path[256];
    r.status = run_tool(src, pipe, mode, j, tag);
    snprintf(path, sizeof path, "%s/%s.out", perf_test_dir, tag);
    r.out = perf_test_read_file(path, &r.nout);
    snprintf(path, sizeof path, "%s/%s.err", perf_test_dir, tag);
    r.err = perf_test_read_file(path, &r.nerr);
    return r;
}

static void result_free(struct result *r)
{
    free(r->out);
    free(r->err);
}

/* Every N and every form (or only the default one) against --jobs 1; returns the --jobs 1
 * result of the default form for the caller's own checks (result_free it). */
static struct result expect_same_in(const char *src, int pipe, size_t nmodes)
{
    struct result first = {0};
    for (size_t m = 0; m < nmodes; m++) {
        struct result one = run_result(src, pipe, modes[m], 1, "one");
        KT_EXPECT(one.out && one.err);
        for (size_t k = 0; one.out && one.err && k < sizeof jobs / sizeof jobs[0]; k++) {
            struct result n = run_result(src, pipe, modes[m], jobs[k], "n");
            int same = n.status == one.status && n.out && n.err &&
                       KT_EXPECT_MEM(n.out, n.nout, one.out, one.nout) &&
                       KT_EXPECT_MEM(n.err, n.nerr, one.err, one.nerr);
            if (!same)
                kt_diag("%s%s %s: --jobs %u differs from --jobs 1 (exit %d, want %d)", src,
                        pipe ? " (through a pipe)" : "", modes[m][0] ? modes[m] : "(default)",
                        jobs[k], n.status, one.status);
            KT_EXPECT(same);
            result_free(&n);
        }
        if (m == 0)
            first = one;
        else
            result_free(&one);
    }
    return first;
}

static struct result expect_same(const char *src, int pipe)
{
    return expect_same_in(src, pipe, sizeof modes / sizeof modes[0]);
}

/* The first 16 bytes of path: magic, header size. */
static int head16(const char *path, uint8_t h[16])
{
    FILE *f = fopen(path, "rb");
    int ok = f && fread(h, 1, 16, f) == 16;
    if (f)
        fclose(f);
    return ok;
}

static int is_pipe_mode(const char *path)
{
    uint8_t h[16];
    return head16(path, h) && (h[8] == 16 || h[15] == 16); /* header size 16, either order */
}

static int pipe_be(const char *path)
{
    uint8_t h[16];
    return head16(path, h) && h[15] == 16;
}

/* Appends " 'path'" to the file list. */
static void add_file(char *list, size_t cap, const char *path)
{
    size_t n = strlen(list);
    snprintf(list + n, cap - n, " '%s'", path);
}

/* ---- writing inputs --------------------------------------------------------------- */

static void put(uint8_t *p, uint64_t v, int n, int be)
{
    for (int k = 0; k < n; k++)
        p[be ? n - 1 - k : k] = (uint8_t)(v >> (8 * k));
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The writer's image, from its temporary FILE, to path; cut to keep bytes if keep. */
static int finish_to(ehd_perf_writer *w, FILE *tmp, const char *path, size_t keep)
{
    int rc = ehd_perf_writer_finish(w);
    size_t n;
    uint8_t *img = perf_test_slurp(tmp, &n);
    fclose(tmp);
    if (rc || !img) {
        free(img);
        return -1;
    }
    rc = write_file(path, img, keep && keep < n ? keep : n);
    free(img);
    return rc;
}

/* PERF_RECORD_LOST for id 100 with its sample_id_all trailer (pid/tid, time, cpu,
 * identifier). */
static void lost_record(ehd_perf_writer *w, int be, uint64_t lost, uint64_t time)
{
    uint8_t body[48] = {0};
    put(body, 100, 8, be);
    put(body + 8, lost, 8, be);
    put(body + 16, 9, 4, be);
    put(body + 20, 10, 4, be);
    put(body + 24, time, 8, be);
    put(body + 32, 3, 4, be);
    put(body + 40, 100, 8, be);
    ehd_perf_writer_record(w, EHD_PERF_RECORD_LOST, body, sizeof body);
}

/* Metadata in the middle of the stream: it renames the undecodable tracepoint (id 102,
 * so its error objects' "n" changes), adds clock data (so every later time becomes a
 * date) and has two records the reader reports (a HEADER_FEATURE too short, a
 * compressed record) among the samples' own diag lines. */
static void metadata_records(ehd_perf_writer *w, int be)
{
    uint8_t upd[32] = {0};
    put(upd, EHD_PERF_EVENT_UPDATE_NAME, 8, be);
    put(upd + 8, 102, 8, be);
    memcpy(upd + 16, "renamed:Bad", 12);
    ehd_perf_writer_record(w, EHD_PERF_RECORD_EVENT_UPDATE, upd, sizeof upd);
    uint8_t clk[32] = {0};
    put(clk, EHD_PERF_FEAT_CLOCK_DATA, 8, be);
    put(clk + 8, 1, 4, be);  /* version */
    put(clk + 12, 1, 4, be); /* CLOCK_MONOTONIC */
    put(clk + 16, 1700000000000000000ull, 8, be);
    put(clk + 24, 1000, 8, be);
    ehd_perf_writer_record(w, EHD_PERF_RECORD_HEADER_FEATURE, clk, sizeof clk);
    ehd_perf_writer_record(w, EHD_PERF_RECORD_HEADER_FEATURE, NULL, 0);
    ehd_perf_writer_record(w, EHD_PERF_RECORD_COMPRESSED, clk, 8);
}

#define NSAMPLES 3000u /* 2 batches of perf_jobs.c (BATCH_ITEMS) */

/* Samples of three shapes (EventHeader, sched_switch, undecodable) in rounds of 7 whose
 * times go back and forth with repeats, LOST records, and with meta the metadata above
 * halfway. keep: cut the image there (0: whole). */
static int write_rounds(const char *path, int pipe, int be, int meta, size_t keep)
{
    static const char *const names[3] = {"P_L4K0", "Q_L5K1", "Bad_L4K0"};
    ehd_perf_writer_opts o = {0};
    o.pipe = pipe;
    o.big_endian = be;
    o.sched = 1;
    o.round_every = 7;
    o.clock_data = !meta;
    o.wall_ns = 1600000000000000000ull;
    o.clock_ns = 500;
    FILE *tmp = tmpfile();
    const char *reason;
    ehd_perf_writer *w = tmp ? ehd_perf_writer_open(tmp, &o, names, 3, &reason) : NULL;
    if (!w) {
        if (tmp)
            fclose(tmp);
        return -1;
    }
    uint8_t sched[56];
    ehd_perf_writer_sched_payload(w, sched, "a", 1, 120, 1, "b", 2, 120);
    for (unsigned i = 0; i < NSAMPLES; i++) {
        uint64_t time = 1000 + (i / 7) * 10 + (i * 3) % 5;
        if (i % 97 == 0)
            ehd_perf_writer_sample(w, 2, bad, sizeof bad, time, 1, 1, i % 4);
        else if (i % 5 == 1)
            ehd_perf_writer_sample(w, 3, sched, sizeof sched, time, 1, 2, i % 4);
        else
            ehd_perf_writer_sample(w, i % 2, ev, sizeof ev, time, 1, 2, i % 4);
        if (i % 1000 == 500)
            lost_record(w, be, i, time);
        if (meta && i == NSAMPLES / 2)
            metadata_records(w, be);
    }
    return finish_to(w, tmp, path, keep);
}

/* One round (no FINISHED_ROUND until the end) of far more than EHD_PERF_ROUND_MAX of
 * text, so it is flushed early, with times out of order on both sides of that flush. */
static int write_big_round(const char *path)
{
    static const char *const names[1] = {"P_L4K0"};
    ehd_perf_writer_opts o = {0};
    o.custom_fields = big_fields;
    FILE *tmp = tmpfile();
    const char *reason;
    ehd_perf_writer *w = tmp ? ehd_perf_writer_open(tmp, &o, names, 1, &reason) : NULL;
    static uint8_t payload[BIG_SIZE];
    if (!w) {
        if (tmp)
            fclose(tmp);
        return -1;
    }
    for (unsigned i = 0; i < 200; i++) {
        for (size_t k = 0; k < BIG_SIZE; k++)
            payload[k] = (uint8_t)(i + k);
        ehd_perf_writer_sample(w, 1, payload, BIG_SIZE, (i * 7919u) % 1000, 1, 2, 0);
        ehd_perf_writer_sample(w, 0, ev, sizeof ev, (i * 31u) % 1000, 1, 2, 1);
        ehd_perf_writer_sample(w, 0, ev, sizeof ev, (i * 31u) % 1000, 1, 3, 1);
    }
    return finish_to(w, tmp, path, 0);
}

/* Copies of src cut short and with some bytes flipped: the reader's problems. */
static int write_damaged(const char *src, const char *cut, const char *flipped)
{
    size_t n;
    uint8_t *p = perf_test_read_file(src, &n);
    if (!p || n < 64) {
        free(p);
        return -1;
    }
    int rc = write_file(cut, p, (n * 3 / 4) | 1);
    for (size_t k = 0; k < 8; k++)
        p[n / 2 + k * 13 < n ? n / 2 + k * 13 : n - 1] ^= 0x5A;
    rc |= write_file(flipped, p, n);
    free(p);
    return rc;
}

/* ---- tests ------------------------------------------------------------------------- */

/* The repository's perf.data files and a cut and a flipped copy of each, all in one run
 * per form and N; the pipe-mode ones and a file-mode one also through a real pipe. */
static void test_repository_files(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    static const char *const patterns[] = {"tests/data/perf/*.perf.data",
                                           "tests/fuzz/seeds-fuzz_perf/*"};
    char files[4096] = "", pipes[3][256], spooled[256] = "";
    size_t nfiles = 0, npipes = 0;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        glob_t g; /* the unit tests run in the repository's root */
        if (glob(patterns[p], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc; i++, nfiles++) {
            const char *f = g.gl_pathv[i];
            char cut[160], flipped[160];
            snprintf(cut, sizeof cut, "%s/cut-%zu.perf.data", perf_test_dir, nfiles);
            snprintf(flipped, sizeof flipped, "%s/flipped-%zu.perf.data", perf_test_dir, nfiles);
            KT_EXPECT_EQ(write_damaged(f, cut, flipped), 0);
            add_file(files, sizeof files, f);
            add_file(files, sizeof files, cut);
            add_file(files, sizeof files, flipped);
            /* one of each byte order is enough for the input path: the forms and the
             * pipeline's paths are all checked with file names */
            if (is_pipe_mode(f) && npipes < 2 && (!npipes || pipe_be(f) != pipe_be(pipes[0])))
                snprintf(pipes[npipes++], sizeof pipes[0], "%s", f);
            /* and one file-mode capture, which ehdecode spools to a temporary file that
             * the formatting threads then read by offset */
            if (!is_pipe_mode(f) && !spooled[0])
                snprintf(spooled, sizeof spooled, "%s", f);
        }
        globfree(&g);
    }
    KT_EXPECT(nfiles >= 7); /* 3 captures, 4 seeds */
    KT_EXPECT_EQ(npipes, 2);
    KT_EXPECT(spooled[0] != 0);
    if (spooled[0])
        snprintf(pipes[npipes++], sizeof pipes[0], "%s", spooled);
    struct result r = expect_same(files, 0);
    KT_EXPECT_EQ(r.status, 1); /* the damaged copies */
    result_free(&r);
    for (size_t i = 0; i < npipes; i++) {
        char quoted[300] = "";
        add_file(quoted, sizeof quoted, pipes[i]);
        r = expect_same_in(quoted, 1, 1);
        result_free(&r);
    }
}

/* 1 if the text has needle (the file really has what the test is about). */
static int has(const struct result *r, const char *needle)
{
    return r->out && r->err &&
           (memmem(r->out, r->nout, needle, strlen(needle)) != NULL ||
            memmem(r->err, r->nerr, needle, strlen(needle)) != NULL);
}

/* The generated files, all in one run per form and N (one process costs more than the
 * decoding, under ASan most of all); first checks that each has what it is there for. */
static void test_generated_files(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    char path[160], files[2048] = "";
    size_t whole;
    snprintf(path, sizeof path, "%s/rounds.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_rounds(path, 0, 0, 0, 0), 0);
    add_file(files, sizeof files, path);
    for (int be = 0; be < 2; be++) {
        snprintf(path, sizeof path, "%s/meta-%s.perf.data", perf_test_dir, be ? "be" : "le");
        KT_EXPECT_EQ(write_rounds(path, 1, be, 1, 0), 0);
        add_file(files, sizeof files, path);
    }
    free(perf_test_read_file(path, &whole));
    snprintf(path, sizeof path, "%s/cut-stream.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_rounds(path, 1, 1, 1, (whole * 2 / 3) | 1), 0); /* records: 8-aligned */
    add_file(files, sizeof files, path);
    snprintf(path, sizeof path, "%s/big.perf.data", perf_test_dir);
    KT_EXPECT_EQ(write_big_round(path), 0);
    add_file(files, sizeof files, path);

    struct result r = expect_same(files, 0);
    KT_EXPECT_EQ(r.status, 1);
    /* rounds: LOST records, error objects, a non-EventHeader tracepoint */
    KT_EXPECT(has(&r, "the kernel lost 500 samples on cpu 3"));
    KT_EXPECT(has(&r, "\"n\": \"user_events:Bad_L4K0\", \"error\""));
    KT_EXPECT(has(&r, "\"sched:sched_switch\""));
    /* meta: both names and both time forms: the metadata took effect midway */
    KT_EXPECT(has(&r, "\"n\": \"renamed:Bad\", \"error\""));
    KT_EXPECT(has(&r, "\"time\": 0.0000010"));
    KT_EXPECT(has(&r, "\"time\": \"2023-11-14T22:13:20.0000"));
    KT_EXPECT(has(&r, "HEADER_FEATURE record too short"));
    KT_EXPECT(has(&r, "compressed records"));
    /* cut-stream */
    KT_EXPECT(has(&r, "is truncated"));
    /* big: one round flushed early (one event object of the round is ~48 KB) */
    KT_EXPECT(r.nout > EHD_PERF_ROUND_MAX + (EHD_PERF_ROUND_MAX >> 3));
    result_free(&r);
}

/* Pipe-mode streams through a real pipe, in the default form (each run of ehdecode costs
 * 0.1 s under ASan; the forms were all checked with file names above). */
static void test_streams_through_a_pipe(void)
{
    if (!perf_test_tool_setup())
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    static const char *const names[] = {"meta-be", "cut-stream"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[200];
        snprintf(path, sizeof path, "'%s/%s.perf.data'", perf_test_dir, names[i]);
        struct result r = expect_same_in(path, 1, 1);
        KT_EXPECT(r.nout > 100000);
        result_free(&r);
    }
}

KT_MAIN(KT_CASE(test_repository_files), KT_CASE(test_generated_files),
        KT_CASE(test_streams_through_a_pipe))
