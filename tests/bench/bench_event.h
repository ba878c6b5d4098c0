/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' 5-field event (u32, i64, str8, guid, f64) encoded by hand, the
 * baseline libeventheader's EH_WRITE is measured against (tests/bench/bench_lib.c
 * and, on the real kernel, harness/vm/bench_vm.c). Layout (Documentation/eventheader-wire.md):
 * the 8-byte header (flags 0x07: pointer64 | little-endian | extension; level 5), one
 * metadata extension (u16 size, u16 kind 1) with the event name and each field's name,
 * encoding and format, then the payload.
 */
#ifndef EHCONF_BENCH_EVENT_H
#define EHCONF_BENCH_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Writes the event for value i with str8 = text[0..len) and f64 = f; returns its size
 * (at most 96 + len bytes). */
static inline size_t bench_encode_event(uint8_t *out, uint32_t i, const char *text, uint16_t len,
                                        const uint8_t guid[16], double f)
{
    static const uint8_t head[8] = {0x07, 0, 0, 0, 0, 0, 0, 5};
    static const uint8_t meta[] = {
        'B', 'e', 'n', 'c', 'h',  '5',  0,    'u', '3', '2', 0, 0x04, /* Value32 */
        'i', '6', '4', 0,   0x85, 0x02,                               /* Value64 + SignedInt */
        's', 't', 'r', '8', 0,    0x0a,                               /* StringLength16Char8 */
        'g', 'u', 'i', 'd', 0,    0x86, 0x0f,                         /* Value128 + Uuid */
        'f', '6', '4', 0,   0x85, 0x08,                               /* Value64 + Float */
    };
    uint16_t ext[2] = {sizeof meta, 1};
    int64_t i64 = -(int64_t)i;
    size_t n = 0;

    memcpy(out + n, head, sizeof head), n += sizeof head;
    memcpy(out + n, ext, sizeof ext), n += sizeof ext;
    memcpy(out + n, meta, sizeof meta), n += sizeof meta;
    memcpy(out + n, &i, 4), n += 4;
    memcpy(out + n, &i64, 8), n += 8;
    memcpy(out + n, &len, 2), n += 2;
    memcpy(out + n, text, len), n += len;
    memcpy(out + n, guid, 16), n += 16;
    memcpy(out + n, &f, 8), n += 8;
    return n;
}

#endif /* EHCONF_BENCH_EVENT_H */
