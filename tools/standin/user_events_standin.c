/* SPDX-License-Identifier: MIT */
/*
 * user_events_standin.c: an LD_PRELOAD stand-in for tracefs' user_events_data, so that
 * a tracing library written for the kernel's user_events (libeventheader's user_events
 * backend, microsoft/LinuxTracepoints' libtracepoint, the Rust tracepoint crate) runs on
 * a kernel without CONFIG_USER_EVENTS and every event it writes lands in ehconf's
 * capture format (.dat), which `ehdecode --golden` reads. See tools/standin/README.md.
 *
 * Active only while EHCONF_STANDIN_CAPTURE names the capture file: then opening
 * /sys/kernel/tracing/user_events_data (or the debugfs path under /sys/kernel/debug)
 * returns a /dev/null fd that this file remembers, and the ioctls, write and writev on
 * it are answered here as the kernel would (Documentation/user-events-abi.md), except
 * that every registered event counts as listened to: its enable bit is set at once.
 * With EHCONF_STANDIN_LISTENING=0 nobody listens instead: no bit is ever set and every
 * write fails with EBADF, as the kernel answers when no tracer is attached (K29), so a
 * library's "no consumer" path can be tested offline too.
 * With EHCONF_STANDIN_COUNT=<file> instead of a capture file (make bench-impls), every
 * write is checked the same way, then counted and passed on whole to the stand-in fd's
 * /dev/null with one writev (a syscall of the same bytes, as the kernel's would be), and
 * nothing is stored: at exit the process appends "pid <p> events <n> bytes <m>" to <file>.
 * Every other call, and every call while the variable is unset, goes to the next
 * definition (libc's), unchanged: its return value and errno are the real ones.
 *
 * Record format, the same as lib/eventheader/src/backend_capture.c writes:
 *   u32 record size (little-endian, counts itself) | tracepoint name | NUL | event bytes
 * where the event bytes are everything the program wrote after its 4-byte write index.
 * One write() per record on an O_APPEND fd, so records of threads and forked children
 * interleave whole.
 */
/* A fortified build would turn open() into an inline wrapper that cannot be redefined. */
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eventheader_user_events.h"

#define STANDIN_ENV "EHCONF_STANDIN_CAPTURE"
#define COUNT_ENV   "EHCONF_STANDIN_COUNT"

/* The two places the libraries look first (libtracepoint and the Rust crate open the
 * tracefs path directly and parse /proc/mounts only when that fails; libeventheader does
 * the same), so answering them is enough: /proc/mounts is never read. */
static const char *const DATA_PATHS[] = {
    EH_USER_EVENTS_DATA,
    "/sys/kernel/debug/tracing/user_events_data",
};

/* The kernel's limits that a caller can hit by mistake (Documentation/user-events-abi.md
 * §2, §3): the command is copied with strndup_user(.., 512), and the registration
 * structs may be larger than ours up to a page when the tail is zero. */
enum { MAX_COMMAND = 512, MAX_STRUCT = 4096 };

/* The fortified entry points, declared by <bits/fcntl2.h> only in a fortified build. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* --- the next definition of each function (libc's) ------------------------------- */

/* Looked up on first use, not in a constructor: another library's constructor may
 * call open() before ours runs. Two threads racing store the same pointer. errno is
 * kept: a call that passes through must leave it as libc alone would. */
static void *next_fn(const char *name, void **cache)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!fn) {
        int saved = errno;
        fn = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
        errno = saved;
    }
    return fn;
}

#define NEXT(name, type)                     \
    static type next_##name(void)            \
    {                                        \
        static void *cache;                  \
        return (type)next_fn(#name, &cache); \
    }

typedef int (*open_fn)(const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*access_fn)(const char *, int);
typedef int (*faccessat_fn)(int, const char *, int, int);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*close_fn)(int);

NEXT(open, open_fn)
NEXT(open64, open_fn)
NEXT(__open_2, open2_fn)
NEXT(__open64_2, open2_fn)
NEXT(openat, openat_fn)
NEXT(openat64, openat_fn)
NEXT(__openat_2, openat2_fn)
NEXT(__openat64_2, openat2_fn)
NEXT(access, access_fn)
NEXT(faccessat, faccessat_fn)
NEXT(ioctl, ioctl_fn)
NEXT(write, write_fn)
NEXT(writev, writev_fn)
NEXT(close, close_fn)

/* A missing next definition cannot happen with glibc; if it did, fail like a stub. */
#define CALL_NEXT(name, ...) (next_##name() ? next_##name()(__VA_ARGS__) : (errno = ENOSYS, -1))

/* --- state ------------------------------------------------------------------------ */

/* One stand-in fd: the kernel keeps the write-index table per open file (K10), so the
 * slots live here; slot i holds the name registered with write_index i. */
struct standin_file {
    int fd;
    char **names;
    uint32_t count, cap;
};

/* One enabler, per process like the kernel's (one (address, bit) pair per mm, K08). */
struct enabler {
    uintptr_t addr;
    uint8_t bit;
    uint8_t size; /* 4 or 8 */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct standin_file *g_files; /* under g_lock */
static size_t g_nfiles, g_files_cap;
static struct enabler *g_enablers; /* under g_lock */
static size_t g_nenablers, g_enablers_cap;
static int g_capture_fd = -1; /* under g_lock; opened once, shared with forked children */
/* Count mode (EHCONF_STANDIN_COUNT): set at the first stand-in open, under g_lock; the
 * listening answer is read then too, so a counted write reads no environment. */
static int g_counting, g_count_listening;
static uint64_t g_count_events, g_count_bytes; /* atomic adds */
/* How many stand-in fds are open: read without the lock so that write() and close() of
 * every other fd (the program's whole I/O) pass through without taking it. */
static int g_nfiles_atomic;

/* A thread that forks while another holds g_lock would leave the child a lock nobody
 * unlocks: hold it across fork() instead. The tables are copied into the child, as the
 * kernel copies every enabler on fork (Documentation/user-events-abi.md §4). */
static void before_fork(void)
{
    pthread_mutex_lock(&g_lock);
}

static void after_fork(void)
{
    pthread_mutex_unlock(&g_lock);
}

__attribute__((constructor)) static void standin_init(void)
{
    pthread_atfork(before_fork, after_fork, after_fork);
}

static struct standin_file *find_file(int fd)
{
    for (size_t i = 0; i < g_nfiles; i++)
        if (g_files[i].fd == fd)
            return &g_files[i];
    return NULL;
}

static int any_file(void)
{
    return __atomic_load_n(&g_nfiles_atomic, __ATOMIC_ACQUIRE) != 0;
}

/* glibc declares open()'s path nonnull, so the compiler may drop a NULL test on it;
 * a NULL path must still reach libc (EFAULT), not crash here. The empty asm hides
 * where the pointer came from. */
static const char *opaque(const char *p)
{
    __asm__("" : "+r"(p));
    return p;
}

static int is_data_path(const char *path)
{
    path = opaque(path);
    if (!path)
        return 0;
    for (size_t i = 0; i < sizeof DATA_PATHS / sizeof DATA_PATHS[0]; i++)
        if (strcmp(path, DATA_PATHS[i]) == 0)
            return 1;
    return 0;
}

/* EHCONF_STANDIN_LISTENING=0: no consumer (see the top of the file). */
static int listening(void)
{
    const char *p = getenv("EHCONF_STANDIN_LISTENING");
    return !(p && strcmp(p, "0") == 0);
}

static const char *capture_path(void)
{
    const char *p = getenv(STANDIN_ENV);
    return p && p[0] ? p : NULL;
}

/* Count mode's file, when no capture file is named (a capture file wins). */
static const char *count_path(void)
{
    const char *p = getenv(COUNT_ENV);
    return !capture_path() && p && p[0] ? p : NULL;
}

/* Count mode: the totals, appended to the count file once per process at exit (a
 * forked child that exits appends its own line; one that _exits appends none). */
__attribute__((destructor)) static void count_report(void)
{
    const char *path = count_path();
    if (!path || !g_counting)
        return;
    int fd = CALL_NEXT(open, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    char line[96];
    int n = snprintf(line, sizeof line, "pid %ld events %llu bytes %llu\n", (long)getpid(),
                     (unsigned long long)__atomic_load_n(&g_count_events, __ATOMIC_RELAXED),
                     (unsigned long long)__atomic_load_n(&g_count_bytes, __ATOMIC_RELAXED));
    if (n > 0 && CALL_NEXT(write, fd, line, (size_t)n) < 0)
        fprintf(stderr, "user_events_standin: cannot write %s=%s\n", COUNT_ENV, path);
    CALL_NEXT(close, fd);
}

/* --- open ------------------------------------------------------------------------- */

/* Called under g_lock. The capture file is opened at the first stand-in open rather
 * than at the first write, so that a capture that cannot be created makes
 * user_events_data fail to open: the library then reports that it has no user_events,
 * instead of failing every write. */
static int ensure_capture(const char *path)
{
    if (g_capture_fd >= 0)
        return 0;
    int fd = CALL_NEXT(open, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        int err = errno;
        fprintf(stderr, "user_events_standin: cannot open %s=%s: %s\n", STANDIN_ENV, path,
                strerror(err));
        return err;
    }
    g_capture_fd = fd;
    return 0;
}

/* Returns a new stand-in fd, or -1 with errno. */
static int standin_open(const char *capture, int flags)
{
    pthread_mutex_lock(&g_lock);
    int err = 0;
    if (capture_path()) {
        err = ensure_capture(capture);
    } else if (!g_counting) {
        g_counting = 1;
        g_count_listening = listening();
    }
    int fd = -1;
    if (!err && g_nfiles == g_files_cap) {
        size_t cap = g_files_cap ? 2 * g_files_cap : 4;
        struct standin_file *f = realloc(g_files, cap * sizeof *f);
        if (f) {
            g_files = f;
            g_files_cap = cap;
        } else {
            err = ENOMEM;
        }
    }
    if (!err) {
        /* A real fd, so that the number stays ours until close() and every call this
         * file does not answer (fstat, fcntl, poll...) works on something harmless. */
        fd = CALL_NEXT(open, "/dev/null", O_RDWR | (flags & O_CLOEXEC));
        if (fd < 0)
            err = errno;
    }
    if (!err) {
        g_files[g_nfiles++] = (struct standin_file){.fd = fd};
        __atomic_store_n(&g_nfiles_atomic, (int)g_nfiles, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_lock);
    if (err) {
        errno = err;
        return -1;
    }
    return fd;
}

/* The stand-in takes an open of the data path only while one of the variables is set:
 * the capture file, else the count file. */
static const char *wants(const char *path)
{
    if (!is_data_path(path))
        return NULL;
    const char *capture = capture_path();
    return capture ? capture : count_path();
}

/* O_CREAT and O_TMPFILE are the flags that make open() read its mode argument; the
 * last named parameter before it is always `flags`. */
static int needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, mode)       \
    do {                            \
        if (needs_mode(flags)) {    \
            va_list ap;             \
            va_start(ap, flags);    \
            mode = va_arg(ap, int); \
            va_end(ap);             \
        }                           \
    } while (0)

int open(const char *path, int flags, ...)
{
    int mode = 0;
    MODE_ARG(flags, mode);
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    int mode = 0;
    MODE_ARG(flags, mode);
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(open64, path, flags, mode);
}

int __open_2(const char *path, int flags)
{
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(__open_2, path, flags);
}

int __open64_2(const char *path, int flags)
{
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(__open64_2, path, flags);
}

/* An absolute path ignores dirfd; a relative one is left to libc (no library opens
 * user_events_data relative to a directory fd). */
int openat(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    MODE_ARG(flags, mode);
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(openat, dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    int mode = 0;
    MODE_ARG(flags, mode);
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(openat64, dirfd, path, flags, mode);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(__openat_2, dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    const char *cap = wants(path);
    if (cap)
        return standin_open(cap, flags);
    return CALL_NEXT(__openat64_2, dirfd, path, flags);
}

/* A program may probe the file before opening it. The kernel's file is mode 0640
 * (Documentation/user-events-abi.md, tracefs): readable and writable, never executable. */
static int standin_access(int mode)
{
    if (mode & X_OK) {
        errno = EACCES;
        return -1;
    }
    return 0;
}

int access(const char *path, int mode)
{
    if (wants(path))
        return standin_access(mode);
    return CALL_NEXT(access, path, mode);
}

int faccessat(int dirfd, const char *path, int mode, int flags)
{
    if (wants(path))
        return standin_access(mode);
    return CALL_NEXT(faccessat, dirfd, path, mode, flags);
}

/* --- ioctl ------------------------------------------------------------------------ */

/* Bytes [from, to) of a caller's struct must be zero: the kernel's copy_struct_from_user
 * accepts a larger struct only with a zero tail, else E2BIG. */
static int tail_is_zero(const unsigned char *p, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        if (p[i])
            return 0;
    return 1;
}

static struct enabler *find_enabler(uintptr_t addr, uint8_t bit)
{
    for (size_t i = 0; i < g_nenablers; i++)
        if (g_enablers[i].addr == addr && g_enablers[i].bit == bit)
            return &g_enablers[i];
    return NULL;
}

/* The kernel sets and clears enable bits atomically: other bits of the same word may
 * belong to other events, and the program reads the word without a lock. */
static void flip_bit(uintptr_t addr, uint8_t size, uint8_t bit, int on)
{
    if (size == 8) {
        uint64_t m = (uint64_t)1 << bit;
        if (on)
            __atomic_fetch_or((uint64_t *)addr, m, __ATOMIC_RELAXED);
        else
            __atomic_fetch_and((uint64_t *)addr, ~m, __ATOMIC_RELAXED);
    } else {
        uint32_t m = (uint32_t)1 << bit;
        if (on)
            __atomic_fetch_or((uint32_t *)addr, m, __ATOMIC_RELAXED);
        else
            __atomic_fetch_and((uint32_t *)addr, ~m, __ATOMIC_RELAXED);
    }
}

/* The slot of name in f (the existing one: the same event on the same fd gets the same
 * index, K10), or a new one; -errno on failure. */
static int64_t slot_of(struct standin_file *f, const char *name, size_t len)
{
    for (uint32_t i = 0; i < f->count; i++)
        if (strlen(f->names[i]) == len && memcmp(f->names[i], name, len) == 0)
            return i;
    if (f->count == INT32_MAX)
        return -EMFILE;
    if (f->count == f->cap) {
        uint32_t cap = f->cap ? 2 * f->cap : 16;
        char **n = realloc(f->names, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        f->names = n;
        f->cap = cap;
    }
    char *copy = strndup(name, len);
    if (!copy)
        return -ENOMEM;
    f->names[f->count] = copy;
    return f->count++;
}

static int add_enabler(uintptr_t addr, uint8_t bit, uint8_t size)
{
    if (g_nenablers == g_enablers_cap) {
        size_t cap = g_enablers_cap ? 2 * g_enablers_cap : 16;
        struct enabler *e = realloc(g_enablers, cap * sizeof *e);
        if (!e)
            return ENOMEM;
        g_enablers = e;
        g_enablers_cap = cap;
    }
    g_enablers[g_nenablers++] = (struct enabler){addr, bit, size};
    return 0;
}

/* DIAG_IOCSREG, in the kernel's order of checks (Documentation/user-events-abi.md §2;
 * the reference's list of checks numbers them). Returns 0 or an errno. */
static int do_reg(struct standin_file *f, void *arg)
{
    if (!arg)
        return EFAULT;
    uint32_t size;
    memcpy(&size, arg, sizeof size);
    if (size > MAX_STRUCT)
        return E2BIG;
    if (size < sizeof(struct eh_user_reg))
        return EINVAL;
    if (!tail_is_zero(arg, sizeof(struct eh_user_reg), size))
        return E2BIG;
    struct eh_user_reg reg;
    memcpy(&reg, arg, sizeof reg);
    if (reg.flags & ~(uint16_t)3) /* PERSIST and MULTI_FORMAT are the only flags */
        return EINVAL;
    if (reg.enable_size != 4 && !(reg.enable_size == 8 && sizeof(void *) == 8))
        return EINVAL;
    if (reg.enable_addr % reg.enable_size)
        return EINVAL;
    if (reg.enable_bit > reg.enable_size * 8 - 1)
        return EINVAL;
    /* The kernel can tell any unwritable address (EFAULT when it pins the page); a
     * stand-in in the same process can only refuse the one that is surely wrong. */
    if (!reg.enable_addr || reg.enable_addr != (uintptr_t)reg.enable_addr)
        return EFAULT;
    uintptr_t addr = (uintptr_t)reg.enable_addr;
    if (find_enabler(addr, reg.enable_bit))
        return EADDRINUSE;
    if (!reg.name_args || reg.name_args != (uintptr_t)reg.name_args)
        return EFAULT;
    const char *cmd = (const char *)(uintptr_t)reg.name_args;
    if (strnlen(cmd, MAX_COMMAND) == MAX_COMMAND)
        return EINVAL; /* no NUL within 512 bytes: a command over 511 characters (K19) */
    /* The name ends at the first space; what follows are the fields, which the kernel
     * parses and this file does not (tools/standin/README.md says what is not modelled). */
    size_t len = strcspn(cmd, " ");
    if (len == 0 || memchr(cmd, ':', len))
        return EINVAL; /* no name, or text flags (K18) */
    int64_t slot = slot_of(f, cmd, len);
    if (slot < 0)
        return (int)-slot;
    int err = add_enabler(addr, reg.enable_bit, reg.enable_size);
    if (err)
        return err;
    /* "As if a session listened": the kernel writes the current state at registration
     * (K09), and here some consumer is always attached, unless told otherwise. */
    if (listening())
        flip_bit(addr, reg.enable_size, reg.enable_bit, 1);
    uint32_t widx = (uint32_t)slot;
    memcpy((unsigned char *)arg + offsetof(struct eh_user_reg, write_index), &widx, sizeof widx);
    return 0;
}

/* DIAG_IOCSUNREG: removes the enabler and clears its bit (K22-K24). */
static int do_unreg(void *arg)
{
    if (!arg)
        return EFAULT;
    uint32_t size;
    memcpy(&size, arg, sizeof size);
    if (size > MAX_STRUCT)
        return E2BIG;
    if (size < sizeof(struct eh_user_unreg))
        return EINVAL;
    struct eh_user_unreg unreg;
    memcpy(&unreg, arg, sizeof unreg);
    if (unreg.reserved || unreg.reserved2)
        return EINVAL;
    if (!tail_is_zero(arg, sizeof(struct eh_user_unreg), size))
        return E2BIG;
    struct enabler *e = find_enabler((uintptr_t)unreg.disable_addr, unreg.disable_bit);
    if (!e)
        return ENOENT;
    flip_bit(e->addr, e->size, e->bit, 0);
    *e = g_enablers[--g_nenablers];
    return 0;
}

int ioctl(int fd, unsigned long request, ...)
{
    /* Every ioctl argument is one word: an int or a pointer, read as a pointer, which
     * is how glibc itself forwards it. */
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    if (!any_file())
        return CALL_NEXT(ioctl, fd, request, arg);
    pthread_mutex_lock(&g_lock);
    struct standin_file *f = find_file(fd);
    if (!f) {
        pthread_mutex_unlock(&g_lock);
        return CALL_NEXT(ioctl, fd, request, arg);
    }
    int err;
    if (request == EH_DIAG_IOCSREG)
        err = do_reg(f, arg);
    else if (request == EH_DIAG_IOCSUNREG)
        err = do_unreg(arg);
    else if (request == EH_DIAG_IOCSDEL)
        err = arg ? 0 : EFAULT; /* nothing to delete: events live as long as the process */
    else
        err = ENOTTY;
    pthread_mutex_unlock(&g_lock);
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

/* --- write ------------------------------------------------------------------------ */

/* Copies bytes [from, from + n) of the iovec array into out. */
static void gather(const struct iovec *iov, int iovcnt, size_t from, void *out, size_t n)
{
    unsigned char *o = out;
    for (int i = 0; i < iovcnt && n; i++) {
        size_t len = iov[i].iov_len;
        if (from >= len) {
            from -= len;
            continue;
        }
        size_t take = len - from < n ? len - from : n;
        memcpy(o, (const unsigned char *)iov[i].iov_base + from, take);
        o += take;
        n -= take;
        from = 0;
    }
}

/* A record being written: its head (size, name, NUL) is filled under g_lock, the
 * payload after it is copied outside the lock (it is the caller's memory, and big). */
struct record {
    unsigned char *buf;
    size_t len, head, total; /* total: the caller's byte count, index included */
};

/* Checks a write on stand-in fd f and prepares its record (called under g_lock). The
 * checks are the kernel's, in its order (Documentation/user-events-abi.md §5, K30, K31):
 * the index must be readable (a write under 4 bytes is EFAULT), not negative (EINVAL)
 * and handed out on this fd (ENOENT). Returns 0 or an errno. */
static int prepare(const struct standin_file *f, const struct iovec *iov, int iovcnt,
                   struct record *r, int store)
{
    if (iovcnt < 0 || iovcnt > IOV_MAX)
        return EINVAL;
    size_t total = 0;
    if (iovcnt && !iov)
        return EFAULT;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > (size_t)SSIZE_MAX - total)
            return EINVAL; /* what writev() says when the lengths overflow ssize_t */
        if (iov[i].iov_len && !iov[i].iov_base)
            return EFAULT; /* the one unreadable buffer a stand-in can tell */
        total += iov[i].iov_len;
    }
    int32_t widx;
    if (total < sizeof widx)
        return EFAULT;
    gather(iov, iovcnt, 0, &widx, sizeof widx);
    if (widx < 0)
        return EINVAL;
    if ((uint32_t)widx >= f->count)
        return ENOENT;
    const char *name = f->names[widx];
    size_t name_size = strlen(name) + 1;
    size_t payload = total - sizeof widx;
    if (payload > UINT32_MAX - 4 - name_size)
        return E2BIG; /* the record's u32 size cannot count it */
    r->head = 4 + name_size;
    r->len = r->head + payload;
    r->total = total;
    if (!store)
        return 0; /* count mode: checked, nothing to build */
    r->buf = malloc(r->len);
    if (!r->buf)
        return ENOMEM;
    uint32_t size = (uint32_t)r->len;
    r->buf[0] = (unsigned char)size;
    r->buf[1] = (unsigned char)(size >> 8);
    r->buf[2] = (unsigned char)(size >> 16);
    r->buf[3] = (unsigned char)(size >> 24);
    memcpy(r->buf + 4, name, name_size);
    return 0;
}

/* Count mode's write on stand-in fd f, called with g_lock held; releases it. The same
 * checks and answers, then one writev of the caller's iovecs to the fd's /dev/null. */
static ssize_t count_writev(const struct standin_file *f, const struct iovec *iov, int iovcnt)
{
    struct record r = {0};
    int err = prepare(f, iov, iovcnt, &r, 0);
    if (!err && !g_count_listening)
        err = EBADF; /* K29, as below */
    int fd = f->fd;
    pthread_mutex_unlock(&g_lock);
    if (err) {
        errno = err;
        return -1;
    }
    ssize_t n = CALL_NEXT(writev, fd, iov, iovcnt);
    if (n < 0)
        return -1;
    __atomic_add_fetch(&g_count_events, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_count_bytes, (uint64_t)r.total, __ATOMIC_RELAXED);
    return (ssize_t)r.total;
}

/* A write on stand-in fd f, called with g_lock held; releases it. Returns the caller's
 * byte count, index included, as the kernel does, or -1 with errno. */
static ssize_t standin_writev(const struct standin_file *f, const struct iovec *iov, int iovcnt)
{
    struct record r = {0};
    if (g_counting)
        return count_writev(f, iov, iovcnt);
    int err = prepare(f, iov, iovcnt, &r, 1);
    if (!err && !listening()) {
        free(r.buf);
        err = EBADF; /* K29: the kernel's answer once the index is known to be valid */
    }
    int cfd = g_capture_fd;
    pthread_mutex_unlock(&g_lock);
    if (err) {
        errno = err;
        return -1;
    }
    gather(iov, iovcnt, sizeof(int32_t), r.buf + r.head, r.len - r.head);
    /* One write() per record: O_APPEND makes it land whole after every other one. */
    ssize_t n = CALL_NEXT(write, cfd, r.buf, r.len);
    err = n < 0 ? errno : (size_t)n != r.len ? EIO : 0; /* EIO: a torn record */
    free(r.buf);
    if (err) {
        errno = err;
        return -1;
    }
    return (ssize_t)r.total;
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    if (!any_file())
        return CALL_NEXT(writev, fd, iov, iovcnt);
    pthread_mutex_lock(&g_lock);
    struct standin_file *f = find_file(fd);
    if (!f) {
        pthread_mutex_unlock(&g_lock);
        return CALL_NEXT(writev, fd, iov, iovcnt);
    }
    return standin_writev(f, iov, iovcnt);
}

ssize_t write(int fd, const void *buf, size_t count)
{
    if (!any_file())
        return CALL_NEXT(write, fd, buf, count);
    pthread_mutex_lock(&g_lock);
    struct standin_file *f = find_file(fd);
    if (!f) {
        pthread_mutex_unlock(&g_lock);
        return CALL_NEXT(write, fd, buf, count);
    }
    struct iovec one = {.iov_base = (void *)buf, .iov_len = count};
    return standin_writev(f, &one, 1);
}

/* --- close ------------------------------------------------------------------------ */

/* Forgets the fd's write indexes, as the kernel drops the file's table; the enablers
 * stay, as the kernel keeps them until unregister, exec or exit (§4). */
int close(int fd)
{
    if (any_file()) {
        pthread_mutex_lock(&g_lock);
        struct standin_file *f = find_file(fd);
        if (f) {
            for (uint32_t i = 0; i < f->count; i++)
                free(f->names[i]);
            free(f->names);
            *f = g_files[--g_nfiles];
            __atomic_store_n(&g_nfiles_atomic, (int)g_nfiles, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&g_lock);
    }
    return CALL_NEXT(close, fd);
}
