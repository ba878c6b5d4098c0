/* SPDX-License-Identifier: MIT */
/*
 * Concurrency on the capture backend: 8 threads x 10,000 events, each record
 * intact and every (thread, seq) present exactly once; writers racing with a
 * thread that registers and unregisters a provider; a forked child writing
 * into the same capture file.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(thr, "TestThreads");
EH_DEFINE_PROVIDER(tog, "TestToggle");

enum { THREADS = 8, EVENTS = 10000 };

/* "T" event, hand-encoded: header, metadata of T{thread u32, seq u32}. */
static const uint8_t t_prefix[] = {
    0x07, 0,   0,   0,   0,   0,   0, 5,    15,  0,   1,   0, 'T',  0,
    't',  'h', 'r', 'e', 'a', 'd', 0, 0x04, 's', 'e', 'q', 0, 0x04,
};

static void test_register(void)
{
    cap_setup("threads");
    KT_EXPECT_EQ(eh_provider_register(&thr), 0);
}

static void *writer(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    for (uint32_t i = 0; i < EVENTS; i++)
        if (EH_WRITE(thr, EH_EVENT("T", 5, 1), EH_U32("thread", t), EH_U32("seq", i)) != 0)
            return (void *)1;
    return NULL;
}

static void test_eight_writers(void)
{
    pthread_t th[THREADS];
    size_t mark = cap_size();
    for (uintptr_t t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, writer, (void *)t);
    int failed_writes = 0;
    for (int t = 0; t < THREADS; t++) {
        void *ret;
        pthread_join(th[t], &ret);
        failed_writes += ret != NULL;
    }
    KT_EXPECT_EQ(failed_writes, 0);

    static uint8_t seen[THREADS][EVENTS];
    memset(seen, 0, sizeof seen);
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf, *end = buf + len;
    struct cap_record rec;
    int n = 0, bad = 0, dup = 0, r;
    while ((r = cap_next(&p, end, &rec)) == 1) {
        n++;
        if (strcmp(rec.name, "TestThreads_L5K1") != 0 || rec.event_len != sizeof t_prefix + 8 ||
            memcmp(rec.event, t_prefix, sizeof t_prefix) != 0) {
            bad++;
            continue;
        }
        uint32_t t, i;
        memcpy(&t, rec.event + sizeof t_prefix, 4);
        memcpy(&i, rec.event + sizeof t_prefix + 4, 4);
        if (t >= THREADS || i >= EVENTS) {
            bad++;
            continue;
        }
        dup += seen[t][i]++ != 0;
    }
    KT_EXPECT_EQ(r, 0); /* ended exactly at the end of the file */
    KT_EXPECT_EQ(n, THREADS * EVENTS);
    KT_EXPECT_EQ(bad, 0);
    KT_EXPECT_EQ(dup, 0);
    int missing = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < EVENTS; i++)
            missing += !seen[t][i];
    KT_EXPECT_EQ(missing, 0);
    free(buf);
}

static int g_stop;
static int g_ok_writes[4];

static void *toggler(void *arg)
{
    (void)arg;
    /* Toggle for about 300 ms, leaving the writers time inside each window. */
    struct timespec start, now, pause = {0, 20000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        eh_provider_register(&tog);
        nanosleep(&pause, NULL);
        eh_provider_unregister(&tog);
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
             300000000L);
    __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void *toggle_writer(void *arg)
{
    int idx = (int)(uintptr_t)arg;
    while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
        int r = EH_WRITE(tog, EH_EVENT("Tog", 4, 2), EH_U32("w", (uint32_t)idx));
        if (r == 0)
            g_ok_writes[idx]++;
        else if (r != EBADF)
            g_ok_writes[idx] = -1000000; /* any other errno is a failure */
    }
    return NULL;
}

/* Every write that returned 0 appended exactly one intact record, and nothing else did. */
static void test_writers_while_registering(void)
{
    pthread_t w[4], t;
    size_t mark = cap_size();
    for (uintptr_t i = 0; i < 4; i++)
        pthread_create(&w[i], NULL, toggle_writer, (void *)i);
    pthread_create(&t, NULL, toggler, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(w[i], NULL);
    int ok = 0;
    for (int i = 0; i < 4; i++) {
        KT_EXPECT(g_ok_writes[i] >= 0);
        ok += g_ok_writes[i];
    }
    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf, *end = buf + len;
    struct cap_record rec;
    int n = 0, bad = 0, r;
    static const uint8_t want[] = {0x07, 0, 0,   0,   0,   0, 0,   4, 7,   0,
                                   1,    0, 'T', 'o', 'g', 0, 'w', 0, 0x04};
    while ((r = cap_next(&p, end, &rec)) == 1) {
        n++;
        bad += strcmp(rec.name, "TestToggle_L4K2") != 0 || rec.event_len != sizeof want + 4 ||
               memcmp(rec.event, want, sizeof want) != 0;
    }
    KT_EXPECT_EQ(r, 0);
    KT_EXPECT_EQ(n, ok);
    KT_EXPECT_EQ(bad, 0);
    KT_EXPECT(ok > 0);
    kt_diag("%d writes succeeded while registering/unregistering", ok);
    free(buf);
}

static void test_fork_child_writes(void)
{
    size_t mark = cap_size();
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        for (uint32_t i = 0; i < 100; i++)
            bad |= EH_WRITE(thr, EH_EVENT("Child", 5, 1), EH_PID("pid", (uint32_t)getpid()),
                            EH_U32("seq", i)) != 0;
        _exit(bad);
    }
    KT_EXPECT(pid > 0);
    int status = -1;
    waitpid(pid, &status, 0);
    KT_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    KT_EXPECT_EQ(EH_WRITE(thr, EH_EVENT("Parent", 5, 1)), 0);

    size_t len;
    uint8_t *buf = cap_read_from(mark, &len);
    const uint8_t *p = buf, *end = buf + len;
    struct cap_record rec;
    int child = 0, parent = 0;
    /* Child{pid u32 Pid, seq u32}: 8 + 4 + "Child\0" 6 + "pid\0" 0x84 0x05 6 + "seq\0" 0x04 5 */
    while (cap_next(&p, end, &rec) == 1) {
        if (rec.event_len == 8 + 4 + 17 + 8 && memcmp(rec.event + 12, "Child", 6) == 0) {
            uint32_t got_pid, seq;
            memcpy(&got_pid, rec.event + 29, 4);
            memcpy(&seq, rec.event + 33, 4);
            child += got_pid == (uint32_t)pid && seq == (uint32_t)child;
        } else if (memcmp(rec.event + 12, "Parent", 7) == 0) {
            parent++;
        }
    }
    KT_EXPECT_EQ(child, 100);
    KT_EXPECT_EQ(parent, 1);
    free(buf);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_eight_writers),
        KT_CASE(test_writers_while_registering), KT_CASE(test_fork_child_writes))
