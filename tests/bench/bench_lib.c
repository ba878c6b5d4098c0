/* SPDX-License-Identifier: MIT */
/*
 * bench_lib: cost of libeventheader's hot paths (figures only, no pass/fail).
 *  - disabled check: EH_WRITE on an event nobody listens to (target <= 1 ns);
 *  - enabled 5-field event (u32, i64, str8, guid, f64) on the capture backend
 *    writing to /dev/null, next to a raw writev() of the same pre-encoded record
 *    to /dev/null (target: enabled <= 1.2 x raw).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "bench_event.h"

EH_DEFINE_PROVIDER(bench_on, "BenchLib");
EH_DEFINE_PROVIDER(bench_off, "BenchLibOff"); /* never registered: always disabled */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* User-mode CPU time only: shows the library's own work apart from the syscall. */
static double user_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3;
}

static const uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const char msg[] = "benchmark message";

static __attribute__((noinline)) int write_enabled(uint32_t i)
{
    return EH_WRITE(bench_on, EH_EVENT("Bench5", 5, 1), EH_U32("u32", i),
                    EH_I64("i64", -(int64_t)i), EH_STR8("str8", msg, sizeof msg - 1),
                    EH_GUID("guid", guid), EH_F64("f64", 1.5));
}

/* The same record, encoded by hand (bench_event.h): u32 size | name\0 | event. */
static size_t encode_record(uint8_t *out, uint32_t i)
{
    static const char name[] = "BenchLib_L5K1";
    size_t n = 4;
    uint32_t size;

    memcpy(out + n, name, sizeof name), n += sizeof name;
    n += bench_encode_event(out + n, i, msg, sizeof msg - 1, guid, 1.5);
    size = (uint32_t)n;
    memcpy(out, &size, 4);
    return n;
}

int main(void)
{
    setenv("EHCONF_CAPTURE", "/dev/null", 1);
    if (eh_provider_register(&bench_on) != 0) {
        fprintf(stderr, "bench_lib: register failed\n");
        return 1;
    }

    /* disabled check */
    const long disabled_n = 100000000;
    int sink = 0;
    double t0 = now_ns();
    for (long i = 0; i < disabled_n; i++)
        sink += EH_WRITE(bench_off, EH_EVENT("Off", 5, 1), EH_U32("i", (uint32_t)i));
    double disabled = (now_ns() - t0) / (double)disabled_n;
    if (sink != 9 * (int)disabled_n % 1000000007 && sink == 0)
        printf("impossible\n");
    printf("bench_lib: disabled check %.2f ns/op\n", disabled);

    /* enabled vs raw writev, interleaved rounds to share any machine noise */
    const int rounds = 10, per_round = 100000;
    int fd = open("/dev/null", O_WRONLY | O_APPEND | O_CLOEXEC);
    uint8_t rec[256];
    size_t rec_len = encode_record(rec, 7);
    struct iovec iov = {rec, rec_len};
    double best_lib = 1e30, best_raw = 1e30, user_lib = 0, user_raw = 0;
    int errors = 0;
    for (int r = 0; r < rounds; r++) {
        double u0 = user_ns();
        t0 = now_ns();
        for (int i = 0; i < per_round; i++)
            errors += write_enabled((uint32_t)i) != 0;
        double lib = (now_ns() - t0) / per_round;
        double u1 = user_ns();
        t0 = now_ns();
        for (int i = 0; i < per_round; i++)
            errors += writev(fd, &iov, 1) != (ssize_t)rec_len;
        double raw = (now_ns() - t0) / per_round;
        user_lib += u1 - u0;
        user_raw += user_ns() - u1;
        best_lib = lib < best_lib ? lib : best_lib;
        best_raw = raw < best_raw ? raw : best_raw;
    }
    close(fd);
    printf("bench_lib: enabled 5-field event %.1f ns/op (%zu-byte record)\n", best_lib, rec_len);
    printf("bench_lib: raw writev of the same bytes %.1f ns/op\n", best_raw);
    printf("bench_lib: enabled/raw ratio %.2f (target <= 1.2; best of %d rounds)\n",
           best_lib / best_raw, rounds);
    printf("bench_lib: user-mode CPU per op: library %.1f ns, raw writev %.1f ns\n",
           user_lib / rounds / per_round, user_raw / rounds / per_round);
    if (errors)
        printf("bench_lib: %d writes failed\n", errors);
    return errors ? 1 : 0;
}
