/* SPDX-License-Identifier: MIT */
/*
 * ehd_tl.h: TraceLogging (ETW) wire constants, the TraceLogging -> JSON decoder and
 * the reader of ehconf's TraceLogging capture files (.tlcap).
 *
 * The constants are shared with the encoder in lib/eventheader/src/tl_*.c (header-only
 * values, no code), like eventheader_wire.h is for EventHeader. Facts:
 * Documentation/tracelogging.md.
 *
 * Provider metadata: u16 size (counts itself) | UTF-8 name \0 | traits: {u16 size, u8 type, data}.
 * Event metadata:    u16 size | tags (1-4 bytes) | UTF-8 event name \0 | fields:
 *   name \0 | InMeta | [OutMeta if InMeta & 0x80] | [tags if OutMeta & 0x80]
 *        | [u16 ccount if (InMeta & 0x60) == 0x20] | [u16 cb + schema if (InMeta & 0x60) == 0x60]
 * Payload: packed little-endian; variable arrays: u16 element count first; Str8/Str16/
 * Binary/BinaryC: u16 BYTE count then bytes; CStr8/CStr16: NUL-terminated.
 *
 * .tlcap file (written by lib/eventheader/src/tl_capture.c: the Linux tlcapture backend,
 * and etwcapture on Windows from the EVENT_RECORDs of a real ETW session), little-endian:
 *   file header:  8 bytes magic "EHTLCAP1"
 *   each record:  u32 size (bytes of the record, including this field)
 *                 u8 level, u8 opcode, u8 version, u8 channel, u16 id, u16 task, u64 keyword
 *                 u8 provider_guid[16] (Windows GUID layout: Data1-3 little-endian)
 *                 u8 flags (bit 0: activity id present, bit 1: related id present), u8 pad[3]
 *                 u8 activity[16], u8 related[16] (zero when absent)
 *                 u16 provider_meta_size, u16 event_meta_size, u32 data_size
 *                 provider metadata, event metadata, user data (in that order)
 * The fixed part is EHD_TLCAP_FIXED (80) bytes. The magic tells the file from a .dat
 * capture (records start with a small u32 size) and from perf.data ("PERFILE2").
 */
#ifndef EHD_TL_H
#define EHD_TL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ehd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- TraceLogging wire constants ---------------------------------------- */

enum {
    TL_IN_CSTR16 = 1,
    TL_IN_CSTR8 = 2,
    TL_IN_I8 = 3,
    TL_IN_U8 = 4,
    TL_IN_I16 = 5,
    TL_IN_U16 = 6,
    TL_IN_I32 = 7,
    TL_IN_U32 = 8,
    TL_IN_I64 = 9,
    TL_IN_U64 = 10,
    TL_IN_F32 = 11,
    TL_IN_F64 = 12,
    TL_IN_BOOL32 = 13,
    TL_IN_BINARY = 14,
    TL_IN_GUID = 15,
    TL_IN_FILETIME = 17,
    TL_IN_SYSTEMTIME = 18,
    TL_IN_SID = 19,
    TL_IN_HEX32 = 20,
    TL_IN_HEX64 = 21,
    TL_IN_STR16 = 22,
    TL_IN_STR8 = 23,
    TL_IN_STRUCT = 24,
    TL_IN_BINARYC = 25,
    TL_IN_TYPE_MASK = 0x1f,
    TL_IN_CCOUNT = 0x20, /* u16 element count in the metadata */
    TL_IN_VCOUNT = 0x40, /* u16 element count before the data */
    TL_IN_CUSTOM = 0x60, /* u16 schema size + schema in the metadata */
    TL_IN_COUNT_MASK = 0x60,
    TL_IN_CHAIN = 0x80, /* an OutMeta byte follows */
};

enum {
    TL_OUT_DEFAULT = 0,
    TL_OUT_STRING = 2,
    TL_OUT_BOOLEAN = 3,
    TL_OUT_HEX = 4,
    TL_OUT_PID = 5,
    TL_OUT_TID = 6,
    TL_OUT_PORT = 7,
    TL_OUT_IPV4 = 8,
    TL_OUT_IPV6 = 9,
    TL_OUT_SOCKETADDRESS = 10,
    TL_OUT_XML = 11,
    TL_OUT_JSON = 12,
    TL_OUT_WIN32ERROR = 13,
    TL_OUT_NTSTATUS = 14,
    TL_OUT_HRESULT = 15,
    TL_OUT_UTF8 = 35,
    TL_OUT_CODEPOINTER = 37,
    TL_OUT_DATETIME_UTC = 38,
    TL_OUT_TYPE_MASK = 0x7f,
    TL_OUT_CHAIN = 0x80, /* field tags follow */
};

enum {
    TL_PROVIDER_TRAIT_GROUP = 1,    /* trait data: the 16-byte provider group GUID */
    TL_DESC_TYPE_PROVIDER_META = 2, /* EVENT_DATA_DESCRIPTOR.Reserved of data[0] */
    TL_DESC_TYPE_EVENT_META = 1,    /* ... of data[1] */
    TL_CHANNEL = 11,                /* WINEVENT_CHANNEL_TRACELOGGING */
    TL_EXT_SCHEMA_TL = 0x0B,        /* EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL */
    TL_EXT_PROV_TRAITS = 0x0C,      /* EVENT_HEADER_EXT_TYPE_PROV_TRAITS */
    TL_TAGS_MAX = 0x0FFFFFFF,       /* tags are 28 bits */
    TL_STRUCT_MEMBERS_MAX = 127,
    TL_DESCRIPTORS_MAX = 128, /* EVENT_DATA_DESCRIPTORs, metadata included */
};

/* FILETIME (100 ns since 1601) of the Unix epoch, and ticks per second. */
#define TL_FILETIME_UNIX_EPOCH 116444736000000000LL
#define TL_FILETIME_PER_SECOND 10000000LL

/* ---- TraceLogging event -> JSON ------------------------------------------ */

/* What a consumer sees of one TraceLogging event. Pointers may be NULL when sizes are 0. */
typedef struct ehd_tl_event {
    const uint8_t *provider_meta; /* provider traits blob (u16 size first) */
    size_t provider_meta_size;
    const uint8_t *event_meta; /* SCHEMA_TL blob (u16 size first) */
    size_t event_meta_size;
    const uint8_t *data; /* user data */
    size_t data_size;
    uint64_t keyword;
    uint16_t id;
    uint8_t level, opcode, version, channel;
    const uint8_t *activity; /* 16 raw bytes or NULL */
    const uint8_t *related;  /* 16 raw bytes or NULL */
} ehd_tl_event;

/*
 * Appends the same JSON object that ehd_eventheader_json() prints for the EventHeader
 * form of the same event (flags as there). Returns 0 or an errno (EBADMSG malformed,
 * ENOTSUP a type ehconf never writes, E2BIG an ehconf bound) with *reason (static
 * or thread-local text) and *err_offset (offset in the blob named by the reason).
 * Nothing is appended on failure. See tl_json.c for the documented differences.
 */
int ehd_tl_json(ehd_buf *out, const ehd_tl_event *ev, const ehd_sample_info *si, unsigned flags,
                const char **reason, size_t *err_offset);

/* ---- .tlcap files ------------------------------------------------------- */

#define EHD_TLCAP_MAGIC "EHTLCAP1"
enum { EHD_TLCAP_MAGIC_SIZE = 8, EHD_TLCAP_FIXED = 80 };

/* 1 if the first bytes of a file (n >= 8) are the .tlcap magic. */
int ehd_tlcap_is_magic(const void *head, size_t n);

typedef struct ehd_tlcap_record {
    uint64_t file_offset; /* offset of the record's size field */
    uint8_t provider_guid[16];
    ehd_tl_event ev; /* points into the reader's buffer */
} ehd_tlcap_record;

typedef struct ehd_tlcap_reader ehd_tlcap_reader;

/* Reads the magic; NULL with *reason set if it is not a .tlcap file or on ENOMEM. */
ehd_tlcap_reader *ehd_tlcap_open(FILE *f, const char **reason);
/* 1 = a record, 0 = end of file, -1 = malformed (reason/offset set; reading stops). */
int ehd_tlcap_next(ehd_tlcap_reader *r, ehd_tlcap_record *rec, const char **reason,
                   uint64_t *offset);
void ehd_tlcap_close(ehd_tlcap_reader *r);

typedef void ehd_tl_emit_fn(void *ctx, const char *json, size_t len);
typedef void ehd_tl_diag_fn(void *ctx, uint64_t offset, const char *reason);

/* The whole pipeline for ehdecode and etwcapture: every record of a .tlcap stream (f at
 * the magic) -> one JSON object via emit, in file order. A record that does not decode
 * is emitted as { "n": "tracelogging:<provider guid>", "error": "<reason>",
 * "fileOffset": <record offset> } and reported to diag. Returns 0 if everything
 * decoded, 1 otherwise. */
int ehd_tlcap_decode(FILE *f, unsigned flags, ehd_tl_emit_fn *emit, void *emit_ctx,
                     ehd_tl_diag_fn *diag, void *diag_ctx);

#ifdef __cplusplus
}
#endif
#endif /* EHD_TL_H */
