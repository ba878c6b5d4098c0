/* SPDX-License-Identifier: GPL-2.0 */
/*
 * case_harness.h: the test harness of the cases. On Linux it is the kernel's own
 * kselftest_harness.h (extracted from linux-source at build time, never committed);
 * on Windows, where that header cannot build (fork, signals, mmap), it is
 * cases/windows/case_runner.h, which offers the same macros and prints the same TAP.
 */
#ifndef EHCONF_CASE_HARNESS_H
#define EHCONF_CASE_HARNESS_H

#ifdef _WIN32
#include "windows/case_runner.h"
#else
#include "kselftest_harness.h"
#endif

#endif /* EHCONF_CASE_HARNESS_H */
