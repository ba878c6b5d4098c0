/* SPDX-License-Identifier: MIT */
/*
 * Every limit and error of libeventheader on the capture backend: each failing
 * call must return its errno and leave the capture file as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(lim, "TestLimits");
EH_DEFINE_PROVIDER(bad_space, "Bad Name");
EH_DEFINE_PROVIDER(bad_colon, "Bad:Name");
EH_DEFINE_PROVIDER_GROUP(bad_group, "BadGroup", "Upper");
EH_DEFINE_PROVIDER_GROUP(bad_group2, "BadGroup2", "a_b");
EH_DEFINE_PROVIDER(long_ok, NULL);  /* name set at run time: 254-char tracepoint name */
EH_DEFINE_PROVIDER(long_bad, NULL); /* 255 chars + NUL = 256: too long */
EH_DEFINE_PROVIDER(long_kw, "LongKeyword");
EH_DEFINE_PROVIDER(empty_name, "");

static char name_ok[256], name_bad[256], name_kw[256];

static void test_register(void)
{
    cap_setup("limits");
    KT_EXPECT_EQ(eh_provider_register(&lim), 0);
}

/* Expects `call` to return `err` and the capture file to stay the same size. */
#define EXPECT_FAILS_CLEANLY(call, err)                                                      \
    do {                                                                                     \
        size_t mark_ = cap_size();                                                           \
        int r_ = (call);                                                                     \
        if (r_ != (err)) {                                                                   \
            kt_failed_now = 1;                                                               \
            kt_diag("%s:%d: %s returned %d, want %d", __FILE__, __LINE__, #call, r_, (err)); \
        }                                                                                    \
        KT_EXPECT_EQ(cap_size(), mark_);                                                     \
    } while (0)

static void test_bad_provider_names(void)
{
    /* Each provider has one call site, so register has a tracepoint to reject. */
    EXPECT_FAILS_CLEANLY(eh_provider_register(&bad_space), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(bad_space, EH_EVENT("E", 5, 1)), EBADF);
    EXPECT_FAILS_CLEANLY(eh_provider_register(&bad_colon), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(bad_colon, EH_EVENT("E", 5, 1)), EBADF);
    EXPECT_FAILS_CLEANLY(eh_provider_register(&bad_group), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(bad_group, EH_EVENT("E", 5, 1)), EBADF);
    EXPECT_FAILS_CLEANLY(eh_provider_register(&bad_group2), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(bad_group2, EH_EVENT("E", 5, 1)), EBADF);
    EXPECT_FAILS_CLEANLY(eh_provider_register(&empty_name), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(empty_name, EH_EVENT("E", 5, 1)), EBADF);
    KT_EXPECT(!EH_ENABLED(bad_space, 5, 1));
}

static void test_name_length(void)
{
    /* "<249 x 'p'>_L5K1" is 254 characters: with its NUL, 255 < 256. */
    memset(name_ok, 'p', 249);
    long_ok.name = name_ok;
    memset(name_bad, 'q', 250);
    long_bad.name = name_bad;
    char tp[EH_NAME_MAX];
    KT_EXPECT_EQ(eh_tracepoint_name(tp, name_ok, NULL, 5, 1), 0);
    KT_EXPECT_EQ(strlen(tp), 254);
    KT_EXPECT_EQ(eh_tracepoint_name(tp, name_bad, NULL, 5, 1), EINVAL);

    KT_EXPECT_EQ(eh_provider_register(&long_ok), 0);
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(long_ok, EH_EVENT("E", 5, 1)), 0);
    KT_EXPECT(cap_size() > mark);

    EXPECT_FAILS_CLEANLY(eh_provider_register(&long_bad), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(long_bad, EH_EVENT("E", 5, 1)), EBADF);

    /* One site's keyword makes its name too long: nothing of the provider registers. */
    memset(name_kw, 'k', 236); /* 236 + "_L5K1" fits; 236 + "_L5Kffffffffffffffff" = 256 */
    long_kw.name = name_kw;
    EXPECT_FAILS_CLEANLY(eh_provider_register(&long_kw), EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(long_kw, EH_EVENT("Short", 5, 1)), EBADF);
    EXPECT_FAILS_CLEANLY(EH_WRITE(long_kw, EH_EVENT("Long", 5, 0xffffffffffffffff)), EBADF);

    /* A runtime tracepoint whose name would be too long. */
    eh_tracepoint *t = (eh_tracepoint *)1;
    KT_EXPECT_EQ(eh_provider_tracepoint(&long_ok, 0xff, 1, &t), EINVAL);
    KT_EXPECT(t == NULL);
}

static void test_event_names(void)
{
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("", 5, 1), EH_U8("a", 1)), EINVAL);
    /* the error is remembered by the call site */
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("", 5, 1), EH_U8("a", 1)), EINVAL);
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("Name;attr=v;other=w", 5, 1)), 0);
    KT_EXPECT(cap_size() > mark);

    eh_builder b;
    eh_builder_init(&b);
    KT_EXPECT_EQ(eh_builder_reset(&b, "", 0, 0, 0, 0), EINVAL);
    eh_tracepoint *tp;
    KT_EXPECT_EQ(eh_provider_tracepoint(&lim, 5, 1, &tp), 0);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EINVAL);
    eh_builder_destroy(&b);
}

#define F1    EH_U8("f", 1)
#define F2    F1, F1
#define F4    F2, F2
#define F8    F4, F4
#define F16   F8, F8
#define F32   F16, F16
#define F64   F32, F32
#define F127  F64, F32, F16, F8, F4, F2, F1
#define F1000 F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F32, F8

static void test_struct_member_limit_static(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("S127", 5, 1), EH_STRUCT("s", F127)), 0);
    KT_EXPECT(cap_size() > mark);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("S128", 5, 1), EH_STRUCT("s", F127, F1)), EINVAL);
    /* nested: the inner struct counts as one member of the outer one */
    mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("S127n", 5, 1),
                          EH_STRUCT("s", F64, F32, F16, F8, F4, F2, EH_STRUCT("in", F127))),
                 0);
    KT_EXPECT(cap_size() > mark);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("R128", 5, 1), EH_RAW_STRUCT("r", 128), F127, F1),
                         EINVAL);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("R0", 5, 1), EH_RAW_STRUCT("r", 0), F1), EINVAL);
    /* a raw struct promised more members than follow */
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("Rshort", 5, 1), EH_RAW_STRUCT("r", 3), F2),
                         EINVAL);
}

static void test_struct_member_limit_builder(void)
{
    eh_builder b;
    eh_tracepoint *tp;
    uint8_t one = 1;
    KT_EXPECT_EQ(eh_provider_tracepoint(&lim, 5, 1, &tp), 0);
    eh_builder_init(&b);
    for (int n = 126; n <= 129; n++) {
        eh_builder_reset(&b, "Members", 0, 0, 0, 0);
        eh_builder_begin_struct(&b, "s", 0);
        for (int i = 0; i < n; i++)
            eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
        eh_builder_end_struct(&b);
        size_t mark = cap_size();
        int r = eh_builder_write(&b, tp, NULL, NULL);
        if (n <= 127) {
            KT_EXPECT_EQ(r, 0);
            KT_EXPECT(cap_size() > mark);
        } else {
            KT_EXPECT_EQ(r, EINVAL);
            KT_EXPECT_EQ(cap_size(), mark);
        }
    }
    /* empty struct, empty struct array element */
    eh_builder_reset(&b, "Empty", 0, 0, 0, 0);
    eh_builder_begin_struct(&b, "s", 0);
    KT_EXPECT_EQ(eh_builder_end_struct(&b), EINVAL);
    KT_EXPECT_EQ(eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one), EINVAL); /* sticky */
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EINVAL);
    eh_builder_reset(&b, "EmptyArr", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&b, "a", 0, 2);
    KT_EXPECT_EQ(eh_builder_next_element(&b), EINVAL);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EINVAL);
    /* open struct at write time */
    eh_builder_reset(&b, "Open", 0, 0, 0, 0);
    eh_builder_begin_struct(&b, "s", 0);
    eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EINVAL);
    /* element with a different member count than element 0 */
    eh_builder_reset(&b, "Mismatch", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&b, "a", 0, 2);
    eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
    eh_builder_next_element(&b);
    eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
    eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
    KT_EXPECT_EQ(eh_builder_end_struct(&b), EINVAL);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EINVAL);
    /* fewer elements than announced */
    eh_builder_reset(&b, "Few", 0, 0, 0, 0);
    eh_builder_begin_struct_array(&b, "a", 0, 3);
    eh_builder_add_value(&b, "f", EH_ENC_VALUE8, 0, 0, &one);
    KT_EXPECT_EQ(eh_builder_end_struct(&b), EINVAL);
    /* bad encodings */
    eh_builder_reset(&b, "BadEnc", 0, 0, 0, 0);
    KT_EXPECT_EQ(eh_builder_add_value(&b, "f", EH_ENC_STRUCT, 0, 0, &one), EINVAL);
    eh_builder_reset(&b, "BadEnc", 0, 0, 0, 0);
    KT_EXPECT_EQ(eh_builder_add_string(&b, "f", EH_ENC_VALUE8, 0, 0, "x", 1), EINVAL);
    eh_builder_reset(&b, "BadEnc", 0, 0, 0, 0);
    KT_EXPECT_EQ(eh_builder_add_carray(&b, "f", EH_ENC_VALUE8, 0, 0, &one, 0), EINVAL);
    eh_builder_destroy(&b);
}

static void test_deep_nesting(void)
{
    eh_builder b;
    eh_tracepoint *tp;
    uint8_t one = 1;
    KT_EXPECT_EQ(eh_provider_tracepoint(&lim, 5, 1, &tp), 0);
    eh_builder_init(&b);
    eh_builder_reset(&b, "Deep", 0, 0, 0, 0);
    for (int i = 0; i < 300; i++)
        eh_builder_begin_struct(&b, "s", 0);
    eh_builder_add_value(&b, "v", EH_ENC_VALUE8, 0, 0, &one);
    for (int i = 0; i < 300; i++)
        eh_builder_end_struct(&b);
    KT_EXPECT_EQ(eh_builder_write(&b, tp, NULL, NULL), 0);
    eh_builder_destroy(&b);
}

/* Top-level fields are not limited: 1,000 one-byte fields, more pieces than the
 * fast path gathers, so the event is linearized. */
static void test_thousand_fields(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("Many", 5, 1), F1000), 0);
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf;
    struct cap_record rec;
    KT_EXPECT_EQ(cap_next(&p, buf + len, &rec), 1);
    /* 8 header + 4 ext + "Many\0" 5 + 1000 x ("f\0", 0x02) + 1000 x 0x01 */
    KT_EXPECT_EQ(rec.event_len, 8 + 4 + 5 + 3000 + 1000);
    if (rec.event_len == 4017) {
        /* in the event's byte order, which is the writer's (the header's flags say which):
         * read as little-endian, this failed on the s390x guest */
        uint16_t ext_size;
        memcpy(&ext_size, rec.event + 8, 2);
        KT_EXPECT_EQ(ext_size, 3005);
        KT_EXPECT_EQ(rec.event[17 + 2997], 'f');
        KT_EXPECT_EQ(rec.event[17 + 2999], 0x02);
        int ones = 0;
        for (int i = 0; i < 1000; i++)
            ones += rec.event[3017 + i] == 1;
        KT_EXPECT_EQ(ones, 1000);
    }
    free(buf);
}

#define G1  EH_U32("g", __COUNTER__)
#define G2  G1, G1
#define G4  G2, G2
#define G8  G4, G4
#define G16 G8, G8
#define G32 G16, G16
#define G64 G32, G32

/* 200 u32 fields (800 bytes) overflow the write path's 512-byte stage for small
 * values: the values after it are referenced in place; order must be kept. */
static void test_many_small_values(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("Stage", 5, 1), G64, G64, G64, G8), 0);
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf;
    struct cap_record rec;
    KT_EXPECT_EQ(cap_next(&p, buf + len, &rec), 1);
    /* 8 header + 4 ext + "Stage\0" 6 + 200 x ("g\0", 0x04) + 200 x 4 bytes */
    KT_EXPECT_EQ(rec.event_len, 8 + 4 + 6 + 600 + 800);
    if (rec.event_len == 1418) {
        int in_order = 0;
        uint32_t first, v;
        memcpy(&first, rec.event + 618, 4);
        for (int i = 0; i < 200; i++) {
            memcpy(&v, rec.event + 618 + 4 * i, 4);
            in_order += v == first + (uint32_t)i; /* __COUNTER__ counts up per field */
        }
        KT_EXPECT_EQ(in_order, 200);
    }
    free(buf);
}

/* Size of an event with one str8 field "b" of n bytes named "Big":
 * 8 header + 4 ext + "Big\0" 4 + "b\0" 0x0a 3 + 2 count + n = 21 + n. */
static void test_size_limit_static(void)
{
    static uint8_t big[70000];
    memset(big, 'x', sizeof big);
    size_t mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_STR8("b", big, 65514)), 0);
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf;
    struct cap_record rec;
    KT_EXPECT_EQ(cap_next(&p, buf + len, &rec), 1);
    KT_EXPECT_EQ(rec.event_len, 65535);
    free(buf);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_STR8("b", big, 65515)), E2BIG);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_STR8("b", big, 65536)), E2BIG);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_STR8("b", big, 70000)), E2BIG);
    /* an activity id adds 20 bytes */
    static const uint8_t act[16];
    EXPECT_FAILS_CLEANLY(
        EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_ACTIVITY_ID(act), EH_STR8("b", big, 65514)), E2BIG);
    mark = cap_size();
    KT_EXPECT_EQ(
        EH_WRITE(lim, EH_EVENT("Big", 5, 1), EH_ACTIVITY_ID(act), EH_STR8("b", big, 65494)), 0);
    KT_EXPECT(cap_size() > mark);
    /* many pieces (linearized) at the limit: 1000 fields + a string */
    mark = cap_size();
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("Many", 5, 1), F1000, EH_STR8("b", big, 65535 - 4017 - 5)),
                 0);
    KT_EXPECT(cap_size() > mark);
    EXPECT_FAILS_CLEANLY(
        EH_WRITE(lim, EH_EVENT("Many", 5, 1), F1000, EH_STR8("b", big, 65535 - 4017 - 4)), E2BIG);
}

static void test_size_limit_builder(void)
{
    static uint8_t big[70000];
    eh_builder b;
    eh_tracepoint *tp;
    KT_EXPECT_EQ(eh_provider_tracepoint(&lim, 5, 1, &tp), 0);
    eh_builder_init(&b);
    /* a ladder around the limit: 21 + n bytes */
    for (size_t n = 65510; n <= 65516; n++) {
        eh_builder_reset(&b, "Big", 0, 0, 0, 0);
        eh_builder_add_string(&b, "b", EH_ENC_STRING_LENGTH16_CHAR8, 0, 0, big, n);
        size_t mark = cap_size();
        int r = eh_builder_write(&b, tp, NULL, NULL);
        if (21 + n <= 65535) {
            KT_EXPECT_EQ(r, 0);
            KT_EXPECT_EQ(cap_size() - mark, 4 + strlen("TestLimits_L5K1") + 1 + 21 + n);
        } else {
            KT_EXPECT_EQ(r, E2BIG);
            KT_EXPECT_EQ(cap_size(), mark);
        }
    }
    eh_builder_reset(&b, "Big", 0, 0, 0, 0);
    KT_EXPECT_EQ(eh_builder_add_string(&b, "b", EH_ENC_STRING_LENGTH16_CHAR8, 0, 0, big, 65536),
                 E2BIG);
    eh_builder_reset(&b, "Big", 0, 0, 0, 0);
    eh_builder_add_raw_meta(&b, "b", EH_ENC_BINARY_LENGTH16_CHAR8, 0, 0, 0);
    eh_builder_add_raw_data(&b, big, 70000);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), E2BIG);
    eh_builder_destroy(&b);
}

static void test_write_after_unregister(void)
{
    eh_tracepoint *tp;
    eh_builder b;
    KT_EXPECT_EQ(eh_provider_tracepoint(&lim, 5, 1, &tp), 0);
    KT_EXPECT_EQ(eh_provider_unregister(&lim), 0);
    EXPECT_FAILS_CLEANLY(EH_WRITE(lim, EH_EVENT("After", 5, 1), EH_U8("a", 1)), EBADF);
    KT_EXPECT(!eh_tracepoint_enabled(tp));
    eh_builder_init(&b);
    eh_builder_reset(&b, "After", 0, 0, 0, 0);
    EXPECT_FAILS_CLEANLY(eh_builder_write(&b, tp, NULL, NULL), EBADF);
    KT_EXPECT_EQ(eh_provider_unregister(&lim), 0);
    /* registering again brings back the same runtime tracepoint and the sites */
    KT_EXPECT_EQ(eh_provider_register(&lim), 0);
    KT_EXPECT(eh_tracepoint_enabled(tp));
    size_t mark = cap_size();
    KT_EXPECT_EQ(eh_builder_write(&b, tp, NULL, NULL), 0);
    KT_EXPECT_EQ(EH_WRITE(lim, EH_EVENT("After", 5, 1), EH_U8("a", 1)), 0);
    KT_EXPECT(cap_size() > mark);
    eh_builder_destroy(&b);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_bad_provider_names), KT_CASE(test_name_length),
        KT_CASE(test_event_names), KT_CASE(test_struct_member_limit_static),
        KT_CASE(test_struct_member_limit_builder), KT_CASE(test_deep_nesting),
        KT_CASE(test_thousand_fields), KT_CASE(test_many_small_values),
        KT_CASE(test_size_limit_static), KT_CASE(test_size_limit_builder),
        KT_CASE(test_write_after_unregister))
