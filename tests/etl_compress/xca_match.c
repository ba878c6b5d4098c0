/* SPDX-License-Identifier: MIT */
/* Hash-chain match finder of the test compressors (xca_match.h). */
#include <stdlib.h>

#include "xca_match.h"

enum {
    HASH_BITS = 15,
    MAX_CANDIDATES = 128, /* enough for the test data; a real compressor tunes this */
};

static unsigned hash3(const uint8_t *p, unsigned bits)
{
    uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (v * 2654435761u) >> (32 - bits);
}

int xca_matcher_init(struct xca_matcher *m, const uint8_t *in, size_t n)
{
    m->in = in;
    m->n = n;
    m->next = 0;
    if (n >= INT32_MAX)
        return -1;
    for (m->bits = 8; m->bits < HASH_BITS && ((size_t)1 << m->bits) < n; m->bits++)
        ;
    m->head = calloc((size_t)1 << m->bits, sizeof *m->head);
    m->prev = calloc(n ? n : 1, sizeof *m->prev);
    if (!m->head || !m->prev) {
        xca_matcher_free(m);
        return -1;
    }
    return 0;
}

void xca_matcher_free(struct xca_matcher *m)
{
    free(m->head);
    free(m->prev);
    m->head = m->prev = NULL;
}

size_t xca_matcher_find(struct xca_matcher *m, size_t pos, size_t lo, size_t max_dist,
                        size_t max_len, size_t *dist)
{
    const uint8_t *in = m->in;
    /* positions with 3 bytes after them go into the chains, in order */
    for (; m->next < pos && m->next + 3 <= m->n; m->next++) {
        unsigned h = hash3(in + m->next, m->bits);
        m->prev[m->next] = m->head[h];
        m->head[h] = (int32_t)(m->next + 1);
    }
    if (max_len > m->n - pos)
        max_len = m->n - pos;
    if (max_len < 3 || pos + 3 > m->n)
        return 0;
    size_t best = 0;
    int32_t c = m->head[hash3(in + pos, m->bits)];
    for (int k = 0; c && k < MAX_CANDIDATES; k++) {
        size_t cand = (size_t)c - 1;
        if (cand < lo || pos - cand > max_dist)
            break; /* chains go backwards: every later candidate is further */
        size_t l = 0;
        while (l < max_len && in[cand + l] == in[pos + l])
            l++;
        if (l > best) {
            best = l;
            *dist = pos - cand;
            if (l == max_len)
                break;
        }
        c = m->prev[cand];
    }
    return best >= 3 ? best : 0;
}
