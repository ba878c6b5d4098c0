/* SPDX-License-Identifier: MIT */
/*
 * tracefs format parsing and the §7 rendering of non-EventHeader tracepoints
 * (Documentation/decoder-json.md §7): type deduction from the declaration, __data_loc /
 * __rel_loc, fixed arrays, pointers, "unsigned long" and unknown typedefs as hex.
 * Expected kinds and JSON are worked out by hand from §7.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "support_perf_util.h"

#define FIELDS                                                          \
    "\tfield:__data_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n"   \
    "\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;\n"   \
    "\tfield:unsigned long flags;\toffset:16;\tsize:8;\tsigned:0;\n"    \
    "\tfield:const char * ptr;\toffset:24;\tsize:8;\tsigned:0;\n"       \
    "\tfield:u64 vals[2];\toffset:32;\tsize:16;\tsigned:0;\n"           \
    "\tfield:s16 sh;\toffset:48;\tsize:2;\tsigned:1;\n"                 \
    "\tfield:struct foo blob;\toffset:50;\tsize:3;\tsigned:0;\n"        \
    "\tfield:gfp_t gfp;\toffset:53;\tsize:4;\tsigned:0;\n"              \
    "\tfield:unsigned char uc;\toffset:57;\tsize:1;\tsigned:0;\n"       \
    "\tfield:int arr[TASK_LEN];\toffset:58;\tsize:8;\tsigned:1;\n"      \
    "\tfield:__data_loc u16[] dyn16;\toffset:66;\tsize:4;\tsigned:0;\n" \
    "\tfield:bool ok;\toffset:70;\tsize:1;\tsigned:0;\n"

static const char format_text[] =
    "name: custom\nID: 77\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" FIELDS "\nprint fmt: \"x\"\n";

static void test_parse_fields(void)
{
    ehd_tp_format f;
    const char *reason = NULL;
    KT_EXPECT_EQ(ehd_tp_format_parse(&f, "test", format_text, sizeof format_text - 1, &reason), 0);
    KT_EXPECT_STR(f.system, "test");
    KT_EXPECT_STR(f.name, "custom");
    KT_EXPECT_EQ(f.id, 77);
    KT_EXPECT_EQ(f.nfields, 16);
    KT_EXPECT_EQ(f.first_user, 4);
    KT_EXPECT_EQ(f.is_eventheader, 0);
    if (f.nfields != 16) {
        ehd_tp_format_free(&f);
        return;
    }
    static const struct {
        const char *name, *type;
        uint8_t kind, loc, is_array;
        uint32_t elem, count;
    } want[12] = {
        {"msg", "__data_loc char[]", EHD_TP_STRING, EHD_TP_LOC_DATA, 1, 1, 0},
        {"rel", "__rel_loc char[]", EHD_TP_STRING, EHD_TP_LOC_REL, 1, 1, 0},
        {"flags", "unsigned long", EHD_TP_HEX, 0, 0, 8, 0},
        {"ptr", "const char *", EHD_TP_HEX, 0, 0, 8, 0},
        {"vals", "u64", EHD_TP_UNSIGNED, 0, 1, 8, 2},
        {"sh", "s16", EHD_TP_SIGNED, 0, 0, 2, 0},
        {"blob", "struct foo", EHD_TP_NONE, 0, 0, 1, 0},
        {"gfp", "gfp_t", EHD_TP_HEX, 0, 0, 4, 0},
        {"uc", "unsigned char", EHD_TP_UNSIGNED, 0, 0, 1, 0},
        {"arr", "int", EHD_TP_SIGNED, 0, 1, 4, 2},
        {"dyn16", "__data_loc u16[]", EHD_TP_UNSIGNED, EHD_TP_LOC_DATA, 1, 2, 0},
        {"ok", "bool", EHD_TP_HEX, 0, 0, 1, 0},
    };
    for (size_t i = 0; i < 12; i++) {
        const ehd_tp_field *fd = &f.fields[4 + i];
        KT_EXPECT_STR(fd->name, want[i].name);
        KT_EXPECT_STR(fd->type, want[i].type);
        if (fd->kind != want[i].kind || fd->loc != want[i].loc ||
            fd->is_array != want[i].is_array || fd->elem_size != want[i].elem ||
            fd->array_count != want[i].count) {
            kt_diag("field %s: kind %u loc %u array %u elem %u count %u", fd->name, fd->kind,
                    fd->loc, fd->is_array, fd->elem_size, fd->array_count);
            KT_EXPECT(0);
        }
    }
    KT_EXPECT_EQ(f.fields[0].offset, 0);
    KT_EXPECT_EQ(f.fields[3].is_signed, 1);
    KT_EXPECT_EQ(f.fields[4 + 4].offset, 32);
    KT_EXPECT_EQ(f.fields[4 + 4].size, 16);
    ehd_tp_format_free(&f);
}

static void test_parse_rejects(void)
{
    ehd_tp_format f;
    const char *reason = NULL;
    static const char no_id[] = "name: x\nformat:\n";
    KT_EXPECT_EQ(ehd_tp_format_parse(&f, NULL, no_id, sizeof no_id - 1, &reason), EBADMSG);
    KT_EXPECT_STR(reason, "format has no name: or ID: line");
    static const char bad_field[] = "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:zz;\n";
    KT_EXPECT_EQ(ehd_tp_format_parse(&f, NULL, bad_field, sizeof bad_field - 1, &reason), EBADMSG);
    KT_EXPECT_STR(reason, "malformed field line in format");
    /* the user_events format of an EventHeader tracepoint */
    static const char eh[] = "name: P_L5K1\nID: 9\nformat:\n"
                             "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                             "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
                             "\tfield:u8 eventheader_flags;\toffset:8;\tsize:1;\tsigned:0;\n";
    KT_EXPECT_EQ(ehd_tp_format_parse(&f, "user_events", eh, sizeof eh - 1, &reason), 0);
    KT_EXPECT_EQ(f.is_eventheader, 1);
    ehd_tp_format_free(&f);
}

/* Payload (raw bytes 8..84) for FIELDS in the given byte order. */
static void build_payload(uint8_t *raw, int be, uint16_t msg_off)
{
    memset(raw, 0, 85);
#define PUT(off, v, n)                                                                  \
    do {                                                                                \
        for (int k_ = 0; k_ < (n); k_++)                                                \
            raw[(off) + (be ? (n)-1 - k_ : k_)] = (uint8_t)((uint64_t)(v) >> (8 * k_)); \
    } while (0)
    PUT(8, (6u << 16) | msg_off, 4);    /* msg: "hello\0" at 72 */
    PUT(12, (3u << 16) | (78 - 16), 4); /* rel: "ab\0" at 78, counted from the end (16) */
    PUT(16, 0x1234, 8);                 /* flags */
    PUT(24, 0xffffffff81000000ull, 8);  /* ptr */
    PUT(32, 1, 8);                      /* vals[0] */
    PUT(40, UINT64_MAX, 8);             /* vals[1] */
    PUT(48, (uint16_t)-2, 2);           /* sh */
    raw[50] = 0xde, raw[51] = 0xad, raw[52] = 0x01; /* blob */
    PUT(53, 0xcc0, 4);                              /* gfp */
    raw[57] = 200;                                  /* uc */
    PUT(58, (uint32_t)-1, 4);                       /* arr[0] */
    PUT(62, 7, 4);                                  /* arr[1] */
    PUT(66, (4u << 16) | 81, 4);                    /* dyn16: 2 x u16 at 81 */
    raw[70] = 1;                                    /* ok */
    memcpy(raw + 72, "hello", 6);
    memcpy(raw + 78, "ab", 3);
    PUT(81, 258, 2);
    PUT(83, 5, 2);
#undef PUT
}

static void test_render_non_eventheader(void)
{
    for (int be = 0; be < 2; be++) {
        ehd_perf_writer_opts o = {0};
        o.big_endian = be;
        o.custom_fields = FIELDS;
        FILE *out = tmpfile();
        const char *reason;
        ehd_perf_writer *w = ehd_perf_writer_open(out, &o, NULL, 0, &reason);
        KT_EXPECT(w != NULL);
        if (!w) {
            fclose(out);
            return;
        }
        uint8_t raw[85];
        build_payload(raw, be, 72);
        KT_EXPECT_EQ(ehd_perf_writer_sample(w, 0, raw + 8, 77, 10, 1, 1, 0), 0);
        build_payload(raw, be, 200); /* msg points outside the record */
        KT_EXPECT_EQ(ehd_perf_writer_sample(w, 0, raw + 8, 77, 20, 1, 1, 0), 0);
        KT_EXPECT_EQ(ehd_perf_writer_finish(w), 0);
        size_t size;
        uint8_t *img = perf_test_slurp(out, &size);
        fclose(out);
        struct perf_test_out r;
        KT_EXPECT_EQ(perf_test_decode(img, size, EHD_JSON_SPACE | EHD_META_GOLDEN, &r), 0);
        KT_EXPECT_EQ(r.n, 2);
        if (r.n == 2) {
            KT_EXPECT_STR(r.ev[0],
                          "{ \"n\": \"test:custom\", \"msg\": \"hello\", \"rel\": \"ab\", "
                          "\"flags\": \"0x1234\", \"ptr\": \"0xFFFFFFFF81000000\", \"vals\": [ 1, "
                          "18446744073709551615 ], \"sh\": -2, \"blob\": \"de ad 01\", \"gfp\": "
                          "\"0xCC0\", \"uc\": 200, \"arr\": [ -1, 7 ], \"dyn16\": [ 258, 5 ], "
                          "\"ok\": \"0x1\", \"meta\": { } }");
            KT_EXPECT(strstr(r.ev[1], "{ \"n\": \"test:custom\", \"msg\": null, \"rel\": \"ab\"") ==
                      r.ev[1]);
        }
        perf_test_out_free(&r);
        free(img);
    }
}

KT_MAIN(KT_CASE(test_parse_fields), KT_CASE(test_parse_rejects),
        KT_CASE(test_render_non_eventheader))
