/* SPDX-License-Identifier: MIT */
/*
 * perf.data (file mode) and perf pipe-mode reader, tracefs format parsing and
 * the decoding of tracepoints that are not EventHeader (decode-json-format.md §7).
 * Owned by the perf-reader part of libehdecode; uses ehd.h for output.
 */
#ifndef EHD_PERF_H
#define EHD_PERF_H

#include "ehd.h"

/* Interface defined by its implementation (lib/decode/src/perf_*.c). */

#endif /* EHD_PERF_H */
