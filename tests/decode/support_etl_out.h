/* SPDX-License-Identifier: MIT */
/*
 * What the .etl tests collect from ehd_etl_decode: every event's JSON (checked valid as it
 * arrives) and every diagnostic with its file offset. Shared by test_etl_reader.c and
 * test_etl_compressed.c, which decode the same capture plain and compressed.
 */
#ifndef SUPPORT_ETL_OUT_H
#define SUPPORT_ETL_OUT_H

#include <stddef.h>
#include <stdint.h>

#define ETL_OUT_MAX 64

struct etl_out {
    char *ev[ETL_OUT_MAX];
    size_t n, invalid;
    char *diag[ETL_OUT_MAX];
    uint64_t diag_off[ETL_OUT_MAX];
    size_t ndiag;
};

/* ehd_etl_decode of n bytes at d into o (emptied first): its return value, -1 if the
 * bytes cannot be opened as a stream. */
int etl_out_decode(const uint8_t *d, size_t n, unsigned flags, struct etl_out *o);
void etl_out_free(struct etl_out *o);

#endif /* SUPPORT_ETL_OUT_H */
