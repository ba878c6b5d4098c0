// SPDX-License-Identifier: MIT
/*
 * etwcapture's EVENT_RECORD -> JSON path (tools/windows/etw_record.c, then the
 * platform-neutral ehd_tlcap_decode), fed with EVENT_RECORDs built by hand the way
 * Documentation/tracelogging.md §1 says ETW delivers a TraceLogging event: metadata as
 * extended item SCHEMA_TL (0x0B), provider traits as PROV_TRAITS (0x0C), the related activity id
 * as RELATED_ACTIVITYID, the activity id in the header, the fields as UserData.
 * Wine has no ETW consumer, so this is the only run of that code before a Windows runner.
 * The blobs and the expected JSON are written out by hand below.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "ehd_tl.h"
#include "ktap.h"
#include "../../tools/windows/etw_record.h"

/* Provider traits: u16 size (whole blob), "EtwRec\0", no traits. */
static const uint8_t traits[] = {9, 0, 'E', 't', 'w', 'R', 'e', 'c', 0};

/* Event metadata: u16 size, tag byte 0, "Ev\0", then fields
 *   "v\0"  InType UINT32 (8)
 *   "s\0"  InType CSTR8 (2) | chain, OutType UTF8 (35) */
static const uint8_t schema[] = {13, 0, 0, 'E', 'v', 0, 'v', 0, 8, 's', 0, 0x82, 35};

/* v = 0x01020304, s = "hi" */
static const uint8_t user_data[] = {4, 3, 2, 1, 'h', 'i', 0};

static const uint8_t related_id[16] = {0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                                       0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f};

struct built {
    EVENT_RECORD er;
    EVENT_HEADER_EXTENDED_DATA_ITEM items[3];
};

static void build(struct built *b, int with_schema, int with_traits, int with_related)
{
    memset(b, 0, sizeof *b);
    EVENT_HEADER *h = &b->er.EventHeader;
    /* any GUID: the decoder names the event by the provider traits, not the GUID */
    memset(&h->ProviderId, 0xab, sizeof h->ProviderId);
    h->EventDescriptor.Level = 4;
    h->EventDescriptor.Opcode = 1;
    h->EventDescriptor.Keyword = 0x8000000000000001ull;
    h->EventDescriptor.Channel = 11;
    unsigned n = 0;
    if (with_related) {
        b->items[n].ExtType = EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID;
        b->items[n].DataSize = sizeof related_id;
        b->items[n++].DataPtr = (ULONGLONG)(ULONG_PTR)related_id;
    }
    if (with_schema) {
        b->items[n].ExtType = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL;
        b->items[n].DataSize = sizeof schema;
        b->items[n++].DataPtr = (ULONGLONG)(ULONG_PTR)schema;
    }
    if (with_traits) {
        b->items[n].ExtType = EVENT_HEADER_EXT_TYPE_PROV_TRAITS;
        b->items[n].DataSize = sizeof traits;
        b->items[n++].DataPtr = (ULONGLONG)(ULONG_PTR)traits;
    }
    b->er.ExtendedDataCount = (USHORT)n;
    b->er.ExtendedData = b->items;
    b->er.UserData = (PVOID)user_data;
    b->er.UserDataLength = sizeof user_data;
}

static void collect(void *ctx, const char *json, size_t len)
{
    ehd_buf *out = ctx;
    ehd_buf_append(out, json, len);
    ehd_buf_putc(out, '\n');
}

static void ignore_diag(void *ctx, uint64_t off, const char *reason)
{
    (void)ctx;
    printf("# decoder: offset %llu: %s\n", (unsigned long long)off, reason);
}

/* The record through ehd_tlcap_decode, as etwcapture does; returns the JSON lines. */
static char *decode_record(const uint8_t *rec, size_t n)
{
    FILE *f = tmpfile();
    ehd_buf out;
    if (!f)
        return NULL;
    ehd_buf_init(&out);
    fwrite(EHD_TLCAP_MAGIC, 1, EHD_TLCAP_MAGIC_SIZE, f);
    fwrite(rec, 1, n, f);
    rewind(f);
    int rc = ehd_tlcap_decode(f, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, collect,
                              &out, ignore_diag, NULL);
    fclose(f);
    ehd_buf_putc(&out, 0);
    if (rc != 0)
        printf("# ehd_tlcap_decode returned %d\n", rc);
    return out.data; /* the caller frees it */
}

/* etwcapture's path for one record: EVENT_RECORD -> .tlcap record -> JSON lines
 * (NULL after a failed check). The caller frees the text. */
static char *record_to_json(const struct built *b)
{
    uint8_t *rec = NULL;
    size_t n = 0;
    KT_EXPECT_EQ(etw_record_to_tlcap(&b->er, &rec, &n), 0);
    if (!rec)
        return NULL;
    char *json = decode_record(rec, n);
    free(rec);
    return json;
}

static void test_event_with_activity_ids(void)
{
    struct built b;
    build(&b, 1, 1, 1);
    memcpy(&b.er.EventHeader.ActivityId,
           "\x01\x02\x03\x04\x05\x06\x07\x08"
           "\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10",
           16);
    char *json = record_to_json(&b);
    KT_EXPECT_STR(json, "{ \"n\": \"EtwRec:Ev\", \"v\": 16909060, \"s\": \"hi\", "
                        "\"meta\": { \"level\": 4, \"keyword\": \"0x8000000000000001\", "
                        "\"opcode\": 1, "
                        "\"activity\": \"01020304-0506-0708-090a-0b0c0d0e0f10\", "
                        "\"relatedActivity\": \"10111213-1415-1617-1819-1a1b1c1d1e1f\" } }\n");
    free(json);
}

/* An all-zero ActivityId is what ETW reports when the writer passed none. */
static void test_zero_activity_is_absent(void)
{
    struct built b;
    build(&b, 1, 1, 0);
    char *json = record_to_json(&b);
    KT_EXPECT_STR(json, "{ \"n\": \"EtwRec:Ev\", \"v\": 16909060, \"s\": \"hi\", "
                        "\"meta\": { \"level\": 4, \"keyword\": \"0x8000000000000001\", "
                        "\"opcode\": 1 } }\n");
    free(json);
}

/* An event of the provider without TraceLogging metadata (e.g. a manifest event):
 * skipped and counted by etwcapture, never written as a broken record. */
static void test_missing_items_refused(void)
{
    struct built b;
    uint8_t *rec = NULL;
    size_t n = 0;
    const uint8_t *s = NULL;
    size_t sn = 0;
    build(&b, 0, 1, 0);
    KT_EXPECT_EQ(etw_record_to_tlcap(&b.er, &rec, &n), ENOENT);
    KT_EXPECT_EQ(etw_record_schema(&b.er, &s, &sn), ENOENT);
    build(&b, 1, 0, 0);
    KT_EXPECT_EQ(etw_record_to_tlcap(&b.er, &rec, &n), ENOENT);
    KT_EXPECT(rec == NULL);
    build(&b, 1, 1, 0);
    KT_EXPECT_EQ(etw_record_schema(&b.er, &s, &sn), 0);
    KT_EXPECT(s == schema && sn == sizeof schema);
}

/* What --tdh-check compares with TDH: the name and the top-level field count, where a
 * struct and its members count once. */
static void test_schema_summary_counts_top_level(void)
{
    /* "S\0", fields: "a\0" U8 (4); "st\0" STRUCT (24) | chain, 2 members;
     * "x\0" U8; "y\0" U8; "b\0" U16 (6) -> 3 top-level fields */
    uint8_t m[] = {22,        0, 0,   'S', 0, 'a', 0, 4, 's', 't', 0,
                   0x80 | 24, 2, 'x', 0,   4, 'y', 0, 4, 'b', 0,   6};
    const char *name = NULL;
    unsigned top = 0;
    KT_EXPECT_EQ(sizeof m, 22); /* the size word must say the same */
    KT_EXPECT_EQ(etw_schema_summary(m, sizeof m, &name, &top), 0);
    KT_EXPECT_STR(name, "S");
    KT_EXPECT_EQ(top, 3);
    /* the size word cuts the last field's type off: malformed */
    m[0] = 21;
    KT_EXPECT_EQ(etw_schema_summary(m, sizeof m, &name, &top), -1);
}

KT_MAIN(KT_CASE(test_event_with_activity_ids), KT_CASE(test_zero_activity_is_absent),
        KT_CASE(test_missing_items_refused), KT_CASE(test_schema_summary_counts_top_level))
