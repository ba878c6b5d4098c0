/* SPDX-License-Identifier: MIT */
/*
 * Every field type of the write_event! table (Documentation/eventheader-wire.md §4)
 * exists as an EH_ macro with that table's encoding and format. The rows below
 * transcribe the table: expected encoding byte as it appears in metadata (0x80 =
 * a format byte follows, 0x40 = variable-length array), format, element/unit size.
 * A second part writes one event with a constant-length array of every scalar type
 * and checks its metadata bytes.
 */
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

/* The metadata encoding byte of an item, as meta.c will emit it. */
static uint8_t meta_encoding(const eh_item *it)
{
    uint8_t fmt = it->format_override ? (uint8_t)(it->format_override & 0x7f) : it->format;
    return (uint8_t)(it->encoding | (fmt || it->tag ? 0x80 : 0));
}

#define ENC(x) (x)

static void test_table(void)
{
    static const uint8_t buf[64];
    const void *vbuf = buf; /* any element type */
    static const char z8[] = "ab";
    static const uint16_t z16[] = {'a', 'b', 0};
    static const uint32_t z32[] = {'a', 'b', 0};
    const struct {
        eh_item it;
        uint8_t enc, fmt;
        unsigned size;
        const char *what;
    } rows[] = {
        {EH_BINARY("f", "ab", 2), ENC(0x8a), 9, 1, "binary: StringLength16Char8 + HexBytes"},
        {EH_BINARYC("f", "ab", 2), ENC(0x8a), 9, 1, "binaryc: StringLength16Char8 + HexBytes"},
        {EH_BOOL8("f", 1), ENC(0x82), 7, 1, "bool8: Value8 + Boolean"},
        {EH_BOOL8_SLICE("f", vbuf, 2), ENC(0xc2), 7, 1, "bool8_slice: Value8 + Boolean"},
        {EH_BOOL32("f", 1), ENC(0x84), 7, 4, "bool32: Value32 + Boolean"},
        {EH_BOOL32_SLICE("f", vbuf, 2), ENC(0xc4), 7, 4, "bool32_slice: Value32 + Boolean"},
        {EH_CHAR8_CP1252("f", 1), ENC(0x82), 10, 1, "char8_cp1252: Value8 + String8"},
        {EH_CHAR8_CP1252_SLICE("f", vbuf, 2), ENC(0xc2), 10, 1,
         "char8_cp1252_slice: Value8 + String8"},
        {EH_CHAR16("f", 1), ENC(0x83), 11, 2, "char16: Value16 + StringUtf"},
        {EH_CHAR16_SLICE("f", vbuf, 2), ENC(0xc3), 11, 2, "char16_slice: Value16 + StringUtf"},
        {EH_CODEPOINTER("f", 1), ENC(0x85), 3, 8, "codepointer: ValueSize + HexInt"},
        {EH_CODEPOINTER_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8,
         "codepointer_slice: ValueSize + HexInt"},
        {EH_CSTR8("f", z8), ENC(0x07), 0, 1, "cstr8: ZStringChar8"},
        {EH_CSTR8_CP1252("f", z8), ENC(0x87), 10, 1, "cstr8_cp1252: ZStringChar8 + String8"},
        {EH_CSTR8_JSON("f", z8), ENC(0x87), 14, 1, "cstr8_json: ZStringChar8 + StringJson"},
        {EH_CSTR8_XML("f", z8), ENC(0x87), 13, 1, "cstr8_xml: ZStringChar8 + StringXml"},
        {EH_CSTR16("f", z16), ENC(0x08), 0, 2, "cstr16: ZStringChar16"},
        {EH_CSTR16_JSON("f", z16), ENC(0x88), 14, 2, "cstr16_json: ZStringChar16 + StringJson"},
        {EH_CSTR16_XML("f", z16), ENC(0x88), 13, 2, "cstr16_xml: ZStringChar16 + StringXml"},
        {EH_CSTR32("f", z32), ENC(0x09), 0, 4, "cstr32: ZStringChar32"},
        {EH_CSTR32_JSON("f", z32), ENC(0x89), 14, 4, "cstr32_json: ZStringChar32 + StringJson"},
        {EH_CSTR32_XML("f", z32), ENC(0x89), 13, 4, "cstr32_xml: ZStringChar32 + StringXml"},
        {EH_ERRNO("f", 1), ENC(0x84), 4, 4, "errno: Value32 + Errno"},
        {EH_ERRNO_SLICE("f", vbuf, 2), ENC(0xc4), 4, 4, "errno_slice: Value32 + Errno"},
        {EH_F32("f", 1), ENC(0x84), 8, 4, "f32: Value32 + Float"},
        {EH_F32_SLICE("f", vbuf, 2), ENC(0xc4), 8, 4, "f32_slice: Value32 + Float"},
        {EH_F64("f", 1), ENC(0x85), 8, 8, "f64: Value64 + Float"},
        {EH_F64_SLICE("f", vbuf, 2), ENC(0xc5), 8, 8, "f64_slice: Value64 + Float"},
        {EH_GUID("f", buf), ENC(0x86), 15, 16, "guid: Value128 + Uuid"},
        {EH_GUID_SLICE("f", vbuf, 2), ENC(0xc6), 15, 16, "guid_slice: Value128 + Uuid"},
        {EH_HRESULT("f", 1), ENC(0x84), 3, 4, "hresult: Value32 + HexInt"},
        {EH_HRESULT_SLICE("f", vbuf, 2), ENC(0xc4), 3, 4, "hresult_slice: Value32 + HexInt"},
        {EH_I8("f", 1), ENC(0x82), 2, 1, "i8: Value8 + SignedInt"},
        {EH_I8_SLICE("f", vbuf, 2), ENC(0xc2), 2, 1, "i8_slice: Value8 + SignedInt"},
        {EH_I8_HEX("f", 1), ENC(0x82), 3, 1, "i8_hex: Value8 + HexInt"},
        {EH_I8_HEX_SLICE("f", vbuf, 2), ENC(0xc2), 3, 1, "i8_hex_slice: Value8 + HexInt"},
        {EH_I16("f", 1), ENC(0x83), 2, 2, "i16: Value16 + SignedInt"},
        {EH_I16_SLICE("f", vbuf, 2), ENC(0xc3), 2, 2, "i16_slice: Value16 + SignedInt"},
        {EH_I16_HEX("f", 1), ENC(0x83), 3, 2, "i16_hex: Value16 + HexInt"},
        {EH_I16_HEX_SLICE("f", vbuf, 2), ENC(0xc3), 3, 2, "i16_hex_slice: Value16 + HexInt"},
        {EH_I32("f", 1), ENC(0x84), 2, 4, "i32: Value32 + SignedInt"},
        {EH_I32_SLICE("f", vbuf, 2), ENC(0xc4), 2, 4, "i32_slice: Value32 + SignedInt"},
        {EH_I32_HEX("f", 1), ENC(0x84), 3, 4, "i32_hex: Value32 + HexInt"},
        {EH_I32_HEX_SLICE("f", vbuf, 2), ENC(0xc4), 3, 4, "i32_hex_slice: Value32 + HexInt"},
        {EH_I64("f", 1), ENC(0x85), 2, 8, "i64: Value64 + SignedInt"},
        {EH_I64_SLICE("f", vbuf, 2), ENC(0xc5), 2, 8, "i64_slice: Value64 + SignedInt"},
        {EH_I64_HEX("f", 1), ENC(0x85), 3, 8, "i64_hex: Value64 + HexInt"},
        {EH_I64_HEX_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8, "i64_hex_slice: Value64 + HexInt"},
        {EH_IPV4("f", buf), ENC(0x84), 17, 4, "ipv4: Value32 + IPv4"},
        {EH_IPV4_SLICE("f", vbuf, 2), ENC(0xc4), 17, 4, "ipv4_slice: Value32 + IPv4"},
        {EH_IPV6("f", buf), ENC(0x86), 17, 16, "ipv6: Value128 + IPv6"},
        {EH_IPV6C("f", buf), ENC(0x86), 17, 16, "ipv6c: Value128 + IPv6"},
        {EH_ISIZE("f", 1), ENC(0x85), 2, 8, "isize: ValueSize + SignedInt"},
        {EH_ISIZE_SLICE("f", vbuf, 2), ENC(0xc5), 2, 8, "isize_slice: ValueSize + SignedInt"},
        {EH_ISIZE_HEX("f", 1), ENC(0x85), 3, 8, "isize_hex: ValueSize + HexInt"},
        {EH_ISIZE_HEX_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8, "isize_hex_slice: ValueSize + HexInt"},
        {EH_PID("f", 1), ENC(0x84), 5, 4, "pid: Value32 + Pid"},
        {EH_PID_SLICE("f", vbuf, 2), ENC(0xc4), 5, 4, "pid_slice: Value32 + Pid"},
        {EH_POINTER("f", 1), ENC(0x85), 3, 8, "pointer: ValueSize + HexInt"},
        {EH_POINTER_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8, "pointer_slice: ValueSize + HexInt"},
        {EH_PORT("f", 1), ENC(0x83), 16, 2, "port: Value16 + Port"},
        {EH_PORT_SLICE("f", vbuf, 2), ENC(0xc3), 16, 2, "port_slice: Value16 + Port"},
        {EH_SOCKETADDRESS("f", "ab", 2), ENC(0x8a), 9, 1,
         "socketaddress: StringLength16Char8 + HexBytes"},
        {EH_SOCKETADDRESSC("f", "ab", 2), ENC(0x8a), 9, 1,
         "socketaddressc: StringLength16Char8 + HexBytes"},
        {EH_STR8("f", "ab", 2), ENC(0x0a), 0, 1, "str8: StringLength16Char8"},
        {EH_STR8_CP1252("f", "ab", 2), ENC(0x8a), 10, 1,
         "str8_cp1252: StringLength16Char8 + String8"},
        {EH_STR8_JSON("f", "ab", 2), ENC(0x8a), 14, 1,
         "str8_json: StringLength16Char8 + StringJson"},
        {EH_STR8_XML("f", "ab", 2), ENC(0x8a), 13, 1, "str8_xml: StringLength16Char8 + StringXml"},
        {EH_STR16("f", u"ab", 2), ENC(0x0b), 0, 2, "str16: StringLength16Char16"},
        {EH_STR16_JSON("f", u"ab", 2), ENC(0x8b), 14, 2,
         "str16_json: StringLength16Char16 + StringJson"},
        {EH_STR16_XML("f", u"ab", 2), ENC(0x8b), 13, 2,
         "str16_xml: StringLength16Char16 + StringXml"},
        {EH_STR32("f", U"ab", 2), ENC(0x0c), 0, 4, "str32: StringLength16Char32"},
        {EH_STR32_JSON("f", U"ab", 2), ENC(0x8c), 14, 4,
         "str32_json: StringLength16Char32 + StringJson"},
        {EH_STR32_XML("f", U"ab", 2), ENC(0x8c), 13, 4,
         "str32_xml: StringLength16Char32 + StringXml"},
        {EH_SYSTEMTIME("f", (time_t)1), ENC(0x85), 6, 8, "systemtime: Value64 + Time"},
        {EH_TID("f", 1), ENC(0x84), 5, 4, "tid: Value32 + Pid"},
        {EH_TID_SLICE("f", vbuf, 2), ENC(0xc4), 5, 4, "tid_slice: Value32 + Pid"},
        {EH_TIME32("f", 1), ENC(0x84), 6, 4, "time32: Value32 + Time"},
        {EH_TIME64("f", 1), ENC(0x85), 6, 8, "time64: Value64 + Time"},
        {EH_U8("f", 1), ENC(0x02), 0, 1, "u8: Value8"},
        {EH_U8_SLICE("f", vbuf, 2), ENC(0x42), 0, 1, "u8_slice: Value8"},
        {EH_U8_HEX("f", 1), ENC(0x82), 3, 1, "u8_hex: Value8 + HexInt"},
        {EH_U8_HEX_SLICE("f", vbuf, 2), ENC(0xc2), 3, 1, "u8_hex_slice: Value8 + HexInt"},
        {EH_U16("f", 1), ENC(0x03), 0, 2, "u16: Value16"},
        {EH_U16_SLICE("f", vbuf, 2), ENC(0x43), 0, 2, "u16_slice: Value16"},
        {EH_U16_HEX("f", 1), ENC(0x83), 3, 2, "u16_hex: Value16 + HexInt"},
        {EH_U16_HEX_SLICE("f", vbuf, 2), ENC(0xc3), 3, 2, "u16_hex_slice: Value16 + HexInt"},
        {EH_U32("f", 1), ENC(0x04), 0, 4, "u32: Value32"},
        {EH_U32_SLICE("f", vbuf, 2), ENC(0x44), 0, 4, "u32_slice: Value32"},
        {EH_U32_HEX("f", 1), ENC(0x84), 3, 4, "u32_hex: Value32 + HexInt"},
        {EH_U32_HEX_SLICE("f", vbuf, 2), ENC(0xc4), 3, 4, "u32_hex_slice: Value32 + HexInt"},
        {EH_U64("f", 1), ENC(0x05), 0, 8, "u64: Value64"},
        {EH_U64_SLICE("f", vbuf, 2), ENC(0x45), 0, 8, "u64_slice: Value64"},
        {EH_U64_HEX("f", 1), ENC(0x85), 3, 8, "u64_hex: Value64 + HexInt"},
        {EH_U64_HEX_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8, "u64_hex_slice: Value64 + HexInt"},
        {EH_USIZE("f", 1), ENC(0x05), 0, 8, "usize: ValueSize"},
        {EH_USIZE_SLICE("f", vbuf, 2), ENC(0x45), 0, 8, "usize_slice: ValueSize"},
        {EH_USIZE_HEX("f", 1), ENC(0x85), 3, 8, "usize_hex: ValueSize + HexInt"},
        {EH_USIZE_HEX_SLICE("f", vbuf, 2), ENC(0xc5), 3, 8, "usize_hex_slice: ValueSize + HexInt"},
    };
    unsigned n = sizeof rows / sizeof rows[0];
    KT_EXPECT_EQ(n, 99); /* every row of the table */
    for (unsigned i = 0; i < n; i++) {
        const eh_item *it = &rows[i].it;
        if (meta_encoding(it) != rows[i].enc || it->format != rows[i].fmt ||
            it->elem_size != rows[i].size) {
            kt_failed_now = 1;
            kt_diag("%s: encoding 0x%02x format %u size %u, want 0x%02x %u %u", rows[i].what,
                    meta_encoding(it), it->format, it->elem_size, rows[i].enc, rows[i].fmt,
                    rows[i].size);
        }
    }
}

EH_DEFINE_PROVIDER(ft, "TestFieldTypes");

/* Constant-length arrays: carray flag 0x20 and the u16 count after the format. */
static void test_carrays(void)
{
    static const uint8_t b[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    const void *vb = b;
    cap_setup("fieldtypes");
    KT_EXPECT_EQ(eh_provider_register(&ft), 0);
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(ft, EH_EVENT("CA", 5, 1), EH_U8_ARRAY("a", b, 3),
                          EH_I16_HEX_ARRAY("b", vb, 2), EH_F64_ARRAY("c", vb, 1),
                          EH_GUID_ARRAY("d", b, 2), EH_CHAR8_CP1252_ARRAY("e", b, 1)),
                 0);
    static const uint8_t want[] = {
        0x07, 0,   0,    0,    0,  0,    0,  5,  32, 0,  1,  0, /* 3 + 5 + 4 x 6 */
        'C',  'A', 0,    'a',  0,  0x22, 3,  0,                 /* Value8 | CArray, 3 */
        'b',  0,   0xa3, 0x03, 2,  0,                           /* Value16 | CArray + HexInt, 2 */
        'c',  0,   0xa5, 0x08, 1,  0,                           /* Value64 | CArray + Float, 1 */
        'd',  0,   0xa6, 0x0f, 2,  0,                           /* Value128 | CArray + Uuid, 2 */
        'e',  0,   0xa2, 0x0a, 1,  0,                           /* Value8 | CArray + String8, 1 */
        1,    2,   3,    1,    2,  3,    4,  1,  2,  3,  4,  5,  6,  7,  8,  1,
        2,    3,   4,    5,    6,  7,    8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
        18,   19,  20,   21,   22, 23,   24, 25, 26, 27, 28, 29, 30, 31, 32, 1,
    };
    KT_EXPECT(CAP_ONE(mark, "TestFieldTypes_L5K1", want));
}

/* NULL strings log as empty strings. */
static void test_null_strings(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(ft, EH_EVENT("Null", 5, 1), EH_CSTR8("a", NULL), EH_CSTR16("b", NULL),
                          EH_STR8("c", NULL, 0)),
                 0);
    static const uint8_t want[] = {
        0x07, 0,   0, 0,    0,   0, 0,    5,   14, 0,    1, 0, 'N', 'u', 'l', 'l',
        0,    'a', 0, 0x07, 'b', 0, 0x08, 'c', 0,  0x0a, 0, 0, 0,   0,   0,
    };
    KT_EXPECT(CAP_ONE(mark, "TestFieldTypes_L5K1", want));
}

KT_MAIN(KT_CASE(test_table), KT_CASE(test_carrays), KT_CASE(test_null_strings))
