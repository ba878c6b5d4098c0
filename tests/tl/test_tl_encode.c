/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the TraceLogging encoder (lib/eventheader/src/tl_*.c). Every expected
 * byte below is worked out by hand from Documentation/tracelogging.md (and the
 * EventHeader input bytes from eventheader_wire.h); the comments show the working.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h" /* EH_TL_HINT_*_ */
#include "tl_encode.h"
#include "ktap.h"

static void hex_of(const uint8_t *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
}

/* memmem is not in every C library (mingw): a plain search. */
static int contains(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(hay + i, needle, k) == 0)
            return 1;
    return 0;
}

/* FIPS 180 example vectors: one block, empty, and the 56-byte message whose padding
 * needs a second block. */
static void test_sha1_vectors(void)
{
    uint8_t d[20];
    char h[41];
    eh_tl_sha1("abc", 3, d);
    hex_of(d, 20, h);
    KT_EXPECT_STR(h, "a9993e364706816aba3e25717850c26c9cd0d89d");
    eh_tl_sha1("", 0, d);
    hex_of(d, 20, h);
    KT_EXPECT_STR(h, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    const char *m56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    eh_tl_sha1(m56, strlen(m56), d);
    hex_of(d, 20, h);
    KT_EXPECT_STR(h, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

/* The reference's vector; the name is uppercased before hashing, so case does not matter. */
static void test_guid_from_name(void)
{
    static const char *names[] = {"MyProvider", "MYPROVIDER", "myprovider"};
    for (size_t i = 0; i < 3; i++) {
        uint8_t g[16];
        char text[37];
        KT_EXPECT_EQ(eh_tl_guid_from_name(names[i], strlen(names[i]), g), 0);
        eh_tl_guid_format(g, text);
        KT_EXPECT_STR(text, "b3864c38-4273-58c5-545b-8b3608343471");
        /* Windows layout: Data1 0xb3864c38 stored little-endian first. */
        static const uint8_t want[16] = {0x38, 0x4c, 0x86, 0xb3, 0x73, 0x42, 0xc5, 0x58,
                                         0x54, 0x5b, 0x8b, 0x36, 0x08, 0x34, 0x34, 0x71};
        KT_EXPECT_MEM(g, 16, want, 16);
    }
    uint8_t g[16];
    KT_EXPECT_EQ(eh_tl_guid_from_name("\xff", 1, g), EINVAL);
}

static void expect_tags(uint32_t tags, const uint8_t *want, size_t n)
{
    struct eh_buf_ b = {0};
    eh_tl_put_tags(&b, tags);
    KT_EXPECT_MEM(b.p, b.len, want, n);
    eh_buf_free(&b);
}

/* 28 bits as 7-bit groups, most significant first; stop after the last non-zero group. */
static void test_tags(void)
{
    expect_tags(0, (const uint8_t[]){0x00}, 1);
    expect_tags(0x0FE00000, (const uint8_t[]){0x7F}, 1);             /* group0 = 0x7F */
    expect_tags(0x00200000, (const uint8_t[]){0x01}, 1);             /* group0 = 1 */
    expect_tags(0x00004000, (const uint8_t[]){0x80, 0x01}, 2);       /* group1 = 1 */
    expect_tags(0x00100000, (const uint8_t[]){0x80, 0x40}, 2);       /* bit 20: group1 = 0x40 */
    expect_tags(0x00000080, (const uint8_t[]){0x80, 0x80, 0x01}, 3); /* group2 = 1 */
    expect_tags(0x00000005, (const uint8_t[]){0x80, 0x80, 0x80, 0x05}, 4);
    /* 0x1234 = groups 0, 0, 0x24 (0x1234 >> 7), 0x34 */
    expect_tags(0x1234, (const uint8_t[]){0x80, 0x80, 0xA4, 0x34}, 4);
    expect_tags(0x0FFFFFFF, (const uint8_t[]){0xFF, 0xFF, 0xFF, 0x7F}, 4);
}

static void expect_meta(const uint8_t *eh, size_t eh_len, uint16_t tag, const uint8_t *want,
                        size_t want_len)
{
    struct eh_buf_ b = {0};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, eh, eh_len, tag), 0);
    KT_EXPECT_MEM(b.p, b.len, want, want_len);
    eh_buf_free(&b);
}

/* value32 (enc 0x04) and value32+signed (0x84 0x02) -> U32 (8) and I32 (7). */
static void test_meta_scalar(void)
{
    static const uint8_t eh[] = {'E', 'v', 0, 'a', 0, 0x04, 'b', 0, 0x84, 0x02};
    static const uint8_t want[] = {12,   0, /* size: 2 + 1 + 3 + 3 + 3 */
                                   0x00,    /* no event tags */
                                   'E',  'v', 0, 'a', 0, 0x08, 'b', 0, 0x07};
    expect_meta(eh, sizeof eh, 0, want, sizeof want);
}

/* zstring8 -> CStr8+Utf8 (0x82 0x23), str16 -> Str16 (0x16), zstring8+json -> CStr8+Json
 * (0x82 0x0C), str8+string8 -> Str8 without OutType (0x17). */
static void test_meta_strings(void)
{
    static const uint8_t eh[] = {'S', 0, 's',  0,    0x07, 'w', 0,    0x0B,
                                 'j', 0, 0x87, 0x0E, 'l',  0,   0x8A, 0x0A};
    static const uint8_t want[] = {19, 0,    0x00, 'S', 0,    's',  0,   0x82, 0x23, 'w',
                                   0,  0x16, 'j',  0,   0x82, 0x0C, 'l', 0,    0x17};
    expect_meta(eh, sizeof eh, 0, want, sizeof want);
}

/* struct of 2 (0x81 0x02) -> Struct|chain (0x98), OutType slot = 2; members value8
 * signed -> I8 (3), value16 -> U16 (6); then a top-level value8 -> U8 (4). */
static void test_meta_struct(void)
{
    static const uint8_t eh[] = {'T',  0,    's', 't', 0,    0x81, 0x02, 'x', 0,
                                 0x82, 0x02, 'y', 0,   0x03, 'z',  0,    0x02};
    static const uint8_t want[] = {19,  0, 0x00, 'T', 0, 's',  't', 0, 0x98, 0x02,
                                   'x', 0, 0x03, 'y', 0, 0x06, 'z', 0, 0x04};
    expect_meta(eh, sizeof eh, 0, want, sizeof want);
}

/* varray value16 (0x43) -> U16|vcount (0x46); carray of 3 value128 uuid (0xA6 0x0F,
 * count 3) -> Guid|ccount (0x2F) + u16 3 (no OutType, so no chain bit). */
static void test_meta_arrays(void)
{
    static const uint8_t eh[] = {'A', 0, 'v', 0, 0x43, 'g', 0, 0xA6, 0x0F, 0x03, 0x00};
    static const uint8_t want[] = {13, 0, 0x00, 'A', 0, 'v', 0, 0x46, 'g', 0, 0x2F, 0x03, 0x00};
    expect_meta(eh, sizeof eh, 0, want, sizeof want);
}

/* Event tag 5 -> 80 80 80 05. Field "t": value32 hex with tag 0x1234 (0x84 0x83 34 12)
 * -> Hex32|chain (0x94), OutMeta = chain only (0x80), tags 80 80 A4 34. Struct "s" of 1
 * with tag 1 (0x81 0x81 01 00) -> 0x98, OutMeta 0x81 (count 1 | chain), tags 80 80 80 01. */
static void test_meta_tags(void)
{
    static const uint8_t eh[] = {'G', 0,    't',  0,    0x84, 0x83, 0x34, 0x12, 's',
                                 0,   0x81, 0x81, 0x01, 0x00, 'm',  0,    0x02};
    static const uint8_t want[] = {27,   0,    0x80, 0x80, 0x80, 0x05, 'G',  0,   't',
                                   0,    0x94, 0x80, 0x80, 0x80, 0xA4, 0x34, 's', 0,
                                   0x98, 0x81, 0x80, 0x80, 0x80, 0x01, 'm',  0,   0x04};
    expect_meta(eh, sizeof eh, 5, want, sizeof want);
}

static void test_meta_errors(void)
{
    struct eh_buf_ b = {0};
    static const uint8_t no_name_nul[] = {'E', 'v'};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, no_name_nul, sizeof no_name_nul, 0), EINVAL);
    static const uint8_t bad_enc[] = {'E', 0, 'a', 0, 0x1F};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, bad_enc, sizeof bad_enc, 0), EINVAL);
    static const uint8_t empty_struct[] = {'E', 0, 's', 0, 0x81, 0x00};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, empty_struct, sizeof empty_struct, 0), EINVAL);
    static const uint8_t both_arrays[] = {'E', 0, 'a', 0, 0x62, 1, 0};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, both_arrays, sizeof both_arrays, 0), EINVAL);
    KT_EXPECT_EQ(b.len, 0);
    eh_buf_free(&b);
}

/* Provider metadata: size | name \0 [| u16 19, type 1, group GUID]. */
static void test_provider_meta(void)
{
    struct eh_buf_ b = {0};
    KT_EXPECT_EQ(eh_tl_provider_meta(&b, "Pr", 2, NULL), 0);
    KT_EXPECT_MEM(b.p, b.len, ((const uint8_t[]){5, 0, 'P', 'r', 0}), 5);
    b.len = 0;
    uint8_t g[16];
    for (int i = 0; i < 16; i++)
        g[i] = (uint8_t)(0xA0 + i);
    KT_EXPECT_EQ(eh_tl_provider_meta(&b, "P", 1, g), 0);
    uint8_t want[23] = {23, 0, 'P', 0, 19, 0, 1};
    memcpy(want + 7, g, 16);
    KT_EXPECT_MEM(b.p, b.len, want, sizeof want);
    eh_buf_free(&b);
}

static void test_tp_name(void)
{
    size_t plen, glen;
    uint8_t level;
    uint64_t kw;
    const char *group;
    const char *n1 = "My_Prov_L5K1f";
    KT_EXPECT_EQ(eh_tl_parse_tp_name(n1, strlen(n1), &plen, &level, &kw, &group, &glen), 0);
    KT_EXPECT_EQ(plen, 7);
    KT_EXPECT_EQ(level, 5);
    KT_EXPECT_EQ(kw, 0x1f);
    KT_EXPECT(group == NULL);
    const char *n2 = "P_L4K0Gmygroup";
    KT_EXPECT_EQ(eh_tl_parse_tp_name(n2, strlen(n2), &plen, &level, &kw, &group, &glen), 0);
    KT_EXPECT_EQ(glen, 7);
    KT_EXPECT(group && memcmp(group, "mygroup", 7) == 0);
    KT_EXPECT_EQ(eh_tl_parse_tp_name("P_K1", 4, &plen, &level, &kw, &group, &glen), EINVAL);
    KT_EXPECT_EQ(eh_tl_parse_tp_name("_L1K1", 5, &plen, &level, &kw, &group, &glen), EINVAL);
}

/* Builds an EventHeader event: header (flags 0x07: pointer64, little-endian, extension),
 * one metadata extension, then the payload. */
static size_t make_eh_event(uint8_t *out, uint16_t tag, uint8_t level, const uint8_t *meta,
                            size_t meta_len, const uint8_t *data, size_t data_len)
{
    uint8_t h[12] = {0x07,
                     0,
                     0,
                     0,
                     (uint8_t)tag,
                     (uint8_t)(tag >> 8),
                     0,
                     level,
                     (uint8_t)meta_len,
                     (uint8_t)(meta_len >> 8),
                     0x01,
                     0x00};
    memcpy(out, h, 12);
    memcpy(out + 12, meta, meta_len);
    memcpy(out + 12 + meta_len, data, data_len);
    return 12 + meta_len + data_len;
}

/* Payload transcoding, one field per conversion rule. */
static void test_payload_conversions(void)
{
    static const uint8_t meta[] = {
        'P', 0, 'g',  0,    0x86, 0x0F, /* value128 uuid */
        't', 0, 0x85, 0x06,             /* value64 time */
        'u', 0, 0x84, 0x06,             /* value32 time */
        'w', 0, 0x0B,                   /* string_length16_char16 */
        'c', 0, 0x84, 0x0B,             /* value32 string_utf (char32) */
        'z', 0, 0x09,                   /* zstring_char32 */
        'q', 0, 0x0C,                   /* string_length16_char32 */
        'i', 0, 0x86, 0x11,             /* value128 ip_address */
        'b', 0, 0x83, 0x07,             /* value16 boolean */
        'p', 0, 0x83, 0x10,             /* value16 port */
        'h', 0, 0x8A, 0x09,             /* string_length16_char8 hex_bytes */
        'v', 0, 0x43,                   /* varray value16 */
        's', 0, 0xC1, 0x01,             /* varray of struct of 1 */
        'a', 0, 0x86, 0x11,             /*   value128 ip_address (inside an array) */
    };
    static const uint8_t data[] = {
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE,
        0xFF, 1,    0,    0,    0,    0,    0,    0,    0,                   /* t = 1 */
        0xFF, 0xFF, 0xFF, 0xFF,                                              /* u = -1 */
        2,    0,    'h',  0,    'i',  0,                                     /* 2 units */
        0x00, 0xF6, 0x01, 0x00,                                              /* U+1F600 */
        'A',  0,    0,    0,    0x00, 0x00, 0x01, 0x00, 0,    0,    0,    0, /* "A" U+10000 */
        1,    0,    0xE9, 0,    0,    0,                                     /* 1 unit: U+00E9 */
        0x20, 0x01, 0x0D, 0xB8, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
        1,    1,    0, /* true */
        0x1F, 0x90,    /* port 8080, network order */
        3,    0,    0xAA, 0xBB, 0xCC, 2,    0,    1,    0,    2,    0,    1,    0,    0xFE, 0x80,
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    1,
    };
    static const uint8_t want[] = {
        /* GUID: Data1 (00112233), Data2 (4455), Data3 (6677) reversed; the rest kept */
        0x33,
        0x22,
        0x11,
        0x00,
        0x55,
        0x44,
        0x77,
        0x66,
        0x88,
        0x99,
        0xAA,
        0xBB,
        0xCC,
        0xDD,
        0xEE,
        0xFF,
        /* 1 * 10^7 + 116444736000000000 = 0x019DB1DED5D71680 */
        0x80,
        0x16,
        0xD7,
        0xD5,
        0xDE,
        0xB1,
        0x9D,
        0x01,
        /* -1 * 10^7 + 116444736000000000 = 0x019DB1DED4A5E980 */
        0x80,
        0xE9,
        0xA5,
        0xD4,
        0xDE,
        0xB1,
        0x9D,
        0x01,
        /* Str16: BYTE count 4 */
        4,
        0,
        'h',
        0,
        'i',
        0,
        /* U+1F600 = D83D DE00 as Str16 of 4 bytes */
        4,
        0,
        0x3D,
        0xD8,
        0x00,
        0xDE,
        /* CStr16 "A" D800 DC00 NUL */
        'A',
        0,
        0x00,
        0xD8,
        0x00,
        0xDC,
        0,
        0,
        /* Str16 of U+00E9: 2 bytes */
        2,
        0,
        0xE9,
        0,
        /* Binary+IPv6: u16 length 16 added */
        16,
        0,
        0x20,
        0x01,
        0x0D,
        0xB8,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
        /* Bool32, zero-extended */
        1,
        0,
        0,
        0,
        0x1F,
        0x90,
        3,
        0,
        0xAA,
        0xBB,
        0xCC,
        2,
        0,
        1,
        0,
        2,
        0,
        1,
        0,
        16,
        0,
        0xFE,
        0x80,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        1,
    };
    uint8_t ev[512];
    size_t n = make_eh_event(ev, 0x42, 4, meta, sizeof meta, data, sizeof data);
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, n), 0);
    KT_EXPECT_MEM(tl.data.p, tl.data.len, want, sizeof want);
    KT_EXPECT_EQ(tl.level, 4);
    KT_EXPECT(tl.activity == NULL);
    /* Metadata spot checks: the top-level ip is Binary (0x8E 0x09), the one inside the
     * struct array BinaryC (0x99 0x09); value16 boolean is Bool32 (0x0D); char32 Str16. */
    static const uint8_t ip_top[] = {'i', 0, 0x8E, 0x09}, ip_arr[] = {'a', 0, 0x99, 0x09};
    static const uint8_t b16[] = {'b', 0, 0x0D}, c32[] = {'c', 0, 0x16};
    KT_EXPECT(tl.meta && contains(tl.meta, tl.meta_len, ip_top, 4));
    KT_EXPECT(tl.meta && contains(tl.meta, tl.meta_len, ip_arr, 4));
    KT_EXPECT(tl.meta && contains(tl.meta, tl.meta_len, b16, 3));
    KT_EXPECT(tl.meta && contains(tl.meta, tl.meta_len, c32, 3));
    /* event tag 0x42: groups 0, 0, 0, 0x42 */
    KT_EXPECT_MEM(tl.meta + 2, 4, ((const uint8_t[]){0x80, 0x80, 0x80, 0x42}), 4);

    /* The same definition again is served from the cache: same pointer. */
    const uint8_t *first_meta = tl.meta;
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, n), 0);
    KT_EXPECT(tl.meta == first_meta);
    eh_tl_event_release(&tl);
}

/* Type hints (Documentation/tracelogging.md §5): write_event! types that share their
 * EventHeader form with another type get Microsoft's InType/OutType on TraceLogging.
 *   h value32 hex (84 03)            HRESULT        -> I32 + HResult       87 0F
 *   t value32 pid (84 05)            TID            -> U32 + Tid           88 06
 *   c value64 hex (85 03)            CODEPOINTER    -> Hex64 + CodePointer 95 25
 *   s str8 hex_bytes (8A 09)         SOCKETADDRESS  -> Binary + SockAddr   8E 0A
 *   S str8 hex_bytes (8A 09)         SOCKETADDRESSC -> BinaryC + SockAddr  99 0A
 *   b str8 hex_bytes (8A 09)         BINARYC        -> BinaryC             19
 *   i value128 ip_address (86 11)    IPV6C          -> BinaryC + IPv6      99 09
 *   v varray value32 hex (C4 03)     HRESULT        -> I32 + HResult, vcount C7 0F
 *   x value32 signed (84 02)         HRESULT        -> ignored (not hex): I32 07
 *   n value32 hex (84 03)            none           -> Hex32               14
 * Size: 2 + 1 (tags) + 2 ("E\0") + 4*7 + 3*3 = 42. Without hints the same metadata maps
 * as before (h -> Hex32 14, t -> U32 + Pid 88 05, ...), and the cache keeps the two apart. */
static void test_meta_type_hints(void)
{
    static const uint8_t eh[] = {'E',  0,    'h',  0,    0x84, 0x03, 't',  0,    0x84, 0x05, 'c',
                                 0,    0x85, 0x03, 's',  0,    0x8A, 0x09, 'S',  0,    0x8A, 0x09,
                                 'b',  0,    0x8A, 0x09, 'i',  0,    0x86, 0x11, 'v',  0,    0xC4,
                                 0x03, 'x',  0,    0x84, 0x02, 'n',  0,    0x84, 0x03};
    static const uint8_t hints[] = {EH_TL_HINT_HRESULT_,        EH_TL_HINT_TID_,
                                    EH_TL_HINT_CODEPOINTER_,    EH_TL_HINT_SOCKETADDRESS_,
                                    EH_TL_HINT_SOCKETADDRESSC_, EH_TL_HINT_BINARYC_,
                                    EH_TL_HINT_IPV6C_,          EH_TL_HINT_HRESULT_,
                                    EH_TL_HINT_HRESULT_,        0};
    static const uint8_t want[] = {42,   0,    0x00, 'E', 0,    'h',  0,   0x87, 0x0F, 't',  0,
                                   0x88, 0x06, 'c',  0,   0x95, 0x25, 's', 0,    0x8E, 0x0A, 'S',
                                   0,    0x99, 0x0A, 'b', 0,    0x19, 'i', 0,    0x99, 0x09, 'v',
                                   0,    0xC7, 0x0F, 'x', 0,    0x07, 'n', 0,    0x14};
    struct eh_buf_ b = {0};
    KT_EXPECT_EQ(eh_tl_build_event_meta_hinted(&b, eh, sizeof eh, 0, hints, sizeof hints), 0);
    KT_EXPECT_MEM(b.p, b.len, want, sizeof want);
    b.len = 0;
    /* No hints: h Hex32, t U32+Pid, c Hex64, s/S/b Binary, i Binary+IPv6, v Hex32 vcount
     * (size 5 + 3 + 4 + 3 + 3 + 3 + 3 + 4 + 3 + 3 + 3 = 37). */
    static const uint8_t plain[] = {37,   0,    0x00, 'E',  0,    'h', 0,    0x14, 't', 0,
                                    0x88, 0x05, 'c',  0,    0x15, 's', 0,    0x0E, 'S', 0,
                                    0x0E, 'b',  0,    0x0E, 'i',  0,   0x8E, 0x09, 'v', 0,
                                    0x54, 'x',  0,    0x07, 'n',  0,   0x14};
    KT_EXPECT_EQ(eh_tl_build_event_meta(&b, eh, sizeof eh, 0), 0);
    KT_EXPECT_MEM(b.p, b.len, plain, sizeof plain);
    eh_buf_free(&b);

    /* Through the translation cache: the same EventHeader event with and without hints
     * gives the two metadata blobs; the payload is converted alike (u16 byte counts). */
    static const uint8_t meta[] = {'P', 0, 'h', 0, 0x84, 0x03, 'b', 0, 0x8A, 0x09};
    static const uint8_t data[] = {0x05, 0x40, 0x00, 0x80, 2, 0, 0xAB, 0xCD};
    static const uint8_t want_data[] = {0x05, 0x40, 0x00, 0x80, 2, 0, 0xAB, 0xCD};
    static const uint8_t h2[] = {EH_TL_HINT_HRESULT_, EH_TL_HINT_BINARYC_};
    uint8_t ev[64];
    size_t n = make_eh_event(ev, 0, 4, meta, sizeof meta, data, sizeof data);
    struct eh_tl_event tl = {0}, tl2 = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader_hinted(&tl, ev, n, h2, sizeof h2), 0);
    KT_EXPECT_MEM(tl.meta, tl.meta_len,
                  ((const uint8_t[]){12, 0, 0, 'P', 0, 'h', 0, 0x87, 0x0F, 'b', 0, 0x19}), 12);
    KT_EXPECT_MEM(tl.data.p, tl.data.len, want_data, sizeof want_data);
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl2, ev, n), 0);
    KT_EXPECT_MEM(tl2.meta, tl2.meta_len,
                  ((const uint8_t[]){11, 0, 0, 'P', 0, 'h', 0, 0x14, 'b', 0, 0x0E}), 11);
    eh_tl_event_release(&tl);
    eh_tl_event_release(&tl2);
}

/* time -> FILETIME at the ends of FILETIME's range (Documentation/tracelogging.md §5):
 * clamped as Microsoft's encoders do, never wrapped. FILETIME = t * 10^7 +
 * 116444736000000000 (0x019DB1DED53E8000) while that lies in [0, 0x7FFF35F4F06C7FFF].
 *   t = -11644473600 (1601-01-01):   -116444736000000000 + E = 0
 *   t = -11644473601:                below 0 -> 0 (was 2^64 - 10^7 when wrapped)
 *   t = INT64_MIN:                   -> 0 (was 0 + E wrapped: 1970-01-01)
 *   t = 910670515199 (the last second Windows dates, 30827-12-31T23:59:59):
 *     9106705151990000000 + E = 9223149887990000000 = 0x7FFF35F4EFD3E980
 *   t = 910670515200:                over 0x7FFF35F4F06C7FFF -> 0x7FFF35F4F06C7FFF
 *   t = INT64_MAX:                   -> 0x7FFF35F4F06C7FFF (was 2^64 - 10^7 + E wrapped)
 *   value32 t = INT32_MIN:           -21474836480000000 + E = 94969899520000000 = 0x0151669ED53E8000 */
static void test_time_clamp(void)
{
    static const uint8_t meta[] = {
        'P', 0,    'a',  0,   0x85, 0x06, 'b',  0,   0x85, 0x06, 'c',  0,   0x85, 0x06, 'd',
        0,   0x85, 0x06, 'e', 0,    0x85, 0x06, 'f', 0,    0x85, 0x06, 'g', 0,    0x84, 0x06,
    };
    static const uint8_t data[] = {
        0x00, 0x6F, 0xEF, 0x49, 0xFD, 0xFF, 0xFF, 0xFF, /* -11644473600 */
        0xFF, 0x6E, 0xEF, 0x49, 0xFD, 0xFF, 0xFF, 0xFF, /* -11644473601 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* INT64_MIN */
        0xFF, 0x4B, 0x31, 0x08, 0xD4, 0x00, 0x00, 0x00, /* 910670515199 */
        0x00, 0x4C, 0x31, 0x08, 0xD4, 0x00, 0x00, 0x00, /* 910670515200 */
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, /* INT64_MAX */
        0x00, 0x00, 0x00, 0x80,                         /* value32 INT32_MIN */
    };
    static const uint8_t want[] = {
        0,    0,    0,    0,    0,    0,    0,    0,    /* 0 */
        0,    0,    0,    0,    0,    0,    0,    0,    /* 0 */
        0,    0,    0,    0,    0,    0,    0,    0,    /* 0 */
        0x80, 0xE9, 0xD3, 0xEF, 0xF4, 0x35, 0xFF, 0x7F, /* 0x7FFF35F4EFD3E980 */
        0xFF, 0x7F, 0x6C, 0xF0, 0xF4, 0x35, 0xFF, 0x7F, /* 0x7FFF35F4F06C7FFF */
        0xFF, 0x7F, 0x6C, 0xF0, 0xF4, 0x35, 0xFF, 0x7F, /* 0x7FFF35F4F06C7FFF */
        0x00, 0x80, 0x3E, 0xD5, 0x9E, 0x66, 0x51, 0x01, /* 0x0151669ED53E8000 */
    };
    uint8_t ev[256];
    size_t n = make_eh_event(ev, 0, 4, meta, sizeof meta, data, sizeof data);
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, n), 0);
    KT_EXPECT_MEM(tl.data.p, tl.data.len, want, sizeof want);
    eh_tl_event_release(&tl);
}

static void test_payload_errors(void)
{
    static const uint8_t meta[] = {'P', 0, 'z', 0, 0x07};
    static const uint8_t unterminated[] = {'a', 'b'};
    uint8_t ev[64];
    size_t n = make_eh_event(ev, 0, 4, meta, sizeof meta, unterminated, sizeof unterminated);
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, n), EINVAL);
    ev[0] = 0x05; /* big-endian */
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, n), EINVAL);
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, 7), EINVAL);
    eh_tl_event_release(&tl);
}

/* Activity extension (kind 2, 32 bytes: activity + related) is passed through. */
static void test_activity_ids(void)
{
    uint8_t ev[128];
    static const uint8_t h[] = {0x07, 0, 0, 0, 0, 0, 0, 5, 32, 0, 0x02, 0x80};
    memcpy(ev, h, sizeof h);
    for (int i = 0; i < 32; i++)
        ev[12 + i] = (uint8_t)i;
    static const uint8_t m[] = {5, 0, 0x01, 0x00, 'A', 0, 'x', 0, 0x02}; /* 5-byte body */
    memcpy(ev + 44, m, sizeof m);
    ev[44 + sizeof m] = 7;
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, 44 + sizeof m + 1), 0);
    KT_EXPECT(tl.activity == ev + 12);
    KT_EXPECT(tl.related == ev + 28);
    KT_EXPECT_MEM(tl.data.p, tl.data.len, ((const uint8_t[]){7}), 1);
    eh_tl_event_release(&tl);
}

/* Activity ids travel as the 16 bytes EventHeader holds, unchanged (as Microsoft's
 * tracing-etw passes them; Documentation/tracelogging.md §1), while a uuid FIELD is
 * byte-swapped into the Windows GUID layout. So ETW tools, which read the activity id
 * as a GUID (Data1-3 little-endian), show Data1-3 reversed against ehconf's EventHeader
 * JSON: activity 11223344-5566-7788-99aa-bbccddeeff00 (golden/activity.json) appears as
 * 44332211-6655-8877-99aa-bbccddeeff00. This pins both halves. */
static void test_activity_id_byte_order(void)
{
    static const uint8_t id[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                                   0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00};
    uint8_t ev[128];
    /* header with the extension flag, activity extension (16 bytes, chain), metadata
     * extension of event "A" with one value128 uuid field "g", payload: the same 16 bytes */
    static const uint8_t h[] = {0x07, 0, 0, 0, 0, 0, 0, 4, 16, 0, 0x02, 0x80};
    memcpy(ev, h, sizeof h);
    memcpy(ev + 12, id, 16);
    static const uint8_t m[] = {6, 0, 0x01, 0x00, 'A', 0, 'g', 0, 0x86, 0x0F};
    memcpy(ev + 28, m, sizeof m);
    memcpy(ev + 28 + sizeof m, id, 16);
    struct eh_tl_event tl = {0};
    KT_EXPECT_EQ(eh_tl_from_eventheader(&tl, ev, 28 + sizeof m + 16), 0);
    KT_EXPECT(tl.activity != NULL);
    if (tl.activity)
        KT_EXPECT_MEM(tl.activity, 16, id, 16);
    static const uint8_t swapped[16] = {0x44, 0x33, 0x22, 0x11, 0x66, 0x55, 0x88, 0x77,
                                        0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00};
    KT_EXPECT_MEM(tl.data.p, tl.data.len, swapped, 16);
    char text[37];
    if (tl.activity) {
        eh_tl_guid_format(tl.activity, text);
        KT_EXPECT_STR(text, "44332211-6655-8877-99aa-bbccddeeff00");
    }
    /* The .tlcap record keeps the bytes as they are (offset 40, tracelogging_wire.h). */
    static const uint8_t pm[] = {4, 0, 'P', 0};
    uint8_t guid[16] = {0}, rec[256];
    size_t size = eh_tl_record_encode(NULL, guid, 1, 11, pm, 4, &tl);
    KT_EXPECT(size > 0 && size <= sizeof rec);
    if (size > 0 && size <= sizeof rec) {
        KT_EXPECT_EQ(eh_tl_record_encode(rec, guid, 1, 11, pm, 4, &tl), size);
        KT_EXPECT_MEM(rec + 40, 16, id, 16);
    }
    eh_tl_event_release(&tl);
}

/* The .tlcap record layout of ehd_tl.h, offset by offset. */
static void test_record_layout(void)
{
    struct eh_tl_event ev = {0};
    static const uint8_t meta[] = {4, 0, 0, 'E'};
    ev.meta = meta;
    ev.meta_len = 4;
    ev.level = 3;
    ev.opcode = 1;
    ev.id = 0x0102;
    uint8_t act[16];
    memset(act, 0xAB, 16);
    ev.activity = act;
    eh_buf_u8(&ev.data, 0x99);
    uint8_t guid[16];
    memset(guid, 0x11, 16);
    static const uint8_t pm[] = {4, 0, 'P', 0};
    size_t size = eh_tl_record_encode(NULL, guid, 0x0000000100000002ull, 11, pm, 4, &ev);
    KT_EXPECT_EQ(size, 80 + 4 + 4 + 1);
    uint8_t rec[89];
    KT_EXPECT_EQ(eh_tl_record_encode(rec, guid, 0x0000000100000002ull, 11, pm, 4, &ev), 89);
    static const uint8_t fixed[20] = {89, 0, 0, 0, 3, 1, 0, 11, 0x02, 0x01,
                                      0,  0, 2, 0, 0, 0, 1, 0,  0,    0};
    KT_EXPECT_MEM(rec, 20, fixed, 20);
    KT_EXPECT_MEM(rec + 20, 16, guid, 16);
    KT_EXPECT_EQ(rec[36], 1);
    KT_EXPECT_MEM(rec + 40, 16, act, 16);
    KT_EXPECT_MEM(rec + 72, 8, ((const uint8_t[]){4, 0, 4, 0, 1, 0, 0, 0}), 8);
    KT_EXPECT_MEM(rec + 80, 9, ((const uint8_t[]){4, 0, 'P', 0, 4, 0, 0, 'E', 0x99}), 9);
    eh_buf_free(&ev.data);
}

KT_MAIN(KT_CASE(test_sha1_vectors), KT_CASE(test_guid_from_name), KT_CASE(test_tags),
        KT_CASE(test_meta_scalar), KT_CASE(test_meta_strings), KT_CASE(test_meta_struct),
        KT_CASE(test_meta_arrays), KT_CASE(test_meta_tags), KT_CASE(test_meta_errors),
        KT_CASE(test_provider_meta), KT_CASE(test_tp_name), KT_CASE(test_payload_conversions),
        KT_CASE(test_time_clamp), KT_CASE(test_meta_type_hints), KT_CASE(test_payload_errors),
        KT_CASE(test_activity_ids), KT_CASE(test_activity_id_byte_order),
        KT_CASE(test_record_layout))
