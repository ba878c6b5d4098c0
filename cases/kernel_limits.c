// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_limits: the size and count limits of user_events on the running kernel,
 * asserted through the raw ABI.
 *
 * ehconf-no-golden: this case writes no EventHeader event of its own to compare;
 * everything it checks is asserted here (KTAP only, no golden file).
 *
 *   K20_user_events_max_then_emfile
 *                         K20: with the sysctl kernel.user_events_max lowered to the
 *                         current count + 3, three new events register, the fourth
 *                         gets EMFILE, user_events_status counts exactly the limit,
 *                         an existing event can still be registered again (no new
 *                         event), and after the sysctl is restored the fourth
 *                         registers; the sysctl is always restored;
 *   K50_perf_oversize_logs_buffer_warning
 *                         K50: after a perf write of 8185 payload bytes the kernel
 *                         log holds exactly one "perf buffer not large enough,
 *                         wanted N, have 8192" (once per boot; N = 8200 when this
 *                         test is the first to provoke it), the write returns its
 *                         full length and perf records nothing;
 *   K51_ftrace_near_max_after_idle_gap
 *                         K51: in a trace instance, payloads of 4057..4064 bytes each
 *                         written > 150 ms after the previous event (so the ring
 *                         buffer wants a time extend) all arrive, and the instance
 *                         keeps recording (tracing_on 1, a later event arrives);
 *   K47_perf_max_payload  K47: the largest payload (bytes after the 4-byte write
 *                         index) a perf PERF_SAMPLE_RAW event receives, found by a
 *                         binary search plus a check of its neighbours; 6.12: 8184
 *                         (ALIGN(8 + P, 8) <= 8192); larger writes still succeed;
 *   K48_ftrace_max_payload
 *                         K48: the same for the ftrace ring buffer of a trace
 *                         instance; 6.12: 4064 (8 + P <= 4072).
 *
 * The measured limits are printed as KTAP diagnostics "# perf max payload: N" and
 * "# ftrace max payload: N" (harness/vm/run_vm.py and report.md read them). The expected
 * values come per kernel version from cases/kernel-expectations.txt, which the guest
 * runner passes as EHCONF_EXPECT_PERF_MAX_PAYLOAD and EHCONF_EXPECT_FTRACE_MAX_PAYLOAD;
 * without them (kselftest, or by hand) kernel_expect.h picks the same row by uname -r.
 *
 * The first oversize perf write of a boot makes 6.12 log "perf buffer not large
 * enough" with a WARNING splat: the VM run allows exactly that warning. K50 runs
 * before K47 so that in a fresh boot it is the test that provokes it.
 *
 * Without /sys/kernel/tracing/user_events_data every test SKIPs with
 * "kernel lacks CONFIG_USER_EVENTS". The tests need root (sysctl, trace instances,
 * perf_event_open on cpu 0 with PERF_SAMPLE_RAW, the kernel log).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "case_harness.h"
#include "kernel_expect.h"
#include "user_events_abi.h"

#define SYSCTL_MAX "/proc/sys/kernel/user_events_max"

/* 6.12's perf limit (Documentation/user-events-abi.md §6; payload = bytes after the
 * index): K50 writes one byte more. K47 and K48 take theirs from kernel_expect.h. */
#define PERF_MAX_PAYLOAD_6_12 8184
#define SEARCH_HI             65536 /* a payload no consumer of a 4 KiB-page kernel delivers */

/* ---- K20: user_events_max ------------------------------------------------------ */

/* The number after "<key>: " in the totals of user_events_status, or -1. */
static long status_total(const char *key)
{
    static char text[1 << 20];
    char needle[32];
    const char *at;

    if (read_text(UE_STATUS, text, sizeof text) != 0)
        return -1;
    snprintf(needle, sizeof needle, "\n%s: ", key);
    at = strstr(text, needle);
    return at ? strtol(at + strlen(needle), NULL, 10) : -1;
}

/* Active events once the count stops moving (events of earlier tests are deleted
 * asynchronously): two equal reads 100 ms apart, at most UE_WAIT_MS. */
static long stable_active(void)
{
    long prev = status_total("Active"), now = prev;

    for (int ms = 0; ms < UE_WAIT_MS; ms += 100) {
        ue_sleep_ms(100);
        now = status_total("Active");
        if (now == prev)
            break;
        prev = now;
    }
    return now;
}

#define LIMIT_NEW 3 /* events the lowered limit leaves room for */

struct limit_run {
    char orig[32];         /* the sysctl as found */
    long before, at_limit; /* Active before, and when EMFILE came */
    unsigned max;          /* the lowered limit */
    int set_err, restore_err;
    int reg[LIMIT_NEW + 1]; /* the new events; the last one is over the limit */
    int again;              /* an existing event registered again at the limit */
    uint32_t index0, again_index;
    int after; /* the over-limit event once the sysctl is restored */
};

/*
 * Everything between lowering and restoring the sysctl, without assertions (an
 * ASSERT would leave the test with the sysctl lowered): the results go to *r.
 */
static void limit_exercise(struct limit_run *r, int fd, uint32_t *words, char names[][64])
{
    char text[32];
    uint32_t index = 0;

    r->max = (unsigned)r->before + LIMIT_NEW;
    snprintf(text, sizeof text, "%u\n", r->max);
    r->set_err = write_text(SYSCTL_MAX, text);
    if (r->set_err)
        return;
    for (int k = 0; k <= LIMIT_NEW; k++) {
        r->reg[k] = ue_register(fd, names[k], "u32 value", &words[k], 0, &index);
        if (k == 0 && r->reg[k] == 0)
            r->index0 = index;
    }
    r->at_limit = status_total("Active");
    r->again = ue_register(fd, names[0], "u32 value", &words[LIMIT_NEW + 1], 0, &r->again_index);
    r->restore_err = write_text(SYSCTL_MAX, r->orig);
    r->after = ue_register(fd, names[LIMIT_NEW], "u32 value", &words[LIMIT_NEW], 0, &index);
}

/* K20: a kernel that ignored the sysctl, counted re-registrations as new events or
 * answered another errno would fail the counts and EMFILE checked here. */
TEST(K20_user_events_max_then_emfile)
{
    static struct limit_run r;
    char names[LIMIT_NEW + 1][64], what[16], now[32];
    uint32_t words[LIMIT_NEW + 2] = {0};
    int fd;

    NEED_USER_EVENTS();
    memset(&r, 0, sizeof r);
    ASSERT_EQ(0, read_text(SYSCTL_MAX, r.orig, sizeof r.orig))
    {
        TH_LOG("cannot read %s", SYSCTL_MAX);
    }
    ASSERT_EQ(32768, strtol(r.orig, NULL, 10))
    {
        TH_LOG("user_events_max is %s, not the default", r.orig);
    }
    for (int k = 0; k <= LIMIT_NEW; k++) {
        snprintf(what, sizeof what, "max%d", k);
        ue_event_name(names[k], sizeof names[k], what);
    }
    fd = ue_open();
    ASSERT_LE(0, fd);
    r.before = stable_active();
    ASSERT_LE(0, r.before);

    limit_exercise(&r, fd, words, names);

    for (int k = 0; k <= LIMIT_NEW + 1; k++)
        ue_unregister(fd, &words[k], 0);
    close(fd);
    for (int k = 0; k <= LIMIT_NEW; k++)
        wait_event_presence(names[k], false, UE_WAIT_MS);
    printf("# user_events_max: %ld events before, limit lowered to %u, %ld at EMFILE\n", r.before,
           r.max, r.at_limit);
    fflush(stdout);

    ASSERT_EQ(0, r.set_err)
    {
        TH_LOG("writing %s: %s", SYSCTL_MAX, strerror(r.set_err));
    }
    ASSERT_EQ(0, r.restore_err)
    {
        TH_LOG("restoring %s to %s failed: %s", SYSCTL_MAX, r.orig, strerror(r.restore_err));
    }
    ASSERT_EQ(0, read_text(SYSCTL_MAX, now, sizeof now));
    EXPECT_STREQ(r.orig, now);
    for (int k = 0; k < LIMIT_NEW; k++) {
        EXPECT_EQ(0, r.reg[k])
        {
            TH_LOG("event %d of %d under the limit: %s", k + 1, LIMIT_NEW, strerror(r.reg[k]));
        }
    }
    EXPECT_EQ(EMFILE, r.reg[LIMIT_NEW])
    {
        TH_LOG("the event over the limit got %s", strerror(r.reg[LIMIT_NEW]));
    }
    EXPECT_EQ((long)r.max, r.at_limit);
    EXPECT_EQ(0, r.again); /* not a new event: the limit does not apply */
    EXPECT_EQ(r.index0, r.again_index);
    EXPECT_EQ(0, r.after)
    {
        TH_LOG("after the restore: %s", strerror(r.after));
    }
}

/* ---- helpers of the delivery tests ---------------------------------------------- */

/* Payload bytes: u32 sequence number (the event's only declared field), then a pattern
 * derived from it, so a truncated or stale sample can never count as delivered. */
static uint8_t payload_buf[SEARCH_HI + 8];

static void fill_payload(uint32_t seq, uint32_t len)
{
    memcpy(payload_buf, &seq, sizeof seq);
    for (uint32_t i = 4; i < len; i++)
        payload_buf[i] = (uint8_t)(seq * 7 + i);
}

/* A trace instance of its own with one user event enabled; delivered = its text
 * output (`trace`) shows the event's seq field. */
struct ftrace_inst {
    int data_fd;
    uint32_t word, index, seq;
    char name[64], dir[128], enable[384], trace_path[256];
    char text[1 << 16];
};

/* Registers ehconf_<what>_<pid> "u32 seq", makes the instance and enables the event
 * in it: NULL or what failed. */
static const char *ftrace_inst_open(struct ftrace_inst *fi, const char *what)
{
    fi->word = 0;
    fi->dir[0] = '\0';
    ue_event_name(fi->name, sizeof fi->name, what);
    fi->data_fd = ue_open();
    if (fi->data_fd < 0)
        return "open user_events_data";
    if (ue_register(fi->data_fd, fi->name, "u32 seq", &fi->word, 0, &fi->index))
        return "DIAG_IOCSREG";
    snprintf(fi->dir, sizeof fi->dir, TRACEFS "/instances/%s", fi->name);
    if (mkdir(fi->dir, 0755) != 0) {
        fi->dir[0] = '\0';
        return "mkdir of the trace instance";
    }
    snprintf(fi->trace_path, sizeof fi->trace_path, "%s/trace", fi->dir);
    snprintf(fi->enable, sizeof fi->enable, "%s/events/user_events/%s/enable", fi->dir, fi->name);
    if (write_text(fi->enable, "1"))
        return "enabling the event in the instance";
    if (!wait_bits(&fi->word, 1, true, UE_WAIT_MS))
        return "enable bit not set";
    return NULL;
}

/* Disables the event, removes the instance, unregisters: 0 or the rmdir errno. */
static int ftrace_inst_close(struct ftrace_inst *fi)
{
    int err = 0;

    if (fi->dir[0]) {
        write_text(fi->enable, "0");
        if (rmdir(fi->dir) != 0)
            err = errno;
    }
    if (fi->data_fd >= 0) {
        ue_unregister(fi->data_fd, &fi->word, 0);
        close(fi->data_fd);
        fi->data_fd = -1;
    }
    wait_event_presence(fi->name, false, UE_WAIT_MS);
    return err;
}

/* Whether fi->text shows the event with this seq. 6.12 prints a u32 user_events field
 * as "seq=0x4d (77)"; older kernels print the print fmt "seq=%u". Either counts. */
static bool trace_shows(const struct ftrace_inst *fi, uint32_t seq)
{
    char needle[48];

    snprintf(needle, sizeof needle, "seq=0x%x (%u)\n", seq, seq);
    if (strstr(fi->text, needle))
        return true;
    snprintf(needle, sizeof needle, "seq=%u\n", seq);
    return strstr(fi->text, needle) != NULL;
}

/* Empties the instance's buffer (opening `trace` with O_TRUNC does): 0 or errno. */
static int trace_clear(const struct ftrace_inst *fi)
{
    int fd = open(fi->trace_path, O_WRONLY | O_TRUNC | O_CLOEXEC);

    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

/* A perf ring on cpu 0 for one user event "u32 seq"; the writer runs on cpu 0. */
struct perf_probe {
    struct traced t; /* "u32 seq" on bit 0, its perf ring */
    uint32_t seq;
};

/* ---- K50: the perf buffer warning ------------------------------------------------ */

#define PERF_WARNING "perf buffer not large enough, wanted "

/*
 * Looks for PERF_WARNING in the kernel log: the number of occurrences (-1 if the log
 * cannot be read), with *wanted and *have from the last one.
 */
static int klog_perf_warnings(long *wanted, long *have)
{
    char *log = ue_kernel_log(), *at;
    int count = 0;

    if (!log)
        return -1;
    for (at = strstr(log, PERF_WARNING); at; at = strstr(at + 1, PERF_WARNING)) {
        char *end;

        count++;
        *wanted = strtol(at + strlen(PERF_WARNING), &end, 10);
        *have = strncmp(end, ", have ", 7) == 0 ? strtol(end + 7, NULL, 10) : -1;
    }
    free(log);
    return count;
}

/* K50: a kernel that dropped the warning, changed its text or the 8192 buffer, or
 * warned on every oversize write would fail the log checks here. */
TEST(K50_perf_oversize_logs_buffer_warning)
{
    static struct perf_probe pp;
    const uint32_t payload = PERF_MAX_PAYLOAD_6_12 + 1; /* ALIGN(8 + 8185, 8) = 8200 */
    long wanted = -1, have = -1;
    const char *why;
    int err, before, after;

    NEED_USER_EVENTS();
    NEED_PERF();
    ASSERT_EQ(0, ue_pin_cpu0());
    before = klog_perf_warnings(&wanted, &have);
    ASSERT_LE(0, before)
    {
        TH_LOG("cannot read the kernel log: %s", strerror(errno));
    }
    why = traced_open(&pp.t, "perfwarn", "u32 seq", &err);
    ASSERT_EQ(NULL, why)
    {
        TH_LOG("%s: %s", why, strerror(err));
    }
    perf_ring_drain(&pp.t.ring);
    fill_payload(1, payload);
    EXPECT_EQ((long)(4 + payload), ue_writev_count(pp.t.fd, pp.t.index, payload_buf, payload));
    fill_payload(2, payload); /* a second one: still one warning per boot */
    EXPECT_EQ((long)(4 + payload), ue_writev_count(pp.t.fd, pp.t.index, payload_buf, payload));
    EXPECT_EQ(0, perf_ring_count(&pp.t.ring));
    traced_close(&pp.t);

    after = klog_perf_warnings(&wanted, &have);
    printf("# perf buffer warning: wanted %ld, have %ld (%s)\n", wanted, have,
           before ? "logged earlier in this boot" : "provoked by this test");
    fflush(stdout);
    ASSERT_EQ(1, after)
    {
        TH_LOG("\"%s\" occurs %d times in the kernel log (before this test: %d)", PERF_WARNING,
               after, before);
    }
    EXPECT_EQ(8192, have);
    EXPECT_LT(8192, wanted);
    if (before == 0) /* this test's write was the first: its own size */
        EXPECT_EQ(8200, wanted);
}

/* ---- K51: near-max ftrace events after an idle gap --------------------------------- */

#define IDLE_GAP_MS 200 /* > 2^27 ns (134 ms): the next event needs a time extend */

static double now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* K51: a ring buffer without the max_data_size fix loops on these events, WARNs and
 * disables itself: the large events, or the later small one, then never arrive. */
TEST(K51_ftrace_near_max_after_idle_gap)
{
    static struct ftrace_inst fi;
    char on[16] = "";
    char path[300];
    bool shown[8] = {false}, last_shown;
    uint32_t seqs[8], last_seq;
    double gap_min = 1e9;
    const char *why;
    int werr = 0, rerr;

    NEED_USER_EVENTS();
    ASSERT_EQ(0, ue_pin_cpu0()); /* one per-CPU buffer: the gap is between its events */
    why = ftrace_inst_open(&fi, "idlegap");
    if (why) {
        ftrace_inst_close(&fi);
        ASSERT_EQ(NULL, why)
        {
            TH_LOG("%s", why);
        }
    }
    for (uint32_t k = 0; k < 8 && !werr; k++) {
        uint32_t marker = ++fi.seq, len = 4057 + k;
        double t0;

        /* a small event, so the sub-buffer is not empty, then the idle gap */
        fill_payload(marker, 4);
        if (ue_writev_count(fi.data_fd, fi.index, payload_buf, 4) != 8)
            werr = 1;
        t0 = now_ms();
        ue_sleep_ms(IDLE_GAP_MS);
        seqs[k] = ++fi.seq;
        fill_payload(seqs[k], len);
        if (now_ms() - t0 < gap_min)
            gap_min = now_ms() - t0;
        if (ue_writev_count(fi.data_fd, fi.index, payload_buf, len) != (long)(4 + len))
            werr = 2;
    }
    rerr = read_text(fi.trace_path, fi.text, sizeof fi.text);
    for (int k = 0; k < 8 && !rerr; k++)
        shown[k] = trace_shows(&fi, seqs[k]);
    snprintf(path, sizeof path, "%s/tracing_on", fi.dir);
    read_text(path, on, sizeof on);
    /* one more after another gap, into a cleared buffer */
    trace_clear(&fi);
    ue_sleep_ms(IDLE_GAP_MS);
    last_seq = ++fi.seq;
    fill_payload(last_seq, 4);
    if (ue_writev_count(fi.data_fd, fi.index, payload_buf, 4) != 8)
        werr = 3;
    last_shown =
        read_text(fi.trace_path, fi.text, sizeof fi.text) == 0 && trace_shows(&fi, last_seq);
    printf("# ftrace idle gap before each large write: >= %.0f ms\n", gap_min);
    fflush(stdout);
    EXPECT_EQ(0, ftrace_inst_close(&fi));

    ASSERT_EQ(0, werr)
    {
        TH_LOG("a write did not return its full length (step %d)", werr);
    }
    ASSERT_EQ(0, rerr);
    for (int k = 0; k < 8; k++) {
        EXPECT_TRUE(shown[k])
        {
            TH_LOG("the %d-byte payload did not arrive", 4057 + k);
        }
    }
    EXPECT_STREQ("1\n", on);
    EXPECT_TRUE(last_shown)
    {
        TH_LOG("the instance stopped recording after the large events");
    }
}

/* ---- K47/K48: delivery limits ------------------------------------------------------ */

/* A probe writes one event with `payload` bytes after the index and says whether the
 * consumer received it intact: 1 yes, 0 no, negative = the probe itself failed. */
typedef int (*probe_fn)(void *ctx, uint32_t payload);

/*
 * The largest payload in [lo, hi) that the probe delivers, assuming lo is delivered
 * and hi is not (both checked), by bisection; then the neighbours max-3..max+3 are
 * written again and must agree (delivered iff <= max). 0 and *found, or an errno
 * with `why` filled in.
 */
static int search_limit(probe_fn probe, void *ctx, uint32_t lo, uint32_t hi, uint32_t *found,
                        char *why, size_t whylen)
{
    int r;

    if ((r = probe(ctx, lo)) != 1) {
        snprintf(why, whylen, "a %u-byte payload was %s", lo,
                 r == 0 ? "not delivered" : "not written");
        return EIO;
    }
    if ((r = probe(ctx, hi)) != 0) {
        snprintf(why, whylen, "a %u-byte payload was %s", hi,
                 r == 1 ? "delivered (limit above the search range)" : "not written");
        return EIO;
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;

        r = probe(ctx, mid);
        if (r < 0) {
            snprintf(why, whylen, "writing a %u-byte payload failed", mid);
            return EIO;
        }
        if (r)
            lo = mid;
        else
            hi = mid;
    }
    for (uint32_t p = lo - 3; p <= lo + 3; p++) {
        r = probe(ctx, p);
        if (r != (p <= lo)) {
            snprintf(why, whylen,
                     "not monotonic: limit %u by bisection but a %u-byte "
                     "payload was %s",
                     lo, p,
                     r == 1   ? "delivered"
                     : r == 0 ? "not delivered"
                              : "not written");
            return EIO;
        }
    }
    *found = lo;
    return 0;
}

/* The running kernel's release, for messages that name the kernel they judged. */
static const char *release(void)
{
    static struct utsname u;

    return uname(&u) == 0 ? u.release : "this kernel";
}

/* Consumes every sample in the ring; 1 if one carries seq with len payload bytes
 * intact, else 0. */
static int ring_find(struct perf_probe *pp, uint32_t seq, uint32_t len)
{
    const uint8_t *raw;
    uint32_t raw_len, got_seq;
    int found = 0;

    while (perf_ring_next(&pp->t.ring, &raw, &raw_len)) {
        /* raw = 8-byte trace_entry, then the payload (then 0..7 pad bytes) */
        if (raw_len < 8 + len)
            continue;
        memcpy(&got_seq, raw + 8, 4);
        if (got_seq == seq) {
            fill_payload(seq, len);
            found = memcmp(raw + 8, payload_buf, len) == 0;
        }
    }
    return found;
}

/* Writes one event; a write that does not return its full length is a failure (-1):
 * the kernel must accept payloads of any size even when perf drops them. */
static int perf_probe_one(void *ctx, uint32_t len)
{
    struct perf_probe *pp = ctx;
    uint32_t seq = ++pp->seq;

    fill_payload(seq, len);
    if (ue_writev_count(pp->t.fd, pp->t.index, payload_buf, len) != (long)(4 + len))
        return -1;
    return ring_find(pp, seq, len);
}

/* K47: a kernel with another perf buffer size, alignment or header would move the
 * limit found here; one that failed the oversize write makes the probe fail. */
TEST(K47_perf_max_payload)
{
    static struct perf_probe pp;
    char why[256] = "";
    uint32_t found = 0;
    char from[128];
    long want = 0;
    const char *step;
    int err;

    NEED_USER_EVENTS();
    NEED_PERF();
    err = kernel_expect("EHCONF_EXPECT_PERF_MAX_PAYLOAD", &want, from, sizeof from);
    ASSERT_EQ(0, err)
    {
        TH_LOG("perf_max_payload on %s: no expectation (%s)", release(), strerror(err));
    }
    ASSERT_EQ(0, ue_pin_cpu0());
    pp.seq = 0;
    step = traced_open(&pp.t, "perfmax", "u32 seq", &err);
    ASSERT_EQ(NULL, step)
    {
        TH_LOG("%s: %s", step, strerror(err));
    }
    perf_ring_drain(&pp.t.ring);

    err = search_limit(perf_probe_one, &pp, 4, SEARCH_HI, &found, why, sizeof why);
    traced_close(&pp.t);
    ASSERT_EQ(0, err)
    {
        TH_LOG("perf: %s", why);
    }
    printf("# perf max payload: %u\n", found);
    fflush(stdout);
    EXPECT_EQ(want, (long)found)
    {
        TH_LOG("perf_max_payload on %s: got %u, expected %ld (%s)", release(), found, want, from);
    }
}

/* Clears the instance, writes one event, reads `trace`: 1 shown, 0 not, -1 failed.
 * Like perf, a write must return its full length whatever ftrace does with it. */
static int ftrace_probe_one(void *ctx, uint32_t len)
{
    struct ftrace_inst *fi = ctx;
    uint32_t seq = ++fi->seq;

    if (trace_clear(fi) != 0)
        return -1;
    fill_payload(seq, len);
    if (ue_writev_count(fi->data_fd, fi->index, payload_buf, len) != (long)(4 + len))
        return -1;
    if (read_text(fi->trace_path, fi->text, sizeof fi->text) != 0)
        return -1;
    return trace_shows(fi, seq);
}

/* K48: a ring buffer with another sub-buffer capacity or header size would move the
 * limit found here; one that reported the drop to the writer makes the probe fail. */
TEST(K48_ftrace_max_payload)
{
    static struct ftrace_inst fi;
    char why[256] = "";
    uint32_t found = 0;
    char from[128];
    long want = 0;
    const char *step;
    int err, rmerr;

    NEED_USER_EVENTS();
    err = kernel_expect("EHCONF_EXPECT_FTRACE_MAX_PAYLOAD", &want, from, sizeof from);
    ASSERT_EQ(0, err)
    {
        TH_LOG("ftrace_max_payload on %s: no expectation (%s)", release(), strerror(err));
    }
    fi.seq = 0;
    step = ftrace_inst_open(&fi, "ftracemax");
    if (step) {
        ftrace_inst_close(&fi);
        ASSERT_EQ(NULL, step)
        {
            TH_LOG("%s", step);
        }
    }

    err = search_limit(ftrace_probe_one, &fi, 4, SEARCH_HI, &found, why, sizeof why);
    rmerr = ftrace_inst_close(&fi);
    EXPECT_EQ(0, rmerr)
    {
        TH_LOG("rmdir %s: %s", fi.dir, strerror(rmerr));
    }
    ASSERT_EQ(0, err)
    {
        TH_LOG("ftrace: %s", why);
    }
    printf("# ftrace max payload: %u\n", found);
    fflush(stdout);
    EXPECT_EQ(want, (long)found)
    {
        TH_LOG("ftrace_max_payload on %s: got %u, expected %ld (%s)", release(), found, want, from);
    }
}

TEST_HARNESS_MAIN
