// SPDX-License-Identifier: GPL-2.0
/*
 * activity: the activity-id extension of EventHeader.
 *
 * Proves that an event carries no activity extension unless asked, one 16-byte
 * activity id, or an activity id plus a related (parent) id (a 32-byte extension),
 * with the start/stop opcodes that bracket an activity -- through both the static
 * EH_WRITE macros and the dynamic builder -- and that a related id without an
 * activity id is refused (EINVAL) without writing anything.
 *
 * Expected JSON (Documentation/decoder-json.md §2, §4.10): meta "activity" / "relatedActivity"
 * are the 16 bytes in stored order as a lowercase 8-4-4-4-12 UUID; "opcode" is shown
 * only when non-zero (start = 1, stop = 2).
 */
#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(activity_provider, "EhconfActivity");

/* "11223344-5566-7788-99aa-bbccddeeff00" */
static const uint8_t act_a[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                  0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00};
/* "01020304-0506-0708-090a-0b0c0d0e0f10" */
static const uint8_t act_parent[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
/* "fedcba98-7654-3210-0123-456789abcdef" */
static const uint8_t act_b[16] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
                                  0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};

/* No activity item: no extension, so no "activity" in meta. */
TEST(none)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    ASSERT_EQ(0, EH_WRITE(activity_provider, EH_EVENT("NoActivity", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U32("step", 1)));
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

/* Start (opcode 1) and stop (opcode 2) of activity A, an info event inside it. */
TEST(start_stop)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    ASSERT_EQ(0, EH_WRITE(activity_provider,
                          EH_EVENT("Start", EH_LEVEL_INFORMATIONAL, 0x1,
                                   .opcode = EH_OPCODE_ACTIVITY_START),
                          EH_ACTIVITY_ID(act_a), EH_U32("step", 1)));
    ASSERT_EQ(0, EH_WRITE(activity_provider, EH_EVENT("Inside", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_ACTIVITY_ID(act_a), EH_U32("step", 2)));
    ASSERT_EQ(0, EH_WRITE(activity_provider,
                          EH_EVENT("Stop", EH_LEVEL_INFORMATIONAL, 0x1,
                                   .opcode = EH_OPCODE_ACTIVITY_STOP),
                          EH_ACTIVITY_ID(act_a), EH_U32("step", 3)));
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

/* Child activity B started with parent A as its related id (32-byte extension). */
TEST(with_related)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    ASSERT_EQ(0, EH_WRITE(activity_provider,
                          EH_EVENT("ChildStart", EH_LEVEL_VERBOSE, 0x2,
                                   .opcode = EH_OPCODE_ACTIVITY_START),
                          EH_ACTIVITY_ID(act_b), EH_RELATED_ID(act_parent), EH_U32("step", 4)));
    ASSERT_EQ(
        0, EH_WRITE(activity_provider,
                    EH_EVENT("ChildStop", EH_LEVEL_VERBOSE, 0x2, .opcode = EH_OPCODE_ACTIVITY_STOP),
                    EH_ACTIVITY_ID(act_b), EH_U32("step", 5)));
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

/* An activity event without any field: the header and the extensions alone. */
TEST(no_fields)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    ASSERT_EQ(0, EH_WRITE(activity_provider, EH_EVENT("Bare", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_ACTIVITY_ID(act_a), EH_RELATED_ID(act_parent)));
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

/* A related id needs an activity id: refused, nothing written. */
TEST(related_without_activity)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    off_t before = case_capture_size();

    EXPECT_EQ(EINVAL, EH_WRITE(activity_provider, EH_EVENT("Orphan", EH_LEVEL_INFORMATIONAL, 0x1),
                               EH_RELATED_ID(act_parent), EH_U32("step", 99)));
    EXPECT_EQ(before, case_capture_size());
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

/* The same three shapes through the dynamic builder. */
TEST(builder)
{
    ASSERT_EQ(0, eh_provider_register(&activity_provider));
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint32_t step;
    off_t before;

    ASSERT_EQ(0, eh_provider_tracepoint(&activity_provider, EH_LEVEL_INFORMATIONAL, 0x4, &tp));
    ASSERT_NE(NULL, tp);
    eh_builder_init(&b);

    step = 6;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynNone", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "step", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &step));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));

    step = 7;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynStart", EH_OPCODE_ACTIVITY_START, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "step", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &step));
    EXPECT_EQ(0, eh_builder_write(&b, tp, act_b, act_parent));

    step = 8;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynStop", EH_OPCODE_ACTIVITY_STOP, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "step", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &step));
    EXPECT_EQ(0, eh_builder_write(&b, tp, act_b, NULL));

    /* related without activity: refused, nothing written */
    before = case_capture_size();
    step = 99;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynOrphan", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "step", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &step));
    EXPECT_EQ(EINVAL, eh_builder_write(&b, tp, NULL, act_parent));
    EXPECT_EQ(before, case_capture_size());

    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&activity_provider));
}

TEST_HARNESS_MAIN
