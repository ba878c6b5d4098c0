// SPDX-License-Identifier: GPL-2.0
/*
 * bench_vm: the `make bench` figures on a real kernel (run in the guest by
 * harness/vm/guest_run.py --bench while `perf record -a -e user_events:EhconfBench_L5K1`
 * is recording; figures only, never pass/fail):
 *  - ns per enabled 5-field event (u32, i64, str8, guid, f64) written by libeventheader
 *    to user_events, next to a raw writev() of the same bytes on its own registration
 *    of the same tracepoint (what the library adds on top of the syscall);
 *  - ns per disabled check (EH_WRITE of an event nobody listens to).
 * Under TCG the absolute numbers are those of an emulated CPU: compare the two columns.
 * Exit 1 if the event never becomes enabled (perf not recording) or a write fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "bench/bench_event.h"
#include "eventheader_user_events.h"

static EH_DEFINE_PROVIDER(bench_provider, "EhconfBench");
static EH_DEFINE_PROVIDER(bench_silent, "EhconfBenchOff"); /* never registered */

static const uint8_t guid[16] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
                                 1,    2,    3,    4,    5,    6,    7,    8};
static const char text[] = "bench_vm payload";

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static __attribute__((noinline)) int lib_write(uint32_t i)
{
    return EH_WRITE(bench_provider, EH_EVENT("Bench5", EH_LEVEL_VERBOSE, 0x1), EH_U32("u32", i),
                    EH_I64("i64", -(int64_t)i), EH_STR8("str8", text, sizeof text - 1),
                    EH_GUID("guid", guid), EH_F64("f64", 2.5));
}

/* The same event encoded by hand (tests/bench/bench_event.h). */
static size_t encode_event(uint8_t *out, uint32_t i)
{
    return bench_encode_event(out, i, text, sizeof text - 1, guid, 2.5);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5, per_round = argc > 2 ? atoi(argv[2]) : 20000;
    long disabled_n = 50000000; /* the guest clock may tick in 4 ms steps: long loops */
    char cmd[EH_NAME_MAX + sizeof(" " EH_COMMAND_FIELDS)], name[EH_NAME_MAX];
    uint32_t raw_enabled = 0;
    struct eh_user_reg reg;
    uint8_t event[256];
    double best_lib = 1e30, best_raw = 1e30, t0;
    int fd, errors = 0, sink = 0;

    unsetenv("EHCONF_CAPTURE");
    if (eh_provider_register(&bench_provider) != 0 ||
        eh_tracepoint_name(name, "EhconfBench", NULL, EH_LEVEL_VERBOSE, 0x1) != 0) {
        fprintf(stderr, "bench_vm: cannot register with user_events\n");
        return 1;
    }
    /* perf records this tracepoint: wait (bounded) until the kernel says so. */
    for (int i = 0; i < 5000 && lib_write(0) == EBADF; i++)
        usleep(1000);
    if (lib_write(0) != 0) {
        fprintf(stderr, "bench_vm: %s is not enabled (is perf recording it?)\n", name);
        return 1;
    }
    fd = open("/sys/kernel/tracing/user_events_data", O_RDWR | O_CLOEXEC);
    snprintf(cmd, sizeof cmd, "%s %s", name, EH_COMMAND_FIELDS);
    memset(&reg, 0, sizeof reg);
    reg.size = sizeof reg;
    reg.enable_size = sizeof raw_enabled;
    reg.enable_addr = (uint64_t)(uintptr_t)&raw_enabled;
    reg.name_args = (uint64_t)(uintptr_t)cmd;
    if (fd < 0 || ioctl(fd, EH_DIAG_IOCSREG, &reg) != 0) {
        fprintf(stderr, "bench_vm: raw registration of %s failed: %s\n", name, strerror(errno));
        return 1;
    }

    /* Interleaved rounds, best of each: both paths see the same machine noise. */
    for (int r = 0; r < rounds; r++) {
        uint32_t index = reg.write_index;
        size_t len = encode_event(event, 7);
        struct iovec iov[2] = {{&index, sizeof index}, {event, len}};
        double lib, raw;

        t0 = now_ns();
        for (int i = 0; i < per_round; i++)
            errors += lib_write((uint32_t)i) != 0;
        lib = (now_ns() - t0) / per_round;
        t0 = now_ns();
        for (int i = 0; i < per_round; i++)
            errors += writev(fd, iov, 2) != (ssize_t)(sizeof index + len);
        raw = (now_ns() - t0) / per_round;
        best_lib = lib < best_lib ? lib : best_lib;
        best_raw = raw < best_raw ? raw : best_raw;
    }
    t0 = now_ns();
    for (long i = 0; i < disabled_n; i++)
        sink += EH_WRITE(bench_silent, EH_EVENT("Off", EH_LEVEL_VERBOSE, 0x1),
                         EH_U32("i", (uint32_t)i)) == 0;
    printf("bench_vm: enabled 5-field event via libeventheader: %.0f ns/event (best of %d x %d)\n",
           best_lib, rounds, per_round);
    printf("bench_vm: raw writev of the same %zu bytes:          %.0f ns/event\n",
           encode_event(event, 7), best_raw);
    printf("bench_vm: library / raw: %.2f\n", best_lib / best_raw);
    printf("bench_vm: disabled check: %.2f ns/op (%d enabled, expected 0)\n",
           (now_ns() - t0) / (double)disabled_n, sink);
    eh_provider_unregister(&bench_provider);
    close(fd);
    if (errors) {
        fprintf(stderr, "bench_vm: %d writes failed\n", errors);
        return 1;
    }
    return 0;
}
