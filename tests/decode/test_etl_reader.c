/* SPDX-License-Identifier: MIT */
/*
 * The .etl reader (Documentation/etl-format.md) on the real capture in tests/data/etl
 * (microsoft/perfview's primitive-types.etl, see the README there) and on damaged
 * copies of it. Every expected value below is written by hand from
 * tests/data/etl/primitive-types.baseline.txt, the output of Microsoft's TraceEvent
 * for the file, quoted above each expectation; none comes from this decoder.
 * Where the JSON and the baseline's text differ in form, etl-format.md §8 says why.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ehd_tl.h"
#include "ktap.h"
#include "support_etl_out.h"
#include "support_perf_util.h"

#define ETL_PATH "tests/data/etl/primitive-types.etl"
#define FLAGS    (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG)

/* The real capture, or NULL (the tests run from the top of the checkout). */
static uint8_t *load(size_t *n)
{
    uint8_t *d = perf_test_read_file(ETL_PATH, n);
    if (!d)
        printf("# %s: cannot open (run from the top of the checkout)\n", ETL_PATH);
    return d;
}

/* "<key>": <value> appears in the event (value as printed, strings quoted); a value
 * that opens a string without closing it is a prefix of the string, any other must be
 * followed by the next member or the end of the object. */
static int has(const char *ev, const char *key, const char *value)
{
    char want[256];
    size_t vn = strlen(value);
    int prefix = value[0] == '"' && (vn == 1 || value[vn - 1] != '"');
    snprintf(want, sizeof want, "\"%s\": %s", key, value);
    for (const char *at = ev; (at = strstr(at, want)) != NULL; at++) {
        char next = at[strlen(want)];
        if (prefix || next == ',' || next == ' ')
            return 1;
    }
    printf("# missing %s in %.300s\n", want, ev);
    return 0;
}

/* The seconds of the day of a meta time "...THH:MM:SS.fffffffZ" (same-day events). */
static double day_seconds(const char *ev)
{
    const char *t = strstr(ev, "\"time\": \"");
    const char *hms = t ? strchr(t + 9, 'T') : NULL;
    if (!hms)
        return -1;
    int h, m;
    double s;
    if (sscanf(hms + 1, "%d:%d:%lf", &h, &m, &s) != 3)
        return -1;
    return h * 3600.0 + m * 60 + s;
}

/* One PrimitiveTypesTest line of the baseline, its values as TraceEvent prints them. */
struct planet {
    const char *rel_ms; /* "EVENT 2,942.306" */
    const char *string_type;
    int boolean_type;
    int char_type;
    int int16_type, int32_type;
    unsigned uint16_type, uint32_type;
    int64_t int64_type;
    uint64_t uint64_type;
    const char *guid_prefix; /* guid_type=0ad614c4-0ef4-4225-8... */
    const char *file_time;   /* file_time_type=21/09/09 14:59:35.79... */
    const char *system_time; /* system_time_type=21/09/09 14:59:35.03..., to the second */
    double rel;              /* rel_ms as a number */
};

static const struct planet planets[] = {
    /* EVENT 2,942.306: solar_system/PrimitiveTypesTest PID=33984; TID=21768; ProceNum=2;
     * string_type=Mercury; boolean_type=False; char_type=77; int16_type=-51;
     * int32_type=-102; uint16_type=51; uint32_type=102; int64_type=-204; uint64_type=204;
     * guid_type=0ad614c4-0ef4-4225-8...; file_time_type=21/09/09 14:59:35.79...;
     * system_time_type=21/09/09 14:59:35.03... */
    {"2,942.306", "Mercury", 0, 77, -51, -102, 51, 102, -204, 204, "0ad614c4-0ef4-4225-8",
     "2021-09-09T14:59:35.79", "2021-09-09T14:59:35", 2942.306},
    /* EVENT 3,381.259: string_type=Venus; boolean_type=True; char_type=86; int16_type=-95;
     * int32_type=-190; uint16_type=95; uint32_type=190; int64_type=-380; uint64_type=380;
     * guid_type=e04ff801-9ea3-494f-a...; file_time_type=21/09/09 14:59:36.23...;
     * system_time_type=21/09/09 14:59:36.03... */
    {"3,381.259", "Venus", 1, 86, -95, -190, 95, 190, -380, 380, "e04ff801-9ea3-494f-a",
     "2021-09-09T14:59:36.23", "2021-09-09T14:59:36", 3381.259},
    /* EVENT 3,814.002: string_type=Earth; boolean_type=False; char_type=69; int16_type=-65;
     * int32_type=-130; uint16_type=65; uint32_type=130; int64_type=-260; uint64_type=260;
     * guid_type=c7a6c80e-f2a6-4220-a...; file_time_type=21/09/09 14:59:36.67...;
     * system_time_type=21/09/09 14:59:36.03... */
    {"3,814.002", "Earth", 0, 69, -65, -130, 65, 130, -260, 260, "c7a6c80e-f2a6-4220-a",
     "2021-09-09T14:59:36.67", "2021-09-09T14:59:36", 3814.002},
    /* EVENT 4,190.408: string_type=Mars; boolean_type=False; char_type=77; int16_type=-29;
     * int32_type=-58; uint16_type=29; uint32_type=58; int64_type=-116; uint64_type=116;
     * guid_type=0a922cee-67c1-4108-b...; file_time_type=21/09/09 14:59:37.04...;
     * system_time_type=21/09/09 14:59:37.03... */
    {"4,190.408", "Mars", 0, 77, -29, -58, 29, 58, -116, 116, "0a922cee-67c1-4108-b",
     "2021-09-09T14:59:37.04", "2021-09-09T14:59:37", 4190.408},
    /* EVENT 4,626.652: string_type=Jupiter; boolean_type=True; char_type=74; int16_type=-69;
     * int32_type=-138; uint16_type=69; uint32_type=138; int64_type=-276; uint64_type=276;
     * guid_type=bb11b97b-1110-4eb6-b...; file_time_type=21/09/09 14:59:37.48...;
     * system_time_type=21/09/09 14:59:37.03... */
    {"4,626.652", "Jupiter", 1, 74, -69, -138, 69, 138, -276, 276, "bb11b97b-1110-4eb6-b",
     "2021-09-09T14:59:37.48", "2021-09-09T14:59:37", 4626.652},
};

static void check_planet(const char *ev, const struct planet *p, double header_s)
{
    char v[96];
    printf("# checking %s (EVENT %s)\n", p->string_type, p->rel_ms);
    KT_EXPECT(strncmp(ev, "{ \"n\": \"solar_system:PrimitiveTypesTest\", ", 42) == 0);
    snprintf(v, sizeof v, "\"%s\"", p->string_type);
    KT_EXPECT(has(ev, "string_type", v));
    KT_EXPECT(has(ev, "boolean_type", p->boolean_type ? "true" : "false"));
    /* U8 with OutType String: printed as the character whose code the baseline shows */
    snprintf(v, sizeof v, "\"%c\"", p->char_type);
    KT_EXPECT(has(ev, "char_type", v));
    snprintf(v, sizeof v, "%d", p->int16_type);
    KT_EXPECT(has(ev, "int16_type", v));
    snprintf(v, sizeof v, "%d", p->int32_type);
    KT_EXPECT(has(ev, "int32_type", v));
    snprintf(v, sizeof v, "%u", p->uint16_type);
    KT_EXPECT(has(ev, "uint16_type", v));
    snprintf(v, sizeof v, "%u", p->uint32_type);
    KT_EXPECT(has(ev, "uint32_type", v));
    /* declared UInt64 (InType 10) in the metadata: the baseline's signed value, same bits */
    snprintf(v, sizeof v, "%" PRIu64, (uint64_t)p->int64_type);
    KT_EXPECT(has(ev, "int64_type", v));
    snprintf(v, sizeof v, "%" PRIu64, p->uint64_type);
    KT_EXPECT(has(ev, "uint64_type", v));
    snprintf(v, sizeof v, "\"%s", p->guid_prefix);
    KT_EXPECT(has(ev, "guid_type", v));
    snprintf(v, sizeof v, "\"%s", p->file_time);
    KT_EXPECT(has(ev, "file_time_type", v));
    /* to the second: the baseline's ".03" matches no member of the SYSTEMTIME (§8) */
    snprintf(v, sizeof v, "\"%s", p->system_time);
    KT_EXPECT(has(ev, "system_time_type", v));
    /* PID=33984; TID=21768; ProceNum=2 */
    KT_EXPECT(has(ev, "cpu", "2"));
    KT_EXPECT(has(ev, "pid", "33984"));
    KT_EXPECT(has(ev, "tid", "21768"));
    /* EVENT <ms>: milliseconds after the header event, to the baseline's 3 decimals */
    double ms = (day_seconds(ev) - header_s) * 1000;
    if (!(ms > p->rel - 0.0005 && ms < p->rel + 0.0005)) {
        printf("# %s: %.4f ms after the header, want %s\n", p->string_type, ms, p->rel_ms);
        KT_EXPECT(0);
    }
}

static void test_primitive_types_against_baseline(void)
{
    size_t n;
    uint8_t *d = load(&n);
    KT_EXPECT(d != NULL);
    if (!d)
        return;
    struct etl_out o;
    KT_EXPECT_EQ(etl_out_decode(d, n, FLAGS, &o), 0);
    KT_EXPECT_EQ(o.invalid, 0);
    KT_EXPECT_EQ(o.ndiag, 0);
    /* COUNT Windows Kernel/EventTrace:1, COUNT solar_system/PrimitiveTypesTest:5, plus the
     * EventTrace record the baseline does not list (hook 0x0050, etl-format.md §7) */
    KT_EXPECT_EQ(o.n, 7);
    if (o.n == 7) {
        const char *h = o.ev[0];
        /* EVENT 0.000: Windows Kernel/EventTrace PID=39096; TID=29376; ProceNum=0;
         * DataLen=366; BufferSize=8,192; Version=83,951,626; ProviderVersion=19,043;
         * NumberOfProcessors=8; ... StartTime=21/09/09 14:59:32.85...
         * EventTrace is {68fdd900-4a3e-11d1-84f4-0000f80464e3}; the header is hook id 0. */
        KT_EXPECT(strncmp(h, "{ \"n\": \"etw:68fdd900-4a3e-11d1-84f4-0000f80464e3\", \"id\": 0, ",
                          60) == 0);
        /* the payload's first 16 bytes: 8192, 0x0501000A, 19043 = 0x4A63, 8 */
        KT_EXPECT(has(h, "raw", "\"00 20 00 00 0a 00 01 05 63 4a 00 00 08 00 00 00 "));
        const char *raw = strstr(h, "\"raw\": \"");
        const char *end = raw ? strchr(raw + 8, '"') : NULL;
        /* DataLen=366: 366 hex pairs with single spaces */
        KT_EXPECT(end && (size_t)(end - (raw + 8)) == 366 * 3 - 1);
        KT_EXPECT(has(h, "time", "\"2021-09-09T14:59:32.85"));
        KT_EXPECT(has(h, "cpu", "0"));
        KT_EXPECT(has(h, "pid", "39096"));
        KT_EXPECT(has(h, "tid", "29376"));
        KT_EXPECT(strncmp(o.ev[1],
                          "{ \"n\": \"etw:68fdd900-4a3e-11d1-84f4-0000f80464e3\", \"id\": 80, ",
                          61) == 0);
        double hs = day_seconds(h);
        for (size_t i = 0; i < 5; i++)
            check_planet(o.ev[2 + i], &planets[i], hs);
    }
    etl_out_free(&o);
    free(d);
}

/* --golden: the deterministic form, no time, cpu, pid or tid. */
static void test_golden_form(void)
{
    size_t n;
    uint8_t *d = load(&n);
    KT_EXPECT(d != NULL);
    if (!d)
        return;
    struct etl_out o;
    KT_EXPECT_EQ(etl_out_decode(d, n, FLAGS | EHD_META_GOLDEN, &o), 0);
    KT_EXPECT_EQ(o.n, 7);
    if (o.n == 7) {
        KT_EXPECT(strstr(o.ev[2], "\"meta\": { \"level\": 5 } }") != NULL);
        KT_EXPECT(strstr(o.ev[0], "\"meta\": { \"version\": 2 } }") != NULL);
        for (size_t i = 0; i < o.n; i++)
            KT_EXPECT(strstr(o.ev[i], "\"pid\"") == NULL);
    }
    etl_out_free(&o);
    free(d);
}

/* A damaged copy: every object valid JSON, the error at the expected offset. */
static void expect_damage(const char *what, const uint8_t *d, size_t n, size_t want_events,
                          const char *want_n, uint64_t want_off, const char *reason_part)
{
    struct etl_out o;
    printf("# %s\n", what);
    KT_EXPECT_EQ(etl_out_decode(d, n, FLAGS, &o), 1);
    KT_EXPECT_EQ(o.invalid, 0);
    KT_EXPECT_EQ(o.n, want_events);
    KT_EXPECT(o.ndiag >= 1);
    int found = 0;
    char pre[96];
    snprintf(pre, sizeof pre, "{ \"n\": \"%s\", \"error\": \"", want_n);
    for (size_t i = 0; i < o.n; i++) {
        char off[48];
        snprintf(off, sizeof off, "\"fileOffset\": %" PRIu64 " }", want_off);
        if (strncmp(o.ev[i], pre, strlen(pre)) == 0 && strstr(o.ev[i], off) &&
            strstr(o.ev[i], reason_part))
            found = 1;
    }
    if (!found)
        for (size_t i = 0; i < o.n; i++)
            printf("#   got %.200s\n", o.ev[i]);
    KT_EXPECT(found);
    KT_EXPECT(o.ndiag >= 1 && o.diag_off[0] == want_off);
    etl_out_free(&o);
}

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void test_malformed(void)
{
    size_t n;
    uint8_t *d = load(&n);
    KT_EXPECT(d != NULL);
    if (!d)
        return;
    uint8_t *c = malloc(n);
    /* offsets in the real file (etl-format.md): buffer 2 at 8192, its records at 0x2048
     * (Mercury), 0x21C0 (Venus), ...; Mercury's extended items at 0x2098 and 0x20B0 */
    memcpy(c, d, n);
    expect_damage("truncated second buffer", c, 8192 + 100, 3, "etl:", 8192, "truncated buffer");
    expect_damage("truncated buffer header", c, 8192 + 10, 3, "etl:", 8192,
                  "truncated buffer header");
    memcpy(c, d, n);
    c[8192] = 0x10, c[8193] = 0;
    expect_damage("buffer size too small", c, n, 3, "etl:", 8192, "buffer size 16");
    memcpy(c, d, n);
    c[8192 + 4] = 0xFF, c[8192 + 5] = 0xFF; /* saved offset 0xFFFF beyond the 8192 bytes */
    expect_damage("used size beyond the buffer", c, n, 3, "etl:", 8192, "used size");
    memcpy(c, d, n);
    c[8192 + 0x34] |= 0x40;
    /* the flag on records that are not compressed: they do not decompress (test_etl_compressed
     * has the files that do) */
    expect_damage("compressed buffer", c, n, 3, "etl:", 8192, "do not decompress");
    memcpy(c, d, n);
    memset(c + 0x21C0, 0x11, 8); /* garbage where Venus starts: Mercury survives */
    expect_damage("garbage record", c, n, 4, "etl:", 0x21C0, "trace header flag");
    memcpy(c, d, n);
    c[0x21C0 + 2] = 0x7F; /* unknown header type */
    expect_damage("unknown header type", c, n, 4, "etl:", 0x21C0, "unknown header type 127");
    memcpy(c, d, n);
    put16(c + 0x2048, 0xFFF0); /* Mercury's size past the used bytes */
    expect_damage("record size too large", c, n, 3, "etl:", 0x2048, "record size 65520");
    memcpy(c, d, n);
    put16(c + 0x2048, 0x20); /* smaller than its 80-byte header */
    expect_damage("record size too small", c, n, 3, "etl:", 0x2048, "record size 32");
    memcpy(c, d, n);
    put16(c + 0x20B0, 0x400); /* the schema item larger than its record */
    expect_damage("extended item size", c, n, 7, "etl:", 0x20B0, "extended data item");
    memcpy(c, d, n);
    put16(c + 0x20B8, 0x0400); /* the schema's own size beyond its item */
    expect_damage("TraceLogging metadata size", c, n, 7,
                  "tracelogging:d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615", 0x2048, "event metadata");
    memcpy(c, d, n);
    /* Mercury's payload cut short: its error, then the record position inside its old
     * payload is not a record (the rest of the buffer is lost: etl-format.md §6) */
    put16(c + 0x2048, 0x176 - 40);
    expect_damage("payload cut short", c, n, 4, "tracelogging:d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615",
                  0x2048, "data:");
    /* not an .etl at all, and a file of only zeros */
    KT_EXPECT(!ehd_etl_is_magic("PERFILE2PERFILE2", 16));
    KT_EXPECT(ehd_etl_is_magic(d, n));
    memset(c, 0, n);
    KT_EXPECT(!ehd_etl_is_magic(c, n));
    expect_damage("zeros", c, n, 1, "etl:", 0, "buffer size 0");
    free(c);
    free(d);
}

/* ehdecode recognises the file by its content, from a file and from a pipe (where it
 * sniffs the first EHD_READER_SNIFF bytes and replays them), in both output forms. */
static void test_ehdecode_detects_etl(void)
{
    const char *b = getenv("EHCONF_BUILD");
    char tool[512], cmd[1200];
    snprintf(tool, sizeof tool, "%s/bin/ehdecode", b ? b : "");
    if (!b || access(tool, X_OK) != 0)
        KT_SKIP("EHCONF_BUILD/bin/ehdecode not available");
    static char a[1 << 16], p[1 << 16], doc[1 << 16];
    snprintf(cmd, sizeof cmd, "%s --golden %s", tool, ETL_PATH);
    KT_EXPECT_EQ(perf_test_run(cmd, a, sizeof a), 0);
    snprintf(cmd, sizeof cmd, "cat %s | %s --golden -", ETL_PATH, tool);
    KT_EXPECT_EQ(perf_test_run(cmd, p, sizeof p), 0);
    KT_EXPECT_STR(p, a);
    size_t lines = 0;
    for (const char *c = a; (c = strchr(c, '\n')) != NULL; c++)
        lines++;
    KT_EXPECT_EQ(lines, 7);
    const char *third = strchr(a, '\n');
    third = third ? strchr(third + 1, '\n') : NULL;
    KT_EXPECT(third && strncmp(third + 1,
                               "{ \"n\": \"solar_system:PrimitiveTypesTest\", \"string_type\": "
                               "\"Mercury\", ",
                               68) == 0);
    snprintf(cmd, sizeof cmd, "%s --no-bom %s", tool, ETL_PATH);
    KT_EXPECT_EQ(perf_test_run(cmd, doc, sizeof doc), 0);
    KT_EXPECT(perf_test_json_valid(doc, strlen(doc)));
}

KT_MAIN(KT_CASE(test_primitive_types_against_baseline), KT_CASE(test_golden_form),
        KT_CASE(test_malformed), KT_CASE(test_ehdecode_detects_etl))
