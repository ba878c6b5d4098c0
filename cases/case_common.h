/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case_common.h: small helpers shared by the conformance cases in cases/.
 *
 * Include after eventheader.h and case_harness.h. Cases use TEST() rather than TEST_F(): see
 * cases/build.mk (-Wclobbered) for why a fixture's teardown is not reliable.
 */
#ifndef EHCONF_CASE_COMMON_H
#define EHCONF_CASE_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

/* Which offline capture the library writes: the same choice as provider.c makes, from
 * the capture rows of the transport registry (eh_transports.def, first variable set and
 * non-empty wins): TraceLogging records (EHCONF_CAPTURE_TL) or .dat records
 * (EHCONF_CAPTURE). */
enum case_capture_kind { CASE_CAPTURE_NONE, CASE_CAPTURE_DAT, CASE_CAPTURE_TL };

static inline enum case_capture_kind case_capture(const char **path)
{
    const char *v;

#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    if ((v = getenv(env)) != NULL && v[0]) {                                 \
        *path = v;                                                           \
        return (tl) ? CASE_CAPTURE_TL : CASE_CAPTURE_DAT;                    \
    }
#include "eh_transports.def"
    *path = NULL;
    return CASE_CAPTURE_NONE;
}

/*
 * Size of the offline capture file, or -1 when the case does not run offline (a live
 * transport: perf, ftrace, ETW). "Nothing was written" is asserted as "the size did not
 * change" -- on a live transport the same check is made by the golden comparison (an
 * event that should not exist would be an extra event).
 */
static inline off_t case_capture_size(void)
{
    const char *path;
    struct stat st;

    if (case_capture(&path) == CASE_CAPTURE_NONE)
        return -1;
    if (stat(path, &st) != 0)
        return 0; /* not created yet: nothing written so far */
    return st.st_size;
}

/*
 * Whether writes go to ETW or to the TraceLogging capture that stands in for it
 * (EHCONF_CAPTURE_TL): the backend's row in eh_transports.def says tl = 1. There an
 * event over EH_TL_EVENT_MAX (TraceLogging bytes, see lib/eventheader/internal/tl_encode.h:
 * ETW's 64 KB counts its own headers too) is refused
 * with E2BIG although EventHeader's 65535-byte limit would take it. Valid once a
 * provider is registered (the backend is chosen then).
 */
static inline int case_backend_is_tracelogging(void)
{
    const char *b = eh_backend_name();

#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    if (strcmp(b, #backend) == 0)                                            \
        return tl;
#define EH_LIVE_TRANSPORT(name, backend, reader, golden, tl) \
    if (strcmp(b, #backend) == 0)                            \
        return tl;
#include "eh_transports.def"
    return 0;
}

/*
 * A second process that writes events of its own, on both systems: fork() on POSIX; on
 * Windows the runner starts this TEST again in a new process, where case_fork() returns
 * 0, so the test's code before case_fork() must only rebuild state (register the
 * providers), never write. case_wait() returns the child's exit status, -1 if it did
 * not exit normally.
 */
#ifdef _WIN32
typedef intptr_t case_pid_t;
case_pid_t case_fork(void);
int case_wait(case_pid_t child);
#else
typedef pid_t case_pid_t;

static inline case_pid_t case_fork(void)
{
    return fork();
}

static inline int case_wait(case_pid_t child)
{
    int status;

    if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}
#endif

#endif /* EHCONF_CASE_COMMON_H */
