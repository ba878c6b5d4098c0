// SPDX-License-Identifier: GPL-2.0
/*
 * case_runner.c: runs the TESTs of one case on Windows, one process per test, and
 * prints kselftest's TAP (see case_runner.h for why this exists).
 *
 *   case.exe                 every test, each in a child process, TAP on stdout
 *   case.exe -t NAME [-t..]  only these tests      case.exe -l   list the tests
 *   case.exe --ehconf-run NAME [--ehconf-reason FILE] [--ehconf-forked]
 *                            internal: the child running one test
 *
 * A child ends with 0 (pass), 1 (fail) or 4 (skip, kselftest's KSFT_SKIP; the reason
 * is written to the --ehconf-reason file). Each test's process and any process it
 * starts (case_fork) are put in a job object, so a timeout kills all of them.
 */
#include <windows.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_runner.h"
#include "eventheader.h"
#include "../case_common.h" /* case_fork(), case_wait() */

#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_SKIP 4 /* kselftest's KSFT_SKIP */
#define MAX_TESTS 256

static struct case_test *g_tests;
static struct case_test *g_current; /* the test this process runs (child mode) */
static const char *g_reason_file;
static int g_forked; /* this process is the child half of a case_fork() */

void case_runner_add(struct case_test *t)
{
    t->next = g_tests;
    g_tests = t;
}

void case_runner_report(struct case_test *t, const char *file, int line, const char *exp_str,
                        const char *op, const char *seen_str, int exp_signed, uintmax_t exp,
                        int seen_signed, uintmax_t seen)
{
    char e[32], s[32];

    if (exp_signed)
        snprintf(e, sizeof e, "%jd", (intmax_t)exp);
    else
        snprintf(e, sizeof e, "%ju", exp);
    if (seen_signed)
        snprintf(s, sizeof s, "%jd", (intmax_t)seen);
    else
        snprintf(s, sizeof s, "%ju", seen);
    fprintf(stderr, "# %s:%d:%s:Expected %s (%s) %s %s (%s)\n", file, line, t->name, exp_str, e, op,
            seen_str, s);
}

void case_runner_bail(struct case_test *t, int is_assert)
{
    t->failed = 1;
    if (is_assert) {
        fflush(stdout);
        fflush(stderr);
        exit(EXIT_FAIL);
    }
}

void case_runner_skip(struct case_test *t, const char *reason)
{
    fprintf(stderr, "#      SKIP      %s\n", reason);
    if (g_reason_file) {
        FILE *f = fopen(g_reason_file, "w");

        if (f) {
            fputs(reason, f);
            fclose(f);
        }
    }
    fflush(stdout);
    fflush(stderr);
    /* kselftest's SKIP() goes on to `statement` (usually return); the verdict is final,
	 * so leaving here with it keeps a later EXPECT from turning it into a pass. */
    exit(t->failed ? EXIT_FAIL : EXIT_SKIP);
}

/* The tests in source order (constructors run in reverse order on PE/mingw). */
static size_t tests_in_order(struct case_test **out)
{
    size_t n = 0;

    for (struct case_test *t = g_tests; t && n < MAX_TESTS; t = t->next)
        out[n++] = t;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1]->line > out[j]->line; j--) {
            struct case_test *tmp = out[j];

            out[j] = out[j - 1];
            out[j - 1] = tmp;
        }
    return n;
}

static struct case_test *find_test(const char *name)
{
    for (struct case_test *t = g_tests; t; t = t->next)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* Our std handles must be inheritable for the child to write to the same place. */
static void inherit_std_handles(STARTUPINFOA *si)
{
    static const DWORD which[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
    HANDLE h[3];

    for (int i = 0; i < 3; i++) {
        h[i] = GetStdHandle(which[i]);
        if (h[i] && h[i] != INVALID_HANDLE_VALUE)
            SetHandleInformation(h[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    }
    si->dwFlags |= STARTF_USESTDHANDLES;
    si->hStdInput = h[0];
    si->hStdOutput = h[1];
    si->hStdError = h[2];
}

/*
 * Starts this program again to run test `name`, suspended so that it can join `job`
 * before it runs. Returns the process handle, or NULL after printing why.
 */
static HANDLE spawn_self(const char *name, const char *reason_file, int forked, HANDLE job)
{
    char self[MAX_PATH], cmd[3 * MAX_PATH];
    STARTUPINFOA si = {.cb = sizeof si};
    PROCESS_INFORMATION pi;
    DWORD n = GetModuleFileNameA(NULL, self, sizeof self);

    if (n == 0 || n >= sizeof self) {
        printf("# cannot find this program's path (error %lu)\n", GetLastError());
        return NULL;
    }
    n = (DWORD)snprintf(cmd, sizeof cmd, "\"%s\" --ehconf-run %s%s%s%s%s", self, name,
                        reason_file ? " --ehconf-reason \"" : "", reason_file ? reason_file : "",
                        reason_file ? "\"" : "", forked ? " --ehconf-forked" : "");
    if (n >= sizeof cmd) {
        printf("# command line too long for test %s\n", name);
        return NULL;
    }
    inherit_std_handles(&si);
    fflush(stdout);
    fflush(stderr);
    if (!CreateProcessA(self, cmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi)) {
        printf("# CreateProcess %s failed (error %lu)\n", self, GetLastError());
        return NULL;
    }
    /* A job that cannot take the process (an old Windows, wine): the timeout then
	 * kills the test's process only. */
    if (job)
        AssignProcessToJobObject(job, pi.hProcess);
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    return pi.hProcess;
}

static unsigned timeout_seconds(void)
{
    const char *v = getenv("EHCONF_CASE_TIMEOUT");
    long s = v ? strtol(v, NULL, 10) : 0;

    return s > 0 ? (unsigned)s : 30;
}

/* Runs one test in a child process: EXIT_PASS, EXIT_FAIL or EXIT_SKIP (+ reason). */
static int run_one(struct case_test *t, char *reason, size_t reason_cap)
{
    char dir[MAX_PATH], reason_file[MAX_PATH];
    HANDLE job, proc;
    DWORD code = EXIT_FAIL, wait;
    unsigned limit = timeout_seconds();
    int have_file;

    reason[0] = 0;
    have_file = GetTempPathA(sizeof dir, dir) && GetTempFileNameA(dir, "ehc", 0, reason_file);
    job = CreateJobObjectA(NULL, NULL);
    proc = spawn_self(t->name, have_file ? reason_file : NULL, 0, job);
    if (!proc) {
        code = EXIT_FAIL;
        goto out;
    }
    wait = WaitForSingleObject(proc, limit * 1000u);
    if (wait != WAIT_OBJECT_0) {
        if (job)
            TerminateJobObject(job, EXIT_FAIL);
        TerminateProcess(proc, EXIT_FAIL);
        WaitForSingleObject(proc, 5000);
        fprintf(stderr, "# %s: Test terminated by timeout (%u s)\n", t->name, limit);
        code = EXIT_FAIL;
    } else if (!GetExitCodeProcess(proc, &code)) {
        fprintf(stderr, "# %s: no exit code (error %lu)\n", t->name, GetLastError());
        code = EXIT_FAIL;
    } else if (code >= 0xC0000000u) {
        fprintf(stderr, "# %s: Test terminated unexpectedly by exception 0x%08lx\n", t->name, code);
        code = EXIT_FAIL;
    } else if (code != EXIT_PASS && code != EXIT_FAIL && code != EXIT_SKIP) {
        fprintf(stderr, "# %s: Test ended with exit code %lu\n", t->name, code);
        code = EXIT_FAIL;
    }
    CloseHandle(proc);
out:
    if (job)
        CloseHandle(job);
    if (have_file) {
        FILE *f = fopen(reason_file, "r");

        if (f) {
            size_t n = fread(reason, 1, reason_cap - 1, f);

            reason[n] = 0;
            fclose(f);
        }
        DeleteFileA(reason_file);
    }
    if (code == EXIT_SKIP && !reason[0])
        snprintf(reason, reason_cap, "unknown");
    return (int)code;
}

/* kselftest's case_fork() counterpart: a second process running this test again. */
intptr_t case_fork(void)
{
    HANDLE h;

    if (g_forked)
        return 0;
    if (!g_current)
        return -1;
    h = spawn_self(g_current->name, NULL, 1, NULL);
    return h ? (intptr_t)h : -1;
}

int case_wait(intptr_t child)
{
    HANDLE h = (HANDLE)child;
    DWORD code = 0;
    int ret = -1;

    if (WaitForSingleObject(h, INFINITE) == WAIT_OBJECT_0 && GetExitCodeProcess(h, &code) &&
        code <= 255)
        ret = (int)code;
    CloseHandle(h);
    return ret;
}

/*
 * A crash in a test ends its process with the exception code (0xC0000005...), which
 * run_one() reports, instead of starting a debugger (wine starts winedbg) or a Windows
 * Error Reporting dialog that would hang an unattended runner.
 */
static LONG WINAPI on_crash(EXCEPTION_POINTERS *info)
{
    DWORD code = info->ExceptionRecord->ExceptionCode;

    fprintf(stderr, "# %s: unhandled exception 0x%08lx at %p\n", g_current ? g_current->name : "?",
            code, info->ExceptionRecord->ExceptionAddress);
    fflush(stdout);
    fflush(stderr);
    TerminateProcess(GetCurrentProcess(), code);
    return EXCEPTION_EXECUTE_HANDLER;
}

static int run_in_this_process(const char *name)
{
    struct case_test *t = find_test(name);

    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
    SetUnhandledExceptionFilter(on_crash);

    if (!t) {
        fprintf(stderr, "no test named %s\n", name);
        return EXIT_FAIL;
    }
    g_current = t;
    t->fn(t);
    fflush(stdout);
    fflush(stderr);
    return t->failed ? EXIT_FAIL : EXIT_PASS;
}

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [-l] [-t TEST]...\n", argv0);
    return 2;
}

int case_runner_main(int argc, char **argv)
{
    struct case_test *all[MAX_TESTS], *run[MAX_TESTS];
    const char *only[MAX_TESTS], *child = NULL;
    size_t n_all = tests_in_order(all), n_only = 0, n_run = 0;
    unsigned pass = 0, fail = 0, skip = 0;
    int list = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ehconf-run") == 0 && i + 1 < argc)
            child = argv[++i];
        else if (strcmp(argv[i], "--ehconf-reason") == 0 && i + 1 < argc)
            g_reason_file = argv[++i];
        else if (strcmp(argv[i], "--ehconf-forked") == 0)
            g_forked = 1;
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc && n_only < MAX_TESTS)
            only[n_only++] = argv[++i];
        else if (strcmp(argv[i], "-l") == 0)
            list = 1;
        else
            return usage(argv[0]);
    }
    if (child)
        return run_in_this_process(child);

    for (size_t i = 0; i < n_only; i++)
        if (!find_test(only[i])) {
            fprintf(stderr, "%s: no test named %s\n", argv[0], only[i]);
            return 2;
        }
    for (size_t i = 0; i < n_all; i++) {
        int selected = n_only == 0;

        for (size_t k = 0; k < n_only && !selected; k++)
            selected = strcmp(only[k], all[i]->name) == 0;
        if (selected)
            run[n_run++] = all[i];
    }
    if (list) {
        for (size_t i = 0; i < n_run; i++)
            printf("global %s\n", run[i]->name);
        return 0;
    }

    /* Unbuffered, so that our lines and the children's stay in order in a pipe. */
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("TAP version 13\n1..%zu\n", n_run);
    printf("# Starting %zu tests from 1 test cases.\n", n_run);
    for (size_t i = 0; i < n_run; i++) {
        char reason[512];
        int code;

        printf("#  RUN           global.%s ...\n", run[i]->name);
        code = run_one(run[i], reason, sizeof reason);
        fflush(stderr);
        printf("#          %4s  global.%s\n", code == EXIT_FAIL ? "FAIL" : "OK", run[i]->name);
        if (code == EXIT_SKIP) {
            skip++;
            printf("ok %zu global.%s # SKIP %s\n", i + 1, run[i]->name, reason);
        } else if (code == EXIT_PASS) {
            pass++;
            printf("ok %zu global.%s\n", i + 1, run[i]->name);
        } else {
            fail++;
            printf("not ok %zu global.%s\n", i + 1, run[i]->name);
        }
    }
    printf("# %s: %u / %zu tests passed.\n", fail ? "FAILED" : "PASSED", pass + skip, n_run);
    printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n", pass, fail, skip);
    return fail ? 1 : 0;
}
