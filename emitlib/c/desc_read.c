/* SPDX-License-Identifier: MIT */
/*
 * The reader under the parser: a description's lines into statements (words separated by
 * spaces, comments and blank lines skipped), number words, the growing arrays of the
 * parse and the one way to say what is wrong, "path:line: reason".
 */
#define _POSIX_C_SOURCE 200809L /* getline, for the build scripts' plain -std=c11 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "desc_internal.h"

int desc_fail(struct desc_parser *p, unsigned line, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(p->err, p->err_cap, "%s:%u: ", p->d->path, line ? line : 1);
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < p->err_cap)
        vsnprintf(p->err + k, p->err_cap - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

int desc_missing_end(struct desc_parser *p, const char *opener, unsigned open_line)
{
    return desc_fail(p, open_line, "`%s` has no `end` (the file ends at line %u)", opener, p->line);
}

int desc_inner(struct desc_parser *p, const char *opener, unsigned open_line)
{
    int r = desc_next(p);
    if (r <= 0)
        return r < 0 ? -1 : desc_missing_end(p, opener, open_line);
    return !(strcmp(p->w[0], "end") == 0 && p->n == 1);
}

/* A description is printable ASCII: a name writes any other byte as %XX, so a byte
 * outside is a mistake (or a name written raw), found on its line rather than later. */
static int bad_byte(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c > 0x7E)
            return c;
    }
    return -1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int desc_next(struct desc_parser *p)
{
    for (;;) {
        ssize_t len = getline(&p->buf, &p->cap, p->f);
        if (len < 0)
            return ferror(p->f) ? desc_fail(p, p->line, "read error: %s", strerror(errno)) : 0;
        p->line++;
        int c = bad_byte(p->buf, (size_t)len);
        if (c >= 0)
            return desc_fail(p, p->line,
                             "byte 0x%02X is not printable ASCII (a name writes it %%%02X)", c, c);
        size_t lead = strspn(p->buf, " \t\r\n");
        if (!p->buf[lead] || p->buf[lead] == '#')
            continue; /* a blank line or a comment, whatever its words */
        p->n = 0;
        for (char *s = p->buf; *s;) {
            while (is_space(*s))
                *s++ = 0;
            if (!*s)
                break;
            if (p->n == DESC_MAX_WORDS)
                return desc_fail(p, p->line, "more than %d words in one statement", DESC_MAX_WORDS);
            p->w[p->n++] = s;
            while (*s && !is_space(*s))
                s++;
        }
        return 1;
    }
}

int desc_number(const char *s, int hex, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = hex ? 16 : 10, digits = 0;
    if (hex && strncmp(s, "0x", 2) != 0)
        return -1;
    for (s += hex ? 2 : 0; *s; s++, digits++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (hex && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f'))
            d = (unsigned)((*s | 0x20) - 'a' + 10);
        else
            return -1;
        if (d > max || v > (max - d) / base)
            return -1;
        v = v * base + d;
    }
    if (!digits)
        return -1;
    *out = v;
    return 0;
}

void *desc_vec_push(struct desc_parser *p, struct desc_vec *v)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 8;
        void *items = desc_alloc(p->d, cap * v->size);
        if (!items)
            return NULL;
        if (v->n)
            memcpy(items, v->items, v->n * v->size);
        v->items = items;
        v->cap = cap;
    }
    return (char *)v->items + v->n++ * v->size;
}
