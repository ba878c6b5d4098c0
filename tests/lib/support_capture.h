/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the libeventheader unit tests that run on the capture backend:
 * a temporary capture file, its size, and a reader of the records appended
 * since a mark (format: u32 LE record size incl. itself, name, NUL, event).
 */
#ifndef EH_TEST_SUPPORT_CAPTURE_H
#define EH_TEST_SUPPORT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

/* Creates an empty temporary file and sets EHCONF_CAPTURE to it (before the
 * first register of the process). Returns its path. */
const char *cap_setup(const char *tag);

/* Current size of the capture file. */
size_t cap_size(void);

/* Reads the file from offset `from` to its end. Caller frees. */
uint8_t *cap_read_from(size_t from, size_t *len);

struct cap_record {
    const char *name;     /* tracepoint name */
    const uint8_t *event; /* event bytes, header onwards */
    size_t event_len;
};

/* Parses the next record at *p (< end). Returns 1 and advances *p, 0 at the end,
 * -1 for a malformed record (bad size, no NUL). */
int cap_next(const uint8_t **p, const uint8_t *end, struct cap_record *rec);

/* Checks that exactly one record was appended since `mark`, with this tracepoint
 * name and these event bytes; prints "# " diagnostics on mismatch. Returns 1 if so.
 * Use inside KT_EXPECT so the test is marked failed. */
int cap_expect_one(const char *file, int line, size_t mark, const char *name, const uint8_t *event,
                   size_t event_len);
#define CAP_ONE(mark, name, bytes) \
    cap_expect_one(__FILE__, __LINE__, (mark), (name), (bytes), sizeof(bytes))

/* Removes the temporary file (at exit). */
void cap_cleanup(void);

#endif
