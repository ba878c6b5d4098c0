/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the capture (.dat) reader (Documentation/eventheader-wire.md §9):
 * u32 little-endian record size (including itself), NUL-terminated tracepoint
 * name, event bytes. Files are written by hand into tmpfile()s.
 */
#include <stdio.h>
#include <string.h>

#include "ehd.h"
#include "ktap.h"

static void put_record(FILE *f, uint32_t size_field, const void *body, size_t n)
{
    uint8_t s[4] = {(uint8_t)size_field, (uint8_t)(size_field >> 8), (uint8_t)(size_field >> 16),
                    (uint8_t)(size_field >> 24)};
    fwrite(s, 1, 4, f);
    fwrite(body, 1, n, f);
}

static FILE *file_of(void (*fill)(FILE *))
{
    FILE *f = tmpfile();
    fill(f);
    rewind(f);
    return f;
}

static void fill_good(FILE *f)
{
    put_record(f, 4 + 7 + 3, "A_L5K0\0xyz", 10); /* offset 0, event "xyz" */
    put_record(f, 4 + 7, "B_L1K2\0", 7);         /* offset 14, empty event */
    static uint8_t big[5000];
    memcpy(big, "C_L5K0", 7);
    for (size_t i = 7; i < sizeof big; i++)
        big[i] = (uint8_t)i;
    put_record(f, 4 + sizeof big, big, sizeof big); /* offset 25 */
}

static void test_reads_records(void)
{
    FILE *f = file_of(fill_good);
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 0;
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 1);
    KT_EXPECT_EQ(rec.file_offset, 0);
    KT_EXPECT_STR(rec.tp_name, "A_L5K0");
    KT_EXPECT_EQ(rec.tp_name_len, 6);
    KT_EXPECT_EQ(rec.size, 3);
    KT_EXPECT_MEM(rec.data, rec.size, "xyz", 3);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 1);
    KT_EXPECT_EQ(rec.file_offset, 14);
    KT_EXPECT_STR(rec.tp_name, "B_L1K2");
    KT_EXPECT_EQ(rec.size, 0);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 1);
    KT_EXPECT_EQ(rec.file_offset, 25);
    KT_EXPECT_STR(rec.tp_name, "C_L5K0");
    KT_EXPECT_EQ(rec.size, 5000 - 7);
    KT_EXPECT_EQ(rec.data[0], 7);
    KT_EXPECT_EQ(rec.data[4992], (uint8_t)4999);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 0);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 0);
    ehd_dat_close(r);
    fclose(f);
}

static void fill_empty(FILE *f)
{
    (void)f;
}

static void test_empty_file(void)
{
    FILE *f = file_of(fill_empty);
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 0;
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 0);
    ehd_dat_close(r);
    fclose(f);
}

static void fill_bad_name_then_good(FILE *f)
{
    put_record(f, 4 + 3, "abc", 3);   /* no NUL: record skipped */
    put_record(f, 4 + 4, "D_L\0", 4); /* offset 7 */
}

static void test_name_not_terminated_is_skippable(void)
{
    FILE *f = file_of(fill_bad_name_then_good);
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 99;
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), -1);
    KT_EXPECT(reason != NULL && strstr(reason, "NUL") != NULL);
    KT_EXPECT_EQ(off, 4); /* the name starts after the size field */
    KT_EXPECT_EQ(ehd_dat_can_continue(r), 1);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 1);
    KT_EXPECT_EQ(rec.file_offset, 7);
    KT_EXPECT_STR(rec.tp_name, "D_L");
    KT_EXPECT_EQ(rec.size, 0);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 0);
    ehd_dat_close(r);
    fclose(f);
}

static void fill_small_size(FILE *f)
{
    put_record(f, 4 + 2, "E\0", 2);
    put_record(f, 4, "", 0); /* offset 6: size 4 < 5 */
    put_record(f, 4 + 2, "F\0", 2);
}

static void fill_past_eof(FILE *f)
{
    put_record(f, 4 + 2, "E\0", 2);
    put_record(f, 100, "G\0abc", 5); /* offset 6: claims 100 bytes */
}

static void fill_cut_size(FILE *f)
{
    put_record(f, 4 + 2, "E\0", 2);
    fwrite("\x09\x00", 1, 2, f); /* offset 6: half a size field */
}

static void fill_huge_size(FILE *f)
{
    put_record(f, 4 + 2, "E\0", 2);
    put_record(f, 0xffffffffu, "H\0abc", 5); /* offset 6: claims 4 GiB */
}

static void expect_fatal_second(void (*fill)(FILE *), const char *word)
{
    FILE *f = file_of(fill);
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_dat_record rec;
    const char *reason = NULL;
    uint64_t off = 0;
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 1);
    KT_EXPECT_STR(rec.tp_name, "E");
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), -1);
    KT_EXPECT_EQ(off, 6);
    KT_EXPECT(reason != NULL && strstr(reason, word) != NULL);
    if (reason)
        kt_diag("reason: %s", reason);
    KT_EXPECT_EQ(ehd_dat_can_continue(r), 0);
    KT_EXPECT_EQ(ehd_dat_next(r, &rec, &reason, &off), 0); /* nothing more after a fatal error */
    ehd_dat_close(r);
    fclose(f);
}

static void test_size_below_minimum(void)
{
    expect_fatal_second(fill_small_size, "smaller than 5");
}

static void test_record_past_eof(void)
{
    expect_fatal_second(fill_past_eof, "past the end");
}

static void test_size_field_cut(void)
{
    expect_fatal_second(fill_cut_size, "cut short");
}

static void test_huge_size_no_huge_allocation(void)
{
    /* Under ASan a 4 GiB allocation would fail loudly; the reader must not try. */
    expect_fatal_second(fill_huge_size, "past the end");
}

KT_MAIN(KT_CASE(test_huge_size_no_huge_allocation), KT_CASE(test_reads_records),
        KT_CASE(test_empty_file), KT_CASE(test_name_not_terminated_is_skippable),
        KT_CASE(test_size_below_minimum), KT_CASE(test_record_past_eof),
        KT_CASE(test_size_field_cut))
