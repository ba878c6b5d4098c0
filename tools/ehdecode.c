/* SPDX-License-Identifier: MIT */
/*
 * ehdecode: decode perf.data (file or pipe mode), capture (.dat, .tlcap) and ETW log
 * (.etl) files to JSON.
 *
 *   ehdecode [options] FILE...      FILE "-" or "" = stdin
 *
 * Default output is the perf-decode document (Documentation/decoder-json.md §0):
 * BOM (unless stdout is a tty or --no-bom), {"file": [ events ], ...}.
 * --json-lines prints one event object per line; --golden is --json-lines
 * with only the deterministic meta members (the golden-file form).
 * The reader is one of the transport registry's (eh_transports.def, through
 * ehd_readers.h): the one whose signature the file starts with (perf.data's magic in
 * either byte order, the .tlcap magic, an ETW log file's first buffer), else the
 * capture (.dat) reader, which has none; --reader NAME picks one by its name.
 * -j N / --jobs N formats perf.data samples on N threads (default: one per online
 * CPU) with the same output as one (ehd_perf_decode_jobs); the other inputs are
 * decoded on one thread.
 * Exit: 0 everything decoded, 1 something skipped or malformed (reasons on
 * stderr as "ehdecode: FILE:OFFSET: reason"), 2 usage error.
 *
 * Pinned choices:
 *  - an event that cannot be decoded (including EventHeader events without a
 *    metadata extension, e.g. header-only events) is the object
 *    { "n": "<system>:<tracepoint>", "error": "<reason>", "fileOffset": <offset> }
 *    (capture files use the system "user_events", like the perf path);
 *  - a capture record whose size is sound but whose name is not NUL-terminated
 *    is reported, shown as { "n": "user_events:", "error": ..., "fileOffset":
 *    <record offset> } and skipped; decoding goes on with the next record;
 *  - "-" and "" both read stdin and are named "stdin" in the document;
 *  - --golden on a non-EventHeader tracepoint keeps an empty "meta": { }.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "ehd.h"
#include "ehd_perf.h"
#include "ehd_readers.h"

struct opts {
    unsigned flags;
    int json_lines;
    int no_bom;
    const char *output;
    unsigned jobs;
    const struct ehd_reader *reader; /* --reader; NULL: chosen per file */
};

struct out_state {
    FILE *out;
    int json_lines;
    unsigned flags;
    int first; /* no event written yet for the current file */
};

struct diag_state {
    const char *name;
};

static void usage(FILE *to)
{
    fputs("usage: ehdecode [options] FILE...\n"
          "Decodes perf.data (file or pipe mode), EventHeader capture (.dat), TraceLogging\n"
          "capture (.tlcap) and ETW log (.etl) files to JSON.\n"
          "FILE \"-\" or \"\" reads stdin.\n"
          "  -o, --output FILE  write to FILE instead of stdout\n"
          "      --json-lines   one event object per line, no document framing\n"
          "      --golden       like --json-lines, meta limited to deterministic members\n"
          "      --compact      no whitespace inside event objects\n"
          "      --no-bom       no UTF-8 byte order mark before the document\n"
          "  -j, --jobs N       decode perf.data on N threads (default: one per online CPU;\n"
          "                     the output is the same for every N); .dat, .tlcap and\n"
          "                     .etl files are always decoded on one thread\n"
          "      --reader NAME  read every file with this reader of the transport registry,\n"
          "                     whatever its first bytes say (names: --reader help)\n"
          "  -h, --help         this help\n"
          "Exit status: 0 all decoded, 1 something skipped or malformed, 2 usage error.\n",
          to);
}

static void diag_print(void *ctx, uint64_t offset, const char *reason)
{
    const struct diag_state *d = ctx;
    fprintf(stderr, "ehdecode: %s:%" PRIu64 ": %s\n", d->name, offset, reason);
}

static void emit_event(void *ctx, const char *json, size_t len)
{
    struct out_state *o = ctx;
    if (o->json_lines) {
        fwrite_unlocked(json, 1, len, o->out);
        fputc_unlocked('\n', o->out);
        return;
    }
    /* never two writers at once (ehd_perf_decode_jobs hands emit over under a lock):
     * the unlocked stdio calls skip a lock per piece */
    if (o->first)
        fwrite_unlocked("\n ", 1, 2, o->out);
    else
        fwrite_unlocked(",\n ", 1, 3, o->out);
    if (o->flags & EHD_JSON_SPACE)
        fputc_unlocked(' ', o->out);
    fwrite_unlocked(json, 1, len, o->out);
    o->first = 0;
}

/* A FILE that replays bytes already read from a pipe, then reads the rest. */
struct replay {
    FILE *src;
    unsigned char head[EHD_READER_SNIFF];
    size_t n, pos;
};

static ssize_t replay_read(void *c, char *buf, size_t size)
{
    struct replay *r = c;
    size_t k = 0;
    while (k < size && r->pos < r->n)
        buf[k++] = (char)r->head[r->pos++];
    if (k < size)
        k += fread(buf + k, 1, size - k, r->src);
    return (ssize_t)k;
}

static int replay_close(void *c)
{
    free(c);
    return 0;
}

/* Decodes one input; returns 0 or 1. */
static int decode_one(const char *arg, struct out_state *o, const struct opts *op)
{
    int is_stdin = arg[0] == 0 || strcmp(arg, "-") == 0;
    struct diag_state d = {is_stdin ? "stdin" : arg};
    FILE *f = is_stdin ? stdin : fopen(arg, "rb");
    if (!f) {
        char why[160];
        snprintf(why, sizeof why, "cannot open: %s", strerror(errno));
        diag_print(&d, 0, why);
        return 1;
    }
    unsigned char head[EHD_READER_SNIFF]; /* what the longest probe needs */
    size_t n = fread(head, 1, sizeof head, f);
    FILE *in = f;
    if (fseeko(f, 0, SEEK_SET) != 0) {
        /* not seekable: replay the sniffed bytes in front of the rest */
        struct replay *rp = calloc(1, sizeof *rp);
        cookie_io_functions_t io = {.read = replay_read, .close = replay_close};
        if (rp) {
            rp->src = f;
            memcpy(rp->head, head, n);
            rp->n = n;
        }
        in = rp ? fopencookie(rp, "rb", io) : NULL;
        if (!in) {
            free(rp);
            diag_print(&d, 0, "out of memory");
            if (!is_stdin)
                fclose(f);
            return 1;
        }
    }
    int status;
    const struct ehd_reader *reader = op->reader ? op->reader : ehd_reader_choose(head, n);
    if (!reader) { /* only if the registry lost its fallback reader */
        diag_print(&d, 0, "no reader of the transport registry takes this file");
        status = 1;
    } else {
        struct ehd_read_args ra = {o->flags, op->jobs, emit_event, o, diag_print, &d};
        status = reader->decode(in, &ra) ? 1 : 0;
    }
    if (ferror(in)) {
        diag_print(&d, 0, "read error");
        status = 1;
    }
    if (in != f)
        fclose(in);
    if (!is_stdin)
        fclose(f);
    return status;
}

/* The readers --reader takes: the registry's, once each, in registry order. */
static void print_readers(FILE *to)
{
    fputs("readers:", to);
    for (size_t i = 0; i < ehd_reader_count; i++)
        if (ehd_readers[i].probe && ehd_reader_find(ehd_readers[i].name) == &ehd_readers[i])
            fprintf(to, " %s", ehd_readers[i].name);
    fputc('\n', to);
}

/* Prints the message and the usage text to stderr; the exit status of a usage error. */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ehdecode: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    usage(stderr);
    return 2;
}

/* An option with a value ("-o F", "-oF", "--output F", "--output=F"; shrt NULL: a long
 * option only): 1 with *v set (NULL if it is missing), 0 if argv[*i] is another option. */
static int opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng,
                     const char **v)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *v = a + n + 1;
        return 1;
    }
    if (shrt && a[1] == shrt[1] && a[2]) {
        *v = a + 2;
        return 1;
    }
    if ((!shrt || strcmp(a, shrt) != 0) && strcmp(a, lng) != 0)
        return 0;
    *v = *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
}

/* The --jobs value: a decimal number >= 1 (above EHD_PERF_JOBS_MAX means
 * EHD_PERF_JOBS_MAX); 0 for anything else. */
static unsigned parse_jobs(const char *s)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || errno == ERANGE)
        return 0;
    return v > EHD_PERF_JOBS_MAX ? EHD_PERF_JOBS_MAX : (unsigned)v;
}

static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > (long)EHD_PERF_JOBS_MAX ? EHD_PERF_JOBS_MAX : (unsigned)n;
}

int main(int argc, char **argv)
{
    struct opts op = {EHD_JSON_SPACE | EHD_JSON_FIELD_TAG, 0, 0, NULL, default_jobs(), NULL};
    const char *v;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    size_t nfiles = 0;
    int only_files = 0;
    if (!files)
        return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || a[1] == 0) {
            files[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(files);
            return 0;
        } else if (opt_value(argc, argv, &i, "-o", "--output", &v)) {
            if (!v) {
                free(files);
                return usage_error("%s needs a file name\n", a);
            }
            op.output = v;
        } else if (opt_value(argc, argv, &i, "-j", "--jobs", &v)) {
            if (!v || !(op.jobs = parse_jobs(v))) {
                free(files);
                return usage_error("%s needs a number of threads, 1 or more\n", a);
            }
        } else if (opt_value(argc, argv, &i, NULL, "--reader", &v)) {
            if (v && strcmp(v, "help") == 0) {
                print_readers(stdout);
                free(files);
                return 0;
            }
            if (!v || !(op.reader = ehd_reader_find(v))) {
                free(files);
                int rc = usage_error("%s needs a reader of the transport registry\n", a);
                print_readers(stderr);
                return rc;
            }
        } else if (strcmp(a, "--json-lines") == 0) {
            op.json_lines = 1;
        } else if (strcmp(a, "--golden") == 0) {
            op.json_lines = 1;
            op.flags |= EHD_META_GOLDEN;
        } else if (strcmp(a, "--compact") == 0) {
            op.flags &= ~(unsigned)EHD_JSON_SPACE;
        } else if (strcmp(a, "--no-bom") == 0) {
            op.no_bom = 1;
        } else {
            free(files);
            return usage_error("unknown option %s\n", a);
        }
    }
    if (!nfiles) {
        free(files);
        return usage_error("no input files\n");
    }
    FILE *out = stdout;
    if (op.output && !(out = fopen(op.output, "wb"))) {
        fprintf(stderr, "ehdecode: %s: %s\n", op.output, strerror(errno));
        free(files);
        return 2;
    }
    static char obuf[1 << 20];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);

    struct out_state o = {out, op.json_lines, op.flags, 1};
    int status = 0;
    if (!op.json_lines) {
        if (!op.no_bom && !isatty(fileno(out)))
            fputs("\xEF\xBB\xBF", out);
        fputs("{\n", out);
    }
    for (size_t i = 0; i < nfiles; i++) {
        const char *a = files[i];
        if (!op.json_lines) {
            int is_stdin = a[0] == 0 || strcmp(a, "-") == 0;
            const char *shown = is_stdin ? "stdin" : a;
            ehd_buf b;
            ehd_buf_init(&b);
            ehd_json_string_utf8(&b, shown, strlen(shown));
            if (i)
                fputs(",\n", out);
            fwrite(b.data, 1, b.len, out);
            fputs(": [", out);
            ehd_buf_free(&b);
        }
        o.first = 1;
        status |= decode_one(a, &o, &op);
        if (!op.json_lines)
            fputs(" ]", out);
    }
    if (!op.json_lines)
        fputs("\n}\n", out);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "ehdecode: write error: %s\n", strerror(errno));
        status = 1;
    }
    if (out != stdout)
        fclose(out);
    free(files);
    return status;
}
