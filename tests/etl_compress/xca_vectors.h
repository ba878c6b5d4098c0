/* SPDX-License-Identifier: MIT */
/* The worked examples of MS-XCA section 3 (xca_vectors.c), the known answers every
 * decompressor is tested against and fuzz seeds are made from. */
#ifndef XCA_VECTORS_H
#define XCA_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "xca_compress.h"

struct xca_vector {
    const char *name; /* also the seed's file name */
    enum xca_alg alg;
    const uint8_t *compressed;
    size_t compressed_n;
    const char *plain;
    size_t plain_n;
};

extern const struct xca_vector xca_vectors[];
extern const size_t xca_nvectors;

#endif /* XCA_VECTORS_H */
