/* SPDX-License-Identifier: MIT */
/*
 * ehd_readers.h: the capture readers of the transport registry, as one interface.
 *
 * Every row of lib/eventheader/include/eh_transports.def names the capture format its
 * events are read from (the `reader` column). This header turns that column into two
 * functions per reader, which the reader's own source file defines:
 *
 *   int ehd_reader_<reader>_probe(const void *head, size_t n)
 *       how sure the reader is that a file starting with these n bytes (at most
 *       EHD_READER_SNIFF; fewer only when the file is shorter) is its format:
 *       EHD_PROBE_SIGNATURE (its signature is there), EHD_PROBE_FALLBACK (it has no
 *       signature and takes whatever no other reader claims) or 0 (not its format).
 *   int ehd_reader_<reader>_decode(FILE *f, const struct ehd_read_args *a)
 *       every event of the file to a->emit, every problem to a->diag; 0 if everything
 *       decoded, else nonzero.
 *
 * lib/decode/src/readers.c builds the table of them from the registry, and ehdecode
 * picks the reader whose probe answers highest (the first on a tie) or the one
 * --reader names. A new transport's reader is therefore its row plus these two
 * functions: nothing else lists readers. Reader `none` (a transport nothing decodes,
 * such as ftrace) has no functions.
 */
#ifndef EHD_READERS_H
#define EHD_READERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest prefix any probe needs: an .etl file's first buffer header and first
 * record header (Documentation/etl-format.md §2). */
enum { EHD_READER_SNIFF = 0x50 };

enum { EHD_PROBE_NO = 0, EHD_PROBE_FALLBACK = 1, EHD_PROBE_SIGNATURE = 2 };

typedef void ehd_read_emit_fn(void *ctx, const char *json, size_t len);
typedef void ehd_read_diag_fn(void *ctx, uint64_t offset, const char *reason);

struct ehd_read_args {
    unsigned flags; /* EHD_JSON_* */
    unsigned jobs;  /* formatting threads, for a reader that can use them (perf) */
    ehd_read_emit_fn *emit;
    void *emit_ctx;
    ehd_read_diag_fn *diag;
    void *diag_ctx;
};

typedef int ehd_reader_probe_fn(const void *head, size_t n);
typedef int ehd_reader_decode_fn(FILE *f, const struct ehd_read_args *a);

struct ehd_reader {
    const char *name; /* the registry's `reader` column */
    ehd_reader_probe_fn *probe;
    ehd_reader_decode_fn *decode;
};

/* One prototype pair per registry row (a reader named twice is declared twice, which C
 * allows). */
#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    ehd_reader_probe_fn ehd_reader_##reader##_probe;                         \
    ehd_reader_decode_fn ehd_reader_##reader##_decode;
#define EH_LIVE_TRANSPORT(name, backend, reader, golden, tl) \
    ehd_reader_probe_fn ehd_reader_##reader##_probe;         \
    ehd_reader_decode_fn ehd_reader_##reader##_decode;
#include "eh_transports.def"

/* One entry per registry row, in registry order (a reader named by two rows is there
 * twice: harmless, the first answers). Entries of reader `none` have NULL functions and
 * are never chosen. */
extern const struct ehd_reader ehd_readers[];
extern const size_t ehd_reader_count;

/* The reader of a file that starts with head[0..n): the highest probe answer, the first
 * in registry order on a tie; NULL if no reader takes it. */
const struct ehd_reader *ehd_reader_choose(const void *head, size_t n);

/* The reader of that name, NULL if the registry has none. */
const struct ehd_reader *ehd_reader_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* EHD_READERS_H */
