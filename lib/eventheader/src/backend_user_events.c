/* SPDX-License-Identifier: MIT */
/* Backend: Linux user_events (DIAG_IOCSREG per call site, writev per event). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eh_internal.h"
#include "eventheader_user_events.h"

static int g_fd = -1; /* opened once, shared by forked children, never closed */

static int open_under(const char *mnt, const char *suffix)
{
    char path[512];
    if (snprintf(path, sizeof path, "%s%s/user_events_data", mnt, suffix) >= (int)sizeof path)
        return -ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int eh_user_events_open_data(void)
{
    int fd = open(EH_USER_EVENTS_DATA, O_WRONLY | O_CLOEXEC);
    if (fd >= 0)
        return fd;
    FILE *f = fopen("/proc/mounts", "re");
    if (!f)
        return -errno;
    char line[4096], tracefs[1024] = "", debugfs[1024] = "";
    while (fgets(line, sizeof line, f)) {
        char dev[256], mnt[1024], type[64];
        if (sscanf(line, "%255s %1023s %63s", dev, mnt, type) != 3)
            continue;
        if (!tracefs[0] && strcmp(type, "tracefs") == 0)
            strcpy(tracefs, mnt);
        else if (!debugfs[0] && strcmp(type, "debugfs") == 0)
            strcpy(debugfs, mnt);
    }
    fclose(f);
    if (tracefs[0])
        return open_under(tracefs, "");
    if (debugfs[0])
        return open_under(debugfs, "/tracing");
    return -ENOTSUP;
}

static int ue_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    char cmd[EH_NAME_MAX + sizeof(" " EH_COMMAND_FIELDS)];
    memcpy(cmd, name, name_len);
    memcpy(cmd + name_len, " " EH_COMMAND_FIELDS, sizeof(" " EH_COMMAND_FIELDS));
    struct eh_user_reg reg = {
        .size = sizeof reg,
        .enable_bit = 0,
        .enable_size = sizeof tp->status,
        .flags = 0,
        .enable_addr = (uint64_t)(uintptr_t)&tp->status,
        .name_args = (uint64_t)(uintptr_t)cmd,
    };
    if (ioctl(g_fd, EH_DIAG_IOCSREG, &reg) < 0) {
        int err = errno;
        __atomic_store_n(&tp->status, 0, __ATOMIC_RELAXED);
        return err;
    }
    __atomic_store_n(&tp->write_index, (int32_t)reg.write_index, __ATOMIC_RELAXED);
    return 0;
}

static void ue_disconnect(eh_tracepoint *tp)
{
    struct eh_user_unreg unreg = {
        .size = sizeof unreg,
        .disable_bit = 0,
        .disable_addr = (uint64_t)(uintptr_t)&tp->status,
    };
    (void)ioctl(g_fd, EH_DIAG_IOCSUNREG, &unreg); /* also clears the bit */
    __atomic_store_n(&tp->write_index, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->status, 0, __ATOMIC_RELAXED);
}

static int ue_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len,
                    const struct eh_tl_hints *hints)
{
    (void)hints; /* EventHeader carries no TraceLogging hints */
    (void)event_len;
    int32_t index = __atomic_load_n(&tp->write_index, __ATOMIC_RELAXED);
    if (index < 0)
        return EBADF;
    iov[1].iov_base = &index;
    iov[1].iov_len = sizeof index;
    return writev(g_fd, iov + 1, iovcnt - 1) < 0 ? errno : 0;
}

static const struct eh_backend user_events_backend = {
    .name = "user_events",
    .connect = ue_connect,
    .disconnect = ue_disconnect,
    .write = ue_write,
    .writev_fd = &g_fd,
};

int eh_backend_user_events_open(const struct eh_backend **out)
{
    int fd = eh_user_events_open_data();
    if (fd < 0)
        return -fd;
    g_fd = fd;
    *out = &user_events_backend;
    return 0;
}
