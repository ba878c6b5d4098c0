/* SPDX-License-Identifier: MIT */
/*
 * Internal to the TraceLogging translation of libeventheader (EventHeader event ->
 * TraceLogging metadata + payload), split by job:
 *   tl_typemap.c  the EventHeader -> TraceLogging type map (one field's InType, OutType
 *                 and the conversion of its value);
 *   tl_meta.c     EventHeader metadata -> TraceLogging event metadata and the node plan
 *                 the payload conversion follows;
 *   tl_cache.c    one translation per distinct (metadata bytes, event tag), shared by
 *                 every thread;
 *   tl_payload.c  the payload, converted value by value along the node plan;
 *   tl_encode.c   one event: header, extensions, cache lookup, payload.
 * The interface the backends, tests and tools use is internal/tl_encode.h.
 */
#ifndef EH_TL_TRANSLATE_H
#define EH_TL_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>

#include "tl_encode.h"

/* How one value is moved from the EventHeader payload to the TraceLogging payload. */
enum conv {
    CV_COPY,      /* fixed-size value, bytes unchanged */
    CV_WIDEN16,   /* u16 -> u32 */
    CV_TIME32,    /* i32 seconds -> FILETIME */
    CV_TIME64,    /* i64 seconds -> FILETIME */
    CV_GUID,      /* RFC 4122 -> Windows GUID layout */
    CV_PREFIX,    /* fixed-size value -> u16 byte count + bytes */
    CV_CHAR32,    /* one UTF-32 code unit -> u16 byte count + UTF-16 */
    CV_ZCOPY,     /* zero-terminated string, unchanged (terminator included) */
    CV_Z32,       /* zero-terminated UTF-32 -> zero-terminated UTF-16 */
    CV_ZBIN,      /* zero-terminated string -> u16 byte count + bytes (no terminator) */
    CV_COUNTED,   /* u16 count of units -> u16 byte count + bytes */
    CV_COUNTED32, /* u16 count of UTF-32 units -> u16 byte count + UTF-16 */
    CV_STRUCT,
};

struct tl_node {
    uint32_t end;    /* index after this node's subtree */
    uint16_t carray; /* constant element count (array == CCOUNT) */
    uint8_t enc;     /* EventHeader encoding, low 5 bits */
    uint8_t array;   /* 0, TL_IN_CCOUNT or TL_IN_VCOUNT */
    uint8_t conv;
    uint8_t size; /* CV_COPY/CV_PREFIX/...: value bytes; strings: unit bytes */
};

/* One translated event definition: a cache entry (never freed), or, once the cache is
 * full, owned by the one eh_tl_event it was made for. */
struct tl_def {
    struct tl_def *next;
    uint32_t hash;
    uint16_t tag;
    size_t eh_len;
    uint8_t *eh_meta; /* copy of the EventHeader metadata body, then the hints (the key) */
    size_t n_hints;   /* hint bytes after the eh_len metadata bytes */
    uint8_t *tl_meta;
    size_t tl_len;
    struct tl_node *nodes;
    uint32_t n_nodes;
};

#define TL_MAX_DEPTH 256 /* struct nesting translated (the payload walk recurses) */

/* tl_typemap.c: InType, OutType, conversion and value/unit size of a non-struct field
 * of EventHeader encoding enc (low 5 bits) and format fmt (low 7 bits); in_array: the
 * field or a struct around it is an array. Returns 0, or EINVAL for an encoding
 * TraceLogging cannot carry. */
int eh_tl_map_type(unsigned enc, unsigned fmt, int in_array, uint8_t *in, uint8_t *out,
                   uint8_t *conv, uint8_t *size);
/* tl_typemap.c: applies a type hint (eventheader.h EH_TL_HINT_*_) to the InType/OutType
 * eh_tl_map_type() chose, when enc/fmt are the ones the hint's macro writes. */
void eh_tl_apply_hint(unsigned hint, unsigned enc, unsigned fmt, int in_array, uint8_t *in,
                      uint8_t *out);

/* tl_meta.c: appends the TraceLogging event metadata of an EventHeader metadata
 * extension body (m, n) and event tag to out; with nodes_out, also returns the node
 * plan (malloc'd, n_nodes entries). Returns 0 or an errno (out is left as it was). */
int eh_tl_build_meta(struct eh_buf_ *out, struct tl_node **nodes_out, uint32_t *n_nodes,
                     const uint8_t *m, size_t n, uint16_t event_tag, const uint8_t *hints,
                     size_t n_hints);

/* tl_cache.c: the translation of (m, n, tag), from the cache or made now. *owned is set
 * when the cache is full and the definition is the caller's to free with
 * eh_tl_def_free(). Returns 0 or an errno. */
int eh_tl_def_lookup(const uint8_t *m, size_t n, uint16_t tag, const uint8_t *hints, size_t n_hints,
                     const struct tl_def **out, struct tl_def **owned);
void eh_tl_def_free(struct tl_def *d);

/* tl_payload.c: converts the payload at e[pos..len) along d's node plan, appending to
 * out. Returns 0, EINVAL (malformed payload), E2BIG (a string over 65535 bytes) or
 * out's sticky error. */
int eh_tl_put_payload(struct eh_buf_ *out, const struct tl_def *d, const uint8_t *e, size_t len,
                      size_t pos);

#endif /* EH_TL_TRANSLATE_H */
