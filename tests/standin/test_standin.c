/* SPDX-License-Identifier: MIT */
/*
 * Unit test of the user_events stand-in (tools/standin/user_events_standin.c): the edge
 * cases a real library rarely reaches, checked against the kernel's answers
 * (Documentation/user-events-abi.md) and the capture records byte for byte.
 *
 * The program preloads the stand-in into itself: started plainly (as `make unit` and
 * tests/harness/test_standin.py start it), it re-executes itself with
 * LD_PRELOAD=<build>/lib/libuser_events_standin.so (found next to this binary, or
 * named by EHCONF_STANDIN_SO) and EHCONF_STANDIN_CAPTURE=<a new temporary file>, then
 * runs the tests. Without the stand-in built, every test is skipped with the reason.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eventheader_user_events.h"
#include "ktap.h"

#define DEBUGFS_DATA "/sys/kernel/debug/tracing/user_events_data"
#define CHILD_ENV    "EHCONF_STANDIN_TEST_CHILD"

/* glibc's fortified open, which the stand-in also answers (declared by <bits/fcntl2.h>
 * only in a fortified build). */
int __open_2(const char *path, int flags);

static const char *g_capture; /* EHCONF_STANDIN_CAPTURE of this run */

/* --- helpers ---------------------------------------------------------------------- */

static int open_data(void)
{
    return open(EH_USER_EVENTS_DATA, O_WRONLY | O_CLOEXEC);
}

/* DIAG_IOCSREG of cmd with the enable bit at (word, bit); returns 0 or the errno, and
 * the write index in *index. */
static int reg_event(int fd, const char *cmd, void *word, uint8_t size, uint8_t bit,
                     uint32_t *index)
{
    struct eh_user_reg reg = {
        .size = sizeof reg,
        .enable_bit = bit,
        .enable_size = size,
        .enable_addr = (uint64_t)(uintptr_t)word,
        .name_args = (uint64_t)(uintptr_t)cmd,
        .write_index = UINT32_MAX,
    };
    int rc = ioctl(fd, EH_DIAG_IOCSREG, &reg);
    if (index)
        *index = reg.write_index;
    return rc == 0 ? 0 : errno;
}

static int unreg_event(int fd, void *word, uint8_t bit)
{
    struct eh_user_unreg unreg = {
        .size = sizeof unreg,
        .disable_bit = bit,
        .disable_addr = (uint64_t)(uintptr_t)word,
    };
    return ioctl(fd, EH_DIAG_IOCSUNREG, &unreg) == 0 ? 0 : errno;
}

/* The result of a call that returns -1 on failure: 0 on success, else errno. */
#define ERR_OF(call) ((call) < 0 ? errno : 0)

static off_t capture_size(void)
{
    struct stat st;
    return stat(g_capture, &st) == 0 ? st.st_size : -1;
}

/* The capture file's bytes from offset `from` on; *len gets their count. */
static unsigned char *read_capture(off_t from, size_t *len)
{
    *len = 0;
    FILE *f = fopen(g_capture, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0;
    if (fseeko(f, from, SEEK_SET) == 0) {
        for (;;) {
            if (*len == cap) {
                cap = cap ? 2 * cap : 65536;
                unsigned char *b = realloc(buf, cap);
                if (!b)
                    break;
                buf = b;
            }
            size_t n = fread(buf + *len, 1, cap - *len, f);
            if (n == 0)
                break;
            *len += n;
        }
    }
    fclose(f);
    return buf;
}

/* The record the stand-in must append for a write of `payload` to event `name`. */
static size_t expected_record(unsigned char *out, const char *name, const void *payload, size_t n)
{
    size_t name_size = strlen(name) + 1;
    uint32_t size = (uint32_t)(4 + name_size + n);
    out[0] = (unsigned char)size;
    out[1] = (unsigned char)(size >> 8);
    out[2] = (unsigned char)(size >> 16);
    out[3] = (unsigned char)(size >> 24);
    memcpy(out + 4, name, name_size);
    memcpy(out + 4 + name_size, payload, n);
    return size;
}

/* Walks whole records from `from` to the end: the number of records, -1 if one is torn
 * or malformed; per_name counts those named `name`. */
static long count_records(off_t from, const char *name, long *per_name)
{
    size_t len, at = 0;
    long n = 0;
    *per_name = 0;
    unsigned char *b = read_capture(from, &len);
    while (at < len) {
        if (len - at < 4)
            goto torn;
        uint32_t size = b[at] | b[at + 1] << 8 | b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
        if (size < 5 || size > len - at || !memchr(b + at + 4, 0, size - 4))
            goto torn;
        if (strcmp((const char *)b + at + 4, name) == 0)
            (*per_name)++;
        at += size;
        n++;
    }
    free(b);
    return n;
torn:
    kt_diag("torn or malformed record at offset %zu of the new bytes", at);
    free(b);
    return -1;
}

/* --- tests ------------------------------------------------------------------------ */

static void test_open_and_access(void)
{
    int a = open_data();
    int b = openat(AT_FDCWD, DEBUGFS_DATA, O_RDWR);
    int c = open64(EH_USER_EVENTS_DATA, O_WRONLY);
    int d = __open_2(EH_USER_EVENTS_DATA, O_WRONLY);
    KT_EXPECT(a >= 0 && b >= 0 && c >= 0 && d >= 0);
    /* O_CLOEXEC is kept, as the real file would keep it. */
    KT_EXPECT_EQ(fcntl(a, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
    KT_EXPECT_EQ(fcntl(b, F_GETFD) & FD_CLOEXEC, 0);
    KT_EXPECT_EQ(access(EH_USER_EVENTS_DATA, W_OK), 0);
    KT_EXPECT_EQ(faccessat(AT_FDCWD, DEBUGFS_DATA, R_OK | W_OK, 0), 0);
    KT_EXPECT_EQ(ERR_OF(access(EH_USER_EVENTS_DATA, X_OK)), EACCES);
    /* Any other path is libc's: a missing file stays missing. */
    KT_EXPECT_EQ(ERR_OF(open("/sys/kernel/tracing/user_events_nonexistent", O_WRONLY)), ENOENT);
    close(a);
    close(b);
    close(c);
    close(d);
}

static void test_register_sets_bit_and_write_appends_record(void)
{
    static uint32_t w1, w2, w3;
    int fd = open_data();
    uint32_t i1, i2, i3;
    KT_EXPECT_EQ(reg_event(fd, "Standin_L5K1 u8 eventheader_flags", &w1, 4, 0, &i1), 0);
    KT_EXPECT_EQ(reg_event(fd, "Standin_L4K2", &w2, 4, 3, &i2), 0);
    /* The same event again on the same fd: the same index, a second enabler (K10). */
    KT_EXPECT_EQ(reg_event(fd, "Standin_L5K1 u8 eventheader_flags", &w3, 4, 0, &i3), 0);
    KT_EXPECT_EQ(i1, 0);
    KT_EXPECT_EQ(i2, 1);
    KT_EXPECT_EQ(i3, 0);
    KT_EXPECT_EQ(w1, 1);
    KT_EXPECT_EQ(w2, 1u << 3);
    KT_EXPECT_EQ(w3, 1);

    off_t before = capture_size();
    unsigned char buf[4 + 5];
    memcpy(buf, &i2, 4);
    memcpy(buf + 4, "hello", 5);
    KT_EXPECT_EQ(write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    uint32_t idx0 = 0;
    KT_EXPECT_EQ(write(fd, &idx0, 4), 4); /* an index alone is an event (K35) */

    unsigned char want[64];
    size_t n1 = expected_record(want, "Standin_L4K2", "hello", 5);
    size_t n2 = expected_record(want + n1, "Standin_L5K1", "", 0);
    size_t len;
    unsigned char *got = read_capture(before, &len);
    KT_EXPECT_MEM(got, len, want, n1 + n2);
    free(got);
    KT_EXPECT_EQ(unreg_event(fd, &w1, 0), 0);
    KT_EXPECT_EQ(unreg_event(fd, &w2, 3), 0);
    KT_EXPECT_EQ(unreg_event(fd, &w3, 0), 0);
    close(fd);
}

static void test_writev_split_across_iovecs(void)
{
    static uint32_t w;
    int fd = open_data();
    uint32_t a, b;
    KT_EXPECT_EQ(reg_event(fd, "Standin_L5K10", &w, 4, 0, &a), 0);
    KT_EXPECT_EQ(reg_event(fd, "Standin_L5K11 u8 x", &w, 4, 1, &b), 0);
    KT_EXPECT_EQ(b, 1);
    off_t before = capture_size();
    /* The index itself is split 1 + 0 + 3 bytes, and the payload follows in pieces. */
    unsigned char idx[4];
    memcpy(idx, &b, 4);
    struct iovec iov[] = {
        {idx, 1}, {idx + 1, 0}, {idx + 1, 3}, {"ab", 2}, {NULL, 0}, {"cde", 3},
    };
    KT_EXPECT_EQ(writev(fd, iov, 6), 9);
    /* Index and payload in the same iovec element too. */
    unsigned char one[4 + 2];
    memcpy(one, &b, 4);
    memcpy(one + 4, "xy", 2);
    struct iovec iov2[] = {{one, 5}, {one + 5, 1}};
    KT_EXPECT_EQ(writev(fd, iov2, 2), 6);
    unsigned char want[64];
    size_t n1 = expected_record(want, "Standin_L5K11", "abcde", 5);
    size_t n2 = expected_record(want + n1, "Standin_L5K11", "xy", 2);
    size_t len;
    unsigned char *got = read_capture(before, &len);
    KT_EXPECT_MEM(got, len, want, n1 + n2);
    free(got);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    KT_EXPECT_EQ(unreg_event(fd, &w, 1), 0);
    close(fd);
}

static void test_write_errors_append_nothing(void)
{
    static uint32_t w;
    int fd = open_data();
    uint32_t i;
    KT_EXPECT_EQ(reg_event(fd, "Standin_L1K1", &w, 4, 0, &i), 0);
    off_t before = capture_size();
    unsigned char buf[8] = {0};
    uint32_t unknown = i + 1;
    memcpy(buf, &unknown, 4);
    KT_EXPECT_EQ(ERR_OF(write(fd, buf, sizeof buf)), ENOENT); /* never handed out (K30) */
    int32_t negative = -1;
    memcpy(buf, &negative, 4);
    KT_EXPECT_EQ(ERR_OF(write(fd, buf, sizeof buf)), EINVAL); /* negative (K31) */
    memcpy(buf, &i, 4);
    /* Shorter than the index: the kernel cannot read it (EFAULT). */
    KT_EXPECT_EQ(ERR_OF(write(fd, buf, 3)), EFAULT);
    KT_EXPECT_EQ(ERR_OF(write(fd, buf, 0)), EFAULT);
    struct iovec split[] = {{buf, 2}, {buf + 2, 1}};
    KT_EXPECT_EQ(ERR_OF(writev(fd, split, 2)), EFAULT);
    volatile int bad_count = -1; /* hidden from gcc's access check: it is the point */
    KT_EXPECT_EQ(ERR_OF(writev(fd, split, bad_count)), EINVAL);
    KT_EXPECT_EQ(capture_size(), before);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    close(fd);
}

static void test_register_errors(void)
{
    static uint32_t w;
    static uint64_t w8;
    int fd = open_data();
    struct eh_user_reg reg = {
        .size = sizeof reg,
        .enable_size = 4,
        .enable_addr = (uint64_t)(uintptr_t)&w,
        .name_args = (uint64_t)(uintptr_t) "Standin_L2K2",
    };
    struct eh_user_reg r;

    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, NULL)), EFAULT);
    r = reg;
    r.size = 20;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EINVAL);
    r = reg;
    r.size = 8192;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), E2BIG);
    r = reg;
    r.flags = 4;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EINVAL);
    r = reg;
    r.enable_size = 2;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EINVAL);
    r = reg;
    r.enable_addr += 2;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EINVAL);
    r = reg;
    r.enable_bit = 32;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EINVAL);
    r = reg;
    r.enable_addr = 0;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EFAULT);
    r = reg;
    r.name_args = 0;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &r)), EFAULT);
    KT_EXPECT_EQ(reg_event(fd, "", &w, 4, 0, NULL), EINVAL);             /* no name */
    KT_EXPECT_EQ(reg_event(fd, " u32 x", &w, 4, 0, NULL), EINVAL);       /* no name */
    KT_EXPECT_EQ(reg_event(fd, "Standin:flag", &w, 4, 0, NULL), EINVAL); /* K18 */
    static char longcmd[600];
    memset(longcmd, 'a', sizeof longcmd - 1);
    KT_EXPECT_EQ(reg_event(fd, longcmd, &w, 4, 0, NULL), EINVAL); /* over 511 (K19) */
    longcmd[511] = 0;
    KT_EXPECT_EQ(reg_event(fd, longcmd, &w, 4, 0, NULL), 0); /* 511 is the most */
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    KT_EXPECT_EQ(w, 0);

    /* A larger struct with a zero tail is accepted; a non-zero tail is E2BIG. */
    unsigned char big[40] = {0};
    r = reg;
    r.size = sizeof big;
    memcpy(big, &r, sizeof r);
    big[35] = 1;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, big)), E2BIG);
    big[35] = 0;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, big)), 0);
    KT_EXPECT_EQ(w, 1);
    /* The same (address, bit) twice in one process (K08). */
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSREG, &reg)), EADDRINUSE);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);

    /* An 8-byte word, a bit in its upper half. */
    KT_EXPECT_EQ(reg_event(fd, "Standin_L2K8", &w8, 8, 40, NULL), 0);
    KT_EXPECT_EQ(w8, (uint64_t)1 << 40);
    KT_EXPECT_EQ(unreg_event(fd, &w8, 40), 0);
    KT_EXPECT_EQ(w8, 0);
    close(fd);
}

static void test_unregister_clears_bit(void)
{
    static uint32_t w;
    int fd = open_data();
    KT_EXPECT_EQ(reg_event(fd, "Standin_L3K1", &w, 4, 0, NULL), 0);
    KT_EXPECT_EQ(reg_event(fd, "Standin_L3K2", &w, 4, 5, NULL), 0);
    KT_EXPECT_EQ(w, 1u | 1u << 5);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    KT_EXPECT_EQ(w, 1u << 5); /* only its own bit */
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), ENOENT);
    KT_EXPECT_EQ(unreg_event(fd, &w, 7), ENOENT);
    struct eh_user_unreg u = {
        .size = sizeof u, .disable_bit = 5, .disable_addr = (uint64_t)(uintptr_t)&w};
    struct eh_user_unreg v = u;
    v.reserved = 1;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSUNREG, &v)), EINVAL);
    v = u;
    v.size = 8;
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSUNREG, &v)), EINVAL);
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSUNREG, &u)), 0);
    KT_EXPECT_EQ(w, 0);
    /* The pair is free again (K22). */
    KT_EXPECT_EQ(reg_event(fd, "Standin_L3K1", &w, 4, 0, NULL), 0);
    KT_EXPECT_EQ(w, 1);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    /* IOCSDEL always succeeds; any other request on the file is ENOTTY. */
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, EH_DIAG_IOCSDEL, "Standin_L3K1")), 0);
    KT_EXPECT_EQ(ERR_OF(ioctl(fd, _IO('*', 9), NULL)), ENOTTY);
    close(fd);
}

static void test_close_forgets_the_fd(void)
{
    static uint32_t w;
    int fd = open_data();
    uint32_t i;
    KT_EXPECT_EQ(reg_event(fd, "Standin_L6K1", &w, 4, 0, &i), 0);
    KT_EXPECT_EQ(reg_event(fd, "Standin_L6K2", &w, 4, 1, &i), 0);
    KT_EXPECT_EQ(close(fd), 0);
    KT_EXPECT_EQ(ERR_OF(write(fd, &i, 4)), EBADF); /* libc's answer for a closed fd */
    KT_EXPECT_EQ(ERR_OF(close(fd)), EBADF);
    /* A new file has a table of its own, even when it gets the same number. */
    int fd2 = open_data();
    KT_EXPECT_EQ(ERR_OF(write(fd2, &i, 4)), ENOENT);
    uint32_t j;
    KT_EXPECT_EQ(reg_event(fd2, "Standin_L6K2", &w, 4, 2, &j), 0);
    KT_EXPECT_EQ(j, 0);
    KT_EXPECT_EQ(unreg_event(fd2, &w, 0), 0);
    KT_EXPECT_EQ(unreg_event(fd2, &w, 1), 0);
    KT_EXPECT_EQ(unreg_event(fd2, &w, 2), 0);
    KT_EXPECT_EQ(w, 0);
    close(fd2);
}

typedef int (*open_fn)(const char *, int, ...);

static void test_pass_through_without_capture(void)
{
    /* libc's own open, to compare with what the program gets through the stand-in. */
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    open_fn libc_open = libc ? (open_fn)dlsym(libc, "open") : NULL;
    if (!libc_open)
        KT_SKIP("libc.so.6's open not found");
    char *saved = strdup(g_capture);
    const char *values[] = {NULL, ""};
    for (int k = 0; k < 2; k++) {
        if (values[k])
            setenv("EHCONF_STANDIN_CAPTURE", values[k], 1);
        else
            unsetenv("EHCONF_STANDIN_CAPTURE");
        errno = 0;
        int real = libc_open(EH_USER_EVENTS_DATA, O_WRONLY | O_CLOEXEC);
        int real_err = errno;
        errno = 0;
        int got = open_data();
        int got_err = errno;
        kt_diag("variable %s: libc open %d (errno %d), through the stand-in %d (errno %d)",
                values[k] ? "empty" : "unset", real, real_err, got, got_err);
        KT_EXPECT_EQ(got >= 0, real >= 0);
        KT_EXPECT_EQ(got_err, real_err);
        if (got >= 0) {
            /* A real user_events file: ioctls go to the kernel, not here. */
            struct eh_user_reg r = {.size = 1};
            KT_EXPECT_EQ(ERR_OF(ioctl(got, EH_DIAG_IOCSREG, &r)), EINVAL);
            close(got);
        }
        if (real >= 0)
            close(real);
    }
    setenv("EHCONF_STANDIN_CAPTURE", saved, 1);
    free(saved);
    dlclose(libc);
}

static void test_other_fds_untouched(void)
{
    int keep = open_data(); /* with a stand-in fd open, the other fds still pass */
    int p[2];
    KT_EXPECT_EQ(pipe(p), 0);
    errno = 4242;
    KT_EXPECT_EQ(write(p[1], "abc", 3), 3);
    struct iovec iov[] = {{"de", 2}, {"f", 1}};
    KT_EXPECT_EQ(writev(p[1], iov, 2), 3);
    KT_EXPECT_EQ(errno, 4242); /* a successful call leaves errno alone */
    char got[8] = {0};
    KT_EXPECT_EQ(read(p[0], got, sizeof got), 6);
    KT_EXPECT_STR(got, "abcdef");
    static uint32_t w;
    struct eh_user_reg r = {.size = sizeof r,
                            .enable_size = 4,
                            .enable_addr = (uint64_t)(uintptr_t)&w,
                            .name_args = (uint64_t)(uintptr_t) "Standin_L1K9"};
    KT_EXPECT_EQ(ERR_OF(ioctl(p[1], EH_DIAG_IOCSREG, &r)), ENOTTY);
    KT_EXPECT_EQ(w, 0);
    KT_EXPECT_EQ(ERR_OF(write(-1, "x", 1)), EBADF);
    KT_EXPECT_EQ(ERR_OF(writev(-1, iov, 2)), EBADF);
    KT_EXPECT_EQ(ERR_OF(close(-1)), EBADF);
    KT_EXPECT_EQ(ERR_OF(ioctl(-1, EH_DIAG_IOCSUNREG, NULL)), EBADF);
    close(p[0]);
    close(p[1]);
    close(keep);
}

enum { THREADS = 4, PER_THREAD = 500 };

struct writer {
    int fd;
    uint32_t index;
    int failures;
    pthread_t id;
};

static void *write_many(void *arg)
{
    struct writer *w = arg;
    unsigned char buf[4 + 300];
    memcpy(buf, &w->index, 4);
    for (int i = 0; i < PER_THREAD; i++) {
        size_t n = 4 + (size_t)(i * 7 % 300);
        memset(buf + 4, 'a' + i % 26, n - 4);
        if (write(w->fd, buf, n) != (ssize_t)n)
            w->failures++;
    }
    return NULL;
}

static void test_threads_and_fork_keep_records_whole(void)
{
    static uint32_t w;
    int fd = open_data();
    uint32_t ia, ib;
    KT_EXPECT_EQ(reg_event(fd, "Standin_Threads_L5K1", &w, 4, 0, &ia), 0);
    KT_EXPECT_EQ(reg_event(fd, "Standin_Fork_L5K1", &w, 4, 1, &ib), 0);
    off_t before = capture_size();
    pid_t child = fork();
    if (child == 0) {
        /* The child inherits the fd, its write indexes and its enablers. */
        struct writer me = {.fd = fd, .index = ib};
        write_many(&me);
        _exit(me.failures == 0 && (w & 3) == 3 ? 0 : 1);
    }
    struct writer ws[THREADS];
    for (int t = 0; t < THREADS; t++) {
        ws[t] = (struct writer){.fd = fd, .index = ia};
        KT_EXPECT_EQ(pthread_create(&ws[t].id, NULL, write_many, &ws[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(ws[t].id, NULL);
        KT_EXPECT_EQ(ws[t].failures, 0);
    }
    int status = -1;
    KT_EXPECT_EQ(waitpid(child, &status, 0), child);
    KT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    long threads, forked;
    KT_EXPECT_EQ(count_records(before, "Standin_Threads_L5K1", &threads),
                 THREADS * PER_THREAD + PER_THREAD);
    count_records(before, "Standin_Fork_L5K1", &forked);
    KT_EXPECT_EQ(threads, THREADS * PER_THREAD);
    KT_EXPECT_EQ(forked, PER_THREAD);
    KT_EXPECT_EQ(unreg_event(fd, &w, 0), 0);
    KT_EXPECT_EQ(unreg_event(fd, &w, 1), 0);
    close(fd);
}

/* --- set-up: preload the stand-in into a fresh copy of this program ----------------- */

static const struct kt_case CASES[] = {
    KT_CASE(test_open_and_access),
    KT_CASE(test_register_sets_bit_and_write_appends_record),
    KT_CASE(test_writev_split_across_iovecs),
    KT_CASE(test_write_errors_append_nothing),
    KT_CASE(test_register_errors),
    KT_CASE(test_unregister_clears_bit),
    KT_CASE(test_close_forgets_the_fd),
    KT_CASE(test_pass_through_without_capture),
    KT_CASE(test_other_fds_untouched),
    KT_CASE(test_threads_and_fork_keep_records_whole),
};

static int skip_all(const char *why)
{
    printf("KTAP version 1\n1..0 # SKIP %s\n", why);
    return 0;
}

/* <build>/lib/libuser_events_standin.so for this program's <build>/tests/standin/. */
static int find_standin(char *out, size_t size)
{
    const char *named = getenv("EHCONF_STANDIN_SO");
    if (named && named[0]) {
        if (!realpath(named, out))
            return -1;
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return -1;
    exe[n] = 0;
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = 0;
    }
    if (snprintf(out, size, "%s/lib/libuser_events_standin.so", exe) >= (int)size)
        return -1;
    return access(out, R_OK);
}

static int run_tests(void)
{
    g_capture = getenv("EHCONF_STANDIN_CAPTURE");
    const char *so = getenv("EHCONF_STANDIN_SO");
    /* Proof that the preload took: the stand-in is among the loaded objects. */
    void *h = so ? dlopen(so, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!h || !g_capture) {
        printf("KTAP version 1\n1..1\nnot ok 1 preload\n# %s was not preloaded\n",
               so ? so : "the stand-in");
        return 1;
    }
    dlclose(h);
    int rc = kt_run(CASES, sizeof CASES / sizeof CASES[0]);
    /* The capture and its folder were made for this run only. */
    unlink(g_capture);
    char *dir = strdup(g_capture);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) {
        *slash = 0;
        rmdir(dir);
    }
    free(dir);
    return rc;
}

int main(int argc, char **argv)
{
    (void)argc;
    if (getenv(CHILD_ENV))
        return run_tests();
    char so[PATH_MAX];
    if (find_standin(so, sizeof so) != 0)
        return skip_all("the stand-in is not built (make builds "
                        "<build>/lib/libuser_events_standin.so)");
    char tmpl[PATH_MAX], capture[PATH_MAX + 16];
    if (!kt_tmp_template(tmpl, sizeof tmpl, "ehconf-standin-XXXXXX") || !mkdtemp(tmpl)) {
        printf("KTAP version 1\n1..1\nnot ok 1 setup\n# cannot make a temporary folder\n");
        return 1;
    }
    snprintf(capture, sizeof capture, "%s/capture.dat", tmpl);
    /* Prepended, so a preload the caller set (a sanitizer runtime) stays after it. */
    const char *old = getenv("LD_PRELOAD");
    char preload[2 * PATH_MAX];
    snprintf(preload, sizeof preload, "%s%s%s", so, old && old[0] ? ":" : "", old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("EHCONF_STANDIN_SO", so, 1);
    setenv("EHCONF_STANDIN_CAPTURE", capture, 1);
    setenv(CHILD_ENV, "1", 1);
    fflush(stdout);
    execv("/proc/self/exe", argv);
    printf("KTAP version 1\n1..1\nnot ok 1 setup\n# cannot execute /proc/self/exe: %s\n",
           strerror(errno));
    rmdir(tmpl);
    return 1;
}
