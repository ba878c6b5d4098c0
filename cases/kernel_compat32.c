// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_compat32: what a 32-bit process on the 64-bit kernel gets from user_events,
 * asserted through the raw ABI (cases/user_events_abi.h) from the reports of a 32-bit
 * probe program (cases/compat32/compat32_probe.c, built by cases/build.mk as
 * kernel_compat32.m32 next to this case's binary). IDs: Documentation/kernel-behaviours.md.
 *
 * ehconf-no-golden: this case writes no EventHeader event to compare; everything it
 * checks is asserted here (KTAP only).
 *
 *   K46_32bit_process_gets_enotty_from_the_ioctls
 *        K46: a 32-bit program (kernel_compat32.m32, cases/compat32/) gets ENOTTY from
 *        DIAG_IOCSREG, DIAG_IOCSUNREG and DIAG_IOCSDEL with both the 32-bit and the
 *        64-bit ioctl numbers (user_events has no compat_ioctl) and registers nothing,
 *        while its write() path works: an unregistered index gives ENOENT, and a
 *        writev() on an fd and index its 64-bit parent registered is delivered to perf.
 *
 * Without the probe (no gcc-multilib at build time, or a guest of another architecture)
 * the test SKIPs with "no 32-bit build of the probe ...", on a kernel that cannot run it (no
 * CONFIG_IA32_EMULATION) with that reason. Needs root (perf_event_open on cpu 0 with
 * PERF_SAMPLE_RAW). Without /sys/kernel/tracing/user_events_data it SKIPs with
 * "kernel lacks CONFIG_USER_EVENTS".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_harness.h"
#include "user_events_abi.h"

/* How long the test waits for the probe's output and exit. */
#define CHILD_WAIT_MS 5000

/* The value kernel_compat32.m32 writes (PROBE_VALUE there). */
#define PROBE_VALUE 0x32333233u

/* <directory of this program>/kernel_compat32.m32: 0 or -1. */
static int compat32_path(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash;

    if (n <= 0)
        return -1;
    self[n] = '\0';
    slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return snprintf(buf, len, "%s/kernel_compat32.m32", self) < (int)len ? 0 : -1;
}

/* The number after "<call> " on a line of the probe's output: 0 and *value, or -1. */
static int probe_value(const char *out, const char *call, int *value)
{
    size_t n = strlen(call);
    const char *p = out;

    while (*p) {
        if (strncmp(p, call, n) == 0 && p[n] == ' ')
            return sscanf(p + n + 1, "%d", value) == 1 ? 0 : -1;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return -1;
}

/* Prints the probe's output as KTAP diagnostics. */
static void print_probe_output(const char *out)
{
    const char *p = out;

    printf("# compat32 probe:\n");
    while (*p) {
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);

        printf("#   %.*s\n", len, p);
        if (!end)
            break;
        p = end + 1;
    }
    fflush(stdout);
}

#define PROBE_EXEC_FAILED 126

/* K46: no compat_ioctl, so 32-bit ioctls get ENOTTY and write works; compat support would fail. */
TEST(K46_32bit_process_gets_enotty_from_the_ioctls)
{
    static const char *const ioctls[] = {
        "reg32", "reg64", "unreg32", "unreg64", "del32", "del64",
    };
    struct perf_ring ring = {.fd = -1};
    char probe[PATH_MAX], name[64], name32[64], fd_arg[16], index_arg[16];
    char out[2048];
    size_t used = 0;
    uint32_t word = 0, index = 0, value = 0, raw_len = 0;
    int fd, pipe_fd[2], status, value_of, samples = 0;
    bool registered32;
    const uint8_t *raw;
    pid_t pid;

    NEED_USER_EVENTS();
    NEED_PERF();
    if (compat32_path(probe, sizeof probe) != 0 || access(probe, X_OK) != 0)
        SKIP(return, "no 32-bit build of the probe (x86-64: install gcc-multilib; the arm64 "
                     "and s390x guests have no 32-bit compiler or root: vm/config.<arch>)");
    ue_event_name(name, sizeof name, "compat");
    ue_event_name(name32, sizeof name32, "compat32");
    ASSERT_EQ(0, ue_pin_cpu0());
    /* The fd the probe inherits: no O_CLOEXEC. */
    fd = open(UE_DATA, O_RDWR);
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 value", &word, 0, &index));
    ASSERT_EQ(0, perf_ring_open(&ring, tracepoint_id(name)));
    snprintf(fd_arg, sizeof fd_arg, "%d", fd);
    snprintf(index_arg, sizeof index_arg, "%u", index);
    ASSERT_EQ(0, pipe(pipe_fd));

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    ASSERT_LE(0, pid);
    if (pid == 0) {
        dup2(pipe_fd[1], STDOUT_FILENO);
        close(pipe_fd[0]);
        close(pipe_fd[1]);
        execl(probe, probe, name32, fd_arg, index_arg, (char *)NULL);
        _exit(errno == ENOEXEC ? PROBE_EXEC_FAILED : 127);
    }
    close(pipe_fd[1]);
    for (;;) {
        struct pollfd p = {.fd = pipe_fd[0], .events = POLLIN};
        ssize_t n;

        if (poll(&p, 1, CHILD_WAIT_MS) != 1)
            break;
        n = read(pipe_fd[0], out + used, sizeof out - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        if (used == sizeof out - 1)
            break;
    }
    out[used] = '\0';
    close(pipe_fd[0]);
    status = ue_reap(pid, CHILD_WAIT_MS);
    if (status == PROBE_EXEC_FAILED)
        SKIP(return, "this kernel cannot run 32-bit programs (CONFIG_IA32_EMULATION)");
    registered32 = tracefs_event_exists("user_events", name32);
    while (perf_ring_next(&ring, &raw, &raw_len)) {
        samples++;
        if (raw_len >= 8 + sizeof value)
            memcpy(&value, raw + 8, sizeof value);
    }
    perf_ring_close(&ring);
    ue_unregister(fd, &word, 0);
    close(fd);

    print_probe_output(out);

    ASSERT_EQ(0, status);
    ASSERT_EQ(0, probe_value(out, "open", &value_of));
    EXPECT_EQ(0, value_of);
    for (size_t i = 0; i < sizeof ioctls / sizeof ioctls[0]; i++) {
        value_of = -1;
        EXPECT_EQ(0, probe_value(out, ioctls[i], &value_of))
        {
            TH_LOG("no line for %s", ioctls[i]);
        }
        EXPECT_EQ(ENOTTY, value_of)
        {
            TH_LOG("%s gave %d", ioctls[i], value_of);
        }
    }
    EXPECT_FALSE(registered32);
    value_of = -1;
    EXPECT_EQ(0, probe_value(out, "write_unregistered", &value_of));
    EXPECT_EQ(ENOENT, value_of);
    value_of = -1;
    EXPECT_EQ(0, probe_value(out, "write_inherited", &value_of));
    EXPECT_EQ(0, value_of);
    EXPECT_EQ(1, samples);
    EXPECT_EQ(PROBE_VALUE, value);
}

TEST_HARNESS_MAIN
