/* SPDX-License-Identifier: MIT */
/*
 * gen_captures: the event writers behind the .perf.data files in tests/data/perf/ (make-captures.sh
 * runs them under perf in the ehconf guest; README.md there says what each file holds).
 *
 *   gen_captures hello   5 events "Hello" of provider Sample_Provider (level 5, keyword
 *                        0x1) through libeventheader: n = i (u32), msg = "hello #i"
 *                        (str8), pt = { x = i*10-20, y = -i } (two i16), i = 0..4
 *   gen_captures ladder  12 EventHeader events on TestProv_L5K1 written with the raw ABI:
 *                        the 8-byte header only (flags 0x03: no extension, so no field
 *                        metadata), then N data bytes whose first 8 hold N (u64 LE), the
 *                        rest 'a'; N = 16 ... 60000 (perf delivers N <= 8176: 8184 bytes after the index)
 *
 * Each mode waits (5 s at most) until a tracer has enabled its tracepoint, so nothing is
 * written before perf records. Exit status 0, or 1 with a reason on stderr.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "eventheader_user_events.h"

static EH_DEFINE_PROVIDER(sample_provider, "Sample_Provider");

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int hello(void)
{
    int err = eh_provider_register(&sample_provider);
    if (err) {
        fprintf(stderr, "gen_captures: eh_provider_register: %s\n", strerror(err));
        return 1;
    }
    for (int t = 0; t < 5000 && !EH_ENABLED(sample_provider, EH_LEVEL_VERBOSE, 0x1); t++)
        sleep_ms(1);
    for (int i = 0; i < 5; i++) {
        char msg[32];
        int len = snprintf(msg, sizeof msg, "hello #%d", i);
        err = EH_WRITE(
            sample_provider, EH_EVENT("Hello", EH_LEVEL_VERBOSE, 0x1), EH_U32("n", (uint32_t)i),
            EH_STR8("msg", msg, (size_t)len),
            EH_STRUCT("pt", EH_I16("x", (int16_t)(i * 10 - 20)), EH_I16("y", (int16_t)-i)));
        if (err) {
            fprintf(stderr, "gen_captures: Hello %d: %s\n", i, strerror(err));
            return 1;
        }
    }
    eh_provider_unregister(&sample_provider);
    return 0;
}

static int ladder(void)
{
    static const uint64_t sizes[] = {16,   4000, 4100, 8000, 8150, 8170,
                                     8180, 8184, 8185, 8192, 9000, 60000};
    static uint8_t data[60000];
    /* flags 0x03 (pointer64 | little-endian, no extension), version 0, id 0, tag 0,
     * opcode 0, level 5 */
    static const uint8_t header[8] = {0x03, 0, 0, 0, 0, 0, 0, 5};
    char cmd[256];
    uint32_t word = 0, index = 0;
    struct eh_user_reg reg;
    int fd = eh_user_events_open_data();

    if (fd < 0) {
        fprintf(stderr, "gen_captures: user_events_data: %s\n", strerror(-fd));
        return 1;
    }
    snprintf(cmd, sizeof cmd, "TestProv_L5K1 %s", EH_COMMAND_FIELDS);
    memset(&reg, 0, sizeof reg);
    reg.size = sizeof reg;
    reg.enable_size = sizeof word;
    reg.enable_addr = (uint64_t)(uintptr_t)&word;
    reg.name_args = (uint64_t)(uintptr_t)cmd;
    if (ioctl(fd, EH_DIAG_IOCSREG, &reg) < 0) {
        fprintf(stderr, "gen_captures: DIAG_IOCSREG: %s\n", strerror(errno));
        return 1;
    }
    index = reg.write_index;
    for (int t = 0; t < 5000 && !__atomic_load_n(&word, __ATOMIC_RELAXED); t++)
        sleep_ms(1);
    memset(data, 'a', sizeof data);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct iovec iov[3] = {
            {.iov_base = &index, .iov_len = sizeof index},
            {.iov_base = (void *)header, .iov_len = sizeof header},
            {.iov_base = data, .iov_len = sizes[k]},
        };
        memcpy(data, &sizes[k], sizeof sizes[k]);
        if (writev(fd, iov, 3) < 0) {
            fprintf(stderr, "gen_captures: writev of %llu bytes: %s\n",
                    (unsigned long long)sizes[k], strerror(errno));
            return 1;
        }
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "hello") == 0)
        return hello();
    if (argc == 2 && strcmp(argv[1], "ladder") == 0)
        return ladder();
    fprintf(stderr, "usage: gen_captures hello|ladder\n");
    return 2;
}
