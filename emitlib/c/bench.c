/* SPDX-License-Identifier: MIT */
/* The shared parts of `emit --bench` (bench.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, for the build scripts' plain -std=c11 */
#include "bench.h"

#include <stdio.h>
#include <time.h>

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bench_count(const char *text, uint64_t *count)
{
    uint64_t n = 0;
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || n > 10000000000u / 10)
            return -1;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    if (n == 0 || n > 10000000000u)
        return -1;
    *count = n;
    return 0;
}

void bench_report(uint32_t ordinal, uint64_t count, uint64_t ns, uint64_t failed)
{
    printf("bench %u %llu %llu %llu\n", ordinal, (unsigned long long)count, (unsigned long long)ns,
           (unsigned long long)failed);
    fflush(stdout);
}
