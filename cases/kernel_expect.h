/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel_expect.h: the values a kernel case expects where kernels differ, from
 * cases/kernel-expectations.txt, the one table of them.
 *
 * The guest runner (harness/vm/guest_run.py) passes each value as EHCONF_EXPECT_<NAME>.
 * Run alone (kselftest's run_kselftest.sh, or by hand) a case picks the row for the
 * running kernel itself, from the copy of the table compiled in at build time
 * (kernel_expectations.gen.h, written by `harness/kernel/expectations.py --c-header`; never
 * committed), by the rule harness/kernel/expectations.py applies: a row holds from its
 * MAJOR.MINOR on until a later row for the same name, compared with `uname -r`.
 */
#ifndef EHCONF_KERNEL_EXPECT_H
#define EHCONF_KERNEL_EXPECT_H

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel_expectations.gen.h"

#define KERNEL_EXPECT_ENV "EHCONF_EXPECT_"

struct kernel_expect_row {
    const char *what;
    unsigned major, minor;
    long value;
    const char *machine; /* "" for every architecture, else `uname -m`'s name */
};

/* The rows, in table order; the last one is the end mark (what == NULL). */
static const struct kernel_expect_row kernel_expect_rows[] = {
#define KERNEL_EXPECT_ROW(what, major, minor, value, machine) {what, major, minor, value, machine},
    EHCONF_EXPECTATIONS(KERNEL_EXPECT_ROW)
#undef KERNEL_EXPECT_ROW
        {NULL, 0, 0, 0, NULL},
};

/* The row for `what` ("perf_max_payload") that holds on kernel `release` ("6.12.9-x") on
 * `machine` ("s390x"): the latest row whose version is not after the release's MAJOR.MINOR,
 * of those for every machine or this one (which wins a tie); NULL if none. */
static inline const struct kernel_expect_row *
kernel_expect_row(const char *what, const char *release, const char *machine)
{
    const struct kernel_expect_row *best = NULL;
    unsigned major = 0, minor = 0;

    if (sscanf(release, "%u.%u", &major, &minor) < 1)
        return NULL;
    for (const struct kernel_expect_row *r = kernel_expect_rows; r->what; r++) {
        if (strcmp(r->what, what) != 0 || (r->machine[0] && strcmp(r->machine, machine) != 0))
            continue;
        if (r->major > major || (r->major == major && r->minor > minor))
            continue;
        if (!best || r->major > best->major ||
            (r->major == best->major && r->minor > best->minor) ||
            (r->major == best->major && r->minor == best->minor && r->machine[0]))
            best = r;
    }
    return best;
}

/*
 * The value for `env` (EHCONF_EXPECT_<NAME>): the environment's when set, else the
 * compiled row for the running kernel. 0 and *value, *from (where it came from, for
 * messages); ENOENT when no row covers this kernel, EINVAL for a bad value or name.
 */
static inline int kernel_expect(const char *env, long *value, char *from, size_t from_len)
{
    const struct kernel_expect_row *row;
    const char *v = getenv(env);
    char what[64];
    struct utsname u;
    size_t n = 0;

    if (v && v[0]) {
        char *end;

        errno = 0;
        *value = strtol(v, &end, 0);
        if (errno || *end)
            return EINVAL;
        snprintf(from, from_len, "%s from the environment", env);
        return 0;
    }
    if (strncmp(env, KERNEL_EXPECT_ENV, strlen(KERNEL_EXPECT_ENV)) != 0)
        return EINVAL;
    for (const char *c = env + strlen(KERNEL_EXPECT_ENV); *c && n < sizeof what - 1; c++)
        what[n++] = (char)tolower((unsigned char)*c);
    what[n] = '\0';
    if (uname(&u) != 0)
        return errno;
    row = kernel_expect_row(what, u.release, u.machine);
    if (!row)
        return ENOENT;
    *value = row->value;
    snprintf(from, from_len, "cases/kernel-expectations.txt: %s since %u.%u%s%s", what, row->major,
             row->minor, row->machine[0] ? "@" : "", row->machine);
    return 0;
}

#endif /* EHCONF_KERNEL_EXPECT_H */
