// SPDX-License-Identifier: GPL-2.0
/*
 * byte_order: levels, keywords and tags whose digits and bytes differ read back as written,
 * so a writer that confuses radix or byte order shows on ordinary events.
 *
 * Why: the attributes case mostly uses levels 1-5 (the same digits in decimal and hex)
 * and tags such as 0xFFFF (the same bytes in either order). Here:
 *  - every level has a hex spelling that differs from its decimal one (10 is "La", 32 is
 *    "L20"): the tracepoint name carries the level in lowercase hex
 *    (Documentation/eventheader-wire.md §1), and a decoder that finds the header's level
 *    differ from the name's refuses the event;
 *  - every keyword has bits set at both ends, or far apart, so a keyword written in the
 *    wrong radix or byte order lands elsewhere;
 *  - every event has field tags (§3: a 16-bit value in the metadata, little-endian when the
 *    header says so) whose two bytes differ, and values in hex whose bytes differ, on scalars,
 *    a struct and its member; the first event also has an event tag of that kind.
 *
 * Expected JSON (Documentation/decoder-json.md): golden/byte_order.json, one line per event,
 * in the order the TESTs write them. Review it against this file, never against the decoder.
 */
#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(order_provider, "EhconfByteOrder");

/* Levels 10 and 15 (one hex digit a-f), 16 and 17 (two digits, read in decimal as 22, 23). */
TEST(levels_below_32)
{
    ASSERT_EQ(0, eh_provider_register(&order_provider));
    ASSERT_EQ(0, EH_WRITE(order_provider,
                          EH_EVENT("Level10", 10, 0x8000000000000001ULL, .tag = 0x1234),
                          EH_U16_HEX("v", 0x0102, EH_TAG(0x1234))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level15", 15, 0x0100000000000080ULL),
                          EH_U32_HEX("v", 0x01020304, EH_TAG(0x0102))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level16", 16, 0x00FF00000000FF00ULL),
                          EH_U64_HEX("v", 0x0102030405060708ULL, EH_TAG(0x7F01))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level17", 17, 0x1),
                          EH_I32("v", -2, EH_TAG(0x2301)), EH_U8("w", 0xA5, EH_TAG(0x0A0B))));
    EXPECT_EQ(0, eh_provider_unregister(&order_provider));
}

/* Levels 32, 100, 200 and 254; a tagged struct with a tagged member. */
TEST(levels_above_32)
{
    ASSERT_EQ(0, eh_provider_register(&order_provider));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level32", 32, 0x2),
                          EH_STRUCT_TAGGED("s", 0x3412, EH_U8("m", 1, EH_TAG(0x5A01)),
                                           EH_U16_HEX("n", 0xABCD, EH_TAG(0x0201)))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level100", 100, 0x8000),
                          EH_U16("v", 0x0201, EH_TAG(0xA55A))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level200", 200, 0xF000000000000000ULL),
                          EH_U32_HEX("v", 0xDEADBEEF, EH_TAG(0x00FF))));
    ASSERT_EQ(0, EH_WRITE(order_provider, EH_EVENT("Level254", 254, 0x4000000000000002ULL),
                          EH_U16_HEX("v", 0x00FF, EH_TAG(0xFF00))));
    EXPECT_EQ(0, eh_provider_unregister(&order_provider));
}

TEST_HARNESS_MAIN
