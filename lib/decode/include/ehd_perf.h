/* SPDX-License-Identifier: MIT */
/*
 * perf.data (file mode) and perf pipe-mode reader, tracefs format parsing and
 * the decoding of tracepoints that are not EventHeader (Documentation/decoder-json.md §7).
 * Owned by the perf-reader part of libehdecode; uses ehd.h for output.
 *
 * Layers, lowest first:
 *   ehd_tp_format_*      one tracefs "format" text -> name, ID, fields
 *   ehd_tracing_data_*   the HEADER_TRACING_DATA blob -> all formats in it
 *   ehd_perf_reader_*    streaming record reader for both perf.data modes
 *   ehd_perf_sample_json one sample -> one JSON object (EventHeader or §7)
 *   ehd_perf_decode      the whole pipeline: rounds sorted by time, like perf-decode
 *   ehd_perf_decode_jobs the same with the samples formatted on several threads
 *
 * Memory: the reader reads through a fixed window (records are at most 64 KiB),
 * so memory is bounded by the largest record, the metadata (tracing data,
 * attrs; each bounded by the file size or EHD_PERF_META_MAX for pipes) and, in
 * ehd_perf_decode, one round of formatted events (EHD_PERF_ROUND_MAX bytes; a
 * round that grows beyond it is flushed early). ehd_perf_decode_jobs adds a fixed
 * number of small batches per thread (src/perf_jobs.c).
 */
#ifndef EHD_PERF_H
#define EHD_PERF_H

#include "ehd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Caps (documented bounds for inputs whose size is not known). */
#define EHD_PERF_META_MAX  (256u << 20) /* one metadata blob (tracing data, feature) */
#define EHD_PERF_ROUND_MAX (8u << 20)   /* formatted JSON held back for sorting */
#define EHD_PERF_MAX_ATTRS 65536u
/* Threads of ehd_perf_decode_jobs. Each costs about 0.6 MB (40 MB at 64 on the bench's
 * file), and one thread reads every record, at some 15 M records/s by the profile here,
 * against ~2.3 M formatted per job: jobs beyond 8 add little. 16 keeps memory near 15 MB. */
#define EHD_PERF_JOBS_MAX 16u
#define EHD_TP_MAX_FIELDS 1024u

/* ---- tracefs format ----------------------------------------------------- */

enum ehd_tp_kind {
    EHD_TP_NONE = 0,     /* unknown type: rendered as hex bytes */
    EHD_TP_UNSIGNED = 1, /* decimal */
    EHD_TP_SIGNED = 2,   /* decimal, two's complement */
    EHD_TP_HEX = 3,      /* "0x%X" */
    EHD_TP_STRING = 4,   /* char: bytes up to the first NUL, Latin-1 */
};

enum ehd_tp_loc {
    EHD_TP_LOC_NONE = 0,
    EHD_TP_LOC_DATA = 1, /* __data_loc: u32 = len << 16 | offset from record start */
    EHD_TP_LOC_REL = 2,  /* __rel_loc: offset counted from the end of the u32 */
};

typedef struct ehd_tp_field {
    const char *name;     /* NUL-terminated, points into the format's storage */
    const char *type;     /* declaration without the name: "unsigned long", "__data_loc char[]" */
    uint32_t offset;      /* from the start of the raw record (common header included) */
    uint32_t size;        /* bytes at offset (for locs: 4) */
    uint32_t array_count; /* fixed array [N]: N; 0 = scalar or dynamic */
    uint8_t is_signed;    /* the format's signed: value */
    uint8_t kind;         /* enum ehd_tp_kind */
    uint8_t loc;          /* enum ehd_tp_loc */
    uint32_t elem_size;   /* bytes per element (scalar size, array element size) */
    uint8_t is_array;     /* fixed or dynamic array */
} ehd_tp_field;

typedef struct ehd_tp_format {
    char *system; /* e.g. "user_events" */
    char *name;   /* e.g. "Sample_Provider_L5K1" */
    uint32_t id;  /* ID: line */
    ehd_tp_field *fields;
    size_t nfields;
    size_t first_user;  /* index of the first field not named common_* */
    int is_eventheader; /* first user field is eventheader_flags at offset 8 */
    char *storage;      /* owns the strings */
} ehd_tp_format;

/* Parses one format text. On failure returns EBADMSG (or ENOMEM), sets *reason
 * and leaves *fmt empty. system may be NULL. */
int ehd_tp_format_parse(ehd_tp_format *fmt, const char *system, const char *text, size_t len,
                        const char **reason);
void ehd_tp_format_free(ehd_tp_format *fmt);

typedef struct ehd_tracing_data {
    ehd_tp_format *formats;
    size_t nformats;
    int big_endian; /* the blob's own endianness byte */
    uint8_t long_size;
    uint32_t page_size;
    char version[16];
} ehd_tracing_data;

/* Parses a HEADER_TRACING_DATA blob. Formats that fail to parse are skipped
 * (reported through *reason and *err_offset of the last problem, return 0 with
 * *reason != NULL); a blob that is malformed as a whole returns EBADMSG with
 * the formats parsed so far kept. */
int ehd_tracing_data_parse(ehd_tracing_data *td, const uint8_t *p, size_t n, const char **reason,
                           size_t *err_offset);
const ehd_tp_format *ehd_tracing_data_find(const ehd_tracing_data *td, uint32_t id);
void ehd_tracing_data_free(ehd_tracing_data *td);

/* ---- perf record reader ------------------------------------------------- */

/* perf ABI numbers used by the reader (also used by mkperfdata). */
enum {
    EHD_PERF_TYPE_TRACEPOINT = 2,

    EHD_PERF_RECORD_LOST = 2,
    EHD_PERF_RECORD_SAMPLE = 9,
    EHD_PERF_RECORD_HEADER_ATTR = 64,
    EHD_PERF_RECORD_HEADER_EVENT_TYPE = 65,
    EHD_PERF_RECORD_HEADER_TRACING_DATA = 66,
    EHD_PERF_RECORD_HEADER_BUILD_ID = 67,
    EHD_PERF_RECORD_FINISHED_ROUND = 68,
    EHD_PERF_RECORD_ID_INDEX = 69,
    EHD_PERF_RECORD_AUXTRACE = 71,
    EHD_PERF_RECORD_EVENT_UPDATE = 78,
    EHD_PERF_RECORD_TIME_CONV = 79,
    EHD_PERF_RECORD_HEADER_FEATURE = 80,
    EHD_PERF_RECORD_COMPRESSED = 81,
    EHD_PERF_RECORD_COMPRESSED2 = 83, /* newer perf: same meaning, aligned payload */

    EHD_PERF_FEAT_TRACING_DATA = 1,
    EHD_PERF_FEAT_EVENT_DESC = 12,
    EHD_PERF_FEAT_CLOCKID = 23,
    EHD_PERF_FEAT_CLOCK_DATA = 29,

    EHD_PERF_EVENT_UPDATE_NAME = 2,
};

/* sample_type bits */
#define EHD_PERF_SAMPLE_IP         (1ull << 0)
#define EHD_PERF_SAMPLE_TID        (1ull << 1)
#define EHD_PERF_SAMPLE_TIME       (1ull << 2)
#define EHD_PERF_SAMPLE_ADDR       (1ull << 3)
#define EHD_PERF_SAMPLE_READ       (1ull << 4)
#define EHD_PERF_SAMPLE_CALLCHAIN  (1ull << 5)
#define EHD_PERF_SAMPLE_ID         (1ull << 6)
#define EHD_PERF_SAMPLE_CPU        (1ull << 7)
#define EHD_PERF_SAMPLE_PERIOD     (1ull << 8)
#define EHD_PERF_SAMPLE_STREAM_ID  (1ull << 9)
#define EHD_PERF_SAMPLE_RAW        (1ull << 10)
#define EHD_PERF_SAMPLE_IDENTIFIER (1ull << 16)
/* read_format bits */
#define EHD_PERF_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define EHD_PERF_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define EHD_PERF_FORMAT_ID                 (1ull << 2)
#define EHD_PERF_FORMAT_GROUP              (1ull << 3)
#define EHD_PERF_FORMAT_LOST               (1ull << 4)
/* attr flag bits (the u64 of bitfields after read_format) */
#define EHD_PERF_ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)

typedef struct ehd_perf_attr {
    uint32_t type;
    uint64_t config;
    uint64_t sample_type;
    uint64_t read_format;
    uint64_t flags;
    char *name;                  /* "system:event" from EVENT_DESC / EVENT_UPDATE, or NULL */
    const ehd_tp_format *format; /* tracefs format (attr.config == ID), or NULL */
    uint64_t *ids;
    size_t nids;
} ehd_perf_attr;

typedef struct ehd_perf_record {
    uint32_t type;
    uint16_t misc;
    uint32_t size;        /* header.size */
    uint64_t file_offset; /* of the record header */
    const uint8_t *data;  /* the whole record (header included), file byte order */
} ehd_perf_record;

typedef struct ehd_perf_sample {
    uint64_t file_offset;
    const ehd_perf_attr *attr; /* NULL if the sample's id is unknown */
    uint64_t id;
    int has_id, has_time, has_cpu, has_tid;
    uint64_t time;
    uint32_t cpu, pid, tid;
    const uint8_t *raw; /* PERF_SAMPLE_RAW bytes (common header first), or NULL */
    uint32_t raw_size;
} ehd_perf_sample;

typedef struct ehd_perf_reader ehd_perf_reader;

/* Called for every problem the reader can step over (offset = absolute). */
typedef void ehd_perf_diag_fn(void *ctx, uint64_t offset, const char *reason);

/* Opens a perf.data stream (file or pipe mode). A file-mode stream that cannot
 * seek is first copied to a temporary file. Returns NULL with *reason and *offset
 * set if the header is unusable. f stays owned by the caller. */
ehd_perf_reader *ehd_perf_open(FILE *f, ehd_perf_diag_fn *diag, void *diag_ctx, const char **reason,
                               uint64_t *offset);
void ehd_perf_close(ehd_perf_reader *r);

int ehd_perf_is_pipe(const ehd_perf_reader *r);
int ehd_perf_is_big_endian(const ehd_perf_reader *r);
size_t ehd_perf_attr_count(const ehd_perf_reader *r);
const ehd_perf_attr *ehd_perf_attr_at(const ehd_perf_reader *r, size_t i);
const ehd_tracing_data *ehd_perf_tracing_data(const ehd_perf_reader *r);
/* 1 and the values if the file has HEADER_CLOCK_DATA (or its pipe feature). */
int ehd_perf_clock_data(const ehd_perf_reader *r, uint32_t *clockid, uint64_t *wall_ns,
                        uint64_t *clock_ns);
/* Number of problems reported through diag so far. */
unsigned long ehd_perf_problem_count(const ehd_perf_reader *r);

/* Next record of the data section / stream. Metadata records (attrs, tracing
 * data, features, event updates) are consumed by the reader and returned too.
 * 1 = a record (valid until the next call), 0 = end, -1 = stop: a problem that
 * makes the rest unreadable (reported through diag). */
int ehd_perf_next(ehd_perf_reader *r, ehd_perf_record *rec);

/* Parses a PERF_RECORD_SAMPLE. 0, or EBADMSG/ENOTSUP with *reason. */
int ehd_perf_parse_sample(const ehd_perf_reader *r, const ehd_perf_record *rec, ehd_perf_sample *s,
                          const char **reason);

/* Parses the sample_id_all trailer of a non-sample record (TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER, at the record's end). 0 with s filled (raw
 * NULL), ENOENT if the record has no trailer (attr without sample_id_all, or
 * a type >= 64), EBADMSG if it does not fit. */
int ehd_perf_parse_sample_id(const ehd_perf_reader *r, const ehd_perf_record *rec,
                             ehd_perf_sample *s, const char **reason);

/* Helpers on the file's byte order. */
uint16_t ehd_perf_u16(const ehd_perf_reader *r, const void *p);
uint32_t ehd_perf_u32(const ehd_perf_reader *r, const void *p);
uint64_t ehd_perf_u64(const ehd_perf_reader *r, const void *p);

/* ---- sample -> JSON ---------------------------------------------------- */

/* "system:event" (or the bare event name) of a sample, for error objects. */
void ehd_perf_sample_name(const ehd_perf_sample *s, ehd_buf *out);

/* Formats the sample's time as a JSON value (quoted date with clock data,
 * else unquoted seconds). dst needs 48 bytes. Returns the length. */
size_t ehd_perf_time_json(const ehd_perf_reader *r, uint64_t time, char *dst);

/* One sample as one JSON object. EventHeader tracepoints go through
 * ehd_eventheader_json, others are rendered per Documentation/decoder-json.md §7.
 * On failure returns an errno with *reason and appends nothing. */
int ehd_perf_sample_json(const ehd_perf_reader *r, const ehd_perf_sample *s, unsigned flags,
                         ehd_buf *out, const char **reason);

/* The pinned shape of an event that cannot be decoded:
 * { "n": "<system>:<name>", "error": "<reason>", "fileOffset": <offset> } */
void ehd_perf_error_json(ehd_buf *out, const char *name, size_t name_len, const char *reason,
                         uint64_t file_offset, unsigned flags);

/* ---- the whole pipeline ------------------------------------------------- */

typedef void ehd_perf_emit_fn(void *ctx, const char *json, size_t len);

/* Decodes every sample of a perf.data stream, emitting one JSON object per
 * sample sorted by time within each FINISHED_ROUND (stable), like perf-decode.
 * Returns 0 if everything decoded, 1 if anything was skipped or malformed
 * (each reason went to diag), ENOMEM on out of memory. */
int ehd_perf_decode(FILE *f, unsigned flags, ehd_perf_emit_fn *emit, void *emit_ctx,
                    ehd_perf_diag_fn *diag, void *diag_ctx);

/* ehd_perf_decode with the samples formatted on `jobs` threads (the calling thread and
 * jobs - 1 more, at most EHD_PERF_JOBS_MAX; jobs <= 1 is ehd_perf_decode). The same emit
 * and diag calls in the same order and the same result as ehd_perf_decode. The callbacks
 * may run on any of those threads, but one call at a time, each call ordered after the
 * one before (a lock hands them over), so they need no locking of their own. From a
 * regular file the threads read records by offset (pread), leaving its position alone. */
int ehd_perf_decode_jobs(FILE *f, unsigned flags, unsigned jobs, ehd_perf_emit_fn *emit,
                         void *emit_ctx, ehd_perf_diag_fn *diag, void *diag_ctx);

/* ---- perf.data writer (test data: mkperfdata, benchmarks) ------------------ */

/* Writes a perf.data with one PERF_TYPE_TRACEPOINT attr per tracepoint
 * (config = 1000 + index, sample id = 100 + index, sample_type
 * IDENTIFIER|TID|TIME|CPU|RAW, sample_id_all), a tracing data blob with a
 * user_events format per tracepoint exactly like the kernel's (and optionally
 * sched:sched_switch as the last tracepoint), EVENT_DESC names and optional
 * CLOCK_DATA. Raw data = 8-byte common header + payload + pad bytes 0xAA up to
 * the kernel's raw size round_up(8 + P + 4, 8) - 4. Big-endian output swaps
 * every perf field; payload bytes are written as given. File mode needs a
 * seekable FILE (the header is written last). */
typedef struct ehd_perf_writer_opts {
    int pipe;
    int big_endian;
    int sched;                 /* add sched:sched_switch as tracepoint index n */
    const char *custom_fields; /* if set: tracepoint "test:custom" as the last index, with
                                  these format field lines after the common fields */
    unsigned round_every;      /* FINISHED_ROUND after this many samples; 0 = only at the end */
    int clock_data;            /* write CLOCK_DATA (clockid 1) with the two times below */
    uint64_t wall_ns, clock_ns;
} ehd_perf_writer_opts;

typedef struct ehd_perf_writer ehd_perf_writer;

ehd_perf_writer *ehd_perf_writer_open(FILE *out, const ehd_perf_writer_opts *o,
                                      const char *const *tp_names, size_t n, const char **reason);
/* One sample of tracepoint tp (0..n-1, then sched_switch, then test:custom);
 * payload = the bytes after the common header. 0, or E2BIG if the record
 * would not fit. */
int ehd_perf_writer_sample(ehd_perf_writer *w, size_t tp, const void *payload, size_t size,
                           uint64_t time, uint32_t pid, uint32_t tid, uint32_t cpu);
/* The 56-byte sched_switch payload (comm[16], pid, prio, long state, comm[16], pid, prio)
 * in the writer's byte order. */
void ehd_perf_writer_sched_payload(const ehd_perf_writer *w, uint8_t out[56], const char *prev_comm,
                                   int32_t prev_pid, int32_t prev_prio, int64_t prev_state,
                                   const char *next_comm, int32_t next_pid, int32_t next_prio);
/* Any other record (body = bytes after the 8-byte header, already in the
 * writer's byte order), e.g. PERF_RECORD_LOST, to test how the reader skips it. */
void ehd_perf_writer_record(ehd_perf_writer *w, uint32_t type, const void *body, size_t n);
/* Writes the rest (features, attrs, header) and frees w. 0 or an errno. */
int ehd_perf_writer_finish(ehd_perf_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* EHD_PERF_H */
