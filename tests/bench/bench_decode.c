/* SPDX-License-Identifier: MIT */
/*
 * Decoder throughput: writes a perf.data with 1,000,000 EventHeader samples of
 * three different event shapes (plus a sched_switch every 64th sample), then
 * decodes it to /dev/null with the default output and with --golden.
 * Prints events/s, input MB/s and peak RSS. Figures only, never pass/fail.
 *
 * With EHCONF_BUILD set (make bench does), the real ehdecode binary is run as
 * a child and its own peak RSS is measured (wait4); otherwise the library is
 * timed in-process and the process's peak RSS is shown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ehd_perf.h"

#define NEVENTS 1000000u

/* Three little-endian EventHeader events (header, metadata extension, payload). */
static const uint8_t ev_hello[] = {
    0x07, 0,   0,   0,    0,   0,    0,   5,    27,   0,    1,    0,    'H', 'e', 'l',
    'l',  'o', 0,   'n',  0,   0x04, 'm', 's',  'g',  0,    0x0a, 'p',  't', 0,   0x81,
    2,    'x', 0,   0x83, 2,   'y',  0,   0x83, 2,    42,   0,    0,    0,   8,   0,
    'h',  'e', 'l', 'l',  'o', ' ',  '#', '1',  0xf6, 0xff, 0xfe, 0xff,
};
static const uint8_t ev_numbers[] = {
    0x07, 1,    7,    0,    0x34, 0x12, 0,    4,    24,  0, 1,    0,    'N',  'u',  'm',  0,
    'h',  0,    0x85, 0x03, 'f',  0,    0x85, 0x08, 'b', 0, 0x84, 0x07, 'e',  0,    0x84, 0x04,
    's',  0,    0x82, 0x02, 0xef, 0xbe, 0xad, 0xde, 0,   0, 0,    0,    0x18, 0x2d, 0x44, 0x54,
    0xfb, 0x21, 0x09, 0x40, 1,    0,    0,    0,    2,   0, 0,    0,    0xfb,
};
static const uint8_t ev_strings[] = {
    0x07, 0,    0,   0, 0,    0,   1, 5,    13,  0,   1,   0,   'S', 't', 'r', 0,   'z',
    0,    0x07, 'b', 0, 0x0d, 'a', 0, 0x43, 'a', ' ', 'z', 's', 't', 'r', 'i', 'n', 'g',
    0,    4,    0,   1, 2,    3,   4, 3,    0,   1,   0,   2,   0,   3,   0,
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int generate(const char *path)
{
    FILE *f = fopen(path, "w+b");
    if (!f)
        return -1;
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    ehd_perf_writer_opts o = {0};
    o.sched = 1;
    o.round_every = 1000;
    static const char *const names[3] = {"Bench_L5K1", "Bench_L4K3", "Bench2_L5K0"};
    const char *reason;
    ehd_perf_writer *w = ehd_perf_writer_open(f, &o, names, 3, &reason);
    if (!w) {
        fclose(f);
        return -1;
    }
    uint8_t sched[56];
    ehd_perf_writer_sched_payload(w, sched, "bench", 100, 120, 1, "swapper/1", 0, 120);
    for (unsigned i = 0; i < NEVENTS; i++) {
        uint64_t t = 1000000000ull + (uint64_t)i * 100 + (i % 7) * 13; /* mildly unsorted */
        if (i % 64 == 63) {
            ehd_perf_writer_sample(w, 3, sched, sizeof sched, t, 100, 100, i % 2);
            continue;
        }
        switch (i % 3) {
        case 0: ehd_perf_writer_sample(w, 0, ev_hello, sizeof ev_hello, t, 100, 101, i % 2); break;
        case 1:
            ehd_perf_writer_sample(w, 1, ev_numbers, sizeof ev_numbers, t, 100, 101, i % 2);
            break;
        default:
            ehd_perf_writer_sample(w, 2, ev_strings, sizeof ev_strings, t, 100, 101, i % 2);
            break;
        }
    }
    int rc = ehd_perf_writer_finish(w);
    fclose(f);
    return rc;
}

static void emit_null(void *ctx, const char *json, size_t len)
{
    fwrite(json, 1, len, ctx);
    fputc('\n', ctx);
}

/* Wall time and CPU time are both shown: the machine may be shared, and CPU
 * time (user + sys of the decoder alone) is the steadier figure. */
static void report(const char *what, double secs, double cpu, double mb, long rss_kb)
{
    printf("%-22s wall %7.3f s %9.0f ev/s %6.1f MB/s | cpu %7.3f s %9.0f ev/s %6.1f MB/s | "
           "peak RSS %5.1f MB\n",
           what, secs, NEVENTS / secs, mb / secs, cpu, NEVENTS / cpu, mb / cpu,
           (double)rss_kb / 1024.0);
    fflush(stdout);
}

static double tv(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* Runs ehdecode [arg] path > /dev/null as a child; returns its peak RSS in KiB. */
static long run_child(const char *bin, const char *arg, const char *path, double *secs, double *cpu)
{
    double t0 = now();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *dn = freopen("/dev/null", "w", stdout);
        (void)dn;
        if (arg)
            execl(bin, bin, arg, path, (char *)NULL);
        else
            execl(bin, bin, path, (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return -1;
    *secs = now() - t0;
    *cpu = tv(ru.ru_utime) + tv(ru.ru_stime);
    if (!WIFEXITED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 1))
        fprintf(stderr, "bench_decode: %s exited with status %d\n", bin, st);
    return ru.ru_maxrss;
}

int main(void)
{
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/ehconf-bench-%d.perf.data", tmp && tmp[0] ? tmp : "/tmp",
             (int)getpid());
    double t0 = now();
    if (generate(path) != 0) {
        fprintf(stderr, "bench_decode: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    struct stat stt;
    stat(path, &stt);
    double mb = (double)stt.st_size / 1e6;
    printf("generated %u samples, %.1f MB in %.2f s (%s)\n", NEVENTS, mb, now() - t0, path);
    fflush(stdout);

    const char *build = getenv("EHCONF_BUILD");
    char bin[512] = "";
    if (build)
        snprintf(bin, sizeof bin, "%s/bin/ehdecode", build);
    if (build && access(bin, X_OK) == 0) {
        double secs, cpu;
        long rss = run_child(bin, NULL, path, &secs, &cpu);
        report("ehdecode (default)", secs, cpu, mb, rss);
        rss = run_child(bin, "--golden", path, &secs, &cpu);
        report("ehdecode --golden", secs, cpu, mb, rss);
    } else {
        static const struct {
            const char *name;
            unsigned flags;
        } modes[2] = {{"library (default)", EHD_JSON_SPACE | EHD_JSON_FIELD_TAG},
                      {"library (golden)", EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN}};
        FILE *dn = fopen("/dev/null", "w");
        for (int m = 0; m < 2 && dn; m++) {
            FILE *in = fopen(path, "rb");
            if (!in)
                break;
            struct rusage r0, ru;
            getrusage(RUSAGE_SELF, &r0);
            double t1 = now();
            ehd_perf_decode(in, modes[m].flags, emit_null, dn, NULL, NULL);
            double secs = now() - t1;
            fclose(in);
            getrusage(RUSAGE_SELF, &ru);
            double cpu = tv(ru.ru_utime) + tv(ru.ru_stime) - tv(r0.ru_utime) - tv(r0.ru_stime);
            report(modes[m].name, secs, cpu, mb, ru.ru_maxrss);
        }
        if (dn)
            fclose(dn);
    }
    if (!getenv("EHCONF_BENCH_KEEP"))
        unlink(path);
    return 0;
}
