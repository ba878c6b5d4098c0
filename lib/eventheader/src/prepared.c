/* SPDX-License-Identifier: MIT */
/*
 * Prepared events (eventheader.h, eh_prepared_init): the shape of an event built once with
 * the dynamic builder, fixed for a tracepoint, so that a hot path passes only the fields'
 * data. The shape is read back from the builder's metadata (each field's encoding and
 * flags say how its data is laid out), and each write gathers the data as EH_WRITE's fast
 * path does: values and short pieces copied side by side, longer ones pointed at, the write
 * index, header and metadata one piece.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_internal.h"
#include "eventheader_read.h" /* eh_enc_value_size */

/* What one field does with its eh_arg. A fixed size of at most PREP_SMALL bytes is copied
 * into the stage by a step of its own size, so that the common fields (values, GUIDs) cost a
 * jump and one or two moves each (make bench-impls, Documentation/performance.md). The last
 * step of every prepared event is P_END. */
enum {
    P_COPY1, /* 1, 2, 4, 8 or 16 bytes at data (a value, or a constant-length array) */
    P_COPY2,
    P_COPY4,
    P_COPY8,
    P_COPY16,
    P_COPY,     /* size bytes at data, another size of at most PREP_SMALL */
    P_FIXED,    /* size bytes at data, more than PREP_SMALL */
    P_COUNTED,  /* u16 count, then count units of size bytes (varrays, length16 strings) */
    P_COUNTED1, /* the same with 1-byte units (char8 strings, u8 arrays): no multiply */
    P_ZSTRING,  /* count units of size bytes, then a NUL unit */
    P_END,
};

enum {
    PREP_FIELDS = 128, /* fields of a prepared event, at most (IOV_MAX: 2 pieces each) */
    PREP_SMALL = 16,   /* a piece of at most this many bytes is copied, not pointed at */
    PREP_STAGE = PREP_FIELDS * (2 + PREP_SMALL + 4),
    /* block: the write index (user_events), the header, then the metadata */
    PREP_INDEX = 0,
    PREP_HEADER = PREP_INDEX + sizeof(int32_t),
    PREP_META = PREP_HEADER + EH_HEADER_SIZE,
};

struct prep_op {
    uint8_t kind;
    uint32_t size;
};

struct eh_prepared_data_ {
    eh_tracepoint *tp;
    uint8_t *block; /* index, header, metadata */
    size_t meta_len;
    size_t block_len;   /* the write index, header and metadata: the first piece */
    size_t payload_max; /* the most payload bytes that fit beside the header and metadata */
    uint8_t level, opcode, version;
    uint16_t tag, id;
    unsigned nops;
    struct prep_op ops[]; /* nops steps, then P_END */
};

/* The fields of a finished metadata extension (ext header, event name, fields) as steps;
 * ENOTSUP for what a prepared event does not take (arrays of structs or of strings). */
static int parse_fields(const uint8_t *m, size_t len, struct prep_op *ops, unsigned *nops)
{
    size_t i = sizeof(struct eh_wire_extension);
    while (i < len && m[i])
        i++;
    i++; /* the event name's NUL */
    unsigned n = 0;
    while (i < len) {
        while (i < len && m[i])
            i++;
        if (++i >= len)
            return EINVAL;
        uint8_t enc = m[i++];
        if (enc & EH_ENC_CHAIN_FLAG) {
            if (i >= len)
                return EINVAL;
            uint8_t fmt = m[i++];
            if (fmt & EH_FMT_CHAIN_FLAG)
                i += 2;
        }
        uint16_t carray = 0;
        if (enc & EH_ENC_CARRAY_FLAG) {
            if (i + 2 > len)
                return EINVAL;
            memcpy(&carray, m + i, 2);
            i += 2;
        }
        uint8_t base = enc & EH_ENC_VALUE_MASK;
        int varray = (enc & EH_ENC_VARRAY_FLAG) != 0, carr = (enc & EH_ENC_CARRAY_FLAG) != 0;
        struct prep_op op;
        if (base == EH_ENC_STRUCT) {
            if (varray || carr)
                return ENOTSUP; /* the element count and the members repeat per write */
            continue;           /* metadata only: the members follow as fields */
        } else if (base >= EH_ENC_VALUE8 && base <= EH_ENC_VALUE128) {
            op.size = eh_enc_value_size(base);
            if (varray && carr)
                return ENOTSUP;
            if (varray)
                op.kind = P_COUNTED;
            else {
                op.kind = P_FIXED;
                op.size *= carr ? carray : 1;
            }
        } else if (base >= EH_ENC_ZSTRING_CHAR8 && base <= EH_ENC_BINARY_LENGTH16_CHAR8) {
            if (varray || carr)
                return ENOTSUP;
            static const uint8_t unit[] = {1, 2, 4, 1, 2, 4, 1};
            op.size = unit[base - EH_ENC_ZSTRING_CHAR8];
            op.kind = base <= EH_ENC_ZSTRING_CHAR32 ? P_ZSTRING : P_COUNTED;
        } else {
            return ENOTSUP;
        }
        if (n == PREP_FIELDS)
            return ENOTSUP;
        if (op.kind == P_COUNTED && op.size == 1)
            op.kind = P_COUNTED1;
        if (op.kind == P_FIXED && op.size <= PREP_SMALL)
            op.kind = op.size == 1    ? P_COPY1
                      : op.size == 2  ? P_COPY2
                      : op.size == 4  ? P_COPY4
                      : op.size == 8  ? P_COPY8
                      : op.size == 16 ? P_COPY16
                                      : P_COPY;
        ops[n++] = op;
    }
    *nops = n;
    return i == len ? 0 : EINVAL;
}

int eh_prepared_init(eh_prepared *ev, const eh_builder *b, eh_tracepoint *tp)
{
    ev->p_ = NULL;
    if (b->err_)
        return b->err_;
    if (b->depth_ || !tp || !b->meta_.p)
        return EINVAL; /* a struct still open, no tracepoint, no event */
    size_t meta_len = b->meta_.len;
    if (meta_len - sizeof(struct eh_wire_extension) > UINT16_MAX ||
        EH_HEADER_SIZE + meta_len > EH_EVENT_SIZE_MAX)
        return E2BIG;
    struct prep_op ops[PREP_FIELDS];
    unsigned nops = 0;
    int err = parse_fields(b->meta_.p, meta_len, ops, &nops);
    if (err)
        return err;
    struct eh_prepared_data_ *p = malloc(sizeof *p + (nops + 1) * sizeof ops[0]);
    uint8_t *block = malloc(PREP_META + meta_len);
    if (!p || !block) {
        free(p);
        free(block);
        return ENOMEM;
    }
    *p = (struct eh_prepared_data_){
        .tp = tp,
        .block = block,
        .meta_len = meta_len,
        .block_len = PREP_META + meta_len,
        .payload_max = EH_EVENT_SIZE_MAX - EH_HEADER_SIZE - meta_len,
        .level = tp->level_,
        .opcode = b->opcode_,
        .version = b->version_,
        .tag = b->tag_,
        .id = b->id_,
        .nops = nops,
    };
    memcpy(p->ops, ops, nops * sizeof ops[0]);
    p->ops[nops] = (struct prep_op){.kind = P_END};
    int32_t no_index = -1;
    memcpy(block + PREP_INDEX, &no_index, sizeof no_index);
    eh_header_bytes(block + PREP_HEADER, p->level, p->opcode, p->tag, p->id, p->version);
    memcpy(block + PREP_META, b->meta_.p, meta_len);
    uint16_t size = (uint16_t)(meta_len - sizeof(struct eh_wire_extension));
    memcpy(block + PREP_META, &size, 2); /* what eh_meta_finish writes */
    ev->p_ = p;
    return 0;
}

void eh_prepared_destroy(eh_prepared *ev)
{
    if (ev->p_) {
        free(ev->p_->block);
        free(ev->p_);
        ev->p_ = NULL;
    }
}

unsigned eh_prepared_args(const eh_prepared *ev)
{
    return ev->p_ ? ev->p_->nops : 0;
}

/* Copies n bytes and returns n: with n a constant, one or two moves once inlined. */
static inline size_t put(uint8_t *to, const uint8_t *from, size_t n)
{
    memcpy(to, from, n);
    return n;
}

/* Each step ends by jumping straight to the next one's code through step[] (a GNU C
 * extension that gcc and clang have, as the kernel's BPF interpreter uses it): no loop
 * test, no switch's range check, and a copied value costs about eight instructions. */
int eh_prepared_write(const eh_prepared *ev, const eh_arg *args, unsigned nargs,
                      const uint8_t *activity16, const uint8_t *related16)
{
    static const void *const step[] = {
        [P_COPY1] = &&copy1,     [P_COPY2] = &&copy2,     [P_COPY4] = &&copy4,
        [P_COPY8] = &&copy8,     [P_COPY16] = &&copy16,   [P_COPY] = &&copy,
        [P_FIXED] = &&fixed,     [P_COUNTED] = &&counted, [P_COUNTED1] = &&counted1,
        [P_ZSTRING] = &&zstring, [P_END] = &&end,
    };
    const struct eh_prepared_data_ *p = ev->p_;
    if (!p || nargs != p->nops)
        return EINVAL;
    if (!eh_tracepoint_enabled(p->tp))
        return EBADF;
    struct iovec iov[EH_IOV_PAYLOAD + 2 * PREP_FIELDS + 1];
    uint8_t stage[PREP_STAGE];
    size_t staged = 0, open = 0, pointed = 0, len;
    struct iovec *v = iov + EH_IOV_PAYLOAD; /* the next piece */
    const struct prep_op *op = p->ops;
    const eh_arg *arg = args;
#define NEXT_STEP()           \
    do {                      \
        op++;                 \
        arg++;                \
        goto *step[op->kind]; \
    } while (0)
    goto *step[op->kind];
/* copy1 ... copy16: n bytes, n a constant, so one or two moves */
#define COPY_STEP(n)                                       \
    copy##n : staged += put(stage + staged, arg->data, n); \
    NEXT_STEP();
    COPY_STEP(1)
    COPY_STEP(2)
    COPY_STEP(4)
    COPY_STEP(8)
    COPY_STEP(16)
#undef COPY_STEP
copy: /* the stage has room for any fixed size it takes */
    eh_copy_small(stage + staged, arg->data, op->size);
    staged += op->size;
    NEXT_STEP();
/* len bytes at arg->data: copied when short, else a piece of their own after the bytes
 * staged so far. A piece of any length is taken here: the whole payload is held to the
 * event's size before anything is written, and no count can make len wrap (a u16 count or
 * a zstring's checked one, units of at most 16 bytes). */
#define GATHER(len)                                          \
    do {                                                     \
        if ((len) <= PREP_SMALL) {                           \
            eh_copy_small(stage + staged, arg->data, (len)); \
            staged += (len);                                 \
        } else {                                             \
            if (staged > open) {                             \
                v->iov_base = stage + open;                  \
                v++->iov_len = staged - open;                \
                open = staged;                               \
            }                                                \
            v->iov_base = (void *)arg->data;                 \
            v++->iov_len = (len);                            \
            pointed += (len);                                \
        }                                                    \
    } while (0)
counted:
    if (arg->count > UINT16_MAX)
        return E2BIG; /* the u16 count cannot say it */
    {
        uint16_t c16 = (uint16_t)arg->count;
        memcpy(stage + staged, &c16, 2);
        staged += 2;
    }
    len = arg->count * op->size;
    GATHER(len);
    NEXT_STEP();
counted1: /* counted's step again without the multiply: sharing its tail cost kilo an
           * instruction (make bench-impls), where the lead is two */
    if (arg->count > UINT16_MAX)
        return E2BIG;
    {
        uint16_t c16 = (uint16_t)arg->count;
        memcpy(stage + staged, &c16, 2);
        staged += 2;
    }
    GATHER(arg->count);
    NEXT_STEP();
zstring:
    if (arg->count > EH_EVENT_SIZE_MAX)
        return E2BIG;
    len = arg->count * op->size;
    GATHER(len);
    /* The NUL unit: four zero bytes, of which the unit's 1, 2 or 4 are kept (a field stages
     * at most a u16 count, PREP_SMALL bytes and 4 more, so the stage has room); a constant
     * size is one store, where memset's call made the whole function save registers. */
    memset(stage + staged, 0, 4);
    staged += op->size;
    NEXT_STEP();
fixed:
    GATHER(op->size);
    NEXT_STEP();
#undef GATHER
#undef NEXT_STEP
end:
    if (staged > open) {
        v->iov_base = stage + open;
        v++->iov_len = staged - open;
    }
    int np = (int)(v - iov);
    size_t payload = staged + pointed;
#ifndef _WIN32
    const struct eh_backend *be = eh_backend_current();
    int32_t index = __atomic_load_n(&p->tp->write_index, __ATOMIC_RELAXED);
    if (!activity16 && !related16 && be && be->writev_fd && index >= 0) {
        if (payload > p->payload_max)
            return E2BIG;
        /* As EH_WRITE's fast path (event_static.c): the index in front of the header. */
        int32_t *at = (int32_t *)(void *)(p->block + PREP_INDEX);
        if (__atomic_load_n(at, __ATOMIC_RELAXED) != index)
            __atomic_store_n(at, index, __ATOMIC_RELAXED);
        iov[EH_IOV_META].iov_base = at;
        iov[EH_IOV_META].iov_len = p->block_len;
        return writev(*be->writev_fd, iov + EH_IOV_META, np - EH_IOV_META) < 0 ? errno : 0;
    }
#endif
    return eh_write_event(p->tp, p->level, p->opcode, p->tag, p->id, p->version, activity16,
                          related16, p->block + PREP_META, p->meta_len, iov, np, payload, NULL);
}
