/* SPDX-License-Identifier: MIT */
/*
 * The translation cache: one TraceLogging definition per distinct (EventHeader
 * metadata bytes, event tag, TraceLogging type hints), made once and shared by every thread and call site, so a
 * write translates only its payload. Bounded (TL_CACHE_MAX_BYTES); entries are never
 * freed while the process runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tl_translate.h"

#define TL_CACHE_BUCKETS 256
/* Bound of the cache: beyond it (a program that builds endless distinct events with the
 * dynamic builder), definitions are translated per write and freed with the event. */
#define TL_CACHE_MAX_BYTES ((size_t)16 << 20)
static struct tl_def *g_cache[TL_CACHE_BUCKETS];
static size_t g_cache_bytes;
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

void eh_tl_def_free(struct tl_def *d)
{
    if (d) {
        free(d->eh_meta);
        free(d->tl_meta);
        free(d->nodes);
        free(d);
    }
}

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

int eh_tl_def_lookup(const uint8_t *m, size_t n, uint16_t tag, const uint8_t *hints, size_t n_hints,
                     const struct tl_def **out, struct tl_def **owned)
{
    *owned = NULL;
    if (!hints)
        n_hints = 0;
    /* The hints are part of the key: i32_hex and hresult share their EventHeader bytes. */
    uint32_t h = fnv1a(fnv1a(2166136261u ^ tag, m, n), hints, n_hints);
    struct tl_def **bucket = &g_cache[h % TL_CACHE_BUCKETS];
    int err = 0;
    pthread_mutex_lock(&g_cache_lock);
    for (struct tl_def *d = *bucket; d; d = d->next) {
        if (d->hash == h && d->tag == tag && d->eh_len == n && d->n_hints == n_hints &&
            memcmp(d->eh_meta, m, n) == 0 &&
            (!n_hints || memcmp(d->eh_meta + n, hints, n_hints) == 0)) {
            *out = d;
            goto done;
        }
    }
    struct tl_def *d = calloc(1, sizeof *d);
    struct eh_buf_ meta = {0};
    if (!d || !(d->eh_meta = malloc(n + n_hints))) {
        free(d);
        err = ENOMEM;
        goto done;
    }
    err = eh_tl_build_meta(&meta, &d->nodes, &d->n_nodes, m, n, tag, hints, n_hints);
    if (err) {
        eh_buf_free(&meta);
        free(d->eh_meta);
        free(d);
        goto done;
    }
    memcpy(d->eh_meta, m, n);
    if (n_hints)
        memcpy(d->eh_meta + n, hints, n_hints);
    d->eh_len = n;
    d->n_hints = n_hints;
    d->hash = h;
    d->tag = tag;
    d->tl_meta = meta.p;
    d->tl_len = meta.len;
    *out = d;
    size_t bytes = sizeof *d + n + n_hints + meta.len + d->n_nodes * sizeof *d->nodes;
    if (g_cache_bytes + bytes > TL_CACHE_MAX_BYTES) {
        *owned = d;
        goto done;
    }
    g_cache_bytes += bytes;
    d->next = *bucket;
    *bucket = d;
done:
    pthread_mutex_unlock(&g_cache_lock);
    return err;
}
