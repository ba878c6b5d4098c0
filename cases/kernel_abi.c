// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_abi: the user_events behaviours of the running kernel that the library
 * and the capture flow rely on, asserted directly against the kernel.
 *
 * ehconf-no-golden: this case writes no EventHeader event of its own to compare;
 * everything it checks is asserted here (KTAP only, no golden/kernel_abi.json).
 *
 *   enable_bit_raw        DIAG_IOCSREG's enable bit is 0 while nobody listens, the
 *                         kernel sets it when a perf event is opened on the tracepoint
 *                         (perf_event_open, pid -1, cpu 0) and clears it on close;
 *   enable_bit_library    the same seen through libeventheader's own enable word;
 *   write_no_listener     writev() of a registered event that nobody listens to fails
 *                         with EBADF (raw writev), and the library returns EBADF;
 *   reregister_format     the same name registered again with the same fields shares
 *                         the event (same write index); with other fields: EADDRINUSE;
 *   persist_delete_after_unregister
 *                         a PERSIST event cannot be deleted while registered (EBUSY),
 *                         survives unregister + close, and is deleted after that (the
 *                         kernel releases the reference asynchronously: retried <= 2 s);
 *   perf_max_payload      the largest payload (bytes after the 4-byte write index) a
 *                         perf PERF_SAMPLE_RAW event receives, found by a binary search
 *                         plus a check of its neighbours; 6.12: 8184
 *                         (kernel-size-limits.md: ALIGN(8 + P, 8) <= 8192);
 *   ftrace_max_payload    the same for the ftrace ring buffer of a trace instance;
 *                         6.12: 4064 (8 + P <= 4072).
 *
 * The measured limits are printed as KTAP diagnostics "# perf max payload: N" and
 * "# ftrace max payload: N" (harness/test_vm.py and report.md read them). Another
 * kernel may have other limits: EHCONF_EXPECT_PERF_MAX_PAYLOAD and
 * EHCONF_EXPECT_FTRACE_MAX_PAYLOAD override the expected values.
 *
 * The oversize perf write makes 6.12 log "perf buffer not large enough" with a
 * WARNING splat once per boot: the VM run allows exactly that warning.
 *
 * Without /sys/kernel/tracing/user_events_data every test SKIPs with
 * "kernel lacks CONFIG_USER_EVENTS" (so the case SKIPs offline on a distro kernel).
 * The tests need root (perf_event_open with cpu = 0 and PERF_SAMPLE_RAW on a
 * tracepoint). The ioctl structs are defined here from the documented ABI because
 * Debian 12's headers lack <linux/user_events.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "eventheader_user_events.h"
#include "case_harness.h"
#include "case_common.h"

#define TRACEFS "/sys/kernel/tracing"
#define UE_DATA TRACEFS "/user_events_data"

/* The user_events ABI structs and ioctl numbers come from libeventheader's
 * eventheader_user_events.h (Debian 12's headers lack linux/user_events.h). */

/* 6.12's limits (kernel-size-limits.md), payload = bytes after the write index. */
#define PERF_MAX_PAYLOAD_6_12 8184
#define FTRACE_MAX_PAYLOAD_6_12 4064
#define SEARCH_HI 65536 /* a payload no consumer of a 4 KiB-page kernel delivers */

#define NEED_USER_EVENTS()                                                   \
	do {                                                                 \
		if (access(UE_DATA, F_OK) != 0)                              \
			SKIP(return, "kernel lacks CONFIG_USER_EVENTS");     \
	} while (0)

static EH_DEFINE_PROVIDER(abi_provider, "EhconfKernelAbi");

/* A unique event name per test and process: a non-persistent event is deleted
 * asynchronously after its last reference, so names are never reused. */
static void event_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "ehconf_abi_%s_%d", what, (int)getpid());
}

static int ue_open(void)
{
	return open(UE_DATA, O_RDWR | O_CLOEXEC);
}

/* Registers "name fields" with the enable bit `bit` of *word: 0 or errno. */
static int ue_register_flags(int fd, const char *name, const char *fields, uint32_t *word,
			     unsigned bit, uint16_t flags, uint32_t *index)
{
	char cmd[512];
	struct eh_user_reg reg;

	snprintf(cmd, sizeof cmd, "%s%s%s", name, fields[0] ? " " : "", fields);
	memset(&reg, 0, sizeof reg);
	reg.size = sizeof reg;
	reg.enable_bit = (uint8_t)bit;
	reg.enable_size = sizeof *word;
	reg.flags = flags;
	reg.enable_addr = (uint64_t)(uintptr_t)word;
	reg.name_args = (uint64_t)(uintptr_t)cmd;
	if (ioctl(fd, EH_DIAG_IOCSREG, &reg) < 0)
		return errno;
	*index = reg.write_index;
	return 0;
}

static int ue_register(int fd, const char *name, const char *fields, uint32_t *word,
		       unsigned bit, uint32_t *index)
{
	return ue_register_flags(fd, name, fields, word, bit, 0, index);
}

static int ue_unregister(int fd, uint32_t *word, unsigned bit)
{
	struct eh_user_unreg unreg;

	memset(&unreg, 0, sizeof unreg);
	unreg.size = sizeof unreg;
	unreg.disable_bit = (uint8_t)bit;
	unreg.disable_addr = (uint64_t)(uintptr_t)word;
	return ioctl(fd, EH_DIAG_IOCSUNREG, &unreg) < 0 ? errno : 0;
}

/* DIAG_IOCSDEL on a fresh fd (the caller's own fd would hold a reference): 0 or errno. */
static int ue_delete(const char *name)
{
	int fd = ue_open(), err = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, EH_DIAG_IOCSDEL, name) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Writes index + payload with writev: 0 or errno. */
static int ue_writev(int fd, uint32_t index, const void *payload, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = &index, .iov_len = sizeof index },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	ssize_t n = writev(fd, iov, 2);

	if (n < 0)
		return errno;
	return n == (ssize_t)(sizeof index + len) ? 0 : EIO;
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	/* tracefs files may return less than asked per read: read to EOF (or full). */
	while (used < len - 1 && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += (size_t)n;
	close(fd);
	if (n < 0)
		return -1;
	buf[used] = '\0';
	return 0;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : (n < 0 ? errno : EIO);
}

/* The tracefs id of user_events:<name>, or -1. */
static long tracepoint_id(const char *name)
{
	char path[512], text[64];

	snprintf(path, sizeof path, TRACEFS "/events/user_events/%s/id", name);
	if (read_text(path, text, sizeof text) != 0)
		return -1;
	return strtol(text, NULL, 10);
}

static int perf_open_tracepoint(long id, int cpu, bool raw)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof attr;
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.sample_type = raw ? PERF_SAMPLE_RAW : 0;
	attr.wakeup_events = 1;
	return (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Waits up to `ms` for (*word & mask) != 0 to equal `set`; the kernel updates the
 * word from its side, so it is read with an atomic load. */
static bool wait_bits(const uint32_t *word, uint32_t mask, bool set, int ms)
{
	struct timespec one_ms = { 0, 1000000 };

	for (int i = 0; i <= ms; i++) {
		if (((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != 0) == set)
			return true;
		nanosleep(&one_ms, NULL);
	}
	return false;
}

/* Enable bit, raw ABI: bit 7 of a word, so the test also sees that no other bit moves. */
TEST(enable_bit_raw)
{
	char name[64];
	uint32_t word = 0, index = 0;
	long id;
	int fd, pfd;

	NEED_USER_EVENTS();
	event_name(name, sizeof name, "bit");
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_register(fd, name, "u32 value", &word, 7, &index));
	EXPECT_EQ(0u, __atomic_load_n(&word, __ATOMIC_RELAXED)); /* nobody listens yet */
	id = tracepoint_id(name);
	ASSERT_LT(0, id);
	pfd = perf_open_tracepoint(id, 0, false);
	ASSERT_LE(0, pfd) {
		TH_LOG("perf_event_open: %s", strerror(errno));
	}
	EXPECT_TRUE(wait_bits(&word, 1u << 7, true, 2000));
	EXPECT_EQ(1u << 7, __atomic_load_n(&word, __ATOMIC_RELAXED));
	close(pfd);
	EXPECT_TRUE(wait_bits(&word, 1u << 7, false, 2000));
	EXPECT_EQ(0u, __atomic_load_n(&word, __ATOMIC_RELAXED));
	close(fd);
}

/* The library's write site; level 4 (informational), keyword 1. */
static int library_write(uint32_t value)
{
	return EH_WRITE(abi_provider, EH_EVENT("AbiProbe", EH_LEVEL_INFORMATIONAL, 0x1),
			EH_U32("value", value));
}

static bool library_enabled(void)
{
	return EH_ENABLED(abi_provider, EH_LEVEL_INFORMATIONAL, 0x1);
}

static bool wait_library(bool set, int ms)
{
	struct timespec one_ms = { 0, 1000000 };

	for (int i = 0; i <= ms; i++) {
		if (library_enabled() == set)
			return true;
		nanosleep(&one_ms, NULL);
	}
	return false;
}

/* Enable bit through libeventheader: its enable word follows a perf event too. */
TEST(enable_bit_library)
{
	char name[EH_NAME_MAX];
	long id;
	int pfd;

	NEED_USER_EVENTS();
	unsetenv("EHCONF_CAPTURE"); /* this test is about the kernel, never the capture file */
	ASSERT_EQ(0, eh_provider_register(&abi_provider));
	ASSERT_STREQ("user_events", eh_backend_name());
	ASSERT_EQ(0, eh_tracepoint_name(name, "EhconfKernelAbi", NULL, EH_LEVEL_INFORMATIONAL, 0x1));
	EXPECT_FALSE(library_enabled());
	EXPECT_EQ(EBADF, library_write(1));
	id = tracepoint_id(name);
	ASSERT_LT(0, id) {
		TH_LOG("no tracefs id for user_events:%s", name);
	}
	pfd = perf_open_tracepoint(id, 0, false);
	ASSERT_LE(0, pfd) {
		TH_LOG("perf_event_open: %s", strerror(errno));
	}
	EXPECT_TRUE(wait_library(true, 2000));
	EXPECT_EQ(0, library_write(2)); /* a listener: the kernel accepts the write */
	close(pfd);
	EXPECT_TRUE(wait_library(false, 2000));
	EXPECT_EQ(EBADF, library_write(3));
	EXPECT_EQ(0, eh_provider_unregister(&abi_provider));
}

/* No listener: the kernel refuses the write with EBADF; so does the library. */
TEST(write_no_listener)
{
	char name[64];
	uint32_t word = 0, index = 0, value = 42;
	int fd;

	NEED_USER_EVENTS();
	unsetenv("EHCONF_CAPTURE");
	event_name(name, sizeof name, "nolistener");
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_register(fd, name, "u32 value", &word, 0, &index));
	EXPECT_EQ(0u, __atomic_load_n(&word, __ATOMIC_RELAXED));
	EXPECT_EQ(EBADF, ue_writev(fd, index, &value, sizeof value));
	/* An index this fd never registered is another error (ENOENT), not EBADF. */
	EXPECT_EQ(ENOENT, ue_writev(fd, index + 1000, &value, sizeof value));
	close(fd);

	ASSERT_EQ(0, eh_provider_register(&abi_provider));
	EXPECT_EQ(EBADF, library_write(4));
	EXPECT_EQ(0, eh_provider_unregister(&abi_provider));
}

/* Same name, same fields: the same event; same name, other fields: EADDRINUSE. */
TEST(reregister_format)
{
	char name[64];
	uint32_t words[4] = { 0 }, index0 = 99, index1 = 99, unused = 99;
	int fd;

	NEED_USER_EVENTS();
	event_name(name, sizeof name, "format");
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[0], 0, &index0));
	ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[1], 0, &index1));
	EXPECT_EQ(index0, index1);
	EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u64 a", &words[2], 0, &unused));
	EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u32 b", &words[3], 0, &unused));
	EXPECT_EQ(99u, unused); /* nothing returned for a refused registration */
	close(fd);
}

/*
 * A PERSIST event (6.7+) outlives its registration and is removed with DIAG_IOCSDEL:
 * EBUSY while an enabler still uses it; after DIAG_IOCSUNREG + close the delete must
 * succeed. On 6.12.117 the enabler's reference is released asynchronously (the first
 * delete right after the unregister can get EBUSY; measured 4-20 ms under TCG), which
 * is what makes the kernel's own abi_test.flags fail: so this test retries for up to
 * 2 s and prints what the first attempt got and how long the delete took.
 */
TEST(persist_delete_after_unregister)
{
	char name[64], path[256];
	uint32_t word = 0, index = 0;
	int fd, first, err = EBUSY, ms = 0;
	struct timespec one_ms = { 0, 1000000 };

	NEED_USER_EVENTS();
	event_name(name, sizeof name, "persist");
	fd = ue_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ue_register_flags(fd, name, "u32 value", &word, 0, EH_USER_EVENT_REG_PERSIST, &index));
	EXPECT_EQ(EBUSY, ue_delete(name)); /* still registered by this process */
	ASSERT_EQ(0, ue_unregister(fd, &word, 0));
	close(fd);
	snprintf(path, sizeof path, TRACEFS "/events/user_events/%s", name);
	EXPECT_EQ(0, access(path, F_OK)); /* persistent: still there without any user */
	first = err = ue_delete(name);
	while (err == EBUSY && ms < 2000) {
		nanosleep(&one_ms, NULL);
		ms++;
		err = ue_delete(name);
	}
	printf("# persist delete after unregister: first attempt %s, deleted after %d ms\n",
	       first ? strerror(first) : "succeeded", ms);
	fflush(stdout);
	ASSERT_EQ(0, err) {
		TH_LOG("DIAG_IOCSDEL still fails after 2 s: %s", strerror(err));
	}
	EXPECT_NE(0, access(path, F_OK)); /* the tracefs directory is gone */
}

/* ---- delivery limits ---------------------------------------------------------- */

/* A probe writes one event with `payload` bytes after the index and says whether the
 * consumer received it intact: 1 yes, 0 no, negative = the probe itself failed. */
typedef int (*probe_fn)(void *ctx, uint32_t payload);

/* Payload bytes: u32 sequence number (the event's only declared field), then a pattern
 * derived from it, so a truncated or stale sample can never count as delivered. */
static uint8_t payload_buf[SEARCH_HI + 8];

static void fill_payload(uint32_t seq, uint32_t len)
{
	memcpy(payload_buf, &seq, sizeof seq);
	for (uint32_t i = 4; i < len; i++)
		payload_buf[i] = (uint8_t)(seq * 7 + i);
}

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
			snprintf(why, whylen, "not monotonic: limit %u by bisection but a %u-byte "
				 "payload was %s", lo, p, r == 1 ? "delivered" : r == 0 ?
				 "not delivered" : "not written");
			return EIO;
		}
	}
	*found = lo;
	return 0;
}

static uint32_t expected_limit(const char *env, uint32_t dflt)
{
	const char *v = getenv(env);

	return v && v[0] ? (uint32_t)strtoul(v, NULL, 0) : dflt;
}

/* perf: one PERF_SAMPLE_RAW event on cpu 0 with a 16-page ring; the writer runs on cpu 0. */
struct perf_probe {
	int data_fd, perf_fd;
	uint32_t index, seq;
	uint8_t *ring;                 /* mmap: the control page, then the data pages */
	size_t page, data_size;
	uint8_t record[65536];          /* one record (u16 size), unwrapped */
};

#define PERF_RING_PAGES 16

static void ring_copy(struct perf_probe *pp, uint64_t from, void *dst, size_t len)
{
	const uint8_t *data = pp->ring + pp->page;
	uint64_t off = from % pp->data_size;
	size_t first = len < pp->data_size - off ? len : pp->data_size - off;

	memcpy(dst, data + off, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

/* Consumes every record in the ring; 1 if a sample carries seq with len payload bytes
 * intact, else 0. */
static int ring_find(struct perf_probe *pp, uint32_t seq, uint32_t len)
{
	struct perf_event_mmap_page *ctl = (struct perf_event_mmap_page *)pp->ring;
	uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ctl->data_tail;
	int found = 0;

	while (tail < head) {
		struct perf_event_header h;

		ring_copy(pp, tail, &h, sizeof h);
		if (h.size < sizeof h) /* h.size is a u16: always fits in record */
			break;
		ring_copy(pp, tail, pp->record, h.size);
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 4) {
			uint32_t raw_size, got_seq;
			const uint8_t *raw = pp->record + sizeof h + 4;

			memcpy(&raw_size, pp->record + sizeof h, 4);
			/* raw = 8-byte trace_entry, then the payload (then 0..7 pad bytes) */
			if (raw_size >= 8 + len && sizeof h + 4 + raw_size <= h.size) {
				memcpy(&got_seq, raw + 8, 4);
				if (got_seq == seq) {
					fill_payload(seq, len);
					found = memcmp(raw + 8, payload_buf, len) == 0;
				}
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&ctl->data_tail, head, __ATOMIC_RELEASE);
	return found;
}

static int perf_probe_one(void *ctx, uint32_t len)
{
	struct perf_probe *pp = ctx;
	uint32_t seq = ++pp->seq;

	fill_payload(seq, len);
	if (ue_writev(pp->data_fd, pp->index, payload_buf, len) != 0)
		return -1;
	return ring_find(pp, seq, len);
}

static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

TEST(perf_max_payload)
{
	static struct perf_probe pp; /* static: the record buffer is large */
	char name[64], why[256] = "";
	uint32_t word = 0, found = 0;
	uint32_t want = expected_limit("EHCONF_EXPECT_PERF_MAX_PAYLOAD", PERF_MAX_PAYLOAD_6_12);
	long id;
	int err;

	NEED_USER_EVENTS();
	ASSERT_EQ(0, pin_to_cpu0());
	event_name(name, sizeof name, "perfmax");
	pp.data_fd = ue_open();
	ASSERT_LE(0, pp.data_fd);
	ASSERT_EQ(0, ue_register(pp.data_fd, name, "u32 seq", &word, 0, &pp.index));
	id = tracepoint_id(name);
	ASSERT_LT(0, id);
	pp.perf_fd = perf_open_tracepoint(id, 0, true);
	ASSERT_LE(0, pp.perf_fd) {
		TH_LOG("perf_event_open: %s", strerror(errno));
	}
	pp.page = (size_t)sysconf(_SC_PAGESIZE);
	pp.data_size = PERF_RING_PAGES * pp.page;
	pp.ring = mmap(NULL, pp.page + pp.data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       pp.perf_fd, 0);
	ASSERT_NE(MAP_FAILED, pp.ring) {
		TH_LOG("mmap of the perf ring: %s", strerror(errno));
	}
	ASSERT_TRUE(wait_bits(&word, 1, true, 2000));

	err = search_limit(perf_probe_one, &pp, 4, SEARCH_HI, &found, why, sizeof why);
	ASSERT_EQ(0, err) {
		TH_LOG("perf: %s", why);
	}
	printf("# perf max payload: %u\n", found);
	fflush(stdout);
	EXPECT_EQ(want, found) {
		TH_LOG("perf delivers payloads up to %u bytes, expected %u",
				     found, want);
	}
	munmap(pp.ring, pp.page + pp.data_size);
	close(pp.perf_fd);
	close(pp.data_fd);
}

/* ftrace: the event enabled in a trace instance of its own; delivered = its text
 * output (`trace`) shows the event's seq field. */
struct ftrace_probe {
	int data_fd;
	uint32_t index, seq;
	char trace_path[256];
	char text[1 << 16];
};

static int ftrace_probe_one(void *ctx, uint32_t len)
{
	struct ftrace_probe *fp = ctx;
	uint32_t seq = ++fp->seq;
	char needle[48];
	int fd;

	/* Opening `trace` with O_TRUNC clears the instance's buffer. */
	fd = open(fp->trace_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	fill_payload(seq, len);
	if (ue_writev(fp->data_fd, fp->index, payload_buf, len) != 0)
		return -1;
	if (read_text(fp->trace_path, fp->text, sizeof fp->text) != 0)
		return -1;
	/* 6.12 prints a u32 user_events field as "seq=0x4d (77)"; older kernels print
	 * the print fmt "seq=%u". Either form counts. */
	snprintf(needle, sizeof needle, "seq=0x%x (%u)\n", seq, seq);
	if (strstr(fp->text, needle))
		return 1;
	snprintf(needle, sizeof needle, "seq=%u\n", seq);
	return strstr(fp->text, needle) != NULL;
}

TEST(ftrace_max_payload)
{
	static struct ftrace_probe fp;
	char name[64], inst[128], enable[384], why[256] = "";
	uint32_t word = 0, found = 0;
	uint32_t want = expected_limit("EHCONF_EXPECT_FTRACE_MAX_PAYLOAD", FTRACE_MAX_PAYLOAD_6_12);
	int err;

	NEED_USER_EVENTS();
	event_name(name, sizeof name, "ftracemax");
	fp.data_fd = ue_open();
	ASSERT_LE(0, fp.data_fd);
	ASSERT_EQ(0, ue_register(fp.data_fd, name, "u32 seq", &word, 0, &fp.index));
	snprintf(inst, sizeof inst, TRACEFS "/instances/ehconf_abi_%d", (int)getpid());
	ASSERT_EQ(0, mkdir(inst, 0755)) {
		TH_LOG("mkdir %s: %s", inst, strerror(errno));
	}
	snprintf(fp.trace_path, sizeof fp.trace_path, "%s/trace", inst);
	snprintf(enable, sizeof enable, "%s/events/user_events/%s/enable", inst, name);
	ASSERT_EQ(0, write_text(enable, "1")) {
		TH_LOG("enabling %s failed", enable);
	}
	ASSERT_TRUE(wait_bits(&word, 1, true, 2000));

	err = search_limit(ftrace_probe_one, &fp, 4, SEARCH_HI, &found, why, sizeof why);
	EXPECT_EQ(0, write_text(enable, "0"));
	EXPECT_EQ(0, rmdir(inst)) {
		TH_LOG("rmdir %s: %s", inst, strerror(errno));
	}
	ASSERT_EQ(0, err) {
		TH_LOG("ftrace: %s", why);
	}
	printf("# ftrace max payload: %u\n", found);
	fflush(stdout);
	EXPECT_EQ(want, found) {
		TH_LOG("ftrace delivers payloads up to %u bytes, expected %u",
				     found, want);
	}
	close(fp.data_fd);
}

TEST_HARNESS_MAIN
