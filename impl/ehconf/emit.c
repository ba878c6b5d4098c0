/* SPDX-License-Identifier: MIT */
/*
 * emit: the reference emitter of the case descriptions (Documentation/case-descriptions.md),
 * through ehconf's own libeventheader and its dynamic builder.
 *
 *   emit FILE.events          (EHCONF_CAPTURE=out.dat: into a capture file)
 *   emit --print FILE.events  the description as libdesc parsed it (desc.h, desc_print)
 *   emit --bench COUNT FILE.events  each event COUNT times, timed (bench.c)
 *
 * Parses the whole description first (a mistake: "FILE:LINE: reason" on stderr, exit 2,
 * nothing written), then runs its steps in order: register and unregister on the main
 * thread, each `thread` block of a `threads` step on a thread of its own (all released at
 * once, then joined), a `fork` step's child block in a forked child while the parent runs
 * the `parent` block, then waits. Prints "event <n> written|failed <reason>" for every
 * event in file order (skipped never: the builder expresses every statement of the
 * format), then "emit: N written, N skipped, N failed". Exit 0 when every event was
 * written and every step worked, else 1.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emit.h"

/* What became of one event. In memory shared with a forked child, which writes its own
 * events' slots; threads write only their own events' slots too. */
struct outcome {
    char state; /* 0: not run, 'w' written, 'f' failed */
    char why[247];
};

struct run {
    const struct desc *d;
    struct outcome *out;
    unsigned step_failures; /* main thread only */
};

static const char *errno_name(int err)
{
    const char *name = strerrorname_np(err);
    return name ? name : "errno";
}

/* Steps that could not run: one line each, on stdout with the event lines. */
__attribute__((format(printf, 3, 4))) static void step_failed(struct run *r, unsigned line,
                                                              const char *fmt, ...)
{
    va_list ap;
    printf("emit: %s:%u: ", r->d->path, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    r->step_failures++;
}

/* Event steps (a thread or fork block holds nothing else), with one builder. */
static void run_events(struct run *r, const struct desc_step *steps, uint32_t n)
{
    eh_builder b;
    eh_builder_init(&b);
    for (uint32_t i = 0; i < n; i++) {
        const struct desc_event *e = steps[i].event;
        struct outcome *o = &r->out[e->ordinal - 1];
        o->state = emit_event(&b, e, o->why, sizeof o->why) ? 'f' : 'w';
    }
    eh_builder_destroy(&b);
}

/* Threads wait here until all are created, so their writes overlap. */
struct gate {
    pthread_mutex_t lock;
    pthread_cond_t opened;
    int open;
};

struct worker {
    struct run *r;
    const struct desc_block *blk;
    struct gate *gate;
    pthread_t thread;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_mutex_lock(&w->gate->lock);
    while (!w->gate->open)
        pthread_cond_wait(&w->gate->opened, &w->gate->lock);
    pthread_mutex_unlock(&w->gate->lock);
    run_events(w->r, w->blk->steps, w->blk->n_steps);
    return NULL;
}

static void run_threads(struct run *r, const struct desc_step *s)
{
    struct gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    struct worker *w = calloc(s->n_blocks, sizeof *w);
    uint32_t started = 0;
    if (!w) {
        step_failed(r, s->line, "threads: out of memory");
        return;
    }
    for (; started < s->n_blocks; started++) {
        w[started] = (struct worker){r, &s->blocks[started], &gate, 0};
        int err = pthread_create(&w[started].thread, NULL, worker_main, &w[started]);
        if (err) {
            step_failed(r, s->line, "threads: pthread_create of thread %u: %s", started + 1,
                        strerror(err));
            break;
        }
    }
    pthread_mutex_lock(&gate.lock);
    gate.open = 1;
    pthread_cond_broadcast(&gate.opened);
    pthread_mutex_unlock(&gate.lock);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    free(w);
}

static void run_fork(struct run *r, const struct desc_step *s)
{
    fflush(stdout); /* the child must not print what the parent had buffered */
    pid_t pid = fork();
    if (pid == 0) {
        run_events(r, s->blocks[0].steps, s->blocks[0].n_steps);
        _exit(0);
    }
    if (pid < 0)
        step_failed(r, s->line, "fork: %s", strerror(errno));
    run_events(r, s->blocks[1].steps, s->blocks[1].n_steps);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            step_failed(r, s->line, "waitpid: %s", strerror(errno));
            return;
        }
    }
    if (pid > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        step_failed(r, s->line, "the forked child %s %d",
                    WIFSIGNALED(status) ? "died of signal" : "exited with",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void run_steps(struct run *r, const struct desc_block *blk)
{
    for (uint32_t i = 0; i < blk->n_steps; i++) {
        const struct desc_step *s = &blk->steps[i];
        int err;
        switch (s->kind) {
        case DESC_STEP_EVENT: run_events(r, s, 1); break;
        case DESC_STEP_REGISTER:
        case DESC_STEP_UNREGISTER:
            err = s->kind == DESC_STEP_REGISTER ? eh_provider_register(s->provider->user)
                                                : eh_provider_unregister(s->provider->user);
            if (err)
                step_failed(r, s->line, "%s %s: %s (%s)",
                            s->kind == DESC_STEP_REGISTER ? "register" : "unregister",
                            s->provider->name, errno_name(err), strerror(err));
            break;
        case DESC_STEP_THREADS: run_threads(r, s); break;
        case DESC_STEP_FORK: run_fork(r, s); break;
        }
    }
}

/* Every event's line in file order, then the summary. Returns the number not written. */
static uint32_t report(const struct run *r, const struct desc_block *blk, uint32_t *written)
{
    uint32_t failed = 0;
    for (uint32_t i = 0; i < blk->n_steps; i++) {
        const struct desc_step *s = &blk->steps[i];
        for (uint32_t k = 0; k < s->n_blocks; k++)
            failed += report(r, &s->blocks[k], written);
        if (s->kind != DESC_STEP_EVENT)
            continue;
        const struct outcome *o = &r->out[s->event->ordinal - 1];
        if (o->state == 'w') {
            printf("event %u written\n", s->event->ordinal);
            ++*written;
            continue;
        }
        char provider[300], event[300]; /* a tracepoint name is < 256 bytes */
        failed++;
        printf("event %u failed %s:%s (line %u): %s\n", s->event->ordinal,
               desc_name_token(s->event->provider->name, provider, sizeof provider),
               desc_name_token(s->event->name, event, sizeof event), s->event->line,
               o->state ? o->why : "not run (see the emit: lines above)");
    }
    return failed;
}

/* The providers stay reachable until exit: libeventheader keeps their tracepoints, which
 * the process holds until it ends (eventheader.h, eh_provider_tracepoint). */
static eh_provider *providers;

int main(int argc, char **argv)
{
    struct desc d;
    char err[512];
    int print = argc == 3 && !strcmp(argv[1], "--print");
    if (argc == 2 && !strcmp(argv[1], "--contract"))
        return contract_main();
    if (argc == 4 && !strcmp(argv[1], "--bench"))
        return bench_main(argv[2], argv[3]);
    if ((argc != 2 && !print) || argv[argc - 1][0] == '-') {
        fputs("usage: emit FILE.events | emit --print FILE.events | emit --contract\n"
              "       emit --bench COUNT FILE.events\n"
              "Writes the events of a case description through libeventheader's dynamic\n"
              "builder (EHCONF_CAPTURE=FILE: into a capture file). Exit status: 0 every event\n"
              "written, 1 some failed, 2 the description cannot be parsed.\n"
              "--print: the description as libdesc parsed it (desc_print), nothing written.\n"
              "--contract: the line protocol of Documentation/impl-contract.md.\n"
              "--bench: each event COUNT times in a row, timed (emitlib/c/bench.h).\n",
              stderr);
        return 2;
    }
    if (desc_parse(argv[argc - 1], &d, err, sizeof err)) {
        fprintf(stderr, "%s\n", err); /* "file:line: reason", as the format asks */
        return 2;
    }
    if (print) {
        int r = desc_print(stdout, &d);
        desc_free(&d);
        return r ? 1 : 0;
    }
    providers = calloc(d.n_providers + 1, sizeof *providers);
    size_t out_size = (d.n_events + 1) * sizeof(struct outcome);
    struct outcome *out =
        mmap(NULL, out_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!providers || out == MAP_FAILED) {
        fprintf(stderr, "emit: out of memory\n");
        return 1;
    }
    for (uint32_t i = 0; i < d.n_providers; i++) {
        providers[i].name = d.providers[i]->name;
        providers[i].group = d.providers[i]->group;
        d.providers[i]->user = &providers[i];
    }
    struct run r = {.d = &d, .out = out};
    run_steps(&r, &d.main);
    uint32_t written = 0, failed = report(&r, &d.main, &written);
    printf("emit: %u written, 0 skipped, %u failed\n", written, failed);
    for (uint32_t i = 0; i < d.n_providers; i++)
        eh_provider_unregister(&providers[i]);
    munmap(out, out_size);
    desc_free(&d);
    return failed || r.step_failures ? 1 : 0;
}
