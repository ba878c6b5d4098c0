/* SPDX-License-Identifier: MIT */
/* Windowed FILE reader for the perf reader (see perf_input.h). */
#include <stdlib.h>
#include <string.h>

#include "perf_input.h"

#define WINDOW_MIN (1u << 20)

int ehd_perf_input_init(struct perf_input *in, FILE *f, int seekable, uint64_t size)
{
    memset(in, 0, sizeof *in);
    in->f = f;
    in->seekable = seekable;
    in->size = size;
    /* small files get a small window (it grows on demand) */
    in->cap = seekable && size < WINDOW_MIN ? (size < 4096 ? 4096 : (size_t)size) : WINDOW_MIN;
    in->buf = malloc(in->cap);
    return in->buf ? 0 : -1;
}

void ehd_perf_input_free(struct perf_input *in)
{
    free(in->buf);
    in->buf = NULL;
}

/* Reads more bytes at the end of the window until it holds `want` bytes. */
static void fill(struct perf_input *in, size_t want)
{
    while (in->win_len < want && !in->eof) {
        size_t got = fread(in->buf + in->win_len, 1, in->cap - in->win_len, in->f);
        in->win_len += got;
        in->fpos += got;
        if (got == 0)
            in->eof = 1;
    }
}

/* Moves (or grows) the window so that it holds [off, off + n). */
const uint8_t *ehd_perf_input_view_slow(struct perf_input *in, uint64_t off, size_t n)
{
    if (in->seekable && (off > in->size || n > in->size - off))
        return NULL;
    if (n > in->cap) {
        size_t cap = in->cap;
        while (cap < n)
            cap *= 2;
        uint8_t *nb = realloc(in->buf, cap);
        if (!nb)
            return NULL;
        in->buf = nb;
        in->cap = cap;
    }
    uint64_t win_end = in->win_off + in->win_len;
    if (off >= in->win_off && off <= win_end) {
        /* forward and overlapping: keep the tail, read the rest */
        size_t keep = (size_t)(win_end - off);
        memmove(in->buf, in->buf + (off - in->win_off), keep);
        in->win_off = off;
        in->win_len = keep;
    } else if (in->seekable) {
        if (fseeko(in->f, (off_t)off, SEEK_SET) != 0)
            return NULL;
        in->fpos = off;
        in->win_off = off;
        in->win_len = 0;
        in->eof = 0;
    } else if (off > win_end) {
        /* a pipe can only skip forward: read and drop */
        in->win_off = win_end;
        in->win_len = 0;
        while (in->win_off < off && !in->eof) {
            uint64_t gap = off - in->win_off;
            size_t chunk = gap < in->cap ? (size_t)gap : in->cap;
            size_t got = fread(in->buf, 1, chunk, in->f);
            in->fpos += got;
            in->win_off += got;
            if (got == 0)
                in->eof = 1;
        }
        if (in->win_off < off)
            return NULL;
    } else {
        return NULL; /* backwards on a pipe */
    }
    fill(in, n);
    return in->win_len >= n ? in->buf : NULL;
}

int ehd_perf_input_copy(struct perf_input *in, uint64_t off, void *dst, size_t n)
{
    uint8_t *d = dst;
    size_t chunk = in->cap / 2;
    while (n) {
        size_t k = n < chunk ? n : chunk;
        const uint8_t *p = ehd_perf_input_view(in, off, k);
        if (!p)
            return -1;
        memcpy(d, p, k);
        d += k;
        off += k;
        n -= k;
    }
    return 0;
}
