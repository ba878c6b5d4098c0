/* SPDX-License-Identifier: MIT */
/*
 * etw_record.h: what etwcapture takes from one ETW EVENT_RECORD of a TraceLogging
 * provider (Windows only). Kept apart from the ETW session code so that a unit test
 * (tests/windows/test_etw_record.c) can feed it records built by hand.
 */
#ifndef EHCONF_ETW_RECORD_H
#define EHCONF_ETW_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <windows.h>
#include <evntcons.h>

/* Not declared by mingw-w64 10 (Documentation/tracelogging.md §8). */
#ifndef EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL
#define EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL 0x000B
#endif
#ifndef EVENT_HEADER_EXT_TYPE_PROV_TRAITS
#define EVENT_HEADER_EXT_TYPE_PROV_TRAITS 0x000C
#endif

/* The event's TraceLogging metadata (the SCHEMA_TL extended item): 0, or ENOENT when
 * the event has none (not a TraceLogging event, or its provider traits are missing). */
int etw_record_schema(const EVENT_RECORD *er, const uint8_t **schema, size_t *schema_n);

/*
 * The event as one .tlcap record (ehd_tl.h), malloc'd: descriptor (level, opcode,
 * version, id, channel, keyword), provider GUID, activity id (absent when all zero),
 * related activity id (its extended item), provider traits, event metadata, UserData.
 * Returns 0, ENOENT (no TraceLogging metadata), E2BIG or ENOMEM.
 */
int etw_record_to_tlcap(const EVENT_RECORD *er, uint8_t **out, size_t *size);

/* From a SCHEMA_TL blob: the event name and the number of top-level fields (a struct
 * and its members count once), for comparing with TDH. 0, or -1 if malformed. */
int etw_schema_summary(const uint8_t *m, size_t n, const char **name, unsigned *top);

#endif /* EHCONF_ETW_RECORD_H */
