/* SPDX-License-Identifier: MIT */
/*
 * EventHeader wire format constants, shared by the encoder (libeventheader)
 * and the decoder (libehdecode). Values only: no code lives here.
 *
 * An EventHeader event as user_events receives it (after the 4-byte write
 * index) is: struct eh_wire_header, then a chain of extensions (each
 * struct eh_wire_extension + payload; kind bit 15 = another one follows),
 * then the field data. The metadata extension holds "event_name\0" followed
 * by one field definition per field:
 *   name\0, u8 encoding [, u8 format if encoding & 0x80]
 *           [, u16 tag if format & 0x80] [, u16 carray_count if encoding & 0x20]
 */
#ifndef EVENTHEADER_WIRE_H
#define EVENTHEADER_WIRE_H

#include <stdint.h>

/* Header flags (first byte of the header). */
enum {
    EH_FLAG_POINTER64 = 0x01,
    EH_FLAG_LITTLE_ENDIAN = 0x02,
    EH_FLAG_EXTENSION = 0x04,
    EH_FLAG_ALL = 0x07,
};

/* 8 bytes, host byte order of the producer (EH_FLAG_LITTLE_ENDIAN says which). */
struct eh_wire_header {
    uint8_t flags;
    uint8_t version;
    uint16_t id;
    uint16_t tag;
    uint8_t opcode;
    uint8_t level;
};

struct eh_wire_extension {
    uint16_t size; /* bytes of extension payload that follow */
    uint16_t kind; /* EH_EXT_KIND_* | EH_EXT_CHAIN */
};

enum {
    EH_EXT_KIND_INVALID = 0,
    EH_EXT_KIND_METADATA = 1,
    EH_EXT_KIND_ACTIVITY_ID = 2, /* 16 bytes: activity; 32 bytes: activity + related */
    EH_EXT_KIND_MASK = 0x7fff,
    EH_EXT_CHAIN = 0x8000,
};

/* Field encodings: low 5 bits of the encoding byte. */
enum {
    EH_ENC_INVALID = 0,
    EH_ENC_STRUCT = 1, /* format byte low 7 bits = member count, 1..127 */
    EH_ENC_VALUE8 = 2,
    EH_ENC_VALUE16 = 3,
    EH_ENC_VALUE32 = 4,
    EH_ENC_VALUE64 = 5,
    EH_ENC_VALUE128 = 6,
    EH_ENC_ZSTRING_CHAR8 = 7,
    EH_ENC_ZSTRING_CHAR16 = 8,
    EH_ENC_ZSTRING_CHAR32 = 9,
    EH_ENC_STRING_LENGTH16_CHAR8 = 10,
    EH_ENC_STRING_LENGTH16_CHAR16 = 11,
    EH_ENC_STRING_LENGTH16_CHAR32 = 12,
    EH_ENC_BINARY_LENGTH16_CHAR8 = 13,
    EH_ENC_MAX = 14,
    EH_ENC_VALUE_MASK = 0x1f,
    EH_ENC_CARRAY_FLAG = 0x20, /* u16 element count in the metadata */
    EH_ENC_VARRAY_FLAG = 0x40, /* u16 element count before the data */
    EH_ENC_CHAIN_FLAG = 0x80,  /* a format byte follows */
};

/* ValueSize: the width of a pointer on the producer. */
#define EH_ENC_VALUE_PTR (sizeof(void *) == 8 ? EH_ENC_VALUE64 : EH_ENC_VALUE32)

/* Field formats: low 7 bits of the format byte. */
enum {
    EH_FMT_DEFAULT = 0,
    EH_FMT_UNSIGNED_INT = 1,
    EH_FMT_SIGNED_INT = 2,
    EH_FMT_HEX_INT = 3,
    EH_FMT_ERRNO = 4,
    EH_FMT_PID = 5,
    EH_FMT_TIME = 6,
    EH_FMT_BOOLEAN = 7,
    EH_FMT_FLOAT = 8,
    EH_FMT_HEX_BYTES = 9,
    EH_FMT_STRING8 = 10,
    EH_FMT_STRING_UTF = 11,
    EH_FMT_STRING_UTF_BOM = 12,
    EH_FMT_STRING_XML = 13,
    EH_FMT_STRING_JSON = 14,
    EH_FMT_UUID = 15,
    EH_FMT_PORT = 16,
    EH_FMT_IP_ADDRESS = 17,
    EH_FMT_IP_ADDRESS_OBSOLETE = 18,
    EH_FMT_VALUE_MASK = 0x7f,
    EH_FMT_CHAIN_FLAG = 0x80, /* a u16 field tag follows */
};

/* Opcodes (header opcode byte). */
enum {
    EH_OPCODE_INFO = 0,
    EH_OPCODE_ACTIVITY_START = 1,
    EH_OPCODE_ACTIVITY_STOP = 2,
    EH_OPCODE_COLLECTION_START = 3,
    EH_OPCODE_COLLECTION_STOP = 4,
    EH_OPCODE_EXTENSION = 5,
    EH_OPCODE_REPLY = 6,
    EH_OPCODE_RESUME = 7,
    EH_OPCODE_SUSPEND = 8,
    EH_OPCODE_SEND = 9,
    EH_OPCODE_RECEIVE = 240,
};

/* Levels (header level byte). */
enum {
    EH_LEVEL_CRITICAL = 1,
    EH_LEVEL_ERROR = 2,
    EH_LEVEL_WARNING = 3,
    EH_LEVEL_INFORMATIONAL = 4,
    EH_LEVEL_VERBOSE = 5,
};

/* Limits of the encoding. */
enum {
    EH_NAME_MAX = 256,          /* tracepoint name incl. NUL must be < this */
    EH_STRUCT_FIELDS_MAX = 127, /* members of one struct */
    EH_EVENT_SIZE_MAX = 65535,  /* bytes after the write index */
};

/* The user_events command registered for every EventHeader tracepoint. */
#define EH_COMMAND_FIELDS "u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

#endif /* EVENTHEADER_WIRE_H */
