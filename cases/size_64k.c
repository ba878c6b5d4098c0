// SPDX-License-Identifier: GPL-2.0
/*
 * size_64k: event sizes, from tiny to the 65535-byte encoding limit.
 *
 * "Size" below always means T = the bytes after the user_events write index: header,
 * extensions and payload (what EH_EVENT_SIZE_MAX limits, and what the kernel's
 * delivery limits count: perf delivers T <= 8184, ftrace T <= 4064 on 6.12, see
 * Documentation/user-events-abi.md §6).
 *
 * Every sized event is "Size" with three fields, so its size is known by hand:
 *   "size": u32 T            (the event carries its own size: a live run can report
 *                             exactly which sizes arrived)
 *   "fill": varray of u64 0  (n elements)
 *   "pad":  str8 "ppppppp"   (k = 0..7 characters, to reach T exactly)
 * Layout (Documentation/eventheader-wire.md §4; no format byte for default formats):
 *   header 8 | metadata ext: 4 + "Size\0" 5 + "size\0",enc 6 + "fill\0",enc 6
 *            + "pad\0",enc 5 | payload: size 4 + count 2 + 8n + length 2 + k
 *   T = 42 + 8n + k
 * The filler is u64 zeros because its JSON is the shortest per byte ("0, " = 3
 * characters per 8 bytes): the 65535-byte event is a 25 KB golden line and the whole
 * golden about 115 KB. A hex/binary filler would cost 3 characters per byte (200 KB
 * for one event) and a string 1 per byte; zeros still check every byte (any corrupted
 * byte shows as a non-zero element) and the element count checks the length.
 *
 * Offline, the case also checks that the capture file grew by exactly one record of
 * 4 + strlen("EhconfSize_L4K1") + 1 + T bytes per accepted event, and not at all for a
 * refused one.
 *
 * Sizes: 16 (the event "S16" with no fields: 8 + 4 + "S16\0" 4), 1000, 4060..4070
 * (around ftrace's 4064), 8180..8190 (around perf's 8184), 30000, 65535 (accepted);
 * 65536 refused with E2BIG. The same 65535 / 65536 pair through the dynamic builder.
 * The golden file declares the live transports' limits (harness/core/golden.py).
 *
 * On the TraceLogging backends (ETW, and EHCONF_CAPTURE_TL that stands in for it) the
 * 65535-byte event is refused with E2BIG instead: ETW's 64 KB counts its own headers
 * too, and libeventheader refuses TraceLogging events over EH_TL_EVENT_MAX (see
 * lib/eventheader/internal/tl_encode.h), which for these events is T > 65402.
 */
#include <string.h>

#include "eventheader.h"
#include "case_harness.h"
#include "case_common.h"

static EH_DEFINE_PROVIDER(size_provider, "EhconfSize");

/* Every record of this case: u32 record size + "EhconfSize_L4K1\0" + the event. */
#define RECORD_OVERHEAD (4 + sizeof("EhconfSize_L4K1"))
#define SIZE_BASE       42u /* T of a "Size" event with n = 0 and k = 0 */
#define DYN_SIZE_BASE   45u /* same for "DynSize" (3 more name bytes) */

static const uint64_t zeros[65536 / 8];
static const char pad[] = "ppppppp";

static int write_size(uint32_t t)
{
    uint32_t n = (t - SIZE_BASE) / 8, k = (t - SIZE_BASE) % 8;

    return EH_WRITE(size_provider, EH_EVENT("Size", EH_LEVEL_INFORMATIONAL, 0x1), EH_U32("size", t),
                    EH_U64_SLICE("fill", zeros, n), EH_STR8("pad", pad, k));
}

static int write_dyn_size(eh_builder *b, eh_tracepoint *tp, uint32_t t)
{
    uint32_t n = (t - DYN_SIZE_BASE) / 8, k = (t - DYN_SIZE_BASE) % 8;
    int err = eh_builder_reset(b, "DynSize", EH_OPCODE_INFO, 0, 0, 0);

    if (!err)
        err = eh_builder_add_value(b, "size", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &t);
    if (!err)
        err = eh_builder_add_array(b, "fill", EH_ENC_VALUE64, EH_FMT_DEFAULT, 0, zeros, n);
    if (!err)
        err = eh_builder_add_string(b, "pad", EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_DEFAULT, 0, pad,
                                    k);
    if (!err)
        err = eh_builder_write(b, tp, NULL, NULL);
    return err;
}

/* Offline: a .dat capture grew by exactly one record holding t event bytes; a
 * TraceLogging capture (records of another layout) grew. */
#define EXPECT_GREW_BY_EVENT(before, t)                                  \
    do {                                                                 \
        const char *path_;                                               \
        off_t after_ = case_capture_size();                              \
        if ((before) >= 0 && case_capture(&path_) == CASE_CAPTURE_DAT) { \
            EXPECT_EQ((off_t)((before) + RECORD_OVERHEAD + (t)), after_) \
            {                                                            \
                TH_LOG("event of %u bytes", (unsigned)(t));              \
            }                                                            \
        } else if ((before) >= 0) {                                      \
            EXPECT_LT((before), after_)                                  \
            {                                                            \
                TH_LOG("event of %u bytes", (unsigned)(t));              \
            }                                                            \
        }                                                                \
    } while (0)

TEST(tiny_16)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&size_provider));
    before = case_capture_size();
    ASSERT_EQ(0, EH_WRITE(size_provider, EH_EVENT("S16", EH_LEVEL_INFORMATIONAL, 0x1)));
    EXPECT_GREW_BY_EVENT(before, 16u);
    EXPECT_EQ(0, eh_provider_unregister(&size_provider));
}

TEST(ladder)
{
    static const uint32_t sizes[] = {
        1000, 4060, 4061, 4062, 4063, 4064, 4065, 4066, 4067, 4068, 4069, 4070,
        8180, 8181, 8182, 8183, 8184, 8185, 8186, 8187, 8188, 8189, 8190, 30000,
    };

    ASSERT_EQ(0, eh_provider_register(&size_provider));
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        off_t before = case_capture_size();

        EXPECT_EQ(0, write_size(sizes[i]))
        {
            TH_LOG("size %u", (unsigned)sizes[i]);
        }
        EXPECT_GREW_BY_EVENT(before, sizes[i]);
    }
    EXPECT_EQ(0, eh_provider_unregister(&size_provider));
}

TEST(exactly_65535_accepted)
{
    off_t before;
    int err;

    ASSERT_EQ(0, eh_provider_register(&size_provider));
    before = case_capture_size();
    err = write_size(65535);
    if (case_backend_is_tracelogging()) {
        EXPECT_EQ(E2BIG, err);
        EXPECT_EQ(before, case_capture_size());
    } else {
        ASSERT_EQ(0, err);
        EXPECT_GREW_BY_EVENT(before, 65535u);
    }
    EXPECT_EQ(0, eh_provider_unregister(&size_provider));
}

TEST(over_65535_refused)
{
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&size_provider));
    before = case_capture_size();
    EXPECT_EQ(E2BIG, write_size(65536));
    /* one u64 more than fits, and far more than fits */
    EXPECT_EQ(E2BIG, write_size(65535 + 8));
    EXPECT_EQ(E2BIG, EH_WRITE(size_provider, EH_EVENT("Huge", EH_LEVEL_INFORMATIONAL, 0x1),
                              EH_U64_SLICE("fill", zeros, 65535 / 8),
                              EH_U64_SLICE("more", zeros, 65535 / 8)));
    EXPECT_EQ(before, case_capture_size());
    EXPECT_EQ(0, eh_provider_unregister(&size_provider));
}

TEST(builder_65535_and_65536)
{
    eh_tracepoint *tp = NULL;
    eh_builder b;
    off_t before;

    ASSERT_EQ(0, eh_provider_register(&size_provider));
    ASSERT_EQ(0, eh_provider_tracepoint(&size_provider, EH_LEVEL_INFORMATIONAL, 0x1, &tp));
    eh_builder_init(&b);
    before = case_capture_size();
    if (case_backend_is_tracelogging()) {
        EXPECT_EQ(E2BIG, write_dyn_size(&b, tp, 65535));
        EXPECT_EQ(before, case_capture_size());
    } else {
        EXPECT_EQ(0, write_dyn_size(&b, tp, 65535));
        EXPECT_GREW_BY_EVENT(before, 65535u);
    }
    before = case_capture_size();
    EXPECT_EQ(E2BIG, write_dyn_size(&b, tp, 65536));
    EXPECT_EQ(before, case_capture_size());
    eh_builder_destroy(&b);
    EXPECT_EQ(0, eh_provider_unregister(&size_provider));
}

TEST_HARNESS_MAIN
