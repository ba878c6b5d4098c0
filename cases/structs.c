// SPDX-License-Identifier: GPL-2.0
/*
 * structs: struct nesting, arrays of structs, field tags, duplicate names.
 *
 * What it proves (each event is described next to the call that writes it):
 *  - nesting depths 1..32, one "Depth" event per depth (dynamic builder), and the same
 *    shape through the static macros at depths 1 and 9. Level k is a struct "L<k>"
 *    holding "k": k and, except at the innermost level, the struct "L<k+1>". The
 *    reference decoder stops at depth 8 (Documentation/decoder-json.md §3); EventHeader itself
 *    has no depth limit, so depths 9..32 must decode exactly like 1..8;
 *  - arrays of structs (varray of struct, encoding 1 | 0x40) with 0, 1 and 5 elements,
 *    static and dynamic: 0 elements decode to "[ ]" and the element metadata is still
 *    present (and skipped);
 *  - a struct inside an array of structs, and an array of structs inside that;
 *  - field tags on structs, on struct members, on arrays of structs and their members
 *    (JSON member name "name;tag=0xHEX", uppercase hex, Documentation/decoder-json.md §3);
 *  - duplicate field names at the top level and inside structs are kept, in order.
 */
#include <stdio.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(structs_provider, "EhconfStructs");

struct point {
    int16_t x;
    int16_t y;
};

/* Points whose coordinates show their index: element i is (i + 1, -(i + 1)). */
static const struct point pts[5] = {{1, -1}, {2, -2}, {3, -3}, {4, -4}, {5, -5}};

/*
 * One event "Depth" with "depth": d, then L1 { k: 1, L2 { k: 2, ... Ld { k: d } } }.
 * Returns the first builder error, or the write's result.
 */
static int write_depth(eh_builder *b, eh_tracepoint *tp, uint8_t d)
{
    int err = eh_builder_reset(b, "Depth", EH_OPCODE_INFO, 0, 0, 0);

    if (!err)
        err = eh_builder_add_value(b, "depth", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &d);
    for (uint8_t k = 1; k <= d && !err; k++) {
        char name[8];

        snprintf(name, sizeof name, "L%u", (unsigned)k);
        err = eh_builder_begin_struct(b, name, 0);
        if (!err)
            err = eh_builder_add_value(b, "k", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &k);
    }
    for (uint8_t k = 1; k <= d && !err; k++)
        err = eh_builder_end_struct(b);
    if (!err)
        err = eh_builder_write(b, tp, NULL, NULL);
    return err;
}

TEST(depth_1_to_32_builder)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&structs_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    for (uint8_t d = 1; d <= 32; d++) {
        int err = write_depth(&b, tp, d);

        EXPECT_EQ(0, err)
        {
            TH_LOG("depth %u", (unsigned)d);
        }
    }
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/* Static macros: the same shape as "Depth" at depths 1 and 9, event "StaticDepth". */
#define L9      EH_STRUCT("L9", EH_U8("k", 9))
#define L8      EH_STRUCT("L8", EH_U8("k", 8), L9)
#define L7      EH_STRUCT("L7", EH_U8("k", 7), L8)
#define L6      EH_STRUCT("L6", EH_U8("k", 6), L7)
#define L5      EH_STRUCT("L5", EH_U8("k", 5), L6)
#define L4      EH_STRUCT("L4", EH_U8("k", 4), L5)
#define L3      EH_STRUCT("L3", EH_U8("k", 3), L4)
#define L2      EH_STRUCT("L2", EH_U8("k", 2), L3)
#define L1_OF_9 EH_STRUCT("L1", EH_U8("k", 1), L2)

TEST(depth_static)
{
    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, EH_WRITE(structs_provider, EH_EVENT("StaticDepth", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U8("depth", 1), EH_STRUCT("L1", EH_U8("k", 1))));
    ASSERT_EQ(0, EH_WRITE(structs_provider, EH_EVENT("StaticDepth", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U8("depth", 9), L1_OF_9));
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/*
 * "StructArray": "count": n, "pts": [ { "x": 1, "y": -1 }, ... ] with n = 0, 1, 5,
 * then a u8 "after": 7 proving the decoder resumes at the right byte after the array.
 */
TEST(struct_array_static)
{
    static const uint16_t counts[] = {0, 1, 5};

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    for (unsigned i = 0; i < 3; i++) {
        ASSERT_EQ(0,
                  EH_WRITE(structs_provider, EH_EVENT("StructArray", EH_LEVEL_INFORMATIONAL, 0x1),
                           EH_U16("count", counts[i]),
                           EH_STRUCT_ARRAY("pts", pts, counts[i], EH_MEMBER_I16(struct point, x),
                                           EH_MEMBER_I16(struct point, y)),
                           EH_U8("after", 7)));
    }
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/* The same three "StructArray" events through the builder ("DynStructArray"). */
TEST(struct_array_builder)
{
    static const uint16_t counts[] = {0, 1, 5};
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint8_t after = 7;

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&structs_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    for (unsigned i = 0; i < 3; i++) {
        uint16_t n = counts[i];

        ASSERT_EQ(0, eh_builder_reset(&b, "DynStructArray", EH_OPCODE_INFO, 0, 0, 0));
        ASSERT_EQ(0, eh_builder_add_value(&b, "count", EH_ENC_VALUE16, EH_FMT_DEFAULT, 0, &n));
        ASSERT_EQ(0, eh_builder_begin_struct_array(&b, "pts", 0, n));
        /* With n == 0 the members are added once, for the metadata only. */
        for (unsigned e = 0; e < (n ? n : 1u); e++) {
            if (e > 0)
                ASSERT_EQ(0, eh_builder_next_element(&b));
            ASSERT_EQ(
                0, eh_builder_add_value(&b, "x", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &pts[e].x));
            ASSERT_EQ(
                0, eh_builder_add_value(&b, "y", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &pts[e].y));
        }
        ASSERT_EQ(0, eh_builder_end_struct(&b));
        ASSERT_EQ(0, eh_builder_add_value(&b, "after", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &after));
        EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    }
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

static int add_point(eh_builder *b, const char *name, const struct point *p)
{
    int err = eh_builder_begin_struct(b, name, 0);

    if (!err)
        err = eh_builder_add_value(b, "x", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &p->x);
    if (!err)
        err = eh_builder_add_value(b, "y", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0, &p->y);
    if (!err)
        err = eh_builder_end_struct(b);
    return err;
}

/*
 * "Segments": "segs": [ { "id": 1, "from": { x: 1, y: -1 }, "to": { x: 2, y: -2 },
 *                         "marks": [ { "m": 10 }, { "m": 11 } ] },
 *                       { "id": 2, "from": { 3, -3 }, "to": { 4, -4 },
 *                         "marks": [ { "m": 20 }, { "m": 21 } ] } ], "after": 7
 * A struct inside an array of structs, and an array of structs inside that array.
 */
TEST(struct_in_struct_array)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint8_t after = 7;

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&structs_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    ASSERT_EQ(0, eh_builder_reset(&b, "Segments", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_begin_struct_array(&b, "segs", 0, 2));
    for (uint8_t e = 0; e < 2; e++) {
        uint8_t id = (uint8_t)(e + 1);

        if (e > 0)
            ASSERT_EQ(0, eh_builder_next_element(&b));
        ASSERT_EQ(0, eh_builder_add_value(&b, "id", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &id));
        ASSERT_EQ(0, add_point(&b, "from", &pts[2 * e]));
        ASSERT_EQ(0, add_point(&b, "to", &pts[2 * e + 1]));
        ASSERT_EQ(0, eh_builder_begin_struct_array(&b, "marks", 0, 2));
        for (uint8_t m = 0; m < 2; m++) {
            uint8_t v = (uint8_t)(10 * id + m);

            if (m > 0)
                ASSERT_EQ(0, eh_builder_next_element(&b));
            ASSERT_EQ(0, eh_builder_add_value(&b, "m", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &v));
        }
        ASSERT_EQ(0, eh_builder_end_struct(&b));
    }
    ASSERT_EQ(0, eh_builder_end_struct(&b));
    ASSERT_EQ(0, eh_builder_add_value(&b, "after", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &after));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/*
 * "Tags": "S;tag=0x1234": { "m;tag=0x55": 1, "plain": 2, "max;tag=0xFFFF": 3 },
 *         "arr;tag=0xBEEF": [ { "x;tag=0x7": 1, "y": -1 }, { "x;tag=0x7": 2, "y": -2 } ],
 *         "untagged": { "t;tag=0x1": 4 }
 */
TEST(field_tags_static)
{
    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, EH_WRITE(structs_provider, EH_EVENT("Tags", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_STRUCT_TAGGED("S", 0x1234, EH_U32("m", 1, EH_TAG(0x55)),
                                           EH_U32("plain", 2), EH_U32("max", 3, EH_TAG(0xffff))),
                          EH_STRUCT_ARRAY_TAGGED("arr", 0xbeef, pts, 2,
                                                 EH_MEMBER_I16(struct point, x, EH_TAG(0x7)),
                                                 EH_MEMBER_I16(struct point, y)),
                          EH_STRUCT("untagged", EH_U32("t", 4, EH_TAG(0x1)))));
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/* "DynTags": "S;tag=0xABCD": { "m;tag=0x2": 5 }, "pts;tag=0x10": [ { "x;tag=0x11": 1 } ] */
TEST(field_tags_builder)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint32_t m = 5;

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&structs_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    ASSERT_EQ(0, eh_builder_reset(&b, "DynTags", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_begin_struct(&b, "S", 0xabcd));
    ASSERT_EQ(0, eh_builder_add_value(&b, "m", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0x2, &m));
    ASSERT_EQ(0, eh_builder_end_struct(&b));
    ASSERT_EQ(0, eh_builder_begin_struct_array(&b, "pts", 0x10, 1));
    ASSERT_EQ(0, eh_builder_add_value(&b, "x", EH_ENC_VALUE16, EH_FMT_SIGNED_INT, 0x11, &pts[0].x));
    ASSERT_EQ(0, eh_builder_end_struct(&b));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/*
 * "Duplicates": "dup": 1, "dup": 2, "dup": { "dup": 3, "dup": 4 }, "s": { "a": 5 },
 *               "s": { "a": 6 } -- every member kept, in order (JSON with repeated keys).
 */
TEST(duplicate_names)
{
    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, EH_WRITE(structs_provider, EH_EVENT("Duplicates", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U32("dup", 1), EH_U32("dup", 2),
                          EH_STRUCT("dup", EH_U32("dup", 3), EH_U32("dup", 4)),
                          EH_STRUCT("s", EH_U8("a", 5)), EH_STRUCT("s", EH_U8("a", 6))));
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

/* Misuse is refused with EINVAL and writes nothing. */
TEST(struct_misuse_refused)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint8_t v = 1;
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&structs_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&structs_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    before = case_capture_size();
    eh_builder_init(&b);

    /* a struct left open */
    ASSERT_EQ(0, eh_builder_reset(&b, "Open", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_begin_struct(&b, "s", 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "v", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &v));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));

    /* an empty struct (0 members is not encodable) */
    ASSERT_EQ(0, eh_builder_reset(&b, "Empty", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_begin_struct(&b, "s", 0));
    EXPECT_EQ(EINVAL, eh_builder_end_struct(&b));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));

    /* fewer array elements than announced */
    ASSERT_EQ(0, eh_builder_reset(&b, "Short", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_begin_struct_array(&b, "a", 0, 2));
    ASSERT_EQ(0, eh_builder_add_value(&b, "v", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &v));
    EXPECT_EQ(EINVAL, eh_builder_end_struct(&b));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));

    /* an end without a begin */
    ASSERT_EQ(0, eh_builder_reset(&b, "Unbalanced", EH_OPCODE_INFO, 0, 0, 0));
    EXPECT_EQ(EINVAL, eh_builder_end_struct(&b));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));

    eh_builder_destroy(&b);
    EXPECT_EQ(before, case_capture_size());
    EXPECT_EQ(0, eh_provider_unregister(&structs_provider));
}

TEST_HARNESS_MAIN
