/* SPDX-License-Identifier: MIT */
/*
 * The TraceLogging backends end to end through the public API (EH_WRITE, the dynamic
 * builder, register/unregister):
 *  - Linux: EHCONF_CAPTURE_TL=file -> .tlcap -> ehd_tlcap_decode -> the JSON lines
 *    worked out by hand below (a failure when provider.c does not choose that backend);
 *  - Windows (mingw build, run under wine by `make check-wine`): the ETW backend
 *    registers, writes and unregisters with EHCONF_ETW_ALWAYS_ENABLED=1. Wine's ETW is
 *    a stub: this checks that the calls succeed, NOT that anything is captured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "eventheader.h"
#include "ehd.h"
#include "ehd_tl.h"
#include "ktap.h"

EH_DEFINE_PROVIDER(tl_test_provider, "EhconfTlTest");

static const uint8_t uuid_rfc[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                     0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF};
static const uint8_t activity[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* Writes the two events of this test; returns the first error (0 = both written). */
static int write_events(int *static_err, int *dynamic_err)
{
    *static_err =
        EH_WRITE(tl_test_provider, EH_EVENT("Hello", EH_LEVEL_INFORMATIONAL, 0x5, .opcode = 1),
                 EH_U32("a", 7), EH_GUID("g", uuid_rfc), EH_STRUCT("s", EH_I8("x", -1)));
    eh_tracepoint *tp = NULL;
    int err = eh_provider_tracepoint(&tl_test_provider, EH_LEVEL_VERBOSE, 0x10, &tp);
    if (err) {
        *dynamic_err = err;
        return err;
    }
    eh_builder b;
    eh_builder_init(&b);
    static const uint16_t he[] = {'h', 0xE9};
    eh_builder_reset(&b, "Dyn", 0, 0, 0, 0);
    eh_builder_add_string(&b, "w", EH_ENC_ZSTRING_CHAR16, EH_FMT_DEFAULT, 0, he, 2);
    *dynamic_err = eh_builder_write(&b, tp, activity, NULL);
    eh_builder_destroy(&b);
    return *static_err ? *static_err : *dynamic_err;
}

#ifndef _WIN32

static void emit(void *ctx, const char *json, size_t len)
{
    ehd_buf_append(ctx, json, len);
    ehd_buf_putc(ctx, '\n');
}

static void diag(void *ctx, uint64_t off, const char *reason)
{
    (void)ctx;
    kt_diag("decode: %llu: %s", (unsigned long long)off, reason);
}

/* The backend is chosen once per process, so both tests share one capture file; the
 * last test removes it. */
static char g_path[4096];

static void test_tlcapture_backend(void)
{
    int fd = kt_tmp_template(g_path, sizeof g_path, "ehconf-tltest-XXXXXX") ? mkstemp(g_path) : -1;
    KT_EXPECT(fd >= 0);
    if (fd < 0) {
        g_path[0] = 0;
        return;
    }
    close(fd);
    unsetenv("EHCONF_CAPTURE");
    setenv("EHCONF_CAPTURE_TL", g_path, 1);
    int reg = eh_provider_register(&tl_test_provider);
    /* Backend selection is what this test is about: any other backend is a regression. */
    if (strcmp(eh_backend_name(), "tlcapture") != 0) {
        kt_diag("backend for EHCONF_CAPTURE_TL is %s, not tlcapture", eh_backend_name());
        kt_fail_at(__FILE__, __LINE__, "provider.c did not choose the tlcapture backend");
        eh_provider_unregister(&tl_test_provider);
        unlink(g_path);
        g_path[0] = 0;
        return;
    }
    KT_EXPECT_EQ(reg, 0);
    int se, de;
    write_events(&se, &de);
    KT_EXPECT_EQ(se, 0);
    KT_EXPECT_EQ(de, 0);
    KT_EXPECT_EQ(eh_provider_unregister(&tl_test_provider), 0);
    /* After unregister, writes are refused and nothing more is appended. */
    KT_EXPECT_EQ(EH_WRITE(tl_test_provider, EH_EVENT("Late", 4, 1), EH_U8("z", 1)), EBADF);

    FILE *f = fopen(g_path, "rb");
    KT_EXPECT(f != NULL);
    if (!f)
        return;
    ehd_buf out;
    ehd_buf_init(&out);
    KT_EXPECT_EQ(ehd_tlcap_decode(f, EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, emit,
                                  &out, diag, NULL),
                 0);
    fclose(f);
    ehd_buf_putc(&out, 0);
    /* By hand: U32 7; the GUID text is the RFC 4122 byte order of uuid_rfc (the ETW form
     * swaps Data1-3 and the decoder swaps back); struct {x: -1}; level 4, keyword 5,
     * opcode 1. Then the builder event: CStr16 "hé", level 5, keyword 0x10, activity. */
    KT_EXPECT_STR(out.data,
                  "{ \"n\": \"EhconfTlTest:Hello\", \"a\": 7, "
                  "\"g\": \"00112233-4455-6677-8899-aabbccddeeff\", \"s\": { \"x\": -1 }, "
                  "\"meta\": { \"level\": 4, \"keyword\": \"0x5\", \"opcode\": 1 } }\n"
                  "{ \"n\": \"EhconfTlTest:Dyn\", \"w\": \"h\xC3\xA9\", "
                  "\"meta\": { \"level\": 5, \"keyword\": \"0x10\", "
                  "\"activity\": \"01020304-0506-0708-090a-0b0c0d0e0f10\" } }\n");
    ehd_buf_free(&out);
}

static off_t file_size(const char *file)
{
    struct stat st;
    return stat(file, &st) == 0 ? st.st_size : -1;
}

/*
 * EH_TL_EVENT_MAX (tl_encode.h): both TraceLogging backends refuse an event whose
 * provider metadata + event metadata + payload exceed 65535 - 128 = 65407 bytes.
 * By hand, for a builder event "Big" with one u8 array "f" of n elements:
 *   provider metadata: u16 size + "EhconfTlTest\0"          = 2 + 13 = 15
 *   event metadata:    u16 size + tag 0 + "Big\0" + "f\0" + InType U8|VCOUNT
 *                                                            = 2 + 1 + 4 + 2 + 1 = 10
 *   payload:           u16 count + n
 * so 27 + n <= 65407: n = 65380 is written, n = 65381 is E2BIG and writes nothing.
 * (The EventHeader event is 8 + 4 + "Big\0" 4 + "f\0" 2 + encoding 1 + 2 + n = 21 + n
 * bytes, well under its own 65535 limit.)
 */
static void test_tlcapture_etw_size_limit(void)
{
    static uint8_t fill[65381];
    if (!g_path[0]) {
        kt_fail_at(__FILE__, __LINE__, "test_tlcapture_backend set up no tlcapture file");
        return;
    }
    KT_EXPECT_EQ(eh_provider_register(&tl_test_provider), 0);
    KT_EXPECT_STR(eh_backend_name(), "tlcapture");
    eh_tracepoint *tp = NULL;
    KT_EXPECT_EQ(eh_provider_tracepoint(&tl_test_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp), 0);
    eh_builder b;
    eh_builder_init(&b);
    for (unsigned n = 65380; n <= 65381; n++) {
        off_t before = file_size(g_path);
        KT_EXPECT_EQ(eh_builder_reset(&b, "Big", 0, 0, 0, 0), 0);
        KT_EXPECT_EQ(eh_builder_add_array(&b, "f", EH_ENC_VALUE8, EH_FMT_DEFAULT, 0, fill, n), 0);
        int err = eh_builder_write(&b, tp, NULL, NULL);
        if (n == 65380) {
            KT_EXPECT_EQ(err, 0);
            KT_EXPECT(file_size(g_path) > before);
        } else {
            KT_EXPECT_EQ(err, E2BIG);
            KT_EXPECT_EQ(file_size(g_path), before);
        }
    }
    eh_builder_destroy(&b);
    KT_EXPECT_EQ(eh_provider_unregister(&tl_test_provider), 0);
    unlink(g_path);
}

KT_MAIN(KT_CASE(test_tlcapture_backend), KT_CASE(test_tlcapture_etw_size_limit))

#else /* _WIN32 */

static void test_etw_backend(void)
{
    _putenv("EHCONF_ETW_ALWAYS_ENABLED=1");
    KT_EXPECT_EQ(eh_provider_register(&tl_test_provider), 0);
    KT_EXPECT_STR(eh_backend_name(), "etw");
    int se, de;
    write_events(&se, &de);
    KT_EXPECT_EQ(se, 0); /* EBADF: the site was not connected (its eh_events section) */
    KT_EXPECT_EQ(de, 0);
    KT_EXPECT_EQ(eh_provider_unregister(&tl_test_provider), 0);
    kt_diag("ETW calls returned success; under wine ETW is a stub and nothing is captured");
}

KT_MAIN(KT_CASE(test_etw_backend))

#endif
