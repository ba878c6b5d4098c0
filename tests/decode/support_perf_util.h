/* SPDX-License-Identifier: MIT */
/* Helpers for the perf decoder tests (support_perf_util.c). */
#ifndef SUPPORT_PERF_UTIL_H
#define SUPPORT_PERF_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ehd_perf.h"

#define PERF_TEST_MAX_EVENTS 1024
#define PERF_TEST_MAX_DIAG   64

struct perf_test_out {
    char *ev[PERF_TEST_MAX_EVENTS]; /* emitted JSON objects, in emit order */
    size_t n;
    size_t overflow;
    size_t invalid; /* objects that are not valid JSON */
    char *diag[PERF_TEST_MAX_DIAG];
    uint64_t diag_off[PERF_TEST_MAX_DIAG];
    size_t ndiag;
};

/* 1 if s is exactly one valid JSON value (surrounding whitespace allowed). */
int perf_test_json_valid(const char *s, size_t n);
/* Runs ehd_perf_decode over a memory image; returns its result. */
int perf_test_decode(const void *data, size_t size, unsigned flags, struct perf_test_out *o);
void perf_test_out_free(struct perf_test_out *o);
int perf_test_diag_has(const struct perf_test_out *o, const char *needle);
uint8_t *perf_test_read_file(const char *path, size_t *size);
uint8_t *perf_test_slurp(FILE *f, size_t *size);
/* Runs a shell command line; its stdout (up to cap-1 bytes) into out; the exit status,
 * or -1 if it did not exit normally. */
int perf_test_run(const char *cmd, char *out, size_t cap);

/* For the tests that run the ehdecode binary: perf_test_tool = $EHCONF_BUILD/bin/ehdecode
 * (make unit sets EHCONF_BUILD), perf_test_dir = a fresh $TMPDIR/ehconf-tool-XXXXXX,
 * removed at exit (a short TMPDIR: the tests' paths have room for it). Returns 1, or 0
 * if there is no ehdecode to run (the test skips). */
extern char perf_test_tool[512], perf_test_dir[96];
int perf_test_tool_setup(void);

#endif /* SUPPORT_PERF_UTIL_H */
