/* SPDX-License-Identifier: MIT */
/*
 * Test-only compressors for the three MS-XCA algorithms the .etl reader decompresses
 * (Documentation/etl-format.md §9), written from MS-XCA 2.1, 2.3 and 2.5, and the
 * rewriting of an uncompressed .etl image into a compressed one laid out as Windows
 * 8 and later write them. They exist to make honest test data here, where no Windows
 * can record a compressed file: real back-references, the format's own escapes.
 * Never linked into the library or the tools.
 */
#ifndef XCA_COMPRESS_H
#define XCA_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

enum xca_alg {
    XCA_XPRESS = 0,  /* plain LZ77, MS-XCA 2.3 */
    XCA_LZNT1 = 1,   /* MS-XCA 2.5 */
    XCA_HUFFMAN = 2, /* LZ77+Huffman, MS-XCA 2.1 */
    XCA_MIXED = 3,   /* etl_compress_image only: the three in turn, buffer by buffer */
};

/* An output capacity always enough for n input bytes, with any of the three. */
size_t xca_compress_bound(size_t n);

/* Each writes the compressed form of in[0..n) to out, its size in *out_n, and returns
 * 0; -1 when it does not fit in cap or memory runs out. */
int xca_xpress_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n);
int xca_lznt1_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n);
int xca_huffman_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_n);
int xca_compress(enum xca_alg alg, const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                 size_t *out_n);
const char *xca_alg_name(enum xca_alg alg); /* "xpress", "lznt1", "huffman", "mixed" */
int xca_alg_parse(const char *name, enum xca_alg *alg);

/* etl_compress_image flags */
enum {
    ETL_COMPRESS_SPLIT = 1, /* one record per compressed buffer (many unaligned buffers) */
};

/*
 * An uncompressed .etl image rewritten as a compressed file (etl-format.md §9): the
 * first (logfile header) buffer stored as it is, with EVENT_TRACE_COMPRESSED_MODE set
 * in the header's LogFileMode; every other buffer as its 72-byte header (flag 0x40
 * added, the offset at 0x30 and the saved offset the uncompressed used size) and its
 * records compressed with alg, the buffer size the stored size, the next buffer right
 * after it with no alignment. Returns a malloc'd image and its size, or NULL with the
 * reason in why.
 */
uint8_t *etl_compress_image(const uint8_t *in, size_t n, enum xca_alg alg, unsigned flags,
                            size_t *out_n, char *why, size_t why_size);

/* The file offset of the LogFileMode of the logfile header in an .etl image whose first
 * record is the header event (a system header of 32 bytes, etl-format.md §5). */
enum { ETL_LOGFILE_MODE_AT = 0x48 + 32 + 32 };
#define ETL_COMPRESSED_MODE 0x04000000u /* EVENT_TRACE_COMPRESSED_MODE */

#endif /* XCA_COMPRESS_H */
