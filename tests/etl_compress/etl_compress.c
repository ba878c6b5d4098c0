/* SPDX-License-Identifier: MIT */
/*
 * An uncompressed .etl image rewritten as a compressed one (xca_compress.h), laid out
 * as Documentation/etl-format.md §9 describes what Windows 8 and later write: the
 * logfile header buffer as it is (with the compressed mode in its LogFileMode), every
 * other buffer as its header and one compressed stream of its records, each buffer
 * exactly as long as it is stored, with no alignment between them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xca_compress.h"

enum {
    HDR = 0x48,
    AT_SIZE = 0x00,
    AT_SAVED = 0x04,
    AT_OFFSET = 0x30,
    AT_FLAGS = 0x34,
    FLAG_COMPRESSED = 0x40,
};

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The size of the record at r (etl-format.md §3), 8-byte aligned, or 0 when it is not
 * a record this tool knows (the rest of the buffer then stays in one piece). */
static size_t record_size(const uint8_t *r, size_t left)
{
    if (left < 8 || rd32(r) == 0xFFFFFFFFu || !(r[3] & 0x80))
        return 0;
    size_t at;
    switch (r[2]) {
    case 10:
    case 18:
    case 19:
    case 20: at = 0; break;
    case 1:
    case 2:
    case 3:
    case 4:
    case 16:
    case 17: at = 4; break;
    default: return 0;
    }
    size_t size = (((size_t)r[at] | (size_t)r[at + 1] << 8) + 7u) & ~(size_t)7;
    return size && size <= left ? size : 0;
}

struct image {
    uint8_t *p;
    size_t len, cap;
};

static uint8_t *room(struct image *im, size_t k)
{
    if (im->cap - im->len < k) {
        size_t cap = 2 * im->cap + k;
        uint8_t *q = realloc(im->p, cap);
        if (!q)
            return NULL;
        im->p = q;
        im->cap = cap;
    }
    return im->p + im->len;
}

/* One compressed buffer: the header h, then records[0..n) compressed with alg. */
static int put_buffer(struct image *im, const uint8_t *h, const uint8_t *records, size_t n,
                      enum xca_alg alg)
{
    size_t bound = xca_compress_bound(n);
    uint8_t *b = room(im, HDR + bound);
    if (!b)
        return -1;
    size_t c;
    if (xca_compress(alg, records, n, b + HDR, bound, &c))
        return -1;
    memcpy(b, h, HDR);
    wr32(b + AT_SIZE, (uint32_t)(HDR + c));
    wr32(b + AT_OFFSET, (uint32_t)(HDR + n));
    wr32(b + AT_SAVED, (uint32_t)(HDR + n));
    b[AT_FLAGS] |= FLAG_COMPRESSED;
    im->len += HDR + c;
    return 0;
}

uint8_t *etl_compress_image(const uint8_t *in, size_t n, enum xca_alg alg, unsigned flags,
                            size_t *out_n, char *why, size_t why_size)
{
    struct image im = {NULL, 0, 0};
    unsigned nbuf = 0, ncompressed = 0;
    for (size_t pos = 0; pos < n; nbuf++) {
        uint32_t size = n - pos >= HDR ? rd32(in + pos + AT_SIZE) : 0;
        uint32_t used = n - pos >= HDR ? rd32(in + pos + AT_SAVED) : 0;
        if (size < HDR || size > n - pos || used < HDR || used > size) {
            snprintf(why, why_size, "buffer at %zu: sizes out of range", pos);
            goto fail;
        }
        const uint8_t *buf = in + pos;
        pos += size;
        if (nbuf == 0) { /* the logfile header buffer stays uncompressed */
            uint8_t *b = room(&im, size);
            if (!b || used < ETL_LOGFILE_MODE_AT + 4 || (buf[HDR + 2] != 1 && buf[HDR + 2] != 2)) {
                snprintf(why, why_size, "the first buffer holds no logfile header");
                goto fail;
            }
            memcpy(b, buf, size);
            wr32(b + ETL_LOGFILE_MODE_AT, rd32(b + ETL_LOGFILE_MODE_AT) | ETL_COMPRESSED_MODE);
            im.len += size;
            continue;
        }
        for (size_t a = HDR; a < used;) {
            size_t b = used;
            if (flags & ETL_COMPRESS_SPLIT) {
                size_t r = record_size(buf + a, used - a);
                if (r)
                    b = a + r;
            }
            enum xca_alg this_alg = alg == XCA_MIXED ? (enum xca_alg)(ncompressed % 3) : alg;
            if (put_buffer(&im, buf, buf + a, b - a, this_alg)) {
                snprintf(why, why_size, "out of memory");
                goto fail;
            }
            ncompressed++;
            a = b;
        }
    }
    *out_n = im.len;
    return im.p;
fail:
    free(im.p);
    return NULL;
}
