/* SPDX-License-Identifier: MIT */
/*
 * The decoder's per-thread cache of event layouts (lib/decode/src/ehd_schema_cache.c)
 * must never change what an event decodes to. Every event here is decoded twice:
 * "cold" on a thread of its own (an empty cache, so the full parse) and "warm" on
 * the test's thread after events that differ from it in one input the layout
 * depends on (tracepoint level or keyword, one metadata byte, byte order, output
 * flags) have filled the cache. Both must give the same errno and the same text,
 * and a few are also checked against text written by hand.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "eventheader_wire.h"
#include "ktap.h"
#include "support_eh_events.h"

struct decode_job {
    const uint8_t *event;
    size_t len;
    const char *tp;
    unsigned flags;
    int err;
    char *json;
};

static void decode(struct decode_job *j)
{
    ehd_buf out;
    const char *reason = NULL;
    size_t off = 0;
    ehd_buf_init(&out);
    j->err = ehd_eventheader_json(&out, j->tp, strlen(j->tp), j->event, j->len, NULL, j->flags,
                                  &reason, &off);
    j->json = strdup(out.data ? out.data : "");
    ehd_buf_free(&out);
}

static void *decode_thread(void *arg)
{
    decode(arg);
    return NULL;
}

/* The event decoded on a fresh thread, whose cache is empty. */
static void decode_cold(struct decode_job *j)
{
    pthread_t t;
    if (pthread_create(&t, NULL, decode_thread, j) != 0 || pthread_join(t, NULL) != 0) {
        kt_fail_at(__FILE__, __LINE__, "cannot run a decoding thread");
        j->err = -1;
        j->json = strdup("");
    }
}

struct variant {
    const char *what;
    ehb e;
    const char *tp;
    unsigned flags;
    const uint8_t *event;
    size_t len;
    struct decode_job cold;
};

/* Decodes every variant warm, `rounds` times round-robin, and compares each with
 * its cold result. Returns the number of differences. */
static int compare_warm(struct variant *v, size_t n, int rounds)
{
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++) {
            struct decode_job w = {v[i].event, v[i].len, v[i].tp, v[i].flags, 0, NULL};
            decode(&w);
            if (w.err != v[i].cold.err || strcmp(w.json, v[i].cold.json) != 0) {
                if (bad++ < 3) {
                    kt_diag("  %s (round %d): warm err %d, cold err %d", v[i].what, r, w.err,
                            v[i].cold.err);
                    kt_diag("  warm: %s", w.json);
                    kt_diag("  cold: %s", v[i].cold.json);
                }
            }
            free(w.json);
        }
    }
    return bad;
}

static void finish_variants(struct variant *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i].event = ehb_finish(&v[i].e, &v[i].len);
        v[i].cold = (struct decode_job){v[i].event, v[i].len, v[i].tp, v[i].flags, 0, NULL};
        decode_cold(&v[i].cold);
    }
}

static void free_variants(struct variant *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].cold.json);
        ehb_free(&v[i].e);
    }
}

/* Event "Conn" with a long metadata (so a one-byte change sits well inside it,
 * away from both ends) and fields a (u32), b (string), c (u16 hex, tag 7). */
static void conn_event(ehb *e, int big_endian, uint8_t level, char middle_name)
{
    char name[] = "request_identifier_x";
    name[sizeof name - 2] = middle_name;
    ehb_init(e, big_endian, level, "Conn");
    ehb_field(e, "a", EH_ENC_VALUE32, 0);
    ehb_field(e, name, EH_ENC_STRING_LENGTH16_CHAR8, 0);
    ehb_field_ex(e, "the_last_field_name", EH_ENC_VALUE16, EH_FMT_HEX_INT, 7, -1);
    ehb_u32(e, 42);
    ehb_str8(e, "hi");
    ehb_u16(e, 0xBEEF);
}

static void test_one_input_apart(void)
{
    struct variant v[] = {
        {.what = "base", .tp = "P_L5K1"},
        {.what = "one metadata byte in the middle", .tp = "P_L5K1"},
        {.what = "other keyword", .tp = "P_L5K2"},
        {.what = "name level differs from the header", .tp = "P_L4K1"},
        {.what = "big-endian", .tp = "P_L5K1"},
        {.what = "spaced output", .tp = "P_L5K1", .flags = EHD_JSON_SPACE},
        {.what = "field tags shown", .tp = "P_L5K1", .flags = EHD_JSON_FIELD_TAG},
        {.what = "other provider", .tp = "Q_L5K1"},
        /* names of equal length that differ only far from both ends */
        {.what = "long provider", .tp = "ProviderWithALongName_Middle_AAAAAAAAAAAAAAAA_L5K1"},
        {.what = "long provider, one byte apart",
         .tp = "ProviderWithALongName_Middle_BAAAAAAAAAAAAAAA_L5K1"},
    };
    size_t n = sizeof v / sizeof v[0];
    for (size_t i = 0; i < n; i++)
        conn_event(&v[i].e, i == 4, 5, i == 1 ? 'y' : 'x');
    finish_variants(v, n);

    /* Two results written out by hand: a cache keyed on less than every byte
     * would hand one of these the other's field name or keyword. */
    int ok = v[0].cold.err == 0 && v[1].cold.err == 0 && v[3].cold.err == EINVAL;
    ok = ok && strcmp(v[0].cold.json,
                      "{\"n\":\"P:Conn\",\"a\":42,\"request_identifier_x\":\"hi\","
                      "\"the_last_field_name\":\"0xBEEF\",\"meta\":{\"level\":5,\"keyword\":"
                      "\"0x1\"}}") == 0;
    ok = ok && strstr(v[1].cold.json, "\"request_identifier_y\":\"hi\"") != NULL;
    ok = ok && strstr(v[2].cold.json, "\"keyword\":\"0x2\"") != NULL;
    ok = ok && strstr(v[9].cold.json, "Middle_BAAA") != NULL;
    if (!ok) {
        kt_fail_at(__FILE__, __LINE__, "the cold results differ from the hand-written ones");
        kt_diag("  base: %s", v[0].cold.json);
    }
    /* a cached layout is used only for the same name, metadata, byte order and flags */
    KT_EXPECT_EQ(compare_warm(v, n, 3), 0);
    free_variants(v, n);
}

/* More layouts than one thread keeps: the cache starts over, results stay. */
static void test_more_layouts_than_kept(void)
{
    enum { N = 600 };
    struct variant *v = calloc(N, sizeof *v);
    char tps[N][24];
    for (int i = 0; i < N; i++) {
        char field[16];
        snprintf(field, sizeof field, "f%d", i);
        snprintf(tps[i], sizeof tps[i], "P_L5K%x", i + 1);
        ehb_init(&v[i].e, 0, 5, "Many");
        ehb_field(&v[i].e, field, EH_ENC_VALUE32, 0);
        ehb_u32(&v[i].e, (uint32_t)i);
        v[i].what = tps[i];
        v[i].tp = tps[i];
    }
    finish_variants(v, N);
    KT_EXPECT_EQ(compare_warm(v, N, 2), 0);
    free_variants(v, N);
    free(v);
}

/* A layout too large to keep (2,500 fields) is parsed every time. */
static void test_layout_too_large_to_keep(void)
{
    struct variant v[2] = {{.what = "large", .tp = "P_L5K1"},
                           {.what = "large, spaced", .tp = "P_L5K1", .flags = EHD_JSON_SPACE}};
    for (int k = 0; k < 2; k++) {
        ehb_init(&v[k].e, 0, 5, "Large");
        for (int i = 0; i < 2500; i++) {
            char field[16];
            snprintf(field, sizeof field, "field_%d", i);
            ehb_field(&v[k].e, field, EH_ENC_VALUE8, 0);
            ehb_u8(&v[k].e, (uint8_t)i);
        }
    }
    finish_variants(v, 2);
    KT_EXPECT_EQ(v[0].cold.err, 0);
    KT_EXPECT(strstr(v[0].cold.json, "\"field_2499\":195") != NULL);
    KT_EXPECT_EQ(compare_warm(v, 2, 2), 0);
    free_variants(v, 2);
}

KT_MAIN(KT_CASE(test_one_input_apart), KT_CASE(test_more_layouts_than_kept),
        KT_CASE(test_layout_too_large_to_keep))
