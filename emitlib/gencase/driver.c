// SPDX-License-Identifier: GPL-2.0
/*
 * emit <file.events>: the main program of an emitter generated per case from a macro API
 * (impl/lttp-c: microsoft/LinuxTracepoints' TraceLoggingWrite; impl/ehconf-macros: ehconf's
 * EH_WRITE).
 *
 * Macros need the schema at compile time, so the row's build runs its generator on every
 * descriptions/<case>.events and links the generated code of all cases into this program
 * (gencase.h): one function per event, calling the API's write macro with literal values,
 * the steps of the case (register / unregister = the API's calls, threads = pthreads
 * released together by a barrier, fork), and the text items of the description
 * (textmatch.h). The row's contract.c answers --contract.
 *
 * At run time the file's `case` statement picks the compiled-in case, and the file must be
 * that description, possibly with whole events left out (harness/impl/run_impl.py leaves out
 * those whose features the profile lacks): anything else means the description changed
 * since the build, reported in one line on stderr with exit status 2. Then it runs the steps
 * and prints, numbered as the events of the file it read (Documentation/case-descriptions.md):
 *   event <n> written
 *   event <n> skipped <reason>        the macros cannot express it (nothing written)
 *   event <n> failed <macro> returned <ERRNO>
 * and `emit: N written, N skipped, N failed`. Exit status 0 when every event was written,
 * 1 otherwise, 2 for a file it cannot use (`file:line: reason` or the one line above).
 * `emit --cases` lists the compiled-in cases; `emit --contract` answers the line protocol of
 * Documentation/impl-contract.md (contract.c); `emit --bench COUNT <file.events>` times
 * each event COUNT times (write_event, make bench-impls).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "contract.h"
#include "gencase.h"

extern const struct gencase_case *const gencase_cases[];

struct counts {
    int written, skipped, failed;
};

static struct counts *g_counts; /* shared with a forked child */
static struct gencase_case const *g_case;
static int *g_file_ordinal; /* [description ordinal] -> ordinal in the file, 0: left out */
static unsigned char *g_registered;
static pthread_mutex_t g_provider_lock = PTHREAD_MUTEX_INITIALIZER;

static void count(int *what)
{
    __atomic_add_fetch(what, 1, __ATOMIC_SEQ_CST);
}

static char const *errno_name(int err, char *buf, size_t size)
{
    char const *name = strerrorname_np(err);
    if (name)
        return name;
    snprintf(buf, size, "errno %d", err);
    return buf;
}

static void report_failed(int ordinal, char const *why)
{
    printf("event %d failed %s\n", ordinal, why);
    count(&g_counts->failed);
}

/* emit --bench COUNT: each event COUNT times in a row through its generated function
 * (a write macro checks the enable bit itself, and TraceLoggingWrite answers EBADF when it
 * is clear, so a disabled run may count every write as failed: harness/impl/bench.py
 * judges it by the stand-in's count), timed, and a `bench` line instead of the event line. */
static uint64_t g_bench;

static void write_event(int ordinal)
{
    int in_file = g_file_ordinal[ordinal];
    if (!in_file)
        return; /* left out of the file */
    char const *call = "";
    if (g_bench) {
        gencase_event_fn const fn = g_case->events[ordinal - 1];
        uint64_t failed = 0, t0 = bench_now_ns();
        for (uint64_t i = 0; i < g_bench; i++)
            failed += fn(&call) != 0;
        bench_report((uint32_t)in_file, g_bench, bench_now_ns() - t0, failed);
        count(&g_counts->written);
        return;
    }
    int r = g_case->events[ordinal - 1](&call);
    if (r == -1) {
        printf("event %d skipped %s\n", in_file, call);
        count(&g_counts->skipped);
    } else if (r == 0) {
        printf("event %d written\n", in_file);
        count(&g_counts->written);
    } else {
        char buf[32], why[128];
        snprintf(why, sizeof(why), "%s returned %s", call, errno_name(r, buf, sizeof(buf)));
        report_failed(in_file, why);
    }
}

static void fail_events(size_t from, size_t to, char const *why)
{
    for (size_t i = from; i < to; i++)
        if (g_case->steps[i].kind == GENCASE_EVENT && g_file_ordinal[g_case->steps[i].arg])
            report_failed(g_file_ordinal[g_case->steps[i].arg], why);
}

static void provider_step(struct gencase_step const *st)
{
    struct gencase_provider const *p = &g_case->providers[st->arg];
    pthread_mutex_lock(&g_provider_lock);
    if (!p->reg) {
        printf("emit: line %d: provider %s cannot be defined (its events are skipped)\n", st->line,
               p->name);
    } else if (st->kind == GENCASE_REGISTER) {
        if (g_registered[st->arg]) {
            printf("emit: line %d: provider %s is registered already: %s not called again\n",
                   st->line, p->name, gencase_api.register_call);
        } else {
            int err = p->reg();
            char buf[32];
            if (err)
                printf("emit: line %d: %s(%s) returned %s\n", st->line, gencase_api.register_call,
                       p->name, errno_name(err, buf, sizeof(buf)));
            g_registered[st->arg] = 1;
        }
    } else {
        p->unreg();
        g_registered[st->arg] = 0;
    }
    pthread_mutex_unlock(&g_provider_lock);
}

/* The index of the END closing the block whose first step is i. */
static size_t block_end(size_t i)
{
    int depth = 0;
    for (; i < g_case->nsteps; i++) {
        unsigned char k = g_case->steps[i].kind;
        if (k == GENCASE_THREADS || k == GENCASE_THREAD || k == GENCASE_FORK)
            depth++;
        else if (k == GENCASE_END && depth-- == 0)
            return i;
    }
    return i;
}

static size_t run_block(size_t i);

struct thread_arg {
    size_t start;
    pthread_barrier_t *barrier;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    pthread_barrier_wait(a->barrier);
    run_block(a->start);
    return NULL;
}

/* i: the first step after THREADS; returns the step after its END. */
static size_t run_threads(size_t i)
{
    size_t n = 0, first = i;
    for (size_t j = i; j < g_case->nsteps && g_case->steps[j].kind == GENCASE_THREAD;
         j = block_end(j + 1) + 1)
        n++;
    struct thread_arg *args = calloc(n ? n : 1, sizeof(*args));
    pthread_t *ids = calloc(n ? n : 1, sizeof(*ids));
    pthread_barrier_t barrier;
    size_t started = 0;
    if (!args || !ids || pthread_barrier_init(&barrier, NULL, (unsigned)(n ? n : 1)) != 0) {
        size_t end = first;
        for (size_t k = 0; k < n; k++)
            end = block_end(end + 1) + 1;
        fail_events(first, end, "pthread_barrier_init failed");
        free(args);
        free(ids);
        return end + 1;
    }
    for (size_t k = 0; k < n; k++) {
        args[k].start = i + 1;
        args[k].barrier = &barrier;
        size_t end = block_end(i + 1);
        int err = pthread_create(&ids[started], NULL, thread_main, &args[k]);
        if (err) {
            char buf[32], why[96];
            snprintf(why, sizeof(why), "pthread_create returned %s",
                     errno_name(err, buf, sizeof(buf)));
            fail_events(i + 1, end, why);
            /* the barrier still counts this thread: stand in for it */
            args[k].start = end;
            if (pthread_create(&ids[started], NULL, thread_main, &args[k]) == 0)
                started++;
        } else {
            started++;
        }
        i = end + 1;
    }
    for (size_t k = 0; k < started; k++)
        pthread_join(ids[k], NULL);
    pthread_barrier_destroy(&barrier);
    free(args);
    free(ids);
    return i + 1; /* i: the END of `threads` */
}

/* i: the first step after FORK; returns the step after its END. */
static size_t run_fork(size_t i)
{
    size_t child_end = i;
    int depth = 0;
    for (; child_end < g_case->nsteps; child_end++) {
        unsigned char k = g_case->steps[child_end].kind;
        if (k == GENCASE_THREADS || k == GENCASE_THREAD || k == GENCASE_FORK)
            depth++;
        else if ((k == GENCASE_END || k == GENCASE_PARENT) && depth-- == 0)
            break;
    }
    int has_parent = child_end < g_case->nsteps && g_case->steps[child_end].kind == GENCASE_PARENT;
    size_t end = has_parent ? block_end(child_end + 1) : child_end;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        run_block(i);
        fflush(stdout);
        _exit(0);
    }
    if (pid < 0) {
        char buf[32], why[64];
        snprintf(why, sizeof(why), "fork returned %s", errno_name(errno, buf, sizeof(buf)));
        fail_events(i, child_end, why);
    }
    if (has_parent)
        run_block(child_end + 1);
    if (pid > 0) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("emit: the forked child (line %d) ended with status 0x%x\n",
                   g_case->steps[i ? i - 1 : 0].line, status);
            count(&g_counts->failed);
        }
    }
    return end + 1;
}

/* Runs steps from i to the END (or PARENT) of the block; returns its index. */
static size_t run_block(size_t i)
{
    while (i < g_case->nsteps) {
        struct gencase_step const *st = &g_case->steps[i];
        switch (st->kind) {
        case GENCASE_END:
        case GENCASE_PARENT: return i;
        case GENCASE_REGISTER:
        case GENCASE_UNREGISTER:
            provider_step(st);
            i++;
            break;
        case GENCASE_EVENT:
            write_event(st->arg);
            i++;
            break;
        case GENCASE_THREADS: i = run_threads(i + 1); break;
        case GENCASE_FORK: i = run_fork(i + 1); break;
        default: i++; break;
        }
    }
    return i;
}

/* ---- the file -------------------------------------------------------------------------- */

struct items {
    struct gencase_item *p;
    size_t n;
};

static void collect_item(void *ctx, struct gencase_item const *item)
{
    struct items *it = ctx;
    struct gencase_item *p = realloc(it->p, (it->n + 1) * sizeof(*p));
    if (!p) {
        fprintf(stderr, "emit: out of memory\n");
        exit(2);
    }
    it->p = p;
    it->p[it->n++] = *item;
}

/* The `case` statement: the first statement of the file. */
static struct gencase_case const *find_case(char const *path, char const *text, size_t len)
{
    int line = 0;
    size_t pos = 0, ln;
    char const *l;
    while (gencase_next_line(text, len, &pos, &line, &l, &ln)) {
        char const *w = NULL, *end = l + ln;
        size_t wn = 0;
        uint64_t h = 0;
        if (gencase_statement(l, ln, &h, &w, &wn)) {
            char const *s = w + wn;
            while (s < end && gencase_space(*s))
                s++;
            char const *name = s;
            while (s < end && !gencase_space(*s))
                s++;
            size_t nn = (size_t)(s - name);
            while (s < end && gencase_space(*s))
                s++;
            if (!gencase_word_is(w, wn, "case") || !nn || s != end) {
                fprintf(stderr, "%s:%d: the first statement must be `case <name>`\n", path, line);
                exit(2);
            }
            for (size_t i = 0; gencase_cases[i]; i++)
                if (gencase_word_is(name, nn, gencase_cases[i]->name))
                    return gencase_cases[i];
            fprintf(stderr,
                    "%s:%d: case %.*s is not built into this emitter (%s generates one per "
                    "descriptions/*.events)\n",
                    path, line, (int)nn, name, gencase_api.build);
            exit(2);
        }
    }
    fprintf(stderr, "%s:%d: the first statement must be `case <name>`\n", path, line);
    exit(2);
}

static void stale(char const *path, int line)
{
    fprintf(stderr,
            "%s:%d: not the description this emitter was generated from (%s, case %s): "
            "it changed since the build; run %s again\n",
            path, line, g_case->source, g_case->name, gencase_api.build);
    exit(2);
}

/* Maps the file's events onto the compiled-in ones (g_file_ordinal): the file is the
 * compiled-in description with whole event items left out (an event of a `repeat` in every
 * repetition), its events numbered as the compiled-in ones, skipping those. */
static void match(char const *path, char const *text, size_t len)
{
    struct items file = {NULL, 0};
    int open = gencase_items(text, len, collect_item, &file);
    if (open) {
        fprintf(stderr, "%s:%d: an event without `end`\n", path, open);
        exit(2);
    }
    g_file_ordinal = calloc(g_case->nevents + 1, sizeof(int));
    if (!g_file_ordinal) {
        fprintf(stderr, "emit: out of memory\n");
        exit(2);
    }
    size_t i = 0;
    struct gencase_item const *c = g_case->items;
    for (size_t k = 0; k < file.n; k++) {
        struct gencase_item const *f = &file.p[k];
        /* Compiled-in events missing from the file: left out. */
        while (i < g_case->nitems && c[i].is_event && !(f->is_event && c[i].hash == f->hash))
            i++;
        if (i >= g_case->nitems || c[i].is_event != f->is_event || c[i].hash != f->hash)
            stale(path, f->line);
        for (int r = 0; f->is_event && r < c[i].count; r++)
            g_file_ordinal[c[i].first + r * c[i].stride] = 1;
        i++;
    }
    for (; i < g_case->nitems; i++)
        if (!c[i].is_event)
            stale(path, file.n ? file.p[file.n - 1].line : 1);
    for (size_t o = 1, in_file = 0; o <= g_case->nevents; o++)
        if (g_file_ordinal[o])
            g_file_ordinal[o] = (int)++in_file;
    free(file.p);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--cases") == 0) {
        for (size_t i = 0; gencase_cases[i]; i++)
            printf("%s %zu %s\n", gencase_cases[i]->name, gencase_cases[i]->nevents,
                   gencase_cases[i]->source);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--contract") == 0)
        return gencase_contract_main();
    if (argc == 4 && strcmp(argv[1], "--bench") == 0) {
        if (bench_count(argv[2], &g_bench)) {
            fprintf(stderr, "emit: --bench %s: COUNT is 1 to 10000000000\n", argv[2]);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: emit <file.events> | emit --cases | emit --contract\n"
                        "       emit --bench COUNT <file.events>\n");
        return 2;
    }
    size_t len;
    char *text = gencase_read_file(argv[1], &len);
    g_case = find_case(argv[1], text, len);
    match(argv[1], text, len);
    free(text);

    g_counts =
        mmap(NULL, sizeof(*g_counts), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    g_registered = calloc(g_case->nproviders + 1, 1);
    if (g_counts == MAP_FAILED || !g_registered) {
        fprintf(stderr, "emit: out of memory\n");
        return 2;
    }
    memset(g_counts, 0, sizeof(*g_counts));
    run_block(0);
    for (size_t p = 0; p < g_case->nproviders; p++)
        if (g_registered[p] && g_case->providers[p].unreg)
            g_case->providers[p].unreg();
    if (g_bench) /* stdout: the bench lines only */
        return g_counts->skipped ? 1 : 0;
    printf("emit: %d written, %d skipped, %d failed\n", g_counts->written, g_counts->skipped,
           g_counts->failed);
    if (fflush(stdout) != 0)
        return 1;
    return g_counts->skipped || g_counts->failed ? 1 : 0;
}
