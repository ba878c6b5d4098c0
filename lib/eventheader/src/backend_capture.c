/* SPDX-License-Identifier: MIT */
/*
 * Backend: capture file (.dat), for offline runs. Every connected event is
 * enabled; each write appends one record with a single writev on an O_APPEND fd
 * (so threads and forked children interleave whole records):
 *   u32 record_size (LE, includes itself) | tracepoint name | NUL | event bytes
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eh_internal.h"

static int g_fd = -1;

static int cap_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    (void)name;
    (void)name_len;
    eh_tp_set_always_enabled(tp);
    return 0;
}

static void cap_disconnect(eh_tracepoint *tp)
{
    eh_tp_set_disconnected(tp);
}

static int cap_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len,
                     const struct eh_tl_hints *hints)
{
    (void)hints; /* EventHeader carries no TraceLogging hints */
    size_t name_size = strlen(tp->name_) + 1;
    uint32_t size = (uint32_t)(4 + name_size + event_len);
    uint8_t le[4] = {(uint8_t)size, (uint8_t)(size >> 8), (uint8_t)(size >> 16),
                     (uint8_t)(size >> 24)};
    iov[0].iov_base = le;
    iov[0].iov_len = 4;
    iov[1].iov_base = tp->name_;
    iov[1].iov_len = name_size;
    ssize_t n = writev(g_fd, iov, iovcnt);
    if (n < 0)
        return errno;
    return (size_t)n == size ? 0 : EIO; /* a short append would corrupt the file */
}

static const struct eh_backend capture_backend = {
    .name = "capture",
    .connect = cap_connect,
    .disconnect = cap_disconnect,
    .write = cap_write,
};

int eh_backend_capture_open(const char *path, const struct eh_backend **out)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    g_fd = fd;
    *out = &capture_backend;
    return 0;
}
