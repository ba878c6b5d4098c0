/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emitlib/gencase/gencase.h: what the C files a macro API's generator writes from the case
 * descriptions (impl/lttp-c/gen.c for TraceLoggingWrite, impl/ehconf-macros/gen.c for
 * EH_WRITE) share with the emitter's main program, emitlib/gencase/driver.c. A macro API
 * needs the schema at compile time, so its emitter is generated per case; the running of
 * the steps, the report lines and --bench are the same for every such API, here.
 *
 * Each generated file defines one `struct gencase_case`: its providers (each defined by
 * the API's own macro, with functions calling its register and unregister on it), one
 * function per event of the description (the API's write macro with literal values, or,
 * for an event the macros cannot express, the reason it is skipped), the steps (register,
 * unregister, event, threads, fork) in file order, and the items of the description's text
 * (textmatch.h) the emitter checks the given file against. The generator's --table output
 * adds the table of the cases and gencase_api.
 */
#ifndef GENCASE_H
#define GENCASE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uchar.h>

#include "textmatch.h"

/* What the driver's messages name for this API: its register call ("TraceLoggingRegister")
 * and the build script that generated the cases ("impl/lttp-c/build"). */
struct gencase_api {
    char const *register_call;
    char const *build;
};

extern const struct gencase_api gencase_api;

enum gencase_step_kind {
    GENCASE_REGISTER,   /* arg: provider index */
    GENCASE_UNREGISTER, /* arg: provider index */
    GENCASE_EVENT,      /* arg: event ordinal (1-based, in the description) */
    GENCASE_THREADS,    /* THREAD ... END blocks, then END */
    GENCASE_THREAD,
    GENCASE_FORK, /* child steps, optional PARENT and its steps, END */
    GENCASE_PARENT,
    GENCASE_END,
};

struct gencase_step {
    unsigned char kind;
    int line; /* of the description */
    int arg;
};

/* An event: returns the macro's errno-style result (0: written) with *call naming the
 * macro, or -1 with *call the reason it is skipped (nothing written). */
typedef int (*gencase_event_fn)(char const **call);
typedef int (*gencase_provider_fn)(void);

struct gencase_provider {
    char const *name;  /* printable: as the description writes it */
    char const *group; /* "" for none */
    gencase_provider_fn reg;
    gencase_provider_fn unreg;
};

struct gencase_case {
    char const *name;
    char const *source; /* the description it was generated from */
    struct gencase_item const *items;
    size_t nitems;
    struct gencase_step const *steps;
    size_t nsteps;
    struct gencase_provider const *providers;
    size_t nproviders;
    gencase_event_fn const *events; /* events[ordinal - 1] */
    size_t nevents;
};

/* Exact bits for float fields (NaN payloads and -0 included). */
static inline float gencase_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static inline double gencase_f64(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* A value whose bytes are in a fixed order (a port, an IPv4 address: network order) from
 * those bytes, on a target of either byte order: the number a caller would hold, which
 * the macro's native store puts back in that order. */
static inline uint16_t gencase_u16_at(uint8_t const *bytes)
{
    uint16_t v;
    memcpy(&v, bytes, sizeof(v));
    return v;
}

static inline uint32_t gencase_u32_at(uint8_t const *bytes)
{
    uint32_t v;
    memcpy(&v, bytes, sizeof(v));
    return v;
}

static inline uint64_t gencase_u64_at(uint8_t const *bytes)
{
    uint64_t v;
    memcpy(&v, bytes, sizeof(v));
    return v;
}

#endif
