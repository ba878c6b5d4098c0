/* SPDX-License-Identifier: MIT */
/*
 * ehdecode's output on a small mixed file (support_mixed.h: 5 shapes x 64 values, 640
 * events) must stay byte-identical while the decoder is made faster (issue 15). The
 * expected output in tests/data/mixed/ is what the decoder printed BEFORE any speed
 * work (see the README there); every line of it was checked against the shapes'
 * definitions when it was committed. A change here is a reviewed golden change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehd_perf.h"
#include "ktap.h"
#include "support_mixed.h"

#define NSMALL (2 * 5 * MIXED_VARIANTS)

struct sink {
    FILE *f;
};

static void emit(void *ctx, const char *json, size_t len)
{
    struct sink *s = ctx;
    fwrite(json, 1, len, s->f);
    fputc('\n', s->f);
}

/* Decodes path with flags into a malloc'ed string. */
static char *decode(const char *path, unsigned flags, size_t *len)
{
    char *text = NULL;
    FILE *in = fopen(path, "rb");
    struct sink s = {open_memstream(&text, len)};

    if (in && s.f)
        ehd_perf_decode(in, flags, emit, &s, NULL, NULL);
    if (in)
        fclose(in);
    if (s.f)
        fclose(s.f);
    return text;
}

static char dat[400], perf[512];

static void remove_files(void)
{
    unlink(dat);
    unlink(perf);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;

    if (!f) {
        printf("# %s: cannot open (run from the top of the checkout)\n", path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n + 1)) != NULL) {
        *len = fread(p, 1, (size_t)n, f);
        p[*len] = 0;
    }
    fclose(f);
    return p;
}

/* 1 if equal; else prints the first differing line. */
static int same(const char *what, const char *got, size_t got_len, const char *want,
                size_t want_len)
{
    size_t i = 0, line = 1, start = 0;

    while (i < got_len && i < want_len && got[i] == want[i]) {
        if (got[i] == '\n')
            line++, start = i + 1;
        i++;
    }
    if (i == got_len && i == want_len)
        return 1;
    printf("# %s: first difference at line %zu:\n#  got:  %.200s\n#  want: %.200s\n", what, line,
           got + start, want + start);
    return 0;
}

/* Writes the small mixed file once (the first test to need it); 1 when it is there. */
static int mixed_file(void)
{
    static int state; /* 0 not tried, 1 ready, -1 failed */
    int fd;

    if (state)
        return state > 0;
    state = -1;
    if (!kt_tmp_template(dat, sizeof dat, "ehconf-mixed-XXXXXX") || (fd = mkstemp(dat)) < 0)
        return 0;
    close(fd);
    snprintf(perf, sizeof perf, "%s.perf.data", dat);
    if (mixed_write_capture(dat) != 0 || mixed_write_perf(dat, perf, NSMALL) != 0) {
        printf("# cannot write the mixed file %s\n", perf);
        return 0;
    }
    state = 1;
    atexit(remove_files);
    return 1;
}

static void check(const char *reference, unsigned flags)
{
    size_t got_len = 0, want_len = 0;
    char *got, *want;

    KT_EXPECT(mixed_file());
    got = decode(perf, flags, &got_len);
    want = read_file(reference, &want_len);
    KT_EXPECT(got != NULL && want != NULL);
    if (got && want)
        KT_EXPECT(same(reference, got, got_len, want, want_len));
    free(got);
    free(want);
}

static void test_default_output_is_unchanged(void)
{
    check("tests/data/mixed/mixed-640.json", EHD_JSON_SPACE | EHD_JSON_FIELD_TAG);
}

static void test_golden_output_is_unchanged(void)
{
    check("tests/data/mixed/mixed-640.golden.json",
          EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN);
}

KT_MAIN(KT_CASE(test_default_output_is_unchanged), KT_CASE(test_golden_output_is_unchanged))
