/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging capture (.tlcap, format in lib/decode/include/ehd_tl.h):
 *  - eh_tl_record_encode(): one record, used here and by tools/windows/etwcapture.c;
 *  - on POSIX systems, the "tlcapture" backend: EHCONF_CAPTURE_TL=file enables every
 *    event and appends each write, translated to TraceLogging exactly as the ETW backend
 *    hands it to EventWriteTransfer, as one record (one write() on an O_APPEND fd, so
 *    threads and forked children interleave whole records). ehdecode turns the file into
 *    the same JSON as the EventHeader capture: an offline check of the Windows encoding.
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
    size_t size = EHD_TLCAP_FIXED + provider_meta_len + ev->meta_len + ev->data.len;
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
    p += EHD_TLCAP_FIXED;
    memcpy(p, provider_meta, provider_meta_len);
    p += provider_meta_len;
    memcpy(p, ev->meta, ev->meta_len);
    p += ev->meta_len;
    if (ev->data.len)
        memcpy(p, ev->data.p, ev->data.len);
    return size;
}

#ifndef _WIN32

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eh_internal.h"

static int g_tl_fd = -1;

static int tlc_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    const struct eh_tl_provider *prov;
    uint8_t level;
    uint64_t keyword;
    int err = eh_tl_provider_of_tp(name, name_len, &prov, &level, &keyword);
    if (err)
        return err;
    __atomic_store_n(&tp->write_index, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->status, 1, __ATOMIC_RELAXED);
    return 0;
}

static void tlc_disconnect(eh_tracepoint *tp)
{
    __atomic_store_n(&tp->status, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->write_index, -1, __ATOMIC_RELAXED);
}

/* Buffers are per write (freed before returning): no per-thread state that a thread's
 * exit would leak, and a forked child starts clean. */
static int tlc_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len)
{
    const struct eh_tl_provider *prov;
    uint8_t level;
    uint64_t keyword;
    int err = eh_tl_provider_of_tp(tp->name_, strlen(tp->name_), &prov, &level, &keyword);
    if (err)
        return err;
    struct tl_buf flat = { 0 }, record = { 0 };
    struct eh_tl_event ev = { 0 };
    for (int i = EH_IOV_BACKEND; i < iovcnt; i++)
        tl_buf_put(&flat, iov[i].iov_base, iov[i].iov_len);
    err = flat.err ? flat.err : flat.len != event_len ? EINVAL : 0;
    if (!err)
        err = eh_tl_from_eventheader(&ev, flat.p, flat.len);
    size_t size = 0;
    if (!err) {
        size = eh_tl_record_encode(NULL, prov->guid, keyword, TL_CHANNEL, prov->meta,
                                   prov->meta_len, &ev);
        err = size ? 0 : E2BIG;
    }
    if (!err && !(record.p = malloc(size)))
        err = ENOMEM;
    if (!err) {
        eh_tl_record_encode(record.p, prov->guid, keyword, TL_CHANNEL, prov->meta,
                            prov->meta_len, &ev);
        ssize_t n = write(g_tl_fd, record.p, size);
        err = n < 0 ? errno : (size_t)n == size ? 0 : EIO; /* short append corrupts */
    }
    tl_buf_free(&flat);
    tl_buf_free(&record);
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
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return err;
    }
    if (st.st_size == 0 &&
        write(fd, EHD_TLCAP_MAGIC, EHD_TLCAP_MAGIC_SIZE) != EHD_TLCAP_MAGIC_SIZE) {
        int err = errno ? errno : EIO;
        close(fd);
        return err;
    }
    g_tl_fd = fd;
    *out = &tlcapture_backend;
    return 0;
}

#endif /* !_WIN32 */
