/* SPDX-License-Identifier: MIT */
/*
 * The worked examples of [MS-XCA] section 3 (v20240423, "Algorithm Examples"), bytes as
 * the specification prints them: 3.1 Plain LZ77, 3.2 LZ77+Huffman (the 256-byte tables
 * are written as their non-zero positions: the specification prints them as rows of
 * 31 bytes, e.g. the second row of the first table is 17 zeros then 50 55 ... 04, so
 * 0x50 is at byte 48), 3.3 LZNT1.
 */
#include "xca_vectors.h"

#define ALPHABET "abcdefghijklmnopqrstuvwxyz"
#define ABC10    "abcabcabcabcabcabcabcabcabcabc"
#define ABC100   ABC10 ABC10 ABC10 ABC10 ABC10 ABC10 ABC10 ABC10 ABC10 ABC10

/* 3.1: 26 zero flag bits then 6 padding 1 bits, then the 26 literals */
static const uint8_t lz77_alphabet[] = {0x3f, 0x00, 0x00, 0x00, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66,
                                        0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70,
                                        0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a};

/* 3.1: abc, then a match of distance 3 and length 297 (7, 15, 255, then 0x0126) */
static const uint8_t lz77_abc[] = {0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63,
                                   0x17, 0x00, 0x0f, 0xff, 0x26, 0x01};

/* The two LZ77+Huffman examples: a table with its few non-zero bytes, then the bit
 * stream from byte 256 (kept in rows by hand: clang-format would scatter them). */
/* clang-format off */
/* 3.2: 'a'-'v' 5 bits, 'w'-'z' and the end symbol 256 4 bits; 26 literals and the end */
static const uint8_t huff_alphabet[256 + 20] = {
    [48] = 0x50, [49] = 0x55, [50] = 0x55, [51] = 0x55, [52] = 0x55, [53] = 0x55,
    [54] = 0x55, [55] = 0x55, [56] = 0x55, [57] = 0x55, [58] = 0x55, [59] = 0x45,
    [60] = 0x44, [61] = 0x04, [128] = 0x04,
    [256] = 0xd8, 0x52, 0x3e, 0xd7, 0x94, 0x11, 0x5b, 0xe9, 0x19, 0x5f,
            0xf9, 0xd6, 0x7c, 0xdf, 0x8d, 0x04, 0x00, 0x00, 0x00, 0x00};

/* 3.2: 'a', 'b' 3 bits, 'c' 2, the end 2, match symbol 287 (15, 1 distance bit) 2 */
static const uint8_t huff_abc[256 + 7] = {
    [48] = 0x30, [49] = 0x23, [128] = 0x02, [143] = 0x20,
    [256] = 0xa8, 0xdc, 0x00, 0x00, 0xff, 0x26, 0x01};
/* clang-format on */

/* 3.3: one compressed chunk (header 0xB038) of 59 bytes, no end mark */
static const uint8_t lznt1_notes[] = {
    0x38, 0xb0, 0x88, 0x46, 0x23, 0x20, 0x00, 0x20, 0x47, 0x20, 0x41, 0x00, 0x10, 0xa2, 0x47,
    0x01, 0xa0, 0x45, 0x20, 0x44, 0x00, 0x08, 0x45, 0x01, 0x50, 0x79, 0x00, 0xc0, 0x45, 0x20,
    0x05, 0x24, 0x13, 0x88, 0x05, 0xb4, 0x02, 0x4a, 0x44, 0xef, 0x03, 0x58, 0x02, 0x8c, 0x09,
    0x16, 0x01, 0x48, 0x45, 0x00, 0xbe, 0x00, 0x9e, 0x00, 0x04, 0x01, 0x18, 0x90, 0x00};

/* 142 bytes with its terminating NUL, as the specification counts it */
static const char notes[] = "F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# E D "
                            "D E E F# D E F# G F# D E F# G F# E D E A F# F# G A A G F# E D D E "
                            "F# E D D";

const struct xca_vector xca_vectors[] = {
    {"ms-xca-3.1-alphabet", XCA_XPRESS, lz77_alphabet, sizeof lz77_alphabet, ALPHABET,
     sizeof ALPHABET - 1},
    {"ms-xca-3.1-abc", XCA_XPRESS, lz77_abc, sizeof lz77_abc, ABC100, sizeof ABC100 - 1},
    {"ms-xca-3.2-alphabet", XCA_HUFFMAN, huff_alphabet, sizeof huff_alphabet, ALPHABET,
     sizeof ALPHABET - 1},
    {"ms-xca-3.2-abc", XCA_HUFFMAN, huff_abc, sizeof huff_abc, ABC100, sizeof ABC100 - 1},
    {"ms-xca-3.3-lznt1", XCA_LZNT1, lznt1_notes, sizeof lznt1_notes, notes, sizeof notes},
};

const size_t xca_nvectors = sizeof xca_vectors / sizeof xca_vectors[0];
