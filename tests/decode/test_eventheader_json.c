/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of ehd_eventheader_json with hand-assembled events
 * (support_eh_events.c). Expected JSON is written by hand from
 * Documentation/decoder-json.md (section numbers in the comments); loops only build
 * long expected strings whose shape the spec fixes (300 fields, deep nesting,
 * long arrays).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "eventheader_wire.h"
#include "ktap.h"
#include "support_eh_events.h"

static ehb E;

/* One-field event "E" of tracepoint "P_L5K0" (level 5, keyword 0); field "f". */
static void start(unsigned enc, int fmt)
{
    ehb_free(&E);
    ehb_init(&E, 0, 5, "E");
    ehb_field_ex(&E, "f", enc, fmt, -1, -1);
}

static void check_json(int line, ehb *e, const char *tp, unsigned flags, const char *want)
{
    const char *got;
    int err = ehb_decode(e, tp, flags, &got);
    if (err || strcmp(got, want) != 0) {
        kt_fail_at(__FILE__, line, "decoded JSON differs");
        kt_diag("  err : %d", err);
        kt_diag("  got : %s", got);
        kt_diag("  want: %s", want);
    }
}

static void check_value(int line, const char *want_value)
{
    char want[4096];
    snprintf(want, sizeof want, "{\"n\":\"P:E\",\"f\":%s,\"meta\":{\"level\":5}}", want_value);
    check_json(line, &E, "P_L5K0", 0, want);
}

#define EXPECT_JSON(e, tp, flags, want) check_json(__LINE__, e, tp, flags, want)
#define EXPECT_VALUE(want)              check_value(__LINE__, want)
/* Start a one-field event, append payload bytes given as a string literal. */
#define RAW(enc, fmt, bytes, want)             \
    do {                                       \
        start(enc, fmt);                       \
        ehb_raw(&E, bytes, sizeof(bytes) - 1); \
        EXPECT_VALUE(want);                    \
    } while (0)

enum { DEF = -1 }; /* no format byte */

/* ---- §4.2 / §4.3 integers and booleans ------------------------------------- */

static void test_value8(void)
{
    RAW(EH_ENC_VALUE8, DEF, "\xff", "255");
    RAW(EH_ENC_VALUE8, EH_FMT_UNSIGNED_INT, "\xff", "255");
    RAW(EH_ENC_VALUE8, EH_FMT_SIGNED_INT, "\x80", "-128");
    RAW(EH_ENC_VALUE8, EH_FMT_HEX_INT, "\x80", "\"0x80\"");
    RAW(EH_ENC_VALUE8, EH_FMT_HEX_INT, "\x00", "\"0x0\"");
    RAW(EH_ENC_VALUE8, EH_FMT_BOOLEAN, "\x00", "false");
    RAW(EH_ENC_VALUE8, EH_FMT_BOOLEAN, "\x01", "true");
    RAW(EH_ENC_VALUE8, EH_FMT_BOOLEAN, "\xff", "255");
    RAW(EH_ENC_VALUE8, EH_FMT_HEX_BYTES, "\xab", "\"ab\"");
    RAW(EH_ENC_VALUE8, EH_FMT_STRING8, "\xfe", "\"\xc3\xbe\""); /* þ */
    RAW(EH_ENC_VALUE8, EH_FMT_STRING8, "\x00", "\"\\u0000\"");
    RAW(EH_ENC_VALUE8, EH_FMT_FLOAT, "\x07", "7"); /* unsupported -> unsigned */
    RAW(EH_ENC_VALUE8, EH_FMT_ERRNO, "\x02", "2");
}

static void test_value16(void)
{
    RAW(EH_ENC_VALUE16, DEF, "\xff\xff", "65535");
    RAW(EH_ENC_VALUE16, EH_FMT_SIGNED_INT, "\x00\x80", "-32768");
    RAW(EH_ENC_VALUE16, EH_FMT_SIGNED_INT, "\xff\xff", "-1");
    RAW(EH_ENC_VALUE16, EH_FMT_HEX_INT, "\xef\xbe", "\"0xBEEF\"");
    RAW(EH_ENC_VALUE16, EH_FMT_BOOLEAN, "\xff\xff", "65535"); /* zero-extended */
    RAW(EH_ENC_VALUE16, EH_FMT_BOOLEAN, "\x01\x00", "true");
    RAW(EH_ENC_VALUE16, EH_FMT_HEX_BYTES, "\x01\x02", "\"01 02\"");
    RAW(EH_ENC_VALUE16, EH_FMT_STRING_UTF, "\xe9\x00", "\"\xc3\xa9\"");
    RAW(EH_ENC_VALUE16, EH_FMT_STRING_UTF, "\x00\xd8", "\"\xef\xbf\xbd\""); /* pinned U+FFFD */
    RAW(EH_ENC_VALUE16, EH_FMT_PORT, "\x00\x50", "80");                     /* network order */
    RAW(EH_ENC_VALUE16, EH_FMT_PORT, "\x1f\x90", "8080");
    RAW(EH_ENC_VALUE16, EH_FMT_PID, "\xff\xff", "65535");
    RAW(EH_ENC_VALUE16, EH_FMT_STRING8, "\x41\x00", "65");
}

static void test_value32(void)
{
    RAW(EH_ENC_VALUE32, DEF, "\xff\xff\xff\xff", "4294967295");
    RAW(EH_ENC_VALUE32, EH_FMT_SIGNED_INT, "\x00\x00\x00\x80", "-2147483648");
    RAW(EH_ENC_VALUE32, EH_FMT_HEX_INT, "\xef\xbe\xad\xde", "\"0xDEADBEEF\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x00\x00\x00\x00", "\"ERRNO(0)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x01\x00\x00\x00", "\"EPERM(1)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x02\x00\x00\x00", "\"ENOENT(2)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x29\x00\x00\x00", "\"ERRNO(41)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x3a\x00\x00\x00", "\"ERRNO(58)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x4a\x00\x00\x00", "\"EBADMSG(74)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x5f\x00\x00\x00", "\"EOPNOTSUPP(95)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x85\x00\x00\x00", "\"EHWPOISON(133)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x86\x00\x00\x00", "\"ERRNO(134)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\xff\xff\xff\xff", "\"ERRNO(-1)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_ERRNO, "\x00\x00\x00\x80", "\"ERRNO(-2147483648)\"");
    RAW(EH_ENC_VALUE32, EH_FMT_PID, "\xfb\xff\xff\xff", "-5");
    RAW(EH_ENC_VALUE32, EH_FMT_TIME, "\x00\x00\x00\x00", "\"1970-01-01T00:00:00\"");
    RAW(EH_ENC_VALUE32, EH_FMT_TIME, "\x00\x00\x00\x80", "\"1901-12-13T20:45:52\"");
    RAW(EH_ENC_VALUE32, EH_FMT_TIME, "\xff\xff\xff\x7f", "\"2038-01-19T03:14:07\"");
    RAW(EH_ENC_VALUE32, EH_FMT_BOOLEAN, "\x00\x00\x00\x80", "-2147483648");
    RAW(EH_ENC_VALUE32, EH_FMT_BOOLEAN, "\x02\x00\x00\x00", "2");
    RAW(EH_ENC_VALUE32, EH_FMT_BOOLEAN, "\x01\x00\x00\x00", "true");
    RAW(EH_ENC_VALUE32, EH_FMT_FLOAT, "\xc3\xf5\x48\x40", "3.14");
    RAW(EH_ENC_VALUE32, EH_FMT_FLOAT, "\x00\x00\xc0\x7f", "\"nan\"");
    RAW(EH_ENC_VALUE32, EH_FMT_FLOAT, "\x00\x00\xc0\xff", "\"-nan\"");
    RAW(EH_ENC_VALUE32, EH_FMT_FLOAT, "\x00\x00\x80\xff", "\"-inf\"");
    RAW(EH_ENC_VALUE32, EH_FMT_FLOAT, "\x00\x00\x00\x80", "-0");
    RAW(EH_ENC_VALUE32, EH_FMT_HEX_BYTES, "\x01\x02\x03\x04", "\"01 02 03 04\"");
    RAW(EH_ENC_VALUE32, EH_FMT_STRING_UTF, "\x00\xf6\x01\x00", "\"\xf0\x9f\x98\x80\"");
    RAW(EH_ENC_VALUE32, EH_FMT_STRING_UTF, "\xff\xff\x10\x00", "\"\xf4\x8f\xbf\xbf\"");
    RAW(EH_ENC_VALUE32, EH_FMT_STRING_UTF, "\x00\x00\x11\x00", "\"\xef\xbf\xbd\""); /* pinned */
    RAW(EH_ENC_VALUE32, EH_FMT_STRING_UTF, "\xfc\xfd\xfe\xff", "\"\xef\xbf\xbd\""); /* pinned */
    RAW(EH_ENC_VALUE32, EH_FMT_STRING_UTF, "\x0a\x00\x00\x00", "\"\\n\"");
    RAW(EH_ENC_VALUE32, EH_FMT_IP_ADDRESS, "\x7f\x00\x00\x01", "\"127.0.0.1\"");
    RAW(EH_ENC_VALUE32, EH_FMT_IP_ADDRESS_OBSOLETE, "\xff\xff\xff\xff", "\"255.255.255.255\"");
    RAW(EH_ENC_VALUE32, 99, "\x07\x00\x00\x00", "7");
    RAW(EH_ENC_VALUE32, EH_FMT_UUID, "\x07\x00\x00\x00", "7");
    RAW(EH_ENC_VALUE32, EH_FMT_PORT, "\x00\x50\x00\x00", "20480");
}

static void test_value64(void)
{
    RAW(EH_ENC_VALUE64, DEF, "\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615");
    RAW(EH_ENC_VALUE64, EH_FMT_SIGNED_INT, "\x00\x00\x00\x00\x00\x00\x00\x80",
        "-9223372036854775808");
    RAW(EH_ENC_VALUE64, EH_FMT_HEX_INT, "\x00\x00\x00\x00\x00\x00\x00\x80",
        "\"0x8000000000000000\"");
    RAW(EH_ENC_VALUE64, EH_FMT_PID, "\xfb\xff\xff\xff\xff\xff\xff\xff", "18446744073709551611");
    /* 253402300800 = 0x3AFFF44180: 10000-01-01 (pinned year form) */
    RAW(EH_ENC_VALUE64, EH_FMT_TIME, "\x80\x41\xf4\xff\x3a\x00\x00\x00",
        "\"10000-01-01T00:00:00\"");
    RAW(EH_ENC_VALUE64, EH_FMT_TIME, "\xff\xff\xff\xff\xff\xff\xff\xff", "\"1969-12-31T23:59:59\"");
    RAW(EH_ENC_VALUE64, EH_FMT_TIME, "\x00\x00\x00\x00\x00\x00\x00\x80",
        "\"-292277022657-01-27T08:29:52\"");
    RAW(EH_ENC_VALUE64, EH_FMT_FLOAT, "\x50\xef\xe2\xd6\xe4\x1a\x4b\x44", "1e+21");
    RAW(EH_ENC_VALUE64, EH_FMT_FLOAT, "\x00\x00\x00\x00\x00\x00\x04\xc0", "-2.5");
    RAW(EH_ENC_VALUE64, EH_FMT_FLOAT, "\x01\x00\x00\x00\x00\x00\x00\x00", "5e-324");
    RAW(EH_ENC_VALUE64, EH_FMT_FLOAT, "\x00\x00\x00\x00\x00\x00\xf8\xff", "\"-nan\"");
    RAW(EH_ENC_VALUE64, EH_FMT_FLOAT, "\x00\x00\x00\x00\x00\x00\xf0\x7f", "\"inf\"");
    RAW(EH_ENC_VALUE64, EH_FMT_HEX_BYTES, "\x01\x02\x03\x04\x05\x06\x07\x08",
        "\"01 02 03 04 05 06 07 08\"");
    RAW(EH_ENC_VALUE64, EH_FMT_BOOLEAN, "\x01\x00\x00\x00\x00\x00\x00\x00", "1"); /* unsupported */
    RAW(EH_ENC_VALUE64, EH_FMT_ERRNO, "\x02\x00\x00\x00\x00\x00\x00\x00", "2");
}

#define B16 "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"

static void test_value128(void)
{
    RAW(EH_ENC_VALUE128, DEF, B16, "\"01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10\"");
    RAW(EH_ENC_VALUE128, EH_FMT_UUID,
        "\x01\x02\x03\x04\x05\x06\x07\x08\x01\x02\x03\x04\x05\x06\x07\x08",
        "\"01020304-0506-0708-0102-030405060708\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, B16, "\"102:304:506:708:90a:b0c:d0e:f10\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", "\"::1\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", "\"::\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS_OBSOLETE, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x01\x02\x03\x04",
        "\"::ffff:1.2.3.4\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\0\0\0\0\0\0\0\0\0\0\0\x01\x02\x03\x04",
        "\"::1.2.3.4\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\x01\0\0\0\0\0\x01\0\0\0\0\0\0\0\x01",
        "\"1:0:0:1::1\""); /* longest run wins */
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\xfe\x80\0\0\0\0\0\0\0\x01\0\0\0\0\0\0",
        "\"fe80::1:0:0:0\""); /* first of equal runs */
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0", "\"1::\"");
    RAW(EH_ENC_VALUE128, EH_FMT_IP_ADDRESS, "\0\x01\0\0\0\x02\0\x03\0\x04\0\x05\0\x06\0\x07",
        "\"1:0:2:3:4:5:6:7\""); /* one 0: no :: */
    RAW(EH_ENC_VALUE128, EH_FMT_SIGNED_INT, B16,
        "\"01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10\"");
}

/* ---- §4.7, §4.8 strings ------------------------------------------------------ */

static void test_zstring_char8(void)
{
    RAW(EH_ENC_ZSTRING_CHAR8, DEF, "hello\0", "\"hello\"");
    RAW(EH_ENC_ZSTRING_CHAR8, DEF, "\0", "\"\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_STRING_UTF, "a\xc3\xa9\0", "\"a\xc3\xa9\"");
    RAW(EH_ENC_ZSTRING_CHAR8, DEF, "\xc0\xaf\0", "\"\xc3\x80\xc2\xaf\""); /* Latin-1 fallback */
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_STRING8, "\xe9\0", "\"\xc3\xa9\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_HEX_BYTES, "HowAr\0", "\"48 6f 77 41 72\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_HEX_BYTES, "\0", "\"\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_STRING_UTF_BOM, "\xef\xbb\xbfx\0", "\"x\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_STRING_XML, "<a x=\"1\"/>\0", "\"<a x=\\\"1\\\"/>\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_STRING_JSON, "{\"k\":1}\0", "\"{\\\"k\\\":1}\"");
    RAW(EH_ENC_ZSTRING_CHAR8, EH_FMT_UNSIGNED_INT, "12\0", "\"12\""); /* no §4.12 on zstrings */
    RAW(EH_ENC_ZSTRING_CHAR8, DEF, "tab\there\0", "\"tab\\there\"");
}

static void test_zstring_char16_char32(void)
{
    RAW(EH_ENC_ZSTRING_CHAR16, DEF, "h\0i\0\0\0", "\"hi\"");
    RAW(EH_ENC_ZSTRING_CHAR16, EH_FMT_STRING_UTF, "=\xd8\x00\xde\0\0", "\"\xf0\x9f\x98\x80\"");
    RAW(EH_ENC_ZSTRING_CHAR16, EH_FMT_HEX_BYTES, "h\0j\0\0\0", "\"68 00 6a 00\"");
    RAW(EH_ENC_ZSTRING_CHAR16, DEF, "\0\0", "\"\"");
    /* a unit whose low byte is 0 is not a terminator: 0x0100 = U+0100 */
    RAW(EH_ENC_ZSTRING_CHAR16, DEF, "\0\x01\0\0", "\"\xc4\x80\"");
    /* BOM FE FF: big-endian UTF-16 in a little-endian event */
    RAW(EH_ENC_ZSTRING_CHAR16, EH_FMT_STRING_UTF_BOM, "\xfe\xff\0h\0\0", "\"h\"");
    RAW(EH_ENC_ZSTRING_CHAR32, DEF, "a\0\0\0\x00\xf6\x01\0\0\0\0\0", "\"a\xf0\x9f\x98\x80\"");
    RAW(EH_ENC_ZSTRING_CHAR32, DEF, "\0\0\0\0", "\"\"");
    RAW(EH_ENC_ZSTRING_CHAR32, DEF, "\0\xd8\0\0\0\0\0\0", "\"\xef\xbf\xbd\""); /* pinned */
}

static void test_counted_strings(void)
{
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, DEF,
        "\x03\x00"
        "a\0b",
        "\"a\\u0000b\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, DEF, "\x00\x00", "\"\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING8, "\x01\x00\xe9", "\"\xc3\xa9\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_UTF_BOM, "\x04\x00\xff\xfe\x61\x00", "\"a\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_UTF_BOM, "\x02\x00hi", "\"hi\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_JSON,
        "\x06\x00\xff\xfe\x00\x00"
        "z\0",
        "\"\xef\xbf\xbd\""); /* UTF-32 BOM, 2 bytes left */
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_XML, "\x08\x00\x00\x00\xfe\xff\0\0\0z",
        "\"z\""); /* UTF-32BE BOM */
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_HEX_BYTES, "\x02\x00\xf0\xf1", "\"f0 f1\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR16, DEF, "\x02\x00h\0\xe9\0", "\"h\xc3\xa9\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR16, DEF, "\x02\x00\0\0x\0", "\"\\u0000x\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR16, EH_FMT_HEX_BYTES, "\x01\x00h\0", "\"68 00\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR32, DEF, "\x02\x00z\0\0\0\xe9\0\0\0", "\"z\xc3\xa9\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR32, EH_FMT_STRING_UTF_BOM, "\x02\x00\0\0\xfe\xff\0\0\0z",
        "\"z\"");
}

static void test_binary(void)
{
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, DEF, "\x03\x00\x00\x7f\xff", "\"00 7f ff\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, DEF, "\x00\x00", "\"\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_HEX_BYTES, "\x01\x00\xab", "\"ab\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_STRING_UTF, "\x02\x00hi", "\"hi\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_STRING8, "\x01\x00\xe9", "\"\xc3\xa9\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_STRING_UTF_BOM, "\x04\x00\xff\xfe\x61\x00", "\"a\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, 99, "\x01\x00\x05", "\"05\"");
}

/* ---- §4.12 fixed formats on counted char8 / binary ------------------------------ */

static void test_length16_fixed_formats(void)
{
    /* length 0 -> null */
    static const int nullable[] = {
        EH_FMT_UNSIGNED_INT, EH_FMT_SIGNED_INT, EH_FMT_HEX_INT,    EH_FMT_ERRNO,
        EH_FMT_PID,          EH_FMT_TIME,       EH_FMT_BOOLEAN,    EH_FMT_FLOAT,
        EH_FMT_UUID,         EH_FMT_PORT,       EH_FMT_IP_ADDRESS, EH_FMT_IP_ADDRESS_OBSOLETE};
    for (size_t i = 0; i < sizeof nullable / sizeof nullable[0]; i++) {
        RAW(EH_ENC_STRING_LENGTH16_CHAR8, nullable[i], "\x00\x00", "null");
        RAW(EH_ENC_BINARY_LENGTH16_CHAR8, nullable[i], "\x00\x00", "null");
    }
    /* ...but not for the formats that apply to any length */
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING8, "\x00\x00", "\"\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_STRING_UTF, "\x00\x00", "\"\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_HEX_BYTES, "\x00\x00", "\"\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_STRING_UTF_BOM, "\x00\x00", "\"\"");

    /* matching sizes -> rendered like the fixed encoding */
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_UNSIGNED_INT, "\x01\x00\xff", "255");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_UNSIGNED_INT, "\x02\x00\x01\x01", "257");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_UNSIGNED_INT, "\x04\x00\x07\x00\x00\x00", "7");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_UNSIGNED_INT,
        "\x08\x00\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_SIGNED_INT, "\x01\x00\xff", "-1");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_HEX_INT, "\x02\x00\xef\xbe", "\"0xBEEF\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_ERRNO, "\x04\x00\x16\x00\x00\x00", "\"EINVAL(22)\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_PID, "\x04\x00\xff\xff\xff\xff", "-1");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_TIME, "\x04\x00\x00\x00\x00\x00",
        "\"1970-01-01T00:00:00\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_TIME, "\x08\x00\x3c\0\0\0\0\0\0\0",
        "\"1970-01-01T00:01:00\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_BOOLEAN, "\x01\x00\x01", "true");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_BOOLEAN, "\x02\x00\x00\x00", "false");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_BOOLEAN, "\x04\x00\x00\x00\x00\x80", "-2147483648");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_FLOAT, "\x04\x00\xc3\xf5\x48\x40", "3.14");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_FLOAT, "\x08\x00\0\0\0\0\0\0\x04\xc0", "-2.5");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_UUID, "\x10\x00" B16,
        "\"01020304-0506-0708-090a-0b0c0d0e0f10\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_PORT, "\x02\x00\x00\x50", "80");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_IP_ADDRESS, "\x04\x00\x0a\x00\x00\x01",
        "\"10.0.0.1\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_IP_ADDRESS, "\x10\x00" B16,
        "\"102:304:506:708:90a:b0c:d0e:f10\"");

    /* other sizes -> the encoding's default: binary hex bytes, string UTF-8 */
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_SIGNED_INT, "\x01\x00\xf0", "-16");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_SIGNED_INT,
        "\x03\x00\xf0"
        "ab",
        "\"\xc3\xb0"
        "ab\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_FLOAT,
        "\x01\x00"
        "A",
        "\"A\"");
    RAW(EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_ERRNO,
        "\x02\x00"
        "ab",
        "\"ab\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_UNSIGNED_INT, "\x03\x00\x01\x02\x03", "\"01 02 03\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_BOOLEAN,
        "\x08\x00"
        "\1\0\0\0\0\0\0\0",
        "\"01 00 00 00 00 00 00 00\"");
    RAW(EH_ENC_BINARY_LENGTH16_CHAR8, EH_FMT_UUID, "\x04\x00\x01\x02\x03\x04", "\"01 02 03 04\"");
}

/* ---- §2 event object, meta ------------------------------------------------------ */

static void test_hello_event(void)
{
    /* Hello event 0 of tests/data/perf/gen_captures.c */
    ehb e;
    ehb_init(&e, 0, 5, "Hello");
    ehb_field(&e, "n", EH_ENC_VALUE32, 0);
    ehb_field(&e, "msg", EH_ENC_STRING_LENGTH16_CHAR8, 0);
    ehb_field(&e, "pt", EH_ENC_STRUCT, 2);
    ehb_field(&e, "x", EH_ENC_VALUE16, EH_FMT_SIGNED_INT);
    ehb_field(&e, "y", EH_ENC_VALUE16, EH_FMT_SIGNED_INT);
    ehb_u32(&e, 0);
    ehb_str8(&e, "hello #0");
    ehb_u16(&e, (uint16_t)-20);
    ehb_u16(&e, 0);
    EXPECT_JSON(
        &e, "Sample_Provider_L5K1", EHD_JSON_SPACE | EHD_JSON_FIELD_TAG,
        "{ \"n\": \"Sample_Provider:Hello\", \"n\": 0, \"msg\": \"hello #0\", "
        "\"pt\": { \"x\": -20, \"y\": 0 }, \"meta\": { \"level\": 5, \"keyword\": \"0x1\" } }");
    EXPECT_JSON(&e, "Sample_Provider_L5K1", 0,
                "{\"n\":\"Sample_Provider:Hello\",\"n\":0,\"msg\":\"hello #0\","
                "\"pt\":{\"x\":-20,\"y\":0},\"meta\":{\"level\":5,\"keyword\":\"0x1\"}}");
    ehb_free(&e);
}

static void test_meta_all_members(void)
{
    ehb e;
    ehb_init(&e, 0, 4, "Ev");
    e.id = 1000;
    e.version = 11;
    e.opcode = 3;
    e.tag = 0x1234;
    static const uint8_t act[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t rel[16] = {0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
                                    0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00};
    ehb_activity(&e, act, rel);
    ehb_field(&e, "v", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 9);
    const char *golden_meta =
        "\"id\":1000,\"version\":11,\"level\":4,\"keyword\":\"0xF123456789ABCDEF\","
        "\"opcode\":3,\"tag\":\"0x1234\","
        "\"activity\":\"01020304-0506-0708-090a-0b0c0d0e0f10\","
        "\"relatedActivity\":\"ffeeddcc-bbaa-9988-7766-554433221100\"";
    char want[1024];
    snprintf(want, sizeof want, "{\"n\":\"Prov:Ev\",\"v\":9,\"meta\":{%s}}", golden_meta);
    EXPECT_JSON(&e, "Prov_L4Kf123456789abcdef", 0, want);
    /* the options come last, after relatedActivity (§2) */
    snprintf(want, sizeof want, "{\"n\":\"Prov:Ev\",\"v\":9,\"meta\":{%s,\"options\":\"Ggrp1\"}}",
             golden_meta);
    EXPECT_JSON(&e, "Prov_L4Kf123456789abcdefGgrp1", 0, want);
    EXPECT_JSON(&e, "Prov_L4Kf123456789abcdefGgrp1", EHD_META_GOLDEN, want);

    /* with sample info: time, cpu, pid, tid first (time as given) */
    size_t len;
    const uint8_t *p = ehb_finish(&e, &len);
    ehd_sample_info si = {.time_json = "\"2024-03-28T00:45:14.789573967Z\"",
                          .has_cpu = 1,
                          .cpu = 16,
                          .has_pid = 1,
                          .pid = 2004,
                          .tid = 2005};
    ehd_buf out;
    ehd_buf_init(&out);
    const char *reason = NULL;
    size_t off = 0;
    KT_EXPECT_EQ(
        ehd_eventheader_json(&out, "Prov_L4Kf123456789abcdef", 24, p, len, &si, 0, &reason, &off),
        0);
    snprintf(want, sizeof want,
             "{\"n\":\"Prov:Ev\",\"v\":9,\"meta\":{\"time\":\"2024-03-28T00:45:14.789573967Z\","
             "\"cpu\":16,\"pid\":2004,\"tid\":2005,%s}}",
             golden_meta);
    KT_EXPECT_STR(out.data, want);

    /* golden meta: no time/cpu/pid/tid even when known */
    ehd_buf_reset(&out);
    KT_EXPECT_EQ(ehd_eventheader_json(&out, "Prov_L4Kf123456789abcdef", 24, p, len, &si,
                                      EHD_META_GOLDEN, &reason, &off),
                 0);
    snprintf(want, sizeof want, "{\"n\":\"Prov:Ev\",\"v\":9,\"meta\":{%s}}", golden_meta);
    KT_EXPECT_STR(out.data, want);

    /* unquoted raw-clock time, no cpu, pid only */
    ehd_buf_reset(&out);
    ehd_sample_info si2 = {.time_json = "123.123456789", .has_pid = 1, .pid = 7, .tid = 8};
    KT_EXPECT_EQ(
        ehd_eventheader_json(&out, "Prov_L4K0", 9, p, len, &si2, EHD_JSON_SPACE, &reason, &off), 0);
    KT_EXPECT_STR(out.data, "{ \"n\": \"Prov:Ev\", \"v\": 9, \"meta\": { \"time\": 123.123456789, "
                            "\"pid\": 7, \"tid\": 8, \"id\": 1000, \"version\": 11, \"level\": 4, "
                            "\"opcode\": 3, \"tag\": \"0x1234\", "
                            "\"activity\": \"01020304-0506-0708-090a-0b0c0d0e0f10\", "
                            "\"relatedActivity\": \"ffeeddcc-bbaa-9988-7766-554433221100\" } }");
    ehd_buf_free(&out);
    ehb_free(&e);
}

static void test_meta_activity_only_and_empty(void)
{
    ehb e;
    ehb_init(&e, 0, 0, "Ev");
    static const uint8_t act[16] = {0xaa, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
    ehb_activity(&e, act, NULL);
    EXPECT_JSON(
        &e, "P_L0K0", 0,
        "{\"n\":\"P:Ev\",\"meta\":{\"activity\":\"aabb0000-0000-0000-0000-000000000001\"}}");
    ehb_free(&e);
    /* level 0, nothing else: empty meta object */
    ehb_init(&e, 0, 0, "Ev");
    EXPECT_JSON(&e, "P_L0K0", 0, "{\"n\":\"P:Ev\",\"meta\":{}}");
    EXPECT_JSON(&e, "P_L0K0", EHD_JSON_SPACE, "{ \"n\": \"P:Ev\", \"meta\": { } }");
    ehb_free(&e);
}

static void test_names(void)
{
    ehb e;
    /* event name truncated at ';', field names verbatim, provider up to the LAST '_' */
    ehb_init(&e, 0, 5, "Named;attr=val");
    ehb_field(&e, "f;a=b", EH_ENC_VALUE8, 0);
    ehb_field(&e, "f;a=b", EH_ENC_VALUE8, 0); /* duplicates emitted as is */
    ehb_field(&e, "q\"\\\x01", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 1);
    ehb_u8(&e, 2);
    ehb_u8(&e, 3);
    EXPECT_JSON(&e, "Long_Provider_Name_L5K0Gasdf", 0,
                "{\"n\":\"Long_Provider_Name:Named\",\"f;a=b\":1,\"f;a=b\":2,"
                "\"q\\\"\\\\\\u0001\":3,\"meta\":{\"level\":5,\"options\":\"Gasdf\"}}");
    ehb_free(&e);
    /* options (§2): the name's whole options text, as written, after everything else; none
     * and the member is left out; keyword 0 omitted. Each name is decoded twice: the
     * second comes from the layout cache, which must keep the options of its own name. */
    ehb_init(&e, 0, 1, "E");
    for (int twice = 0; twice < 2; twice++) {
        EXPECT_JSON(&e, "P_L1K0Gmygroup", 0,
                    "{\"n\":\"P:E\",\"meta\":{\"level\":1,\"options\":\"Gmygroup\"}}");
        EXPECT_JSON(&e, "P_L1K0AbcGx1Z", 0,
                    "{\"n\":\"P:E\",\"meta\":{\"level\":1,\"options\":\"AbcGx1Z\"}}");
        EXPECT_JSON(&e, "P_L1K0G", 0, "{\"n\":\"P:E\",\"meta\":{\"level\":1,\"options\":\"G\"}}");
        EXPECT_JSON(&e, "P_L1K0", 0, "{\"n\":\"P:E\",\"meta\":{\"level\":1}}");
        EXPECT_JSON(&e, "P_L1K23", 0,
                    "{\"n\":\"P:E\",\"meta\":{\"level\":1,\"keyword\":\"0x23\"}}");
        EXPECT_JSON(&e, "P_L1K23Gg", EHD_JSON_SPACE | EHD_META_GOLDEN,
                    "{ \"n\": \"P:E\", \"meta\": { \"level\": 1, \"keyword\": \"0x23\", "
                    "\"options\": \"Gg\" } }");
    }
    /* a name has no length limit (§2.2): 3000 characters of options are printed whole */
    static char longname[3100], longwant[3200];
    memcpy(longname, "P_L1K0G", 7);
    memset(longname + 7, 'a', 3000);
    longname[3007] = 0;
    snprintf(longwant, sizeof longwant, "{\"n\":\"P:E\",\"meta\":{\"level\":1,\"options\":\"%s\"}}",
             longname + 6);
    EXPECT_JSON(&e, longname, 0, longwant);
    ehb_free(&e);
}

static void test_field_tags(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "hi", EH_ENC_VALUE8, EH_FMT_UNSIGNED_INT, 0x12, -1);
    ehb_field_ex(&e, "notag", EH_ENC_VALUE8, EH_FMT_UNSIGNED_INT, 0, -1); /* tag 0: no suffix */
    ehb_field_ex(&e, "S", EH_ENC_STRUCT, 1, 0xBEEF, -1);
    ehb_field_ex(&e, "m", EH_ENC_VALUE8, DEF, -1, -1);
    ehb_field_ex(&e, "arr", EH_ENC_VALUE8 | EH_ENC_CARRAY_FLAG, EH_FMT_SIGNED_INT, 0x7B, 2);
    ehb_field_ex(&e, "f;a=b", EH_ENC_VALUE8, 0, 0x12, -1);
    ehb_u8(&e, 1);
    ehb_u8(&e, 2);
    ehb_u8(&e, 3);
    ehb_u8(&e, 0xff);
    ehb_u8(&e, 4);
    ehb_u8(&e, 5);
    EXPECT_JSON(&e, "P_L5K0", EHD_JSON_FIELD_TAG,
                "{\"n\":\"P:E\",\"hi;tag=0x12\":1,\"notag\":2,\"S;tag=0xBEEF\":{\"m\":3},"
                "\"arr;tag=0x7B\":[-1,4],\"f;a=b;tag=0x12\":5,\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"hi\":1,\"notag\":2,\"S\":{\"m\":3},"
                "\"arr\":[-1,4],\"f;a=b\":5,\"meta\":{\"level\":5}}");
    ehb_free(&e);
}

/* ---- §3 structs and arrays -------------------------------------------------------- */

static void test_struct_nesting(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "a", EH_ENC_VALUE8, 0);
    ehb_field(&e, "s", EH_ENC_STRUCT, 3);
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_field(&e, "in", EH_ENC_STRUCT, 1);
    ehb_field(&e, "deep", EH_ENC_ZSTRING_CHAR8, 0);
    ehb_field(&e, "y", EH_ENC_VALUE8, 0);
    ehb_field(&e, "b", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 1);
    ehb_u8(&e, 2);
    ehb_sz8(&e, "d");
    ehb_u8(&e, 3);
    ehb_u8(&e, 4);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"a\":1,\"s\":{\"x\":2,\"in\":{\"deep\":\"d\"},\"y\":3},\"b\":4,"
                "\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", EHD_JSON_SPACE,
                "{ \"n\": \"P:E\", \"a\": 1, \"s\": { \"x\": 2, \"in\": { \"deep\": \"d\" }, "
                "\"y\": 3 }, \"b\": 4, \"meta\": { \"level\": 5 } }");
    ehb_free(&e);
}

static void test_struct_ends_with_metadata(void)
{
    /* A struct that claims 3 members but the metadata ends after 1 (legal), and
     * a struct with no member left at all: "{ }". */
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "s", EH_ENC_STRUCT, 3);
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_field(&e, "t", EH_ENC_STRUCT, 5);
    ehb_u8(&e, 7);
    EXPECT_JSON(&e, "P_L5K0", 0, "{\"n\":\"P:E\",\"s\":{\"x\":7,\"t\":{}},\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", EHD_JSON_SPACE,
                "{ \"n\": \"P:E\", \"s\": { \"x\": 7, \"t\": { } }, \"meta\": { \"level\": 5 } }");
    ehb_free(&e);
}

static void test_arrays_simple(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "c", EH_ENC_VALUE16 | EH_ENC_CARRAY_FLAG, EH_FMT_SIGNED_INT, -1, 3);
    ehb_field_ex(&e, "v", EH_ENC_VALUE32 | EH_ENC_VARRAY_FLAG, EH_FMT_HEX_INT, -1, -1);
    ehb_field_ex(&e, "empty", EH_ENC_VALUE8 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_field_ex(&e, "MyStrings3", EH_ENC_ZSTRING_CHAR8 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_field_ex(&e, "counted", EH_ENC_STRING_LENGTH16_CHAR16 | EH_ENC_CARRAY_FLAG, DEF, -1, 2);
    ehb_field_ex(&e, "bin", EH_ENC_BINARY_LENGTH16_CHAR8 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_field_ex(&e, "u", EH_ENC_VALUE128 | EH_ENC_CARRAY_FLAG, EH_FMT_UUID, -1, 1);
    ehb_u16(&e, 1);
    ehb_u16(&e, (uint16_t)-2);
    ehb_u16(&e, 3);
    ehb_u16(&e, 2);
    ehb_u32(&e, 0xA);
    ehb_u32(&e, 0);
    ehb_u16(&e, 0);
    ehb_u16(&e, 3);
    ehb_sz8(&e, "ABC");
    ehb_sz8(&e, "");
    ehb_sz8(&e, "XYZ");
    ehb_u16(&e, 1);
    ehb_u16(&e, 'q');
    ehb_u16(&e, 0);
    ehb_u16(&e, 1);
    ehb_u16(&e, 2);
    ehb_raw(&e, "\x01\x02", 2);
    ehb_raw(&e, B16, 16);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"c\":[1,-2,3],\"v\":[\"0xA\",\"0x0\"],\"empty\":[],"
                "\"MyStrings3\":[\"ABC\",\"\",\"XYZ\"],\"counted\":[\"q\",\"\"],"
                "\"bin\":[\"01 02\"],\"u\":[\"01020304-0506-0708-090a-0b0c0d0e0f10\"],"
                "\"meta\":{\"level\":5}}");
    EXPECT_JSON(
        &e, "P_L5K0", EHD_JSON_SPACE,
        "{ \"n\": \"P:E\", \"c\": [ 1, -2, 3 ], \"v\": [ \"0xA\", \"0x0\" ], \"empty\": [ ], "
        "\"MyStrings3\": [ \"ABC\", \"\", \"XYZ\" ], \"counted\": [ \"q\", \"\" ], "
        "\"bin\": [ \"01 02\" ], \"u\": [ \"01020304-0506-0708-090a-0b0c0d0e0f10\" ], "
        "\"meta\": { \"level\": 5 } }");
    ehb_free(&e);
}

/* Event with "pre", an array "sa" of struct {a: u8, in: struct {b: u8}}, then "post". */
static void array_of_struct_event(ehb *e, int varray, int n)
{
    ehb_init(e, 0, 5, "E");
    ehb_field(e, "pre", EH_ENC_VALUE8, 0);
    if (varray)
        ehb_field_ex(e, "sa", EH_ENC_STRUCT | EH_ENC_VARRAY_FLAG, 2, -1, -1);
    else
        ehb_field_ex(e, "sa", EH_ENC_STRUCT | EH_ENC_CARRAY_FLAG, 2, -1, n);
    ehb_field(e, "a", EH_ENC_VALUE8, 0);
    ehb_field(e, "in", EH_ENC_STRUCT, 1);
    ehb_field(e, "b", EH_ENC_VALUE8, 0);
    ehb_field(e, "post", EH_ENC_VALUE8, 0);
    ehb_u8(e, 100);
    if (varray)
        ehb_u16(e, (uint16_t)n);
    for (int i = 0; i < n; i++) {
        ehb_u8(e, (uint8_t)(10 + i));
        ehb_u8(e, (uint8_t)(20 + i));
    }
    ehb_u8(e, 200);
}

static void test_array_of_struct(void)
{
    ehb e;
    array_of_struct_event(&e, 1, 0); /* count 0: struct metadata skipped, "post" still found */
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"pre\":100,\"sa\":[],\"post\":200,\"meta\":{\"level\":5}}");
    EXPECT_JSON(
        &e, "P_L5K0", EHD_JSON_SPACE,
        "{ \"n\": \"P:E\", \"pre\": 100, \"sa\": [ ], \"post\": 200, \"meta\": { \"level\": 5 } }");
    ehb_free(&e);
    array_of_struct_event(&e, 0, 1);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"pre\":100,\"sa\":[{\"a\":10,\"in\":{\"b\":20}}],\"post\":200,"
                "\"meta\":{\"level\":5}}");
    ehb_free(&e);
    array_of_struct_event(&e, 1, 3);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"pre\":100,\"sa\":[{\"a\":10,\"in\":{\"b\":20}},"
                "{\"a\":11,\"in\":{\"b\":21}},{\"a\":12,\"in\":{\"b\":22}}],\"post\":200,"
                "\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", EHD_JSON_SPACE,
                "{ \"n\": \"P:E\", \"pre\": 100, \"sa\": [ { \"a\": 10, \"in\": { \"b\": 20 } }, "
                "{ \"a\": 11, \"in\": { \"b\": 21 } }, { \"a\": 12, \"in\": { \"b\": 22 } } ], "
                "\"post\": 200, \"meta\": { \"level\": 5 } }");
    ehb_free(&e);
    array_of_struct_event(&e, 0, 3);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"pre\":100,\"sa\":[{\"a\":10,\"in\":{\"b\":20}},"
                "{\"a\":11,\"in\":{\"b\":21}},{\"a\":12,\"in\":{\"b\":22}}],\"post\":200,"
                "\"meta\":{\"level\":5}}");
    ehb_free(&e);
}

static void test_array_in_array_of_struct(void)
{
    /* arrays nest only through structs: [ { "v": [..] }, ... ] */
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "o", EH_ENC_STRUCT | EH_ENC_CARRAY_FLAG, 1, -1, 2);
    ehb_field_ex(&e, "v", EH_ENC_VALUE8 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_u16(&e, 2);
    ehb_u8(&e, 1);
    ehb_u8(&e, 2);
    ehb_u16(&e, 0);
    EXPECT_JSON(&e, "P_L5K0", 0,
                "{\"n\":\"P:E\",\"o\":[{\"v\":[1,2]},{\"v\":[]}],\"meta\":{\"level\":5}}");
    ehb_free(&e);
}

/* ---- byte order, padding ------------------------------------------------------------- */

static void build_mixed(ehb *e, int be)
{
    ehb_init(e, be, 5, "Mixed");
    e->id = 0x1234;
    e->tag = 0xABCD;
    static const uint8_t act[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    ehb_activity(e, act, NULL);
    ehb_field(e, "u16", EH_ENC_VALUE16, 0);
    ehb_field(e, "i32", EH_ENC_VALUE32, EH_FMT_SIGNED_INT);
    ehb_field(e, "u64", EH_ENC_VALUE64, EH_FMT_HEX_INT);
    ehb_field(e, "f", EH_ENC_VALUE32, EH_FMT_FLOAT);
    ehb_field(e, "port", EH_ENC_VALUE16, EH_FMT_PORT);
    ehb_field(e, "s16", EH_ENC_STRING_LENGTH16_CHAR16, 0);
    ehb_field(e, "s32", EH_ENC_ZSTRING_CHAR32, 0);
    ehb_field_ex(e, "arr", EH_ENC_VALUE16 | EH_ENC_CARRAY_FLAG, 0, 0x102, 2);
    ehb_field_ex(e, "va", EH_ENC_VALUE32 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_u16(e, 0x0102);
    ehb_u32(e, (uint32_t)-70000);
    ehb_u64(e, 0x0102030405060708ull);
    ehb_u32(e, 0x4048F5C3);    /* 3.14f */
    ehb_raw(e, "\x00\x50", 2); /* port bytes are network order in both */
    ehb_u16(e, 2);
    ehb_u16(e, 'h');
    ehb_u16(e, 0xE9);
    ehb_u32(e, 0x1F600);
    ehb_u32(e, 0);
    ehb_u16(e, 1);
    ehb_u16(e, 2);
    ehb_u16(e, 1);
    ehb_u32(e, 65536);
}

static void test_big_endian_same_output(void)
{
    static const char want[] =
        "{\"n\":\"P:Mixed\",\"u16\":258,\"i32\":-70000,\"u64\":\"0x102030405060708\",\"f\":3.14,"
        "\"port\":80,\"s16\":\"h\xc3\xa9\",\"s32\":\"\xf0\x9f\x98\x80\",\"arr;tag=0x102\":[1,2],"
        "\"va\":[65536],\"meta\":{\"id\":4660,\"level\":5,\"tag\":\"0xABCD\","
        "\"activity\":\"01020304-0506-0708-090a-0b0c0d0e0f10\"}}";
    ehb le, be;
    build_mixed(&le, 0);
    build_mixed(&be, 1);
    EXPECT_JSON(&le, "P_L5K0", EHD_JSON_FIELD_TAG, want);
    EXPECT_JSON(&be, "P_L5K0", EHD_JSON_FIELD_TAG, want);
    /* and the two byte streams really differ */
    size_t nl, nb;
    const uint8_t *pl = ehb_finish(&le, &nl), *pb = ehb_finish(&be, &nb);
    KT_EXPECT_EQ(nl, nb);
    KT_EXPECT(memcmp(pl, pb, nl) != 0);
    KT_EXPECT_EQ(pb[0], 0x05);
    ehb_free(&le);
    ehb_free(&be);
}

static void test_padding_ignored(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 5);
    ehb_raw(&e, "\0\0\0\0\0\0\0", 7); /* perf pads to 8 */
    EXPECT_JSON(&e, "P_L5K0", 0, "{\"n\":\"P:E\",\"x\":5,\"meta\":{\"level\":5}}");
    ehb_free(&e);
    /* no fields at all, garbage after the metadata */
    ehb_init(&e, 0, 5, "E");
    ehb_raw(&e, "\xff\xff\xff", 3);
    EXPECT_JSON(&e, "P_L5K0", 0, "{\"n\":\"P:E\",\"meta\":{\"level\":5}}");
    ehb_free(&e);
}

static void test_unknown_extension_skipped(void)
{
    /* Header flags 0x07, then an unknown kind 0x55 extension (chained), then metadata. */
    static const uint8_t ev[] = {0x07, 0,    0, 0, 0, 0, 0,   5, 3,   0, 0x55, 0x80, 0xaa,
                                 0xbb, 0xcc, 5, 0, 1, 0, 'E', 0, 'x', 0, 2,    9};
    ehd_buf out;
    ehd_buf_init(&out);
    const char *reason = NULL;
    size_t off = 0;
    KT_EXPECT_EQ(ehd_eventheader_json(&out, "P_L5K0", 6, ev, sizeof ev, NULL, 0, &reason, &off), 0);
    KT_EXPECT_STR(out.data, "{\"n\":\"P:E\",\"x\":9,\"meta\":{\"level\":5}}");
    ehd_buf_free(&out);
}

/* ---- no reference limits ---------------------------------------------------------------- */

static void test_300_top_level_fields(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehd_buf want;
    ehd_buf_init(&want);
    ehd_buf_puts(&want, "{\"n\":\"P:E\"");
    for (int i = 0; i < 300; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        ehb_field(&e, name, EH_ENC_VALUE16, 0);
        ehb_u16(&e, (uint16_t)(i * 3));
        ehd_buf_printf(&want, ",\"f%d\":%d", i, i * 3);
    }
    ehd_buf_puts(&want, ",\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", 0, want.data);
    ehd_buf_free(&want);
    ehb_free(&e);
}

static void test_nesting_40_deep(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehd_buf want;
    ehd_buf_init(&want);
    ehd_buf_puts(&want, "{ \"n\": \"P:E\"");
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        ehb_field(&e, name, EH_ENC_STRUCT, 1);
        ehd_buf_printf(&want, "%s\"s%d\": {", i ? " " : ", ", i);
    }
    ehb_field(&e, "leaf", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 42);
    ehd_buf_puts(&want, " \"leaf\": 42");
    for (int i = 0; i < 40; i++)
        ehd_buf_puts(&want, " }");
    ehd_buf_puts(&want, ", \"meta\": { \"level\": 5 } }");
    EXPECT_JSON(&e, "P_L5K0", EHD_JSON_SPACE, want.data);
    ehd_buf_free(&want);
    ehb_free(&e);
}

static void test_5000_element_array(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "big", EH_ENC_VALUE16 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_field(&e, "after", EH_ENC_VALUE8, 0);
    ehd_buf want;
    ehd_buf_init(&want);
    ehd_buf_puts(&want, "{\"n\":\"P:E\",\"big\":[");
    ehb_u16(&e, 5000);
    for (int i = 0; i < 5000; i++) {
        ehb_u16(&e, (uint16_t)i);
        ehd_buf_printf(&want, "%s%d", i ? "," : "", i);
    }
    ehb_u8(&e, 1);
    ehd_buf_puts(&want, "],\"after\":1,\"meta\":{\"level\":5}}");
    EXPECT_JSON(&e, "P_L5K0", 0, want.data);
    ehd_buf_free(&want);
    ehb_free(&e);
}

/* ---- errors: errno, reason, offset, and out unchanged ---------------------------------- */

static void expect_error_raw(int line, const uint8_t *p, size_t len, const char *tp, int want_err)
{
    ehd_buf out;
    ehd_buf_init(&out);
    ehd_buf_puts(&out, "prefix");
    const char *reason = NULL;
    size_t off = (size_t)-1;
    int err =
        ehd_eventheader_json(&out, tp, strlen(tp), p, len, NULL, EHD_JSON_SPACE, &reason, &off);
    if (err != want_err) {
        kt_fail_at(__FILE__, line, "unexpected errno");
        kt_diag("  got %d (%s), want %d", err, reason ? reason : "-", want_err);
    }
    if (want_err && (out.len != 6 || strcmp(out.data, "prefix") != 0)) {
        kt_fail_at(__FILE__, line, "output changed on error");
        kt_diag("  out: %s", out.data);
    }
    if (err && (!reason || !*reason || strchr(reason, '\n')))
        kt_fail_at(__FILE__, line, "no one-line reason");
    if (err && off > len)
        kt_fail_at(__FILE__, line, "error offset outside the event");
    else if (err)
        kt_diag("errno %d at %zu: %s", err, off, reason);
    ehd_buf_free(&out);
}

static void expect_error(int line, ehb *e, const char *tp, int want_err)
{
    size_t len;
    const uint8_t *p = ehb_finish(e, &len);
    expect_error_raw(line, p, len, tp, want_err);
}
#define EXPECT_ERROR_RAW(bytes, tp, err) expect_error_raw(__LINE__, bytes, sizeof(bytes), tp, err)
#define EXPECT_ERROR(e, tp, err)         expect_error(__LINE__, e, tp, err)

static void test_error_truncated_values(void)
{
    ehb e;
    /* counted string claims 10 bytes, 3 present */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "msg", EH_ENC_STRING_LENGTH16_CHAR8, 0);
    ehb_u16(&e, 10);
    ehb_raw(&e, "abc", 3);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* zstring without terminator */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "z", EH_ENC_ZSTRING_CHAR8, 0);
    ehb_raw(&e, "abc", 3);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* char16 zstring: a lone 0 byte is not a terminator */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "z", EH_ENC_ZSTRING_CHAR16, 0);
    ehb_raw(&e, "a\0b", 3);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* value32 with 3 bytes */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "v", EH_ENC_VALUE32, 0);
    ehb_raw(&e, "abc", 3);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* length prefix itself cut */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "b", EH_ENC_BINARY_LENGTH16_CHAR8, 0);
    ehb_raw(&e, "\x01", 1);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* varray count beyond the data */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "va", EH_ENC_VALUE32 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_u16(&e, 5);
    ehb_u32(&e, 1);
    ehb_u32(&e, 2);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* varray count missing */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "va", EH_ENC_VALUE8 | EH_ENC_VARRAY_FLAG, DEF, -1, -1);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* array of struct runs out in the 2nd element */
    array_of_struct_event(&e, 1, 2);
    e.data.len -= 3; /* drop 'post', b and a of element 1 */
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
}

static void test_error_metadata(void)
{
    ehb e;
    /* struct with 0 members */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "s", EH_ENC_STRUCT, 0, -1, -1);
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* struct without a format byte: also 0 members */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "s", EH_ENC_STRUCT, DEF, -1, -1);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* both array flags */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "a", EH_ENC_VALUE8 | EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG, DEF, -1, 2);
    ehb_u16(&e, 1);
    ehb_u8(&e, 1);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", ENOTSUP);
    ehb_free(&e);
    /* carray count 0 */
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "a", EH_ENC_VALUE8 | EH_ENC_CARRAY_FLAG, DEF, -1, 0);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* encodings 0 and 14 */
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "a", 0, 0);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", ENOTSUP);
    ehb_free(&e);
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "a", 14, 0);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", ENOTSUP);
    ehb_free(&e);
    /* metadata ends inside a definition: name without NUL, encoding missing, tag cut */
    ehb_init(&e, 0, 5, "E");
    ehb_meta_raw(&e, "abc", 3);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    ehb_init(&e, 0, 5, "E");
    ehb_meta_raw(&e, "abc", 4);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    ehb_init(&e, 0, 5, "E");
    ehb_meta_raw(&e, "a\0\x82\x80\x01", 5);
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
    /* event name not NUL-terminated: metadata is just "E" */
    ehb_init(&e, 0, 5, "E");
    e.meta.len = 1;
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);
}

/* A level written in decimal into the tracepoint name (L255 for 255) is named in one
 * radix: both numbers in hex, so the reader sees at once that 0x255 is not 0xff. */
static void test_error_level_radix(void)
{
    ehb e;
    ehb_init(&e, 0, 255, "E");
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 1);
    size_t len;
    const uint8_t *p = ehb_finish(&e, &len);
    ehd_buf out;
    ehd_buf_init(&out);
    const char *reason = NULL;
    size_t off = 0;
    KT_EXPECT_EQ(EINVAL, ehd_eventheader_json(&out, "P_L255K0", 8, p, len, NULL, EHD_JSON_SPACE,
                                              &reason, &off));
    KT_EXPECT_STR(reason ? reason : "",
                  "tracepoint name level L255 (0x255) differs from header level 0xff (both hex)");
    KT_EXPECT_EQ(
        0, ehd_eventheader_json(&out, "P_LffK0", 7, p, len, NULL, EHD_JSON_SPACE, &reason, &off));
    ehd_buf_free(&out);
    ehb_free(&e);
}

static void test_error_header_and_name(void)
{
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field(&e, "x", EH_ENC_VALUE8, 0);
    ehb_u8(&e, 1);
    EXPECT_ERROR(&e, "P_L5K0", 0);                      /* the event itself is fine */
    EXPECT_ERROR(&e, "P_L4K0", EINVAL);                 /* level in name differs from header */
    EXPECT_ERROR(&e, "PL5K0", EINVAL);                  /* no '_' */
    EXPECT_ERROR(&e, "P_L5K0_", EINVAL);                /* nothing after the last '_' */
    EXPECT_ERROR(&e, "P_5K0", EINVAL);                  /* no 'L' */
    EXPECT_ERROR(&e, "P_L5", EINVAL);                   /* no 'K' */
    EXPECT_ERROR(&e, "P_L5K", EINVAL);                  /* no keyword digits */
    EXPECT_ERROR(&e, "P_LK0", EINVAL);                  /* no level digits */
    EXPECT_ERROR(&e, "P_L5KA", EINVAL);                 /* uppercase hex is not the name format */
    EXPECT_ERROR(&e, "P_L5K0g", EINVAL);                /* option must start with [A-Z] */
    EXPECT_ERROR(&e, "P_L5K0G_x", EINVAL);              /* the last '_' is in the options */
    EXPECT_ERROR(&e, "P_L5K11111111111111111", EINVAL); /* keyword over 64 bits */
    ehb_free(&e);

    /* unknown header flag bits */
    ehb_init(&e, 0, 5, "E");
    e.flags = 0x0f;
    EXPECT_ERROR(&e, "P_L5K0", ENOTSUP);
    e.flags = 0x87;
    EXPECT_ERROR(&e, "P_L5K0", ENOTSUP);
    ehb_free(&e);

    /* missing metadata: no extension flag at all, and an activity extension only */
    ehb_init(&e, 0, 5, "E");
    e.no_metadata = 1;
    e.flags = 0x03;
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    static const uint8_t id[16] = {1};
    ehb_activity(&e, id, NULL);
    e.flags = 0x07;
    EXPECT_ERROR(&e, "P_L5K0", EBADMSG);
    ehb_free(&e);

    static const uint8_t short_event[] = {0x07, 0, 0, 0, 0, 0, 0};
    EXPECT_ERROR_RAW(short_event, "P_L0K0", EBADMSG);
    static const uint8_t chain_cut[] = {0x07, 0, 0, 0, 0, 0, 0, 5, 4, 0};
    EXPECT_ERROR_RAW(chain_cut, "P_L5K0", EBADMSG);
    static const uint8_t ext_too_big[] = {0x07, 0, 0, 0, 0, 0, 0, 5, 9, 0, 1, 0, 'E', 0};
    EXPECT_ERROR_RAW(ext_too_big, "P_L5K0", EBADMSG);
    static const uint8_t kind0[] = {0x07, 0, 0, 0, 0, 0, 0, 5, 2, 0, 0, 0, 'E', 0};
    EXPECT_ERROR_RAW(kind0, "P_L5K0", EBADMSG);
    static const uint8_t two_meta[] = {0x07, 0,    0,   0, 0, 0, 0, 5, 2,   0,
                                       1,    0x80, 'E', 0, 2, 0, 1, 0, 'F', 0};
    EXPECT_ERROR_RAW(two_meta, "P_L5K0", EBADMSG);
    static const uint8_t activity20[24 + 12] = {0x07, 0, 0, 0,    0,        0, 0, 5,
                                                20,   0, 2, 0x80, [32] = 2, 0, 1, 0};
    EXPECT_ERROR_RAW(activity20, "P_L5K0", EBADMSG);
    static const uint8_t two_activity[] = {
        0x07, 0, 0, 0,  0,  0,  0,  5,  16, 0,  2,  0x80, 1, 2,    3, 4, 5,   6,
        7,    8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 0,    2, 0x80, 1, 2, 3,   4,
        5,    6, 7, 8,  9,  10, 11, 12, 13, 14, 15, 16,   2, 0,    1, 0, 'E', 0};
    EXPECT_ERROR_RAW(two_activity, "P_L5K0", EBADMSG);
    /* metadata then activity, 16 bytes: fine (extension order is free) */
    static const uint8_t meta_then_activity[] = {0x07, 0, 0,  0,  0,  0,  0,  5,  2,  0, 1, 0x80,
                                                 'E',  0, 16, 0,  2,  0,  1,  2,  3,  4, 5, 6,
                                                 7,    8, 9,  10, 11, 12, 13, 14, 15, 16};
    EXPECT_ERROR_RAW(meta_then_activity, "P_L5K0", 0);
}

static void test_bound_struct_depth(void)
{
    /* 1024 nested structs decode, 1025 hit ehconf's documented bound (E2BIG). */
    for (int depth = 1024; depth <= 1025; depth++) {
        ehb e;
        ehb_init(&e, 0, 5, "E");
        for (int i = 0; i < depth; i++)
            ehb_field(&e, "s", EH_ENC_STRUCT, 1);
        ehb_field(&e, "v", EH_ENC_VALUE8, 0);
        ehb_u8(&e, 1);
        EXPECT_ERROR(&e, "P_L5K0", depth == 1024 ? 0 : E2BIG);
        ehb_free(&e);
    }
}

static void test_bound_output_explosion(void)
{
    /* carray(65535) of struct { carray(65535) of struct (metadata ends: no members) }:
     * no payload, 65535 * 65535 "{ }" -> stopped at 64 MiB with E2BIG. */
    ehb e;
    ehb_init(&e, 0, 5, "E");
    ehb_field_ex(&e, "o", EH_ENC_STRUCT | EH_ENC_CARRAY_FLAG, 1, -1, 65535);
    ehb_field_ex(&e, "i", EH_ENC_STRUCT | EH_ENC_CARRAY_FLAG, 1, -1, 65535);
    EXPECT_ERROR(&e, "P_L5K0", E2BIG);
    ehb_free(&e);
}

KT_MAIN(KT_CASE(test_value8), KT_CASE(test_value16), KT_CASE(test_value32), KT_CASE(test_value64),
        KT_CASE(test_value128), KT_CASE(test_zstring_char8), KT_CASE(test_zstring_char16_char32),
        KT_CASE(test_counted_strings), KT_CASE(test_binary), KT_CASE(test_length16_fixed_formats),
        KT_CASE(test_hello_event), KT_CASE(test_meta_all_members),
        KT_CASE(test_meta_activity_only_and_empty), KT_CASE(test_names), KT_CASE(test_field_tags),
        KT_CASE(test_struct_nesting), KT_CASE(test_struct_ends_with_metadata),
        KT_CASE(test_arrays_simple), KT_CASE(test_array_of_struct),
        KT_CASE(test_array_in_array_of_struct), KT_CASE(test_big_endian_same_output),
        KT_CASE(test_padding_ignored), KT_CASE(test_unknown_extension_skipped),
        KT_CASE(test_300_top_level_fields), KT_CASE(test_nesting_40_deep),
        KT_CASE(test_5000_element_array), KT_CASE(test_error_truncated_values),
        KT_CASE(test_error_metadata), KT_CASE(test_error_header_and_name),
        KT_CASE(test_error_level_radix), KT_CASE(test_bound_struct_depth),
        KT_CASE(test_bound_output_explosion))
