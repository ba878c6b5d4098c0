/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: one EventHeader event -> JSON (ehd_eventheader_json).
 *
 * Input: byte 0 = control, bytes 1.. = the event (header onwards).
 *   control & 0x07: EHD_JSON_SPACE / EHD_JSON_FIELD_TAG / EHD_META_GOLDEN
 *   control & 0x08: use a tracepoint name whose level does NOT match (error path)
 *   control & 0x10: pass sample info (time/cpu/pid/tid)
 * The tracepoint name is "Fuzz_Prov_L<level>K1f" with the header's level.
 *
 * Checked invariants: success -> output is one object "{...}" of valid UTF-8
 * with balanced brackets outside strings; failure -> output untouched, a
 * one-line reason, offset inside the event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t utf8_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len = c < 0x80                 ? 1
                 : c >= 0xC2 && c <= 0xDF ? 2
                 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4
                                          : 0;
    if (len == 0 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (len == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, surrogate */
    if (len == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)))
        return 0;
    return len;
}

static void check_output(const uint8_t *s, size_t n)
{
    if (n < 2 || s[0] != '{' || s[n - 1] != '}')
        abort();
    long depth = 0;
    int in_string = 0;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_len(s + i, n - i);
        if (len == 0)
            abort(); /* invalid UTF-8 */
        uint8_t c = s[i];
        if (in_string) {
            if (c < 0x20)
                abort(); /* unescaped control character */
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth < 0)
                abort();
        }
        i += len;
    }
    if (depth != 0 || in_string)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t control = data[0];
    const uint8_t *ev = data + 1;
    size_t n = size - 1;
    unsigned level = n >= 8 ? ev[7] : 0;
    if (control & 0x08)
        level = (level + 1) & 0xff;
    char tp[64];
    int tp_len = snprintf(tp, sizeof tp, "Fuzz_Prov_L%xK1f", level);

    ehd_sample_info si = {.time_json = "\"2024-01-01T00:00:00.000000000Z\"",
                          .has_cpu = 1,
                          .cpu = 3,
                          .has_pid = 1,
                          .pid = 10,
                          .tid = 11};
    ehd_buf out;
    ehd_buf_init(&out);
    ehd_buf_puts(&out, "pre");
    const char *reason = NULL;
    size_t off = (size_t)-1;
    int err = ehd_eventheader_json(&out, tp, (size_t)tp_len, ev, n, (control & 0x10) ? &si : NULL,
                                   control & 0x07, &reason, &off);
    if (err == 0) {
        if (out.len < 3 || memcmp(out.data, "pre", 3) != 0)
            abort();
        check_output((const uint8_t *)out.data + 3, out.len - 3);
    } else {
        if (out.len != 3 || !reason || !*reason || strchr(reason, '\n') || off > n)
            abort();
    }
    ehd_buf_free(&out);
    return 0;
}
