/* SPDX-License-Identifier: MIT */
/*
 * The per-thread cache of parsed event layouts (ehd_event.h). A capture holds
 * millions of events but only a few dozen layouts, and parsing the tracepoint
 * name and the metadata was a tenth of the decode time; the cache keeps the
 * outcome of a successful parse keyed by every input byte it depended on.
 *
 * Bounds: each thread keeps at most EHD_SCHEMA_SLOTS * 3 / 4 layouts and
 * EHD_SCHEMA_BYTES of them; a layout larger than EHD_SCHEMA_MAX_ONE is never
 * kept. When either bound is reached the cache starts over (a capture with
 * more layouts than that decodes correctly, only without the saving).
 * Each thread's cache is freed when the thread ends.
 */
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <pthread.h>
#endif

#include "ehd_event.h"

#define EHD_SCHEMA_SLOTS   256u /* a power of two */
#define EHD_SCHEMA_BYTES   ((size_t)1 << 20)
#define EHD_SCHEMA_MAX_ONE ((size_t)64 << 10)

struct cache {
    struct ehd_schema *slot[EHD_SCHEMA_SLOTS];
    unsigned count;
    size_t bytes;
};

static _Thread_local struct cache *tls_cache;

static void clear(struct cache *c)
{
    for (unsigned i = 0; i < EHD_SCHEMA_SLOTS; i++) {
        free(c->slot[i]);
        c->slot[i] = NULL;
    }
    c->count = 0;
    c->bytes = 0;
}

#ifndef _WIN32
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void free_cache(void *p)
{
    clear(p);
    free(p);
}

static void make_key(void)
{
    if (pthread_key_create(&cache_key, free_cache) != 0)
        cache_key = (pthread_key_t)-1; /* no destructor: the cache lives until exit */
}
#endif

static struct cache *this_thread_cache(void)
{
    if (tls_cache)
        return tls_cache;
    struct cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
#ifndef _WIN32
    pthread_once(&cache_once, make_key);
    if (cache_key != (pthread_key_t)-1)
        pthread_setspecific(cache_key, c);
#endif
    tls_cache = c;
    return c;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* The hash samples the key (lengths, flags, both ends of the name and of the
 * metadata) rather than reading every byte: same_key compares them all
 * anyway, and layouts that differ only in the middle of their metadata
 * merely share a probe sequence. */
static uint64_t hash_ends(uint64_t h, const uint8_t *p, size_t n)
{
    uint64_t a = 0, b = 0;
    size_t k = n < 16 ? n : 16;
    memcpy(&a, p, k < 8 ? k : 8);
    if (k > 8)
        memcpy(&b, p + 8, k - 8);
    h = mix(mix(h, a), b);
    if (n > 16) {
        memcpy(&a, p + n - 16, 8);
        memcpy(&b, p + n - 8, 8);
        h = mix(mix(h, a), b);
    }
    return h;
}

void ehd_schema_key_init(struct ehd_schema_key *k, const char *tp_name, size_t tp_len,
                         const uint8_t *meta, size_t meta_len, unsigned flags, int be,
                         uint8_t level)
{
    k->tp_name = tp_name;
    k->tp_len = tp_len;
    k->meta = meta;
    k->meta_len = meta_len;
    k->flags = flags;
    k->be = (uint8_t)be;
    k->level = level;
    uint64_t h = mix(tp_len, (uint64_t)meta_len << 32 | flags << 9 | (unsigned)be << 8 | level);
    h = hash_ends(h, (const uint8_t *)tp_name, tp_len);
    k->hash = hash_ends(h, meta, meta_len);
}

static int same_key(const struct ehd_schema_key *a, const struct ehd_schema_key *b)
{
    return a->hash == b->hash && a->tp_len == b->tp_len && a->meta_len == b->meta_len &&
           a->flags == b->flags && a->be == b->be && a->level == b->level &&
           memcmp(a->meta, b->meta, a->meta_len) == 0 &&
           memcmp(a->tp_name, b->tp_name, a->tp_len) == 0;
}

const struct ehd_schema *ehd_schema_find(const struct ehd_schema_key *k)
{
    struct cache *c = tls_cache;
    if (!c)
        return NULL;
    for (unsigned i = (unsigned)k->hash;; i++) {
        const struct ehd_schema *s = c->slot[i % EHD_SCHEMA_SLOTS];
        if (!s)
            return NULL;
        if (same_key(&s->key, k))
            return s;
    }
}

/* Rounds n up so that what follows in the same allocation stays aligned. */
static size_t aligned(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

const struct ehd_schema *ehd_schema_store(const struct ehd_schema *parsed)
{
    const struct ehd_schema_key *k = &parsed->key;
    uint32_t n = parsed->n_nodes;
    size_t names_len = parsed->name_off[n];
    size_t size = aligned(sizeof(struct ehd_schema)) + aligned(n * sizeof(struct ehd_node)) +
                  aligned((n + 1) * sizeof(uint32_t)) + k->tp_len + k->meta_len + parsed->head_len +
                  names_len;
    if (size > EHD_SCHEMA_MAX_ONE)
        return NULL;
    struct cache *c = this_thread_cache();
    if (!c)
        return NULL;
    if (c->count + 1 > EHD_SCHEMA_SLOTS * 3 / 4 || c->bytes + size > EHD_SCHEMA_BYTES)
        clear(c);
    struct ehd_schema *s = malloc(size);
    if (!s)
        return NULL;
    *s = *parsed;
    char *p = (char *)s + aligned(sizeof *s);
    struct ehd_node *nodes = (struct ehd_node *)p;
    p += aligned(n * sizeof *nodes);
    uint32_t *name_off = (uint32_t *)p;
    p += aligned((n + 1) * sizeof *name_off);
    char *tp = p;
    uint8_t *meta = (uint8_t *)tp + k->tp_len;
    char *head = (char *)meta + k->meta_len, *names = head + parsed->head_len;
    memcpy(tp, k->tp_name, k->tp_len);
    memcpy(meta, k->meta, k->meta_len);
    memcpy(head, parsed->head, parsed->head_len);
    memcpy(names, parsed->names, names_len);
    memcpy(name_off, parsed->name_off, (n + 1) * sizeof *name_off);
    for (uint32_t i = 0; i < n; i++) {
        nodes[i] = parsed->nodes[i];
        nodes[i].name = meta + (parsed->nodes[i].name - k->meta); /* names live in meta */
    }
    s->key.tp_name = tp;
    s->key.meta = meta;
    s->nodes = nodes;
    s->name_off = name_off;
    s->head = head;
    s->names = names;
    unsigned i = (unsigned)k->hash;
    while (c->slot[i % EHD_SCHEMA_SLOTS])
        i++;
    c->slot[i % EHD_SCHEMA_SLOTS] = s;
    c->count++;
    c->bytes += size;
    return s;
}
