/* SPDX-License-Identifier: MIT */
/*
 * EH_WRITE's fast path (eventheader.h, eh_gather_item_): a site's first write goes through
 * the library (eh_event_write_, which builds the metadata and gathers the items itself),
 * its later writes are gathered in the caller, where the compiler folds each item's kind
 * and size. Each site below is written twice with the same values, and the second record
 * must be the bytes of the first (which test_encode holds to hand-written bytes for the same
 * kinds), or the same error with nothing written: values staged side by side, arrays and
 * strings of a length the compiler knows or not, over and under the 16 bytes that are
 * copied, NULs, counts, raw fields, structs, and the sites the fast path leaves alone
 * (arrays of structs, activity ids, more than 64 items).
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(fp, "TestFast");

/* Fills the stack below the caller with a pattern, so that a byte the second write fails
 * to set is not one the first write's frame left there by chance. */
__attribute__((noinline)) static void scribble(void)
{
    volatile uint8_t junk[16384];
    memset((uint8_t *)junk, 0xa5, sizeof junk);
}

/* The record of a site written twice: both writes return want_err; with 0, exactly one
 * record each and the second the same bytes as the first; else nothing written. */
static int twice(const char *file, int line, int (*write)(const void *arg), const void *arg,
                 int want_err)
{
    size_t a = cap_size();
    scribble();
    int e1 = write(arg);
    size_t b = cap_size();
    scribble();
    int e2 = write(arg);
    size_t c = cap_size();
    if (e1 != want_err || e2 != want_err) {
        kt_diag("%s:%d: returned %d then %d, expected %d", file, line, e1, e2, want_err);
        return 0;
    }
    if (want_err) {
        if (c != a)
            kt_diag("%s:%d: wrote %zu bytes for a refused event", file, line, c - a);
        return c == a;
    }
    size_t l1, l2;
    uint8_t *r1 = cap_read_from(a, &l1);
    uint8_t *r2 = cap_read_from(b, &l2);
    int ok = b > a && c - b == b - a &&
             kt_mem_diff(file, line, "second write (gathered in the caller)", r2, l2, r1, l1 - l2);
    if (!(b > a && c - b == b - a))
        kt_diag("%s:%d: record sizes %zu then %zu", file, line, b - a, c - b);
    free(r1);
    free(r2);
    return ok;
}
#define TWICE(fn, arg, err) twice(__FILE__, __LINE__, (fn), (arg), (err))

static const uint8_t guid[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t ip4[4] = {192, 168, 0, 1};
static const uint32_t u32s[8] = {1, 2, 3, 4, 5, 6, 7, 0xffffffff};

static int w_scalars(const void *arg)
{
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("Scalars", 5, 1), EH_U8("u8", 0xab), EH_I16("i16", -2),
                    EH_U32_HEX("h32", 0x12345678), EH_I64("i64", -1), EH_F32("f32", 1.5f),
                    EH_F64("f64", -2.0), EH_BOOL32("b", 1), EH_GUID("g", guid), EH_IPV4("ip", ip4),
                    EH_PORT("port", 0x5000), EH_POINTER("ptr", (void *)0x1122),
                    EH_CHAR16("c", 0x263a, EH_TAG(0x55), EH_FORMAT(EH_FMT_HEX_INT)));
}

/* Lengths the compiler knows: 16 bytes and under are copied, longer ones pointed at. */
static int w_const_strings(const void *arg)
{
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("ConstStrings", 4, 2), EH_STR8("s16", "0123456789abcdef", 16),
                    EH_STR8("s17", "0123456789abcdefg", 17), EH_STR8("s0", "", 0),
                    EH_STR16("w", u"hi", 2), EH_STR32("d", U"x", 1), EH_CSTR8("z", "hey"),
                    EH_CSTR16("z16", u"ok"), EH_CSTR32("z32", U"Z"), EH_CSTR8_N("zn", "abcdef", 3),
                    EH_BINARY("bin", "\x01\x02", 2), EH_U32_ARRAY("a2", u32s, 2),
                    EH_U32_ARRAY("a8", u32s, 8), EH_U32_SLICE("sl", u32s, 3));
}

/* Lengths known only at run time: each a piece of its own in the caller. */
struct var {
    const char *s;
    size_t n;
    const uint32_t *a;
    size_t an;
};
static int w_var_strings(const void *arg)
{
    const struct var *v = arg;
    return EH_WRITE(fp, EH_EVENT("VarStrings", 4, 2), EH_U8("before", 1), EH_STR8("s", v->s, v->n),
                    EH_CSTR8("z", v->s), EH_CSTR8_N("zn", v->s, v->n / 2),
                    EH_U32_SLICE("sl", v->a, v->an), EH_BINARY("bin", v->s, v->n),
                    EH_U8("after", 2));
}

static int w_struct_raw(const void *arg)
{
    (void)arg;
    static const uint8_t raw[] = {3, 0, 'a', 'b', 'c'};
    static const uint8_t data[] = {0x11, 0x22, 0x33, 0x44};
    return EH_WRITE(
        fp, EH_EVENT("StructRaw", 3, 0, .opcode = 1, .tag = 7, .id = 9, .version = 2),
        EH_STRUCT("outer", EH_I32("a", -1),
                  EH_STRUCT_TAGGED("inner", 0x12, EH_CSTR8("b", "text"), EH_U64("c", 42))),
        EH_RAW_FIELD("rf", EH_ENC_STRING_LENGTH16_CHAR8, raw, sizeof raw),
        EH_RAW_META("rm", EH_ENC_VALUE32), EH_RAW_DATA(data, sizeof data));
}

/* Not gathered in the caller: arrays of structs and activity ids go through the library
 * every time, and so does a site of more than 64 items: one of more than 128, which the
 * library never marks as gathered, and one of 72, which it marks but whose loop the
 * header leaves to the library (EH_GATHERED_HERE_). */
struct pt {
    int16_t x, y;
};
static int w_struct_array(const void *arg)
{
    (void)arg;
    static const struct pt pts[2] = {{1, -1}, {2, -2}};
    return EH_WRITE(
        fp, EH_EVENT("StructArray", 5, 1), EH_U8("n", 2),
        EH_STRUCT_ARRAY("pts", pts, 2, EH_MEMBER_I16(struct pt, x), EH_MEMBER_I16(struct pt, y)));
}
static int w_activity(const void *arg)
{
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("Activity", 5, 1), EH_ACTIVITY_ID(guid), EH_U8("n", 2));
}
#define U8X8(p)                                                                          \
    EH_U8(p "0", 0), EH_U8(p "1", 1), EH_U8(p "2", 2), EH_U8(p "3", 3), EH_U8(p "4", 4), \
        EH_U8(p "5", 5), EH_U8(p "6", 6), EH_U8(p "7", 7)
static int w_many(const void *arg)
{
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("Many", 5, 1),
                    EH_STRUCT("s0", U8X8("a"), U8X8("b"), U8X8("c"), U8X8("d")),
                    EH_STRUCT("s1", U8X8("a"), U8X8("b"), U8X8("c"), U8X8("d")),
                    EH_STRUCT("s2", U8X8("a"), U8X8("b"), U8X8("c"), U8X8("d")),
                    EH_STRUCT("s3", U8X8("a"), U8X8("b"), U8X8("c"), U8X8("d")),
                    EH_STR8("last", "0123456789abcdefghij", 20));
}
static int w_seventy_two(const void *arg)
{
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("SeventyTwo", 5, 1), U8X8("a"), U8X8("b"), U8X8("c"), U8X8("d"),
                    U8X8("e"), U8X8("f"), U8X8("g"), U8X8("h"), U8X8("i"));
}

/* What the fast path refuses, as the library does: nothing written. */
static int w_count_over(const void *arg)
{
    static uint8_t big[70000];
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("CountOver", 5, 1), EH_U8_SLICE("sl", big, sizeof big));
}
static int w_size_over(const void *arg)
{
    static uint8_t big[65535];
    (void)arg;
    return EH_WRITE(fp, EH_EVENT("SizeOver", 5, 1), EH_BINARY("b", big, sizeof big));
}
/* 65535 bytes after the write index: header 8, metadata extension 4 + "AtLimit\0" 8 +
 * "b\0", encoding, format 4, then the count 2 and the bytes; one more is too many. */
enum { AT_LIMIT = 65535 - 8 - 4 - 8 - 4 - 2 };
static int w_size_at_limit(const void *arg)
{
    static uint8_t big[AT_LIMIT + 1];
    return EH_WRITE(fp, EH_EVENT("AtLimit", 5, 1), EH_BINARY("b", big, AT_LIMIT + (arg != NULL)));
}

static void test_register(void)
{
    cap_setup("static_fast");
    KT_EXPECT_EQ(eh_provider_register(&fp), 0);
}

static void test_scalars(void)
{
    KT_EXPECT(TWICE(w_scalars, NULL, 0));
}

static void test_const_strings(void)
{
    KT_EXPECT(TWICE(w_const_strings, NULL, 0));
}

static void test_var_strings(void)
{
    static const char s40[] = "0123456789012345678901234567890123456789";
    struct var shortv = {"abc", 3, u32s, 2}, longv = {s40, 40, u32s, 8}, empty = {"", 0, NULL, 0};
    KT_EXPECT(TWICE(w_var_strings, &shortv, 0));
    KT_EXPECT(TWICE(w_var_strings, &longv, 0));
    KT_EXPECT(TWICE(w_var_strings, &empty, 0));
    struct var nul = {NULL, 0, u32s, 1}; /* EH_CSTR8 of NULL: an empty string */
    KT_EXPECT(TWICE(w_var_strings, &nul, 0));
}

static void test_struct_raw(void)
{
    KT_EXPECT(TWICE(w_struct_raw, NULL, 0));
}

static void test_not_gathered_inline(void)
{
    KT_EXPECT(TWICE(w_struct_array, NULL, 0));
    KT_EXPECT(TWICE(w_activity, NULL, 0));
    KT_EXPECT(TWICE(w_many, NULL, 0));
    size_t mark = cap_size();
    KT_EXPECT(TWICE(w_seventy_two, NULL, 0));
    /* Both writes took the library's path, so they must also be right, not only equal:
     * the payload is the 72 values 0..7 nine times, after all of the metadata. */
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf;
    struct cap_record rec;
    KT_EXPECT_EQ(cap_next(&p, buf + len, &rec), 1);
    int in_place = 0;
    if (rec.event_len >= 72)
        for (int i = 0; i < 72; i++)
            in_place += rec.event[rec.event_len - 72 + i] == i % 8;
    KT_EXPECT_EQ(in_place, 72);
    free(buf);
}

static void test_refused(void)
{
    KT_EXPECT(TWICE(w_count_over, NULL, E2BIG));
    KT_EXPECT(TWICE(w_size_over, NULL, E2BIG));
    KT_EXPECT(TWICE(w_size_at_limit, NULL, 0));
    KT_EXPECT(TWICE(w_size_at_limit, "one more", E2BIG));
}

/* After unregister the fast path answers EBADF and writes nothing; registered again, the
 * site writes the same record as before. */
static void test_unregister(void)
{
    KT_EXPECT(TWICE(w_scalars, NULL, 0));
    KT_EXPECT_EQ(eh_provider_unregister(&fp), 0);
    KT_EXPECT(TWICE(w_scalars, NULL, EBADF));
    KT_EXPECT_EQ(eh_provider_register(&fp), 0);
    KT_EXPECT(TWICE(w_scalars, NULL, 0));
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_scalars), KT_CASE(test_const_strings),
        KT_CASE(test_var_strings), KT_CASE(test_struct_raw), KT_CASE(test_not_gathered_inline),
        KT_CASE(test_refused), KT_CASE(test_unregister))
