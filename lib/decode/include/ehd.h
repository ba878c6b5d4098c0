/* SPDX-License-Identifier: MIT */
/*
 * libehdecode: the pieces shared by every ehconf decoder front end.
 *
 *   ehd_buf               growable output buffer (out-of-memory is sticky, never a crash)
 *   ehd_json_*            JSON string escaping and value helpers (decoder-json.md §4)
 *   ehd_eventheader_json  one EventHeader event -> one JSON object (decoder-json.md §2-§4)
 *   ehd_dat_*             the capture (.dat) file reader (eventheader-wire.md §9)
 * (The .md files are in Documentation/.)
 *
 * The perf.data / pipe reader and the tracefs-format decoder live in ehd_perf.h.
 */
#ifndef EHD_H
#define EHD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output buffer ---------------------------------------------------- */

typedef struct ehd_buf {
    char *data;
    size_t len;
    size_t cap;
    int oom; /* set once an allocation failed; later appends are dropped */
} ehd_buf;

void ehd_buf_init(ehd_buf *b);
void ehd_buf_free(ehd_buf *b);
void ehd_buf_reset(ehd_buf *b);                /* len = 0, keeps memory */
void ehd_buf_truncate(ehd_buf *b, size_t len); /* roll back to an earlier length */
void ehd_buf_append(ehd_buf *b, const void *p, size_t n);
void ehd_buf_puts(ehd_buf *b, const char *s);
void ehd_buf_putc(ehd_buf *b, char c);
void ehd_buf_printf(ehd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- JSON helpers ----------------------------------------------------- */

/* Quoted JSON string from UTF-8 input, with the reference decoder's rules:
 * well-formed sequences copied, anything else re-read byte-by-byte as Latin-1
 * (Documentation/decoder-json.md §4.8), escapes per §4.1. */
void ehd_json_string_utf8(ehd_buf *b, const void *s, size_t n);
/* Quoted JSON string where every byte is Latin-1 (U+0000..U+00FF). */
void ehd_json_string_latin1(ehd_buf *b, const void *s, size_t n);
/* Quoted JSON string from UTF-16 / UTF-32 code units in the given byte order
 * (big_endian != 0: big-endian). Surrogate pairs are combined; lone surrogates,
 * values above U+10FFFF and a partial trailing unit become U+FFFD, so the
 * output is always valid UTF-8. */
void ehd_json_string_utf16(ehd_buf *b, const void *s, size_t n, int big_endian);
void ehd_json_string_utf32(ehd_buf *b, const void *s, size_t n, int big_endian);

/* Shortest round-trip text of a float / double, as C++17 std::to_chars prints
 * it (Documentation/decoder-json.md §4.4): "3.14", "1e+21", "-0", "nan", "-inf".
 * Returns the number of characters written (no NUL); dst needs 40 bytes. */
size_t ehd_format_float32(char *dst, float v);
size_t ehd_format_float64(char *dst, double v);

/* "YYYY-MM-DDTHH:MM:SS" for seconds since 1970 (proleptic Gregorian, UTC),
 * for any int64 value (no calendar-range failure, unlike the reference).
 * Returns the number of characters written (no NUL); dst needs 32 bytes. */
size_t ehd_format_datetime(char *dst, int64_t seconds);

/* ---- EventHeader event -> JSON ----------------------------------------- */

enum {
    EHD_JSON_SPACE = 0x1,     /* the reference's Space flag (default on in ehdecode) */
    EHD_JSON_FIELD_TAG = 0x2, /* ";tag=0x.." suffix on tagged field names (default on) */
    EHD_META_GOLDEN = 0x4,    /* meta limited to level, keyword, opcode, tag, id, version,
                                 activity, relatedActivity (no time/cpu/pid/tid) */
};

/* What the transport knows about one event (perf sample fields); all optional. */
typedef struct ehd_sample_info {
    const char *time_json; /* already-formatted JSON value for "time" (quoted or not), or NULL */
    int has_cpu;
    uint32_t cpu;
    int has_pid;
    uint32_t pid;
    uint32_t tid;
} ehd_sample_info;

/*
 * Appends one JSON object "{ "n": "Provider:Event", fields..., "meta": { ... } }"
 * (no leading separator or whitespace) for an EventHeader event.
 *   tp_name/tp_name_len: tracepoint name, e.g. "MyProvider_L5K1Gmygroup"
 *   data/size: the bytes after the write index (header, extensions, payload);
 *              bytes after the last described field are padding and ignored.
 *   si: may be NULL (capture files).
 * Returns 0, or an errno value (EBADMSG malformed, ENOTSUP unsupported, EINVAL
 * tracepoint name not "<provider>_L<level>K<keyword><options>" with the
 * header's level, E2BIG over a documented bound, ENOMEM) with *reason set to a
 * one-line explanation and *err_offset to the offset within data where
 * decoding stopped. *reason may name the field, so it points to a thread-local
 * buffer: valid until the same thread's next ehd_eventheader_json call (copy
 * it to keep it longer). On failure nothing is appended to out.
 */
int ehd_eventheader_json(ehd_buf *out, const char *tp_name, size_t tp_name_len, const uint8_t *data,
                         size_t size, const ehd_sample_info *si, unsigned flags,
                         const char **reason, size_t *err_offset);

/* ---- capture (.dat) files ----------------------------------------------- */

typedef struct ehd_dat_record {
    uint64_t file_offset; /* offset of the record's size field */
    const char *tp_name;  /* NUL-terminated, inside the record */
    size_t tp_name_len;
    const uint8_t *data; /* event bytes (header onwards) */
    size_t size;
} ehd_dat_record;

typedef struct ehd_dat_reader ehd_dat_reader;

/* Streaming reader over a FILE (memory bounded by the largest record). */
ehd_dat_reader *ehd_dat_open(FILE *f);
/* 1 = a record, 0 = end of file, -1 = malformed (reason/offset set). A record
 * size that lies cannot be resynchronised, so after such an error reading
 * stops; a record whose size is sound but whose name is bad is reported and
 * skipped (see ehd_dat_can_continue). rec points into the reader's buffer and
 * stays valid until the next call. */
int ehd_dat_next(ehd_dat_reader *r, ehd_dat_record *rec, const char **reason, uint64_t *offset);
void ehd_dat_close(ehd_dat_reader *r);
/* After ehd_dat_next returned -1: 1 if only that record was bad (its name is
 * not NUL-terminated; its size was sound) and the next call reads the record
 * after it; 0 if the error is fatal (bad size, truncated file, I/O error,
 * out of memory), in which case later calls return 0 (nothing more to read). */
int ehd_dat_can_continue(const ehd_dat_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* EHD_H */
