/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the TraceLogging decoder (lib/decode/src/tl_json.c, tl_capture_reader.c):
 * hand-written TraceLogging blobs -> hand-written JSON, and the EventHeader and
 * TraceLogging forms of the same events -> the same JSON line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_encode.h"
#include "ehd.h"
#include "ehd_tl.h"
#include "ktap.h"

#define FLAGS (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN)

static const uint8_t prov_meta[] = {6, 0, 'P', 'r', 'v', 0};

static char *tl_json(const ehd_tl_event *ev, int *err_out)
{
    ehd_buf b;
    ehd_buf_init(&b);
    const char *reason = NULL;
    size_t off = 0;
    *err_out = ehd_tl_json(&b, ev, NULL, FLAGS, &reason, &off);
    if (*err_out)
        kt_diag("ehd_tl_json: %d at %zu: %s", *err_out, off, reason ? reason : "?");
    ehd_buf_putc(&b, 0);
    return b.data;
}

/* U32 "a" = 5 and I32 "b" = -2 (metadata as in test_tl_encode's scalar event). */
static void test_scalar_event(void)
{
    static const uint8_t em[] = {12, 0, 0, 'E', 'v', 0, 'a', 0, 0x08, 'b', 0, 0x07};
    static const uint8_t data[] = {5, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF};
    ehd_tl_event ev = {.provider_meta = prov_meta,
                       .provider_meta_size = sizeof prov_meta,
                       .event_meta = em,
                       .event_meta_size = sizeof em,
                       .data = data,
                       .data_size = sizeof data,
                       .level = 4,
                       .keyword = 1};
    int err;
    char *j = tl_json(&ev, &err);
    KT_EXPECT_EQ(err, 0);
    KT_EXPECT_STR(j, "{ \"n\": \"Prv:Ev\", \"a\": 5, \"b\": -2, \"meta\": { \"level\": 4, "
                     "\"keyword\": \"0x1\" } }");
    free(j);
}

/* The reverse conversions, each value worked out by hand. */
static void test_reverse_conversions(void)
{
    static const uint8_t em[] = {
        0,    0,                                        /* size patched below */
        0x80, 0x80, 0x80, 0x09,                         /* event tag 9 */
        'E',  ';',  'x',  '=',  '1',  0,                /* ";attr" suffix not shown */
        'g',  0,    0x0F,                               /* Guid */
        't',  0,    0x11,                               /* FileTime */
        'u',  0,    0x11,                               /* FileTime */
        'i',  0,    0x8E, 0x09,                         /* Binary + IPv6 */
        'w',  0,    0x16,                               /* Str16 */
        'p',  0,    0x86, 0x07,                         /* U16 + Port */
        'b',  0,    0x0D,                               /* Bool32 */
        'v',  0,    0x46,                               /* U16 varray */
        's',  0,    0xD8, 0x01,                         /* struct varray of 1 member */
        'a',  0,    0x99, 0x09,                         /*   BinaryC + IPv6 */
        'x',  0,    0x94, 0x80, 0x80, 0x80, 0xA4, 0x34, /* Hex32, tag 0x1234 */
        'c',  0,    0x01,                               /* CStr16 */
        'h',  0,    0x19,                               /* BinaryC */
        'k',  0,    0x2F, 0x02, 0x00,                   /* Guid[2] */
    };
    uint8_t m[sizeof em];
    memcpy(m, em, sizeof em);
    m[0] = (uint8_t)sizeof em;
    static const uint8_t data[] = {
        0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE,
        0xFF, 0x80, 0x16, 0xD7, 0xD5, 0xDE, 0xB1, 0x9D, 0x01, /* t = 1 */
        0x80, 0xE9, 0xA5, 0xD4, 0xDE, 0xB1, 0x9D, 0x01,       /* t = -1 */
        16,   0,    0x20, 0x01, 0x0D, 0xB8, 0,    0,    0,    0,    0,    0,    0,    0,    0,
        0,    0,    1,    4,    0,    'h',  0,    'i',  0,    0x1F, 0x90, 1,    0,    0,    0,
        2,    0,    1,    0,    2,    0,    1,    0,    16,   0,    0xFE, 0x80, 0,    0,    0,
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    1,    0xEF, 0xBE, 0,    0,
        'o',  0,    'k',  0,    0,    0,    2,    0,    0xAB, 0xCD, 1,    0,    0,    0,    2,
        0,    3,    0,    4,    5,    6,    7,    8,    9,    10,   11,   0,    0,    0,    0,
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    };
    uint8_t act[16];
    for (int i = 0; i < 16; i++)
        act[i] = (uint8_t)(0x10 + i);
    ehd_tl_event ev = {.provider_meta = prov_meta,
                       .provider_meta_size = sizeof prov_meta,
                       .event_meta = m,
                       .event_meta_size = sizeof m,
                       .data = data,
                       .data_size = sizeof data,
                       .level = 5,
                       .keyword = 0xF0,
                       .id = 7,
                       .version = 2,
                       .opcode = 1,
                       .activity = act};
    int err;
    char *j = tl_json(&ev, &err);
    KT_EXPECT_EQ(err, 0);
    KT_EXPECT_STR(j,
                  "{ \"n\": \"Prv:E\", \"g\": \"00112233-4455-6677-8899-aabbccddeeff\", "
                  "\"t\": \"1970-01-01T00:00:01\", \"u\": \"1969-12-31T23:59:59\", "
                  "\"i\": \"2001:db8::1\", \"w\": \"hi\", \"p\": 8080, \"b\": true, "
                  "\"v\": [ 1, 2 ], \"s\": [ { \"a\": \"fe80::1\" } ], "
                  "\"x;tag=0x1234\": \"0xBEEF\", \"c\": \"ok\", \"h\": \"ab cd\", "
                  "\"k\": [ \"00000001-0002-0003-0405-060708090a0b\", "
                  "\"00000000-0000-0000-0000-000000000000\" ], "
                  "\"meta\": { \"id\": 7, \"version\": 2, \"level\": 5, \"keyword\": \"0xF0\", "
                  "\"opcode\": 1, "
                  "\"tag\": \"0x9\", \"activity\": \"10111213-1415-1617-1819-1a1b1c1d1e1f\" } }");
    free(j);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* What Windows writers put in FileTime and SystemTime fields (.etl files): fractions of
 * a second, and SYSTEMTIME structures (Documentation/tracelogging.md §5). */
static void test_windows_times(void)
{
    static const uint8_t em[] = {
        0,   0,                                                   /* size patched below */
        0,   'E', 0,    'a', 0, 0x11, 'b', 0, 0x11, 'c', 0, 0x11, /* FileTime */
        'd', 0,   0x12, 'e', 0, 0x12, 'f', 0, 0x12,               /* SystemTime */
    };
    uint8_t m[sizeof em];
    memcpy(m, em, sizeof em);
    m[0] = (uint8_t)sizeof m;
    uint8_t data[3 * 8 + 3 * 16];
    /* 1970 + 1.5 s, 1970 - 0.25 s, 1970 + 100 ns, in 100 ns units since 1601 */
    put_le(data, 116444736000000000u + 15000000u, 8);
    put_le(data + 8, 116444736000000000u - 2500000u, 8);
    put_le(data + 16, 116444736000000000u + 1u, 8);
    /* year, month, day of week, day, hour, minute, second, milliseconds */
    static const uint16_t st[3][8] = {{2021, 9, 4, 9, 14, 59, 35, 799},
                                      {2000, 2, 2, 29, 0, 0, 0, 0},
                                      {2021, 13, 0, 1, 0, 0, 0, 0}};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 8; k++)
            put_le(data + 24 + 16 * i + 2 * k, st[i][k], 2);
    ehd_tl_event ev = {.provider_meta = prov_meta,
                       .provider_meta_size = sizeof prov_meta,
                       .event_meta = m,
                       .event_meta_size = sizeof m,
                       .data = data,
                       .data_size = sizeof data};
    int err;
    char *j = tl_json(&ev, &err);
    KT_EXPECT_EQ(err, 0);
    KT_EXPECT_STR(j, "{ \"n\": \"Prv:E\", \"a\": \"1970-01-01T00:00:01.5\", "
                     "\"b\": \"1969-12-31T23:59:59.75\", \"c\": \"1970-01-01T00:00:00.0000001\", "
                     "\"d\": \"2021-09-09T14:59:35.799\", \"e\": \"2000-02-29T00:00:00\", "
                     "\"f\": \"e5 07 0d 00 00 00 01 00 00 00 00 00 00 00 00 00\", \"meta\": { } }");
    free(j);
}

static void test_malformed(void)
{
    static const uint8_t em[] = {9, 0, 0, 'E', 0, 's', 0, 0x16};
    static const uint8_t trunc[] = {10, 0, 'a'};
    ehd_buf b;
    ehd_buf_init(&b);
    ehd_buf_puts(&b, "keep");
    const char *reason = NULL;
    size_t off = 99;
    ehd_tl_event ev = {.provider_meta = prov_meta,
                       .provider_meta_size = sizeof prov_meta,
                       .event_meta = em,
                       .event_meta_size = sizeof em,
                       .data = trunc,
                       .data_size = sizeof trunc};
    KT_EXPECT_EQ(ehd_tl_json(&b, &ev, NULL, FLAGS, &reason, &off), EBADMSG); /* size 9 > 8 */
    ev.event_meta_size = 9; /* claims one more byte than given: still a bad size via ld16 */
    uint8_t em2[] = {8, 0, 0, 'E', 0, 's', 0, 0x16};
    ev.event_meta = em2;
    ev.event_meta_size = sizeof em2;
    KT_EXPECT_EQ(ehd_tl_json(&b, &ev, NULL, FLAGS, &reason, &off), EBADMSG); /* data too short */
    KT_EXPECT_EQ(off, 0);
    uint8_t em3[] = {9, 0, 0, 'E', 0, 's', 0, 0x60 | 0x08, 0};
    ev.event_meta = em3;
    ev.event_meta_size = sizeof em3;
    KT_EXPECT_EQ(ehd_tl_json(&b, &ev, NULL, FLAGS, &reason, &off), ENOTSUP); /* custom schema */
    uint8_t em4[] = {8, 0, 0, 'E', 0, 's', 0, 0x10};
    ev.event_meta = em4;
    ev.event_meta_size = sizeof em4;
    KT_EXPECT_EQ(ehd_tl_json(&b, &ev, NULL, FLAGS, &reason, &off), ENOTSUP); /* InType 16 */
    static const uint8_t bad_prov[] = {5, 0, 'P', 'r', 'v'};
    ev.provider_meta = bad_prov;
    ev.provider_meta_size = sizeof bad_prov;
    KT_EXPECT_EQ(ehd_tl_json(&b, &ev, NULL, FLAGS, &reason, &off), EBADMSG);
    KT_EXPECT_EQ(b.len, 4); /* nothing appended by any failure */
    ehd_buf_free(&b);
}

/* ---- the same event through both paths ---------------------------------------------- */

static size_t make_eh_event(uint8_t *out, uint16_t tag, uint8_t level, uint8_t opcode,
                            const uint8_t *meta, size_t meta_len, const uint8_t *data,
                            size_t data_len)
{
    uint8_t h[12] = {0x07,
                     0,
                     0,
                     0,
                     (uint8_t)tag,
                     (uint8_t)(tag >> 8),
                     opcode,
                     level,
                     (uint8_t)meta_len,
                     (uint8_t)(meta_len >> 8),
                     0x01,
                     0x00};
    memcpy(out, h, 12);
    memcpy(out + 12, meta, meta_len);
    memcpy(out + 12 + meta_len, data, data_len);
    return 12 + meta_len + data_len;
}

static void both_paths_flags(const char *tp_name, const uint8_t *ev_bytes, size_t n, unsigned flags,
                             char **eh_out, char **tl_out)
{
    ehd_buf a, b;
    ehd_buf_init(&a);
    ehd_buf_init(&b);
    const char *reason = NULL;
    size_t off = 0;
    int err =
        ehd_eventheader_json(&a, tp_name, strlen(tp_name), ev_bytes, n, NULL, flags, &reason, &off);
    KT_EXPECT_EQ(err, 0);
    if (err)
        kt_diag("eventheader: %s at %zu", reason, off);
    const struct eh_tl_provider *prov;
    uint8_t level;
    uint64_t kw;
    KT_EXPECT_EQ(eh_tl_provider_of_tp(tp_name, strlen(tp_name), &prov, &level, &kw), 0);
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev_bytes, n), 0);
    ehd_tl_event ev = {.provider_meta = prov->meta,
                       .provider_meta_size = prov->meta_len,
                       .event_meta = tl.meta,
                       .event_meta_size = tl.meta_len,
                       .data = tl.data.p,
                       .data_size = tl.data.len,
                       .keyword = kw,
                       .level = tl.level,
                       .opcode = tl.opcode,
                       .id = tl.id,
                       .version = tl.version,
                       .activity = tl.activity,
                       .related = tl.related};
    err = ehd_tl_json(&b, &ev, NULL, flags, &reason, &off);
    KT_EXPECT_EQ(err, 0);
    if (err)
        kt_diag("tracelogging: %s at %zu", reason, off);
    ehd_buf_putc(&a, 0);
    ehd_buf_putc(&b, 0);
    *eh_out = a.data;
    *tl_out = b.data;
    eh_tl_event_release(&tl);
}

static void both_paths(const char *tp_name, const uint8_t *ev_bytes, size_t n, char **eh_out,
                       char **tl_out)
{
    both_paths_flags(tp_name, ev_bytes, n, FLAGS, eh_out, tl_out);
}

/* Every mapping row that must round-trip to identical JSON. */
static void test_same_json_both_paths(void)
{
    static const uint8_t meta[] = {
        'A',  'l',  'l',  ';',  'k',  '=',  'v',  0,    'i',  '8',  0,    0x82, 0x02, 'u',  '8',
        0,    0x02, 'x',  '8',  0,    0x82, 0x03, 'b',  '8',  0,    0x82, 0x07, 'c',  '8',  0,
        0x82, 0x0A, 'i',  '1',  '6',  0,    0x83, 0x02, 'c',  '1',  '6',  0,    0x83, 0x0B, 'b',
        '1',  '6',  0,    0x83, 0x07, 'p',  0,    0x83, 0x10, 'x',  '3',  '2',  0,    0x84, 0x03,
        'p',  'i',  'd',  0,    0x84, 0x05, 'f',  '3',  '2',  0,    0x84, 0x08, 'v',  '4',  0,
        0x84, 0x11, 'c',  '3',  '2',  0,    0x84, 0x0B, 'b',  '3',  '2',  0,    0x84, 0x07, 't',
        '3',  '2',  0,    0x84, 0x06, 'i',  '6',  '4',  0,    0x85, 0x02, 'x',  '6',  '4',  0,
        0x85, 0x03, 'f',  '6',  '4',  0,    0x85, 0x08, 't',  '6',  '4',  0,    0x85, 0x06, 'u',
        '6',  '4',  0,    0x05, 'g',  0,    0x86, 0x0F, 'v',  '6',  0,    0x86, 0x11, 'r',  0,
        0x06, 'z',  '8',  0,    0x07, 'z',  'j',  0,    0x87, 0x0E, 'z',  'l',  0,    0x87, 0x0A,
        'z',  '1',  '6',  0,    0x08, 'z',  '3',  '2',  0,    0x09, 's',  '8',  0,    0x0A, 's',
        '1',  '6',  0,    0x0B, 's',  '3',  '2',  0,    0x0C, 'h',  'x',  0,    0x8A, 0x09, 'b',
        'l',  0,    0x0D, 'S',  0,    0x81, 0x82, 0x07, 0x00, 'm',  0,    0x02, 'N',  0,    0x81,
        0x01, 'n',  0,    0x83, 0x02, 'G',  0,    0xA6, 0x0F, 0x02, 0x00, 'V',  0,    0xC1, 0x02,
        'e',  0,    0x04, 'f',  0,    0x87, 0x0E, 'x',  0,    0x84, 0x83, 0x34, 0x12,
    };
    static const uint8_t data[] = {
        0x80, 200,  0xAB, 1,    0xE9, 0x00, 0x80, 0xAC, 0x20, 2,    0,    0x1F, 0x90, 0xEF, 0xBE,
        0xAD, 0xDE, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0xC0, 0x3F, /* 1.5f */
        10,   0,    0,    1,    0x00, 0xF6, 0x01, 0x00, 5,    0,    0,    0,    0x00, 0xE1, 0xF5,
        0x65, /* 1710612736 */
        0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1,    2,    3,    4,    5,    6,    7,
        8,    0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F, /* 0.1 */
        0x00, 0x5E, 0xD0, 0xB2, 0x00, 0x00, 0x00, 0x00,       /* 3000000000 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE,
        0xF0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0,    0,    0,    0,    0,    0,
        0,    0,    0,    0,    0xFF, 0xFF, 192,  168,  0,    1,    0,    1,    2,    3,    4,
        5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,   'u',  't',  0xC3, 0xA9,
        0,    '{',  '"',  'a',  '"',  ':',  '1',  '}',  0,    'l',  0xE9, 0,    'w',  0,    0x3A,
        0x26, 0,    0,    'q',  0,    0,    0,    0x00, 0xF6, 0x01, 0x00, 0x00, 0xD8, 0,    0,
        0,    0,    0,    0,    2,    0,    'h',  'i',  1,    0,    0x20, 0xAC, 2,    0,    'x',
        0,    0,    0,    0x00, 0x00, 0x11, 0x00, 2,    0,    0x00, 0xFF, 3,    0,    1,    2,
        3,    9,    0xFF, 0x7F, 1,    1,    1,    1,    2,    2,    2,    2,    3,    3,    3,
        3,    4,    4,    4,    4,    5,    5,    5,    5,    6,    6,    6,    6,    7,    7,
        7,    7,    8,    8,    8,    8,    2,    0,    1,    0,    0,    0,    '1',  0,    2,
        0,    0,    0,    '[',  ']',  0,    0x0D, 0xF0, 0xAD, 0x8B,
    };
    uint8_t ev[1024];
    size_t n = make_eh_event(ev, 0xBEEF, 4, 2, meta, sizeof meta, data, sizeof data);
    char *a, *b;
    both_paths("Prov_L4K2a", ev, n, &a, &b);
    KT_EXPECT_STR(b, a);
    if (getenv("TL_SHOW"))
        kt_diag("%s", a);
    /* A spot check that the EventHeader side decoded what the test means. */
    KT_EXPECT(strstr(a, "\"c32\": \"\xF0\x9F\x98\x80\"") != NULL);
    KT_EXPECT(strstr(a, "\"meta\": { \"level\": 4, \"keyword\": \"0x2A\", \"opcode\": 2, \"tag\": "
                        "\"0xBEEF\" }") != NULL);
    free(a);
    free(b);
    /* Compact output (no spaces, no ";tag=" suffixes) is the same on both paths too. */
    both_paths_flags("Prov_L4K2a", ev, n, EHD_META_GOLDEN, &a, &b);
    KT_EXPECT_STR(b, a);
    KT_EXPECT(strstr(a, "\"x\":\"0x8BADF00D\"") != NULL);
    free(a);
    free(b);
}

/* Activity and related ids (EventHeader extension kind 2, 32 bytes) reach the JSON the
 * same way through TraceLogging (EventWriteTransfer's ActivityId / RelatedActivityId). */
static void test_related_activity(void)
{
    uint8_t ev[128];
    static const uint8_t h[] = {0x07, 0, 0, 0, 0, 0, 1, 4, 32, 0, 0x02, 0x80};
    memcpy(ev, h, sizeof h);
    for (int i = 0; i < 32; i++)
        ev[12 + i] = (uint8_t)(0xA0 + i);
    static const uint8_t m[] = {5, 0, 0x01, 0x00, 'R', 0, 'v', 0, 0x02};
    memcpy(ev + 44, m, sizeof m);
    ev[44 + sizeof m] = 9;
    char *a, *b;
    both_paths("Prov_L4K1", ev, 44 + sizeof m + 1, &a, &b);
    KT_EXPECT_STR(b, a);
    KT_EXPECT_STR(a,
                  "{ \"n\": \"Prov:R\", \"v\": 9, \"meta\": { \"level\": 4, \"keyword\": \"0x1\", "
                  "\"opcode\": 1, \"activity\": \"a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf\", "
                  "\"relatedActivity\": \"b0b1b2b3-b4b5-b6b7-b8b9-babbbcbdbebf\" } }");
    free(a);
    free(b);
}

/* errno is the one value mapping that loses detail: the difference is exactly the name. */
static void test_errno_difference(void)
{
    static const uint8_t meta[] = {'E', 0, 'e', 0, 0x84, 0x04};
    static const uint8_t data[] = {2, 0, 0, 0};
    uint8_t ev[64];
    size_t n = make_eh_event(ev, 0, 2, 0, meta, sizeof meta, data, sizeof data);
    char *a, *b;
    both_paths("Prov_L2K1", ev, n, &a, &b);
    KT_EXPECT_STR(a, "{ \"n\": \"Prov:E\", \"e\": \"ENOENT(2)\", \"meta\": { \"level\": 2, "
                     "\"keyword\": \"0x1\" } }");
    KT_EXPECT_STR(
        b, "{ \"n\": \"Prov:E\", \"e\": 2, \"meta\": { \"level\": 2, \"keyword\": \"0x1\" } }");
    free(a);
    free(b);
}

/* group-guid: the tracepoint name's options print as "options"; TraceLogging carries only
 * the group's GUID (the name hash of "mygroup", worked out from tracelogging.md §2 with
 * Python's hashlib: SHA-1 over the namespace and UTF-16BE "MYGROUP", byte 7's high nibble
 * 5), so there the option is G and that GUID's 32 hex digits in text order. Without a group
 * both paths leave the member out. */
static void test_group_difference(void)
{
    static const uint8_t meta[] = {'E', 0, 'v', 0, 0x02};
    static const uint8_t data[] = {7};
    uint8_t ev[64];
    size_t n = make_eh_event(ev, 0, 4, 0, meta, sizeof meta, data, sizeof data);
    char *a, *b;
    both_paths("Prov_L4K1Gmygroup", ev, n, &a, &b);
    KT_EXPECT_STR(a, "{ \"n\": \"Prov:E\", \"v\": 7, \"meta\": { \"level\": 4, "
                     "\"keyword\": \"0x1\", \"options\": \"Gmygroup\" } }");
    KT_EXPECT_STR(b,
                  "{ \"n\": \"Prov:E\", \"v\": 7, \"meta\": { \"level\": 4, "
                  "\"keyword\": \"0x1\", \"options\": \"G798d0c7642095932a2af2d94a2e66c45\" } }");
    free(a);
    free(b);
    both_paths("Prov_L4K1", ev, n, &a, &b);
    KT_EXPECT_STR(b, a);
    KT_EXPECT(strstr(a, "options") == NULL);
    free(a);
    free(b);
}

/* .tlcap: magic, then records; the reader gives back what the writer put in. */
static void test_tlcap_roundtrip(void)
{
    FILE *f = tmpfile();
    KT_EXPECT(f != NULL);
    if (!f)
        return;
    fwrite(EHD_TLCAP_MAGIC, 1, EHD_TLCAP_MAGIC_SIZE, f);
    static const uint8_t em[] = {12, 0, 0, 'E', 'v', 0, 'a', 0, 0x08, 'b', 0, 0x07};
    struct eh_tl_event ev = {.meta = em, .meta_len = sizeof em, .level = 4, .id = 3};
    static const uint8_t d[] = {5, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF};
    eh_buf_put(&ev.data, d, sizeof d);
    uint8_t guid[16] = {1, 2, 3};
    for (int i = 0; i < 2; i++) {
        uint8_t rec[256];
        size_t size = eh_tl_record_encode(rec, guid, 1, 11, prov_meta, sizeof prov_meta, &ev);
        fwrite(rec, 1, size, f);
    }
    fwrite("\x05\x00", 1, 2, f); /* a truncated third record */
    rewind(f);
    const char *reason = NULL;
    uint64_t off = 0;
    ehd_tlcap_reader *r = ehd_tlcap_open(f, &reason);
    KT_EXPECT(r != NULL);
    if (!r) {
        fclose(f);
        return;
    }
    ehd_tlcap_record rec;
    for (int i = 0; i < 2; i++) {
        KT_EXPECT_EQ(ehd_tlcap_next(r, &rec, &reason, &off), 1);
        KT_EXPECT_EQ(rec.file_offset, 8 + (uint64_t)i * (80 + 6 + 12 + 8));
        KT_EXPECT_MEM(rec.provider_guid, 16, guid, 16);
        KT_EXPECT_EQ(rec.ev.id, 3);
        KT_EXPECT_EQ(rec.ev.channel, 11);
        int err;
        char *j = tl_json(&rec.ev, &err);
        KT_EXPECT_STR(j, "{ \"n\": \"Prv:Ev\", \"a\": 5, \"b\": -2, \"meta\": { \"id\": 3, "
                         "\"level\": 4, \"keyword\": \"0x1\" } }");
        free(j);
    }
    KT_EXPECT_EQ(ehd_tlcap_next(r, &rec, &reason, &off), -1);
    KT_EXPECT_EQ(off, 8 + 2 * 106);
    KT_EXPECT_EQ(ehd_tlcap_next(r, &rec, &reason, &off), 0);
    ehd_tlcap_close(r);
    fclose(f);
    eh_buf_free(&ev.data);
    KT_EXPECT(ehd_tlcap_is_magic("EHTLCAP1xx", 10));
    KT_EXPECT(!ehd_tlcap_is_magic("PERFILE2", 8));
}

static void collect(void *ctx, const char *json, size_t len)
{
    ehd_buf_append(ctx, json, len);
    ehd_buf_putc(ctx, '\n');
}

static void count_diag(void *ctx, uint64_t off, const char *reason)
{
    (void)off;
    (void)reason;
    ++*(int *)ctx;
}

/* A record whose event metadata is malformed becomes the pinned error object, the
 * decoding goes on with the next record, and the status says something failed. */
static void test_tlcap_decode_errors(void)
{
    FILE *f = tmpfile();
    KT_EXPECT(f != NULL);
    if (!f)
        return;
    fwrite(EHD_TLCAP_MAGIC, 1, EHD_TLCAP_MAGIC_SIZE, f);
    static const uint8_t bad_em[] = {4, 0, 0, 'E'}; /* name not NUL-terminated */
    static const uint8_t good_em[] = {9, 0, 0, 'O', 'k', 0, 'a', 0, 0x04};
    uint8_t guid[16] = {0x38, 0x4c, 0x86, 0xb3, 0x73, 0x42, 0xc5, 0x58,
                        0x54, 0x5b, 0x8b, 0x36, 0x08, 0x34, 0x34, 0x71};
    struct eh_tl_event ev = {.meta = bad_em, .meta_len = sizeof bad_em, .level = 1};
    uint8_t rec[256];
    size_t n = eh_tl_record_encode(rec, guid, 0, 11, prov_meta, sizeof prov_meta, &ev);
    fwrite(rec, 1, n, f);
    ev.meta = good_em;
    ev.meta_len = sizeof good_em;
    eh_buf_u8(&ev.data, 3);
    n = eh_tl_record_encode(rec, guid, 0, 11, prov_meta, sizeof prov_meta, &ev);
    fwrite(rec, 1, n, f);
    rewind(f);
    ehd_buf out;
    ehd_buf_init(&out);
    int diags = 0;
    KT_EXPECT_EQ(ehd_tlcap_decode(f, FLAGS, collect, &out, count_diag, &diags), 1);
    KT_EXPECT_EQ(diags, 1);
    ehd_buf_putc(&out, 0);
    /* GUID text of the MyProvider vector; the first record starts right after the magic. */
    KT_EXPECT_STR(
        out.data,
        "{ \"n\": \"tracelogging:b3864c38-4273-58c5-545b-8b3608343471\", "
        "\"error\": \"event metadata: event name not NUL-terminated\", \"fileOffset\": 8 }\n"
        "{ \"n\": \"Prv:Ok\", \"a\": 3, \"meta\": { \"level\": 1 } }\n");
    ehd_buf_free(&out);
    eh_buf_free(&ev.data);
    fclose(f);
}

KT_MAIN(KT_CASE(test_scalar_event), KT_CASE(test_reverse_conversions), KT_CASE(test_windows_times),
        KT_CASE(test_malformed), KT_CASE(test_same_json_both_paths), KT_CASE(test_related_activity),
        KT_CASE(test_errno_difference), KT_CASE(test_group_difference),
        KT_CASE(test_tlcap_roundtrip), KT_CASE(test_tlcap_decode_errors))
