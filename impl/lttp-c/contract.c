// SPDX-License-Identifier: GPL-2.0
/*
 * emit --contract: the line protocol of Documentation/impl-contract.md through
 * microsoft/LinuxTracepoints' C macros (eventheader/TraceLoggingProvider.h). The event is
 * fixed, so it is written here by hand rather than generated: provider EhconfContract,
 * event Contract (level 4, keyword 0x1), fields seq (u32) and pad (string_length16_char8,
 * default format: TraceLoggingCountedUtf8String, as gen.c writes a `str8`).
 *
 * Each command calls the macro as is and answers what it returned: the emitter decides
 * nothing (so `register` on a registered provider reaches the library's own precondition).
 * One answer line per command, flushed at once: the guest reads through a pipe.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <eventheader/TraceLoggingProvider.h>

#include "contract.h"

TRACELOGGING_DEFINE_PROVIDER(lttpc_contract, "EhconfContract", (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));

/* The macro stores the count in a uint16_t: a longer pad would be silently truncated, so
   it is refused as malformed instead. */
#define PAD_MAX 65535
static char g_pad[PAD_MAX];

static void answer(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
static void answer(char const *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static void answer_errno(int err)
{
    if (err)
        answer("error %d", err);
    else
        answer("ok");
}

static int contract_register(void)
{
    return TraceLoggingRegister(lttpc_contract);
}

static int contract_enabled(void)
{
    return TraceLoggingProviderEnabled(lttpc_contract, 4, 0x1) ? 1 : 0;
}

/* TraceLoggingWrite returns 0 or an errno (EBADF when nobody listens). */
static int contract_write(uint32_t seq, unsigned pad)
{
    return TraceLoggingWrite(lttpc_contract, "Contract", TraceLoggingLevel(4),
                             TraceLoggingKeyword(0x1), TraceLoggingUInt32(seq, "seq"),
                             TraceLoggingCountedUtf8String(g_pad, pad, "pad"));
}

static void *register_thread(void *arg)
{
    *(int *)arg = contract_register();
    return NULL;
}

static void thread_register(void)
{
    pthread_t t;
    int err = 0, rc = pthread_create(&t, NULL, register_thread, &err);
    if (!rc)
        rc = pthread_join(t, NULL);
    answer_errno(rc ? rc : err);
}

/* The child reports through a pipe: two writers on the one answer stream would interleave. */
static void do_fork(uint32_t seq)
{
    int fds[2];
    if (pipe(fds)) {
        answer("error %d", errno);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int enabled = contract_enabled(); /* before the write, as the contract orders */
        int written = contract_write(seq, 0);
        char line[32];
        int n = snprintf(line, sizeof(line), "%d %d", enabled, written);
        _exit(write(fds[1], line, (size_t)n) == n ? 0 : 1);
    }
    int fork_err = errno;
    close(fds[1]);
    char got[32] = "";
    ssize_t n = pid > 0 ? read(fds[0], got, sizeof(got) - 1) : -1;
    close(fds[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (pid < 0)
        answer("error %d", fork_err);
    else if (n > 0)
        answer("child %.*s", (int)n, got);
    else
        answer("error child-%s-%d", WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* A decimal number of at most max, digits only; -1 otherwise. */
static long long number(char const *s, long long max)
{
    long long v = 0;
    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > max)
            return -1;
    }
    return v;
}

/* One command: w[0] its name, n its word count. */
static void command(char **w, int n)
{
    long long a = n > 1 ? number(w[1], UINT32_MAX) : -1;
    long long b = n > 2 ? number(w[2], PAD_MAX) : -1;
    if (n == 1 && !strcmp(w[0], "register"))
        answer_errno(contract_register());
    else if (n == 1 && !strcmp(w[0], "unregister")) {
        TraceLoggingUnregister(lttpc_contract); /* void: nothing can fail */
        answer("ok");
    } else if (n == 1 && !strcmp(w[0], "enabled"))
        answer("%d", contract_enabled());
    else if (n == 3 && !strcmp(w[0], "write") && a >= 0 && b >= 0)
        answer("%d", contract_write((uint32_t)a, (unsigned)b));
    else if (n == 2 && !strcmp(w[0], "fork") && a >= 0)
        do_fork((uint32_t)a);
    else if (n == 1 && !strcmp(w[0], "thread-register"))
        thread_register();
    else
        answer("error usage");
}

int lttpc_contract_main(void)
{
    memset(g_pad, 'p', sizeof(g_pad));
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) >= 0) {
        char *w[4], *save = NULL;
        int n = 0;
        for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
            if (n++ < 4) /* n counts them all: more than 3 words is malformed */
                w[n - 1] = t;
        if (n == 1 && !strcmp(w[0], "quit"))
            break;
        if (n == 0)
            answer("error usage");
        else
            command(w, n);
    }
    free(line);
    return 0;
}
