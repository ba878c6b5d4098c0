/* SPDX-License-Identifier: MIT */
/*
 * Byte-exact encoding of EH_WRITE events on the capture backend. Every expected
 * byte below is written out by hand from the EventHeader wire format
 * (Documentation/eventheader-wire.md), x86-64 little-endian: header flags 0x07.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(tl, "TestLib");
EH_DEFINE_PROVIDER_GROUP(tlg, "TestLibG", "mygroup");

static void test_register(void)
{
    cap_setup("encode");
    KT_EXPECT_EQ(eh_provider_register(&tl), 0);
    KT_EXPECT_EQ(eh_provider_register(&tlg), 0);
    KT_EXPECT_STR(eh_backend_name(), "capture");
    KT_EXPECT_EQ(eh_provider_register(&tl), EALREADY);
}

static void test_tracepoint_names(void)
{
    char name[EH_NAME_MAX];
    KT_EXPECT_EQ(eh_tracepoint_name(name, "P", NULL, 10, 0), 0);
    KT_EXPECT_STR(name, "P_LaK0");
    KT_EXPECT_EQ(eh_tracepoint_name(name, "P", "", 5, 0x23), 0);
    KT_EXPECT_STR(name, "P_L5K23");
    KT_EXPECT_EQ(eh_tracepoint_name(name, "P", "g1", 255, UINT64_MAX), 0);
    KT_EXPECT_STR(name, "P_LffKffffffffffffffffGg1");
    KT_EXPECT_EQ(eh_tracepoint_name(name, "OtherProviderName", "mygroup", 5, 0x23), 0);
    KT_EXPECT_STR(name, "OtherProviderName_L5K23Gmygroup");
}

static void test_scalars(void)
{
    static const uint8_t guid[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const uint8_t ip[4] = {192, 168, 0, 1};
    size_t mark = cap_size();
    int r = EH_WRITE(tl, EH_EVENT("Scalars", 5, 1), EH_U8("u8", 0xab), EH_I16("i16", -2),
                     EH_U32_HEX("h32", 0x12345678), EH_I64("i64", -1), EH_F32("f32", 1.5f),
                     EH_F64("f64", -2.0), EH_BOOL32("b", 1), EH_GUID("g", guid), EH_IPV4("ip", ip),
                     EH_PORT("port", 0x5000), EH_POINTER("ptr", (void *)0x1122),
                     EH_SYSTEMTIME("t", (time_t)100000000), EH_CHAR16("c", 0x263a));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t want[] = {
        0x07,
        0,
        0,
        0,
        0,
        0,
        0,
        5, /* header: flags, version, id, tag, opcode 0, level 5 */
        76,
        0,
        1,
        0, /* metadata extension: 76 bytes, kind 1 */
        'S',
        'c',
        'a',
        'l',
        'a',
        'r',
        's',
        0,
        'u',
        '8',
        0,
        0x02, /* Value8 */
        'i',
        '1',
        '6',
        0,
        0x83,
        0x02, /* Value16 + SignedInt */
        'h',
        '3',
        '2',
        0,
        0x84,
        0x03, /* Value32 + HexInt */
        'i',
        '6',
        '4',
        0,
        0x85,
        0x02, /* Value64 + SignedInt */
        'f',
        '3',
        '2',
        0,
        0x84,
        0x08, /* Value32 + Float */
        'f',
        '6',
        '4',
        0,
        0x85,
        0x08, /* Value64 + Float */
        'b',
        0,
        0x84,
        0x07, /* Value32 + Boolean */
        'g',
        0,
        0x86,
        0x0f, /* Value128 + Uuid */
        'i',
        'p',
        0,
        0x84,
        0x11, /* Value32 + IPAddress */
        'p',
        'o',
        'r',
        't',
        0,
        0x83,
        0x10, /* Value16 + Port */
        'p',
        't',
        'r',
        0,
        0x85,
        0x03, /* ValueSize(64) + HexInt */
        't',
        0,
        0x85,
        0x06, /* Value64 + Time */
        'c',
        0,
        0x83,
        0x0b, /* Value16 + StringUtf */
        /* payload */
        0xab,
        0xfe,
        0xff,
        0x78,
        0x56,
        0x34,
        0x12,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0x00,
        0x00,
        0xc0,
        0x3f, /* 1.5f */
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0xc0, /* -2.0 */
        1,
        0,
        0,
        0,
        0,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        12,
        13,
        14,
        15,
        192,
        168,
        0,
        1,
        0x00,
        0x50,
        0x22,
        0x11,
        0,
        0,
        0,
        0,
        0,
        0,
        0x00,
        0xe1,
        0xf5,
        0x05,
        0,
        0,
        0,
        0, /* 100000000 */
        0x3a,
        0x26,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L5K1", want));
}

static void test_strings(void)
{
    size_t mark = cap_size();
    int r = EH_WRITE(tl, EH_EVENT("Strings", 4, 0x10), EH_STR8("s8", "abc", 3),
                     EH_STR16("s16", u"hi", 2), EH_STR32("s32", U"x", 1), EH_CSTR8("z8", "hey"),
                     EH_CSTR16("z16", u"ok"), EH_CSTR32("z32", U"Z"), EH_CSTR8_N("zn", "abcdef", 3),
                     EH_CSTR8_N("zn0", "ab\0cd", 5), EH_BINARY("bin", "\x01\x02", 2),
                     EH_STR8_JSON("j", "{}", 2), EH_CSTR16_XML("x", u"<a/>"),
                     EH_BINARY_L16("b16", "\xff", 1));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t
        want
            [] =
                {
                    0x07, 0,    0,    0,    0,    0,    0,   4,    65,  0,    1,
                    0,    'S',  't',  'r',  'i',  'n',  'g', 's',  0,   's',  '8',
                    0,    0x0a, /* StringLength16Char8 */
                    's',  '1',  '6',  0,    0x0b, 's',  '3', '2',  0,   0x0c, 'z',
                    '8',  0,    0x07, /* ZStringChar8 */
                    'z',  '1',  '6',  0,    0x08, 'z',  '3', '2',  0,   0x09, 'z',
                    'n',  0,    0x07, 'z',  'n',  '0',  0,   0x07, 'b', 'i',  'n',
                    0,    0x8a, 0x09,                   /* StringLength16Char8 + HexBytes */
                    'j',  0,    0x8a, 0x0e,             /* + StringJson */
                    'x',  0,    0x88, 0x0d,             /* ZStringChar16 + StringXml */
                    'b',  '1',  '6',  0,    0x8d, 0x09, /* BinaryLength16Char8 + HexBytes */
                    3,    0,    'a',  'b',  'c',  2,    0,   'h',  0,   'i',  0,
                    1,    0,    'x',  0,    0,    0,    'h', 'e',  'y', 0,    'o',
                    0,    'k',  0,    0,    0,    'Z',  0,   0,    0,   0,    0,
                    0,    0,    'a',  'b',  'c',  0, /* stopped at max = 3 */
                    'a',  'b',  0,                   /* stopped at the NUL */
                    2,    0,    1,    2,    2,    0,    '{', '}',  '<', 0,    'a',
                    0,    '/',  0,    '>',  0,    0,    0,   1,    0,   0xff,
                };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L4K10", want));
}

static void test_arrays(void)
{
    static const uint16_t sl[3] = {1, 2, 3};
    static const int32_t ca[2] = {-1, 2};
    static const uint8_t ips[2][4] = {{10, 0, 0, 1}, {192, 168, 1, 2}};
    size_t mark = cap_size();
    int r =
        EH_WRITE(tl, EH_EVENT("Arrays", 5, 1), EH_U16_SLICE("sl", sl, 3), EH_I32_ARRAY("ca", ca, 2),
                 EH_U8_SLICE("e", NULL, 0), EH_IPV4_SLICE("ips", ips, 2));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t want[] = {
        0x07, 0,   0,    0,    0,    0,   0,   5,    27,   0,    1,    0,    'A', 'r',
        'r',  'a', 'y',  's',  0,    's', 'l', 0,    0x43, /* Value16 | VArray */
        'c',  'a', 0,    0xa4, 0x02, 2,   0, /* Value32 | CArray + SignedInt, count 2 */
        'e',  0,   0x42, 'i',  'p',  's', 0,   0xc4, 0x11, /* Value32 | VArray + IPAddress */
        3,    0,   1,    0,    2,    0,   3,   0,    0xff, 0xff, 0xff, 0xff, 2,   0,
        0,    0,   0,    0,    2,    0,   10,  0,    0,    1,    192,  168,  1,   2,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L5K1", want));
}

static void test_nested_struct_attributes(void)
{
    size_t mark = cap_size();
    int r = EH_WRITE(tl,
                     EH_EVENT("Nested;color=red", 3, 0x8000000000000001, .opcode = 1, .tag = 0x1234,
                              .id = 0x55, .version = 2),
                     EH_U32("a", 1, EH_TAG(0x12), EH_FORMAT(EH_FMT_HEX_INT)),
                     EH_STRUCT("outer", EH_U8("x", 2),
                               EH_STRUCT_TAGGED("inner", 0x0abc, EH_U8("y", 3), EH_I8("z", -3)),
                               EH_U8("w", 4)),
                     EH_U16("after", 5, EH_FORMAT(EH_FMT_DEFAULT), EH_TAG(7)));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t want[] = {
        0x07, 2,   0x55, 0,    0x34, 0x12, 1,    3, /* version 2, id 0x55, tag 0x1234, opcode 1, level 3 */
        64,   0,   1,    0,    'N',  'e',  's',  't', 'e', 'd',  ';',  'c',  'o',  'l',
        'o',  'r', '=',  'r',  'e',  'd',  0,    'a', 0,   0x84, 0x83, 0x12, 0, /* Value32 + HexInt, tag 0x12 */
        'o',  'u', 't',  'e',  'r',  0,    0x81, 3, /* struct, 3 members */
        'x',  0,   0x02, 'i',  'n',  'n',  'e',  'r', 0,   0x81, 0x82, 0xbc, 0x0a, /* struct, 2 members, tag 0xabc */
        'y',  0,   0x02, 'z',  0,    0x82, 0x02, 'w', 0,   0x02, 'a',  'f',  't',  'e',
        'r',  0,   0x83, 0x80, 7,    0, /* default format, tag 7 */
        1,    0,   0,    0,    2,    3,    0xfd, 4,   5,   0,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L3K8000000000000001", want));
}

struct pt {
    int16_t x;
    int16_t y;
    uint32_t c;
};

static void test_struct_array(void)
{
    static const struct pt pts[2] = {{1, -1, 7}, {2, -2, 8}};
    size_t mark = cap_size();
    int r = EH_WRITE(tl, EH_EVENT("StructArray", 5, 1),
                     EH_STRUCT_ARRAY("pts", pts, 2, EH_MEMBER_I16(struct pt, x),
                                     EH_MEMBER_U32_HEX(struct pt, c)));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t
        want
            [] =
                {
                    0x07, 0,   0,    0,    0,    0,   0,    5,    26,  0,   1,   0,
                    'S',  't', 'r',  'u',  'c',  't', 'A',  'r',  'r', 'a', 'y', 0,
                    'p',  't', 's',  0,    0xc1, 2, /* struct | VArray, 2 members */
                    'x',  0,   0x83, 0x02, 'c',  0,   0x84, 0x03, 2,   0, /* 2 elements */
                    1,    0,   7,    0,    0,    0,   2,    0,    8,   0,   0,   0,
                };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L5K1", want));
}

static const uint8_t act[16] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
                                0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf};
static const uint8_t rel[16] = {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
                                0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf};

static void test_activity(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(tl, EH_EVENT("Act", 5, 1), EH_ACTIVITY_ID(act), EH_U8("v", 1)), 0);
    static const uint8_t want[] = {
        0x07, 0,    0,    0,    0,    0,    0,    5,    16,   0,    0x02, 0x80, /* activity id, chained */
        0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad,
        0xae, 0xaf, 7,    0,    1,    0,    'A',  'c',  't',  0,    'v',  0,    0x02, 1,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L5K1", want));

    mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(tl, EH_EVENT("Act", 5, 1, .opcode = EH_OPCODE_ACTIVITY_START),
                          EH_RELATED_ID(rel), EH_ACTIVITY_ID(act)),
                 0);
    static const uint8_t want2[] = {
        0x07, 0,    0,    0,    0,    0,    1,    5,    32,   0,    0x02, 0x80, 0xa0,
        0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad,
        0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba,
        0xbb, 0xbc, 0xbd, 0xbe, 0xbf, 4,    0,    1,    0,    'A',  'c',  't',  0,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L5K1", want2));

    /* A related id alone cannot be encoded. */
    mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(tl, EH_EVENT("Act", 5, 1), EH_RELATED_ID(rel)), EINVAL);
    KT_EXPECT_EQ(cap_size(), mark);
}

/* The raw example of the write_event! documentation, field for field. */
static void test_raw_fields(void)
{
    static const uint8_t a65[] = {65};
    static const uint8_t chars[] = {3, 0, 65, 66, 67};
    static const uint8_t data1[] = {255, 0, 0, 0, 3, 0, 65, 66, 67};
    static const uint8_t data2[] = {2, 0, 48, 3, 0, 65, 66, 67, 49, 2, 0, 48, 49};
    size_t mark = cap_size();
    int r = EH_WRITE(
        tl, EH_EVENT("MyWarningEvent", 3, 0),
        EH_RAW_FIELD("RawChar8", EH_ENC_VALUE8, a65, 1, EH_FORMAT(EH_FMT_STRING8), EH_TAG(200)),
        EH_RAW_FIELD_SLICE("RawChar8s", EH_ENC_VALUE8, chars, 5, EH_FORMAT(EH_FMT_STRING8)),
        EH_RAW_META("RawHex32", EH_ENC_VALUE32, EH_FORMAT(EH_FMT_HEX_INT)),
        EH_RAW_META_SLICE("RawHex8s", EH_ENC_VALUE8, EH_FORMAT(EH_FMT_HEX_INT)),
        EH_RAW_DATA(data1, sizeof data1), EH_RAW_STRUCT("RawStruct", 2),
        EH_RAW_FIELD("RawChar8", EH_ENC_VALUE8, a65, 1, EH_FORMAT(EH_FMT_STRING8)),
        EH_RAW_FIELD_SLICE("RawChar8s", EH_ENC_VALUE8, chars, 5, EH_FORMAT(EH_FMT_STRING8)),
        EH_RAW_STRUCT_SLICE("RawStructSlice", 2),
        EH_RAW_META("RawChar8", EH_ENC_VALUE8, EH_FORMAT(EH_FMT_STRING8)),
        EH_RAW_META_SLICE("RawChar8s", EH_ENC_VALUE8, EH_FORMAT(EH_FMT_STRING8)),
        EH_RAW_DATA(data2, sizeof data2));
    KT_EXPECT_EQ(r, 0);
    static const uint8_t want[] = {
        0x07, 0,   0,    0,    0,    0,    0,   3,    137,  0,    1,   0,    'M',  'y',  'W',  'a',
        'r',  'n', 'i',  'n',  'g',  'E',  'v', 'e',  'n',  't',  0,   'R',  'a',  'w',  'C',  'h',
        'a',  'r', '8',  0,    0x82, 0x8a, 200, 0,    'R',  'a',  'w', 'C',  'h',  'a',  'r',  '8',
        's',  0,   0xc2, 0x0a, 'R',  'a',  'w', 'H',  'e',  'x',  '3', '2',  0,    0x84, 0x03, 'R',
        'a',  'w', 'H',  'e',  'x',  '8',  's', 0,    0xc2, 0x03, 'R', 'a',  'w',  'S',  't',  'r',
        'u',  'c', 't',  0,    0x81, 2,    'R', 'a',  'w',  'C',  'h', 'a',  'r',  '8',  0,    0x82,
        0x0a, 'R', 'a',  'w',  'C',  'h',  'a', 'r',  '8',  's',  0,   0xc2, 0x0a, 'R',  'a',  'w',
        'S',  't', 'r',  'u',  'c',  't',  'S', 'l',  'i',  'c',  'e', 0,    0xc1, 2,    'R',  'a',
        'w',  'C', 'h',  'a',  'r',  '8',  0,   0x82, 0x0a, 'R',  'a', 'w',  'C',  'h',  'a',  'r',
        '8',  's', 0,    0xc2, 0x0a, 65,   3,   0,    65,   66,   67,  255,  0,    0,    0,    3,
        0,    65,  66,   67,   65,   3,    0,   65,   66,   67,   2,   0,    48,   3,    0,    65,
        66,   67,  49,   2,    0,    48,   49,
    };
    KT_EXPECT(CAP_ONE(mark, "TestLib_L3K0", want));
}

/* Group provider; also the whole record, size prefix included. */
static void test_group_record(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(tlg, EH_EVENT("G", 1, 0xf123456789abcdef)), 0);
    static const uint8_t want[] = {
        55,  0,   0,   0, /* 4 + 37 (name + NUL) + 14 */
        'T', 'e', 's', 't',  'L', 'i', 'b', 'G', '_', 'L', '1', 'K', 'f', '1', '2', '3', '4',
        '5', '6', '7', '8',  '9', 'a', 'b', 'c', 'd', 'e', 'f', 'G', 'm', 'y', 'g', 'r', 'o',
        'u', 'p', 0,   0x07, 0,   0,   0,   0,   0,   0,   1,   2,   0,   1,   0,   'G', 0,
    };
    size_t len;
    uint8_t *got = cap_read_from(mark, &len);
    KT_EXPECT_MEM(got, len, want, sizeof want);
    free(got);
}

/* EH_ENABLED and enable state follow registration. */
static void test_enabled_and_unregister(void)
{
    KT_EXPECT(EH_ENABLED(tlg, 2, 7));
    KT_EXPECT_EQ(eh_provider_unregister(&tlg), 0);
    KT_EXPECT(!EH_ENABLED(tlg, 2, 7));
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(tlg, EH_EVENT("G", 1, 0xf123456789abcdef)), EBADF);
    KT_EXPECT_EQ(eh_provider_unregister(&tlg), 0); /* idempotent */
    KT_EXPECT_EQ(cap_size(), mark);
    KT_EXPECT_EQ(eh_provider_register(&tlg), 0); /* and again */
    KT_EXPECT(EH_ENABLED(tlg, 2, 7));
    KT_EXPECT_EQ(EH_WRITE(tlg, EH_EVENT("G", 1, 0xf123456789abcdef)), 0);
    KT_EXPECT(cap_size() > mark);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_tracepoint_names), KT_CASE(test_scalars),
        KT_CASE(test_strings), KT_CASE(test_arrays), KT_CASE(test_nested_struct_attributes),
        KT_CASE(test_struct_array), KT_CASE(test_activity), KT_CASE(test_raw_fields),
        KT_CASE(test_group_record), KT_CASE(test_enabled_and_unregister))
