/* SPDX-License-Identifier: MIT */
/*
 * The decompressors of Microsoft's Xpress Compression Algorithm (MS-XCA) that ETW uses
 * for compressed .etl buffers (Documentation/etl-format.md §9): XPRESS "plain LZ77"
 * (MS-XCA 2.4), LZNT1 (2.5) and XPRESS Huffman (2.2), written from the specification.
 * Shared with ehconf's own tests (known-answer vectors, fuzz targets); not installed.
 *
 * Every decompressor writes into out[0..want) and never past it, reads in[0..n) and
 * never past it, and succeeds (0) only when the stream yields exactly want bytes. On
 * bad data it returns EINVAL and says why in err->msg, with the offset in the
 * compressed input where it stopped; ENOMEM when a work table cannot be allocated.
 */
#ifndef EHD_XCA_H
#define EHD_XCA_H

#include <stddef.h>
#include <stdint.h>

struct ehd_xca_err {
    char msg[480]; /* room for the reasons of all three when none fits */
};

/* The algorithms, in the order the .etl reader tries them. */
enum ehd_xca_alg {
    EHD_XCA_NONE = 0,
    EHD_XCA_XPRESS = 1,  /* MS-XCA 2.3/2.4, "plain LZ77" */
    EHD_XCA_LZNT1 = 2,   /* MS-XCA 2.5 */
    EHD_XCA_HUFFMAN = 3, /* MS-XCA 2.1/2.2, "LZ77+Huffman" */
};

/* "XPRESS", "LZNT1", "XPRESS Huffman" (or "none"). */
const char *ehd_xca_name(enum ehd_xca_alg alg);

int ehd_xca_xpress(const uint8_t *in, size_t n, uint8_t *out, size_t want, struct ehd_xca_err *err);
int ehd_xca_lznt1(const uint8_t *in, size_t n, uint8_t *out, size_t want, struct ehd_xca_err *err);
int ehd_xca_huffman(const uint8_t *in, size_t n, uint8_t *out, size_t want,
                    struct ehd_xca_err *err);

/* 1 if in[0..n) has the structure of an LZNT1 stream (chunk headers with signature 3
 * from start to end), or starts like an XPRESS Huffman one (a 256-byte table of code
 * lengths that form a complete prefix code): when the .etl reader tries them. */
int ehd_xca_looks_lznt1(const uint8_t *in, size_t n);
int ehd_xca_looks_huffman(const uint8_t *in, size_t n);

/*
 * The records of a compressed .etl buffer (etl-format.md §9.2): the header does not say
 * which algorithm compressed them, so LZNT1 and XPRESS Huffman are tried when the stream
 * has their structure, then plain XPRESS (what Windows 8 and later write); the first
 * that yields exactly want bytes wins (*alg). Otherwise EINVAL, and err->msg gives each
 * attempt's reason. An empty stream is right for want 0 only (*alg stays NONE).
 */
int ehd_xca_decompress_any(const uint8_t *in, size_t n, uint8_t *out, size_t want,
                           enum ehd_xca_alg *alg, struct ehd_xca_err *err);

#endif /* EHD_XCA_H */
