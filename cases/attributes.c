// SPDX-License-Identifier: GPL-2.0
/*
 * attributes: the event attributes of EventHeader and the provider name.
 *
 * Proves that (expected JSON: Documentation/decoder-json.md §2 and §5)
 *  - levels 1..5 and 255 reach the header and the tracepoint name ("_L<hex>"); meta
 *    "level" is decimal; level 0 is legal and shows no "level";
 *  - keywords 0 (no "keyword" in meta), 1, the high bit, all ones and a mixed value;
 *    meta "keyword" is "0x%X" (uppercase, no padding);
 *  - every opcode of eventheader_wire.h (meta "opcode" decimal, absent for 0);
 *  - the event tag (meta "tag": "0x%X", absent for 0), id and version (absent when 0),
 *    and all of them together (meta order: id, version, level, keyword, opcode, tag);
 *  - "name;attr=value": the decoded "n" keeps only the part before the first ';', while
 *    field names keep their attributes verbatim; names are JSON-escaped; an empty event
 *    name is refused;
 *  - the provider group option: providers with the same name and different options
 *    (none, "grp1", "grp2") are different tracepoints ("..._L4K1Ggrp1") but the same
 *    "n" (options are not shown);
 *  - provider names at the 256-byte tracepoint-name limit (name + NUL < 256): the
 *    longest provider that fits with level 0xff and keyword all ones registers and
 *    writes; one byte more is refused with EINVAL and nothing is emitted.
 * Each event carries one field repeating the attribute under test, so a golden line can
 * be checked against its own contents.
 *
 * Fork: kselftest_harness.h runs every TEST in a forked child of a parent that never
 * registers anything (cases/windows/case_runner.c: a new process per TEST), so each TEST starts with unregistered providers and no backend
 * chosen, and registers what it uses itself (TEST fresh_state_in_each_test checks this).
 */
#include <stdio.h>
#include <string.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(attr_provider, "EhconfAttributes");
static EH_DEFINE_PROVIDER_GROUP(attr_grp1, "EhconfAttributes", "grp1");
static EH_DEFINE_PROVIDER_GROUP(attr_grp2, "EhconfAttributes", "grp2");

#define KW 0x1

/*
 * Name of the last record of the .dat capture file, or "" when there is none. The group
 * option is invisible in the decoded JSON, so this is where it is checked.
 */
static void last_record_name(char *out, size_t cap)
{
    const char *path;
    uint8_t hdr[4];
    FILE *f;

    out[0] = 0;
    if (case_capture(&path) != CASE_CAPTURE_DAT)
        return; /* a TraceLogging record carries no tracepoint name */
    f = fopen(path, "rb");
    if (!f)
        return;
    while (fread(hdr, 1, 4, f) == 4) {
        uint32_t size = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t)hdr[3] << 24;
        long start = ftell(f) - 4;
        size_t i = 0;
        int c;

        while ((c = fgetc(f)) > 0 && i + 1 < cap)
            out[i++] = (char)c;
        out[i] = 0;
        if (size < 4 || fseek(f, start + size, SEEK_SET) != 0)
            break;
    }
    fclose(f);
}

TEST(fresh_state_in_each_test)
{
    /* an earlier TEST registered attr_provider, but in its own child process */
    EXPECT_EQ(0, strcmp("none", eh_backend_name()));
    EXPECT_EQ(0, EH_ENABLED(attr_provider, EH_LEVEL_INFORMATIONAL, KW));
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    EXPECT_EQ(EALREADY, eh_provider_register(&attr_provider));
    EXPECT_EQ(1, EH_ENABLED(attr_provider, EH_LEVEL_INFORMATIONAL, KW));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/* "LevelN" with "level": N; meta "level": N. 255 is the largest u8 level. */
TEST(levels)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(
        0, EH_WRITE(attr_provider, EH_EVENT("Level1", EH_LEVEL_CRITICAL, KW), EH_U8("level", 1)));
    ASSERT_EQ(0,
              EH_WRITE(attr_provider, EH_EVENT("Level2", EH_LEVEL_ERROR, KW), EH_U8("level", 2)));
    ASSERT_EQ(0,
              EH_WRITE(attr_provider, EH_EVENT("Level3", EH_LEVEL_WARNING, KW), EH_U8("level", 3)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Level4", EH_LEVEL_INFORMATIONAL, KW),
                          EH_U8("level", 4)));
    ASSERT_EQ(0,
              EH_WRITE(attr_provider, EH_EVENT("Level5", EH_LEVEL_VERBOSE, KW), EH_U8("level", 5)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Level255", 255, KW), EH_U8("level", 255)));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/* Level 0 is legal on the wire ("_L0K1"); meta shows "level" only when it is not 0. */
TEST(level_zero)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Level0", 0, KW), EH_U8("level", 0)));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/* "keyword" field = the event's keyword as u64_hex; meta "keyword" the same text. */
TEST(keywords)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Keyword0", EH_LEVEL_INFORMATIONAL, 0),
                          EH_U64_HEX("keyword", 0)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Keyword1", EH_LEVEL_INFORMATIONAL, 1),
                          EH_U64_HEX("keyword", 1)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("KeywordHigh", EH_LEVEL_INFORMATIONAL, 0x8000000000000000ULL),
                          EH_U64_HEX("keyword", 0x8000000000000000ULL)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("KeywordAll", EH_LEVEL_INFORMATIONAL, UINT64_MAX),
                          EH_U64_HEX("keyword", UINT64_MAX)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("KeywordMixed", EH_LEVEL_INFORMATIONAL, 0xf123456789abcdefULL),
                          EH_U64_HEX("keyword", 0xf123456789abcdefULL)));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

#define OPCODE_EVENT(name, op)                                                          \
    EH_WRITE(attr_provider, EH_EVENT(name, EH_LEVEL_INFORMATIONAL, KW, .opcode = (op)), \
             EH_U8("opcode", (op)))

/* Every EH_OPCODE_* value; "opcode" field = the opcode. */
TEST(opcodes)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeInfo", EH_OPCODE_INFO));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeActivityStart", EH_OPCODE_ACTIVITY_START));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeActivityStop", EH_OPCODE_ACTIVITY_STOP));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeCollectionStart", EH_OPCODE_COLLECTION_START));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeCollectionStop", EH_OPCODE_COLLECTION_STOP));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeExtension", EH_OPCODE_EXTENSION));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeReply", EH_OPCODE_REPLY));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeResume", EH_OPCODE_RESUME));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeSuspend", EH_OPCODE_SUSPEND));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeSend", EH_OPCODE_SEND));
    ASSERT_EQ(0, OPCODE_EVENT("OpcodeReceive", EH_OPCODE_RECEIVE));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/* Event tag, id and version; then everything at once. */
TEST(tag_id_version)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Tag1", EH_LEVEL_INFORMATIONAL, KW, .tag = 0x1),
                          EH_U16_HEX("tag", 0x1)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("Tag1234", EH_LEVEL_INFORMATIONAL, KW, .tag = 0x1234),
                          EH_U16_HEX("tag", 0x1234)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("TagFFFF", EH_LEVEL_INFORMATIONAL, KW, .tag = 0xFFFF),
                          EH_U16_HEX("tag", 0xFFFF)));
    ASSERT_EQ(0,
              EH_WRITE(attr_provider,
                       EH_EVENT("IdVersion", EH_LEVEL_INFORMATIONAL, KW, .id = 1000, .version = 11),
                       EH_U16("id", 1000), EH_U8("version", 11)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("IdVersionMax", EH_LEVEL_INFORMATIONAL, KW, .id = 65535,
                                   .version = 255),
                          EH_U16("id", 65535), EH_U8("version", 255)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("IdOnly", EH_LEVEL_INFORMATIONAL, KW, .id = 1),
                          EH_U16("id", 1), EH_U8("version", 0)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("VersionOnly", EH_LEVEL_INFORMATIONAL, KW, .version = 3),
                          EH_U16("id", 0), EH_U8("version", 3)));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("Everything", EH_LEVEL_ERROR, 0x85, .id = 7, .version = 2,
                                   .opcode = EH_OPCODE_COLLECTION_START, .tag = 0xBEEF),
                          EH_U8("level", 2)));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/* Event-name attributes are dropped from "n"; field-name attributes are kept. */
TEST(name_attributes)
{
    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Named;attr=value", EH_LEVEL_INFORMATIONAL, KW),
                          EH_U8("f;a=b", 1)));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Multi;a=1;b=2", EH_LEVEL_INFORMATIONAL, KW),
                          EH_U8("g;x=y", 2, EH_TAG(0x12))));
    ASSERT_EQ(
        0, EH_WRITE(attr_provider, EH_EVENT("Semi;", EH_LEVEL_INFORMATIONAL, KW), EH_U8("h", 3)));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/*
 * Names are JSON-escaped like string values (§2, §4.1): '"' and '\\' escaped, tab as \t,
 * 0x01 as \u0001, '/' and DEL raw, UTF-8 kept, a byte that is not UTF-8 (0xFF) read as
 * Latin-1 ("\u00ff" as UTF-8). An empty event name is refused (EINVAL), nothing written.
 */
TEST(name_escaping)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, EH_WRITE(attr_provider,
                          EH_EVENT("Esc\"q\\b\t/\x01\x7f\xc3\x9c\xff", EH_LEVEL_INFORMATIONAL, KW),
                          EH_U8("f\"\\\n", 1)));
    before = case_capture_size();
    ASSERT_EQ(EINVAL,
              EH_WRITE(attr_provider, EH_EVENT("", EH_LEVEL_INFORMATIONAL, KW), EH_U8("empty", 1)));
    ASSERT_EQ(before, case_capture_size());
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
}

/*
 * Three providers named "EhconfAttributes": no option, group grp1, group grp2. Three
 * tracepoints, one "n". "from" says which provider wrote.
 */
TEST(group_option)
{
    char name[EH_NAME_MAX];
    char last[EH_NAME_MAX];

    ASSERT_EQ(0, eh_tracepoint_name(name, "EhconfAttributes", "grp1", EH_LEVEL_INFORMATIONAL, KW));
    ASSERT_EQ(0, strcmp("EhconfAttributes_L4K1Ggrp1", name));
    ASSERT_EQ(0, eh_tracepoint_name(name, "EhconfAttributes", NULL, EH_LEVEL_INFORMATIONAL, KW));
    ASSERT_EQ(0, strcmp("EhconfAttributes_L4K1", name));

    ASSERT_EQ(0, eh_provider_register(&attr_provider));
    ASSERT_EQ(0, eh_provider_register(&attr_grp1));
    ASSERT_EQ(0, eh_provider_register(&attr_grp2));

    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Grouped", EH_LEVEL_INFORMATIONAL, KW),
                          EH_CSTR8("from", "none")));
    last_record_name(last, sizeof last);
    if (last[0])
        ASSERT_EQ(0, strcmp("EhconfAttributes_L4K1", last));
    ASSERT_EQ(0, EH_WRITE(attr_grp1, EH_EVENT("Grouped", EH_LEVEL_INFORMATIONAL, KW),
                          EH_CSTR8("from", "grp1")));
    last_record_name(last, sizeof last);
    if (last[0])
        ASSERT_EQ(0, strcmp("EhconfAttributes_L4K1Ggrp1", last));
    ASSERT_EQ(0, EH_WRITE(attr_grp2, EH_EVENT("Grouped", EH_LEVEL_INFORMATIONAL, KW),
                          EH_CSTR8("from", "grp2")));
    last_record_name(last, sizeof last);
    if (last[0])
        ASSERT_EQ(0, strcmp("EhconfAttributes_L4K1Ggrp2", last));

    /* unregistering one of them leaves the others connected */
    ASSERT_EQ(0, eh_provider_unregister(&attr_grp1));
    EXPECT_EQ(EBADF, EH_WRITE(attr_grp1, EH_EVENT("Grouped", EH_LEVEL_INFORMATIONAL, KW),
                              EH_CSTR8("from", "grp1 after unregister")));
    ASSERT_EQ(0, EH_WRITE(attr_provider, EH_EVENT("Grouped", EH_LEVEL_INFORMATIONAL, KW),
                          EH_CSTR8("from", "none again")));
    EXPECT_EQ(0, eh_provider_unregister(&attr_provider));
    EXPECT_EQ(0, eh_provider_unregister(&attr_grp2));
}

/*
 * Tracepoint name = provider + "_Lff" (4) + "Kffffffffffffffff" (17) [+ "G" group]; with
 * its NUL it must be < 256 bytes, so at most 254 characters:
 *   no group:         233-character provider -> 254 characters: fits; 234 -> EINVAL;
 *   group "g" ("Gg"): 231-character provider -> 254 characters: fits; 232 -> EINVAL.
 * The provider name is "Ehconf_Long_" then 'x' up to the length (the LAST '_' of the
 * tracepoint name splits provider and level, so '_' inside a provider is fine).
 */
static char fit_name[240], over_name[240], fitg_name[240], overg_name[240];
static eh_provider fit_prov = {.name = fit_name};
static eh_provider over_prov = {.name = over_name};
static eh_provider fitg_prov = {.name = fitg_name, .group = "g"};
static eh_provider overg_prov = {.name = overg_name, .group = "g"};

static void make_name(char *buf, size_t len)
{
    memset(buf, 'x', len);
    memcpy(buf, "Ehconf_Long_", 12);
    buf[len] = 0;
}

TEST(provider_name_limit)
{
    char tp[EH_NAME_MAX];
    off_t before;

    make_name(fit_name, 233);
    make_name(over_name, 234);
    make_name(fitg_name, 231);
    make_name(overg_name, 232);
    ASSERT_EQ(0, eh_tracepoint_name(tp, fit_name, NULL, 0xff, UINT64_MAX));
    ASSERT_EQ(254U, strlen(tp));
    ASSERT_EQ(EINVAL, eh_tracepoint_name(tp, over_name, NULL, 0xff, UINT64_MAX));
    ASSERT_EQ(0, eh_tracepoint_name(tp, fitg_name, "g", 0xff, UINT64_MAX));
    ASSERT_EQ(254U, strlen(tp));
    ASSERT_EQ(EINVAL, eh_tracepoint_name(tp, overg_name, "g", 0xff, UINT64_MAX));

    ASSERT_EQ(0, eh_provider_register(&fit_prov));
    ASSERT_EQ(0, EH_WRITE(fit_prov, EH_EVENT("LongName", 0xff, UINT64_MAX), EH_U8("length", 233)));
    ASSERT_EQ(0, eh_provider_register(&fitg_prov));
    ASSERT_EQ(
        0, EH_WRITE(fitg_prov, EH_EVENT("LongNameGroup", 0xff, UINT64_MAX), EH_U8("length", 231)));

    before = case_capture_size();
    ASSERT_EQ(EINVAL, eh_provider_register(&over_prov));
    ASSERT_EQ(EBADF,
              EH_WRITE(over_prov, EH_EVENT("TooLong", 0xff, UINT64_MAX), EH_U8("length", 234)));
    ASSERT_EQ(EINVAL, eh_provider_register(&overg_prov));
    ASSERT_EQ(EBADF, EH_WRITE(overg_prov, EH_EVENT("TooLongGroup", 0xff, UINT64_MAX),
                              EH_U8("length", 232)));
    ASSERT_EQ(before, case_capture_size());

    EXPECT_EQ(0, eh_provider_unregister(&fit_prov));
    EXPECT_EQ(0, eh_provider_unregister(&fitg_prov));
    EXPECT_EQ(0, eh_provider_unregister(&over_prov));
}

TEST_HARNESS_MAIN
