/* SPDX-License-Identifier: MIT */
/*
 * TraceLogging (ETW) wire constants and the layout of ehconf's TraceLogging capture file
 * (.tlcap), shared by the encoder (libeventheader: lib/eventheader/src/tl_*.c) and the
 * decoder (libehdecode: ehd_tl.h, tl_json.c, tl_capture_reader.c), as eventheader_wire.h
 * is for EventHeader. Values only: no code lives here.
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
 * The fixed part is TL_CAP_FIXED (80) bytes. The magic tells the file from a .dat
 * capture (records start with a small u32 size) and from perf.data ("PERFILE2").
 */
#ifndef TRACELOGGING_WIRE_H
#define TRACELOGGING_WIRE_H

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
/* The largest FILETIME Windows converts to a date (FileTimeToSystemTime):
 * 30827-12-31T23:59:59.9999999. Microsoft's TraceLogging encoders clamp a time beyond it
 * to this value and a time before 1601 to 0 (Documentation/tracelogging.md §5); so do
 * ehconf's. In whole seconds since 1970 the range kept is
 * [TL_FILETIME_MIN_SECONDS, TL_FILETIME_MAX_SECONDS]. */
#define TL_FILETIME_MAX         0x7FFF35F4F06C7FFFLL
#define TL_FILETIME_MIN_SECONDS (-TL_FILETIME_UNIX_EPOCH / TL_FILETIME_PER_SECOND)
#define TL_FILETIME_MAX_SECONDS \
    ((TL_FILETIME_MAX - TL_FILETIME_UNIX_EPOCH) / TL_FILETIME_PER_SECOND)

/* .tlcap file (layout above). */
#define TL_CAP_MAGIC "EHTLCAP1"
enum { TL_CAP_MAGIC_SIZE = 8, TL_CAP_FIXED = 80 };

#endif /* TRACELOGGING_WIRE_H */
