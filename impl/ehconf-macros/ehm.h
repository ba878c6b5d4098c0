/* SPDX-License-Identifier: GPL-2.0 */
/*
 * impl/ehconf-macros/ehm.h: what the C files impl/ehconf-macros/gen generates include.
 * The case, step and provider tables are emitlib/gencase/gencase.h's (the generated code feeds
 * the same driver, emitlib/gencase/driver.c); the events are ehconf's own static macros
 * (eventheader.h: EH_DEFINE_PROVIDER, EH_WRITE, the EH_<T> field macros); a value whose
 * bytes the format fixes is read with gencase.h's gencase_u<N>_at.
 */
#ifndef EHM_H
#define EHM_H

#include <eventheader.h>

#include "gencase.h"

#endif
