/* SPDX-License-Identifier: MIT */
/*
 * Dynamic builder: metadata and payload are appended as the caller adds fields,
 * with the same field encoder (meta.c) and event writer (write.c) as EH_WRITE.
 * Errors are sticky: the first one is kept and returned by every later call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_internal.h"
#include "eventheader_read.h" /* eh_enc_value_size */

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

static void put_meta(eh_builder *b, const char *name, uint8_t enc, uint8_t fmt, uint16_t tag,
                     uint16_t carray)
{
    if (meta_on(b))
        eh_meta_field(&b->meta_, name, enc, fmt, tag, carray, 0);
}

static void put_data(eh_builder *b, const void *p, size_t len)
{
    if (data_on(b))
        eh_buf_put(&b->data_, p, len);
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
    if (!event_name || !event_name[0]) {
        b->meta_.len = 0;
        return fail(b, EINVAL);
    }
    eh_meta_start(&b->meta_, event_name);
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
    put_meta(b, name, encoding, format, tag, 0);
    put_data(b, data, size);
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
        fr.fmt_pos = eh_meta_field(&b->meta_, name,
                                   is_array ? EH_ENC_STRUCT | EH_ENC_VARRAY_FLAG : EH_ENC_STRUCT, 0,
                                   tag, 0, 1);
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
