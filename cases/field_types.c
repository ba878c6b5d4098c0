// SPDX-License-Identifier: GPL-2.0
/*
 * field_types: every normal field type of the write_event! table
 * (Documentation/eventheader-wire.md §4, list in Documentation/field-types.txt),
 * each in its own event, with a typical value and the extremes.
 *
 * NAMING SCHEME (tests/harness/test_coverage.py checks it mechanically):
 *  - Every field is named after its write_event! type name exactly ("u32", "i8_hex_slice",
 *    "cstr16_json"); the constant-length array variant (EH_*_ARRAY) of type T is "T_array".
 *  - Every event is named after the type of its fields: event "T" holds only fields "T".
 *    Several values of one type are several fields with the same name in one event
 *    (EventHeader allows duplicate names; the decoder keeps them in order). An event
 *    "T.<what>" holds further values of type T that need an event of their own
 *    (e.g. "str8.maxlen"; the maxlen events also carry a "size" field, see below).
 *  - Scalar types (those with a _slice variant) get three events through FAMILY():
 *      "T"        fields T       = v[0], v[1], v[2], v[3]   (typical, then extremes)
 *      "T_slice"  fields T_slice = [ ], [ v[0] ], [ v[0] .. v[3] ]   (0, 1, many)
 *      "T_array"  fields T_array = [ v[0] .. v[3] ], [ v[0] ]        (carray of 4 and of 1)
 *    Unsigned values are { typical, 0, 1, max }; signed { typical, 0, min, max }.
 *  - The event "tag_format" shows the optional field tag (EH_TAG) and the format
 *    override (EH_FORMAT); "tag_format_array", the last event, a tag on a constant-length
 *    array.
 * Every event has level 5 (verbose) and keyword 0x1.
 *
 * Expected rendering: Documentation/decoder-json.md §4, with ehconf's pinned choices
 * (lib/decode/src/eventheader_json.c): code points UTF-8 cannot carry (lone surrogates,
 * above U+10FFFF, ED A0..BF xx) become U+FFFD; time prints every int64 value.
 * Pointer-sized types (isize, usize, pointer, codepointer) are 64-bit here (x86-64).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(ft_provider, "EhconfFieldTypes");

/* A u16 whose bytes in memory are v's, most significant first (network order: htons) or
 * least significant first (htole16), on any producer; written here because <arpa/inet.h>
 * and <endian.h> do not exist for the Windows build of the cases. */
static uint16_t u16_in_order(uint16_t v, int big_endian)
{
    const uint8_t b[2] = {(uint8_t)(big_endian ? v >> 8 : v), (uint8_t)(big_endian ? v : v >> 8)};
    uint16_t r;
    memcpy(&r, b, sizeof r);
    return r;
}

#define LVL     EH_LEVEL_VERBOSE
#define KW      0x1
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* The three events of a scalar type T (see the naming scheme above); v has 4 values. */
#define FAMILY(T, TS, TA, SCALAR, SLICE, ARRAY, v)                                                 \
    do {                                                                                           \
        ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT(T, LVL, KW), SCALAR(T, v[0]), SCALAR(T, v[1]), \
                              SCALAR(T, v[2]), SCALAR(T, v[3])));                                  \
        ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT(TS, LVL, KW), SLICE(TS, v, 0),                 \
                              SLICE(TS, v, 1), SLICE(TS, v, 4)));                                  \
        ASSERT_EQ(0,                                                                               \
                  EH_WRITE(ft_provider, EH_EVENT(TA, LVL, KW), ARRAY(TA, v, 4), ARRAY(TA, v, 1))); \
    } while (0)

/* ---------------------------------------------------------------- integers */

/* Decimal: u* unsigned, i* two's complement of the width (§4.2). */
TEST(integers)
{
    static const uint8_t u8v[4] = {42, 0, 1, UINT8_MAX};
    static const uint16_t u16v[4] = {4242, 0, 1, UINT16_MAX};
    static const uint32_t u32v[4] = {42424242, 0, 1, UINT32_MAX};
    static const uint64_t u64v[4] = {4242424242424242ULL, 0, 1, UINT64_MAX};
    static const uintptr_t usizev[4] = {4242, 0, 1, UINTPTR_MAX};
    static const int8_t i8v[4] = {-42, 0, INT8_MIN, INT8_MAX};
    static const int16_t i16v[4] = {-4242, 0, INT16_MIN, INT16_MAX};
    static const int32_t i32v[4] = {-42424242, 0, INT32_MIN, INT32_MAX};
    static const int64_t i64v[4] = {-4242424242424242LL, 0, INT64_MIN, INT64_MAX};
    static const intptr_t isizev[4] = {-4242, 0, INTPTR_MIN, INTPTR_MAX};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("u8", "u8_slice", "u8_array", EH_U8, EH_U8_SLICE, EH_U8_ARRAY, u8v);
    FAMILY("u16", "u16_slice", "u16_array", EH_U16, EH_U16_SLICE, EH_U16_ARRAY, u16v);
    FAMILY("u32", "u32_slice", "u32_array", EH_U32, EH_U32_SLICE, EH_U32_ARRAY, u32v);
    FAMILY("u64", "u64_slice", "u64_array", EH_U64, EH_U64_SLICE, EH_U64_ARRAY, u64v);
    FAMILY("usize", "usize_slice", "usize_array", EH_USIZE, EH_USIZE_SLICE, EH_USIZE_ARRAY, usizev);
    FAMILY("i8", "i8_slice", "i8_array", EH_I8, EH_I8_SLICE, EH_I8_ARRAY, i8v);
    FAMILY("i16", "i16_slice", "i16_array", EH_I16, EH_I16_SLICE, EH_I16_ARRAY, i16v);
    FAMILY("i32", "i32_slice", "i32_array", EH_I32, EH_I32_SLICE, EH_I32_ARRAY, i32v);
    FAMILY("i64", "i64_slice", "i64_array", EH_I64, EH_I64_SLICE, EH_I64_ARRAY, i64v);
    FAMILY("isize", "isize_slice", "isize_array", EH_ISIZE, EH_ISIZE_SLICE, EH_ISIZE_ARRAY, isizev);
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- hex */

/* "0x%X": uppercase, no padding, 0 -> "0x0", negative values show the raw width (§4.2). */
TEST(hex)
{
    static const uint8_t u8v[4] = {0xAB, 0, 1, UINT8_MAX};
    static const uint16_t u16v[4] = {0xBEEF, 0, 1, UINT16_MAX};
    static const uint32_t u32v[4] = {0xDEADBEEF, 0, 1, UINT32_MAX};
    static const uint64_t u64v[4] = {0x123456789ABCDEF0ULL, 0, 1, UINT64_MAX};
    static const uintptr_t usizev[4] = {0x1000, 0, 1, UINTPTR_MAX};
    static const int8_t i8v[4] = {-1, 0, INT8_MIN, INT8_MAX};
    static const int16_t i16v[4] = {-1, 0, INT16_MIN, INT16_MAX};
    static const int32_t i32v[4] = {-1, 0, INT32_MIN, INT32_MAX};
    static const int64_t i64v[4] = {-1, 0, INT64_MIN, INT64_MAX};
    static const intptr_t isizev[4] = {-1, 0, INTPTR_MIN, INTPTR_MAX};
    /* E_FAIL-style HRESULT first; hresult is Value32 + HexInt */
    static const int32_t hrv[4] = {(int32_t)0x80004005, 0, 1, -1};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("u8_hex", "u8_hex_slice", "u8_hex_array", EH_U8_HEX, EH_U8_HEX_SLICE, EH_U8_HEX_ARRAY,
           u8v);
    FAMILY("u16_hex", "u16_hex_slice", "u16_hex_array", EH_U16_HEX, EH_U16_HEX_SLICE,
           EH_U16_HEX_ARRAY, u16v);
    FAMILY("u32_hex", "u32_hex_slice", "u32_hex_array", EH_U32_HEX, EH_U32_HEX_SLICE,
           EH_U32_HEX_ARRAY, u32v);
    FAMILY("u64_hex", "u64_hex_slice", "u64_hex_array", EH_U64_HEX, EH_U64_HEX_SLICE,
           EH_U64_HEX_ARRAY, u64v);
    FAMILY("usize_hex", "usize_hex_slice", "usize_hex_array", EH_USIZE_HEX, EH_USIZE_HEX_SLICE,
           EH_USIZE_HEX_ARRAY, usizev);
    FAMILY("i8_hex", "i8_hex_slice", "i8_hex_array", EH_I8_HEX, EH_I8_HEX_SLICE, EH_I8_HEX_ARRAY,
           i8v);
    FAMILY("i16_hex", "i16_hex_slice", "i16_hex_array", EH_I16_HEX, EH_I16_HEX_SLICE,
           EH_I16_HEX_ARRAY, i16v);
    FAMILY("i32_hex", "i32_hex_slice", "i32_hex_array", EH_I32_HEX, EH_I32_HEX_SLICE,
           EH_I32_HEX_ARRAY, i32v);
    FAMILY("i64_hex", "i64_hex_slice", "i64_hex_array", EH_I64_HEX, EH_I64_HEX_SLICE,
           EH_I64_HEX_ARRAY, i64v);
    FAMILY("isize_hex", "isize_hex_slice", "isize_hex_array", EH_ISIZE_HEX, EH_ISIZE_HEX_SLICE,
           EH_ISIZE_HEX_ARRAY, isizev);
    FAMILY("hresult", "hresult_slice", "hresult_array", EH_HRESULT, EH_HRESULT_SLICE,
           EH_HRESULT_ARRAY, hrv);
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- floats */

/*
 * Shortest round-trip text (§4.4); non-finite values quoted with the sign bit shown.
 * Order: typical, 0, -0, min normal, max, -max, nan, -nan, inf, -inf, smallest
 * denormal, a mid denormal, 1/3.
 */
static const float f32v[13] = {3.14f, 0.0f,     -0.0f,     FLT_MIN,      FLT_MAX, -FLT_MAX,   NAN,
                               -NAN,  INFINITY, -INFINITY, FLT_TRUE_MIN, 1e-40f,  1.0f / 3.0f};
/* Same order; then 1e21 and 1e20 (exponent form), 123456789 (integral, fixed form). */
static const double f64v[16] = {3.14,      0.0,  -0.0,     DBL_MIN,    DBL_MAX,      -DBL_MAX,
                                NAN,       -NAN, INFINITY, -INFINITY,  DBL_TRUE_MIN, 1e-310,
                                1.0 / 3.0, 1e21, 1e20,     123456789.0};

TEST(floats)
{
    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("f32", LVL, KW), EH_F32("f32", f32v[0]),
                       EH_F32("f32", f32v[1]), EH_F32("f32", f32v[2]), EH_F32("f32", f32v[3]),
                       EH_F32("f32", f32v[4]), EH_F32("f32", f32v[5]), EH_F32("f32", f32v[6]),
                       EH_F32("f32", f32v[7]), EH_F32("f32", f32v[8]), EH_F32("f32", f32v[9]),
                       EH_F32("f32", f32v[10]), EH_F32("f32", f32v[11]), EH_F32("f32", f32v[12])));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("f32_slice", LVL, KW),
                          EH_F32_SLICE("f32_slice", f32v, 0), EH_F32_SLICE("f32_slice", f32v, 1),
                          EH_F32_SLICE("f32_slice", f32v, N_OF(f32v))));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("f32_array", LVL, KW),
                          EH_F32_ARRAY("f32_array", f32v, 13), EH_F32_ARRAY("f32_array", f32v, 1)));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("f64", LVL, KW), EH_F64("f64", f64v[0]),
                       EH_F64("f64", f64v[1]), EH_F64("f64", f64v[2]), EH_F64("f64", f64v[3]),
                       EH_F64("f64", f64v[4]), EH_F64("f64", f64v[5]), EH_F64("f64", f64v[6]),
                       EH_F64("f64", f64v[7]), EH_F64("f64", f64v[8]), EH_F64("f64", f64v[9]),
                       EH_F64("f64", f64v[10]), EH_F64("f64", f64v[11]), EH_F64("f64", f64v[12]),
                       EH_F64("f64", f64v[13]), EH_F64("f64", f64v[14]), EH_F64("f64", f64v[15])));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("f64_slice", LVL, KW),
                          EH_F64_SLICE("f64_slice", f64v, 0), EH_F64_SLICE("f64_slice", f64v, 1),
                          EH_F64_SLICE("f64_slice", f64v, N_OF(f64v))));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("f64_array", LVL, KW),
                          EH_F64_ARRAY("f64_array", f64v, 16), EH_F64_ARRAY("f64_array", f64v, 1)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- bool / char */

TEST(bool_char)
{
    /* boolean (§4.3): 0 false, 1 true, anything else the value as int32 */
    static const uint8_t bool8v[4] = {1, 0, 2, 255};
    static const int32_t bool32v[4] = {1, 0, INT32_MIN, -1};
    /* value8 + string8: the byte as Latin-1 (so cp1252's 0x80 would NOT be the euro) */
    static const uint8_t char8v[4] = {'A', 0, 0xE9, 0xFF};
    /* value16 + string_utf: one UTF-16 unit; a lone surrogate is U+FFFD (pinned) */
    static const uint16_t char16v[4] = {'A', 0, 0x20AC, 0xD800};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("bool8", "bool8_slice", "bool8_array", EH_BOOL8, EH_BOOL8_SLICE, EH_BOOL8_ARRAY, bool8v);
    FAMILY("bool32", "bool32_slice", "bool32_array", EH_BOOL32, EH_BOOL32_SLICE, EH_BOOL32_ARRAY,
           bool32v);
    FAMILY("char8_cp1252", "char8_cp1252_slice", "char8_cp1252_array", EH_CHAR8_CP1252,
           EH_CHAR8_CP1252_SLICE, EH_CHAR8_CP1252_ARRAY, char8v);
    FAMILY("char16", "char16_slice", "char16_array", EH_CHAR16, EH_CHAR16_SLICE, EH_CHAR16_ARRAY,
           char16v);
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- counted strings */

/* Bytes that are not UTF-8, each re-read as Latin-1 (§4.8): stray lead/continuation,
 * overlong form, 0xFF, a truncated 3-byte sequence. */
static const char bad_utf8[] = "\xC0\xAF|\xFF|caf\xE9|\xE2\x82!";
/* JSON escapes (§4.1): quote, backslash, '/' and DEL raw, \n \t, 0x01 as \u0001. */
static const char escapes[] = "q\"b\\s/\n\t\x01\x7F";
static const char utf8_ok[] = "\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80"; /* U+00FC U+20AC U+1F600 */
static const char surrogate_utf8[] = "\xED\xA0\x80"; /* U+D800 as 3 bytes: U+FFFD (pinned) */

TEST(str8)
{
    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(
        0, EH_WRITE(
               ft_provider, EH_EVENT("str8", LVL, KW), EH_STR8("str8", "hello", 5),
               EH_STR8("str8", "", 0), EH_STR8("str8", "a\0b", 3), /* counted: the NUL is kept */
               EH_STR8("str8", escapes, strlen(escapes)), EH_STR8("str8", utf8_ok, strlen(utf8_ok)),
               EH_STR8("str8", bad_utf8, strlen(bad_utf8)), EH_STR8("str8", surrogate_utf8, 3)));
    /* cp1252 is rendered as Latin-1 byte by byte */
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str8_cp1252", LVL, KW),
                          EH_STR8_CP1252("str8_cp1252", "caf\xE9", 4),
                          EH_STR8_CP1252("str8_cp1252", "", 0),
                          EH_STR8_CP1252("str8_cp1252", "A\0B", 3),
                          EH_STR8_CP1252("str8_cp1252", "\xC3\xBC", 2)));
    /* _json/_xml: BOM sniffed and stripped; content is just a string. The sniffing
	 * ignores the unit size: bytes FF FE 61 00 are UTF-16LE "a". */
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str8_json", LVL, KW),
                          EH_STR8_JSON("str8_json", "{\"a\":1}", 7),
                          EH_STR8_JSON("str8_json", "\xEF\xBB\xBF{}", 5),
                          EH_STR8_JSON("str8_json", "", 0),
                          EH_STR8_JSON("str8_json", "\xFF\xFE\x61\x00", 4)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str8_xml", LVL, KW),
                          EH_STR8_XML("str8_xml", "<a x=\"1\"/>", 10),
                          EH_STR8_XML("str8_xml", "\xEF\xBB\xBF<b/>", 7),
                          EH_STR8_XML("str8_xml", "", 0)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

TEST(str16_str32)
{
    static const uint16_t hello16[] = {'h', 'e', 'l', 'l', 'o'};
    static const uint16_t nul16[] = {'a', 0, 'b'};
    static const uint16_t pair16[] = {0xD83D, 0xDE00};     /* U+1F600 */
    static const uint16_t lone16[] = {0xD800, 'x'};        /* U+FFFD x */
    static const uint16_t reversed16[] = {0xDE00, 0xD83D}; /* U+FFFD U+FFFD */
    static const uint16_t json16[] = {'{', '"', 'a', '"', ':', '1', '}'};
    static const uint16_t bom_json16[] = {0xFEFF, '{', '}'}; /* bytes FF FE: host BOM */
    /* bytes FE FF 00 41 00 42: a byte-swapped BOM, so the rest is big-endian "AB" */
    static const uint16_t xbom_json16[] = {0xFFFE, 0x4100, 0x4200};
    static const uint16_t xml16[] = {'<', 'a', '/', '>'};
    static const uint16_t bom_xml16[] = {0xFEFF, '<', 'b', '/', '>'};
    static const uint32_t hello32[] = {'h', 'e', 'l', 'l', 'o'};
    static const uint32_t nul32[] = {'a', 0, 'b'};
    static const uint32_t astral32[] = {0x1F600, 0x10FFFF};  /* both valid */
    static const uint32_t bad32[] = {0x110000, 0xD800, 'z'}; /* U+FFFD U+FFFD z */
    static const uint32_t json32[] = {'{', '"', 'a', '"', ':', '1', '}'};
    static const uint32_t bom_json32[] = {0xFEFF, '{', '}'}; /* bytes FF FE 00 00 */
    static const uint32_t xml32[] = {'<', 'a', '/', '>'};
    static const uint32_t bom_xml32[] = {0xFEFF, '<', 'b', '/', '>'};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str16", LVL, KW), EH_STR16("str16", hello16, 5),
                          EH_STR16("str16", hello16, 0), EH_STR16("str16", nul16, 3),
                          EH_STR16("str16", pair16, 2), EH_STR16("str16", lone16, 2),
                          EH_STR16("str16", reversed16, 2)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str16_json", LVL, KW),
                          EH_STR16_JSON("str16_json", json16, 7),
                          EH_STR16_JSON("str16_json", bom_json16, 3),
                          EH_STR16_JSON("str16_json", xbom_json16, 3),
                          EH_STR16_JSON("str16_json", json16, 0)));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("str16_xml", LVL, KW),
                       EH_STR16_XML("str16_xml", xml16, 4), EH_STR16_XML("str16_xml", bom_xml16, 5),
                       EH_STR16_XML("str16_xml", xml16, 0)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str32", LVL, KW), EH_STR32("str32", hello32, 5),
                          EH_STR32("str32", hello32, 0), EH_STR32("str32", nul32, 3),
                          EH_STR32("str32", astral32, 2), EH_STR32("str32", bad32, 3)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str32_json", LVL, KW),
                          EH_STR32_JSON("str32_json", json32, 7),
                          EH_STR32_JSON("str32_json", bom_json32, 3),
                          EH_STR32_JSON("str32_json", json32, 0)));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("str32_xml", LVL, KW),
                       EH_STR32_XML("str32_xml", xml32, 4), EH_STR32_XML("str32_xml", bom_xml32, 5),
                       EH_STR32_XML("str32_xml", xml32, 0)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/*
 * Maximum-length counted strings. A length16 string may hold 65535 units, but the whole
 * event must stay <= 65535 bytes, so the longest string is what is left after the header,
 * the metadata and a "size" field. Each "T.maxlen" event starts with "size" (u32: the
 * event's bytes after the user_events write index), which golden/field_types.json's
 * directive uses to declare that a live kernel drops it (perf delivers <= 8184 bytes).
 * Event "str8.maxlen" = fields "size", "str8":
 *   header 8 + extension header 4 + "str8.maxlen\0" 12 + "size\0" 5 + encoding 1
 *   + "str8\0" 5 + encoding 1 + size value 4 + u16 length 2 = 42 bytes,
 *   so 65535 - 42 = 65493 bytes of text (event: 65535 bytes); 65494 -> E2BIG.
 * "str16.maxlen": 8 + 4 + 13 + 6 + 7 + 4 + 2 = 44 -> (65535 - 44) / 2 = 32745 units
 *   (event: 65534 bytes; one unit more is 65536).
 * "str32.maxlen": 44 too -> (65535 - 44) / 4 = 16372 units (event: 65532 bytes).
 * One unit more is refused with E2BIG and nothing is written.
 * Text: str8 = "x" repeated; str16 = "y" repeated; str32 = "z" repeated.
 * On ETW (and the TraceLogging capture standing in for it) str8.maxlen and str16.maxlen
 * are over EH_TL_EVENT_MAX (tl_encode.h) and refused with E2BIG too; str32.maxlen is
 * not (char32 travels as UTF-16 there: 32744 bytes). golden/field_types.json declares
 * those two dropped for "etw".
 */
#define STR8_MAX  65493
#define STR16_MAX 32745
#define STR32_MAX 16372

TEST(str_maxlen)
{
    char *s8 = malloc(STR8_MAX + 1);
    uint16_t *s16 = malloc((STR16_MAX + 1) * sizeof(uint16_t));
    uint32_t *s32 = malloc((STR32_MAX + 1) * sizeof(uint32_t));
    off_t before;
    int tl;

    ASSERT_NE(NULL, s8);
    ASSERT_NE(NULL, s16);
    ASSERT_NE(NULL, s32);
    memset(s8, 'x', STR8_MAX + 1);
    for (int i = 0; i <= STR16_MAX; i++)
        s16[i] = 'y';
    for (int i = 0; i <= STR32_MAX; i++)
        s32[i] = 'z';
    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    tl = case_backend_is_tracelogging();

    before = case_capture_size();
    ASSERT_EQ(tl ? E2BIG : 0, EH_WRITE(ft_provider, EH_EVENT("str8.maxlen", LVL, KW),
                                       EH_U32("size", 65535), EH_STR8("str8", s8, STR8_MAX)));
    if (tl)
        ASSERT_EQ(before, case_capture_size());
    before = case_capture_size();
    ASSERT_EQ(E2BIG, EH_WRITE(ft_provider, EH_EVENT("str8.maxlen", LVL, KW), EH_U32("size", 65536),
                              EH_STR8("str8", s8, STR8_MAX + 1)));
    ASSERT_EQ(before, case_capture_size());

    before = case_capture_size();
    ASSERT_EQ(tl ? E2BIG : 0, EH_WRITE(ft_provider, EH_EVENT("str16.maxlen", LVL, KW),
                                       EH_U32("size", 65534), EH_STR16("str16", s16, STR16_MAX)));
    if (tl)
        ASSERT_EQ(before, case_capture_size());
    before = case_capture_size();
    ASSERT_EQ(E2BIG, EH_WRITE(ft_provider, EH_EVENT("str16.maxlen", LVL, KW), EH_U32("size", 65536),
                              EH_STR16("str16", s16, STR16_MAX + 1)));
    ASSERT_EQ(before, case_capture_size());

    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("str32.maxlen", LVL, KW), EH_U32("size", 65532),
                          EH_STR32("str32", s32, STR32_MAX)));
    before = case_capture_size();
    ASSERT_EQ(E2BIG, EH_WRITE(ft_provider, EH_EVENT("str32.maxlen", LVL, KW), EH_U32("size", 65536),
                              EH_STR32("str32", s32, STR32_MAX + 1)));
    ASSERT_EQ(before, case_capture_size());

    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
    free(s8);
    free(s16);
    free(s32);
}

/* ---------------------------------------------------------------- zero-terminated strings */

/* The value stops at the first NUL (write_event! footnote 1): "ab\0cd" is "ab". */
TEST(cstr)
{
    static const uint16_t hello16[] = {'h', 'e', 'l', 'l', 'o', 0};
    static const uint16_t empty16[] = {0};
    static const uint16_t nul16[] = {'a', 'b', 0, 'c', 'd', 0};
    static const uint16_t lone16[] = {0xD800, 'x', 0};
    static const uint16_t json16[] = {'{', '}', 0};
    static const uint16_t bom_json16[] = {0xFEFF, '[', ']', 0};
    static const uint16_t xml16[] = {'<', 'a', '/', '>', 0};
    static const uint16_t bom_xml16[] = {0xFEFF, '<', 'b', '/', '>', 0};
    static const uint32_t hello32[] = {'h', 'e', 'l', 'l', 'o', 0};
    static const uint32_t empty32[] = {0};
    static const uint32_t nul32[] = {'a', 'b', 0, 'c', 'd', 0};
    static const uint32_t bad32[] = {0x110000, 0x1F600, 0};
    static const uint32_t json32[] = {'{', '}', 0};
    static const uint32_t bom_json32[] = {0xFEFF, '[', ']', 0};
    static const uint32_t xml32[] = {'<', 'a', '/', '>', 0};
    static const uint32_t bom_xml32[] = {0xFEFF, '<', 'b', '/', '>', 0};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr8", LVL, KW), EH_CSTR8("cstr8", "hello"),
                          EH_CSTR8("cstr8", ""), EH_CSTR8("cstr8", "ab\0cd"),
                          EH_CSTR8("cstr8", escapes), EH_CSTR8("cstr8", utf8_ok),
                          EH_CSTR8("cstr8", bad_utf8)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr8_cp1252", LVL, KW),
                          EH_CSTR8_CP1252("cstr8_cp1252", "caf\xE9"),
                          EH_CSTR8_CP1252("cstr8_cp1252", ""),
                          EH_CSTR8_CP1252("cstr8_cp1252", "A\0B")));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr8_json", LVL, KW),
                          EH_CSTR8_JSON("cstr8_json", "{\"a\":1}"),
                          EH_CSTR8_JSON("cstr8_json", "\xEF\xBB\xBF[]"),
                          EH_CSTR8_JSON("cstr8_json", "")));
    ASSERT_EQ(
        0, EH_WRITE(ft_provider, EH_EVENT("cstr8_xml", LVL, KW), EH_CSTR8_XML("cstr8_xml", "<a/>"),
                    EH_CSTR8_XML("cstr8_xml", "\xEF\xBB\xBF<b/>"), EH_CSTR8_XML("cstr8_xml", "")));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr16", LVL, KW), EH_CSTR16("cstr16", hello16),
                          EH_CSTR16("cstr16", empty16), EH_CSTR16("cstr16", nul16),
                          EH_CSTR16("cstr16", lone16)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr16_json", LVL, KW),
                          EH_CSTR16_JSON("cstr16_json", json16),
                          EH_CSTR16_JSON("cstr16_json", bom_json16),
                          EH_CSTR16_JSON("cstr16_json", empty16)));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("cstr16_xml", LVL, KW),
                       EH_CSTR16_XML("cstr16_xml", xml16), EH_CSTR16_XML("cstr16_xml", bom_xml16),
                       EH_CSTR16_XML("cstr16_xml", empty16)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr32", LVL, KW), EH_CSTR32("cstr32", hello32),
                          EH_CSTR32("cstr32", empty32), EH_CSTR32("cstr32", nul32),
                          EH_CSTR32("cstr32", bad32)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("cstr32_json", LVL, KW),
                          EH_CSTR32_JSON("cstr32_json", json32),
                          EH_CSTR32_JSON("cstr32_json", bom_json32),
                          EH_CSTR32_JSON("cstr32_json", empty32)));
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("cstr32_xml", LVL, KW),
                       EH_CSTR32_XML("cstr32_xml", xml32), EH_CSTR32_XML("cstr32_xml", bom_xml32),
                       EH_CSTR32_XML("cstr32_xml", empty32)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- binary */

/* StringLength16Char8 + HexBytes: lowercase hex pairs, single spaces, empty -> "" (§4.7). */
TEST(binary)
{
    static const uint8_t bytes[5] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
    /* struct sockaddr_in for 127.0.0.1:80 as stored on x86-64: family 2 (LE u16),
	 * port 80 (network order), address, 8 zero bytes */
    static const uint8_t sin[16] = {2, 0, 0, 80, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("binary", LVL, KW), EH_BINARY("binary", bytes, 5),
                          EH_BINARY("binary", bytes, 0), EH_BINARY("binary", "Hello", 5)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("binaryc", LVL, KW),
                          EH_BINARYC("binaryc", bytes, 5), EH_BINARYC("binaryc", bytes, 0)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("socketaddress", LVL, KW),
                          EH_SOCKETADDRESS("socketaddress", sin, 16),
                          EH_SOCKETADDRESS("socketaddress", sin, 0)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("socketaddressc", LVL, KW),
                          EH_SOCKETADDRESSC("socketaddressc", sin, 16),
                          EH_SOCKETADDRESSC("socketaddressc", sin, 0)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- net */

TEST(net)
{
    static const uint8_t ipv4v[4][4] = {
        {127, 0, 0, 1},
        {0, 0, 0, 0},
        {255, 255, 255, 255},
        {192, 168, 1, 254},
    };
    /* inet_ntop(AF_INET6) text, glibc rules (§4.11) */
    static const uint8_t ipv6v[8][16] = {
        {[15] = 1}, /* ::1 */
        {0},        /* :: */
        {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
        {[10] = 0xff, [11] = 0xff, [12] = 1, 2, 3, 4}, /* ::ffff:1.2.3.4 */
        {0xfe, 0x80, [15] = 1},                        /* fe80::1 */
        {0x20, 0x01, 0x0d, 0xb8, [9] = 1, [15] = 1},   /* 2001:db8::1:0:0:1 */
        {[12] = 1, 2, 3, 4},                           /* ::1.2.3.4 */
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
         0xff},
    };
    static const uint8_t ntop[9][16] = {
        {[10] = 0xff, [11] = 0xff},                    /* ::ffff:0.0.0.0 */
        {[15] = 2},                                    /* ::2 */
        {0, 1, [7] = 2, [15] = 3},                     /* 1:0:0:2::3 */
        {0, 1, [7] = 2, [13] = 3, [15] = 4},           /* 1::2:0:0:3:4 (first of equal runs) */
        {0, 1, [5] = 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7}, /* 1:0:2:3:4:5:6:7 (no run of 1) */
        {[8] = 0xff, 0xff, [12] = 1, 2, 3, 4},         /* ::ffff:0:102:304 */
        {[14] = 1, 2},                                 /* ::102 */
        {0, 1},                                        /* 1:: */
        {[5] = 1},                                     /* 0:0:1:: */
    };
    /* port: Value16 + Port is shown big-endian (network order) whatever the event's
	 * order, so the caller passes htons(port), here u16_in_order(port, 1). (These were the
	 * constants 0xBB01 and 0x0100, htons() only on a little-endian machine: the s390x guest
	 * showed 47873 and 256.) */
    const uint16_t portv[4] = {u16_in_order(443, 1), 0, u16_in_order(1, 1), 0xFFFF};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("ipv4", "ipv4_slice", "ipv4_array", EH_IPV4, EH_IPV4_SLICE, EH_IPV4_ARRAY, ipv4v);
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("ipv6", LVL, KW), EH_IPV6("ipv6", ipv6v[0]),
                          EH_IPV6("ipv6", ipv6v[1]), EH_IPV6("ipv6", ipv6v[2]),
                          EH_IPV6("ipv6", ipv6v[3]), EH_IPV6("ipv6", ipv6v[4]),
                          EH_IPV6("ipv6", ipv6v[5]), EH_IPV6("ipv6", ipv6v[6]),
                          EH_IPV6("ipv6", ipv6v[7])));
    /* the corner cases of the "::" and dotted-quad rules (checked against glibc) */
    ASSERT_EQ(0,
              EH_WRITE(ft_provider, EH_EVENT("ipv6.ntop", LVL, KW), EH_IPV6("ipv6", ntop[0]),
                       EH_IPV6("ipv6", ntop[1]), EH_IPV6("ipv6", ntop[2]), EH_IPV6("ipv6", ntop[3]),
                       EH_IPV6("ipv6", ntop[4]), EH_IPV6("ipv6", ntop[5]), EH_IPV6("ipv6", ntop[6]),
                       EH_IPV6("ipv6", ntop[7]), EH_IPV6("ipv6", ntop[8])));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("ipv6c", LVL, KW), EH_IPV6C("ipv6c", ipv6v[0]),
                          EH_IPV6C("ipv6c", ipv6v[2]), EH_IPV6C("ipv6c", ipv6v[3])));
    FAMILY("port", "port_slice", "port_array", EH_PORT, EH_PORT_SLICE, EH_PORT_ARRAY, portv);
    /* 80 as a little-endian machine holds it, i.e. a caller that forgot htons() on x86-64
     * or arm64, shows as 20480; u16_in_order(80, 0) keeps those bytes on a big-endian producer, where
     * the same mistake would not show at all. */
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("port.hostorder", LVL, KW),
                          EH_PORT("port", u16_in_order(80, 0))));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- time */

/* "YYYY-MM-DDTHH:MM:SS", no "Z" (§4.6); ehconf formats every int64 (pinned). */
TEST(time_types)
{
    static const int64_t t64[] = {
        1700000000, /* 2023-11-14T22:13:20 */
        0,
        -1, /* the epoch and one second before */
        INT32_MIN,
        INT32_MAX,    /* 1901-12-13T20:45:52, 2038-01-19T03:14:07 */
        253402300799, /* 9999-12-31T23:59:59 */
        253402300800, /* 10000-01-01T00:00:00 */
        -62135596800, /* 0001-01-01T00:00:00 */
        -62167219200, /* 0000-01-01T00:00:00 */
        -62167219201, /* -0001-12-31T23:59:59 */
        -11644473600, /* 1601-01-01T00:00:00 (Windows FILETIME 0) */
        910692730085, /* 30828-09-14T02:48:05 (the largest FILETIME as int64; ETW clamps) */
        INT64_MAX,
        INT64_MIN,
    };

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("time32", LVL, KW), EH_TIME32("time32", 1700000000),
                          EH_TIME32("time32", 0), EH_TIME32("time32", -1),
                          EH_TIME32("time32", INT32_MIN), EH_TIME32("time32", INT32_MAX)));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("time64", LVL, KW), EH_TIME64("time64", t64[0]),
                          EH_TIME64("time64", t64[1]), EH_TIME64("time64", t64[2]),
                          EH_TIME64("time64", t64[3]), EH_TIME64("time64", t64[4]),
                          EH_TIME64("time64", t64[5]), EH_TIME64("time64", t64[6]),
                          EH_TIME64("time64", t64[7]), EH_TIME64("time64", t64[8]),
                          EH_TIME64("time64", t64[9]), EH_TIME64("time64", t64[10]),
                          EH_TIME64("time64", t64[11]), EH_TIME64("time64", t64[12]),
                          EH_TIME64("time64", t64[13])));
    /* systemtime: a time_t, written as Value64 + Time */
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("systemtime", LVL, KW),
                          EH_SYSTEMTIME("systemtime", (time_t)1700000000),
                          EH_SYSTEMTIME("systemtime", (time_t)0)));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- guid */

/* 16 bytes in stored order, lowercase 8-4-4-4-12, no GUID byte swapping (§4.10). */
TEST(guid)
{
    static const uint8_t guidv[4][16] = {
        {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
        {0},
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
         0xff},
        {0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30,
         0xc8},
    };

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("guid", "guid_slice", "guid_array", EH_GUID, EH_GUID_SLICE, EH_GUID_ARRAY, guidv);
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- errno / pid / tid / pointer */

TEST(errno_pid_pointer)
{
    /* errno (§4.5): "NAME(n)" for known values, "ERRNO(n)" (signed) otherwise */
    static const int32_t errnov[4] = {2, 0, INT32_MIN, 133};
    /* pid/tid: Value32 shown signed */
    static const uint32_t pidv[4] = {1234, 0, 0x80000000u, 0xFFFFFFFFu};
    static const uintptr_t pointerv[4] = {0x7FFC12345678u, 0, 1, UINTPTR_MAX};
    static const uintptr_t codepointerv[4] = {0x401000, 0, 1, UINTPTR_MAX};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    FAMILY("errno", "errno_slice", "errno_array", EH_ERRNO, EH_ERRNO_SLICE, EH_ERRNO_ARRAY, errnov);
    /* more names: EPERM, the pinned EOPNOTSUPP, the gaps 41 and 58, out of table */
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("errno.names", LVL, KW), EH_ERRNO("errno", 1),
                          EH_ERRNO("errno", 95), EH_ERRNO("errno", 41), EH_ERRNO("errno", 58),
                          EH_ERRNO("errno", 134), EH_ERRNO("errno", -1)));
    FAMILY("pid", "pid_slice", "pid_array", EH_PID, EH_PID_SLICE, EH_PID_ARRAY, pidv);
    FAMILY("tid", "tid_slice", "tid_array", EH_TID, EH_TID_SLICE, EH_TID_ARRAY, pidv);
    FAMILY("pointer", "pointer_slice", "pointer_array", EH_POINTER, EH_POINTER_SLICE,
           EH_POINTER_ARRAY, pointerv);
    FAMILY("codepointer", "codepointer_slice", "codepointer_array", EH_CODEPOINTER,
           EH_CODEPOINTER_SLICE, EH_CODEPOINTER_ARRAY, codepointerv);
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/* ---------------------------------------------------------------- tag / format */

/*
 * Field tag: JSON member name "name;tag=0xHEX" (uppercase, §3); tag 0 adds nothing.
 * Format override: the field is rendered with the given format; a format the
 * encoding does not support falls back to the encoding's default (§4.2).
 */
TEST(tag_format)
{
    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(
        0, EH_WRITE(ft_provider, EH_EVENT("tag_format", LVL, KW), EH_U32("u32", 42, EH_TAG(0x1234)),
                    EH_U32("u32", 42, EH_FORMAT(EH_FMT_HEX_INT)),
                    EH_I32("i32", -1, EH_TAG(0xBEEF), EH_FORMAT(EH_FMT_HEX_INT)),
                    EH_U16("u16", 1, EH_TAG(0xFFFF)), EH_U8("u8", 1, EH_TAG(0)),
                    EH_U8("u8", 7, EH_FORMAT(EH_FMT_FLOAT)),
                    EH_U32("u32", 0x40490FDB, EH_FORMAT(EH_FMT_FLOAT)),
                    EH_STR8("str8", "{}", 2, EH_FORMAT(EH_FMT_STRING_JSON), EH_TAG(7)),
                    EH_U8_SLICE("u8_slice", (const uint8_t *)"Hi", 2, EH_FORMAT(EH_FMT_STRING8))));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/*
 * More format overrides, one field per rule of §4.2 and §4.12 (a fixed format on a
 * counted string is rendered like the fixed encoding when the length matches, null when
 * the length is 0, and as the string's default otherwise). Field names are the type of
 * the macro used; the comment gives the expected JSON value.
 */
TEST(format_override)
{
    static const uint8_t g[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t v4[4] = {1, 2, 3, 4};
    static const uint8_t v6[16] = {[15] = 1};
    /* Hex bytes show a string as it lies in memory: little-endian UTF-16 on every producer. */
    const uint16_t hi16[] = {u16_in_order('h', 0), u16_in_order('i', 0), 0};
    static const uint8_t v6b[16] = {0xfe, 0x80, [15] = 2};
    /* Counted strings read as numbers are read in the event's byte order (the producer's):
     * the bytes of each number as this machine holds it, so every producer shows the same
     * value (they were little-endian literals, which the s390x guest read as 16777216 ...). */
    const uint32_t one = 1, enoent = 2, minus2 = (uint32_t)-2;
    const uint16_t x1234 = 0x1234;
    const float f1_5 = 1.5f;
    uint8_t one_b[4], enoent_b[4], minus2_b[4], x1234_b[2], f15[4];

    memcpy(one_b, &one, 4);
    memcpy(enoent_b, &enoent, 4);
    memcpy(minus2_b, &minus2, 4);
    memcpy(x1234_b, &x1234, 2);
    memcpy(f15, &f1_5, 4);

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(
        0,
        EH_WRITE(
            ft_provider, EH_EVENT("format_override", LVL, KW),
            EH_U16("u16", 60000, EH_FORMAT(EH_FMT_BOOLEAN)),            /* 60000 */
            EH_U32("u32", 0x1F600, EH_FORMAT(EH_FMT_STRING_UTF)),       /* "U+1F600" */
            EH_I64("i64", -5, EH_FORMAT(EH_FMT_PID)),                   /* 18446744073709551611 */
            EH_GUID("guid", g, EH_FORMAT(EH_FMT_DEFAULT)),              /* "01 02 ... 10" */
            EH_U8("u8", 0xAB, EH_FORMAT(EH_FMT_HEX_BYTES)),             /* "ab" */
            EH_U8("u8", 0xFF, EH_FORMAT(EH_FMT_SIGNED_INT)),            /* -1 */
            EH_U32("u32", 7, EH_FORMAT(99)),                            /* 7 */
            EH_U16("u16", 7, EH_FORMAT(EH_FMT_UUID)),                   /* 7 */
            EH_IPV4("ipv4", v4, EH_FORMAT(EH_FMT_IP_ADDRESS_OBSOLETE)), /* "1.2.3.4" */
            EH_IPV6("ipv6", v6, EH_FORMAT(EH_FMT_IP_ADDRESS_OBSOLETE)), /* "::1" */
            EH_U64("u64", 0x400921FB54442D18ULL, EH_FORMAT(EH_FMT_FLOAT)), /* 3.141592653589793 */
            EH_U32("u32", 80, EH_FORMAT(EH_FMT_PORT)),              /* 80: port is value16 only */
            EH_CSTR16("cstr16", hi16, EH_FORMAT(EH_FMT_HEX_BYTES)), /* "68 00 69 00" */
            EH_STR8("str8", one_b, 4, EH_FORMAT(EH_FMT_UNSIGNED_INT)),            /* 1 */
            EH_STR8("str8", "", 0, EH_FORMAT(EH_FMT_UNSIGNED_INT)),               /* null */
            EH_STR8("str8", "abc", 3, EH_FORMAT(EH_FMT_UNSIGNED_INT)),            /* "abc" */
            EH_STR8("str8", "\xFF\xFF\xFF\xFF", 4, EH_FORMAT(EH_FMT_SIGNED_INT)), /* -1 */
            EH_STR8("str8", x1234_b, 2, EH_FORMAT(EH_FMT_HEX_INT)),               /* "0x1234" */
            EH_STR8("str8", "\x01", 1, EH_FORMAT(EH_FMT_BOOLEAN)),                /* true */
            EH_STR8("str8", f15, 4, EH_FORMAT(EH_FMT_FLOAT)),                     /* 1.5 */
            EH_STR8("str8", "\x0A\x00\x00\x01", 4, EH_FORMAT(EH_FMT_IP_ADDRESS)), /* "10.0.0.1" */
            EH_STR8("str8", v6b, 16, EH_FORMAT(EH_FMT_IP_ADDRESS)),               /* "fe80::2" */
            EH_STR8("str8", "\x00\x50", 2, EH_FORMAT(EH_FMT_PORT)),               /* 80 */
            EH_STR8("str8", "\0\0\0\0", 4, EH_FORMAT(EH_FMT_TIME)), /* "1970-01-01T00:00:00" */
            EH_STR8("str8", enoent_b, 4, EH_FORMAT(EH_FMT_ERRNO)),  /* "ENOENT(2)" */
            EH_STR8("str8", minus2_b, 4, EH_FORMAT(EH_FMT_PID)),    /* -2 */
            EH_STR8("str8", g, 16,
                    EH_FORMAT(EH_FMT_UUID)), /* "01020304-0506-0708-090a-0b0c0d0e0f10" */
            EH_STR8("str8", "\xEF\xBB\xBFok", 5, EH_FORMAT(EH_FMT_STRING_UTF_BOM)), /* "ok" */
            EH_STR8("str8", "\xF0", 1, EH_FORMAT(EH_FMT_FLOAT)), /* "\u00f0" as UTF-8 */
            EH_BINARY_L16("binary", "\xF0\xF1", 2, EH_FORMAT(EH_FMT_DEFAULT)), /* "f0 f1" */
            EH_BINARY_L16("binary", "\xF0\xF1", 2, EH_FORMAT(EH_FMT_STRING8)), /* "\u00f0\u00f1" */
            EH_BINARY_L16("binary", "\xF0\xF1\xF2", 3,
                          EH_FORMAT(EH_FMT_UNSIGNED_INT)),            /* "f0 f1 f2" */
            EH_BINARY_L16("binary", "", 0, EH_FORMAT(EH_FMT_UUID)))); /* null */
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

/*
 * A tag on a constant-length array, in an event of its own (the last one), so that an
 * implementation without constant-length arrays loses this event alone, not the nine
 * tagged and formatted scalars of "tag_format".
 */
TEST(tag_format_array)
{
    static const uint16_t u16v[2] = {1, 2};

    ASSERT_EQ(0, eh_provider_register(&ft_provider));
    ASSERT_EQ(0, EH_WRITE(ft_provider, EH_EVENT("tag_format_array", LVL, KW),
                          EH_U16_ARRAY("u16_array", u16v, 2, EH_TAG(0x7B))));
    EXPECT_EQ(0, eh_provider_unregister(&ft_provider));
}

TEST_HARNESS_MAIN
