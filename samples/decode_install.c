/* SPDX-License-Identifier: MIT */
/*
 * decode_install.c: a capture (.dat) file to JSON lines with an installed libehdecode,
 * built through pkg-config (mk/install.mk's test-install):
 *
 *   cc decode_install.c $(pkg-config --cflags --libs ehdecode) -o decode
 *   ./decode hello.dat
 *
 * Prints each event as `ehdecode --golden` does (one object per line, deterministic meta).
 * Exit 0 when every record decoded, 1 otherwise, 2 for usage.
 */
#include <stdio.h>

#include "ehd.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: decode_install FILE.dat\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    ehd_dat_reader *r = ehd_dat_open(f);
    int rc = r ? 0 : 1, got;
    ehd_dat_record rec;
    const char *reason;
    uint64_t offset;
    ehd_buf out;
    ehd_buf_init(&out);
    while (r && (got = ehd_dat_next(r, &rec, &reason, &offset)) != 0) {
        if (got < 0) {
            fprintf(stderr, "decode_install: %s:%llu: %s\n", argv[1], (unsigned long long)offset,
                    reason);
            rc = 1;
            if (!ehd_dat_can_continue(r))
                break;
            continue;
        }
        size_t at;
        ehd_buf_reset(&out);
        if (ehd_eventheader_json(&out, rec.tp_name, rec.tp_name_len, rec.data, rec.size, NULL,
                                 EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN, &reason,
                                 &at) != 0) {
            fprintf(stderr, "decode_install: %s: %s at %zu\n", rec.tp_name, reason, at);
            rc = 1;
            continue;
        }
        fwrite(out.data, 1, out.len, stdout);
        putchar('\n');
    }
    ehd_buf_free(&out);
    if (r)
        ehd_dat_close(r);
    fclose(f);
    return rc;
}
