/* SPDX-License-Identifier: MIT */
/*
 * emit --contract: the line protocol of Documentation/impl-contract.md through ehconf's own
 * libeventheader (its dynamic builder on a runtime tracepoint of the provider), so the
 * reference answers every contract row the way the other implementations are asked to.
 *
 * One command per line on stdin, one answer line per command on stdout, flushed at once:
 * the guest (harness/guest_impl.py) reads through a pipe and changes the tracers
 * between commands.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emit.h"

#define LEVEL   4
#define KEYWORD 0x1

static eh_provider provider = {.name = "EhconfContract"};
static eh_tracepoint *tp; /* the (level 4, keyword 1) tracepoint; valid until exit */

static int do_register(void)
{
    int err = eh_provider_register(&provider);
    if (!err && !tp)
        err = eh_provider_tracepoint(&provider, LEVEL, KEYWORD, &tp);
    return err;
}

static void *register_thread(void *arg)
{
    *(int *)arg = do_register();
    return NULL;
}

static int enabled(void)
{
    return tp && eh_tracepoint_enabled(tp);
}

/* The event: u32 seq, then pad bytes of 'p' as a counted string. Returns the errno of
 * eh_builder_write (or of the add that failed; EBADF before any registration, as for a
 * disabled tracepoint). */
static int write_event(unsigned long seq, unsigned long pad)
{
    if (!tp)
        return EBADF;
    char *bytes = malloc(pad ? pad : 1);
    if (!bytes)
        return ENOMEM;
    memset(bytes, 'p', pad);
    uint32_t v = (uint32_t)seq;
    eh_builder b;
    eh_builder_init(&b);
    int err = eh_builder_reset(&b, "Contract", 0, 0, 0, 0);
    if (!err)
        err = eh_builder_add_value(&b, "seq", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &v);
    if (!err)
        err = eh_builder_add_string(&b, "pad", EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_DEFAULT, 0,
                                    bytes, pad);
    if (!err)
        err = eh_builder_write(&b, tp, NULL, NULL);
    eh_builder_destroy(&b);
    free(bytes);
    return err;
}

static void answer_errno(int err)
{
    if (err)
        printf("error %d\n", err);
    else
        puts("ok");
}

/* The child checks and writes on its own, and reports through a pipe: its stdout is the
 * parent's, and two writers on one answer stream would interleave. */
static void do_fork(unsigned long seq)
{
    int fds[2];
    if (pipe(fds)) {
        printf("error %d\n", errno);
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        printf("error %d\n", errno);
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        char line[64];
        int on = enabled(); /* before the write, as the protocol asks */
        int n = snprintf(line, sizeof line, "%d %d", on, write_event(seq, 0));
        _exit(write(fds[1], line, (size_t)n) == n ? 0 : 1);
    }
    close(fds[1]);
    char got[64] = "";
    ssize_t n = read(fds[0], got, sizeof got - 1);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (n > 0) {
        got[n] = '\0';
        printf("child %s\n", got);
    } else {
        printf("error child-%s-%d\n", WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
}

int contract_main(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char cmd[32];
        unsigned long a = 0, b = 0;
        int n = sscanf(line, "%31s %lu %lu", cmd, &a, &b);
        if (n < 1)
            puts("error usage");
        else if (!strcmp(cmd, "quit"))
            break;
        else if (!strcmp(cmd, "register") && n == 1)
            answer_errno(do_register());
        else if (!strcmp(cmd, "unregister") && n == 1)
            answer_errno(eh_provider_unregister(&provider));
        else if (!strcmp(cmd, "enabled") && n == 1)
            printf("%d\n", enabled());
        else if (!strcmp(cmd, "write") && n == 3)
            printf("%d\n", write_event(a, b));
        else if (!strcmp(cmd, "fork") && n == 2)
            do_fork(a);
        else if (!strcmp(cmd, "thread-register") && n == 1) {
            pthread_t t;
            int err = 0, rc = pthread_create(&t, NULL, register_thread, &err);
            if (!rc)
                rc = pthread_join(t, NULL);
            answer_errno(rc ? rc : err);
        } else
            puts("error usage");
        fflush(stdout);
    }
    return 0;
}
