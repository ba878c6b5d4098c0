/* SPDX-License-Identifier: MIT */
/*
 * The reader table of the transport registry (ehd_readers.h): every row of
 * eh_transports.def is in it in registry order, each reader is chosen for its own
 * format's first bytes and for no other format, the capture reader (no signature) takes
 * what nobody claims, and reader `none` is never chosen.
 */
#include <string.h>

#include "ehd_readers.h"
#include "ehd_tl.h"
#include "ktap.h"

static const char *const row_readers[] = {
#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) #reader,
#define EH_LIVE_TRANSPORT(name, backend, reader, golden, tl)                 #reader,
#include "eh_transports.def"
};

static void test_table_follows_the_registry(void)
{
    KT_EXPECT_EQ(ehd_reader_count, sizeof row_readers / sizeof row_readers[0]);
    for (size_t i = 0; i < ehd_reader_count; i++) {
        KT_EXPECT_STR(ehd_readers[i].name, row_readers[i]);
        int none = strcmp(row_readers[i], "none") == 0;
        KT_EXPECT_EQ(ehd_readers[i].probe == NULL, none);
        KT_EXPECT_EQ(ehd_readers[i].decode == NULL, none);
    }
    KT_EXPECT(ehd_reader_find("none") == NULL);
    KT_EXPECT(ehd_reader_find("no-such-reader") == NULL);
}

static const char *chosen(const void *head, size_t n)
{
    const struct ehd_reader *r = ehd_reader_choose(head, n);
    return r ? r->name : "(none)";
}

static void test_each_format_goes_to_its_reader(void)
{
    unsigned char head[EHD_READER_SNIFF] = {0};
    memcpy(head, "PERFILE2", 8);
    KT_EXPECT_STR(chosen(head, sizeof head), "perf");
    memcpy(head, "2ELIFREP", 8); /* the other byte order */
    KT_EXPECT_STR(chosen(head, sizeof head), "perf");
    memcpy(head, EHD_TLCAP_MAGIC, EHD_TLCAP_MAGIC_SIZE);
    KT_EXPECT_STR(chosen(head, sizeof head), "tlcap");
    /* a capture record: u32 size, then the tracepoint name; no signature at all */
    memcpy(head, "\x20\0\0\0EhconfX_L4K1\0", 17);
    KT_EXPECT_STR(chosen(head, sizeof head), "dat");
    KT_EXPECT_STR(chosen(head, 0), "dat");   /* an empty file is an empty capture */
    KT_EXPECT_STR(chosen("PERF", 4), "dat"); /* too short for perf's magic */
}

/* Every reader with a signature refuses every other reader's signature. */
static void test_no_reader_claims_another_format(void)
{
    unsigned char perf[EHD_READER_SNIFF] = {0}, tlcap[EHD_READER_SNIFF] = {0};
    memcpy(perf, "PERFILE2", 8);
    memcpy(tlcap, EHD_TLCAP_MAGIC, EHD_TLCAP_MAGIC_SIZE);
    for (size_t i = 0; i < ehd_reader_count; i++) {
        const struct ehd_reader *r = &ehd_readers[i];
        if (!r->probe)
            continue;
        if (strcmp(r->name, "perf") != 0)
            KT_EXPECT(r->probe(perf, sizeof perf) < EHD_PROBE_SIGNATURE);
        if (strcmp(r->name, "tlcap") != 0)
            KT_EXPECT(r->probe(tlcap, sizeof tlcap) < EHD_PROBE_SIGNATURE);
    }
}

KT_MAIN(KT_CASE(test_table_follows_the_registry), KT_CASE(test_each_format_goes_to_its_reader),
        KT_CASE(test_no_reader_claims_another_format))
