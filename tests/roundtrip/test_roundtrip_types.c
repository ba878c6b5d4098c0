/* SPDX-License-Identifier: MIT */
/*
 * Round trip: libeventheader writes events to a capture file (EHCONF_CAPTURE), the
 * decoder library reads them back (ehd_dat_open/ehd_dat_next + ehd_eventheader_json
 * with EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN), and each event's JSON
 * must equal the string written here BY HAND from Documentation/decoder-json.md:
 *   { "n": "<provider>:<event>", fields..., "meta": { "level": 5, "keyword": "0x1" } }
 * (§1 spacing, §2 member order and meta keys, §4 value rendering). None of the expected
 * strings comes from running the code under test.
 *
 * Each test empties the capture file, writes its events, then compares every record
 * in order (the count too). The capture backend is chosen at the first registration,
 * so EHCONF_CAPTURE is set before that, once per process.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehd.h"
#include "eventheader.h"
#include "ktap.h"

static EH_DEFINE_PROVIDER(rt_provider, "RtProv");

#define LV      EH_LEVEL_VERBOSE
#define KW      0x1
#define META    ", \"meta\": { \"level\": 5, \"keyword\": \"0x1\" } }"
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static char cap_path[4096];
static int ready; /* 1 = capture file set up and provider registered, -1 = failed */

static void remove_capture(void)
{
    unlink(cap_path);
}

/* Once per process: temp file, EHCONF_CAPTURE, register. Then empties the file. */
static int rt_begin(void)
{
    if (!ready) {
        ready = -1;
        int fd = kt_tmp_template(cap_path, sizeof cap_path, "ehconf-roundtrip-XXXXXX")
                     ? mkstemp(cap_path)
                     : -1;
        if (fd < 0) {
            kt_diag("mkstemp: %s", strerror(errno));
            return 0;
        }
        close(fd);
        atexit(remove_capture);
        setenv("EHCONF_CAPTURE", cap_path, 1);
        int err = eh_provider_register(&rt_provider);
        if (err) {
            kt_diag("eh_provider_register: %d", err);
            return 0;
        }
        if (strcmp(eh_backend_name(), "capture") != 0) {
            kt_diag("backend is %s, not capture", eh_backend_name());
            return 0;
        }
        ready = 1;
    }
    if (ready < 0 || truncate(cap_path, 0) != 0) {
        kt_fail_at(__FILE__, __LINE__, "capture file not available");
        return 0;
    }
    return 1;
}

/* Decodes every record of the capture file and compares with want[0..n). */
static void rt_check(const char *const *want, size_t n)
{
    FILE *f = fopen(cap_path, "rb");
    if (!f) {
        kt_fail_at(__FILE__, __LINE__, "cannot open the capture file");
        return;
    }
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_buf out;
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 0;
    size_t i = 0;
    int rc;

    ehd_buf_init(&out);
    while (r && (rc = ehd_dat_next(r, &rec, &reason, &off)) == 1) {
        size_t at = 0;
        const char *why = NULL;
        ehd_buf_reset(&out);
        int err =
            ehd_eventheader_json(&out, rec.tp_name, rec.tp_name_len, rec.data, rec.size, NULL,
                                 EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, &why, &at);
        if (err) {
            kt_failed_now = 1;
            kt_diag("record %zu (%s): decode error %d at %zu: %s", i, rec.tp_name, err, at,
                    why ? why : "?");
        } else if (i >= n) {
            kt_failed_now = 1;
            kt_diag("record %zu is extra: %.*s", i, (int)out.len, out.data);
        } else if (out.len != strlen(want[i]) || memcmp(out.data, want[i], out.len) != 0) {
            kt_failed_now = 1;
            kt_diag("record %zu differs", i);
            kt_diag("  got : %.*s", (int)out.len, out.data);
            kt_diag("  want: %s", want[i]);
        }
        if (strcmp(rec.tp_name, "RtProv_L5K1") != 0) {
            kt_failed_now = 1;
            kt_diag("record %zu: tracepoint %s, want RtProv_L5K1", i, rec.tp_name);
        }
        i++;
    }
    if (!r || rc < 0) {
        kt_failed_now = 1;
        kt_diag("capture file unreadable: %s", reason ? reason : "out of memory");
    }
    if (i < n) {
        kt_failed_now = 1;
        kt_diag("%zu records decoded, %zu expected; first missing: %s", i, n, want[i]);
    }
    ehd_buf_free(&out);
    if (r)
        ehd_dat_close(r);
    fclose(f);
}

/* Not a wrapper macro: EH_EVENT() must reach EH_WRITE unexpanded (its braces hold commas). */

static void test_integers(void)
{
    static const char *const want[] = {
        "{ \"n\": \"RtProv:u8\", \"u8\": 200" META,
        "{ \"n\": \"RtProv:u16\", \"u16\": 65000" META,
        "{ \"n\": \"RtProv:u32\", \"u32\": 4294967295" META,
        "{ \"n\": \"RtProv:u64\", \"u64\": 9223372036854775808" META,
        "{ \"n\": \"RtProv:i8\", \"i8\": -1" META,
        "{ \"n\": \"RtProv:i16\", \"i16\": -300" META,
        "{ \"n\": \"RtProv:i32\", \"i32\": -70000" META,
        "{ \"n\": \"RtProv:i64\", \"i64\": -5000000000" META,
        "{ \"n\": \"RtProv:hex\", \"u8_hex\": \"0xF\", \"u16_hex\": \"0xABC\", "
        "\"u32_hex\": \"0x10\", \"u64_hex\": \"0xFFFF00000000\", \"i8_hex\": \"0xFE\", "
        "\"i16_hex\": \"0xFFFE\", \"i32_hex\": \"0xFFFFFFFE\", "
        "\"i64_hex\": \"0xFFFFFFFFFFFFFFFE\"" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("u8", LV, KW), EH_U8("u8", 200)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("u16", LV, KW), EH_U16("u16", 65000)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("u32", LV, KW), EH_U32("u32", 4294967295u)), 0);
    KT_EXPECT_EQ(
        EH_WRITE(rt_provider, EH_EVENT("u64", LV, KW), EH_U64("u64", 0x8000000000000000ull)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("i8", LV, KW), EH_I8("i8", -1)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("i16", LV, KW), EH_I16("i16", -300)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("i32", LV, KW), EH_I32("i32", -70000)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("i64", LV, KW), EH_I64("i64", -5000000000ll)), 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("hex", LV, KW), EH_U8_HEX("u8_hex", 0x0F),
                          EH_U16_HEX("u16_hex", 0xABC), EH_U32_HEX("u32_hex", 0x10),
                          EH_U64_HEX("u64_hex", 0xFFFF00000000ull), EH_I8_HEX("i8_hex", -2),
                          EH_I16_HEX("i16_hex", -2), EH_I32_HEX("i32_hex", -2),
                          EH_I64_HEX("i64_hex", -2)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_floats(void)
{
    /* shortest round-trip text; non-finite quoted with the sign (§4.4) */
    static const char *const want[] = {
        "{ \"n\": \"RtProv:f32\", \"f32\": 0.1, \"f32\": 1.5, \"f32\": -2.5e-10, "
        "\"f32\": \"nan\", \"f32\": \"-inf\"" META,
        "{ \"n\": \"RtProv:f64\", \"f64\": 0.1, \"f64\": 1e+100, \"f64\": 9007199254740992, "
        "\"f64\": \"inf\", \"f64\": \"-nan\"" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("f32", LV, KW), EH_F32("f32", 0.1f),
                          EH_F32("f32", 1.5f), EH_F32("f32", -2.5e-10f), EH_F32("f32", NAN),
                          EH_F32("f32", -INFINITY)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("f64", LV, KW), EH_F64("f64", 0.1),
                          EH_F64("f64", 1e100), EH_F64("f64", 9007199254740992.0),
                          EH_F64("f64", INFINITY), EH_F64("f64", -NAN)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_bool_char(void)
{
    static const char *const want[] = {
        "{ \"n\": \"RtProv:bool\", \"bool8\": true, \"bool8\": false, \"bool32\": true, "
        "\"bool32\": 7" META,
        /* Latin-1 0xC4 is U+00C4; U+03A9 is one UTF-16 unit */
        "{ \"n\": \"RtProv:char\", \"char8\": \"z\", \"char8\": \"\xC3\x84\", "
        "\"char16\": \"\xCE\xA9\"" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("bool", LV, KW), EH_BOOL8("bool8", 1),
                          EH_BOOL8("bool8", 0), EH_BOOL32("bool32", 1), EH_BOOL32("bool32", 7)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("char", LV, KW), EH_CHAR8_CP1252("char8", 'z'),
                          EH_CHAR8_CP1252("char8", 0xC4), EH_CHAR16("char16", 0x3A9)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_strings(void)
{
    static const uint16_t zurich16[] = {'Z', 0xFC, 'r', 'i', 'c', 'h'};
    static const uint32_t bolt32[] = {0x26A1};
    static const uint16_t hi16[] = {'h', 'i', 0};
    static const uint32_t yo32[] = {'y', 'o', 0};
    static const char *const want[] = {
        /* counted: length in units, a tab escaped as \t, embedded NUL kept (§4.1, §4.8) */
        "{ \"n\": \"RtProv:str\", \"str8\": \"ABC\", \"str8\": \"a\\tb\", \"str8\": \"x\\u0000y\", "
        "\"str16\": \"Z\xC3\xBCrich\", \"str32\": \"\xE2\x9A\xA1\"" META,
        /* zero-terminated: stops at the first NUL */
        "{ \"n\": \"RtProv:cstr\", \"cstr8\": \"xyz\", \"cstr8\": \"ab\", \"cstr16\": \"hi\", "
        "\"cstr32\": \"yo\"" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("str", LV, KW), EH_STR8("str8", "ABC", 3),
                          EH_STR8("str8", "a\tb", 3), EH_STR8("str8", "x\0y", 3),
                          EH_STR16("str16", zurich16, N_OF(zurich16)),
                          EH_STR32("str32", bolt32, 1)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("cstr", LV, KW), EH_CSTR8("cstr8", "xyz"),
                          EH_CSTR8("cstr8", "ab\0cd"), EH_CSTR16("cstr16", hi16),
                          EH_CSTR32("cstr32", yo32)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_binary_guid_net(void)
{
    static const uint8_t bin[4] = {0xde, 0xad, 0xbe, 0xef};
    static const uint8_t guid[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                     0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    static const uint8_t v4[4] = {10, 0, 0, 1};
    static const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, 0,    0,    0,    0,
                                   0,    0,    0xff, 0x00, 0x00, 0x42, 0x83, 0x29};
    static const char *const want[] = {
        "{ \"n\": \"RtProv:binary\", \"binary\": \"de ad be ef\", \"binary\": \"\"" META,
        "{ \"n\": \"RtProv:guid\", \"guid\": \"00112233-4455-6677-8899-aabbccddeeff\"" META,
        "{ \"n\": \"RtProv:net\", \"ipv4\": \"10.0.0.1\", \"ipv6\": \"2001:db8::ff00:42:8329\", "
        "\"port\": 8080" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("binary", LV, KW), EH_BINARY("binary", bin, 4),
                          EH_BINARY("binary", bin, 0)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("guid", LV, KW), EH_GUID("guid", guid)), 0);
    /* port: network order in memory, so htons(8080) = 0x901F on this little-endian host */
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("net", LV, KW), EH_IPV4("ipv4", v4),
                          EH_IPV6("ipv6", v6), EH_PORT("port", 0x901F)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_errno_pid_time(void)
{
    static const char *const want[] = {
        "{ \"n\": \"RtProv:errno\", \"errno\": \"EACCES(13)\", \"errno\": \"ERRNO(-5)\"" META,
        "{ \"n\": \"RtProv:pid\", \"pid\": 4321, \"tid\": -2" META,
        /* 86400 s = one day; 951782400 s = 11016 days = 2000-02-29 (a leap day) */
        "{ \"n\": \"RtProv:time\", \"time32\": \"1970-01-02T00:00:00\", "
        "\"time64\": \"2000-02-29T00:00:00\"" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("errno", LV, KW), EH_ERRNO("errno", 13),
                          EH_ERRNO("errno", -5)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("pid", LV, KW), EH_PID("pid", 4321),
                          EH_TID("tid", 0xFFFFFFFEu)),
                 0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("time", LV, KW), EH_TIME32("time32", 86400),
                          EH_TIME64("time64", 951782400)),
                 0);
    rt_check(want, N_OF(want));
}

static void test_arrays(void)
{
    static const int32_t s[3] = {-1, 0, 1};
    static const uint16_t a[3] = {7, 8, 9};
    static const char *const want[] = {
        "{ \"n\": \"RtProv:arrays\", \"slice\": [ -1, 0, 1 ], \"empty\": [ ], "
        "\"carray\": [ 7, 8, 9 ], \"tagged;tag=0x5\": [ 7 ]" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("arrays", LV, KW), EH_I32_SLICE("slice", s, 3),
                          EH_I32_SLICE("empty", s, 0), EH_U16_ARRAY("carray", a, 3),
                          EH_U16_ARRAY("tagged", a, 1, EH_TAG(0x5))),
                 0);
    rt_check(want, N_OF(want));
}

struct point {
    int16_t x;
    int16_t y;
};

static void test_structs(void)
{
    static const struct point pts[2] = {{1, 2}, {-3, 4}};
    static const char *const want[] = {
        "{ \"n\": \"RtProv:struct\", \"pt\": { \"x\": 1, \"y\": -2 }, "
        "\"outer\": { \"a\": 1, \"inner\": { \"s\": \"deep\" } }, \"after\": 9" META,
        "{ \"n\": \"RtProv:structs\", \"pts\": [ { \"x\": 1, \"y\": 2 }, "
        "{ \"x\": -3, \"y\": 4 } ], \"none\": [ ]" META,
    };
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(
        EH_WRITE(rt_provider, EH_EVENT("struct", LV, KW),
                 EH_STRUCT("pt", EH_I32("x", 1), EH_I32("y", -2)),
                 EH_STRUCT("outer", EH_U8("a", 1), EH_STRUCT("inner", EH_CSTR8("s", "deep"))),
                 EH_U8("after", 9)),
        0);
    KT_EXPECT_EQ(EH_WRITE(rt_provider, EH_EVENT("structs", LV, KW),
                          EH_STRUCT_ARRAY("pts", pts, 2, EH_MEMBER_I16(struct point, x),
                                          EH_MEMBER_I16(struct point, y)),
                          EH_STRUCT_ARRAY("none", pts, 0, EH_MEMBER_I16(struct point, x))),
                 0);
    rt_check(want, N_OF(want));
}

/* Header attributes: meta order id, version, level, keyword, opcode, tag (§2). Uses
 * its own tracepoint (level 2, keyword 0x85), so it is checked apart. */
static void test_event_attributes(void)
{
    if (!rt_begin())
        return;
    KT_EXPECT_EQ(EH_WRITE(rt_provider,
                          EH_EVENT("attrs;x=1", EH_LEVEL_ERROR, 0x85, .id = 10, .version = 1,
                                   .opcode = EH_OPCODE_ACTIVITY_START, .tag = 0x20),
                          EH_U8("u8", 1)),
                 0);
    FILE *f = fopen(cap_path, "rb");
    ehd_dat_reader *r = f ? ehd_dat_open(f) : NULL;
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 0;
    KT_EXPECT(r != NULL);
    if (r && ehd_dat_next(r, &rec, &reason, &off) == 1) {
        ehd_buf out;
        const char *why = NULL;
        size_t at = 0;
        ehd_buf_init(&out);
        KT_EXPECT_STR(rec.tp_name, "RtProv_L2K85");
        KT_EXPECT_EQ(
            ehd_eventheader_json(&out, rec.tp_name, rec.tp_name_len, rec.data, rec.size, NULL,
                                 EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, &why, &at),
            0);
        ehd_buf_putc(&out, 0);
        KT_EXPECT_STR(out.data, "{ \"n\": \"RtProv:attrs\", \"u8\": 1, \"meta\": { \"id\": 10, "
                                "\"version\": 1, \"level\": 2, \"keyword\": \"0x85\", "
                                "\"opcode\": 1, \"tag\": \"0x20\" } }");
        ehd_buf_free(&out);
    } else {
        kt_fail_at(__FILE__, __LINE__, "no record");
    }
    if (r)
        ehd_dat_close(r);
    if (f)
        fclose(f);
}

KT_MAIN(KT_CASE(test_integers), KT_CASE(test_floats), KT_CASE(test_bool_char),
        KT_CASE(test_strings), KT_CASE(test_binary_guid_net), KT_CASE(test_errno_pid_time),
        KT_CASE(test_arrays), KT_CASE(test_structs), KT_CASE(test_event_attributes))
