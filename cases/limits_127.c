// SPDX-License-Identifier: GPL-2.0
/*
 * limits_127: the struct member limit and a very wide event.
 *
 * A struct's member count lives in the low 7 bits of its format byte, so 127 is the
 * most a struct can hold (EH_STRUCT_FIELDS_MAX). The case proves that
 *  - a struct of exactly 127 members is written and every member decodes
 *    ("Wide127": "s": { "f0": 0, "f1": 1, ..., "f126": 126 }, "after": 255),
 *    through the static macros and the dynamic builder ("DynWide127");
 *  - a struct of 128 members is refused with EINVAL and NOTHING is written (the
 *    capture file keeps its size), by both paths; same for an array of structs whose
 *    element has 128 members;
 *  - the top level is not a struct and has no such limit: an event of 1,000 u16 fields
 *    "g0": 0 ... "g999": 999 is written and decodes (the reference decoder stops at
 *    255 top-level fields; ehconf's decoder deliberately does not).
 */
#include <stdio.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(limits_provider, "EhconfLimits");

/* F(i) is the u8 field "f<i>" with value i; F10(p) the ten fields p0..p9. */
#define F(i) EH_U8("f" #i, i)
#define F10(p) \
    F(p##0), F(p##1), F(p##2), F(p##3), F(p##4), F(p##5), F(p##6), F(p##7), F(p##8), F(p##9)
/* f0 .. f119 */
#define F120 \
    F10(), F10(1), F10(2), F10(3), F10(4), F10(5), F10(6), F10(7), F10(8), F10(9), F10(10), F10(11)
#define F127 F120, F(120), F(121), F(122), F(123), F(124), F(125), F(126)
#define F128 F127, F(127)

/* Builder: a struct "s" (or, with count > 0, an array "a" of count such structs) of n
 * members "f<i>" = i, then "after": 255. Returns the first error. */
static int build_wide(eh_builder *b, const char *event, unsigned n, int array_count)
{
    uint8_t after = 255;
    int err = eh_builder_reset(b, event, EH_OPCODE_INFO, 0, 0, 0);

    if (!err && array_count)
        err = eh_builder_begin_struct_array(b, "a", 0, (uint16_t)array_count);
    else if (!err)
        err = eh_builder_begin_struct(b, "s", 0);
    for (int e = 0; e < (array_count ? array_count : 1) && !err; e++) {
        if (e > 0)
            err = eh_builder_next_element(b);
        for (unsigned i = 0; i < n && !err; i++) {
            char name[8];
            uint8_t v = (uint8_t)i;

            snprintf(name, sizeof name, "f%u", i);
            err = eh_builder_add_value(b, name, EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &v);
        }
    }
    if (!err)
        err = eh_builder_end_struct(b);
    if (!err)
        err = eh_builder_add_value(b, "after", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, &after);
    return err;
}

TEST(struct_127_static)
{
    ASSERT_EQ(0, eh_provider_register(&limits_provider));
    ASSERT_EQ(0, EH_WRITE(limits_provider, EH_EVENT("Wide127", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_STRUCT("s", F127), EH_U8("after", 255)));
    EXPECT_EQ(0, eh_provider_unregister(&limits_provider));
}

TEST(struct_128_static_refused)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&limits_provider));
    before = case_capture_size();
    EXPECT_EQ(EINVAL, EH_WRITE(limits_provider, EH_EVENT("Wide128", EH_LEVEL_INFORMATIONAL, 0x1),
                               EH_STRUCT("s", F128), EH_U8("after", 255)));
    /* The refusal is sticky per call site but must not poison other sites. */
    EXPECT_EQ(EINVAL,
              EH_WRITE(limits_provider, EH_EVENT("Wide128Again", EH_LEVEL_INFORMATIONAL, 0x1),
                       EH_STRUCT("s", F128)));
    EXPECT_EQ(before, case_capture_size());
    EXPECT_EQ(0, EH_WRITE(limits_provider, EH_EVENT("AfterRefusal", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U8("ok", 1)));
    EXPECT_EQ(0, eh_provider_unregister(&limits_provider));
}

TEST(struct_127_builder)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;

    ASSERT_EQ(0, eh_provider_register(&limits_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&limits_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    ASSERT_EQ(0, build_wide(&b, "DynWide127", 127, 0));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    /* An array of two structs of 127 members each: "a": [ {f0..f126}, {f0..f126} ] */
    ASSERT_EQ(0, build_wide(&b, "DynWide127Array", 127, 2));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&limits_provider));
}

TEST(struct_128_builder_refused)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&limits_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&limits_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    before = case_capture_size();
    eh_builder_init(&b);
    EXPECT_EQ(EINVAL, build_wide(&b, "DynWide128", 128, 0));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));
    EXPECT_EQ(EINVAL, build_wide(&b, "DynWide128Array", 128, 2));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, NULL));
    EXPECT_EQ(before, case_capture_size());
    /* The builder is usable again after reset. */
    ASSERT_EQ(0, build_wide(&b, "DynWide1", 1, 0));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&limits_provider));
}

/* "Top1000": "g0": 0, "g1": 1, ..., "g999": 999 (u16 each). */
TEST(top_level_1000_fields)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;

    ASSERT_EQ(0, eh_provider_register(&limits_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&limits_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    ASSERT_EQ(0, eh_builder_reset(&b, "Top1000", EH_OPCODE_INFO, 0, 0, 0));
    for (unsigned i = 0; i < 1000; i++) {
        char name[8];
        uint16_t v = (uint16_t)i;

        snprintf(name, sizeof name, "g%u", i);
        ASSERT_EQ(0, eh_builder_add_value(&b, name, EH_ENC_VALUE16, EH_FMT_DEFAULT, 0, &v));
    }
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&limits_provider));
}

TEST_HARNESS_MAIN
