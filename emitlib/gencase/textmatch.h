/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emitlib/gencase/textmatch.h: how a generator (impl/lttp-c/gen.c, impl/ehconf-macros/gen.c,
 * at build time) and emitlib/gencase/driver.c (at run time) cut a case description into items and hash them, so that the emitter can tell
 * whether the description it is given is the one its code was generated from.
 *
 * An item is either one statement outside every `event` block (`case`, `provider`,
 * `register`, `threads`, `end` of a block, ...) or a whole `event ... end` block. A
 * statement is a line's words joined by one space; blank lines and comments are not
 * statements. Each item's hash is FNV-1a 64 over its statements, each followed by '\n'.
 * harness/impl/run_impl.py hands the emitter the description with the events the profile
 * lacks left out (whole `event ... end` blocks), so driver.c accepts the compiled-in items
 * with some events missing, and nothing else.
 */
#ifndef GENCASE_TEXTMATCH_H
#define GENCASE_TEXTMATCH_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GENCASE_FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define GENCASE_FNV_PRIME  UINT64_C(0x100000001b3)

static inline int gencase_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Adds the statement of line [s, s+n) to *hash; returns 0 for a blank line or a comment
 * (nothing added), 1 otherwise. *first gets the first word (its length in *first_len). */
static inline int gencase_statement(char const *s, size_t n, uint64_t *hash, char const **first,
                                    size_t *first_len)
{
    size_t i = 0;
    int words = 0;
    while (i < n) {
        while (i < n && gencase_space(s[i]))
            i++;
        size_t j = i;
        while (j < n && !gencase_space(s[j]))
            j++;
        if (j > i) {
            if (words == 0) {
                if (s[i] == '#')
                    return 0;
                *first = s + i;
                *first_len = j - i;
            } else {
                *hash = (*hash ^ (uint8_t)' ') * GENCASE_FNV_PRIME;
            }
            for (size_t k = i; k < j; k++)
                *hash = (*hash ^ (uint8_t)s[k]) * GENCASE_FNV_PRIME;
            words++;
        }
        i = j;
    }
    if (!words)
        return 0;
    *hash = (*hash ^ (uint8_t)'\n') * GENCASE_FNV_PRIME;
    return 1;
}

static inline int gencase_word_is(char const *w, size_t n, char const *what)
{
    return n == strlen(what) && memcmp(w, what, n) == 0;
}

/* Statements that open a block closed by `end` inside an event. */
static inline int gencase_event_opener(char const *w, size_t n)
{
    return gencase_word_is(w, n, "struct") || gencase_word_is(w, n, "struct_slice") ||
           gencase_word_is(w, n, "element") || gencase_word_is(w, n, "event");
}

struct gencase_item {
    unsigned char is_event;
    int line; /* 1-based line of its (first) statement */
    uint64_t hash;
    /* an event item of the compiled-in description: the ordinals it stands for, first,
       first + stride, ... (count of them: one per repetition of a `repeat`) */
    int first, count, stride;
};

/* The next line of text[0, len) from *pos: 1 with its start *l and length *n (without the
 * newline), *pos moved past it and *line counted; 0 at the end of the text. */
static inline int gencase_next_line(char const *text, size_t len, size_t *pos, int *line,
                                    char const **l, size_t *n)
{
    if (*pos >= len)
        return 0;
    size_t end = *pos;
    while (end < len && text[end] != '\n')
        end++;
    *l = text + *pos;
    *n = end - *pos;
    *pos = end + 1;
    (*line)++;
    return 1;
}

/* Cuts text[0, len) into items: calls add(ctx, &item) for each. Returns 0, or the line of
 * an `event` block that does not end (the caller reports it). */
static inline int gencase_items(char const *text, size_t len,
                                void (*add)(void *ctx, struct gencase_item const *item), void *ctx)
{
    struct gencase_item cur = {0, 0, 0, 0, 0, 0};
    int depth = 0; /* inside an event: its nesting, 0 outside */
    int line = 0;
    size_t pos = 0, ln;
    char const *l;
    while (gencase_next_line(text, len, &pos, &line, &l, &ln)) {
        char const *w = NULL;
        size_t wn = 0;
        uint64_t h = depth ? cur.hash : GENCASE_FNV_OFFSET;
        if (gencase_statement(l, ln, &h, &w, &wn)) {
            if (depth) {
                cur.hash = h;
                if (gencase_event_opener(w, wn))
                    depth++;
                else if (gencase_word_is(w, wn, "end") && --depth == 0)
                    add(ctx, &cur);
            } else if (gencase_word_is(w, wn, "event")) {
                cur.is_event = 1;
                cur.line = line;
                cur.hash = h;
                depth = 1;
            } else {
                struct gencase_item it = {0, line, h, 0, 0, 0};
                add(ctx, &it);
            }
        }
    }
    return depth ? cur.line : 0;
}

/* The whole of a file, NUL-terminated, for the generator and the emitter alike; a file
 * that cannot be read is one line on stderr and exit 2 (a usage error for both). */
static inline char *gencase_read_file(char const *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        exit(2);
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = (n + 65536) * 2;
            char *b = realloc(buf, cap);
            if (!b) {
                fprintf(stderr, "%s: out of memory\n", path);
                exit(2);
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (!got)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: read error\n", path);
        exit(2);
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

#endif
