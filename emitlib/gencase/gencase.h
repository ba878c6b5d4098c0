/* SPDX-License-Identifier: GPL-2.0 */
/*
 * impl/lttp-c/lttpc.h: what the C files impl/lttp-c/gen generates from the case
 * descriptions share with the emitter's main program (impl/lttp-c/emit.c).
 *
 * Each generated file defines one `struct lttpc_case`: its providers (each a
 * TRACELOGGING_DEFINE_PROVIDER, with functions calling TraceLoggingRegister and
 * TraceLoggingUnregister on it), one function per event of the description (a
 * TraceLoggingWrite or TraceLoggingWriteActivity with literal values, or, for an event the
 * macros cannot express, the reason it is skipped), the steps (register, unregister,
 * event, threads, fork) in file order, and the items of the description's text
 * (textmatch.h) the emitter checks the given file against.
 */
#ifndef LTTPC_H
#define LTTPC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uchar.h>

#include "textmatch.h"

enum lttpc_step_kind {
    LTTPC_REGISTER,   /* arg: provider index */
    LTTPC_UNREGISTER, /* arg: provider index */
    LTTPC_EVENT,      /* arg: event ordinal (1-based, in the description) */
    LTTPC_THREADS,    /* THREAD ... END blocks, then END */
    LTTPC_THREAD,
    LTTPC_FORK, /* child steps, optional PARENT and its steps, END */
    LTTPC_PARENT,
    LTTPC_END,
};

struct lttpc_step {
    unsigned char kind;
    int line; /* of the description */
    int arg;
};

/* An event: returns the macro's errno-style result (0: written) with *call naming the
 * macro, or -1 with *call the reason it is skipped (nothing written). */
typedef int (*lttpc_event_fn)(char const **call);
typedef int (*lttpc_provider_fn)(void);

struct lttpc_provider {
    char const *name;  /* printable: as the description writes it */
    char const *group; /* "" for none */
    lttpc_provider_fn reg;
    lttpc_provider_fn unreg;
};

struct lttpc_case {
    char const *name;
    char const *source; /* the description it was generated from */
    struct lttpc_item const *items;
    size_t nitems;
    struct lttpc_step const *steps;
    size_t nsteps;
    struct lttpc_provider const *providers;
    size_t nproviders;
    lttpc_event_fn const *events; /* events[ordinal - 1] */
    size_t nevents;
};

/* Exact bits for float fields (NaN payloads and -0 included). */
static inline float lttpc_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static inline double lttpc_f64(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* A value whose bytes are in a fixed order (a port, an IPv4 address: network order) from
 * those bytes, on a target of either byte order. */
static inline uint16_t lttpc_u16_at(uint8_t const *bytes)
{
    uint16_t v;
    memcpy(&v, bytes, sizeof(v));
    return v;
}

static inline uint32_t lttpc_u32_at(uint8_t const *bytes)
{
    uint32_t v;
    memcpy(&v, bytes, sizeof(v));
    return v;
}

#endif
