/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the perf reader: the input is a perf.data image (file
 * or pipe mode, either byte order). Decodes it fully with both output forms;
 * also feeds the bytes to the tracing-data and format parsers directly, since
 * those are reached only through a well-formed container otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"

#include "fuzz_sinks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    for (int golden = 0; golden < 2; golden++) {
        FILE *f = fmemopen((void *)data, size, "rb");
        if (!f)
            return 0;
        unsigned flags = EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | (golden ? EHD_META_GOLDEN : 0);
        ehd_perf_decode(f, flags, emit_nothing, NULL, diag_nothing, NULL);
        fclose(f);
    }
    ehd_tracing_data td;
    const char *reason;
    size_t at;
    ehd_tracing_data_parse(&td, data, size, &reason, &at);
    ehd_tracing_data_free(&td);
    ehd_tp_format fmt;
    if (ehd_tp_format_parse(&fmt, "fuzz", (const char *)data, size, &reason) == 0)
        ehd_tp_format_free(&fmt);
    return 0;
}
