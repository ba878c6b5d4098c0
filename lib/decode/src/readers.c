/* SPDX-License-Identifier: MIT */
/*
 * The reader table of the transport registry (ehd_readers.h), built from
 * eh_transports.def: a new row's reader is in it with no edit here.
 */
#include <string.h>

#include "ehd_readers.h"

/* Reader `none` has nothing to run: its pasted names stand for NULL (a name made by ##
 * is macro-expanded again), and choose/find pass over its entries. */
#define ehd_reader_none_probe  NULL
#define ehd_reader_none_decode NULL

#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    {#reader, ehd_reader_##reader##_probe, ehd_reader_##reader##_decode},
#define EH_LIVE_TRANSPORT(name, backend, reader, golden, tl) \
    {#reader, ehd_reader_##reader##_probe, ehd_reader_##reader##_decode},
const struct ehd_reader ehd_readers[] = {
#include "eh_transports.def"
};
const size_t ehd_reader_count = sizeof ehd_readers / sizeof ehd_readers[0];

const struct ehd_reader *ehd_reader_choose(const void *head, size_t n)
{
    const struct ehd_reader *best = NULL;
    int best_answer = EHD_PROBE_NO;
    for (size_t i = 0; i < ehd_reader_count; i++) {
        if (!ehd_readers[i].probe)
            continue;
        int answer = ehd_readers[i].probe(head, n);
        if (answer > best_answer) {
            best = &ehd_readers[i];
            best_answer = answer;
        }
    }
    return best;
}

const struct ehd_reader *ehd_reader_find(const char *name)
{
    for (size_t i = 0; i < ehd_reader_count; i++)
        if (ehd_readers[i].probe && strcmp(ehd_readers[i].name, name) == 0)
            return &ehd_readers[i];
    return NULL;
}
