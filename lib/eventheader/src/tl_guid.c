/* SPDX-License-Identifier: MIT */
/*
 * Provider GUID from a provider name (the EventSource / TraceLogging convention,
 * tracelogging-etw.md "Writing"): SHA-1 over the 16 namespace bytes
 * 48 2C 2D B2 C3 90 47 C8 87 F8 1A 15 BF C1 30 FB followed by the UTF-16BE code units
 * of the uppercased name (no NUL); byte 7 = (byte 7 & 0x0F) | 0x50; the first 16 bytes
 * are the GUID in Windows memory layout (Data1-3 little-endian).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_encode.h"

static const uint8_t name_namespace[16] = { 0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8,
                                            0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30, 0xFB };

/* Next code point of UTF-8 text, or -1 for an ill-formed sequence. */
static long next_utf8(const uint8_t *s, size_t n, size_t *i)
{
    uint8_t c = s[*i];
    unsigned len;
    uint32_t cp, min;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return -1;
    }
    if (n - *i < len)
        return -1;
    for (unsigned k = 1; k < len; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return -1;
        cp = cp << 6 | (s[*i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *i += len;
    return (long)cp;
}

int eh_tl_guid_from_name(const char *name, size_t len, uint8_t guid[16])
{
    /* At most 2 UTF-16 units (4 bytes) per input byte. */
    uint8_t *msg = malloc(16 + 4 * len + 1);
    if (!msg)
        return ENOMEM;
    memcpy(msg, name_namespace, 16);
    size_t m = 16, i = 0;
    const uint8_t *s = (const uint8_t *)name;
    while (i < len) {
        long cp = next_utf8(s, len, &i);
        if (cp < 0) {
            free(msg);
            return EINVAL;
        }
        if (cp >= 'a' && cp <= 'z')
            cp -= 'a' - 'A';
        if (cp >= 0x10000) {
            uint32_t v = (uint32_t)cp - 0x10000;
            uint16_t hi = (uint16_t)(0xD800 | (v >> 10)), lo = (uint16_t)(0xDC00 | (v & 0x3FF));
            msg[m++] = (uint8_t)(hi >> 8);
            msg[m++] = (uint8_t)hi;
            msg[m++] = (uint8_t)(lo >> 8);
            msg[m++] = (uint8_t)lo;
        } else {
            msg[m++] = (uint8_t)(cp >> 8);
            msg[m++] = (uint8_t)cp;
        }
    }
    uint8_t digest[20];
    eh_tl_sha1(msg, m, digest);
    free(msg);
    digest[7] = (uint8_t)((digest[7] & 0x0F) | 0x50);
    memcpy(guid, digest, 16);
    return 0;
}

void eh_tl_guid_format(const uint8_t g[16], char text[37])
{
    snprintf(text, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
             g[13], g[14], g[15]);
}
