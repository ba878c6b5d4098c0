// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle: provider registration over time.
 *
 * Proves that
 *  - a write before registering, or after unregistering, returns EBADF and writes
 *    nothing; EH_ENABLED follows the registration;
 *  - register -> unregister -> register again works, through the SAME call site
 *    (the site reconnects) and through a dynamic-builder tracepoint;
 *  - registering twice returns EALREADY, unregistering twice is harmless;
 *  - two providers live side by side, and the same event name in both stays two
 *    events ("EhconfLifeA:Same" and "EhconfLifeB:Same"); unregistering one leaves the
 *    other working; a provider with a group (tracepoint "..._L4K1Ggrp") shows the plain
 *    provider name in "n" (Documentation/decoder-json.md §5: options are not part of "n");
 *  - a provider name may contain '_' (the decoder splits at the last one);
 *  - invalid provider names (space, colon, group with upper case, a tracepoint name of
 *    256 bytes or more) are refused with EINVAL and leave nothing registered;
 *  - field values of a disabled EH_WRITE are not evaluated.
 * Every written event carries "seq", numbered in the order of this file, so the golden
 * file shows at a glance that no write after unregister got through.
 */
#include <string.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(prov_a, "EhconfLifeA");
static EH_DEFINE_PROVIDER(prov_b, "EhconfLifeB");
static EH_DEFINE_PROVIDER_GROUP(prov_a_grp, "EhconfLifeA", "grp");

/* One call site per provider, so a re-registration must reconnect the same site. */
static int write_a(uint32_t seq)
{
    return EH_WRITE(prov_a, EH_EVENT("Life", EH_LEVEL_INFORMATIONAL, 0x1), EH_U32("seq", seq));
}

static int write_same(eh_provider *which, const char *from, uint32_t seq)
{
    if (which == &prov_a)
        return EH_WRITE(prov_a, EH_EVENT("Same", EH_LEVEL_INFORMATIONAL, 0x1),
                        EH_CSTR8("from", from), EH_U32("seq", seq));
    if (which == &prov_b)
        return EH_WRITE(prov_b, EH_EVENT("Same", EH_LEVEL_INFORMATIONAL, 0x1),
                        EH_CSTR8("from", from), EH_U32("seq", seq));
    return EH_WRITE(prov_a_grp, EH_EVENT("Same", EH_LEVEL_INFORMATIONAL, 0x1),
                    EH_CSTR8("from", from), EH_U32("seq", seq));
}

static int a_enabled(void)
{
    return EH_ENABLED(prov_a, EH_LEVEL_INFORMATIONAL, 0x1);
}

TEST(write_before_register)
{
    off_t before = case_capture_size();
    uint32_t evaluated = 0;

    EXPECT_EQ(0, a_enabled());
    EXPECT_EQ(EBADF, write_a(100));
    /* eventheader.h: field values are evaluated only when the event is enabled */
    EXPECT_EQ(EBADF, EH_WRITE(prov_a, EH_EVENT("Life", EH_LEVEL_INFORMATIONAL, 0x1),
                              EH_U32("seq", ++evaluated)));
    EXPECT_EQ(0u, evaluated);
    EXPECT_EQ(before, case_capture_size());
}

/* Events "Life" seq 1 and 3; seq 2 is written while unregistered and must not appear. */
TEST(register_unregister_register)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&prov_a));
    EXPECT_EQ(1, a_enabled());
    ASSERT_EQ(0, write_a(1));
    ASSERT_EQ(0, eh_provider_unregister(&prov_a));
    EXPECT_EQ(0, a_enabled());
    before = case_capture_size();
    EXPECT_EQ(EBADF, write_a(2));
    EXPECT_EQ(before, case_capture_size());
    ASSERT_EQ(0, eh_provider_register(&prov_a));
    EXPECT_EQ(1, a_enabled());
    EXPECT_EQ(0, write_a(3));
    EXPECT_EQ(0, eh_provider_unregister(&prov_a));
}

TEST(register_twice_unregister_twice)
{
    ASSERT_EQ(0, eh_provider_register(&prov_a));
    EXPECT_EQ(EALREADY, eh_provider_register(&prov_a));
    EXPECT_EQ(0, write_a(4));
    EXPECT_EQ(0, eh_provider_unregister(&prov_a));
    EXPECT_EQ(0, eh_provider_unregister(&prov_a));
    EXPECT_EQ(EBADF, write_a(5));
}

/* "DynLife" seq 6 and 8 through a runtime tracepoint; seq 7 refused while unregistered. */
TEST(builder_across_registration)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    uint32_t seq;
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&prov_a));
    ASSERT_EQ(0, eh_provider_tracepoint(&prov_a, EH_LEVEL_INFORMATIONAL, 0x2, &tp));
    eh_builder_init(&b);
    seq = 6;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynLife", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "seq", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &seq));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));

    ASSERT_EQ(0, eh_provider_unregister(&prov_a));
    EXPECT_EQ(0, eh_tracepoint_enabled(tp));
    before = case_capture_size();
    seq = 7;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynLife", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "seq", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &seq));
    EXPECT_EQ(EBADF, eh_builder_write(&b, tp, NULL, NULL));
    EXPECT_EQ(before, case_capture_size());

    ASSERT_EQ(0, eh_provider_register(&prov_a));
    EXPECT_EQ(1, eh_tracepoint_enabled(tp));
    seq = 8;
    ASSERT_EQ(0, eh_builder_reset(&b, "DynLife", EH_OPCODE_INFO, 0, 0, 0));
    ASSERT_EQ(0, eh_builder_add_value(&b, "seq", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &seq));
    EXPECT_EQ(0, eh_builder_write(&b, tp, NULL, NULL));
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&prov_a));
}

/*
 * "EhconfLifeA:Same" from "A" seq 9, "EhconfLifeB:Same" from "B" seq 10,
 * "EhconfLifeA:Same" from "A+grp" seq 11; then A unregistered: A's write (seq 12) is
 * refused, B (seq 13) and the group provider (seq 14) still write.
 */
TEST(two_providers_same_event_name)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&prov_a));
    ASSERT_EQ(0, eh_provider_register(&prov_b));
    ASSERT_EQ(0, eh_provider_register(&prov_a_grp));
    EXPECT_EQ(0, write_same(&prov_a, "A", 9));
    EXPECT_EQ(0, write_same(&prov_b, "B", 10));
    EXPECT_EQ(0, write_same(&prov_a_grp, "A+grp", 11));
    ASSERT_EQ(0, eh_provider_unregister(&prov_a));
    before = case_capture_size();
    EXPECT_EQ(EBADF, write_same(&prov_a, "A", 12));
    EXPECT_EQ(before, case_capture_size());
    EXPECT_EQ(0, write_same(&prov_b, "B", 13));
    EXPECT_EQ(0, write_same(&prov_a_grp, "A+grp", 14));
    EXPECT_EQ(0, eh_provider_unregister(&prov_b));
    EXPECT_EQ(0, eh_provider_unregister(&prov_a_grp));
}

/*
 * The decoder splits the tracepoint name at its LAST '_' (Documentation/decoder-json.md §5), so a
 * provider name may contain underscores: "Ehconf_Under_Score:Underscores" seq 15.
 */
TEST(provider_name_with_underscores)
{
    static EH_DEFINE_PROVIDER(underscored, "Ehconf_Under_Score");

    ASSERT_EQ(0, eh_provider_register(&underscored));
    EXPECT_EQ(0, EH_WRITE(underscored, EH_EVENT("Underscores", EH_LEVEL_INFORMATIONAL, 0x1),
                          EH_U32("seq", 15)));
    EXPECT_EQ(0, eh_provider_unregister(&underscored));
}

TEST(invalid_names_refused)
{
    static EH_DEFINE_PROVIDER(with_space, "Ehconf Bad");
    static EH_DEFINE_PROVIDER(with_colon, "Ehconf:Bad");
    static EH_DEFINE_PROVIDER_GROUP(bad_group, "EhconfBadGroup", "Grp");
    static char long_name[260];
    static eh_provider too_long = {.name = long_name};
    eh_tracepoint *tp = (eh_tracepoint *)1;
    off_t before = case_capture_size();

    /* A tracepoint name and its NUL must be < 256 bytes (EH_NAME_MAX):
	 * 249 chars + "_L4K1" = 254 + NUL = 255 fits; 250 + 5 = 255 + NUL = 256 does not. */
    memset(long_name, 'x', 249);
    EXPECT_EQ(EINVAL, eh_provider_register(&with_space));
    EXPECT_EQ(EINVAL, eh_provider_register(&with_colon));
    EXPECT_EQ(EINVAL, eh_provider_register(&bad_group));
    EXPECT_EQ(0, eh_provider_tracepoint(&too_long, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    memset(long_name, 'x', 250);
    tp = (eh_tracepoint *)1;
    EXPECT_EQ(EINVAL, eh_provider_tracepoint(&too_long, EH_LEVEL_INFORMATIONAL, 0x3, &tp));
    EXPECT_EQ(NULL, tp);
    /* the first tracepoint now has a name that is too long: nothing is registered */
    EXPECT_EQ(EINVAL, eh_provider_register(&too_long));
    EXPECT_EQ(EBADF, EH_WRITE(with_space, EH_EVENT("Never", EH_LEVEL_INFORMATIONAL, 0x1),
                              EH_U32("seq", 99)));
    EXPECT_EQ(before, case_capture_size());
}

TEST_HARNESS_MAIN
