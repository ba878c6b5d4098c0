/* SPDX-License-Identifier: MIT */
/*
 * Backend: ETW (Windows), events written as TraceLogging.
 *
 * One ETW registration per provider (EventRegister with the name-hash GUID of
 * tl_guid.c, then EventSetInformation(EventProviderSetTraits) with the provider
 * metadata). Every tracepoint "<provider>_L<level>K<keyword>[G<group>]" of the
 * library is one slot here: tp->write_index is the slot number, and tp->status is the
 * same inline enable word the Linux kernel flips: the provider's enable callback sets it
 * to EventProviderEnabled(handle, level, keyword) for every slot of the provider.
 * A write translates the EventHeader event (tl_encode.c) and calls EventWriteTransfer
 * with data[0] = provider metadata (Reserved = 2), data[1] = event metadata
 * (Reserved = 1), data[2] = payload; Channel 11, Id/Version = the event's id/version,
 * Keyword = the tracepoint's keyword, activity/related ids passed as GUIDs (raw bytes).
 *
 * EHCONF_ETW_ALWAYS_ENABLED=1 marks every tracepoint enabled regardless of sessions,
 * so the write path runs without a listener (wine's ETW is a stub that never enables).
 *
 * The whole file is Windows-only; elsewhere it compiles to one typedef (ISO C forbids
 * an empty translation unit).
 */
#ifdef _WIN32

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <evntprov.h>

#include "eh_internal.h"
#include "tl_encode.h"

#ifndef ERROR_ARITHMETIC_OVERFLOW
#define ERROR_ARITHMETIC_OVERFLOW 534L
#endif
/* mingw-w64 10's EVENT_INFO_CLASS lacks EventProviderSetTraits (2). */
#define EHCONF_EVENT_PROVIDER_SET_TRAITS ((EVENT_INFO_CLASS)2)

struct etw_prov {
    struct etw_prov *next;
    const struct eh_tl_provider *tl;
    REGHANDLE handle;
    int registered;
    unsigned users;     /* connected slots */
    int32_t first_slot; /* list of this provider's slots, -1 terminated */
};

struct etw_slot {
    eh_tracepoint *tp; /* NULL when free */
    struct etw_prov *prov;
    uint64_t keyword;
    uint8_t level;
    int32_t next_slot;
};

/* Slots live in chunks that are never freed, so writers read them without a lock. */
#define SLOT_CHUNK  256
#define SLOT_CHUNKS 256
static struct etw_slot *g_chunks[SLOT_CHUNKS];
static int32_t g_slots_used;
static SRWLOCK g_lock = SRWLOCK_INIT;
static struct etw_prov *g_provs;
static int g_always_enabled;

static struct etw_slot *slot_at(int32_t i)
{
    return &g_chunks[i / SLOT_CHUNK][i % SLOT_CHUNK];
}

/* Under g_lock: sets the enable word of every slot of the provider. */
static void refresh_provider(struct etw_prov *p)
{
    for (int32_t i = p->first_slot; i >= 0; i = slot_at(i)->next_slot) {
        struct etw_slot *s = slot_at(i);
        if (!s->tp)
            continue;
        uint32_t on = g_always_enabled ||
                      (p->registered && EventProviderEnabled(p->handle, s->level, s->keyword));
        __atomic_store_n(&s->tp->status, on, __ATOMIC_RELAXED);
    }
}

static VOID NTAPI enable_callback(LPCGUID source, ULONG is_enabled, UCHAR level, ULONGLONG any,
                                  ULONGLONG all, PEVENT_FILTER_DESCRIPTOR filter, PVOID context)
{
    (void)source;
    (void)is_enabled;
    (void)level;
    (void)any;
    (void)all;
    (void)filter;
    AcquireSRWLockExclusive(&g_lock);
    refresh_provider(context);
    ReleaseSRWLockExclusive(&g_lock);
}

static int win32_to_errno(ULONG status)
{
    switch (status) {
    case ERROR_SUCCESS: return 0;
    case ERROR_ARITHMETIC_OVERFLOW:
    case ERROR_MORE_DATA: return E2BIG;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
    case ERROR_NO_SYSTEM_RESOURCES: return ENOMEM;
    case ERROR_INVALID_PARAMETER: return EINVAL;
    case ERROR_ACCESS_DENIED: return EACCES;
    default: return EIO;
    }
}

/* Finds or (re-)registers the ETW provider (called under the library's registration
 * lock, NOT under g_lock: EventRegister may call enable_callback synchronously). A
 * provider struct is kept after EventUnregister and registered again on reuse, so its
 * slots are reused too. */
static int provider_for(const struct eh_tl_provider *tl, struct etw_prov **out)
{
    struct etw_prov *p;
    for (p = g_provs; p; p = p->next)
        if (p->tl == tl)
            break;
    if (p && p->registered) {
        *out = p;
        return 0;
    }
    int fresh = !p;
    if (fresh) {
        p = calloc(1, sizeof *p); /* never freed: callbacks may hold it */
        if (!p)
            return ENOMEM;
        p->tl = tl;
        p->first_slot = -1;
    }
    GUID guid;
    memcpy(&guid, tl->guid, 16);
    REGHANDLE h = 0;
    ULONG st = EventRegister(&guid, enable_callback, p, &h);
    if (st != ERROR_SUCCESS) {
        if (fresh)
            free(p);
        return win32_to_errno(st);
    }
    /* Traits failure is not fatal (older systems); the metadata also rides in data[0]. */
    (void)EventSetInformation(h, EHCONF_EVENT_PROVIDER_SET_TRAITS, (PVOID)tl->meta,
                              (ULONG)tl->meta_len);
    AcquireSRWLockExclusive(&g_lock);
    p->handle = h;
    p->registered = 1;
    if (fresh) {
        p->next = g_provs;
        g_provs = p;
    }
    ReleaseSRWLockExclusive(&g_lock);
    *out = p;
    return 0;
}

static int etw_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    const struct eh_tl_provider *tl;
    uint8_t level;
    uint64_t keyword;
    int err = eh_tl_provider_of_tp(name, name_len, &tl, &level, &keyword);
    if (err)
        return err;
    struct etw_prov *p = NULL;
    err = provider_for(tl, &p);
    if (err)
        return err;
    AcquireSRWLockExclusive(&g_lock);
    int32_t slot = -1;
    for (int32_t i = p->first_slot; i >= 0; i = slot_at(i)->next_slot)
        if (!slot_at(i)->tp) {
            slot = i;
            break;
        }
    if (slot < 0) {
        int32_t used = g_slots_used;
        if (used == SLOT_CHUNK * SLOT_CHUNKS) {
            ReleaseSRWLockExclusive(&g_lock);
            return ENOSPC;
        }
        int32_t c = used / SLOT_CHUNK;
        if (!g_chunks[c] && !(g_chunks[c] = calloc(SLOT_CHUNK, sizeof(struct etw_slot)))) {
            ReleaseSRWLockExclusive(&g_lock);
            return ENOMEM;
        }
        slot = used;
        slot_at(slot)->next_slot = p->first_slot;
        p->first_slot = slot;
        __atomic_store_n(&g_slots_used, used + 1, __ATOMIC_RELEASE);
    }
    struct etw_slot *s = slot_at(slot);
    s->prov = p;
    s->level = level;
    s->keyword = keyword;
    s->tp = tp;
    p->users++;
    __atomic_store_n(&tp->write_index, slot, __ATOMIC_RELAXED);
    refresh_provider(p);
    ReleaseSRWLockExclusive(&g_lock);
    return 0;
}

static void etw_disconnect(eh_tracepoint *tp)
{
    int32_t slot = __atomic_load_n(&tp->write_index, __ATOMIC_RELAXED);
    eh_tp_set_disconnected(tp);
    if (slot < 0 || slot >= g_slots_used)
        return;
    REGHANDLE to_close = 0;
    AcquireSRWLockExclusive(&g_lock);
    struct etw_slot *s = slot_at(slot);
    struct etw_prov *p = s->prov;
    s->tp = NULL;
    if (p && --p->users == 0 && p->registered) {
        p->registered = 0; /* the next connect registers the provider again */
        to_close = p->handle;
    }
    ReleaseSRWLockExclusive(&g_lock);
    if (to_close)
        EventUnregister(to_close); /* outside g_lock: it waits for running callbacks */
}

/* The flattened EventHeader event and its translation live for one write (no
 * per-thread buffers that a thread's exit would leak inside the host process). */
static int etw_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t event_len,
                     const struct eh_tl_hints *hints)
{
    int32_t slot = __atomic_load_n(&tp->write_index, __ATOMIC_RELAXED);
    if (slot < 0 || slot >= __atomic_load_n(&g_slots_used, __ATOMIC_ACQUIRE))
        return EBADF;
    struct etw_slot *s = slot_at(slot);
    struct etw_prov *p = s->prov;
    struct {
        struct eh_buf_ flat;
        struct eh_tl_event ev;
    } scratch, *sc = &scratch;
    memset(sc, 0, sizeof *sc);
    int err = eh_tl_from_write(&sc->flat, &sc->ev, iov, iovcnt, event_len, p->tl->meta_len, hints);
    if (err) {
        eh_buf_free(&sc->flat);
        eh_tl_event_release(&sc->ev);
        return err;
    }
    EVENT_DESCRIPTOR desc;
    memset(&desc, 0, sizeof desc);
    desc.Id = sc->ev.id;
    desc.Version = sc->ev.version;
    desc.Channel = TL_CHANNEL;
    desc.Level = sc->ev.level;
    desc.Opcode = sc->ev.opcode;
    desc.Keyword = s->keyword;
    EVENT_DATA_DESCRIPTOR data[3];
    memset(data, 0, sizeof data);
    data[0].Ptr = (ULONGLONG)(ULONG_PTR)p->tl->meta;
    data[0].Size = (ULONG)p->tl->meta_len;
    data[0].Reserved = TL_DESC_TYPE_PROVIDER_META;
    data[1].Ptr = (ULONGLONG)(ULONG_PTR)sc->ev.meta;
    data[1].Size = (ULONG)sc->ev.meta_len;
    data[1].Reserved = TL_DESC_TYPE_EVENT_META;
    ULONG count = 2;
    if (sc->ev.data.len) {
        data[2].Ptr = (ULONGLONG)(ULONG_PTR)sc->ev.data.p;
        data[2].Size = (ULONG)sc->ev.data.len;
        count = 3;
    }
    GUID act, rel;
    if (sc->ev.activity)
        memcpy(&act, sc->ev.activity, 16);
    if (sc->ev.related)
        memcpy(&rel, sc->ev.related, 16);
    ULONG st = EventWriteTransfer(p->handle, &desc, sc->ev.activity ? &act : NULL,
                                  sc->ev.related ? &rel : NULL, count, data);
    eh_buf_free(&sc->flat);
    eh_tl_event_release(&sc->ev);
    return win32_to_errno(st);
}

static const struct eh_backend etw_backend = {
    .name = "etw",
    .connect = etw_connect,
    .disconnect = etw_disconnect,
    .write = etw_write,
};

int eh_backend_etw_open(const struct eh_backend **out)
{
    const char *v = getenv("EHCONF_ETW_ALWAYS_ENABLED");
    g_always_enabled = v && v[0] == '1';
    *out = &etw_backend;
    return 0;
}

#else /* !_WIN32 */

/* ISO C forbids an empty translation unit. */
typedef int eh_backend_etw_not_windows_;

#endif /* _WIN32 */
