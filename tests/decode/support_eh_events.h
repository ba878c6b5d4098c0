/* SPDX-License-Identifier: MIT */
/*
 * Test helper: assembles EventHeader event bytes by hand (header, optional
 * activity-id extension, metadata extension, payload) in either byte order,
 * so the decoder tests do not depend on the encoder library under test.
 */
#ifndef SUPPORT_EH_EVENTS_H
#define SUPPORT_EH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ehb_bytes {
    uint8_t *p;
    size_t len, cap;
} ehb_bytes;

typedef struct ehb {
    int big_endian; /* fields, header ids and extension headers in big-endian */
    uint8_t flags;  /* header flags; ehb_init sets the usual 0x07 / 0x05 */
    uint8_t version, opcode, level;
    uint16_t id, tag;
    int no_metadata; /* leave the metadata extension out */
    int have_activity;
    uint8_t activity[32];
    size_t activity_size;
    ehb_bytes meta;  /* event name + field definitions */
    ehb_bytes data;  /* payload */
    ehb_bytes event; /* result of ehb_finish */
} ehb;

void ehb_init(ehb *e, int big_endian, uint8_t level, const char *event_name);
void ehb_free(ehb *e);

/* Metadata: name, encoding byte as given (flags included), and if fmt >= 0 the
 * chain flag is added and the format byte written (with 0x80 and the tag if
 * tag >= 0); carray >= 0 writes a u16 carray count (caller sets 0x20 in enc). */
void ehb_field_ex(ehb *e, const char *name, unsigned enc, int fmt, int tag, int carray);
/* Common case: fmt 0 means no format byte. */
void ehb_field(ehb *e, const char *name, unsigned enc, unsigned fmt);
void ehb_meta_raw(ehb *e, const void *p, size_t n);

/* Payload in the event's byte order. */
void ehb_u8(ehb *e, uint8_t v);
void ehb_u16(ehb *e, uint16_t v);
void ehb_u32(ehb *e, uint32_t v);
void ehb_u64(ehb *e, uint64_t v);
void ehb_raw(ehb *e, const void *p, size_t n);
void ehb_str8(ehb *e, const char *s); /* u16 length + bytes */
void ehb_sz8(ehb *e, const char *s);  /* bytes + NUL */

void ehb_activity(ehb *e, const uint8_t id[16], const uint8_t *related /* or NULL */);

/* Assembles header + extensions + payload into e->event. */
const uint8_t *ehb_finish(ehb *e, size_t *len);

/* Decodes e (ehb_finish first) with tracepoint name tp; returns the errno and
 * leaves the JSON (or "" on failure) in a static buffer *json. */
int ehb_decode(ehb *e, const char *tp, unsigned flags, const char **json);

#endif
