/* SPDX-License-Identifier: MIT */
/*
 * Windowed reader over a FILE, shared by the perf reader: gives contiguous
 * views of [offset, offset + n) while keeping only one window in memory.
 * Pipes can only move forward; seekable files can also move back (feature
 * sections live after the data section).
 */
#ifndef PERF_INPUT_H
#define PERF_INPUT_H

#include <stdint.h>
#include <stdio.h>

struct perf_input {
    FILE *f;
    int seekable;
    uint64_t size; /* total bytes if seekable, else UINT64_MAX */
    uint8_t *buf;
    size_t cap;
    uint64_t win_off; /* file offset of buf[0] */
    size_t win_len;   /* valid bytes in buf */
    uint64_t fpos;    /* where the FILE stands */
    int eof;
};

int ehd_perf_input_init(struct perf_input *in, FILE *f, int seekable, uint64_t size);
void ehd_perf_input_free(struct perf_input *in);
/* Pointer to n contiguous bytes at off, or NULL if they are not all there
 * (end of data, read error) or out of memory. Valid until the next call. */
const uint8_t *ehd_perf_input_view_slow(struct perf_input *in, uint64_t off, size_t n);
/* Inline for the common case, bytes already in the window: it runs twice per record. */
static inline const uint8_t *ehd_perf_input_view(struct perf_input *in, uint64_t off, size_t n)
{
    if (off >= in->win_off && n <= in->win_len && off - in->win_off <= in->win_len - n)
        return in->buf + (off - in->win_off);
    return ehd_perf_input_view_slow(in, off, n);
}
/* Copies n bytes at off into dst (any size). 0 or -1. */
int ehd_perf_input_copy(struct perf_input *in, uint64_t off, void *dst, size_t n);

#endif /* PERF_INPUT_H */
