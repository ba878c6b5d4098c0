/* SPDX-License-Identifier: MIT */
/*
 * Reading EventHeader events (eventheader_wire.h): byte-order-explicit loads, the size
 * of a value encoding, the walker of the extension chain and the tracepoint name. Header-only (static inline), so that the writer's
 * TraceLogging translation (lib/eventheader/src/tl_*.c) and the decoder (lib/decode)
 * read events with the same code while libeventheader depends on nothing of
 * lib/decode and the decoder links no code of libeventheader.
 */
#ifndef EVENTHEADER_READ_H
#define EVENTHEADER_READ_H

#include <stddef.h>
#include <stdint.h>

#include "eventheader_wire.h"

/* Unaligned loads in the given byte order (an event's header flags, or a perf file's
 * header, say which); big_endian 0 is little-endian. The byte shifts compile to one
 * load (plus a swap) on common targets and never read past the value. */
static inline uint16_t eh_read_u16(const uint8_t *p, int big_endian)
{
    return big_endian ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t eh_read_u32(const uint8_t *p, int big_endian)
{
    uint32_t lo = eh_read_u16(p + (big_endian ? 2 : 0), big_endian);
    uint32_t hi = eh_read_u16(p + (big_endian ? 0 : 2), big_endian);
    return hi << 16 | lo;
}

static inline uint64_t eh_read_u64(const uint8_t *p, int big_endian)
{
    uint64_t lo = eh_read_u32(p + (big_endian ? 4 : 0), big_endian);
    uint64_t hi = eh_read_u32(p + (big_endian ? 0 : 4), big_endian);
    return hi << 32 | lo;
}

/* An unsigned integer of n bytes (0..8), for formats whose field widths are data. */
static inline uint64_t eh_read_uint(const uint8_t *p, size_t n, int big_endian)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[big_endian ? i : n - 1 - i];
    return v;
}

/* Bytes of one value of a Value encoding (the low 5 bits of an encoding byte:
 * EH_ENC_VALUE8 .. EH_ENC_VALUE128); 0 for every other encoding. */
static inline unsigned eh_enc_value_size(unsigned encoding)
{
    switch (encoding & EH_ENC_VALUE_MASK) {
    case EH_ENC_VALUE8: return 1;
    case EH_ENC_VALUE16: return 2;
    case EH_ENC_VALUE32: return 4;
    case EH_ENC_VALUE64: return 8;
    case EH_ENC_VALUE128: return 16;
    default: return 0;
    }
}

/* ---- the extension chain ------------------------------------------------ */

/* One extension: its 4-byte header at offset, size payload bytes at body. */
struct eh_ext {
    size_t offset;
    size_t body;
    uint16_t size;
    uint16_t kind; /* EH_EXT_KIND_*, chain bit removed */
};

/* Cursor over the chain that follows the 8-byte header. */
struct eh_ext_walk {
    const uint8_t *event; /* the bytes after the write index */
    size_t len, pos;      /* pos: the next extension, or the payload when done */
    int big_endian, more;
};

enum {
    EH_EXT_WALK_NEXT = 1,          /* *x is the next extension */
    EH_EXT_WALK_END = 0,           /* no more; w->pos is the payload's offset */
    EH_EXT_WALK_SHORT_HEADER = -1, /* an extension header runs past the end (x->offset) */
    EH_EXT_WALK_SHORT_BODY = -2,   /* x->size bytes of payload run past the end */
};

/* event holds len >= sizeof(struct eh_wire_header) bytes; the header's
 * EH_FLAG_EXTENSION says whether a chain follows. */
static inline void eh_ext_walk_init(struct eh_ext_walk *w, const uint8_t *event, size_t len,
                                    int big_endian)
{
    w->event = event;
    w->len = len;
    w->pos = sizeof(struct eh_wire_header);
    w->big_endian = big_endian;
    w->more = (event[0] & EH_FLAG_EXTENSION) != 0;
}

/* Steps to the next extension; returns one of EH_EXT_WALK_*. Only the bounds are
 * checked: what a kind or size means is the caller's (the decoder reports more
 * malformations than the encoder needs to). */
static inline int eh_ext_walk_next(struct eh_ext_walk *w, struct eh_ext *x)
{
    if (!w->more)
        return EH_EXT_WALK_END;
    x->offset = w->pos;
    if (w->len - w->pos < 4)
        return EH_EXT_WALK_SHORT_HEADER;
    uint16_t kind = eh_read_u16(w->event + w->pos + 2, w->big_endian);
    x->size = eh_read_u16(w->event + w->pos, w->big_endian);
    x->kind = kind & EH_EXT_KIND_MASK;
    x->body = w->pos + 4;
    if (w->len - x->body < x->size)
        return EH_EXT_WALK_SHORT_BODY;
    w->pos = x->body + x->size;
    w->more = (kind & EH_EXT_CHAIN) != 0;
    return EH_EXT_WALK_NEXT;
}

/* ---- the tracepoint name ------------------------------------------------ */

/* "<provider>_L<level>K<keyword><options>": the provider is everything before the last
 * '_'; level and keyword are 1-16 lowercase hex digits; options are [A-Z][0-9a-z]*
 * items, of which G<group> is the provider group. */
struct eh_tp_name {
    size_t provider_len;
    uint64_t level, keyword;
    unsigned level_digits;
    const char *group; /* into the name, NULL without a G option */
    size_t group_len;
    size_t options_start; /* index of the options in the name; the name's length without any */
};

/* In the order the name is read: from EH_TP_NAME_NO_KEYWORD on, level is set. */
enum {
    EH_TP_NAME_OK = 0,
    EH_TP_NAME_NO_UNDERSCORE, /* no '_' before the level and keyword */
    EH_TP_NAME_NO_LEVEL,      /* no 'L' after the last '_' */
    EH_TP_NAME_BAD_LEVEL,     /* level not 1-16 lowercase hex digits */
    EH_TP_NAME_NO_KEYWORD,    /* no 'K' after the level */
    EH_TP_NAME_BAD_KEYWORD,   /* keyword not 1-16 lowercase hex digits */
    EH_TP_NAME_BAD_OPTIONS,   /* options not [A-Z][0-9a-z]* items */
};

/* 1-16 lowercase hex digits at s[*i] (the name's own rule: no upper case, no 0x). */
static inline int eh_tp_name_hex_(const char *s, size_t n, size_t *i, uint64_t *v, unsigned *digits)
{
    *v = 0;
    *digits = 0;
    for (; *i < n; (*i)++, (*digits)++) {
        char ch = s[*i];
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            d = (unsigned)(ch - 'a' + 10);
        else
            break;
        if (*digits == 16)
            return -1;
        *v = *v << 4 | d;
    }
    return *digits > 0 ? 0 : -1;
}

/* Splits a tracepoint name of n bytes; returns EH_TP_NAME_OK or the first problem. */
static inline int eh_tp_name_parse(const char *name, size_t n, struct eh_tp_name *tp)
{
    size_t us = n, i;
    while (us > 0 && name[us - 1] != '_')
        us--;
    if (us == 0)
        return EH_TP_NAME_NO_UNDERSCORE;
    tp->provider_len = us - 1;
    tp->group = NULL;
    tp->group_len = 0;
    tp->options_start = n;
    i = us;
    if (i >= n || name[i] != 'L')
        return EH_TP_NAME_NO_LEVEL;
    i++;
    if (eh_tp_name_hex_(name, n, &i, &tp->level, &tp->level_digits) != 0)
        return EH_TP_NAME_BAD_LEVEL;
    if (i >= n || name[i] != 'K')
        return EH_TP_NAME_NO_KEYWORD;
    i++;
    unsigned kdigits;
    if (eh_tp_name_hex_(name, n, &i, &tp->keyword, &kdigits) != 0)
        return EH_TP_NAME_BAD_KEYWORD;
    tp->options_start = i;
    while (i < n) {
        char opt = name[i++];
        if (opt < 'A' || opt > 'Z')
            return EH_TP_NAME_BAD_OPTIONS;
        size_t start = i;
        while (i < n && ((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z')))
            i++;
        if (opt == 'G') {
            tp->group = name + start;
            tp->group_len = i - start;
        }
    }
    return EH_TP_NAME_OK;
}

#endif /* EVENTHEADER_READ_H */
