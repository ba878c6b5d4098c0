/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c: the main() of a fuzz target built without libFuzzer (gcc, clang, asan
 * variants), so `make test` builds every target and the unit run replays its seeds.
 *
 *   test_<target> [FILE|DIR]...
 *
 * Each FILE (each regular file of a DIR, in name order) is read into a buffer of exactly
 * its size, so that ASan sees any read past the end, and passed to
 * LLVMFuzzerTestOneInput once. Without arguments the target's seed corpus is replayed:
 * FUZZ_SEEDS_ROOT/seeds-<target>, where <target> is this program's name without "test_".
 * Output is KTAP, one test per input; a crash or sanitizer report ends the program, and
 * the "# replaying" line before it names the input. An empty corpus is a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_SEEDS_ROOT
#define FUZZ_SEEDS_ROOT "tests/fuzz"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct inputs {
    char **paths;
    size_t n, cap;
};

static int add_path(struct inputs *in, const char *path)
{
    if (in->n == in->cap) {
        size_t cap = in->cap ? 2 * in->cap : 16;
        char **p = realloc(in->paths, cap * sizeof *p);
        if (!p)
            return -1;
        in->paths = p;
        in->cap = cap;
    }
    in->paths[in->n] = strdup(path);
    return in->paths[in->n++] ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file of a directory (not recursive). */
static int add_arg(struct inputs *in, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0) {
        printf("# %s: %s\n", arg, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return add_path(in, arg);
    DIR *d = opendir(arg);
    if (!d) {
        printf("# %s: %s\n", arg, strerror(errno));
        return -1;
    }
    size_t first = in->n;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char path[4096];
        if (e->d_name[0] == '.' ||
            (size_t)snprintf(path, sizeof path, "%s/%s", arg, e->d_name) >= sizeof path)
            continue;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = add_path(in, path);
    }
    closedir(d);
    qsort(in->paths + first, in->n - first, sizeof *in->paths, by_name);
    return rc;
}

/* Runs one input; 0 when it ran, -1 when it could not be read. */
static int replay(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("# %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b)
                free(buf);
            buf = b;
        }
    }
    int err = ferror(f) || !buf;
    fclose(f);
    if (err) {
        free(buf);
        printf("# %s: read error\n", path);
        return -1;
    }
    /* Exactly n bytes, so a read past the input's end is outside the allocation. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    struct inputs in = {0};
    int bad = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            bad |= add_arg(&in, argv[i]) != 0;
    } else {
        const char *name = strrchr(argv[0], '/');
        name = name ? name + 1 : argv[0];
        if (strncmp(name, "test_", 5) == 0)
            name += 5;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/seeds-%s", FUZZ_SEEDS_ROOT, name);
        bad |= add_arg(&in, dir) != 0;
    }
    printf("KTAP version 1\n1..%zu\n", in.n + (in.n == 0));
    if (in.n == 0) {
        printf("not ok 1 inputs # no input to replay\n");
        return 1;
    }
    int failed = 0;
    for (size_t i = 0; i < in.n; i++) {
        const char *base = strrchr(in.paths[i], '/');
        base = base ? base + 1 : in.paths[i];
        printf("# replaying %s\n", in.paths[i]);
        fflush(stdout);
        int rc = replay(in.paths[i]);
        printf("%s %zu %s\n", rc == 0 ? "ok" : "not ok", i + 1, base);
        failed |= rc != 0;
        free(in.paths[i]);
    }
    free(in.paths);
    printf("# replayed %zu inputs\n", in.n);
    return failed || bad ? 1 : 0;
}
