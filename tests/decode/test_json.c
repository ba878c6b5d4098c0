/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of libehdecode's JSON helpers: string escaping (§4.1), UTF-8
 * validation with Latin-1 fallback, Latin-1, UTF-16/UTF-32 transcoding (§4.8),
 * the datetime formatter (§4.6 plus ehconf's pinned any-int64 calendar) and
 * the shortest round-trip float formatter (§4.4). Every expected string is
 * written by hand from Documentation/decoder-json.md.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ehd.h"
#include "ktap.h"

/* Runs fn over (s, n) into a fresh buffer and compares with want (want_len bytes). */
#define EXPECT_JSON(call, want)                                 \
    do {                                                        \
        ehd_buf b_;                                             \
        ehd_buf_init(&b_);                                      \
        call;                                                   \
        KT_EXPECT_MEM(b_.data, b_.len, want, sizeof(want) - 1); \
        ehd_buf_free(&b_);                                      \
    } while (0)

#define UTF8(lit, want) EXPECT_JSON(ehd_json_string_utf8(&b_, lit, sizeof(lit) - 1), want)

static void test_buf_basics(void)
{
    ehd_buf b;
    ehd_buf_init(&b);
    ehd_buf_puts(&b, "abc");
    ehd_buf_putc(&b, 'd');
    ehd_buf_printf(&b, "%d-%s", 42, "x");
    KT_EXPECT_STR(b.data, "abcd42-x");
    ehd_buf_truncate(&b, 2);
    KT_EXPECT_STR(b.data, "ab");
    /* printf longer than any small internal buffer */
    char big[1000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ehd_buf_printf(&b, "<%s>", big);
    KT_EXPECT_EQ(b.len, 2 + 1 + 999 + 1);
    KT_EXPECT_EQ(b.data[b.len - 1], '>');
    ehd_buf_reset(&b);
    KT_EXPECT_EQ(b.len, 0);
    KT_EXPECT_EQ(b.oom, 0);
    ehd_buf_free(&b);
}

static void test_escape_ascii(void)
{
    UTF8("plain", "\"plain\"");
    UTF8("q\"b\\s/", "\"q\\\"b\\\\s/\""); /* '/' is not escaped */
    UTF8("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
    UTF8("\x01\x1f", "\"\\u0001\\u001f\""); /* lowercase hex */
    UTF8("\x7f", "\"\x7f\"");               /* DEL raw */
    EXPECT_JSON(ehd_json_string_utf8(&b_, "a\0b", 3), "\"a\\u0000b\"");
    UTF8("", "\"\"");
}

static void test_utf8_valid_copied(void)
{
    UTF8("\xc3\xa9", "\"\xc3\xa9\"");                 /* é */
    UTF8("\xe2\x82\xac", "\"\xe2\x82\xac\"");         /* € */
    UTF8("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""); /* U+1F600 */
    UTF8("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */
    UTF8("\xed\x9f\xbf", "\"\xed\x9f\xbf\"");         /* U+D7FF, just below surrogates */
}

static void test_utf8_invalid_latin1_fallback(void)
{
    /* Each byte of an invalid sequence is re-read as Latin-1: 0xC0 -> C3 80 "À",
     * 0xAF -> C2 AF "¯". */
    UTF8("\xc0\xaf", "\"\xc3\x80\xc2\xaf\"");                         /* overlong 2-byte '/' */
    UTF8("\xe0\x80\xaf", "\"\xc3\xa0\xc2\x80\xc2\xaf\"");             /* overlong 3-byte */
    UTF8("\xf0\x80\x80\xaf", "\"\xc3\xb0\xc2\x80\xc2\x80\xc2\xaf\""); /* overlong 4-byte */
    UTF8("\x80", "\"\xc2\x80\"");                                     /* stray continuation */
    UTF8("a\xbfz", "\"a\xc2\xbfz\"");
    UTF8("\xf5\x80\x80\x80", "\"\xc3\xb5\xc2\x80\xc2\x80\xc2\x80\""); /* F5 lead */
    UTF8("\xff", "\"\xc3\xbf\"");
    UTF8("\xfe", "\"\xc3\xbe\"");
    UTF8("\xf4\x90\x80\x80", "\"\xc3\xb4\xc2\x90\xc2\x80\xc2\x80\""); /* > U+10FFFF */
    UTF8("\xe2\x82", "\"\xc3\xa2\xc2\x82\"");                         /* truncated at the end */
    UTF8("\xe2\x82z", "\"\xc3\xa2\xc2\x82z\"");                       /* truncated by ASCII */
    UTF8("\xc3", "\"\xc3\x83\"");
}

static void test_utf8_surrogate_pinned(void)
{
    /* The reference passes ED A0..BF xx (a surrogate in 3-byte form) through as
     * invalid UTF-8; ehconf pins U+FFFD (EF BF BD) so output stays valid UTF-8. */
    UTF8("\xed\xa0\x80", "\"\xef\xbf\xbd\"");
    UTF8("a\xed\xbf\xbfz", "\"a\xef\xbf\xbdz\"");
}

static void test_latin1(void)
{
    EXPECT_JSON(ehd_json_string_latin1(&b_, "\xe9", 1), "\"\xc3\xa9\"");
    EXPECT_JSON(ehd_json_string_latin1(&b_, "\xfe\x80\"", 3), "\"\xc3\xbe\xc2\x80\\\"\"");
    EXPECT_JSON(ehd_json_string_latin1(&b_, "\0\n", 2), "\"\\u0000\\n\"");
}

static void test_utf16(void)
{
    static const uint8_t le[] = {'h', 0, 0xe9, 0, 0x3d, 0xd8, 0x00, 0xde}; /* h é U+1F600 */
    EXPECT_JSON(ehd_json_string_utf16(&b_, le, sizeof le, 0), "\"h\xc3\xa9\xf0\x9f\x98\x80\"");
    static const uint8_t be[] = {0, 'h', 0x20, 0xac};
    EXPECT_JSON(ehd_json_string_utf16(&b_, be, sizeof be, 1), "\"h\xe2\x82\xac\"");
    /* lone low, high followed by non-low, high at the end: each U+FFFD (pinned) */
    static const uint8_t lone[] = {0x00, 0xdc, 0x01, 0xd8, 'a', 0, 0x02, 0xd8};
    EXPECT_JSON(ehd_json_string_utf16(&b_, lone, sizeof lone, 0), "\"\xef\xbf\xbd\xef\xbf\xbd"
                                                                  "a\xef\xbf\xbd\"");
    static const uint8_t odd[] = {'a', 0, 'b'};
    EXPECT_JSON(ehd_json_string_utf16(&b_, odd, sizeof odd, 0), "\"a\xef\xbf\xbd\"");
    static const uint8_t ctl[] = {0x1f, 0};
    EXPECT_JSON(ehd_json_string_utf16(&b_, ctl, sizeof ctl, 0), "\"\\u001f\"");
}

static void test_utf32(void)
{
    static const uint8_t le[] = {'a', 0, 0, 0, 0xff, 0xff, 0x10, 0, 0x00, 0xf6, 0x01, 0};
    EXPECT_JSON(ehd_json_string_utf32(&b_, le, sizeof le, 0),
                "\"a\xf4\x8f\xbf\xbf\xf0\x9f\x98\x80\"");
    /* 0x110000, 0xFFFEFDFC, a surrogate: all U+FFFD (pinned; reference: raw bytes) */
    static const uint8_t bad[] = {0, 0, 0x11, 0, 0xfc, 0xfd, 0xfe, 0xff, 0x00, 0xd8, 0, 0};
    EXPECT_JSON(ehd_json_string_utf32(&b_, bad, sizeof bad, 0),
                "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    static const uint8_t be[] = {0, 0, 0, 'z'};
    EXPECT_JSON(ehd_json_string_utf32(&b_, be, sizeof be, 1), "\"z\"");
}

static void expect_dt(int64_t s, const char *want)
{
    char t[32];
    memset(t, 'X', sizeof t);
    size_t n = ehd_format_datetime(t, s);
    KT_EXPECT_EQ(n, strlen(want));
    t[n < sizeof t ? n : sizeof t - 1] = 0;
    KT_EXPECT_STR(t, want);
}

static void test_datetime(void)
{
    expect_dt(0, "1970-01-01T00:00:00");
    expect_dt(-1, "1969-12-31T23:59:59");
    expect_dt(INT32_MIN, "1901-12-13T20:45:52");
    expect_dt(INT32_MAX, "2038-01-19T03:14:07");
    expect_dt(951782400, "2000-02-29T00:00:00"); /* 30 years + 7 leap days + 59 days */
    expect_dt(253402300799LL, "9999-12-31T23:59:59");
    expect_dt(253402300800LL, "10000-01-01T00:00:00"); /* pinned: all digits above 9999 */
    expect_dt(-62135596800LL, "0001-01-01T00:00:00");
    expect_dt(-62167219200LL, "0000-01-01T00:00:00");
    expect_dt(-62167219201LL, "-0001-12-31T23:59:59"); /* pinned: '-' + 4 digits */
    /* -400 years exactly (146097 days) before 0000-01-01 */
    expect_dt(-62167219200LL - 146097LL * 86400, "-0400-01-01T00:00:00");
    /* Extremes: floor(s / 86400) days, 400-year cycles of 146097 days. */
    expect_dt(INT64_MIN, "-292277022657-01-27T08:29:52");
    expect_dt(INT64_MAX, "292277026596-12-04T15:30:07");
}

static void expect_f32(float v, const char *want)
{
    char t[40];
    size_t n = ehd_format_float32(t, v);
    t[n] = 0;
    KT_EXPECT_STR(t, want);
}

static void expect_f64(double v, const char *want)
{
    char t[40];
    size_t n = ehd_format_float64(t, v);
    t[n] = 0;
    KT_EXPECT_STR(t, want);
}

static float f32_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double f64_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void test_float_examples(void)
{
    /* The examples of §4.4. */
    expect_f32(3.14f, "3.14");
    expect_f32(1.0f / 3.0f, "0.33333334");
    expect_f64(1.0 / 3.0, "0.3333333333333333");
    expect_f32(65.0f, "65");
    expect_f32(0.0f, "0");
    expect_f32(-0.0f, "-0");
    expect_f64(-0.0, "-0");
    expect_f64(1e21, "1e+21");
    expect_f64(1e20, "1e+20");
    expect_f64(1e-5, "1e-05");
    expect_f64(1e-4, "1e-04");
    expect_f64(1e-7, "1e-07");
    expect_f64(1e-40, "1e-40");
    expect_f32(1e-40f, "1e-40");
    expect_f32(f32_bits(1), "1e-45");      /* smallest f32 subnormal */
    expect_f64(f64_bits(1), "5e-324");     /* smallest f64 subnormal */
    expect_f32(123456789.0f, "123456792"); /* exact integer in fixed form */
    expect_f32(-5.9903676e+29f, "-5.9903676e+29");
    expect_f64(-1.1413996157316056e+236, "-1.1413996157316056e+236");
}

static void test_float_notation_choice(void)
{
    /* fixed when not longer than scientific, ties -> fixed */
    expect_f64(1e-3, "0.001");     /* 5 vs "1e-03" 5: tie -> fixed */
    expect_f64(1e4, "10000");      /* 5 vs 5 */
    expect_f64(1e5, "1e+05");      /* 6 vs 5 */
    expect_f64(1.5e-4, "0.00015"); /* 7 vs "1.5e-04" 7 */
    expect_f64(1.5e-5, "1.5e-05");
    expect_f64(123400000.0, "123400000"); /* 9 vs "1.234e+08" 9 */
    expect_f64(1234000000.0, "1.234e+09");
    expect_f64(0.1 + 0.2, "0.30000000000000004");
    expect_f64(1e100, "1e+100");
    expect_f64(1.7976931348623157e308, "1.7976931348623157e+308");
    expect_f64(2.5, "2.5");
    expect_f32(16777216.0f, "16777216");
    expect_f32(3.4028235e38f, "3.4028235e+38");
    expect_f32(0.1f, "0.1");
}

static void test_float_ties_and_powers_of_two(void)
{
    /* Exactly halfway between two shortest candidates: round half to even on
     * the last digit, as Ryu-based to_chars does (4023748.75 -> ...8). */
    expect_f32(4023748.75f, "4023748.8");
    expect_f32(-28947.1875f, "-28947.188");
    /* Powers of two: the gap below is half the gap above, so the nearest
     * 8-digit decimal (1.2621774e-29 for 2^-96) does not read back while its
     * neighbour does. */
    expect_f32(f32_bits(0x0f800000u), "1.2621775e-29");                    /* 2^-96 */
    expect_f32(f32_bits(0x6b000000u), "1.5474251e+26");                    /* 2^87 */
    expect_f64(f64_bits(0x0060000000000000ull), "7.120236347223045e-307"); /* 2^-1017 */
}

static void test_float_non_finite(void)
{
    expect_f32(f32_bits(0x7fc00000u), "nan");
    expect_f32(f32_bits(0xffc00000u), "-nan");
    expect_f64(f64_bits(0x7ff8000000000000ull), "nan");
    expect_f64(f64_bits(0xfff8000000000000ull), "-nan");
    expect_f32(INFINITY, "inf");
    expect_f64(-INFINITY, "-inf");
}

KT_MAIN(KT_CASE(test_buf_basics), KT_CASE(test_escape_ascii), KT_CASE(test_utf8_valid_copied),
        KT_CASE(test_utf8_invalid_latin1_fallback), KT_CASE(test_utf8_surrogate_pinned),
        KT_CASE(test_latin1), KT_CASE(test_utf16), KT_CASE(test_utf32), KT_CASE(test_datetime),
        KT_CASE(test_float_examples), KT_CASE(test_float_notation_choice),
        KT_CASE(test_float_ties_and_powers_of_two), KT_CASE(test_float_non_finite))
