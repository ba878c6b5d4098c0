/* SPDX-License-Identifier: MIT */
/*
 * ehregister: register EventHeader tracepoints by name so perf can open them
 * before the program that writes them runs.
 *
 *   ehregister [--persist] [--hold SECONDS] TRACEPOINT_NAME...
 *   ehregister --delete TRACEPOINT_NAME...
 *
 * Each name is registered with the EventHeader command fields; an argument holding a
 * space is a whole definition, "NAME FIELDS", registered as it is (a producer that
 * is not EventHeader, such as OpenTelemetry's otlp_metrics: the kernel takes a second
 * registration of a name only with the same fields). Without --persist
 * the registration lives as long as this process: --hold keeps it alive for
 * SECONDS (0: until killed). --persist asks the kernel to keep the event after
 * exit (USER_EVENT_REG_PERSIST, kernel 6.7+, needs CAP_PERFMON). "ready" is
 * printed (and flushed) once every name is registered. --delete removes
 * persistent events (DIAG_IOCSDEL). Exit 0 on success, 1 on any error, 2 on usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "eventheader_user_events.h"

static int usage(void)
{
    fprintf(stderr, "usage: ehregister [--persist] [--hold SECONDS] NAME|'NAME FIELDS'...\n"
                    "       ehregister --delete TRACEPOINT_NAME...\n");
    return 2;
}

/* The name: up to the first space (a whole definition) or the end. */
static int name_ok(const char *arg, int del)
{
    size_t len = strcspn(arg, " ");
    if (arg[len] && (del || strlen(arg) + 1 > EH_NAME_MAX + sizeof(EH_COMMAND_FIELDS)))
        return 0;
    return len > 0 && len + 1 < EH_NAME_MAX && !memchr(arg, ':', len);
}

static void hold(long seconds)
{
    struct timespec left = {seconds, 0};
    if (seconds <= 0) {
        for (;;)
            pause();
    }
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
}

int main(int argc, char **argv)
{
    int persist = 0, del = 0, i = 1;
    long hold_s = -1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--persist") == 0) {
            persist = 1;
        } else if (strcmp(argv[i], "--delete") == 0) {
            del = 1;
        } else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc) {
            char *end;
            hold_s = strtol(argv[++i], &end, 10);
            if (*end || hold_s < 0)
                return usage();
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else {
            return usage();
        }
    }
    if (i >= argc || (del && (persist || hold_s >= 0)))
        return usage();

    int fd = eh_user_events_open_data();
    if (fd < 0) {
        fprintf(stderr, "ehregister: user_events_data: %s\n", strerror(-fd));
        return 1;
    }
    int n = argc - i, failed = 0;
    /* One enable word per registration: the kernel flips bit 0 of each. */
    uint32_t *status = calloc((size_t)n, sizeof *status);
    if (!status) {
        fprintf(stderr, "ehregister: %s\n", strerror(ENOMEM));
        return 1;
    }
    for (int k = 0; k < n; k++) {
        const char *name = argv[i + k];
        if (!name_ok(name, del)) {
            fprintf(stderr, "ehregister: %s: invalid tracepoint name\n", name);
            failed = 1;
            continue;
        }
        if (del) {
            if (ioctl(fd, EH_DIAG_IOCSDEL, name) < 0) {
                fprintf(stderr, "ehregister: %s: delete: %s\n", name, strerror(errno));
                failed = 1;
            }
            continue;
        }
        char cmd[EH_NAME_MAX + sizeof(" " EH_COMMAND_FIELDS)];
        if (strchr(name, ' '))
            snprintf(cmd, sizeof cmd, "%s", name);
        else
            snprintf(cmd, sizeof cmd, "%s %s", name, EH_COMMAND_FIELDS);
        struct eh_user_reg reg = {
            .size = sizeof reg,
            .enable_bit = 0,
            .enable_size = sizeof status[k],
            .flags = persist ? EH_USER_EVENT_REG_PERSIST : 0,
            .enable_addr = (uint64_t)(uintptr_t)&status[k],
            .name_args = (uint64_t)(uintptr_t)cmd,
        };
        if (ioctl(fd, EH_DIAG_IOCSREG, &reg) < 0) {
            fprintf(stderr, "ehregister: %s: register: %s\n", name, strerror(errno));
            failed = 1;
        }
    }
    if (failed) {
        free(status);
        return 1;
    }
    if (!del) {
        printf("ready\n");
        fflush(stdout);
        if (hold_s >= 0)
            hold(hold_s);
    }
    free(status);
    return 0;
}
