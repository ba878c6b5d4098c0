// SPDX-License-Identifier: GPL-2.0
/*
 * replay_writev COUNT CAPTURE.dat: the baseline of make bench-impls (harness/impl/bench.py):
 * a raw writev() of the same bytes an implementation wrote, with no library in between.
 * Takes the first record of CAPTURE.dat (the stand-in's capture format: u32 size |
 * tracepoint name | NUL | event bytes), registers that tracepoint itself on
 * user_events_data (the stand-in's, or the kernel's: the EventHeader command), then writes
 * the event COUNT times as [write index, event bytes] with one writev each, timed. Prints
 * the line every `emit --bench` prints (emitlib/c/bench.h):
 *   bench 1 <count> <ns> <failed>
 * Exit 0, 1 when a write failed or the registration did, 2 for bad arguments or a bad file.
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
#include "eventheader_user_events.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first record of the capture: name into name[], event bytes into a malloc'd buffer. */
static int read_record(const char *path, char *name, size_t name_cap, uint8_t **event, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t head[4];
    if (!f) {
        fprintf(stderr, "replay_writev: %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *rec = NULL;
    uint32_t size = 0;
    int ok = fread(head, 1, 4, f) == 4;
    if (ok) {
        size = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 |
               (uint32_t)head[3] << 24;
        ok = size > 5 && size <= 4 + 65536 + 256 && (rec = malloc(size)) &&
             fread(rec, 1, size - 4, f) == size - 4;
    }
    fclose(f);
    size_t body = ok ? size - 4 : 0;
    size_t nlen = ok ? strnlen((const char *)rec, body) : 0;
    if (!ok || nlen == body || nlen == 0 || nlen >= name_cap) {
        fprintf(stderr, "replay_writev: %s, offset 0: no whole first record\n", path);
        free(rec);
        return -1;
    }
    memcpy(name, rec, nlen + 1);
    *len = body - nlen - 1;
    *event = malloc(*len ? *len : 1);
    if (!*event) {
        free(rec);
        return -1;
    }
    memcpy(*event, rec + nlen + 1, *len);
    free(rec);
    return 0;
}

int main(int argc, char **argv)
{
    char name[EH_NAME_MAX + 1], cmd[EH_NAME_MAX + sizeof(" " EH_COMMAND_FIELDS)];
    uint8_t *event;
    size_t len;
    char *end;
    unsigned long long count = argc == 3 ? strtoull(argv[1], &end, 10) : 0;
    if (argc != 3 || !count || *end || argv[1][0] == '-') {
        fputs("usage: replay_writev COUNT CAPTURE.dat\n", stderr);
        return 2;
    }
    if (read_record(argv[2], name, sizeof name, &event, &len))
        return 2;
    snprintf(cmd, sizeof cmd, "%s %s", name, EH_COMMAND_FIELDS);
    int fd = open(EH_USER_EVENTS_DATA, O_RDWR | O_CLOEXEC);
    static uint32_t enabled; /* the kernel writes the bit here */
    struct eh_user_reg reg;
    memset(&reg, 0, sizeof reg);
    reg.size = sizeof reg;
    reg.enable_size = sizeof enabled;
    reg.enable_addr = (uint64_t)(uintptr_t)&enabled;
    reg.name_args = (uint64_t)(uintptr_t)cmd;
    if (fd < 0 || ioctl(fd, EH_DIAG_IOCSREG, &reg) != 0) {
        fprintf(stderr, "replay_writev: registering %s: %s\n", name, strerror(errno));
        return 1;
    }
    uint32_t index = reg.write_index;
    struct iovec iov[2] = {{&index, sizeof index}, {event, len}};
    unsigned long long failed = 0;
    uint64_t t0 = now_ns();
    for (unsigned long long i = 0; i < count; i++)
        failed += writev(fd, iov, 2) != (ssize_t)(sizeof index + len);
    uint64_t ns = now_ns() - t0;
    printf("bench 1 %llu %llu %llu\n", count, (unsigned long long)ns, failed);
    close(fd);
    free(event);
    return failed ? 1 : 0;
}
