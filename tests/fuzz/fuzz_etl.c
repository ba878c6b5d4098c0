/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the .etl reader (Documentation/etl-format.md): the input is an
 * ETW log file image. Decodes it fully with both output forms, and asks the content
 * sniffer ehdecode uses. Seeds (seeds-fuzz_etl/): the real capture of tests/data/etl
 * (microsoft/perfview, MIT, see the README there), truncations of it, and single
 * buffers of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ehd_tl.h"

#include "fuzz_sinks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    (void)ehd_etl_is_magic(data, size);
    for (int golden = 0; golden < 2; golden++) {
        FILE *f = fmemopen((void *)data, size, "rb");
        if (!f)
            return 0;
        unsigned flags = EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | (golden ? EHD_META_GOLDEN : 0);
        ehd_etl_decode(f, flags, emit_nothing, NULL, diag_nothing, NULL);
        fclose(f);
    }
    return 0;
}
