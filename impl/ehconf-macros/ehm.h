/* SPDX-License-Identifier: GPL-2.0 */
/*
 * impl/ehconf-macros/ehm.h: what the C files impl/ehconf-macros/gen generates include.
 * The case, step and provider tables are emitlib/gencase/gencase.h's (the generated code feeds
 * the same driver, emitlib/gencase/driver.c); the events are ehconf's own static macros
 * (eventheader.h: EH_DEFINE_PROVIDER, EH_WRITE, the EH_<T> field macros).
 */
#ifndef EHM_H
#define EHM_H

#include <eventheader.h>
#include <stdint.h>
#include <string.h>

#include "gencase.h"

/* A value whose bytes the format fixes whatever the machine (a port, an address given as
 * a plain integer field): the description's bytes as the number a caller would hold, so
 * that the macro's native store puts them back in that order on either byte order. */
static inline uint16_t ehm_load16(uint8_t const *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint32_t ehm_load32(uint8_t const *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline uint64_t ehm_load64(uint8_t const *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

#endif
