/* SPDX-License-Identifier: MIT */
/*
 * ehd_tl.h: TraceLogging (ETW) wire constants, the TraceLogging -> JSON decoder and
 * the readers of ehconf's TraceLogging capture files (.tlcap) and of ETW log files (.etl).
 *
 * The wire constants and the .tlcap layout are in tracelogging_wire.h (libeventheader's
 * include folder), shared with the encoder as eventheader_wire.h is for EventHeader. Facts:
 * Documentation/tracelogging.md.
 */
#ifndef EHD_TL_H
#define EHD_TL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ehd.h"
#include "tracelogging_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The .tlcap layout (tracelogging_wire.h) under the decoder's names. */
#define EHD_TLCAP_MAGIC TL_CAP_MAGIC
enum { EHD_TLCAP_MAGIC_SIZE = TL_CAP_MAGIC_SIZE, EHD_TLCAP_FIXED = TL_CAP_FIXED };

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

/* ---- ETW log files (.etl) ------------------------------------------------ */

/* Bytes ehd_etl_is_magic() needs: the first buffer header and the first record's. */
enum { EHD_ETL_SNIFF = 0x50 };

/* 1 if the first n bytes of a file (n >= EHD_ETL_SNIFF) look like an ETW log file: a
 * buffer header whose first record is the EventTrace logfile header event
 * (Documentation/etl-format.md §2, §5). */
int ehd_etl_is_magic(const void *head, size_t n);

/* Every event of an ETW log file (f at its start) -> one JSON object via emit, in file
 * order: TraceLogging events as ehd_tl_json() prints them, with time, cpu, pid and tid
 * in meta; other events as { "n": "etw:<provider guid>", "id": N, "raw": "<hex>",
 * "meta": { ... } }. Damaged buffers or records are emitted as { "n": ..., "error":
 * "<reason>", "fileOffset": N } and reported to diag; reading goes on where the layout
 * allows (Documentation/etl-format.md §6, §7). Compressed buffers (XPRESS, LZNT1 or
 * XPRESS Huffman, §9) are decompressed first and read the same way. Returns 0 if
 * everything decoded, 1 otherwise. */
int ehd_etl_decode(FILE *f, unsigned flags, ehd_tl_emit_fn *emit, void *emit_ctx,
                   ehd_tl_diag_fn *diag, void *diag_ctx);

#ifdef __cplusplus
}
#endif
#endif /* EHD_TL_H */
