/* SPDX-License-Identifier: MIT */
/*
 * Internal interface between the float formatter (ehd_float.c) and its fast
 * digit generator (ehd_float_shortest.c); also lets the unit tests compare the
 * fast path against the slow strtod-checked reference on many values.
 */
#ifndef EHD_FLOAT_H
#define EHD_FLOAT_H

#include <stddef.h>
#include <stdint.h>

/* Shortest round-trip digits of the positive value f * 2^e (f != 0; lopsided:
 * f is a power of two whose gap below is half the gap above). On success
 * returns 1 with the digits ('0'-'9', no trailing zeros, NUL-terminated, at
 * most 17) in digits, their count in *ndigits and the scientific exponent
 * (value = d.ddd * 10^*sci_exp) in *sci_exp. Returns 0 when the value is
 * outside the range the fixed-width arithmetic covers. */
int ehd_float_shortest_fast(uint64_t f, int e, int lopsided, char *digits, int *ndigits,
                            int *sci_exp);

/* Writes the shortest digits (n of them, value = d.ddd * 10^E, no sign) in the
 * notation C++17 to_chars picks: fixed when it is no longer than scientific,
 * else d.ddde+XX. A fixed integer is the exact integer value, not the digits
 * padded with zeros, so for that case the caller's exact_integer(out, ctx)
 * writes it and returns its length. NUL-terminates; returns the length. */
size_t ehd_float_layout(char *o, const char *digits, int n, int E,
                        size_t (*exact_integer)(char *out, const void *ctx), const void *ctx);

/* The formatter with the fast path switched off: the original
 * strtod-checked search, kept as the oracle for tests. Same contract as
 * ehd_format_float32/64 (is_float: v holds a float value). */
size_t ehd_format_float_reference(char *dst, double v, int is_float);

#endif /* EHD_FLOAT_H */
