/* SPDX-License-Identifier: MIT */
/*
 * Dynamic builder: metadata and payload are appended as the caller adds fields,
 * with the same field encoder (meta.c) and event writer (write.c) as EH_WRITE.
 * Errors are sticky: the first one is kept and returned by every later call.
 *
 * Metadata reuse: a program that writes the same event again and again through one
 * builder adds the same field definitions every time. So reset does not clear the
 * metadata: while the event's name and each field's definition are byte for byte the
 * ones already in the buffer at that position (matching_), an add only compares them and
 * steps over them; the first definition that differs ends the matching, and from there
 * on the metadata is written as usual, over whatever was there. The comparison is of
 * content, never of pointers, so a name in a reused buffer or a changed type is seen; what
 * the buffer ends up holding is exactly what writing would have put there. Only bytes
 * written before are compared (meta_seen_): nothing uninitialised is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_internal.h"
#include "eventheader_read.h" /* eh_enc_value_size */

/* matching_ and meta_seen_ took tail padding: programs built against an older
 * eventheader.h allocate builders of the same size. */
_Static_assert(sizeof(void *) != 8 || sizeof(eh_builder) == 96, "eh_builder changed size");

struct eh_builder_frame_ {
    size_t fmt_pos;    /* format byte to patch with the member count; 0 if suppressed */
    unsigned count;    /* members of the struct (of the current element, for arrays) */
    unsigned elem0;    /* members of element 0 (arrays) */
    unsigned expected; /* elements announced (arrays) */
    unsigned index;    /* current element (arrays) */
    uint8_t is_array;
    uint8_t no_meta; /* element > 0 of an enclosing array: data only */
    uint8_t no_data; /* inside an array of 0 elements: schema only */
};

static int fail(eh_builder *b, int err)
{
    if (!b->err_)
        b->err_ = err;
    return b->err_;
}

static struct eh_builder_frame_ *top(eh_builder *b)
{
    return b->depth_ ? &b->frames_[b->depth_ - 1] : NULL;
}

static int meta_on(eh_builder *b)
{
    return !b->depth_ || !top(b)->no_meta;
}

static int data_on(eh_builder *b)
{
    return !b->depth_ || !top(b)->no_data;
}

/* The result of a call: the sticky error, or ENOMEM if a buffer could not grow. */
static int status(eh_builder *b)
{
    if (b->meta_.err)
        fail(b, b->meta_.err);
    if (b->data_.err)
        fail(b, b->data_.err);
    return b->err_;
}

static void field_done(eh_builder *b)
{
    if (b->depth_)
        top(b)->count++;
}

/* The high-water mark of the metadata bytes written. */
static void meta_written(eh_builder *b)
{
    if (b->meta_.len > b->meta_seen_)
        b->meta_seen_ = b->meta_.len > UINT32_MAX ? UINT32_MAX : (uint32_t)b->meta_.len;
}

/* Compares a NUL-terminated name with the metadata at pos; returns the bytes it takes
 * there, NUL included, or 0 if they differ (or the known bytes end first). */
static size_t meta_name_at(const eh_builder *b, size_t pos, const char *name)
{
    const uint8_t *p = b->meta_.p + pos;
    size_t room = b->meta_seen_ > pos ? b->meta_seen_ - pos : 0;
    for (size_t i = 0; i < room; i++) {
        if (p[i] != (uint8_t)name[i])
            return 0;
        if (!name[i])
            return i + 1;
    }
    return 0;
}

/* While matching: if the field definition eh_meta_field would append is already there
 * (for a struct, force_format: its member count aside, which end_struct patches), steps
 * over it and returns 1 with *fmt_pos as eh_meta_field returns it. */
static int meta_same(eh_builder *b, const char *name, uint8_t enc, uint8_t fmt, uint16_t tag,
                     uint16_t carray, int force_format, size_t *fmt_pos)
{
    size_t at = b->meta_.len;
    size_t n = meta_name_at(b, at, name);
    if (!n)
        return 0;
    uint8_t want[6];
    size_t k = 0, fk = 0;
    enc &= (uint8_t)~EH_ENC_CHAIN_FLAG;
    fmt &= EH_FMT_VALUE_MASK;
    if (fmt || tag || force_format) {
        want[k++] = enc | EH_ENC_CHAIN_FLAG;
        fk = k;
        want[k++] = tag ? (uint8_t)(fmt | EH_FMT_CHAIN_FLAG) : fmt;
        if (tag) {
            memcpy(want + k, &tag, 2);
            k += 2;
        }
    } else {
        want[k++] = enc;
    }
    if (enc & EH_ENC_CARRAY_FLAG) {
        memcpy(want + k, &carray, 2);
        k += 2;
    }
    if (b->meta_seen_ - (at + n) < k)
        return 0;
    const uint8_t *p = b->meta_.p + at + n;
    for (size_t i = 0; i < k; i++) {
        uint8_t mask = force_format && fk && i == fk ? EH_FMT_CHAIN_FLAG : 0xff;
        if ((p[i] & mask) != want[i])
            return 0;
    }
    *fmt_pos = fk ? at + n + fk : 0;
    b->meta_.len = at + n + k;
    return 1;
}

/* eh_meta_field for the builder: compared while matching, written otherwise. */
static size_t meta_field(eh_builder *b, const char *name, uint8_t enc, uint8_t fmt, uint16_t tag,
                         uint16_t carray, int force_format)
{
    size_t fmt_pos;
    if (b->matching_) {
        if (meta_same(b, name, enc, fmt, tag, carray, force_format, &fmt_pos))
            return fmt_pos;
        b->matching_ = 0; /* from here on this event's metadata differs: write it */
    }
    fmt_pos = eh_meta_field(&b->meta_, name, enc, fmt, tag, carray, force_format);
    meta_written(b);
    return fmt_pos;
}

static void put_meta(eh_builder *b, const char *name, uint8_t enc, uint8_t fmt, uint16_t tag,
                     uint16_t carray)
{
    if (meta_on(b))
        meta_field(b, name, enc, fmt, tag, carray, 0);
}

static void put_data(eh_builder *b, const void *p, size_t len)
{
    if (data_on(b))
        eh_buf_put(&b->data_, p, len);
}

/* A value of 1, 2, 4, 8 or 16 bytes: fixed-size copies the compiler turns into a load and
 * a store, not a call of libc's memcpy (a third of a value add's cost, make bench-impls). */
static void put_value(eh_builder *b, const void *p, unsigned size)
{
    struct eh_buf_ *d = &b->data_;
    if (!data_on(b))
        return;
    if (d->err || d->cap - d->len < 16) {
        eh_buf_put(d, p, size);
        return;
    }
    uint8_t *o = d->p + d->len;
    switch (size) {
    case 1: *o = *(const uint8_t *)p; break;
    case 2: memcpy(o, p, 2); break;
    case 4: memcpy(o, p, 4); break;
    case 8: memcpy(o, p, 8); break;
    default: memcpy(o, p, 16); break; /* eh_enc_value_size: 16 */
    }
    d->len += size;
}

/* The adds' fast path, for the case metadata reuse is for: the same event again, a field
 * outside any struct, with no tag and no array length. If the definition that
 * eh_meta_field would write (name, NUL, the encoding byte, the format byte when there is
 * one) is the one in the buffer at this point, and data_ has room for need bytes more,
 * returns where the metadata continues after it; else NULL, having changed nothing, and
 * the add takes the general way. */
static inline const uint8_t *fast_meta(const eh_builder *b, const char *name, uint8_t enc,
                                       uint8_t fmt, size_t need)
{
    if (!b->matching_ || b->depth_ || b->err_ || b->data_.err || b->data_.cap - b->data_.len < need)
        return NULL;
    const uint8_t *p = b->meta_.p + b->meta_.len, *end = b->meta_.p + b->meta_seen_;
    for (;;) {
        if (p == end)
            return NULL;
        uint8_t c = (uint8_t)*name++;
        if (*p++ != c)
            return NULL;
        if (!c)
            break;
    }
    fmt &= EH_FMT_VALUE_MASK;
    if (fmt) {
        if (end - p < 2 || p[0] != (enc | EH_ENC_CHAIN_FLAG) || p[1] != fmt)
            return NULL;
        return p + 2;
    }
    if (p == end || *p != enc)
        return NULL;
    return p + 1;
}

void eh_builder_init(eh_builder *b)
{
    memset(b, 0, sizeof *b);
    b->err_ = EINVAL; /* until reset names the event */
}

void eh_builder_destroy(eh_builder *b)
{
    eh_buf_free(&b->meta_);
    eh_buf_free(&b->data_);
    free(b->frames_);
    memset(b, 0, sizeof *b);
}

int eh_builder_reset(eh_builder *b, const char *event_name, uint8_t opcode, uint16_t tag,
                     uint16_t id, uint8_t version)
{
    b->err_ = 0;
    b->depth_ = 0;
    b->data_.len = 0;
    b->data_.err = 0;
    b->opcode_ = opcode;
    b->tag_ = tag;
    b->id_ = id;
    b->version_ = version;
    b->matching_ = 0;
    if (!event_name || !event_name[0]) {
        b->meta_.len = 0;
        return fail(b, EINVAL);
    }
    /* The extension's header (size, kind) is 4 bytes; the name follows. */
    size_t n = b->meta_seen_ >= sizeof(struct eh_wire_extension)
                   ? meta_name_at(b, sizeof(struct eh_wire_extension), event_name)
                   : 0;
    if (n) {
        b->meta_.len = sizeof(struct eh_wire_extension) + n;
        b->meta_.err = 0;
        b->matching_ = 1;
        return 0;
    }
    eh_meta_start(&b->meta_, event_name);
    meta_written(b);
    return status(b);
}

static int check_name(eh_builder *b, const char *name)
{
    if (!name)
        return fail(b, EINVAL);
    return b->err_;
}

int eh_builder_add_value(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                         uint16_t tag, const void *data)
{
    unsigned size = eh_enc_value_size(encoding);
    if (check_name(b, name))
        return b->err_;
    if (!size || (encoding & ~EH_ENC_VALUE_MASK & ~EH_ENC_CHAIN_FLAG))
        return fail(b, EINVAL);
    const uint8_t *next;
    if (!tag && (next = fast_meta(b, name, encoding & EH_ENC_VALUE_MASK, format, size))) {
        eh_copy_small(b->data_.p + b->data_.len, data, size);
        b->data_.len += size;
        b->meta_.len = (size_t)(next - b->meta_.p);
        return 0;
    }
    put_meta(b, name, encoding, format, tag, 0);
    put_value(b, data, size);
    field_done(b);
    return status(b);
}

int eh_builder_add_array(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                         uint16_t tag, const void *data, size_t count)
{
    unsigned size = eh_enc_value_size(encoding);
    if (check_name(b, name))
        return b->err_;
    if (!size)
        return fail(b, EINVAL);
    if (count > UINT16_MAX)
        return fail(b, E2BIG);
    put_meta(b, name, (uint8_t)((encoding & EH_ENC_VALUE_MASK) | EH_ENC_VARRAY_FLAG), format, tag,
             0);
    if (data_on(b)) {
        eh_buf_u16(&b->data_, (uint16_t)count);
        eh_buf_put(&b->data_, data, count * size);
    }
    field_done(b);
    return status(b);
}

int eh_builder_add_carray(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                          uint16_t tag, const void *data, size_t count)
{
    unsigned size = eh_enc_value_size(encoding);
    if (check_name(b, name))
        return b->err_;
    if (!size || count < 1 || count > UINT16_MAX)
        return fail(b, EINVAL);
    put_meta(b, name, (uint8_t)((encoding & EH_ENC_VALUE_MASK) | EH_ENC_CARRAY_FLAG), format, tag,
             (uint16_t)count);
    put_data(b, data, count * size);
    field_done(b);
    return status(b);
}

int eh_builder_add_string(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                          uint16_t tag, const void *data, size_t units)
{
    static const uint8_t zeros[4];
    unsigned unit;
    int counted;
    if (check_name(b, name))
        return b->err_;
    switch (encoding & EH_ENC_VALUE_MASK) {
    case EH_ENC_ZSTRING_CHAR8:
        unit = 1;
        counted = 0;
        break;
    case EH_ENC_ZSTRING_CHAR16:
        unit = 2;
        counted = 0;
        break;
    case EH_ENC_ZSTRING_CHAR32:
        unit = 4;
        counted = 0;
        break;
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_BINARY_LENGTH16_CHAR8:
        unit = 1;
        counted = 1;
        break;
    case EH_ENC_STRING_LENGTH16_CHAR16:
        unit = 2;
        counted = 1;
        break;
    case EH_ENC_STRING_LENGTH16_CHAR32:
        unit = 4;
        counted = 1;
        break;
    default: return fail(b, EINVAL);
    }
    if (units > UINT16_MAX)
        return fail(b, E2BIG);
    size_t bytes = units * unit;
    const uint8_t *next;
    if (!tag && (next = fast_meta(b, name, encoding & EH_ENC_VALUE_MASK, format, bytes + 4))) {
        /* counted: u16 units, then the bytes; zero-terminated: the bytes, then a NUL unit */
        uint8_t *o = b->data_.p + b->data_.len;
        if (counted) {
            uint16_t u16 = (uint16_t)units;
            memcpy(o, &u16, 2);
            o += 2;
        }
        if (bytes <= 16)
            eh_copy_small(o, data, bytes);
        else
            memcpy(o, data, bytes);
        if (!counted)
            memset(o + bytes, 0, unit);
        b->data_.len += bytes + (counted ? 2 : unit);
        b->meta_.len = (size_t)(next - b->meta_.p);
        return 0;
    }
    put_meta(b, name, encoding & EH_ENC_VALUE_MASK, format, tag, 0);
    if (data_on(b)) {
        if (counted)
            eh_buf_u16(&b->data_, (uint16_t)units);
        eh_buf_put(&b->data_, data, units * unit);
        if (!counted)
            eh_buf_put(&b->data_, zeros, unit);
    }
    field_done(b);
    return status(b);
}

static int push(eh_builder *b, const char *name, uint16_t tag, int is_array, uint16_t count)
{
    if (check_name(b, name))
        return b->err_;
    if (b->depth_ == b->frames_cap_) {
        unsigned cap = b->frames_cap_ ? b->frames_cap_ * 2 : 16;
        struct eh_builder_frame_ *f = realloc(b->frames_, cap * sizeof *f);
        if (!f)
            return fail(b, ENOMEM);
        b->frames_ = f;
        b->frames_cap_ = cap;
    }
    struct eh_builder_frame_ fr = {
        .is_array = (uint8_t)is_array,
        .expected = count,
        .no_meta = (uint8_t)!meta_on(b),
        .no_data = (uint8_t)(!data_on(b) || (is_array && count == 0)),
    };
    if (meta_on(b))
        fr.fmt_pos = meta_field(
            b, name, is_array ? EH_ENC_STRUCT | EH_ENC_VARRAY_FLAG : EH_ENC_STRUCT, 0, tag, 0, 1);
    if (is_array && data_on(b))
        eh_buf_u16(&b->data_, count);
    b->frames_[b->depth_++] = fr;
    return status(b);
}

int eh_builder_begin_struct(eh_builder *b, const char *name, uint16_t tag)
{
    return push(b, name, tag, 0, 0);
}

int eh_builder_begin_struct_array(eh_builder *b, const char *name, uint16_t tag, uint16_t count)
{
    return push(b, name, tag, 1, count);
}

/* Element 0 fixes the member count (and the metadata); later elements must match. */
static int close_element(eh_builder *b, struct eh_builder_frame_ *f)
{
    if (f->index == 0) {
        if (f->count < 1 || f->count > EH_STRUCT_FIELDS_MAX)
            return fail(b, EINVAL);
        f->elem0 = f->count;
        if (f->fmt_pos && !b->meta_.err)
            b->meta_.p[f->fmt_pos] =
                (uint8_t)((b->meta_.p[f->fmt_pos] & EH_FMT_CHAIN_FLAG) | f->count);
    } else if (f->count != f->elem0) {
        return fail(b, EINVAL);
    }
    return 0;
}

int eh_builder_next_element(eh_builder *b)
{
    struct eh_builder_frame_ *f = top(b);
    if (b->err_)
        return b->err_;
    if (!f || !f->is_array || f->index + 1 >= f->expected)
        return fail(b, EINVAL);
    if (close_element(b, f))
        return b->err_;
    f->index++;
    f->count = 0;
    f->no_meta = 1;
    return status(b);
}

int eh_builder_end_struct(eh_builder *b)
{
    struct eh_builder_frame_ *f = top(b);
    if (b->err_)
        return b->err_;
    if (!f)
        return fail(b, EINVAL);
    if (close_element(b, f))
        return b->err_;
    if (f->is_array && f->expected && f->index + 1 != f->expected)
        return fail(b, EINVAL); /* fewer elements than announced */
    b->depth_--;
    field_done(b);
    return status(b);
}

int eh_builder_add_raw_meta(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                            uint16_t tag, uint16_t carray_count)
{
    if (check_name(b, name))
        return b->err_;
    uint8_t v = encoding & EH_ENC_VALUE_MASK;
    if (v == EH_ENC_INVALID || v == EH_ENC_STRUCT || v >= EH_ENC_MAX)
        return fail(b, EINVAL);
    put_meta(b, name, encoding, format, tag, carray_count);
    field_done(b);
    return status(b);
}

int eh_builder_add_raw_data(eh_builder *b, const void *data, size_t len)
{
    if (b->err_)
        return b->err_;
    put_data(b, data, len);
    return status(b);
}

int eh_builder_write(eh_builder *b, eh_tracepoint *tp, const uint8_t *activity16,
                     const uint8_t *related16)
{
    if (status(b))
        return b->err_;
    if (b->depth_)
        return EINVAL; /* a struct is still open */
    if (!tp || !eh_tracepoint_enabled(tp))
        return EBADF;
    int err = eh_meta_finish(&b->meta_);
    if (err)
        return err;
    if (b->data_.len > EH_EVENT_SIZE_MAX)
        return E2BIG;
    struct iovec iov[EH_IOV_PAYLOAD + 1];
    iov[EH_IOV_PAYLOAD].iov_base = b->data_.p;
    iov[EH_IOV_PAYLOAD].iov_len = b->data_.len;
    return eh_write_event(tp, tp->level_, b->opcode_, b->tag_, b->id_, b->version_, activity16,
                          related16, b->meta_.p, b->meta_.len, iov, EH_IOV_PAYLOAD + 1,
                          b->data_.len, NULL); /* the builder's types carry no hints */
}
