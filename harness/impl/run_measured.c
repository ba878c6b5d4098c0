// SPDX-License-Identifier: GPL-2.0
/*
 * run_measured PROGRAM ARGS...: runs the program with stdout to /dev/null and prints one
 * line, "wall <s> cpu <s> maxrss_kb <kB> status <exit status or -signal>", for
 * make bench-decoders (harness/decoders/bench.py). A small C parent, because a child's
 * peak RSS counts the memory it had before exec: forked from Python it would never show
 * less than the interpreter's 14 MB.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status = 0;
    if (argc < 2) {
        fputs("usage: run_measured PROGRAM ARGS...\n", stderr);
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 1);
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
        perror("run_measured");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("wall %.6f cpu %.6f maxrss_kb %ld status %d\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
           ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    return 0;
}
