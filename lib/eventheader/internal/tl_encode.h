/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging encoder (platform-neutral, internal to libeventheader).
 *
 * lib/eventheader/internal/ holds the library's interfaces that ehconf's own tests and
 * tools use besides the public API (tests/tl, tools/windows get -Ilib/eventheader/internal);
 * nothing here is installed or stable.
 *
 * The library builds every event in the EventHeader form first (header, activity and
 * metadata extensions, payload: that is the one normalised description of an eh_item
 * list, of a dynamic-builder event and of raw items alike). The TraceLogging backends
 * (backend_etw.c on Windows, tl_capture.c's .tlcap backend on Linux) translate that form:
 *   - event metadata: built once per distinct EventHeader metadata (cache keyed on the
 *     metadata bytes and the event tag), with the type mapping of tl_typemap.c;
 *   - payload: transcoded per write (GUID byte order, time -> FILETIME, char32 -> UTF-16,
 *     Str16 byte counts, length prefixes for IPv6/binary);
 *   - provider metadata and the provider GUID (SHA-1 name hash) once per provider.
 * Wire constants: tracelogging_wire.h.
 */
#ifndef EH_TL_ENCODE_H
#define EH_TL_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "eh_buf.h" /* struct eh_buf_: the translations are built in it */
#include "tracelogging_wire.h"

/* tl_sha1.c: SHA-1 (FIPS 180-4) of n bytes. */
void eh_tl_sha1(const void *data, size_t n, uint8_t digest[20]);

/* tl_guid.c: the ETW provider GUID of a name (EventSource / TraceLogging name hash),
 * 16 bytes in Windows GUID memory layout. The name is uppercased with the full Unicode
 * mapping first (Documentation/tracelogging.md §2; tables in tl_upper_table.h).
 * Returns 0, or EINVAL for a name that is not valid UTF-8. */
int eh_tl_guid_from_name(const char *name, size_t len, uint8_t guid[16]);
/* "b3864c38-4273-58c5-545b-8b3608343471" (37 bytes with the NUL) of a GUID in Windows layout. */
void eh_tl_guid_format(const uint8_t guid[16], char text[37]);

/* Appends 1-4 tag bytes (28-bit value, 7 bits per byte, most significant first,
 * trailing zero groups omitted, bit 7 = another byte follows). tags must be <= TL_TAGS_MAX. */
void eh_tl_put_tags(struct eh_buf_ *b, uint32_t tags);

/* Provider metadata: u16 size | name \0 | [group trait {u16 19, u8 1, guid[16]}].
 * group_guid may be NULL. Returns 0, EINVAL (empty name) or E2BIG / ENOMEM. */
int eh_tl_provider_meta(struct eh_buf_ *out, const char *name, size_t name_len,
                        const uint8_t *group_guid);

/* Splits a tracepoint name "<provider>_L<level>K<keyword>[G<group>]...". Returns 0 or
 * EINVAL. group/group_len are NULL/0 without a G option. */
int eh_tl_parse_tp_name(const char *name, size_t len, size_t *provider_len, uint8_t *level,
                        uint64_t *keyword, const char **group, size_t *group_len);

/* A provider as TraceLogging sees it, derived from an EventHeader tracepoint name:
 * GUID = name hash of the provider name; the EventHeader group (G option) becomes the
 * provider group trait with GUID = name hash of the group string. Cached for the life
 * of the process (tl_provider.c). */
struct eh_tl_provider {
    struct eh_tl_provider *next_;
    char *name;  /* provider name, NUL-terminated */
    char *group; /* group or NULL */
    uint8_t guid[16];
    uint8_t *meta; /* provider metadata blob */
    size_t meta_len;
};

/* Finds or creates the provider of a tracepoint name and returns its keyword and level
 * too. Returns 0, EINVAL (bad name) or ENOMEM. */
int eh_tl_provider_of_tp(const char *tp_name, size_t len, const struct eh_tl_provider **out,
                         uint8_t *level, uint64_t *keyword);

/* One event in TraceLogging form. meta points into the metadata cache (valid for the
 * life of the process) or, once the cache is full, into a translation owned by the
 * event; data is the caller's buffer (reused between calls). Release with
 * eh_tl_event_release() (zero-initialise before the first use). */
struct tl_def;
struct eh_tl_event {
    struct tl_def *owned_; /* private: an uncached translation */
    const uint8_t *meta;   /* event metadata blob (u16 size first) */
    size_t meta_len;
    struct eh_buf_ data; /* payload */
    uint8_t level, opcode, version;
    uint16_t id;
    const uint8_t *activity, *related; /* into the input event, or NULL */
};

/* Translates one EventHeader event (the bytes after the write index: header,
 * extensions, payload) into ev (ev->data is reset first, keeping its memory).
 * Returns 0, EINVAL (malformed or untranslatable event), E2BIG (a TraceLogging limit:
 * metadata over 65535 bytes, a string over 65535 bytes) or ENOMEM. */
int eh_tl_from_eventheader(struct eh_tl_event *ev, const uint8_t *event, size_t len);
/* The same with the event's TraceLogging type hints (eventheader.h EH_TL_HINT_*_): one
 * byte per field definition of the EventHeader metadata, in order; hints may be NULL
 * (n_hints 0). A hint gives its field Microsoft's InType/OutType for that write_event!
 * type (hresult: I32 + HResult, ...; Documentation/tracelogging.md §5); it is ignored
 * where the field's encoding and format are not the ones its macro writes. */
int eh_tl_from_eventheader_hinted(struct eh_tl_event *ev, const uint8_t *event, size_t len,
                                  const uint8_t *hints, size_t n_hints);
void eh_tl_event_release(struct eh_tl_event *ev);

/*
 * ETW refuses an event larger than 64 KB counting its own event header and the extended
 * items that carry the TraceLogging metadata (ERROR_ARITHMETIC_OVERFLOW,
 * Documentation/tracelogging.md §6). Where exactly the cut falls is not documented and has
 * not been measured (no Windows runner here). So that the ETW backend and the
 * TraceLogging capture (its stand-in on Linux and under wine) answer alike, both refuse
 * with E2BIG, writing nothing, an event whose provider metadata + event metadata +
 * payload exceed EH_TL_EVENT_MAX: 64 KB less an allowance for ETW's 80-byte
 * EVENT_HEADER and the extended-item headers. A real ETW that cuts lower still answers
 * E2BIG (ERROR_ARITHMETIC_OVERFLOW); one that cuts higher loses only events within
 * EH_TL_ETW_ALLOWANCE bytes of 64 KB.
 */
#define EH_TL_ETW_ALLOWANCE 128
#define EH_TL_EVENT_MAX     (65535 - EH_TL_ETW_ALLOWANCE)

/* 0, or E2BIG when the event is over EH_TL_EVENT_MAX with this provider metadata. */
int eh_tl_event_fits(size_t provider_meta_len, const struct eh_tl_event *ev);

/* Builds the TraceLogging event metadata for one EventHeader metadata extension body
 * (event name \0 field definitions, little-endian) and event tag, without the cache.
 * For tests and tools. Returns 0 or an errno as above. */
int eh_tl_build_event_meta(struct eh_buf_ *out, const uint8_t *eh_meta, size_t eh_meta_len,
                           uint16_t event_tag);
/* The same with type hints, as for eh_tl_from_eventheader_hinted(). */
int eh_tl_build_event_meta_hinted(struct eh_buf_ *out, const uint8_t *eh_meta, size_t eh_meta_len,
                                  uint16_t event_tag, const uint8_t *hints, size_t n_hints);

/* tl_capture.c: serialises one .tlcap record (format in tracelogging_wire.h). Returns the record
 * size, or 0 if a size does not fit; buf may be NULL to measure. */
size_t eh_tl_record_encode(uint8_t *buf, const uint8_t provider_guid[16], uint64_t keyword,
                           uint8_t channel, const uint8_t *provider_meta, size_t provider_meta_len,
                           const struct eh_tl_event *ev);

#endif /* EH_TL_ENCODE_H */
