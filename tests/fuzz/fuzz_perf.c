/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf reader: the input is a perf.data image (file
 * or pipe mode, either byte order). Decodes it fully with both output forms,
 * on one thread and on two, and aborts if the two print anything different
 * (events, diag lines, return value): --jobs must never change the output.
 * Also feeds the bytes to the tracing-data and format parsers directly, since
 * those are reached only through a well-formed container otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Everything a decode prints, in order. */
struct capture {
    char *p;
    size_t len, cap;
};

static void put(struct capture *c, const void *p, size_t n)
{
    if (c->cap - c->len < n) {
        size_t cap = (c->cap + n) * 2;
        char *np = realloc(c->p, cap);
        if (!np)
            abort();
        c->p = np;
        c->cap = cap;
    }
    memcpy(c->p + c->len, p, n);
    c->len += n;
}

static void emit_capture(void *ctx, const char *json, size_t len)
{
    put(ctx, json, len);
    put(ctx, "\n", 1);
}

static void diag_capture(void *ctx, uint64_t offset, const char *reason)
{
    put(ctx, &offset, sizeof offset);
    put(ctx, reason, strlen(reason) + 1);
}

static int decode(const uint8_t *data, size_t size, unsigned flags, unsigned jobs,
                  struct capture *out)
{
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return -1;
    int rc = ehd_perf_decode_jobs(f, flags, jobs, emit_capture, out, diag_capture, out);
    fclose(f);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    for (int golden = 0; golden < 2; golden++) {
        unsigned flags = EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | (golden ? EHD_META_GOLDEN : 0);
        struct capture one = {0}, two = {0};
        int rc1 = decode(data, size, flags, 1, &one), rc2 = decode(data, size, flags, 2, &two);
        if (rc1 != rc2 || one.len != two.len || (one.len && memcmp(one.p, two.p, one.len) != 0))
            abort(); /* --jobs 2 printed something --jobs 1 did not */
        free(one.p);
        free(two.p);
    }
    ehd_tracing_data td;
    const char *reason;
    size_t at;
    ehd_tracing_data_parse(&td, data, size, &reason, &at);
    ehd_tracing_data_free(&td);
    ehd_tp_format fmt;
    if (ehd_tp_format_parse(&fmt, "fuzz", (const char *)data, size, &reason) == 0)
        ehd_tp_format_free(&fmt);
    return 0;
}
