/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_asserts.h: the steps many kernel cases (cases/kernel_*.c) take the same way
 * and that the test cannot go on without, as helpers that ASSERT or SKIP inside, so a
 * call site is one line. user_events_abi.h keeps the raw ABI (its helpers never
 * assert); these build on it. Include after case_harness.h and user_events_abi.h.
 *
 * Each helper takes the test's `struct __test_metadata *_metadata`, the name the
 * harness macros use, and ends the running test itself:
 *  - a failed ASSERT_* in kselftest_harness.h (Linux 6.12's, which harness/kernel/build.mk
 *    takes from the kernel source package) calls __bail(), which sets
 *    _metadata->aborted and longjmps to _metadata->env, the setjmp() in the TEST()
 *    wrapper: it leaves this helper and its caller at once and the test FAILS, exactly
 *    as when the ASSERT is in the test body;
 *  - SKIP(statement, ...) only records the reason and runs `statement`, which in a test
 *    body is `return`. Here that would return to the test and let it go on, so the
 *    statement is ue_end_test(): the same longjmp to _metadata->env without `aborted`,
 *    after which the wrapper returns and the test's child exits with KSFT_SKIP, as a
 *    `SKIP(return, ...)` in the body would.
 * The failure messages the harness prints name this file and line; the test's name is
 * in them, and the TH_LOG and SKIP texts are the ones the tests printed before.
 */
#ifndef EHCONF_KERNEL_ASSERTS_H
#define EHCONF_KERNEL_ASSERTS_H

#include <errno.h>
#include <setjmp.h>
#include <string.h>
#include <unistd.h>

/* Ends the running test now, keeping its outcome so far (see above). */
static inline __attribute__((noreturn)) void ue_end_test(struct __test_metadata *_metadata)
{
    longjmp(_metadata->env, 1);
}

/* SKIPs the running test with `reason` unless the process is root (uid 0). */
static inline void ue_skip_unless_root(struct __test_metadata *_metadata, const char *reason)
{
    if (geteuid() != 0)
        SKIP(ue_end_test(_metadata), "%s", reason);
}

/*
 * A perf event on tracepoint `id` on cpu 0 (perf_open_tracepoint(id, 0, false): what
 * makes the kernel set the event's enable bits): its fd, which the caller closes. When
 * perf_event_open fails the test FAILS here with "perf_event_open: <error>".
 */
static inline int perf_attach_id(struct __test_metadata *_metadata, long id)
{
    int pfd = perf_open_tracepoint(id, 0, false);

    ASSERT_LE(0, pfd)
    {
        TH_LOG("perf_event_open: %s", strerror(errno));
    }
    return pfd;
}

/* perf_attach_id() on user_events:<name>; the test FAILS first if the event has no
 * tracefs id ("no tracefs id for user_events:<name>"). */
static inline int perf_attach(struct __test_metadata *_metadata, const char *name)
{
    long id = tracepoint_id(name);

    ASSERT_LT(0, id)
    {
        TH_LOG("no tracefs id for user_events:%s", name);
    }
    return perf_attach_id(_metadata, id);
}

#endif /* EHCONF_KERNEL_ASSERTS_H */
