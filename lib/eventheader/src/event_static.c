/* SPDX-License-Identifier: MIT */
/*
 * EH_WRITE: metadata is built once per call site from the item list (names,
 * encodings, formats, tags and array lengths are constants of the site); each
 * write then gathers the payload as iovec pieces pointing at the caller's values
 * (values of up to 16 bytes and the u16 count prefixes are copied into a small
 * stage buffer so that neighbours share one iovec).
 * An event with too many pieces for the fast path is linearized into a buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_internal.h"

/* eh_item.tl_hint_ took a byte of tail padding: programs built against an older
 * eventheader.h pass items of the same size and layout. */
_Static_assert(sizeof(void *) != 8 || sizeof(eh_item) == 40, "eh_item changed size");

/* ---- metadata (once per site) ---- */

/* One open struct while the member counts are worked out. A raw struct
 * (EH_RAW_STRUCT) declares its member count; an EH_STRUCT counts until its end. */
struct frame {
    size_t fmt_pos; /* format byte of an auto-counted struct */
    unsigned count; /* members so far (auto) or still expected (raw) */
    uint8_t raw;
    uint8_t sarray; /* EH_STRUCT_ARRAY: only EH_MEMBER_* items inside */
};

struct frames {
    struct frame *f;
    unsigned depth, cap;
};

static int frames_push(struct frames *fs, struct frame fr)
{
    if (fs->depth == fs->cap) {
        unsigned cap = fs->cap ? fs->cap * 2 : 16;
        struct frame *f = realloc(fs->f, cap * sizeof *f);
        if (!f)
            return ENOMEM;
        fs->f = f;
        fs->cap = cap;
    }
    fs->f[fs->depth++] = fr;
    return 0;
}

/* A logical field is complete: credit it to the innermost struct. A raw struct
 * that has received all its members is itself complete, one level up. */
static void field_done(struct frames *fs)
{
    while (fs->depth) {
        struct frame *top = &fs->f[fs->depth - 1];
        if (!top->raw) {
            top->count++;
            return;
        }
        if (--top->count)
            return;
        fs->depth--;
    }
}

static uint8_t item_format(const eh_item *it)
{
    return it->format_override ? (uint8_t)(it->format_override & EH_FMT_VALUE_MASK) : it->format;
}

static int struct_end(struct frames *fs, struct eh_buf_ *m, int sarray)
{
    if (!fs->depth || fs->f[fs->depth - 1].raw || fs->f[fs->depth - 1].sarray != sarray)
        return EINVAL; /* unbalanced, or ended inside a raw struct still owed members */
    struct frame *top = &fs->f[fs->depth - 1];
    if (top->count < 1 || top->count > EH_STRUCT_FIELDS_MAX)
        return EINVAL;
    if (!m->err)
        m->p[top->fmt_pos] = (uint8_t)((m->p[top->fmt_pos] & EH_FMT_CHAIN_FLAG) | top->count);
    fs->depth--;
    field_done(fs);
    return 0;
}

/* The TraceLogging hints of the site (struct eh_tl_hints): one byte per field definition,
 * stored after the metadata extension in the same block as u16 count + bytes, count 0
 * when no item has a hint (the common case, which costs the TraceLogging backends
 * nothing). */
static void put_hints(struct eh_buf_ *m, const struct eh_buf_ *hints, int any)
{
    size_t n = any ? hints->len : 0;
    eh_buf_u16le(m, (uint16_t)n);
    eh_buf_put(m, hints->p, n);
}

static int build_meta(const eh_event *ev, const eh_item *items, unsigned n, struct eh_buf_ *m,
                      size_t *meta_len)
{
    struct frames fs = {0};
    struct eh_buf_ hints = {0};
    int any_hint = 0;
    int err = 0;
    const char *name = ev->attrs.name;
    if (!name || !name[0])
        return EINVAL;
    eh_meta_start(m, name);
    for (unsigned i = 0; i < n && !err; i++) {
        const eh_item *it = &items[i];
        int in_sarray = fs.depth && fs.f[fs.depth - 1].sarray;
        if (in_sarray != (it->kind == EH_ITEM_MEMBER_ || it->kind == EH_ITEM_SARRAY_END_)) {
            err = EINVAL; /* members only (and all of them) inside EH_STRUCT_ARRAY */
            break;
        }
        switch (it->kind) {
        case EH_ITEM_NONE_:
        case EH_ITEM_RAW_DATA_:
        case EH_ITEM_ACTIVITY_ID_:
        case EH_ITEM_RELATED_ID_: break;
        case EH_ITEM_VALUE_:
        case EH_ITEM_CARRAY_:
        case EH_ITEM_VARRAY_:
        case EH_ITEM_COUNTED_:
        case EH_ITEM_ZSTRING_:
        case EH_ITEM_MEMBER_:
        case EH_ITEM_RAW_FIELD_:
        case EH_ITEM_RAW_META_:
            if (!it->name) {
                err = EINVAL;
                break;
            }
            eh_meta_field(m, it->name, it->encoding, item_format(it), it->tag, it->carray, 0);
            eh_buf_u8(&hints, it->tl_hint_ < EH_TL_HINT_MAX_ ? it->tl_hint_ : 0);
            any_hint |= it->tl_hint_ != 0;
            field_done(&fs);
            break;
        case EH_ITEM_STRUCT_BEGIN_:
        case EH_ITEM_SARRAY_BEGIN_: {
            if (!it->name) {
                err = EINVAL;
                break;
            }
            uint8_t enc = it->kind == EH_ITEM_SARRAY_BEGIN_ ? EH_ENC_STRUCT | EH_ENC_VARRAY_FLAG
                                                            : EH_ENC_STRUCT;
            size_t pos = eh_meta_field(m, it->name, enc, 0, it->tag, 0, 1);
            eh_buf_u8(&hints, 0);
            err = frames_push(
                &fs, (struct frame){.fmt_pos = pos, .sarray = it->kind == EH_ITEM_SARRAY_BEGIN_});
            break;
        }
        case EH_ITEM_STRUCT_END_: err = struct_end(&fs, m, 0); break;
        case EH_ITEM_SARRAY_END_: err = struct_end(&fs, m, 1); break;
        case EH_ITEM_RAW_STRUCT_:
            if (!it->name || it->carray < 1 || it->carray > EH_STRUCT_FIELDS_MAX) {
                err = EINVAL;
                break;
            }
            eh_meta_field(m, it->name, it->encoding & ~EH_ENC_CARRAY_FLAG, (uint8_t)it->carray,
                          it->tag, 0, 1);
            eh_buf_u8(&hints, 0);
            err = frames_push(&fs, (struct frame){.raw = 1, .count = it->carray});
            break;
        default: err = EINVAL;
        }
    }
    if (!err && fs.depth)
        err = EINVAL; /* an open struct, or a raw struct short of members */
    free(fs.f);
    if (!err)
        err = eh_meta_finish(m);
    if (!err && hints.err)
        err = ENOMEM;
    if (!err) {
        *meta_len = m->len;
        put_hints(m, &hints, any_hint);
    }
    eh_buf_free(&hints);
    return err;
}

/* ---- EH_WRITE's fast path (eventheader.h, eh_gather_item_) ---- */

/* The site's block, kept for the life of the process: where its TraceLogging hints are (a
 * struct eh_tl_hints, n = 0 when it has none), the tracepoint's write index as the fast path
 * last wrote it (for a backend with writev_fd), the event's header (a constant of the site),
 * then the metadata and the hints' bytes (put_hints): write index, header and metadata are
 * one piece. */
enum {
    BLOCK_INDEX = sizeof(struct eh_tl_hints),
    BLOCK_HEADER = BLOCK_INDEX + sizeof(int32_t),
    BLOCK_PREFIX = BLOCK_HEADER + EH_HEADER_SIZE,
};

/* Items of a site that EH_WRITE gathers itself, at most: each can be a piece or two
 * (writev takes at most IOV_MAX, 1024), and eh_event_write_ gathers as many on its stack. */
enum { FAST_ITEMS = 128 };

/* Whether EH_WRITE may gather this site's items itself: every item is one that
 * eh_gather_item_ knows (arrays of structs and activity ids are not). */
static int gathered_inline(const eh_item *items, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        switch (items[i].kind) {
        case EH_ITEM_NONE_:
        case EH_ITEM_STRUCT_BEGIN_:
        case EH_ITEM_STRUCT_END_:
        case EH_ITEM_RAW_META_:
        case EH_ITEM_RAW_STRUCT_:
        case EH_ITEM_VALUE_:
        case EH_ITEM_CARRAY_:
        case EH_ITEM_VARRAY_:
        case EH_ITEM_COUNTED_:
        case EH_ITEM_ZSTRING_:
        case EH_ITEM_RAW_FIELD_:
        case EH_ITEM_RAW_DATA_: break;
        default: return 0;
        }
    }
    return 1;
}

/* Returns the site's metadata, building it on first use (thread-safe). */
static int site_meta(eh_event *ev, const eh_item *items, unsigned n, const uint8_t **meta,
                     size_t *len, struct eh_tl_hints *hints)
{
    const uint8_t *p = __atomic_load_n(&ev->meta_, __ATOMIC_ACQUIRE);
    if (!p) {
        /* meta_err_: 0 while not built, a sticky errno, or EH_META_FAST_ once built with a
         * plan (then meta_ is set: another thread may just have built both). */
        int err = __atomic_load_n(&ev->meta_err_, __ATOMIC_RELAXED);
        if (err > 0)
            return err;
        eh_lock();
        p = ev->meta_;
        err = ev->meta_err_ > 0 ? ev->meta_err_ : 0;
        if (!p && !err) {
            struct eh_buf_ m = {0};
            size_t meta_len = 0;
            err = build_meta(ev, items, n, &m, &meta_len);
            if (err == ENOMEM || m.err) {
                eh_buf_free(&m); /* not sticky: may work later */
                eh_unlock();
                return ENOMEM;
            }
            if (err) {
                eh_buf_free(&m);
                __atomic_store_n(&ev->meta_err_, err, __ATOMIC_RELAXED);
            } else {
                /* The site's block, kept for the life of the process (reachable from the
                 * site): the fast path's plan, the event's header (a constant of the site),
                 * then the metadata, so that header and metadata are one piece. */
                uint8_t *block = malloc(BLOCK_PREFIX + m.len);
                if (!block) {
                    eh_buf_free(&m);
                    eh_unlock();
                    return ENOMEM;
                }
                struct eh_tl_hints block_hints = {
                    .n = (size_t)m.p[meta_len] | (size_t)m.p[meta_len + 1] << 8,
                    .p = block + BLOCK_PREFIX + meta_len + 2,
                };
                memcpy(block, &block_hints, sizeof block_hints);
                int32_t no_index = -1;
                memcpy(block + BLOCK_INDEX, &no_index, sizeof no_index);
                eh_header_bytes(block + BLOCK_HEADER, ev->attrs.level, ev->attrs.opcode,
                                ev->attrs.tag, ev->attrs.id, ev->attrs.version);
                memcpy(block + BLOCK_PREFIX, m.p, m.len);
                eh_buf_free(&m);
                ev->meta_len_ = (uint32_t)meta_len; /* the hints follow (put_hints) */
                p = block + BLOCK_PREFIX;
                __atomic_store_n(&ev->meta_, p, __ATOMIC_RELEASE);
                /* EH_WRITE's fast path from now on; not for metadata that leaves no room
                 * for a payload (every write E2BIG, eh_event_write_pieces_ relies on it). */
                if (n <= FAST_ITEMS && gathered_inline(items, n) &&
                    EH_HEADER_SIZE + meta_len <= EH_EVENT_SIZE_MAX)
                    __atomic_store_n(&ev->meta_err_, EH_META_FAST_, __ATOMIC_RELEASE);
            }
        }
        eh_unlock();
        if (err)
            return err;
    }
    *meta = p;
    *len = ev->meta_len_;
    hints->n = (size_t)p[*len] | (size_t)p[*len + 1] << 8;
    hints->p = p + *len + 2;
    return 0;
}

/* ---- payload (every write) ---- */

enum { SINK_FULL = -1 };

struct sink {
    struct iovec *iov;
    unsigned n, cap;
    uint8_t *stage;             /* gather mode: small values and u16 prefixes are copied here, */
    unsigned staged, stage_cap; /* so neighbours share one iovec */
    uint8_t *lin;               /* linear mode: bytes are copied here */
    size_t total, limit;
    int err;
    const uint8_t *activity, *related;
};

enum { STAGE_PIECE_MAX = 16 };

static void sink_put(struct sink *s, const void *p, size_t len)
{
    if (s->err || !len)
        return;
    if (!s->lin && len <= STAGE_PIECE_MAX && s->stage_cap - s->staged >= len) {
        /* Copying a few bytes costs less than another iovec in the kernel. */
        eh_copy_small(s->stage + s->staged, p, len);
        p = s->stage + s->staged;
        s->staged += (unsigned)len;
    }
    if (len > s->limit - s->total) {
        s->err = E2BIG;
        return;
    }
    if (s->lin) {
        memcpy(s->lin + s->total, p, len);
        s->total += len;
        return;
    }
    struct iovec *last = s->n ? &s->iov[s->n - 1] : NULL;
    if (last && (const uint8_t *)last->iov_base + last->iov_len == (const uint8_t *)p) {
        last->iov_len += len; /* adjacent in memory: one piece */
    } else if (s->n == s->cap) {
        s->err = SINK_FULL;
        return;
    } else {
        s->iov[s->n].iov_base = (void *)p;
        s->iov[s->n].iov_len = len;
        s->n++;
    }
    s->total += len;
}

static void sink_u16(struct sink *s, size_t v)
{
    if (s->err)
        return;
    if (v > UINT16_MAX) {
        s->err = E2BIG; /* more than 65535 elements cannot fit a 65535-byte event */
        return;
    }
    uint16_t v16 = (uint16_t)v;
    if (!s->lin && s->stage_cap - s->staged < 2) {
        s->err = SINK_FULL; /* the local v16 must not be referenced: linearize */
        return;
    }
    sink_put(s, &v16, 2); /* copied (staged or linear) */
}

static const uint8_t zeros[4];

static void gather(struct sink *s, const eh_item *items, unsigned n)
{
    for (unsigned i = 0; i < n && !s->err; i++) {
        const eh_item *it = &items[i];
        switch (it->kind) {
        case EH_ITEM_VALUE_: sink_put(s, it->data, it->elem_size); break;
        case EH_ITEM_CARRAY_: sink_put(s, it->data, (size_t)it->elem_size * it->carray); break;
        case EH_ITEM_VARRAY_:
        case EH_ITEM_COUNTED_:
            sink_u16(s, it->count);
            sink_put(s, it->data, (size_t)it->elem_size * it->count);
            break;
        case EH_ITEM_ZSTRING_:
            sink_put(s, it->data, (size_t)it->elem_size * it->count);
            sink_put(s, zeros, it->elem_size);
            break;
        case EH_ITEM_RAW_FIELD_:
        case EH_ITEM_RAW_DATA_: sink_put(s, it->data, it->count); break;
        case EH_ITEM_SARRAY_BEGIN_: {
            unsigned first = i + 1, end = first;
            while (end < n && items[end].kind == EH_ITEM_MEMBER_)
                end++;
            sink_u16(s, it->count);
            const uint8_t *base = it->data;
            for (uint32_t e = 0; e < it->count && !s->err; e++, base += it->offset)
                for (unsigned k = first; k < end; k++) {
                    size_t size =
                        (size_t)items[k].elem_size * (items[k].carray ? items[k].carray : 1);
                    sink_put(s, base + items[k].offset, size);
                }
            i = end - 1;
            break;
        }
        case EH_ITEM_ACTIVITY_ID_: s->activity = it->data; break;
        case EH_ITEM_RELATED_ID_: s->related = it->data; break;
        default: break; /* metadata-only items */
        }
    }
}

enum { FAST_PIECES = 128, FAST_STAGE = 512 };

/* Linearized write, for events with more pieces than the fast path holds. */
__attribute__((noinline)) static int write_linear(eh_event *ev, const eh_item *items, unsigned n,
                                                  const uint8_t *meta, size_t meta_len,
                                                  const struct eh_tl_hints *hints)
{
    uint8_t *buf = malloc(EH_EVENT_SIZE_MAX);
    if (!buf)
        return ENOMEM;
    struct iovec iov[EH_IOV_PAYLOAD + 1];
    struct sink s = {.lin = buf, .limit = EH_EVENT_SIZE_MAX};
    gather(&s, items, n);
    int err = s.err;
    if (!err) {
        iov[EH_IOV_PAYLOAD].iov_base = buf;
        iov[EH_IOV_PAYLOAD].iov_len = s.total;
        err = eh_write_event(&ev->tp, ev->attrs.level, ev->attrs.opcode, ev->attrs.tag,
                             ev->attrs.id, ev->attrs.version, s.activity, s.related, meta, meta_len,
                             iov, EH_IOV_PAYLOAD + 1, s.total, hints);
    }
    free(buf);
    return err;
}

int eh_event_write_(eh_event *ev, const eh_item *items, unsigned n)
{
    const uint8_t *meta;
    size_t meta_len;
    struct eh_tl_hints hints_;
    int err = site_meta(ev, items, n, &meta, &meta_len, &hints_);
    const struct eh_tl_hints *hints = hints_.n ? &hints_ : NULL;
    if (err)
        return err;
    if (__atomic_load_n(&ev->meta_err_, __ATOMIC_ACQUIRE) == EH_META_FAST_) {
        /* A site EH_WRITE gathers itself (its first write, or a program built before the
         * fast path): the same gather and write, each piece pointed at, so that every site's
         * first write, which the golden files see, goes the way its later ones do. */
        eh_piece_ pc[EH_GATHER_PREFIX_ + 2 * FAST_ITEMS + 1];
        unsigned char st[EH_GATHER_STAGE_ * FAST_ITEMS];
        struct eh_gather_ g = {.pc = pc, .stage = st, .np = EH_GATHER_PREFIX_};
        for (unsigned i = 0; i < n; i++)
            eh_gather_item_(&g, &items[i]);
        eh_gather_flush_(&g);
        return eh_event_write_pieces_(ev, pc, g.np, g.big ? (size_t)-1 : g.staged + g.pointed);
    }
    struct iovec iov[EH_IOV_PAYLOAD + FAST_PIECES];
    uint8_t stage[FAST_STAGE];
    struct sink s = {.iov = iov + EH_IOV_PAYLOAD,
                     .cap = FAST_PIECES,
                     .stage = stage,
                     .stage_cap = FAST_STAGE,
                     .limit = EH_EVENT_SIZE_MAX};
    gather(&s, items, n);
    if (s.err == SINK_FULL)
        return write_linear(ev, items, n, meta, meta_len, hints);
    if (s.err)
        return s.err;
    return eh_write_event(&ev->tp, ev->attrs.level, ev->attrs.opcode, ev->attrs.tag, ev->attrs.id,
                          ev->attrs.version, s.activity, s.related, meta, meta_len, iov,
                          (int)(EH_IOV_PAYLOAD + s.n), s.total, hints);
}

_Static_assert(sizeof(eh_piece_) == sizeof(struct iovec) &&
                   offsetof(eh_piece_, base) == offsetof(struct iovec, iov_base) &&
                   offsetof(eh_piece_, len) == offsetof(struct iovec, iov_len),
               "eh_piece_ is struct iovec");
_Static_assert((int)EH_GATHER_PREFIX_ == (int)EH_IOV_META, "the payload follows the header");

/* The end of EH_WRITE's fast path: pieces[EH_GATHER_PREFIX_ .. count) hold the payload,
 * payload bytes (SIZE_MAX: a count or piece too large); the site's header and metadata
 * become one piece. The same checks in the same order as gather and eh_write_event. */
int eh_event_write_pieces_(eh_event *ev, eh_piece_ *pieces, unsigned count, size_t payload)
{
    /* EH_WRITE read meta_err_ == EH_META_FAST_ with acquire: meta_ and the block are set. */
    const uint8_t *meta = __atomic_load_n(&ev->meta_, __ATOMIC_RELAXED);
    size_t head_len = EH_HEADER_SIZE + ev->meta_len_; /* <= EH_EVENT_SIZE_MAX (site_meta) */
    if (payload > EH_EVENT_SIZE_MAX - head_len)
        return E2BIG;
    const struct eh_backend *be = eh_backend_current();
    int32_t index = __atomic_load_n(&ev->tp.write_index, __ATOMIC_RELAXED);
    if (!be || index < 0)
        return EBADF;
    struct iovec *iov = (struct iovec *)(void *)pieces;
#ifndef _WIN32
    if (be->writev_fd) {
        /* The index in front of the header: concurrent writers store the same value, and
         * after the tracepoint is registered again the new one, which names the same
         * tracepoint. */
        int32_t *at = (int32_t *)(void *)(meta - BLOCK_PREFIX + BLOCK_INDEX);
        if (__atomic_load_n(at, __ATOMIC_RELAXED) != index)
            __atomic_store_n(at, index, __ATOMIC_RELAXED);
        iov[EH_IOV_HEADER].iov_base = (void *)at;
        iov[EH_IOV_HEADER].iov_len = sizeof index + head_len;
        return writev(*be->writev_fd, iov + EH_IOV_HEADER, (int)count - EH_IOV_HEADER) < 0 ? errno
                                                                                           : 0;
    }
#endif
    iov[EH_IOV_HEADER].iov_base = (void *)(meta - EH_HEADER_SIZE);
    iov[EH_IOV_HEADER].iov_len = head_len;
    const struct eh_tl_hints *hints =
        (const struct eh_tl_hints *)(const void *)(meta - BLOCK_PREFIX);
    return be->write(&ev->tp, iov, (int)count, head_len + payload, hints->n ? hints : NULL);
}
