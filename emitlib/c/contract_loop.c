/* SPDX-License-Identifier: MIT */
/*
 * emitlib/c/contract_loop.c: the `emit --contract` loop shared by the C and C++ emitters
 * (contract_loop.h says the grammar). fork and thread-register are done here, around the
 * API's own calls, so every emitter forks, joins and reports a child the same way.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getline, strtok_r under -std=c11 */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contract_loop.h"

static void answer(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void answer(const char *fmt, ...)
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

/* The write's answer as words: the errno number, or `none`. */
static void write_words(char *out, size_t cap, int got)
{
    if (got == CONTRACT_WRITE_NONE)
        snprintf(out, cap, "none");
    else
        snprintf(out, cap, "%d", got);
}

/* A decimal number of at most max, digits only; -1 otherwise. */
static long long number(const char *s, long long max)
{
    long long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > max)
            return -1;
    }
    return v;
}

struct registering {
    const struct contract_api *api;
    int err;
};

static void *register_thread(void *arg)
{
    struct registering *r = arg;
    r->err = r->api->do_register();
    return NULL;
}

/* The child checks and writes on its own, and reports through a pipe: two writers on the
 * one answer stream would interleave. */
static void do_fork(const struct contract_api *api, uint32_t seq)
{
    int fds[2];
    if (pipe(fds)) {
        answer("error %d", errno);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char words[32], line[48];
        int on = api->enabled(); /* before the write, as the protocol orders */
        write_words(words, sizeof words, api->write(seq, 0));
        int n = snprintf(line, sizeof line, "%d %s", on, words);
        _exit(write(fds[1], line, (size_t)n) == n ? 0 : 1);
    }
    int fork_err = errno;
    close(fds[1]);
    char got[48] = "";
    ssize_t n = pid > 0 ? read(fds[0], got, sizeof got - 1) : -1;
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

static void command(const struct contract_api *api, char **w, int n)
{
    long long a = n > 1 ? number(w[1], UINT32_MAX) : -1;
    long long b = n > 2 ? number(w[2], CONTRACT_PAD_MAX) : -1;
    if (n == 1 && !strcmp(w[0], "register"))
        answer_errno(api->do_register());
    else if (n == 1 && !strcmp(w[0], "unregister"))
        answer_errno(api->do_unregister());
    else if (n == 1 && !strcmp(w[0], "enabled"))
        answer("%d", api->enabled() ? 1 : 0);
    else if (n == 3 && !strcmp(w[0], "write") && a >= 0 && b >= 0) {
        char words[32];
        write_words(words, sizeof words, api->write((uint32_t)a, (uint32_t)b));
        answer("%s", words);
    } else if (n == 2 && !strcmp(w[0], "fork") && a >= 0)
        do_fork(api, (uint32_t)a);
    else if (n == 1 && !strcmp(w[0], "thread-register")) {
        struct registering r = {api, 0};
        pthread_t t;
        int rc = pthread_create(&t, NULL, register_thread, &r);
        if (!rc)
            rc = pthread_join(t, NULL);
        answer_errno(rc ? rc : r.err);
    } else
        answer("error usage");
}

int contract_loop(const struct contract_api *api)
{
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
        if (n == 0 || n > 3)
            answer("error usage");
        else
            command(api, w, n);
    }
    free(line);
    return 0;
}
