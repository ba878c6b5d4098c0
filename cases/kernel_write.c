// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_write: what the kernel does with writes on user_events_data (write,
 * writev, pwrite, pwritev), asserted through the raw ABI.
 *
 * ehconf-no-golden: this case writes no EventHeader event of its own to compare;
 * everything it checks is asserted here (KTAP only, no golden file).
 *
 *   K21_payload_recorded_packed_after_common_header
 *                         K21: a perf sample's raw data is the 8-byte common header
 *                         (type = tracepoint id, pid = writer) then exactly the
 *                         bytes written after the index, fields packed at offsets
 *                         8/12/14 in `format`, extra bytes beyond the fields kept;
 *   K29_K30_write_without_tracer_is_ebadf
 *                         K29: with nobody listening writev() fails with EBADF (also
 *                         again after a tracer came and went), libeventheader
 *                         returns EBADF too; K30: an unknown index is ENOENT instead;
 *   K30_unregistered_index_is_enoent
 *                         K30: an index this fd never registered is ENOENT (fresh fd,
 *                         index past the fd's slots, another fd's index), tracer on;
 *   K31_negative_index_is_einval
 *                         K31: a negative index is EINVAL, before the ENOENT lookup;
 *   K32_short_payload_is_einval
 *                         K32: fewer payload bytes than the declared fields is
 *                         EINVAL (tracer on: nothing recorded; tracer off: still
 *                         EINVAL, checked before EBADF);
 *   K33_bad_buffer_and_pwrite_offset_are_efault
 *                         K33: a write shorter than the index, an unreadable
 *                         buffer or iov_base, pwrite() at an offset != 0 are EFAULT
 *                         with a tracer on (nothing recorded); pwrite at 0 and
 *                         pwritev at any offset succeed; without a tracer a bad
 *                         iov_base is EBADF (the fault-in only runs when enabled);
 *   K16_K33_loc_validator_is_efault
 *                         K33 (and the write half of K16): a __data_loc/__rel_loc
 *                         whose data ends past the payload, or whose char string
 *                         lacks its NUL, is EFAULT and not recorded; a non-char
 *                         loc needs no NUL; valid locs are recorded;
 *   K34_oversize_write_returns_full_length
 *                         K34: writes of 20000 bytes and 1 MiB with perf attached
 *                         return their full length although perf drops them;
 *   K35_fieldless_event_index_only_write
 *                         K35: an event without fields accepts an index-only write
 *                         and perf records exactly one sample of the 8-byte header
 *                         (raw size 12: header + 4 alignment bytes).
 *
 * Every writer runs on cpu 0, where the perf rings are. Without
 * /sys/kernel/tracing/user_events_data every test SKIPs with
 * "kernel lacks CONFIG_USER_EVENTS". The tests need root (perf_event_open on cpu 0
 * with PERF_SAMPLE_RAW). One oversize perf write (K34) makes 6.12 log the
 * once-per-boot "perf buffer not large enough" WARNING the VM run allows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eventheader.h"
#include "case_harness.h"
#include "user_events_abi.h"
#include "kernel_asserts.h"

static EH_DEFINE_PROVIDER(write_provider, "EhconfKernelWrite");

/* An inaccessible page (kept mapped, so no other mapping lands there). */
static void *bad_page(void)
{
    void *p =
        mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

/* The size perf reports for a raw sample of 8 + p bytes (u32 size + data, 8-aligned). */
static uint32_t perf_raw_size(uint32_t p)
{
    return ((8 + p + 4 + 7) & ~7u) - 4;
}

/* Whether `format` has the line "\tfield:<decl>;\toffset:<off>;\tsize:<size>;". */
static bool format_has_field(const char *format, const char *decl, int off, int size)
{
    char line[160];

    snprintf(line, sizeof line, "\tfield:%s;\toffset:%d;\tsize:%d;", decl, off, size);
    return strstr(format, line) != NULL;
}

/* K21: a kernel that aligned the fields, dropped the bytes past them or reordered the
 * record would change the format offsets or the raw bytes compared here. */
TEST(K21_payload_recorded_packed_after_common_header)
{
    static struct traced t;
    static const uint32_t lens[] = {7, 8, 12, 13, 20, 64};
    char path[256], format[4096];
    uint8_t payload[64];
    const char *why;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    why = traced_open(&t, "packed", "u32 a;u16 b;u8 c", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    snprintf(path, sizeof path, TRACEFS "/events/user_events/%s/format", t.name);
    ASSERT_EQ(0, read_text(path, format, sizeof format));
    EXPECT_TRUE(format_has_field(format, "u32 a", 8, 4))
    {
        TH_LOG("format:\n%s", format);
    }
    EXPECT_TRUE(format_has_field(format, "u16 b", 12, 2));
    EXPECT_TRUE(format_has_field(format, "u8 c", 14, 1));
    perf_ring_drain(&t.ring);

    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint32_t len = lens[k], raw_len = 0;
        const uint8_t *raw = NULL;
        uint16_t type;
        int32_t pid;

        for (uint32_t i = 0; i < len; i++)
            payload[i] = (uint8_t)(0xa0 + k * 16 + i);
        ASSERT_EQ((long)(4 + len), ue_writev_count(t.fd, t.index, payload, len));
        ASSERT_EQ(1, perf_ring_next(&t.ring, &raw, &raw_len))
        {
            TH_LOG("no sample for a %u-byte payload", len);
        }
        EXPECT_EQ(perf_raw_size(len), raw_len)
        {
            TH_LOG("payload %u: raw size %u", len, raw_len);
        }
        ASSERT_LE(8 + len, raw_len);
        memcpy(&type, raw, sizeof type);
        memcpy(&pid, raw + 4, sizeof pid);
        EXPECT_EQ((uint16_t)t.id, type);
        EXPECT_EQ((int32_t)getpid(), pid);
        EXPECT_EQ(0, memcmp(raw + 8, payload, len))
        {
            TH_LOG("payload %u: the recorded bytes differ from the written ones", len);
        }
        EXPECT_EQ(0, perf_ring_count(&t.ring)); /* one write, one sample */
    }
    traced_close(&t);
}

/* The library's write site; level 4 (informational), keyword 1. */
static int emit_write_probe(uint32_t value)
{
    return EH_WRITE(write_provider, EH_EVENT("WriteProbe", EH_LEVEL_INFORMATIONAL, 0x1),
                    EH_U32("value", value));
}

/* K29: a kernel that accepted (and dropped) writes with no tracer, or kept the event
 * enabled after the last tracer left, would return 0 instead of EBADF here. */
TEST(K29_K30_write_without_tracer_is_ebadf)
{
    char name[64];
    uint32_t word = 0, index = 0, value = 42;
    int fd, pfd;

    NEED_USER_EVENTS();
    NEED_PERF();
    unsetenv("EHCONF_CAPTURE"); /* about the kernel, never the capture file */
    ue_event_name(name, sizeof name, "nolistener");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 value", &word, 0, &index));
    EXPECT_EQ(0u, load_word(&word));
    EXPECT_EQ(EBADF, ue_writev(fd, index, &value, sizeof value));
    /* An index this fd never registered is another error (ENOENT), not EBADF. */
    EXPECT_EQ(ENOENT, ue_writev(fd, index + 1000, &value, sizeof value));

    /* A tracer comes and goes: accepted while it is there, EBADF again after. */
    pfd = perf_attach(_metadata, name);
    EXPECT_TRUE(wait_bits(&word, 1, true, UE_WAIT_MS));
    EXPECT_EQ(0, ue_writev(fd, index, &value, sizeof value));
    close(pfd);
    EXPECT_TRUE(wait_bits(&word, 1, false, UE_WAIT_MS));
    EXPECT_EQ(EBADF, ue_writev(fd, index, &value, sizeof value));
    EXPECT_EQ(0, ue_unregister(fd, &word, 0));
    close(fd);
    wait_event_presence(name, false, UE_WAIT_MS);

    ASSERT_EQ(0, eh_provider_register(&write_provider));
    EXPECT_EQ(EBADF, emit_write_probe(4));
    EXPECT_EQ(0, eh_provider_unregister(&write_provider));
}

/* K30: a kernel that let an index reach past the fd's slot array (or shared slots
 * between fds) would accept these writes or fail them with another errno. */
TEST(K30_unregistered_index_is_enoent)
{
    static struct traced t;
    uint32_t value = 7;
    const char *why;
    int err, fresh;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    why = traced_open(&t, "enoent", "u32 value", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    ASSERT_EQ(0u, t.index); /* the fd's first slot */
    perf_ring_drain(&t.ring);
    EXPECT_EQ(ENOENT, ue_writev(t.fd, t.index + 1, &value, sizeof value));
    EXPECT_EQ(ENOENT, ue_writev(t.fd, 1000, &value, sizeof value));
    EXPECT_EQ(ENOENT, ue_writev(t.fd, INT32_MAX, &value, sizeof value));
    /* Indexes are per fd: a fresh fd has no slot 0 even though t.fd has one. */
    fresh = ue_open();
    ASSERT_LE(0, fresh);
    EXPECT_EQ(ENOENT, ue_writev(fresh, t.index, &value, sizeof value));
    EXPECT_EQ(ENOENT, ue_writev(fresh, 0, NULL, 0));
    close(fresh);
    EXPECT_EQ(0, perf_ring_count(&t.ring)); /* none of them was recorded */
    EXPECT_EQ(0, ue_writev(t.fd, t.index, &value, sizeof value));
    EXPECT_EQ(1, perf_ring_count(&t.ring));
    traced_close(&t);
}

/* K31: a kernel that read the index as unsigned would answer ENOENT (or index out of
 * bounds) instead of EINVAL. */
TEST(K31_negative_index_is_einval)
{
    static struct traced t;
    static const int32_t negative[] = {-1, -2, INT32_MIN};
    uint32_t value = 9;
    const char *why;
    int err, fresh;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    why = traced_open(&t, "negidx", "u32 value", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    perf_ring_drain(&t.ring);
    fresh = ue_open();
    ASSERT_LE(0, fresh);
    for (size_t k = 0; k < sizeof negative / sizeof negative[0]; k++) {
        EXPECT_EQ(EINVAL, ue_writev(t.fd, (uint32_t)negative[k], &value, sizeof value))
        {
            TH_LOG("index %d", negative[k]);
        }
        /* checked before the fd's slots: a fresh fd says EINVAL, not ENOENT */
        EXPECT_EQ(EINVAL, ue_writev(fresh, (uint32_t)negative[k], &value, sizeof value));
    }
    close(fresh);
    EXPECT_EQ(0, perf_ring_count(&t.ring));
    traced_close(&t);
}

/* K32: a kernel without the min_size check would record short (garbage-tailed)
 * events; one that checked it after the enable test would answer EBADF untraced. */
TEST(K32_short_payload_is_einval)
{
    static struct traced t;
    uint8_t payload[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const char *why;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    why = traced_open(&t, "short", "u32 a;u64 b", &err); /* 12 bytes of fields */
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    perf_ring_drain(&t.ring);
    EXPECT_EQ(EINVAL, ue_writev(t.fd, t.index, NULL, 0));
    EXPECT_EQ(EINVAL, ue_writev(t.fd, t.index, payload, 4));
    EXPECT_EQ(EINVAL, ue_writev(t.fd, t.index, payload, 11));
    EXPECT_EQ(0, perf_ring_count(&t.ring));
    EXPECT_EQ(0, ue_writev(t.fd, t.index, payload, 12));
    EXPECT_EQ(1, perf_ring_count(&t.ring));
    /* Without a tracer the size check still comes first. */
    perf_ring_close(&t.ring);
    EXPECT_TRUE(wait_bits(&t.word, 1, false, UE_WAIT_MS));
    EXPECT_EQ(EINVAL, ue_writev(t.fd, t.index, payload, 11));
    EXPECT_EQ(EBADF, ue_writev(t.fd, t.index, payload, 12));
    traced_close(&t);
}

/* K33: a kernel that ignored the file offset, or recorded what it could not copy,
 * would accept these writes; one that faulted in the data without a tracer would
 * turn the final EBADF into EFAULT. */
TEST(K33_bad_buffer_and_pwrite_offset_are_efault)
{
    static struct traced t;
    uint8_t buf[8];
    uint32_t value = 0x5a5a5a5a;
    struct iovec iov[2];
    void *bad;
    const char *why;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    bad = bad_page();
    ASSERT_NE(NULL, bad);
    why = traced_open(&t, "efault", "u32 value", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    memcpy(buf, &t.index, 4);
    memcpy(buf + 4, &value, 4);
    perf_ring_drain(&t.ring);

    /* fewer than the 4 bytes of the index: the index copy comes up short */
    errno = 0;
    EXPECT_EQ(-1, write(t.fd, buf, 2));
    EXPECT_EQ(EFAULT, errno);
    /* the whole buffer unreadable */
    errno = 0;
    EXPECT_EQ(-1, write(t.fd, bad, 8));
    EXPECT_EQ(EFAULT, errno);
    /* a readable index, an unreadable payload iovec */
    EXPECT_EQ(EFAULT, ue_writev(t.fd, t.index, bad, 4));
    /* pwrite() at an offset != 0 */
    errno = 0;
    EXPECT_EQ(-1, pwrite(t.fd, buf, 8, 4));
    EXPECT_EQ(EFAULT, errno);
    errno = 0;
    EXPECT_EQ(-1, pwrite(t.fd, buf, 8, 1 << 20));
    EXPECT_EQ(EFAULT, errno);
    EXPECT_EQ(0, perf_ring_count(&t.ring)); /* nothing of the above was recorded */

    /* pwrite() at 0 is a plain write; pwritev() takes the write_iter path, which
	 * never looks at the offset (6.12 checks it only in write()). */
    EXPECT_EQ(8, pwrite(t.fd, buf, 8, 0));
    iov[0].iov_base = buf;
    iov[0].iov_len = 4;
    iov[1].iov_base = buf + 4;
    iov[1].iov_len = 4;
    EXPECT_EQ(8, pwritev(t.fd, iov, 2, 4));
    EXPECT_EQ(2, perf_ring_count(&t.ring));

    /* No tracer: the data is never touched, the answer is EBADF. */
    perf_ring_close(&t.ring);
    EXPECT_TRUE(wait_bits(&t.word, 1, false, UE_WAIT_MS));
    EXPECT_EQ(EBADF, ue_writev(t.fd, t.index, bad, 4));
    traced_close(&t);
    munmap(bad, (size_t)sysconf(_SC_PAGESIZE));
}

/* One loc write: the 4-byte loc word, then `data` (len bytes); errno expected. */
struct loc_case {
    uint32_t loc;
    const char *data;
    uint32_t len;
    int want;
};

/* DYN_LOC: size in the high half, offset in the low half. */
#define LOC(offset, size) (((uint32_t)(size) << 16) | (uint32_t)(offset))

/* K16/K33: a kernel that skipped the validator (or checked the wrong end) would record
 * locs pointing past the payload or unterminated strings instead of failing them. */
TEST(K16_K33_loc_validator_is_efault)
{
    static struct traced t;
    /* __data_loc offsets count from the start of the record: the 8-byte header and
	 * the 4-byte loc put the string at 12. __rel_loc counts from the end of the loc. */
    static const struct loc_case data_char[] = {
        {LOC(12, 3), "hi\0", 3, 0},
        {LOC(12, 4), "hi\0", 3, EFAULT},  /* one byte past the payload */
        {LOC(12, 3), "hi!", 3, EFAULT},   /* no NUL at the end */
        {LOC(200, 3), "hi\0", 3, EFAULT}, /* far outside */
        {LOC(14, 1), "hi\0", 3, 0},       /* just the NUL */
    };
    static const struct loc_case rel_char[] = {
        {LOC(0, 3), "hi\0", 3, 0},
        {LOC(1, 3), "hi\0", 3, EFAULT},
        {LOC(0, 3), "hi!", 3, EFAULT},
        {LOC(12, 3), "hi\0", 3, EFAULT}, /* a __data_loc-style offset */
        {LOC(2, 1), "hi\0", 3, 0},
    };
    static const struct loc_case data_u8[] = {
        {LOC(12, 3), "hi!", 3, 0}, /* not char: no NUL needed */
        {LOC(12, 4), "hi!", 3, EFAULT},
    };
    static const struct {
        const char *what, *fields;
        const struct loc_case *cases;
        size_t n;
    } kinds[] = {
        {"locdata", "__data_loc char[] msg", data_char, sizeof data_char / sizeof data_char[0]},
        {"locrel", "__rel_loc char[] msg", rel_char, sizeof rel_char / sizeof rel_char[0]},
        {"locblob", "__data_loc u8[] blob", data_u8, sizeof data_u8 / sizeof data_u8[0]},
    };

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *why;
        int err, ok = 0;

        why = traced_open(&t, kinds[k].what, kinds[k].fields, &err);
        ASSERT_EQ(NULL, why)
        {
            TH_LOG("%s (%s): %s", why, kinds[k].fields, strerror(err));
        }
        perf_ring_drain(&t.ring);
        for (size_t c = 0; c < kinds[k].n; c++) {
            const struct loc_case *lc = &kinds[k].cases[c];
            uint8_t payload[16];

            memcpy(payload, &lc->loc, 4);
            memcpy(payload + 4, lc->data, lc->len);
            EXPECT_EQ(lc->want, ue_writev(t.fd, t.index, payload, 4 + lc->len))
            {
                TH_LOG("%s, case %zu (loc 0x%08x)", kinds[k].fields, c, lc->loc);
            }
            if (lc->want == 0)
                ok++;
        }
        EXPECT_EQ(ok, perf_ring_count(&t.ring))
        {
            TH_LOG("%s: only the valid writes may be recorded", kinds[k].fields);
        }
        traced_close(&t);
    }
}

/* K34: a kernel that capped write() or reported the consumer's drop would return an
 * error or a short count; the small write after shows perf is still attached. */
TEST(K34_oversize_write_returns_full_length)
{
    static struct traced t;
    static const size_t sizes[] = {20000, 1u << 20};
    uint8_t *payload;
    uint32_t seq = 77;
    const char *why;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    payload = calloc(1, 1u << 20);
    ASSERT_NE(NULL, payload);
    why = traced_open(&t, "oversize", "u32 seq", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    perf_ring_drain(&t.ring);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        EXPECT_EQ((long)(4 + sizes[k]), ue_writev_count(t.fd, t.index, payload, sizes[k]))
        {
            TH_LOG("a %zu-byte payload", sizes[k]);
        }
    }
    EXPECT_EQ(0, perf_ring_count(&t.ring)); /* perf dropped both */
    EXPECT_EQ(8, ue_writev_count(t.fd, t.index, &seq, sizeof seq));
    EXPECT_EQ(1, perf_ring_count(&t.ring));
    traced_close(&t);
    free(payload);
}

/* K35: a kernel that required a payload (or min_size > 0) for a field-less event
 * would refuse the index-only write; one that recorded junk would change raw size. */
TEST(K35_fieldless_event_index_only_write)
{
    static struct traced t;
    const uint8_t *raw = NULL;
    uint32_t raw_len = 0;
    uint16_t type;
    int32_t pid;
    const char *why;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    why = traced_open(&t, "nofields", "", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    perf_ring_drain(&t.ring);
    EXPECT_EQ(4, ue_writev_count(t.fd, t.index, NULL, 0));
    ASSERT_EQ(1, perf_ring_next(&t.ring, &raw, &raw_len));
    EXPECT_EQ(perf_raw_size(0), raw_len); /* 12: the header + 4 bytes of alignment */
    memcpy(&type, raw, sizeof type);
    memcpy(&pid, raw + 4, sizeof pid);
    EXPECT_EQ((uint16_t)t.id, type);
    EXPECT_EQ((int32_t)getpid(), pid);
    EXPECT_EQ(0, perf_ring_count(&t.ring)); /* exactly one sample */
    traced_close(&t);
}

TEST_HARNESS_MAIN
