/* SPDX-License-Identifier: MIT */
/*
 * libdesc's byte order (emitlib/c/desc_order.c): which bytes of a value are a number in
 * the machine's order and which keep an order the format fixes (eventheader-wire.md §5:
 * uuids, addresses and ports in network order, hex_bytes as bytes; decoder-json.md
 * §4.12: a counted char8 or binary field read as one number). On a big-endian machine
 * desc_parse reverses the numbers, so a wrong answer here is a wrong event there; the
 * answers are checked on any machine, the values parse unchanged on a little-endian one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "ktap.h"

/* One event of the fields below, in the order the tests index them. */
static const char description[] = "case order\n"
                                  "provider P\n"
                                  "register\n"
                                  "event E level=4 keyword=0x1\n"
                                  "  u16 n16 2c01\n"                            /* 0 */
                                  "  f64 f 000000000000f83f\n"                  /* 1 */
                                  "  time64 t 0100000000000000\n"               /* 2 */
                                  "  port p 1f90\n"                             /* 3 */
                                  "  ipv4 a 7f000001\n"                         /* 4 */
                                  "  guid g 00112233445566778899aabbccddeeff\n" /* 5 */
                                  "  u8 b 7f\n"                                 /* 6 */
                                  "  u32_slice s 01000000,02000000\n"           /* 7 */
                                  "  str16 w 68006900\n"                        /* 8 */
                                  "  str8 c 6869\n"                             /* 9 */
                                  "  binary bin 01020304\n"                     /* 10 */
                                  "  raw:0d:01 counted 01000000\n"              /* 11 */
                                  "  raw:0d:01 odd 010203\n"                    /* 12 */
                                  "  raw:0b:09 hexw 68006900\n"                 /* 13 */
                                  "  raw:04:09 hex32 01020304\n"                /* 14 */
                                  "  raw:03:11 ip16 0102\n"                     /* 15 */
                                  "  raw:0a:10 cport 1f90\n"                    /* 16 */
                                  "end\n";

static struct desc parsed;
static const struct desc_field *field;

static int parse(void)
{
    char path[256], err[256];
    if (parsed.main.n_steps)
        return 0;
    if (!kt_tmp_template(path, sizeof path, "desc-order-XXXXXX"))
        return -1;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f || fputs(description, f) < 0 || fclose(f)) {
        unlink(path);
        return -1;
    }
    int rc = desc_parse(path, &parsed, err, sizeof err);
    unlink(path);
    if (rc) {
        kt_diag("%s", err);
        return -1;
    }
    field = parsed.main.steps[1].event->fields;
    return 0;
}

#define PARSED()                                                   \
    do {                                                           \
        if (parse()) {                                             \
            kt_fail_at(__FILE__, __LINE__, "description refused"); \
            return;                                                \
        }                                                          \
    } while (0)

static void test_numbers_follow_the_machine(void)
{
    PARSED();
    KT_EXPECT_EQ(desc_order_unit(&field[0]), 2); /* u16 */
    KT_EXPECT_EQ(desc_order_unit(&field[1]), 8); /* f64 */
    KT_EXPECT_EQ(desc_order_unit(&field[2]), 8); /* time64 */
    KT_EXPECT_EQ(desc_order_unit(&field[7]), 4); /* each element of a u32 slice */
    KT_EXPECT_EQ(desc_order_unit(&field[8]), 2); /* char16 code units */
    KT_EXPECT_EQ(desc_order_unit(&field[15]),
                 2); /* ip_address is an address at 4 or 16 bytes only */
}

static void test_fixed_orders_stay(void)
{
    PARSED();
    KT_EXPECT_EQ(desc_order_unit(&field[3]), 0);  /* port: network order */
    KT_EXPECT_EQ(desc_order_unit(&field[4]), 0);  /* ipv4: network order */
    KT_EXPECT_EQ(desc_order_unit(&field[5]), 0);  /* guid: its text's order */
    KT_EXPECT_EQ(desc_order_unit(&field[6]), 0);  /* one byte */
    KT_EXPECT_EQ(desc_order_unit(&field[9]), 0);  /* char8 */
    KT_EXPECT_EQ(desc_order_unit(&field[10]), 0); /* binary: hex_bytes */
    KT_EXPECT_EQ(desc_order_unit(&field[13]), 0); /* char16 shown as hex_bytes */
    KT_EXPECT_EQ(desc_order_unit(&field[14]), 0); /* value32 shown as hex_bytes */
    KT_EXPECT_EQ(desc_order_unit(&field[16]), 0); /* a counted port */
}

static void test_counted_number_only_at_its_size(void)
{
    PARSED();
    KT_EXPECT_EQ(desc_order_unit(&field[11]), 4); /* binary of 4 bytes as unsigned_int */
    KT_EXPECT_EQ(desc_order_unit(&field[12]), 0); /* 3 bytes: no number, bytes */
}

static void test_reverse_each_number(void)
{
    PARSED();
    uint8_t s[8], w[4], fixed[4];
    memcpy(s, field[7].data, 8);
    desc_reverse_units(&field[7], s);
    KT_EXPECT_MEM(s, 8, "\0\0\0\1\0\0\0\2", 8);
    memcpy(w, field[8].data, 4);
    desc_reverse_units(&field[8], w);
    KT_EXPECT_MEM(w, 4, "\0h\0i", 4);
    memcpy(fixed, field[4].data, 4);
    desc_reverse_units(&field[4], fixed);
    KT_EXPECT_MEM(fixed, 4, "\x7f\0\0\1", 4);
}

static void test_parse_keeps_the_machine_order(void)
{
    PARSED();
    /* the file's bytes are little-endian: the same bytes here, reversed numbers there */
    uint16_t n16;
    memcpy(&n16, field[0].data, 2);
    KT_EXPECT_EQ(n16, 300);
    KT_EXPECT_MEM(field[3].data, 2, "\x1f\x90", 2);
    if (!DESC_BIG_ENDIAN)
        KT_EXPECT_MEM(field[7].data, 8, "\1\0\0\0\2\0\0\0", 8);
}

KT_MAIN(KT_CASE(test_numbers_follow_the_machine), KT_CASE(test_fixed_orders_stay),
        KT_CASE(test_counted_number_only_at_its_size), KT_CASE(test_reverse_each_number),
        KT_CASE(test_parse_keeps_the_machine_order))
