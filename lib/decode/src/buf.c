/* SPDX-License-Identifier: MIT */
/*
 * ehd_buf: the growable output buffer every decoder writes into.
 *
 * Out-of-memory is sticky: once an allocation fails, b->oom is set and every
 * later append is dropped, so callers check once at the end instead of after
 * every write. data is always NUL-terminated when non-NULL (handy for tests
 * and printing); the NUL is not counted in len.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_internal.h"

void ehd_buf_init(ehd_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->oom = 0;
}

void ehd_buf_free(ehd_buf *b)
{
    free(b->data);
    ehd_buf_init(b);
}

void ehd_buf_reset(ehd_buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->data)
        b->data[0] = 0;
}

void ehd_buf_truncate(ehd_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->data[len] = 0;
    }
}

/* Makes room for n more bytes plus the terminating NUL; 0 on failure. */
static int reserve(ehd_buf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (n >= SIZE_MAX / 2 - b->len) {
        b->oom = 1;
        return 0;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

/* For ehd_buf_room (ehd_internal.h): the out-of-line growth path. */
int ehd_buf_grow(ehd_buf *b, size_t n)
{
    return reserve(b, n);
}

void ehd_buf_append(ehd_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void ehd_buf_puts(ehd_buf *b, const char *s)
{
    ehd_buf_append(b, s, strlen(s));
}

void ehd_buf_putc(ehd_buf *b, char c)
{
    if (!reserve(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

void ehd_buf_printf(ehd_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[128];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        ehd_buf_append(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
