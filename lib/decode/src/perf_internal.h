/* SPDX-License-Identifier: MIT */
/*
 * State of the perf reader shared by perf_reader.c (records, metadata) and
 * perf_sample.c (sample field parsing). Not installed API.
 */
#ifndef PERF_INTERNAL_H
#define PERF_INTERNAL_H

#include <string.h>

#include "ehd_perf.h"
#include "eventheader_read.h"
#include "perf_input.h"

struct id_map {
    uint64_t id;
    size_t attr;
};

struct ehd_perf_reader {
    struct perf_input in;
    FILE *tmp; /* copy of a non-seekable file-mode stream */
    int pipe, be;
    uint64_t next_off, data_end;
    int stopped;

    ehd_perf_attr *attrs;
    size_t nattrs;
    struct id_map *idmap;
    size_t nidmap;
    int id_pos; /* byte offset of the sample id after the header, -1 if none */

    ehd_tracing_data td;
    int has_td;
    int has_clock;
    uint32_t clockid;
    uint64_t wall_ns, clock_ns;

    ehd_perf_diag_fn *diag;
    void *diag_ctx;
    unsigned long problems;
    char why[160];
    uint8_t *scratch; /* copy of a record whose payload follows it */
};

/* The attr whose id list holds id, or NULL (binary search of idmap). */
ehd_perf_attr *ehd_perf_attr_by_id(const ehd_perf_reader *r, uint64_t id);

/* Records that ehd_perf_next hands to handle_meta (perf_reader.c) before returning them. */
static inline int perf_is_meta_type(uint32_t type)
{
    return type >= 64 || type == EHD_PERF_RECORD_AUXTRACE;
}

/* Metadata records that change the reader's state. FINISHED_ROUND goes through
 * handle_meta too but changes nothing; it comes every few thousand samples, so
 * perf_jobs.c neither waits for its threads there nor keeps it out of a batch. */
static inline int perf_changes_reader(uint32_t type)
{
    return perf_is_meta_type(type) && type != EHD_PERF_RECORD_FINISHED_ROUND;
}

/* 1 if the record ehd_perf_next returns next may change what sample parsing and
 * formatting read (attrs, ids, names, tracing data, clock data), without consuming it:
 * a caller that formats samples on other threads lets them finish first (perf_jobs.c).
 * 0 for samples, FINISHED_ROUND, other records and at the end. */
int ehd_perf_next_is_meta(ehd_perf_reader *r);

/* Integer of n bytes in the file's byte order (inline: runs per sample field). */
static inline uint64_t perf_load(const void *p, int n, int be)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Fast path (a byte loop was most of the per-sample parse time): one
     * unaligned load, swapped when the file is big-endian. */
    if (n == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return be ? __builtin_bswap64(v) : v;
    }
    if (n == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return be ? __builtin_bswap32(v) : v;
    }
    if (n == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return be ? __builtin_bswap16(v) : v;
    }
#endif
    return eh_read_uint(p, (size_t)n, be);
}

#define U16(p) ((uint16_t)perf_load((p), 2, r->be))
#define U32(p) ((uint32_t)perf_load((p), 4, r->be))
#define U64(p) perf_load((p), 8, r->be)

#endif /* PERF_INTERNAL_H */
