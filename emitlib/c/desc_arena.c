/* SPDX-License-Identifier: MIT */
/*
 * The memory of a parsed description: chunks freed together by desc_free, so the parser
 * never frees piece by piece and a mistake anywhere leaves nothing behind.
 */
#include <stdlib.h>
#include <string.h>

#include "desc_internal.h"

struct desc_chunk {
    struct desc_chunk *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char bytes[];
};

void *desc_alloc(struct desc *d, size_t size)
{
    size = (size + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1);
    struct desc_chunk *c = d->memory_;
    if (!c || c->cap - c->used < size) {
        /* big pieces (a 64 KB value) get a chunk of their own */
        size_t cap = size > 65536 ? size : 65536;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->cap = cap;
        c->used = 0;
        c->next = d->memory_;
        d->memory_ = c;
    }
    void *p = c->bytes + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

void desc_free(struct desc *d)
{
    while (d->memory_) {
        struct desc_chunk *c = d->memory_;
        d->memory_ = c->next;
        free(c);
    }
}
