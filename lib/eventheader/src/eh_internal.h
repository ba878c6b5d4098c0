/* SPDX-License-Identifier: MIT */
/*
 * Internal interfaces of libeventheader: the byte buffer, the metadata emitter
 * and event writer shared by the static API and the dynamic builder, and the
 * backend interface (one backend per file: backend_user_events.c,
 * backend_capture.c; an ETW backend can be added beside them).
 */
#ifndef EH_INTERNAL_H
#define EH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* eh_copy_small */
#include <sys/uio.h>

#include "eh_buf.h" /* the growable buffer */
#include "eventheader.h"

/* Appends one field definition to a metadata buffer: name\0, encoding
 * [, format [, tag]] [, carray count]. The chain bits are derived here: a format
 * byte is written when format or tag is non-zero (or force_format, for structs),
 * a tag when tag is non-zero; the carray count when encoding has the carray flag.
 * Returns the offset of the format byte (so a struct's member count can be patched
 * in later), or 0 if none was written. */
size_t eh_meta_field(struct eh_buf_ *m, const char *name, uint8_t encoding, uint8_t format,
                     uint16_t tag, uint16_t carray, int force_format);

/* Starts a metadata extension: {u16 size, u16 kind=metadata} + event name + NUL.
 * eh_meta_finish() fills in the size (E2BIG if it does not fit a u16). */
void eh_meta_start(struct eh_buf_ *m, const char *event_name);
int eh_meta_finish(struct eh_buf_ *m);

/* Iovec slots before the header that every write leaves to the backend. */
enum { EH_IOV_BACKEND = 2, EH_IOV_HEADER = 2, EH_IOV_META = 3, EH_IOV_PAYLOAD = 4 };

/* The TraceLogging type hints of an event (eh_item.tl_hint_, Documentation/tracelogging.md
 * §5): one byte per field definition of its metadata, in metadata order, n of them.
 * Passed beside the event bytes because EventHeader has no place for them; only the
 * TraceLogging backends read them. NULL when the event has none. */
struct eh_tl_hints {
    const uint8_t *p;
    size_t n;
};

/* The 8 bytes of an event's header without an activity extension (struct eh_wire_header in
 * this host's order, the extension flag set: a metadata extension always follows). */
enum { EH_HEADER_SIZE = 8 };
void eh_header_bytes(uint8_t out[EH_HEADER_SIZE], uint8_t level, uint8_t opcode, uint16_t tag,
                     uint16_t id, uint8_t version);

/* Writes one event: fills iov[EH_IOV_HEADER] (header + activity extension) and
 * iov[EH_IOV_META] (meta, meta_len bytes, the whole metadata extension); the
 * payload is iov[EH_IOV_PAYLOAD .. iovcnt) totalling payload_len bytes.
 * Returns 0, EBADF (not connected), EINVAL (related id without activity id),
 * E2BIG (more than 65535 bytes after the write index) or the backend errno. */
int eh_write_event(eh_tracepoint *tp, uint8_t level, uint8_t opcode, uint16_t tag, uint16_t id,
                   uint8_t version, const uint8_t *activity, const uint8_t *related,
                   const uint8_t *meta, size_t meta_len, struct iovec *iov, int iovcnt,
                   size_t payload_len, const struct eh_tl_hints *hints);

/* ---- backends ---- */
struct eh_backend {
    const char *name;
    /* Registers tp under name (NUL-terminated, name_len bytes without NUL); on
     * success sets tp->write_index and lets tp->status follow the listeners. */
    int (*connect)(eh_tracepoint *tp, const char *name, size_t name_len);
    /* Unregisters tp; afterwards status is 0 and write_index -1. */
    void (*disconnect)(eh_tracepoint *tp);
    /* iov[0..EH_IOV_BACKEND) are free for the backend's own prefix; the event
     * bytes (header onwards) are iov[EH_IOV_BACKEND .. iovcnt), event_len bytes; hints
     * (NULL or the event's TraceLogging type hints) matter to the TraceLogging backends only. */
    int (*write)(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len,
                 const struct eh_tl_hints *hints);
    /* NULL, or the file whose write is nothing but writev of the tracepoint's write index
     * (int32) and the event bytes (user_events): EH_WRITE's fast path then writes itself,
     * the index in front of the site's header (event_static.c). */
    const int *writev_fd;
};

/* Each returns 0 and sets *out, or an errno. Called once, under the registration lock.
 * A capture backend opens the file its variable names: one declaration per capture row
 * of the transport registry (backend_capture.c: .dat; tl_capture.c: .tlcap, the
 * TraceLogging encoder of internal/tl_encode.h; a backend a system cannot have gets an
 * ENOTSUP stub there, see tl_win_backends.c). */
#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    int eh_backend_##backend##_open(const char *path, const struct eh_backend **out);
#include "eh_transports.def"
/* The platform's default backends: user_events on Linux; backend_etw.c (_WIN32): ETW via
 * EventRegister / EventWriteTransfer. */
int eh_backend_user_events_open(const struct eh_backend **out);
int eh_backend_etw_open(const struct eh_backend **out);

/* A tracepoint's connection state as every backend sets it: the file backends
 * (capture, tlcapture) enable each event at once with write index 0; every disconnect
 * ends disabled with no index. */
static inline void eh_tp_set_always_enabled(eh_tracepoint *tp)
{
    __atomic_store_n(&tp->write_index, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->status, 1, __ATOMIC_RELAXED);
}
static inline void eh_tp_set_disconnected(eh_tracepoint *tp)
{
    __atomic_store_n(&tp->status, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->write_index, -1, __ATOMIC_RELAXED);
}

/* tl_encode.c, for the TraceLogging backends (tlcapture, etw): joins the event bytes
 * of a write (iov[EH_IOV_BACKEND .. iovcnt), event_len bytes) into flat, translates
 * them into ev and checks EH_TL_EVENT_MAX with the provider's metadata. flat and ev are
 * the caller's, to release whatever the result. Returns 0 or an errno (E2BIG: over
 * the limit). */
struct eh_tl_event;
int eh_tl_from_write(struct eh_buf_ *flat, struct eh_tl_event *ev, const struct iovec *iov,
                     int iovcnt, size_t event_len, size_t provider_meta_len,
                     const struct eh_tl_hints *hints);

/* The backend chosen at the first register (NULL before, or when none could be opened).
 * Inline: every write asks (provider.c publishes it). */
extern const struct eh_backend *eh_backend_g_;
static inline const struct eh_backend *eh_backend_current(void)
{
    return __atomic_load_n(&eh_backend_g_, __ATOMIC_ACQUIRE);
}

/* The registration lock: guards providers, tracepoint connection and metadata builds. */
void eh_lock(void);
void eh_unlock(void);

/* memcpy of 0 to 16 bytes as at most two fixed-size copies (overlapping when n is not a
 * power of two), which the compiler turns into loads and stores: a call to libc's memcpy
 * for a field of a few bytes was a tenth of a static event's instructions (make
 * bench-impls' profile, Documentation/performance.md). The builder and the static path
 * both copy their small values with it. */
static inline void eh_copy_small(uint8_t *d, const uint8_t *src, size_t n)
{
    if (n >= 8) {
        memcpy(d, src, 8);
        memcpy(d + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, src, 4);
        memcpy(d + n - 4, src + n - 4, 4);
    } else if (n >= 2) {
        memcpy(d, src, 2);
        memcpy(d + n - 2, src + n - 2, 2);
    } else if (n) {
        *d = *src;
    }
}

#endif /* EH_INTERNAL_H */
