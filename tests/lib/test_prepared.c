/* SPDX-License-Identifier: MIT */
/*
 * Prepared events (eventheader.h, eh_prepared_init / eh_prepared_write): an event built
 * once with the builder, then written with its fields' data only, must write exactly the
 * record the builder writes for the same adds and data, for every kind of field a prepared
 * event takes (values of each size, constant and variable arrays, every string encoding,
 * structs, tags and formats, activity ids), with data longer and shorter than what is
 * copied rather than pointed at; and refuse what the builder refuses, writing nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(pp, "TestPrepared");

static eh_tracepoint *g_tp;

/* One event: its adds on a builder with the data of variant v, and the same data as
 * eh_prepared_write takes it; returns how many args. */
typedef unsigned event_fn(eh_builder *b, eh_arg *args, int v);

static const uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t u8v = 0xab;
static const int16_t i16v = -2;
static const uint32_t u32v = 0x12345678;
static const uint64_t u64v = 0x0102030405060708u;
static const double f64v = 1.5;
static const void *ptrv = (void *)0x1122;
static const uint32_t arr[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xffffffff};
static const char *const text[2] = {"short", "a string longer than sixteen bytes"};
static const uint16_t wtext[2][24] = {{'o', 'k'},
                                      {'a', ' ', 'w', 'i', 'd', 'e', ' ', 's', 't', 'r', 'i', 'n',
                                       'g', ' ', 'o', 'f', ' ', '1', '9'}};
static const uint32_t dtext[2][8] = {{'Z'}, {'l', 'o', 'n', 'g', 'e', 'r', '!', '!'}};

static unsigned scalars(eh_builder *b, eh_arg *a, int v)
{
    (void)v;
    eh_builder_reset(b, "Scalars", 1, 0x33, 7, 2);
    eh_builder_add_value(b, "u8", EH_ENC_VALUE8, 0, 0, &u8v);
    eh_builder_add_value(b, "i16", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &i16v);
    eh_builder_add_value(b, "h32", EH_ENC_VALUE32, EH_FMT_HEX_INT, 0x1234, &u32v);
    eh_builder_add_value(b, "u64", EH_ENC_VALUE64, 0, 0, &u64v);
    eh_builder_add_value(b, "f64", EH_ENC_VALUE64, EH_FMT_FLOAT, 0, &f64v);
    eh_builder_add_value(b, "g", EH_ENC_VALUE128, EH_FMT_UUID, 0, guid);
    eh_builder_add_value(b, "p", EH_ENC_VALUE_PTR, EH_FMT_HEX_INT, 0, &ptrv);
    a[0] = (eh_arg){&u8v, 0};
    a[1] = (eh_arg){&i16v, 0};
    a[2] = (eh_arg){&u32v, 0};
    a[3] = (eh_arg){&u64v, 0};
    a[4] = (eh_arg){&f64v, 0};
    a[5] = (eh_arg){guid, 0};
    a[6] = (eh_arg){&ptrv, 0};
    return 7;
}

/* v 0: data of 16 bytes or fewer (copied); v 1: longer (pointed at); v 2: empty. */
static unsigned strings(eh_builder *b, eh_arg *a, int v)
{
    size_t n8 = v == 2 ? 0 : strlen(text[v & 1]),
           n16 = v == 2 ? 0
                 : v    ? 19
                        : 2,
           n32 = v == 2 ? 0
                 : v    ? 8
                        : 1;
    eh_builder_reset(b, "Strings", 0, 0, 0, 0);
    eh_builder_add_string(b, "z8", EH_ENC_ZSTRING_CHAR8, 0, 0, text[v & 1], n8);
    eh_builder_add_string(b, "z16", EH_ENC_ZSTRING_CHAR16, 0, 0, wtext[v & 1], n16);
    eh_builder_add_string(b, "z32", EH_ENC_ZSTRING_CHAR32, 0, 0, dtext[v & 1], n32);
    eh_builder_add_string(b, "s8", EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_JSON, 0, text[v & 1],
                          n8);
    eh_builder_add_string(b, "s16", EH_ENC_STRING_LENGTH16_CHAR16, 0, 0, wtext[v & 1], n16);
    eh_builder_add_string(b, "s32", EH_ENC_STRING_LENGTH16_CHAR32, 0, 0, dtext[v & 1], n32);
    eh_builder_add_string(b, "bin", EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_HEX_BYTES, 9, text[v & 1],
                          n8);
    a[0] = (eh_arg){text[v & 1], n8};
    a[1] = (eh_arg){wtext[v & 1], n16};
    a[2] = (eh_arg){dtext[v & 1], n32};
    a[3] = (eh_arg){text[v & 1], n8};
    a[4] = (eh_arg){wtext[v & 1], n16};
    a[5] = (eh_arg){dtext[v & 1], n32};
    a[6] = (eh_arg){text[v & 1], n8};
    return 7;
}

/* Arrays and structs; v picks the variable array's length (0, 3, 12). */
static unsigned arrays(eh_builder *b, eh_arg *a, int v)
{
    size_t n = v == 0 ? 0 : v == 1 ? 3 : 12;
    eh_builder_reset(b, "Arrays", 0, 0, 0, 0);
    eh_builder_add_array(b, "va", EH_ENC_VALUE32, 0, 0, arr, n);
    eh_builder_begin_struct(b, "outer", 0x44);
    eh_builder_add_carray(b, "ca2", EH_ENC_VALUE32, EH_FMT_HEX_INT, 0, arr, 2);
    eh_builder_begin_struct(b, "inner", 0);
    eh_builder_add_carray(b, "ca12", EH_ENC_VALUE32, 0, 0, arr, 12);
    eh_builder_add_value(b, "u8", EH_ENC_VALUE8, 0, 0, &u8v);
    eh_builder_end_struct(b);
    eh_builder_end_struct(b);
    eh_builder_add_array(b, "g", EH_ENC_VALUE128, EH_FMT_UUID, 0, guid, 1);
    /* 12 bytes: a fixed size that is copied but is not a value's size */
    eh_builder_add_carray(b, "ca3", EH_ENC_VALUE32, 0, 0, arr, 3);
    a[0] = (eh_arg){arr, n};
    a[1] = (eh_arg){arr, 2};
    a[2] = (eh_arg){arr, 12};
    a[3] = (eh_arg){&u8v, 1};
    a[4] = (eh_arg){guid, 1};
    a[5] = (eh_arg){arr, 3};
    return 6;
}

/* The builder's record, then the prepared event's for the same data: the same bytes, the
 * same result (0). */
static int same_as_builder(event_fn *event, int v, const uint8_t *act, const uint8_t *rel)
{
    eh_builder b;
    eh_builder_init(&b);
    eh_arg args[16];
    unsigned n = event(&b, args, v);
    size_t a = cap_size();
    int ok = eh_builder_write(&b, g_tp, act, rel) == 0;
    size_t m = cap_size();
    eh_prepared ev;
    ok &= eh_prepared_init(&ev, &b, g_tp) == 0;
    eh_builder_destroy(&b); /* the prepared event keeps what it needs */
    ok &= eh_prepared_args(&ev) == n;
    ok &= eh_prepared_write(&ev, args, n, act, rel) == 0;
    eh_prepared_destroy(&ev);
    size_t l1, l2;
    uint8_t *r1 = cap_read_from(a, &l1);
    uint8_t *r2 = cap_read_from(m, &l2);
    ok &= l2 > 0 && l1 == 2 * l2 &&
          kt_mem_diff(__FILE__, __LINE__, "prepared event's record", r2, l2, r1, l1 - l2);
    free(r1);
    free(r2);
    return ok;
}

static void test_register(void)
{
    cap_setup("prepared");
    KT_EXPECT_EQ(eh_provider_register(&pp), 0);
    KT_EXPECT_EQ(eh_provider_tracepoint(&pp, 4, 0x10, &g_tp), 0);
}

static void test_scalars(void)
{
    KT_EXPECT(same_as_builder(scalars, 0, NULL, NULL));
}

static void test_strings(void)
{
    for (int v = 0; v < 3; v++)
        KT_EXPECT(same_as_builder(strings, v, NULL, NULL));
}

static void test_arrays_and_structs(void)
{
    for (int v = 0; v < 3; v++)
        KT_EXPECT(same_as_builder(arrays, v, NULL, NULL));
}

static void test_activity_ids(void)
{
    static const uint8_t act[16] = {0xaa, 1}, rel[16] = {0xbb, 2};
    KT_EXPECT(same_as_builder(scalars, 0, act, NULL));
    KT_EXPECT(same_as_builder(scalars, 0, act, rel));
}

/* Refused as the builder refuses, nothing written; and what a prepared event cannot take. */
static void test_refused(void)
{
    static uint8_t big[70000];
    eh_builder b;
    eh_prepared ev;
    eh_arg args[16];
    eh_builder_init(&b);
    unsigned n = arrays(&b, args, 1);
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, g_tp), 0);
    size_t mark = cap_size();
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n - 1, NULL, NULL), EINVAL);
    args[0] = (eh_arg){big, 70000}; /* a count over 65535 */
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n, NULL, NULL), E2BIG);
    args[0] = (eh_arg){big, 16380}; /* 65520 bytes: no room for the rest */
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n, NULL, NULL), E2BIG);
    args[0] = (eh_arg){arr, 3};
    static const uint8_t rel[16] = {1};
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n, NULL, rel), EINVAL); /* related, no activity */
    KT_EXPECT_EQ(cap_size(), mark);
    eh_prepared_destroy(&ev);
    eh_prepared_destroy(&ev); /* twice is fine */

    eh_builder_reset(&b, "Open", 0, 0, 0, 0);
    eh_builder_begin_struct(&b, "s", 0);
    eh_builder_add_value(&b, "a", EH_ENC_VALUE8, 0, 0, &u8v);
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, g_tp), EINVAL); /* a struct still open */
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, 0, NULL, NULL), EINVAL);
    eh_builder_reset(&b, "Slice", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&b, "pts", 0, 1);
    eh_builder_add_value(&b, "x", EH_ENC_VALUE8, 0, 0, &u8v);
    eh_builder_end_struct(&b);
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, g_tp), ENOTSUP); /* an array of structs */
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, NULL), EINVAL);
    eh_builder_reset(&b, "", 0, 0, 0, 0); /* the builder's sticky error */
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, g_tp), EINVAL);
    eh_builder_destroy(&b);
}

/* Nobody listening: EBADF and nothing written; listening again, written. */
static void test_disabled(void)
{
    eh_builder b;
    eh_prepared ev;
    eh_arg args[16];
    eh_builder_init(&b);
    unsigned n = scalars(&b, args, 0);
    KT_EXPECT_EQ(eh_prepared_init(&ev, &b, g_tp), 0);
    eh_builder_destroy(&b);
    KT_EXPECT_EQ(eh_provider_unregister(&pp), 0);
    size_t mark = cap_size();
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n, NULL, NULL), EBADF);
    KT_EXPECT_EQ(cap_size(), mark);
    KT_EXPECT_EQ(eh_provider_register(&pp), 0);
    KT_EXPECT_EQ(eh_prepared_write(&ev, args, n, NULL, NULL), 0);
    KT_EXPECT(cap_size() > mark);
    eh_prepared_destroy(&ev);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_scalars), KT_CASE(test_strings),
        KT_CASE(test_arrays_and_structs), KT_CASE(test_activity_ids), KT_CASE(test_refused),
        KT_CASE(test_disabled))
