/* SPDX-License-Identifier: MIT */
/*
 * The match finder the test compressors share: hash chains over 3-byte prefixes, every
 * position inserted in order, a bounded number of candidates tried per search. Greedy
 * and simple; what matters for tests is that matches are real and reach back far.
 */
#ifndef XCA_MATCH_H
#define XCA_MATCH_H

#include <stddef.h>
#include <stdint.h>

struct xca_matcher {
    const uint8_t *in;
    size_t n;
    size_t next;   /* positions below next are inserted */
    unsigned bits; /* of the hash: fewer for small inputs (the fuzzers make many) */
    int32_t *head; /* per hash: the last position + 1, 0 for none */
    int32_t *prev; /* per position: the previous one with the same hash, + 1 */
};

/* 0, or -1 when out of memory (or n too large). */
int xca_matcher_init(struct xca_matcher *m, const uint8_t *in, size_t n);
void xca_matcher_free(struct xca_matcher *m);

/* The longest earlier match for pos (at least 3 bytes, else 0): starting at lo or after,
 * at most max_dist back, at most max_len long; its distance in *dist. Inserts every
 * position up to pos first, so calls go forward. */
size_t xca_matcher_find(struct xca_matcher *m, size_t pos, size_t lo, size_t max_dist,
                        size_t max_len, size_t *dist);

#endif /* XCA_MATCH_H */
