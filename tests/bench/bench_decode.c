/* SPDX-License-Identifier: MIT */
/*
 * Decoder throughput on the mixed file (tests/bench/support_mixed.h: five realistic event
 * shapes, 1,500,000 events): ehdecode decodes it to /dev/null in each output mode.
 * Figures only, never pass/fail (each timing the best of BEST_OF runs):
 *   - events/s and input MB/s per mode, wall and CPU time (CPU time, user + sys of the
 *     decoder alone, is the steadier figure on a shared machine), ehdecode's peak RSS, also on
 *     a file 15 times smaller (memory must not grow with the file);
 *   - instructions per event, counted by valgrind's callgrind on a 100,000-event file
 *     (repeatable whatever else the machine does; n/a without valgrind);
 *   - the floor: ehdecode's time over the time to write the same JSON bytes (read back
 *     from a file in 1 MiB chunks and written to /dev/null), measured in the same run;
 *   - --jobs 2 over --jobs 1, when ehdecode has --jobs.
 * Needs EHCONF_BUILD (make bench sets it) for the ehdecode binary.
 * `bench_decode --write-mixed PATH` only writes the mixed file to PATH (and PATH.dat, the
 * capture it is made from): the one file every decoder is timed on side by side
 * (harness/decoders/bench.py).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_mixed.h"

#define NEVENTS       1500000u
#define NEVENTS_SMALL 100000u

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

struct run {
    double wall, cpu;
    long rss_kb;
    int status;
};

/* Runs argv with stdout to out_path (or /dev/null) and stderr to err_path (or kept). */
static struct run run_child(char *const argv[], const char *out_path, const char *err_path)
{
    struct run r = {0, 0, -1, -1};
    double t0 = now();
    struct rusage ru;
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return r;
    if (pid == 0) {
        int fd = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        if (err_path) {
            int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (e < 0 || dup2(e, 2) < 0)
                _exit(126);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &r.status, 0, &ru) < 0)
        return r;
    r.wall = now() - t0;
    r.cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
    r.rss_kb = ru.ru_maxrss;
    return r;
}

static int ok(const struct run *r)
{
    /* ehdecode exits 1 when an event could not be decoded; the mixed file has none. */
    return r->rss_kb >= 0 && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* Timings are the best of BEST_OF runs: a shared virtual machine only ever slows a run
 * down, so the fastest is the closest to what the code costs. */
#define BEST_OF 3

static struct run faster(struct run a, struct run b)
{
    if (!ok(&a))
        return b;
    if (!ok(&b))
        return a;
    return b.wall < a.wall ? b : a;
}

static struct run best_of(char *const argv[])
{
    struct run best = {0, 0, -1, -1};
    for (int i = 0; i < BEST_OF; i++)
        best = faster(best, run_child(argv, NULL, NULL));
    return best;
}

static void report(const char *what, const struct run *r, double mb)
{
    if (!ok(r)) {
        printf("%-30s failed (status %d)\n", what, r->status);
        return;
    }
    printf("%-30s wall %6.2f s %5.2f M ev/s %6.1f MB/s | cpu %6.2f s %5.2f M ev/s | peak RSS %5.1f "
           "MB\n",
           what, r->wall, NEVENTS / r->wall / 1e6, mb / r->wall, r->cpu, NEVENTS / r->cpu / 1e6,
           (double)r->rss_kb / 1024.0);
    fflush(stdout);
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
}

/* The floor: the same JSON bytes written to /dev/null in 1 MiB chunks. */
static double write_floor(const char *json_path)
{
    static char chunk[1 << 20];
    int in = open(json_path, O_RDONLY), out = open("/dev/null", O_WRONLY);
    double t0 = now();
    ssize_t n;

    if (in < 0 || out < 0)
        return -1;
    while ((n = read(in, chunk, sizeof chunk)) > 0)
        if (write(out, chunk, (size_t)n) != n)
            break;
    close(in);
    close(out);
    return now() - t0;
}

/* Instructions of one decode of the small file under callgrind, or -1. */
static double callgrind_instructions(const char *bin, const char *path, const char *tmp,
                                     int has_jobs)
{
    char log[2200], line[512];
    /* one job: the count is the work of a decode, not of its threads' hand-offs */
    char *argv[] = {"valgrind",
                    "--tool=callgrind",
                    "--callgrind-out-file=/dev/null",
                    (char *)bin,
                    "--jobs",
                    "1",
                    (char *)path,
                    NULL};
    if (!has_jobs) {
        argv[4] = (char *)path;
        argv[5] = NULL;
    }
    struct run r;
    FILE *f;
    double n = -1;

    snprintf(log, sizeof log, "%s.callgrind", tmp);
    r = run_child(argv, NULL, log);
    if (r.rss_kb < 0 || !WIFEXITED(r.status) || WEXITSTATUS(r.status) == 127)
        return -1;
    if ((f = fopen(log, "r")) != NULL) {
        while (fgets(line, sizeof line, f)) {
            const char *c = strstr(line, "Collected :");
            if (c)
                n = strtod(c + strlen("Collected :"), NULL);
        }
        fclose(f);
    }
    unlink(log);
    return n;
}

static int has_option(const char *bin, const char *opt, const char *tmp)
{
    char out[2200], text[8192];
    char *argv[] = {(char *)bin, "--help", NULL};
    FILE *f;
    size_t n = 0;

    snprintf(out, sizeof out, "%s.help", tmp);
    run_child(argv, out, out);
    if ((f = fopen(out, "r")) != NULL) {
        n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
    }
    unlink(out);
    text[n] = 0;
    return strstr(text, opt) != NULL;
}

/* --write-mixed PATH: the mixed file alone. */
static int write_mixed(const char *path)
{
    char dat[4096];
    int err;
    snprintf(dat, sizeof dat, "%s.dat", path);
    if ((err = mixed_write_capture(dat)) != 0 ||
        (err = mixed_write_perf(dat, path, NEVENTS)) != 0) {
        fprintf(stderr, "bench_decode: cannot write %s: %s\n", path, strerror(err));
        return 1;
    }
    printf("mixed file: %u events of 5 shapes, %s\n", NEVENTS, path);
    return 0;
}

int main(int argc, char **args)
{
    const char *build = getenv("EHCONF_BUILD"), *tmpdir = getenv("TMPDIR");
    char bin[512], base[2048], dat[2100], big[2100], small[2100], json[2100];
    double t0 = now(), mb;
    int err;

    if (argc == 3 && strcmp(args[1], "--write-mixed") == 0)
        return write_mixed(args[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: bench_decode | bench_decode --write-mixed PATH\n");
        return 2;
    }

    if (!build) {
        fprintf(stderr, "bench_decode: EHCONF_BUILD is not set (run it with make bench)\n");
        return 1;
    }
    snprintf(bin, sizeof bin, "%s/bin/ehdecode", build);
    if (access(bin, X_OK) != 0) {
        fprintf(stderr, "bench_decode: %s not built\n", bin);
        return 1;
    }
    snprintf(base, sizeof base, "%s/ehconf-mixed-%d", tmpdir && tmpdir[0] ? tmpdir : "/tmp",
             (int)getpid());
    snprintf(dat, sizeof dat, "%s.dat", base);
    snprintf(big, sizeof big, "%s.perf.data", base);
    snprintf(small, sizeof small, "%s-small.perf.data", base);
    snprintf(json, sizeof json, "%s.json", base);
    if ((err = mixed_write_capture(dat)) != 0 || (err = mixed_write_perf(dat, big, NEVENTS)) != 0 ||
        (err = mixed_write_perf(dat, small, NEVENTS_SMALL)) != 0) {
        fprintf(stderr, "bench_decode: cannot write the mixed file: %s\n", strerror(err));
        return 1;
    }
    mb = file_mb(big);
    printf("mixed file: %u events of 5 shapes, %.1f MB of perf.data, written in %.2f s\n", NEVENTS,
           mb, now() - t0);

    /* One job in every mode: the single-thread figures (the 2.0 M events/s). */
    int has_jobs = has_option(bin, "--jobs", dat);
    static const struct {
        const char *name, *arg;
    } modes[] = {{"default", NULL}, {"--json-lines", "--json-lines"}, {"--golden", "--golden"}};
    struct run def = {0, 0, -1, -1}, one_job = {0, 0, -1, -1};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        char *argv[6], name[64];
        int k = 0;
        argv[k++] = bin;
        if (has_jobs) {
            argv[k++] = "--jobs";
            argv[k++] = "1";
        }
        if (modes[m].arg)
            argv[k++] = (char *)modes[m].arg;
        argv[k++] = big;
        argv[k] = NULL;
        snprintf(name, sizeof name, "ehdecode%s %s", has_jobs ? " --jobs 1" : "", modes[m].name);
        struct run r = best_of(argv);
        report(name, &r, mb);
        if (m == 0) {
            one_job = r;
            /* Once more into a file: the JSON bytes the floor writes. */
            def = run_child(argv, json, NULL);
        }
    }

    if (has_jobs) {
        /* One and two jobs in turn, so both meet the same moments of a shared machine. */
        char *a1[] = {bin, "--jobs", "1", big, NULL}, *a2[] = {bin, "--jobs", "2", big, NULL};
        struct run j1 = one_job, j2 = {0, 0, -1, -1};
        for (int i = 0; i < BEST_OF; i++) {
            j1 = faster(j1, run_child(a1, NULL, NULL));
            j2 = faster(j2, run_child(a2, NULL, NULL));
        }
        report("ehdecode --jobs 2 default", &j2, mb);
        if (ok(&j1) && ok(&j2))
            printf("--jobs 2 is %.2fx as fast as --jobs 1 (wall, default output, best of %d "
                   "alternating runs each)\n",
                   j1.wall / j2.wall, BEST_OF);
    } else {
        printf("--jobs: n/a (this ehdecode has no --jobs option)\n");
    }

    /* Peak RSS must not grow with the file: the same decodes of a file 15 times smaller. */
    for (int jobs = 1; jobs <= (has_jobs ? 2 : 1); jobs++) {
        char *argv[] = {bin, "--jobs", jobs == 1 ? "1" : "2", small, NULL};
        struct run r = run_child(has_jobs ? argv : (char *[]){bin, small, NULL}, NULL, NULL);
        if (ok(&r))
            printf("peak RSS, %d job%s: %.1f MB on the %u-event file\n", jobs, jobs > 1 ? "s" : "",
                   (double)r.rss_kb / 1024.0, NEVENTS_SMALL);
    }

    double floor_s = write_floor(json), json_mb = file_mb(json);
    if (ok(&def) && floor_s > 0)
        printf(
            "floor: writing the same %.0f MB of JSON takes %.3f s; ehdecode (default, to a file) "
            "takes %.1fx that\n",
            json_mb, floor_s, def.wall / floor_s);

    double ins = callgrind_instructions(bin, small, dat, has_jobs);
    if (ins > 0)
        printf("instructions per event: %.0f (callgrind, one job, default output, %u-event file)\n",
               ins / NEVENTS_SMALL, NEVENTS_SMALL);
    else
        printf("instructions per event: n/a (valgrind not available)\n");

    if (!getenv("EHCONF_BENCH_KEEP")) {
        unlink(dat);
        unlink(big);
        unlink(small);
        unlink(json);
    }
    return 0;
}
