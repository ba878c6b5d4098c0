/* SPDX-License-Identifier: MIT */
/*
 * The output and diagnostic sinks every decoder fuzz target passes: they read every
 * byte the decoder hands over, so text built past its buffer is caught by ASan, and
 * keep nothing. (A target may use only one: fuzz_perf captures what it compares.)
 */
#ifndef EHCONF_FUZZ_SINKS_H
#define EHCONF_FUZZ_SINKS_H

#include <stdint.h>
#include <string.h>

__attribute__((unused)) static void emit_nothing(void *ctx, const char *json, size_t len)
{
    volatile char sink = 0;

    (void)ctx;
    for (size_t i = 0; i < len; i++)
        sink ^= json[i];
    (void)sink;
}

__attribute__((unused)) static void diag_nothing(void *ctx, uint64_t offset, const char *reason)
{
    (void)ctx;
    (void)offset;
    (void)strlen(reason);
}

#endif /* EHCONF_FUZZ_SINKS_H */
