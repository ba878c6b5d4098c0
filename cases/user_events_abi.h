/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user_events_abi.h: the raw user_events ABI for the kernel-behaviour cases
 * (cases/kernel_*.c), so they see what the kernel does and not what
 * libeventheader makes of it. Every helper returns 0 or an errno value and never
 * asserts: the test decides what it expects (the few steps every test needs to succeed,
 * asserted inside, are in kernel_asserts.h).
 *
 * The behaviour IDs (K01..K51) in the cases refer to Documentation/kernel-behaviours.md.
 * Include after case_harness.h. Linux only.
 */
#ifndef EHCONF_USER_EVENTS_ABI_H
#define EHCONF_USER_EVENTS_ABI_H

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eventheader_user_events.h"

#define TRACEFS           "/sys/kernel/tracing"
#define UE_DATA           TRACEFS "/user_events_data"
#define UE_STATUS         TRACEFS "/user_events_status"
#define UE_DYNAMIC_EVENTS TRACEFS "/dynamic_events"

/* Flag bits of struct user_reg beyond PERSIST (6.9+). */
#define UE_REG_MULTI_FORMAT 2u

/*
 * Every kernel test starts with NEED_USER_EVENTS(), and every test that opens a perf
 * event with NEED_PERF() after it: each program decides alone (ehconf's runners or
 * kselftest's run_kselftest.sh), so a missing requirement is a SKIP that names it,
 * never a failure. NULL when the requirement is met, else the reason.
 */
static inline const char *ue_missing(void)
{
    if (access(UE_DATA, F_OK) != 0) {
        if (errno == EACCES)
            return "not root: " TRACEFS " is not readable (the kernel cases need root)";
        if (access(TRACEFS "/trace", F_OK) == 0 || access(TRACEFS, F_OK) != 0)
            return "kernel lacks CONFIG_USER_EVENTS (no " UE_DATA ")";
        return "tracefs is not mounted on " TRACEFS " (mount -t tracefs nodev " TRACEFS ")";
    }
    /* Trace instances, sysctls, PERSIST, the kernel log, setuid children: root. */
    if (geteuid() != 0)
        return "not root: the kernel cases need root (tracefs, sysctl, perf, setuid)";
    return NULL;
}

#define NEED_USER_EVENTS()                   \
    do {                                     \
        const char *missing_ = ue_missing(); \
        if (missing_)                        \
            SKIP(return, "%s", missing_);    \
    } while (0)

/* How long a test waits for something the kernel does asynchronously (an enable bit,
 * the release of an event after its last reference): generous, TCG is slow. */
#define UE_WAIT_MS 2000

static inline void ue_sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

/* A unique event name per test and process ("ehconf_<what>_<pid>"): a non-persistent
 * event is deleted asynchronously after its last reference, so names are never reused. */
static inline void ue_event_name(char *buf, size_t len, const char *what)
{
    snprintf(buf, len, "ehconf_%s_%d", what, (int)getpid());
}

static inline int ue_open(void)
{
    return open(UE_DATA, O_RDWR | O_CLOEXEC);
}

/* DIAG_IOCSREG with a struct the caller filled in completely: 0 or errno. */
static inline int ue_reg_raw(int fd, struct eh_user_reg *reg)
{
    return ioctl(fd, EH_DIAG_IOCSREG, reg) < 0 ? errno : 0;
}

/* Registers the command `cmd` ("name fields") with bit `bit` of the enable word at
 * `addr` (`size` 4 or 8 bytes): 0 and *index, or errno (*index untouched). */
static inline int ue_register_cmd(int fd, const char *cmd, void *addr, unsigned size, unsigned bit,
                                  uint16_t flags, uint32_t *index)
{
    struct eh_user_reg reg;

    memset(&reg, 0, sizeof reg);
    reg.size = sizeof reg;
    reg.enable_bit = (uint8_t)bit;
    reg.enable_size = (uint8_t)size;
    reg.flags = flags;
    reg.enable_addr = (uint64_t)(uintptr_t)addr;
    reg.name_args = (uint64_t)(uintptr_t)cmd;
    if (ioctl(fd, EH_DIAG_IOCSREG, &reg) < 0)
        return errno;
    *index = reg.write_index;
    return 0;
}

/* Registers "name fields" (fields may be "") on bit `bit` of a 32-bit word. */
static inline int ue_register_flags(int fd, const char *name, const char *fields, uint32_t *word,
                                    unsigned bit, uint16_t flags, uint32_t *index)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd, "%s%s%s", name, fields[0] ? " " : "", fields);
    return ue_register_cmd(fd, cmd, word, sizeof *word, bit, flags, index);
}

static inline int ue_register(int fd, const char *name, const char *fields, uint32_t *word,
                              unsigned bit, uint32_t *index)
{
    return ue_register_flags(fd, name, fields, word, bit, 0, index);
}

/* DIAG_IOCSUNREG of (addr, bit): 0 or errno. */
static inline int ue_unregister(int fd, void *addr, unsigned bit)
{
    struct eh_user_unreg unreg;

    memset(&unreg, 0, sizeof unreg);
    unreg.size = sizeof unreg;
    unreg.disable_bit = (uint8_t)bit;
    unreg.disable_addr = (uint64_t)(uintptr_t)addr;
    return ioctl(fd, EH_DIAG_IOCSUNREG, &unreg) < 0 ? errno : 0;
}

/* DIAG_IOCSDEL on a fresh fd (the caller's own fd would hold a reference): 0 or errno. */
static inline int ue_delete(const char *name)
{
    int fd = ue_open(), err = 0;

    if (fd < 0)
        return errno;
    if (ioctl(fd, EH_DIAG_IOCSDEL, name) < 0)
        err = errno;
    close(fd);
    return err;
}

/* DIAG_IOCSDEL, retried while the kernel still answers EBUSY (it releases the last
 * references asynchronously): 0 or the last errno after `ms` milliseconds. */
static inline int ue_delete_wait(const char *name, int ms)
{
    int err = ue_delete(name);

    for (int i = 0; err == EBUSY && i < ms; i++) {
        ue_sleep_ms(1);
        err = ue_delete(name);
    }
    return err;
}

/* Writes index + payload with writev: 0 or errno (EIO for a short write). */
static inline int ue_writev(int fd, uint32_t index, const void *payload, size_t len)
{
    struct iovec iov[2] = {
        {.iov_base = &index, .iov_len = sizeof index},
        {.iov_base = (void *)payload, .iov_len = len},
    };
    ssize_t n = writev(fd, iov, len ? 2 : 1);

    if (n < 0)
        return errno;
    return n == (ssize_t)(sizeof index + len) ? 0 : EIO;
}

/* writev of index + payload: the byte count, or -errno (ue_writev says only 0 or errno). */
static inline long ue_writev_count(int fd, uint32_t index, const void *payload, size_t len)
{
    struct iovec iov[2] = {
        {.iov_base = &index, .iov_len = sizeof index},
        {.iov_base = (void *)payload, .iov_len = len},
    };
    ssize_t n = writev(fd, iov, len ? 2 : 1);

    return n < 0 ? -(long)errno : (long)n;
}

/* Waits up to `ms` for child `pid`: its exit status, or -1 (a negative pid, a death by
 * signal, or killed with SIGKILL after the wait). */
static inline int ue_reap(pid_t pid, int ms)
{
    int status = 0;

    if (pid < 0)
        return -1;
    for (int i = 0; i <= ms; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);

        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (r < 0)
            return -1;
        ue_sleep_ms(1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

/* Milliseconds since *since (CLOCK_MONOTONIC). */
static inline long ue_elapsed_ms(const struct timespec *since)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* The kernel log as one NUL-terminated string (malloc'd: free it), or NULL. */
static inline char *ue_kernel_log(void)
{
    int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0), n;
    char *log;

    if (size <= 0 || !(log = malloc((size_t)size + 1)))
        return NULL;
    n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
    if (n < 0) {
        free(log);
        return NULL;
    }
    log[n] = '\0';
    return log;
}

/* Reads a whole (tracefs) file as text: 0, or -1. tracefs files may return less than
 * asked per read, so it reads to EOF or until the buffer is full. */
static inline int read_text(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t used = 0;
    ssize_t n = 0;

    if (fd < 0)
        return -1;
    while (used < len - 1 && (n = read(fd, buf + used, len - 1 - used)) > 0)
        used += (size_t)n;
    close(fd);
    if (n < 0)
        return -1;
    buf[used] = '\0';
    return 0;
}

/* Whether the effective capability set (/proc/self/status CapEff) holds `cap`. */
static inline bool ue_has_cap(unsigned cap)
{
    char text[4096], *at;

    if (read_text("/proc/self/status", text, sizeof text) != 0 || !(at = strstr(text, "CapEff:")))
        return false;
    return (strtoull(at + 7, NULL, 16) >> cap) & 1;
}

#define UE_CAP_SYS_ADMIN 21
#define UE_CAP_PERFMON   38

/* The perf rows open tracepoint events on cpu 0 for every task with raw samples:
 * CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid -1. NULL or why not. */
static inline const char *ue_perf_missing(void)
{
    char text[32];

    if (read_text("/proc/sys/kernel/perf_event_paranoid", text, sizeof text) != 0)
        return "kernel lacks CONFIG_PERF_EVENTS (no /proc/sys/kernel/perf_event_paranoid)";
    if (ue_has_cap(UE_CAP_PERFMON) || ue_has_cap(UE_CAP_SYS_ADMIN) || strtol(text, NULL, 10) <= -1)
        return NULL;
    return "no permission for perf_event_open on tracepoints (needs CAP_PERFMON or "
           "kernel.perf_event_paranoid=-1)";
}

#define NEED_PERF()                               \
    do {                                          \
        const char *missing_ = ue_perf_missing(); \
        if (missing_)                             \
            SKIP(return, "%s", missing_);         \
    } while (0)

/*
 * kselftest_harness.h exits 0 when every test skipped, so a runner (run_kselftest.sh)
 * would report "ok" for a program that tested nothing. kselftest's convention is exit
 * status 4 (KSFT_SKIP) for a skipped program: this exit handler turns "every test
 * skipped" into 4. It is registered first, so it runs last, after any other handler;
 * children of the tests never see the condition (the running test is not counted yet).
 */
static void ue_exit_skip_if_all_skipped(void)
{
    if (ksft_plan > 0 && ksft_test_num() == ksft_plan &&
        (unsigned)ksft_get_xskip_cnt() == ksft_plan) {
        fflush(stdout);
        fflush(stderr);
        _exit(KSFT_SKIP);
    }
}

static void __attribute__((constructor)) ue_register_exit_skip(void)
{
    atexit(ue_exit_skip_if_all_skipped);
}

/* Writes `text` to a file in one write(): 0 or errno. `flags` adds O_APPEND or O_TRUNC. */
static inline int write_text_flags(const char *path, const char *text, int flags)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
    ssize_t n;
    int err;

    if (fd < 0)
        return errno;
    n = write(fd, text, strlen(text));
    err = n < 0 ? errno : 0;
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : (err ? err : EIO);
}

static inline int write_text(const char *path, const char *text)
{
    return write_text_flags(path, text, 0);
}

/* Whether tracefs has events/<system>/<name>. */
static inline bool tracefs_event_exists(const char *system, const char *name)
{
    char path[1024];

    snprintf(path, sizeof path, TRACEFS "/events/%s/%s", system, name);
    return access(path, F_OK) == 0;
}

/* Waits up to `ms` for events/user_events/<name> to exist (`present`) or be gone. */
static inline bool wait_event_presence(const char *name, bool present, int ms)
{
    for (int i = 0; i <= ms; i++) {
        if (tracefs_event_exists("user_events", name) == present)
            return true;
        ue_sleep_ms(1);
    }
    return false;
}

/* The same for events/<system>/<name> of any system (user_events_multi, ...). */
static inline bool wait_event_presence_in(const char *system, const char *name, bool present,
                                          int ms)
{
    for (int i = 0; i <= ms; i++) {
        if (tracefs_event_exists(system, name) == present)
            return true;
        ue_sleep_ms(1);
    }
    return false;
}

/* The tracefs id of <system>:<name>, or -1. */
static inline long tracepoint_id_in(const char *system, const char *name)
{
    char path[1024], text[64];

    snprintf(path, sizeof path, TRACEFS "/events/%s/%s/id", system, name);
    if (read_text(path, text, sizeof text) != 0)
        return -1;
    return strtol(text, NULL, 10);
}

static inline long tracepoint_id(const char *name)
{
    return tracepoint_id_in("user_events", name);
}

/* A perf event on tracepoint `id` for every task on `cpu` (-1 and cpu 0 is what
 * `perf record -a` does per CPU); raw: PERF_SAMPLE_RAW samples. fd or -1. */
static inline int perf_open_tracepoint(long id, int cpu, bool raw)
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

/* The kernel updates enable words from its side: read them with an atomic load. */
static inline uint32_t load_word(const uint32_t *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* Waits up to `ms` for ((*word & mask) != 0) == set. */
static inline bool wait_bits(const uint32_t *word, uint32_t mask, bool set, int ms)
{
    for (int i = 0; i <= ms; i++) {
        if (((load_word(word) & mask) != 0) == set)
            return true;
        ue_sleep_ms(1);
    }
    return false;
}

static inline bool wait_bits64(const uint64_t *word, uint64_t mask, bool set, int ms)
{
    for (int i = 0; i <= ms; i++) {
        if (((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != 0) == set)
            return true;
        ue_sleep_ms(1);
    }
    return false;
}

/*
 * A perf ring for PERF_SAMPLE_RAW samples of one tracepoint on one CPU: what the
 * kernel records for a write. Pin the writer to the same CPU (ue_pin_cpu0) so every
 * sample lands in this ring.
 */
#define PERF_RING_PAGES 16

struct perf_ring {
    int fd;
    uint8_t *map; /* the control page, then PERF_RING_PAGES data pages */
    size_t page, data_size;
    uint8_t record[65536]; /* one record, unwrapped (a record's size is a u16) */
};

static inline int ue_pin_cpu0(void)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(0, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

/* Opens and maps the ring on cpu 0: 0 or errno. */
static inline int perf_ring_open(struct perf_ring *r, long id)
{
    r->fd = perf_open_tracepoint(id, 0, true);
    if (r->fd < 0)
        return errno;
    r->page = (size_t)sysconf(_SC_PAGESIZE);
    r->data_size = PERF_RING_PAGES * r->page;
    r->map = mmap(NULL, r->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (r->map == MAP_FAILED) {
        int err = errno;

        close(r->fd);
        r->fd = -1;
        return err;
    }
    return 0;
}

static inline void perf_ring_close(struct perf_ring *r)
{
    if (r->fd < 0)
        return;
    munmap(r->map, r->page + r->data_size);
    close(r->fd);
    r->fd = -1;
}

static inline void perf_ring_copy(const struct perf_ring *r, uint64_t from, void *dst, size_t len)
{
    const uint8_t *data = r->map + r->page;
    uint64_t off = from % r->data_size;
    size_t first = len < r->data_size - off ? len : (size_t)(r->data_size - off);

    memcpy(dst, data + off, first);
    memcpy((uint8_t *)dst + first, data, len - first);
}

/*
 * Takes the next PERF_RECORD_SAMPLE out of the ring: 1 and *raw, *raw_len (the raw
 * record: the 8-byte common trace header, then the payload as written after the write
 * index, then up to 7 bytes of padding), 0 when the ring is empty. Other record types
 * are consumed and skipped. *raw points into r->record, valid until the next call.
 */
static inline int perf_ring_next(struct perf_ring *r, const uint8_t **raw, uint32_t *raw_len)
{
    struct perf_event_mmap_page *ctl = (struct perf_event_mmap_page *)r->map;

    for (;;) {
        uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = ctl->data_tail;
        struct perf_event_header h;
        uint32_t size;

        if (tail >= head)
            return 0;
        perf_ring_copy(r, tail, &h, sizeof h);
        if (h.size < sizeof h) { /* a damaged ring: drop everything */
            __atomic_store_n(&ctl->data_tail, head, __ATOMIC_RELEASE);
            return 0;
        }
        perf_ring_copy(r, tail, r->record, h.size);
        __atomic_store_n(&ctl->data_tail, tail + h.size, __ATOMIC_RELEASE);
        if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof h + 4)
            continue;
        memcpy(&size, r->record + sizeof h, 4);
        if (sizeof h + 4 + size > h.size)
            continue;
        *raw = r->record + sizeof h + 4;
        *raw_len = size;
        return 1;
    }
}

/* Throws away every record in the ring. */
static inline void perf_ring_drain(struct perf_ring *r)
{
    const uint8_t *raw;
    uint32_t len;

    while (perf_ring_next(r, &raw, &len))
        ;
}

/* Counts the samples in the ring (and consumes them). */
static inline int perf_ring_count(struct perf_ring *r)
{
    const uint8_t *raw;
    uint32_t len;
    int n = 0;

    while (perf_ring_next(r, &raw, &len))
        n++;
    return n;
}

/* An event registered on its own fd with a perf ring on cpu 0. */
struct traced {
    char name[64];
    int fd;
    uint32_t word, index;
    long id;
    struct perf_ring ring;
};

/*
 * Registers ehconf_<what>_<pid> with `fields` on bit 0 of t->word, opens its perf ring
 * on cpu 0 and waits for the enable bit. NULL, or what failed (errno is in *err).
 */
static inline const char *traced_open(struct traced *t, const char *what, const char *fields,
                                      int *err)
{
    *err = 0;
    t->ring.fd = -1;
    t->word = 0;
    ue_event_name(t->name, sizeof t->name, what);
    t->fd = ue_open();
    if (t->fd < 0) {
        *err = errno;
        return "open user_events_data";
    }
    *err = ue_register(t->fd, t->name, fields, &t->word, 0, &t->index);
    if (*err)
        return "DIAG_IOCSREG";
    t->id = tracepoint_id(t->name);
    if (t->id <= 0)
        return "no tracefs id";
    *err = perf_ring_open(&t->ring, t->id);
    if (*err)
        return "perf ring";
    if (!wait_bits(&t->word, 1, true, UE_WAIT_MS))
        return "enable bit not set";
    return NULL;
}

/* Closes the ring, unregisters the enabler (it belongs to the process, not the fd),
 * closes the fd and waits (bounded) for the event to go away. */
static inline void traced_close(struct traced *t)
{
    perf_ring_close(&t->ring);
    if (t->fd >= 0) {
        ue_unregister(t->fd, &t->word, 0);
        close(t->fd);
    }
    t->fd = -1;
    wait_event_presence(t->name, false, UE_WAIT_MS);
}

#endif /* EHCONF_USER_EVENTS_ABI_H */
