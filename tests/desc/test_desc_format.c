/* SPDX-License-Identifier: MIT */
/*
 * libdesc (emitlib/c) held to the case-description format's snippets, tests/desc-format/
 * (README.md there): each valid/<name>.events must parse and print (desc_print) exactly as
 * valid/<name>.printed; each malformed/<name>.events must be refused with the
 * "path:line: reason" its first line gives (`# refused: <line>: <reason>`). One KTAP test
 * per snippet, named <valid|malformed>_<name>; emitlib/rust/desc.rs answers the same
 * snippets in tests/desc/desc_format.rs, so the two parsers cannot drift apart.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc.h"
#include "ktap.h"

#ifndef DESC_FORMAT_ROOT
#error DESC_FORMAT_ROOT names tests/desc-format (emitlib/c/build.mk defines it)
#endif

/* The whole of a file; NULL (with a diagnostic) when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f) {
        kt_diag("%s: cannot open", path);
        return NULL;
    }
    for (;;) {
        if (*len + 4096 > cap) {
            char *t = realloc(text, cap = 2 * cap + 4096);
            if (!t)
                break;
            text = t;
        }
        size_t got = fread(text + *len, 1, cap - *len - 1, f);
        *len += got;
        if (!got)
            break;
    }
    fclose(f);
    if (text)
        text[*len] = 0;
    return text;
}

/* The first line where got and want differ, as a diagnostic. */
static void first_difference(const char *got, const char *want)
{
    const char *g = got, *w = want;
    unsigned line = 1;
    while (*g && *g == *w) {
        if (*g == '\n') {
            line++;
            got = g + 1, want = w + 1;
        }
        g++, w++;
    }
    kt_diag("printed text differs at line %u:", line);
    kt_diag("  got : %.*s", (int)strcspn(got, "\n"), got);
    kt_diag("  want: %.*s", (int)strcspn(want, "\n"), want);
}

static void valid(const char *path)
{
    struct desc d;
    char err[512], *printed = NULL, want_path[4096];
    size_t size = 0, want_len;
    if (desc_parse(path, &d, err, sizeof err)) {
        kt_fail_at(__FILE__, __LINE__, err);
        return;
    }
    FILE *out = open_memstream(&printed, &size);
    KT_EXPECT(out && desc_print(out, &d) == 0);
    if (out)
        fclose(out);
    desc_free(&d);
    snprintf(want_path, sizeof want_path, "%.*s.printed", (int)(strlen(path) - 7), path);
    char *want = slurp(want_path, &want_len);
    if (!want || !printed || strcmp(printed, want) != 0) {
        kt_failed_now = 1;
        if (want && printed)
            first_difference(printed, want);
    }
    free(want);
    free(printed);
}

static void malformed(const char *path)
{
    struct desc d;
    char err[512], want[600], expect[512] = "";
    size_t len;
    char *text = slurp(path, &len);
    const char *tag = "# refused: ";
    if (!text || strncmp(text, tag, strlen(tag)) != 0) {
        kt_fail_at(__FILE__, __LINE__, "the first line is not `# refused: <line>: <reason>`");
        free(text);
        return;
    }
    snprintf(expect, sizeof expect, "%.*s", (int)strcspn(text + strlen(tag), "\n"),
             text + strlen(tag));
    free(text);
    snprintf(want, sizeof want, "%s:%s", path, expect);
    if (desc_parse(path, &d, err, sizeof err) == 0) {
        desc_free(&d);
        kt_fail_at(__FILE__, __LINE__, "parsed, not refused");
        return;
    }
    KT_EXPECT_STR(err, want);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The snippets of one folder, sorted: their paths. */
static size_t snippets(const char *kind, char ***out)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", DESC_FORMAT_ROOT, kind);
    DIR *d = opendir(dir);
    size_t n = 0;
    *out = NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t k = strlen(e->d_name);
        if (k <= 7 || strcmp(e->d_name + k - 7, ".events") != 0)
            continue;
        char **more = realloc(*out, (n + 1) * sizeof *more);
        if (!more)
            break;
        *out = more;
        (*out)[n] = malloc(strlen(dir) + k + 2);
        if ((*out)[n])
            sprintf((*out)[n++], "%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    if (n)
        qsort(*out, n, sizeof **out, by_name);
    return n;
}

/* <kind>_<name>: the snippet's file name without .events, '-' as '_'. */
static void put_name(const char *kind, const char *path)
{
    const char *base = strrchr(path, '/') + 1;
    printf("%s_", kind);
    for (const char *s = base; s < base + strlen(base) - 7; s++)
        putchar(*s == '-' ? '_' : *s);
}

int main(void)
{
    static const char *const kinds[] = {"valid", "malformed"};
    char **paths[2];
    size_t n[2], total, k = 0;
    int failed = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    n[0] = snippets(kinds[0], &paths[0]);
    n[1] = snippets(kinds[1], &paths[1]);
    total = n[0] + n[1];
    printf("KTAP version 1\n1..%zu\n", total ? total : 1);
    if (!n[0] || !n[1]) {
        printf("not ok 1 snippets\n# no valid or no malformed snippets in %s\n", DESC_FORMAT_ROOT);
        return 1;
    }
    for (int kind = 0; kind < 2; kind++) {
        for (size_t i = 0; i < n[kind]; i++) {
            kt_failed_now = 0;
            (kind ? malformed : valid)(paths[kind][i]);
            printf("%sok %zu ", kt_failed_now ? "not " : "", ++k);
            put_name(kinds[kind], paths[kind][i]);
            putchar('\n');
            failed += kt_failed_now;
            free(paths[kind][i]);
        }
        free(paths[kind]);
    }
    printf("# %zu passed, %d failed, 0 skipped\n", total - (size_t)failed, failed);
    return failed ? 1 : 0;
}
