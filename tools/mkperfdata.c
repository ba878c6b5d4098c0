/* SPDX-License-Identifier: MIT */
/*
 * mkperfdata: wraps the EventHeader events of a capture (.dat) file into a
 * perf.data, the way `perf record -e user_events:...` would record them, so
 * the perf reader can be tested without a kernel.
 *
 *   mkperfdata [--pipe] [--big-endian] [--sched] [--clock] [--round N] -o OUT CAPTURE.dat
 *
 * Samples: time = 1 s + i us (i = event index), pid = tid = 4242, cpu = i % 4.
 * --sched     after every 2nd event also a sched:sched_switch sample, timed 500 ns
 *             *before* that event (so the decoder's per-round sort must move it)
 * --clock     CLOCK_DATA: perf time 1 s = 2024-01-01T00:00:00Z
 * --round N   FINISHED_ROUND after every N samples (default 16)
 * Exit: 0 ok, 1 input problem (reported), 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd.h"
#include "ehd_perf.h"

static void usage(FILE *to)
{
    fputs("usage: mkperfdata [--pipe] [--big-endian] [--sched] [--clock] [--round N] -o OUT "
          "CAPTURE.dat\n",
          to);
}

/* Distinct tracepoint names in order of first appearance. */
struct names {
    char **v;
    size_t n;
};

static long name_index(const struct names *nm, const char *s, size_t len)
{
    for (size_t i = 0; i < nm->n; i++)
        if (strlen(nm->v[i]) == len && memcmp(nm->v[i], s, len) == 0)
            return (long)i;
    return -1;
}

static int name_add(struct names *nm, const char *s, size_t len)
{
    char **nv = realloc(nm->v, (nm->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nm->v = nv;
    nm->v[nm->n] = strndup(s, len);
    if (!nm->v[nm->n])
        return -1;
    nm->n++;
    return 0;
}

int main(int argc, char **argv)
{
    ehd_perf_writer_opts o = {0};
    o.round_every = 16;
    const char *out_name = NULL, *in_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--pipe") == 0)
            o.pipe = 1;
        else if (strcmp(a, "--big-endian") == 0)
            o.big_endian = 1;
        else if (strcmp(a, "--sched") == 0)
            o.sched = 1;
        else if (strcmp(a, "--clock") == 0) {
            o.clock_data = 1;
            o.wall_ns = 1704067200ull * 1000000000ull;
            o.clock_ns = 1000000000ull;
        } else if (strcmp(a, "--round") == 0 && i + 1 < argc)
            o.round_every = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            out_name = argv[++i];
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-' || in_name) {
            usage(stderr);
            return 2;
        } else
            in_name = a;
    }
    if (!out_name || !in_name) {
        usage(stderr);
        return 2;
    }
    FILE *in = fopen(in_name, "rb");
    if (!in) {
        fprintf(stderr, "mkperfdata: %s: %s\n", in_name, strerror(errno));
        return 1;
    }
    int status = 0;
    struct names nm = {0};
    const char *reason;
    uint64_t off;
    ehd_dat_record rec;
    int rc;

    /* pass 1: the tracepoints (one attr each) */
    ehd_dat_reader *dr = ehd_dat_open(in);
    while (dr && (rc = ehd_dat_next(dr, &rec, &reason, &off)) > 0)
        if (name_index(&nm, rec.tp_name, rec.tp_name_len) < 0 &&
            name_add(&nm, rec.tp_name, rec.tp_name_len) != 0) {
            fputs("mkperfdata: out of memory\n", stderr);
            return 1;
        }
    if (!dr || rc < 0) {
        fprintf(stderr, "mkperfdata: %s:%llu: %s\n", in_name, (unsigned long long)off,
                dr ? reason : "out of memory");
        status = 1;
    }
    ehd_dat_close(dr);

    FILE *out = fopen(out_name, "w+b");
    if (!out) {
        fprintf(stderr, "mkperfdata: %s: %s\n", out_name, strerror(errno));
        return 1;
    }
    ehd_perf_writer *w = ehd_perf_writer_open(out, &o, (const char *const *)nm.v, nm.n, &reason);
    if (!w) {
        fprintf(stderr, "mkperfdata: %s\n", reason);
        return 1;
    }

    /* pass 2: the samples */
    rewind(in);
    dr = ehd_dat_open(in);
    uint64_t i = 0;
    while (dr && (rc = ehd_dat_next(dr, &rec, &reason, &off)) > 0) {
        size_t tp = (size_t)name_index(&nm, rec.tp_name, rec.tp_name_len);
        uint64_t t = 1000000000ull + i * 1000;
        if (ehd_perf_writer_sample(w, tp, rec.data, rec.size, t, 4242, 4242, (uint32_t)(i % 4))) {
            fprintf(stderr, "mkperfdata: %s:%llu: event too large for a perf sample; skipped\n",
                    in_name, (unsigned long long)rec.file_offset);
            status = 1;
        }
        if (o.sched && i % 2 == 1) {
            uint8_t p[56];
            ehd_perf_writer_sched_payload(w, p, "app", 4242, 120, 1, "swapper/0", 0, 120);
            ehd_perf_writer_sample(w, nm.n, p, sizeof p, t - 500, 4242, 4242, 0);
        }
        i++;
    }
    ehd_dat_close(dr);
    if (ehd_perf_writer_finish(w) != 0) {
        fprintf(stderr, "mkperfdata: %s: write error\n", out_name);
        status = 1;
    }
    if (fclose(out) != 0)
        status = 1;
    fclose(in);
    for (size_t k = 0; k < nm.n; k++)
        free(nm.v[k]);
    free(nm.v);
    return status;
}
