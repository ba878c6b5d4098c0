/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case_common.h: small helpers shared by the conformance cases in cases/.
 *
 * Include after kselftest_harness.h. Cases use TEST() rather than TEST_F(): see
 * cases/build.mk (-Wclobbered) for why a fixture's teardown is not reliable.
 */
#ifndef EHCONF_CASE_COMMON_H
#define EHCONF_CASE_COMMON_H

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Size of the offline capture file (EHCONF_CAPTURE), or -1 when the case does not
 * run offline (a live transport: perf, ftrace). "Nothing was written" is asserted as
 * "the size did not change" -- on a live transport the same check is made by the
 * golden comparison (an event that should not exist would be an extra event).
 */
static inline off_t case_capture_size(void)
{
	const char *path = getenv("EHCONF_CAPTURE");
	struct stat st;

	if (!path || !path[0])
		return -1;
	if (stat(path, &st) != 0)
		return 0; /* not created yet: nothing written so far */
	return st.st_size;
}

#endif /* EHCONF_CASE_COMMON_H */
