/* SPDX-License-Identifier: MIT */
/*
 * The dynamic builder against the static API: the same event built both ways
 * must produce the same record (one encoder), plus builder-only shapes checked
 * against hand-written bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(bp, "TestBuilder");

static eh_tracepoint *g_tp; /* TestBuilder_L5K1, the static events' tracepoint too */
static eh_builder g_b;

static void test_register(void)
{
    cap_setup("builder");
    KT_EXPECT_EQ(eh_provider_register(&bp), 0);
    KT_EXPECT_EQ(eh_provider_tracepoint(&bp, 5, 1, &g_tp), 0);
    eh_tracepoint *again = NULL;
    KT_EXPECT_EQ(eh_provider_tracepoint(&bp, 5, 1, &again), 0);
    KT_EXPECT(again == g_tp);
    KT_EXPECT(eh_tracepoint_enabled(g_tp));
    eh_builder_init(&g_b);
}

/* Compares the record appended after mark_a..mark_b with the one after mark_b. */
static void expect_same_records(size_t mark_a, size_t mark_b)
{
    size_t la, lb;
    uint8_t *a = cap_read_from(mark_a, &la);
    uint8_t *b = cap_read_from(mark_b, &lb);
    KT_EXPECT(la > lb && lb > 0);
    if (la > lb)
        KT_EXPECT_MEM(b, lb, a, la - lb);
    free(a);
    free(b);
}

static void test_same_bytes_scalars_strings(void)
{
    static const uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint32_t arr[3] = {7, 8, 9};
    size_t a = cap_size();
    KT_EXPECT_EQ(
        EH_WRITE(bp, EH_EVENT("Mixed", 5, 1, .opcode = 2, .tag = 0x77, .id = 9, .version = 3),
                 EH_U32("u", 0xdeadbeef), EH_I64_HEX("h", -5, EH_TAG(0x42)), EH_GUID("g", guid),
                 EH_F64("d", 0.25), EH_STR8("s", "hello", 5), EH_CSTR16("z", u"wide"),
                 EH_U32_SLICE("v", arr, 3), EH_U32_ARRAY("c", arr, 3), EH_BINARY("bin", "\0\1", 2),
                 EH_U16("f", 80, EH_FORMAT(EH_FMT_PORT))),
        0);
    size_t b = cap_size();
    uint32_t u = 0xdeadbeef;
    int64_t h = -5;
    double d = 0.25;
    eh_builder_reset(&g_b, "Mixed", 2, 0x77, 9, 3);
    eh_builder_add_value(&g_b, "u", EH_ENC_VALUE32, 0, 0, &u);
    eh_builder_add_value(&g_b, "h", EH_ENC_VALUE64, EH_FMT_HEX_INT, 0x42, &h);
    eh_builder_add_value(&g_b, "g", EH_ENC_VALUE128, EH_FMT_UUID, 0, guid);
    eh_builder_add_value(&g_b, "d", EH_ENC_VALUE64, EH_FMT_FLOAT, 0, &d);
    eh_builder_add_string(&g_b, "s", EH_ENC_STRING_LENGTH16_CHAR8, 0, 0, "hello", 5);
    eh_builder_add_string(&g_b, "z", EH_ENC_ZSTRING_CHAR16, 0, 0, u"wide", 4);
    eh_builder_add_array(&g_b, "v", EH_ENC_VALUE32, 0, 0, arr, 3);
    eh_builder_add_carray(&g_b, "c", EH_ENC_VALUE32, 0, 0, arr, 3);
    eh_builder_add_string(&g_b, "bin", EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_HEX_BYTES, 0, "\0\1",
                          2);
    uint16_t port = 80;
    KT_EXPECT_EQ(eh_builder_add_value(&g_b, "f", EH_ENC_VALUE16, EH_FMT_PORT, 0, &port), 0);
    KT_EXPECT_EQ(eh_builder_write(&g_b, g_tp, NULL, NULL), 0);
    expect_same_records(a, b);
}

static void test_same_bytes_structs_activity(void)
{
    static const uint8_t act[16] = {[0] = 0xaa, [15] = 0xbb};
    static const uint8_t rel[16] = {[0] = 0xcc, [15] = 0xdd};
    size_t a = cap_size();
    KT_EXPECT_EQ(
        EH_WRITE(bp, EH_EVENT("Nest", 5, 1), EH_ACTIVITY_ID(act), EH_RELATED_ID(rel),
                 EH_STRUCT("o", EH_U8("x", 1), EH_STRUCT_TAGGED("i", 0x99, EH_I16("y", -1))),
                 EH_U8("after", 2)),
        0);
    size_t b = cap_size();
    uint8_t one = 1, two = 2;
    int16_t m1 = -1;
    eh_builder_reset(&g_b, "Nest", 0, 0, 0, 0);
    eh_builder_begin_struct(&g_b, "o", 0);
    eh_builder_add_value(&g_b, "x", EH_ENC_VALUE8, 0, 0, &one);
    eh_builder_begin_struct(&g_b, "i", 0x99);
    eh_builder_add_value(&g_b, "y", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &m1);
    eh_builder_end_struct(&g_b);
    eh_builder_end_struct(&g_b);
    eh_builder_add_value(&g_b, "after", EH_ENC_VALUE8, 0, 0, &two);
    KT_EXPECT_EQ(eh_builder_write(&g_b, g_tp, act, rel), 0);
    expect_same_records(a, b);
}

struct rec {
    uint8_t a;
    uint16_t b;
};

static void test_same_bytes_struct_array(void)
{
    static const struct rec recs[3] = {{1, 0x0102}, {2, 0x0304}, {3, 0x0506}};
    size_t a = cap_size();
    KT_EXPECT_EQ(EH_WRITE(bp, EH_EVENT("Recs", 5, 1),
                          EH_STRUCT_ARRAY("r", recs, 3, EH_MEMBER_U8(struct rec, a),
                                          EH_MEMBER_U16_HEX(struct rec, b))),
                 0);
    size_t b = cap_size();
    eh_builder_reset(&g_b, "Recs", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&g_b, "r", 0, 3);
    for (int i = 0; i < 3; i++) {
        if (i)
            eh_builder_next_element(&g_b);
        eh_builder_add_value(&g_b, "a", EH_ENC_VALUE8, 0, 0, &recs[i].a);
        eh_builder_add_value(&g_b, "b", EH_ENC_VALUE16, EH_FMT_HEX_INT, 0, &recs[i].b);
    }
    KT_EXPECT_EQ(eh_builder_end_struct(&g_b), 0);
    KT_EXPECT_EQ(eh_builder_write(&g_b, g_tp, NULL, NULL), 0);
    expect_same_records(a, b);
}

static void test_same_bytes_raw(void)
{
    static const uint8_t data[] = {2, 0, 0x41, 0x42, 7, 0, 0, 0};
    size_t a = cap_size();
    KT_EXPECT_EQ(EH_WRITE(bp, EH_EVENT("Raw", 5, 1),
                          EH_RAW_META_SLICE("cs", EH_ENC_VALUE8, EH_FORMAT(EH_FMT_STRING8)),
                          EH_RAW_META("n", EH_ENC_VALUE32, EH_TAG(5)), EH_RAW_DATA(data, 8)),
                 0);
    size_t b = cap_size();
    eh_builder_reset(&g_b, "Raw", 0, 0, 0, 0);
    eh_builder_add_raw_meta(&g_b, "cs", EH_ENC_VALUE8 | EH_ENC_VARRAY_FLAG, EH_FMT_STRING8, 0, 0);
    eh_builder_add_raw_meta(&g_b, "n", EH_ENC_VALUE32, 0, 5, 0);
    eh_builder_add_raw_data(&g_b, data, 8);
    KT_EXPECT_EQ(eh_builder_write(&g_b, g_tp, NULL, NULL), 0);
    expect_same_records(a, b);
}

/* An array of structs whose element holds a nested struct (builder only), and an
 * array of 0 elements whose members only describe the schema. */
static void test_struct_array_nested_bytes(void)
{
    size_t mark = cap_size();
    eh_builder_reset(&g_b, "BA", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&g_b, "arr", 0, 2);
    for (uint8_t i = 0; i < 2; i++) {
        uint8_t a = (uint8_t)(1 + 2 * i);
        uint16_t bv = (uint16_t)(2 + 2 * i);
        if (i)
            eh_builder_next_element(&g_b);
        eh_builder_add_value(&g_b, "a", EH_ENC_VALUE8, 0, 0, &a);
        eh_builder_begin_struct(&g_b, "s", 0);
        eh_builder_add_value(&g_b, "b", EH_ENC_VALUE16, 0, 0, &bv);
        eh_builder_end_struct(&g_b);
    }
    eh_builder_end_struct(&g_b);
    eh_builder_begin_struct_array(&g_b, "none", 0, 0);
    uint8_t z = 9;
    eh_builder_add_value(&g_b, "z", EH_ENC_VALUE8, 0, 0, &z);
    eh_builder_end_struct(&g_b);
    KT_EXPECT_EQ(eh_builder_write(&g_b, g_tp, NULL, NULL), 0);
    static const uint8_t want[] = {
        0x07, 0,    0,    0,   0,   0,    0,   5, 29,   0, 1,
        0,    'B',  'A',  0,   'a', 'r',  'r', 0, 0xc1, 2, /* struct | VArray, 2 members */
        'a',  0,    0x02, 's', 0,   0x81, 1,               /* struct, 1 member */
        'b',  0,    0x03, 'n', 'o', 'n',  'e', 0, 0xc1, 1, 'z',
        0,    0x02, 2,    0,   1,   2,    0,   3, 4,    0, /* 2 elements: {1, {2}}, {3, {4}} */
        0,    0,                                           /* 0 elements */
    };
    KT_EXPECT(CAP_ONE(mark, "TestBuilder_L5K1", want));
}

/* Other runtime tracepoints get their own names; the level comes from the tracepoint. */
static void test_runtime_tracepoint_name(void)
{
    eh_tracepoint *tp;
    KT_EXPECT_EQ(eh_provider_tracepoint(&bp, 2, 0xabc, &tp), 0);
    eh_builder_reset(&g_b, "L", 0, 0, 0, 0);
    size_t mark = cap_size();
    KT_EXPECT_EQ(eh_builder_write(&g_b, tp, NULL, NULL), 0);
    static const uint8_t want[] = {0x07, 0, 0, 0, 0, 0, 0, 2, 2, 0, 1, 0, 'L', 0};
    KT_EXPECT(CAP_ONE(mark, "TestBuilder_L2Kabc", want));
    /* the builder can be written twice */
    mark = cap_size();
    KT_EXPECT_EQ(eh_builder_write(&g_b, tp, NULL, NULL), 0);
    KT_EXPECT(CAP_ONE(mark, "TestBuilder_L2Kabc", want));
    eh_builder_destroy(&g_b);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_same_bytes_scalars_strings),
        KT_CASE(test_same_bytes_structs_activity), KT_CASE(test_same_bytes_struct_array),
        KT_CASE(test_same_bytes_raw), KT_CASE(test_struct_array_nested_bytes),
        KT_CASE(test_runtime_tracepoint_name))
