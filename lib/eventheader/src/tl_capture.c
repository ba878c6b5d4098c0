/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging capture (.tlcap, format in tracelogging_wire.h):
 *  - eh_tl_record_encode(): one record, used here and by tools/windows/etwcapture.c;
 *  - the "tlcapture" backend: EHCONF_CAPTURE_TL=file enables every event and appends
 *    each write, translated to TraceLogging exactly as the ETW backend hands it to
 *    EventWriteTransfer, as one record (one write to an append-only file, so threads and
 *    child processes interleave whole records). ehdecode turns the file into the same
 *    JSON as the EventHeader capture: an offline check of the Windows encoding, on Linux
 *    and, built with mingw-w64, of the Windows build itself (under wine or Windows).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_encode.h"

static void st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void st32(uint8_t *p, uint32_t v)
{
    st16(p, (uint16_t)v);
    st16(p + 2, (uint16_t)(v >> 16));
}

size_t eh_tl_record_encode(uint8_t *buf, const uint8_t provider_guid[16], uint64_t keyword,
                           uint8_t channel, const uint8_t *provider_meta, size_t provider_meta_len,
                           const struct eh_tl_event *ev)
{
    if (provider_meta_len > 0xFFFF || ev->meta_len > 0xFFFF || ev->data.len > 0xFFFFFFF0u)
        return 0;
    size_t size = TL_CAP_FIXED + provider_meta_len + ev->meta_len + ev->data.len;
    if (size > 0xFFFFFFFFu)
        return 0;
    if (!buf)
        return size;
    uint8_t *p = buf;
    st32(p, (uint32_t)size);
    p[4] = ev->level;
    p[5] = ev->opcode;
    p[6] = ev->version;
    p[7] = channel;
    st16(p + 8, ev->id);
    st16(p + 10, 0); /* task */
    st32(p + 12, (uint32_t)keyword);
    st32(p + 16, (uint32_t)(keyword >> 32));
    memcpy(p + 20, provider_guid, 16);
    p[36] = (uint8_t)((ev->activity ? 1 : 0) | (ev->related ? 2 : 0));
    p[37] = p[38] = p[39] = 0;
    memset(p + 40, 0, 32);
    if (ev->activity)
        memcpy(p + 40, ev->activity, 16);
    if (ev->related)
        memcpy(p + 56, ev->related, 16);
    st16(p + 72, (uint16_t)provider_meta_len);
    st16(p + 74, (uint16_t)ev->meta_len);
    st32(p + 76, (uint32_t)ev->data.len);
    p += TL_CAP_FIXED;
    memcpy(p, provider_meta, provider_meta_len);
    p += provider_meta_len;
    memcpy(p, ev->meta, ev->meta_len);
    p += ev->meta_len;
    if (ev->data.len)
        memcpy(p, ev->data.p, ev->data.len);
    return size;
}

#include "eh_internal.h"

/* The append-only file: one whole record per call, or an error. */
#ifdef _WIN32

#include <windows.h>

typedef HANDLE tl_file;
#define TL_FILE_NONE NULL

static int tl_errno(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION: return EACCES;
    case ERROR_DISK_FULL: return ENOSPC;
    default: return EIO;
    }
}

static int tl_file_open(const char *path, tl_file *out, uint64_t *size)
{
    HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    LARGE_INTEGER sz;
    if (h == INVALID_HANDLE_VALUE)
        return tl_errno(GetLastError());
    if (!GetFileSizeEx(h, &sz)) {
        int err = tl_errno(GetLastError());
        CloseHandle(h);
        return err;
    }
    *out = h;
    *size = (uint64_t)sz.QuadPart;
    return 0;
}

/*
 * Appends as one piece under two locks: an SRW lock for this process's threads and a
 * byte-range lock far past any record for other processes (a case_fork() child). An
 * append-only handle (FILE_APPEND_DATA) would be enough on NTFS, but wine 8 interleaves
 * concurrent appends through one such handle (seen here: 8 threads tore records), and
 * the locks hold on both.
 */
static SRWLOCK g_tl_lock = SRWLOCK_INIT;

static int tl_file_append(tl_file f, const void *p, size_t n)
{
    OVERLAPPED range = {.Offset = 0, .OffsetHigh = 0x7FFFFFFF}, at = {0};
    LARGE_INTEGER end;
    DWORD done = 0;
    int err = 0;
    if (n > 0xFFFFFFFFu)
        return E2BIG;
    AcquireSRWLockExclusive(&g_tl_lock);
    if (!LockFileEx(f, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &range)) {
        err = tl_errno(GetLastError());
        goto out;
    }
    if (!GetFileSizeEx(f, &end)) {
        err = tl_errno(GetLastError());
    } else {
        at.Offset = (DWORD)end.QuadPart;
        at.OffsetHigh = (DWORD)((uint64_t)end.QuadPart >> 32);
        if (!WriteFile(f, p, (DWORD)n, &done, &at))
            err = tl_errno(GetLastError());
        else if (done != n)
            err = EIO; /* a short append corrupts the file */
    }
    UnlockFileEx(f, 0, 1, 0, &range);
out:
    ReleaseSRWLockExclusive(&g_tl_lock);
    return err;
}

static void tl_file_close(tl_file f)
{
    CloseHandle(f);
}

#else

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int tl_file;
#define TL_FILE_NONE (-1)

static int tl_file_open(const char *path, tl_file *out, uint64_t *size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    struct stat st;
    if (fd < 0)
        return errno;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return err;
    }
    *out = fd;
    *size = (uint64_t)st.st_size;
    return 0;
}

static int tl_file_append(tl_file f, const void *p, size_t n)
{
    ssize_t done = write(f, p, n);
    if (done < 0)
        return errno;
    return (size_t)done == n ? 0 : EIO; /* a short append corrupts the file */
}

static void tl_file_close(tl_file f)
{
    close(f);
}

#endif

static tl_file g_tl_file = TL_FILE_NONE;

static int tlc_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    const struct eh_tl_provider *prov;
    uint8_t level;
    uint64_t keyword;
    int err = eh_tl_provider_of_tp(name, name_len, &prov, &level, &keyword);
    if (err)
        return err;
    eh_tp_set_always_enabled(tp);
    return 0;
}

static void tlc_disconnect(eh_tracepoint *tp)
{
    eh_tp_set_disconnected(tp);
}

/* Buffers are per write (freed before returning): no per-thread state that a thread's
 * exit would leak, and a forked child starts clean. */
static int tlc_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len,
                     const struct eh_tl_hints *hints)
{
    const struct eh_tl_provider *prov;
    uint8_t level;
    uint64_t keyword;
    int err = eh_tl_provider_of_tp(tp->name_, strlen(tp->name_), &prov, &level, &keyword);
    if (err)
        return err;
    struct eh_buf_ flat = {0}, record = {0};
    struct eh_tl_event ev = {0};
    err = eh_tl_from_write(&flat, &ev, iov, iovcnt, event_len, prov->meta_len, hints);
    size_t size = 0;
    if (!err) {
        size = eh_tl_record_encode(NULL, prov->guid, keyword, TL_CHANNEL, prov->meta,
                                   prov->meta_len, &ev);
        err = size ? 0 : E2BIG;
    }
    if (!err && !(record.p = malloc(size)))
        err = ENOMEM;
    if (!err) {
        eh_tl_record_encode(record.p, prov->guid, keyword, TL_CHANNEL, prov->meta, prov->meta_len,
                            &ev);
        err = tl_file_append(g_tl_file, record.p, size);
    }
    eh_buf_free(&flat);
    eh_buf_free(&record);
    eh_tl_event_release(&ev);
    return err;
}

static const struct eh_backend tlcapture_backend = {
    .name = "tlcapture",
    .connect = tlc_connect,
    .disconnect = tlc_disconnect,
    .write = tlc_write,
};

int eh_backend_tlcapture_open(const char *path, const struct eh_backend **out)
{
    tl_file f = TL_FILE_NONE;
    uint64_t size = 0;
    int err = tl_file_open(path, &f, &size);
    if (err)
        return err;
    if (size == 0 && (err = tl_file_append(f, TL_CAP_MAGIC, TL_CAP_MAGIC_SIZE)) != 0) {
        tl_file_close(f);
        return err;
    }
    g_tl_file = f;
    *out = &tlcapture_backend;
    return 0;
}
