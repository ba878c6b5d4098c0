/* SPDX-License-Identifier: MIT */
/*
 * A small perf.data writer for tests and benchmarks (see ehd_perf.h). It
 * writes what `perf record -e user_events:X` would write for EventHeader
 * tracepoints, in file or pipe mode and in either byte order, so the reader
 * can be tested without a kernel.
 *
 * File layout (file mode): header | data records | feature table |
 * feature sections | attr ids | attrs. Offsets in the header point at each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"

#define ATTR_BYTES        128 /* perf_event_attr as perf 6.1 writes it */
#define FILE_HEADER_BYTES 104
#define SAMPLE_TYPE                                                            \
    (EHD_PERF_SAMPLE_IDENTIFIER | EHD_PERF_SAMPLE_TID | EHD_PERF_SAMPLE_TIME | \
     EHD_PERF_SAMPLE_CPU | EHD_PERF_SAMPLE_RAW)

struct ehd_perf_writer {
    FILE *out;
    ehd_perf_writer_opts o;
    char **names; /* "system:name" */
    size_t ntp;   /* tracepoints incl. sched */
    uint64_t pos; /* bytes written so far */
    uint64_t data_off;
    unsigned in_round;
    int failed;
    uint8_t rec[65536];
};

/* ---- byte-order writers --------------------------------------------------- */

static void put_n(uint8_t *p, uint64_t v, int n, int be)
{
    for (int i = 0; i < n; i++)
        p[be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static void wr(ehd_perf_writer *w, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, w->out) != n)
        w->failed = 1;
    w->pos += n;
}

/* ---- growable scratch for blobs ------------------------------------------- */

struct blob {
    uint8_t *p;
    size_t n, cap;
    int oom;
};

static void blob_add(struct blob *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void blob_int(struct blob *b, uint64_t v, int n, int be)
{
    uint8_t t[8];
    put_n(t, v, n, be);
    blob_add(b, t, (size_t)n);
}

static void blob_str(struct blob *b, const char *s)
{
    blob_add(b, s, strlen(s) + 1);
}

/* ---- metadata ----------------------------------------------------------------- */

static const char *tp_event(const char *full)
{
    const char *c = strchr(full, ':');
    return c ? c + 1 : full;
}

static void format_text(struct blob *b, const char *name, uint32_t id, int sched,
                        const char *custom)
{
    char head[400];
    snprintf(head, sizeof head, "name: %s\nID: %u\nformat:\n", name, id);
    blob_add(b, head, strlen(head));
    static const char common[] =
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
    static const char eh[] =
        "\tfield:u8 eventheader_flags;\toffset:8;\tsize:1;\tsigned:0;\n"
        "\tfield:u8 version;\toffset:9;\tsize:1;\tsigned:0;\n"
        "\tfield:u16 id;\toffset:10;\tsize:2;\tsigned:0;\n"
        "\tfield:u16 tag;\toffset:12;\tsize:2;\tsigned:0;\n"
        "\tfield:u8 opcode;\toffset:14;\tsize:1;\tsigned:0;\n"
        "\tfield:u8 level;\toffset:15;\tsize:1;\tsigned:0;\n\n"
        "print fmt: \"eventheader_flags=%u version=%u id=%u tag=%u opcode=%u level=%u\", "
        "REC->eventheader_flags, REC->version, REC->id, REC->tag, REC->opcode, REC->level\n";
    static const char ss[] =
        "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
        "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
        "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
        "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
        "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
        "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
        "print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", "
        "REC->prev_comm, REC->prev_pid, REC->next_comm, REC->next_pid\n";
    blob_add(b, common, sizeof common - 1);
    if (custom) {
        blob_add(b, custom, strlen(custom));
        blob_add(b, "\nprint fmt: \"custom\"\n", 21);
    } else if (sched)
        blob_add(b, ss, sizeof ss - 1);
    else
        blob_add(b, eh, sizeof eh - 1);
}

/* Tracepoint order: user_events names, then sched_switch, then test:custom. */
static size_t n_user(const ehd_perf_writer *w)
{
    return w->ntp - (w->o.sched ? 1 : 0) - (w->o.custom_fields ? 1 : 0);
}

static int is_sched(const ehd_perf_writer *w, size_t i)
{
    return w->o.sched && i == n_user(w);
}

static int is_custom(const ehd_perf_writer *w, size_t i)
{
    return w->o.custom_fields && i + 1 == w->ntp;
}

static void tracing_data(const ehd_perf_writer *w, struct blob *b)
{
    int be = w->o.big_endian;
    static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    blob_add(b, magic, sizeof magic);
    blob_str(b, "0.6");
    uint8_t e[2] = {(uint8_t)(be ? 1 : 0), 8};
    blob_add(b, e, 2);
    blob_int(b, 4096, 4, be);
    /* what events/header_page and events/header_event hold on x86-64 */
    static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                             "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                             "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                             "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
    static const char he[] = "# compressed entry header\n"
                             "\ttype_len    :    5 bits\n"
                             "\ttime_delta  :   27 bits\n"
                             "\tarray       :   32 bits\n\n"
                             "\tpadding     : type == 29\n"
                             "\ttime_extend : type == 30\n"
                             "\ttime_stamp : type == 31\n"
                             "\tdata max type_len  == 28\n";
    blob_str(b, "header_page");
    blob_int(b, sizeof hp - 1, 8, be);
    blob_add(b, hp, sizeof hp - 1);
    blob_str(b, "header_event");
    blob_int(b, sizeof he - 1, 8, be);
    blob_add(b, he, sizeof he - 1);
    blob_int(b, 0, 4, be); /* ftrace formats */
    size_t n_ue = n_user(w);
    blob_int(b, (n_ue ? 1 : 0) + (w->o.sched ? 1 : 0) + (w->o.custom_fields ? 1 : 0), 4, be);
    static const char *const systems[3] = {"user_events", "sched", "test"};
    for (int pass = 0; pass < 3; pass++) {
        size_t from = pass == 0 ? 0 : pass == 1 ? n_ue : n_ue + (w->o.sched ? 1 : 0);
        size_t to = pass == 0 ? n_ue : pass == 1 ? n_ue + (w->o.sched ? 1 : 0) : w->ntp;
        if (from == to)
            continue;
        blob_str(b, systems[pass]);
        blob_int(b, to - from, 4, be);
        for (size_t i = from; i < to; i++) {
            struct blob t = {0};
            format_text(&t, tp_event(w->names[i]), (uint32_t)(1000 + i), is_sched(w, i),
                        is_custom(w, i) ? w->o.custom_fields : NULL);
            blob_int(b, t.n, 8, be);
            blob_add(b, t.p, t.n);
            b->oom |= t.oom;
            free(t.p);
        }
    }
    blob_int(b, 0, 4, be); /* kallsyms */
    blob_int(b, 0, 4, be); /* printk */
    blob_int(b, 0, 8, be); /* saved_cmdlines */
}

/* perf_event_attr (128 bytes) for tracepoint i. */
static void attr_bytes(const ehd_perf_writer *w, size_t i, uint8_t *a)
{
    int be = w->o.big_endian;
    memset(a, 0, ATTR_BYTES);
    put_n(a, EHD_PERF_TYPE_TRACEPOINT, 4, be);
    put_n(a + 4, ATTR_BYTES, 4, be);
    put_n(a + 8, 1000 + i, 8, be);
    put_n(a + 16, 1, 8, be); /* sample_period */
    put_n(a + 24, SAMPLE_TYPE, 8, be);
    put_n(a + 32, 0, 8, be);
    /* bitfields: big-endian producers number bits from the top of each byte */
    uint64_t flags = EHD_PERF_ATTR_FLAG_SAMPLE_ID_ALL;
    for (int k = 0; k < 8; k++) {
        uint8_t byte = (uint8_t)(flags >> (8 * k)), rev = 0;
        for (int bit = 0; bit < 8; bit++)
            rev |= (uint8_t)(((byte >> bit) & 1) << (7 - bit));
        a[40 + k] = be ? rev : byte;
    }
}

static void event_desc(const ehd_perf_writer *w, struct blob *b)
{
    int be = w->o.big_endian;
    blob_int(b, w->ntp, 4, be);
    blob_int(b, ATTR_BYTES, 4, be);
    for (size_t i = 0; i < w->ntp; i++) {
        uint8_t a[ATTR_BYTES];
        attr_bytes(w, i, a);
        blob_add(b, a, sizeof a);
        blob_int(b, 1, 4, be);
        size_t len = strlen(w->names[i]) + 1, padded = (len + 63) / 64 * 64;
        blob_int(b, padded, 4, be);
        blob_add(b, w->names[i], len);
        static const uint8_t zeros[64];
        blob_add(b, zeros, padded - len);
        blob_int(b, 100 + i, 8, be);
    }
}

static void clock_data(const ehd_perf_writer *w, struct blob *b)
{
    int be = w->o.big_endian;
    blob_int(b, 1, 4, be); /* version */
    blob_int(b, 1, 4, be); /* CLOCK_MONOTONIC */
    blob_int(b, w->o.wall_ns, 8, be);
    blob_int(b, w->o.clock_ns, 8, be);
}

/* ---- records -------------------------------------------------------------------- */

static void record(ehd_perf_writer *w, uint32_t type, const void *body, size_t n)
{
    uint8_t h[8];
    put_n(h, type, 4, w->o.big_endian);
    put_n(h + 4, 0, 2, w->o.big_endian);
    put_n(h + 6, 8 + n, 2, w->o.big_endian);
    wr(w, h, 8);
    wr(w, body, n);
}

static void pipe_metadata(ehd_perf_writer *w)
{
    int be = w->o.big_endian;
    for (size_t i = 0; i < w->ntp; i++) {
        uint8_t a[ATTR_BYTES + 8];
        attr_bytes(w, i, a);
        put_n(a + ATTR_BYTES, 100 + i, 8, be);
        record(w, EHD_PERF_RECORD_HEADER_ATTR, a, sizeof a);
    }
    struct blob td = {0};
    tracing_data(w, &td);
    /* the size perf writes (and checks) includes the padding to 8 bytes */
    size_t pad = (8 - td.n % 8) % 8;
    uint8_t sz[8] = {0};
    put_n(sz, td.n + pad, 4, be);
    record(w, EHD_PERF_RECORD_HEADER_TRACING_DATA, sz, 8);
    wr(w, td.p, td.n);
    static const uint8_t zeros[8];
    wr(w, zeros, pad);
    w->failed |= td.oom;
    free(td.p);

    for (int k = 0; k < 2; k++) {
        if (k == 1 && !w->o.clock_data)
            continue;
        struct blob f = {0};
        blob_int(&f, k ? EHD_PERF_FEAT_CLOCK_DATA : EHD_PERF_FEAT_EVENT_DESC, 8, be);
        if (k)
            clock_data(w, &f);
        else
            event_desc(w, &f);
        if (f.oom || f.n > 65535 - 8)
            w->failed = 1;
        else
            record(w, EHD_PERF_RECORD_HEADER_FEATURE, f.p, f.n);
        free(f.p);
    }
}

ehd_perf_writer *ehd_perf_writer_open(FILE *out, const ehd_perf_writer_opts *o,
                                      const char *const *tp_names, size_t n, const char **reason)
{
    ehd_perf_writer *w = calloc(1, sizeof *w);
    if (!w) {
        *reason = "out of memory";
        return NULL;
    }
    w->out = out;
    w->o = *o;
    w->ntp = n + (o->sched ? 1 : 0) + (o->custom_fields ? 1 : 0);
    w->names = calloc(w->ntp ? w->ntp : 1, sizeof *w->names);
    if (!w->names)
        goto oom;
    for (size_t i = 0; i < w->ntp; i++) {
        int custom = o->custom_fields && i + 1 == w->ntp;
        const char *src = i < n ? tp_names[i] : custom ? "custom" : "sched_switch";
        const char *sys = i < n ? "user_events:" : custom ? "test:" : "sched:";
        w->names[i] = malloc(strlen(sys) + strlen(src) + 1);
        if (!w->names[i])
            goto oom;
        strcpy(w->names[i], sys);
        strcat(w->names[i], src);
    }
    if (o->pipe) {
        uint8_t h[16];
        memcpy(h, o->big_endian ? "2ELIFREP" : "PERFILE2", 8);
        put_n(h + 8, 16, 8, o->big_endian);
        wr(w, h, 16);
        pipe_metadata(w);
    } else {
        static const uint8_t zeros[FILE_HEADER_BYTES];
        wr(w, zeros, sizeof zeros); /* rewritten by finish */
        w->data_off = w->pos;
    }
    return w;
oom:
    *reason = "out of memory";
    if (w->names)
        for (size_t i = 0; i < w->ntp; i++)
            free(w->names[i]);
    free(w->names);
    free(w);
    return NULL;
}

void ehd_perf_writer_record(ehd_perf_writer *w, uint32_t type, const void *body, size_t n)
{
    if (n > 65535 - 8) {
        w->failed = 1;
        return;
    }
    record(w, type, body, n);
}

void ehd_perf_writer_sched_payload(const ehd_perf_writer *w, uint8_t out[56], const char *prev_comm,
                                   int32_t prev_pid, int32_t prev_prio, int64_t prev_state,
                                   const char *next_comm, int32_t next_pid, int32_t next_prio)
{
    int be = w->o.big_endian;
    memset(out, 0, 56);
    strncpy((char *)out, prev_comm, 16);
    put_n(out + 16, (uint32_t)prev_pid, 4, be);
    put_n(out + 20, (uint32_t)prev_prio, 4, be);
    put_n(out + 24, (uint64_t)prev_state, 8, be);
    strncpy((char *)out + 32, next_comm, 16);
    put_n(out + 48, (uint32_t)next_pid, 4, be);
    put_n(out + 52, (uint32_t)next_prio, 4, be);
}

int ehd_perf_writer_sample(ehd_perf_writer *w, size_t tp, const void *payload, size_t size,
                           uint64_t time, uint32_t pid, uint32_t tid, uint32_t cpu)
{
    int be = w->o.big_endian;
    if (tp >= w->ntp)
        return EINVAL;
    size_t raw_size = ((8 + size + 4 + 7) & ~(size_t)7) - 4; /* kernel rule */
    size_t total = 8 + 32 + 4 + raw_size;
    if (total > 65535)
        return E2BIG;
    uint8_t *r = w->rec;
    put_n(r, EHD_PERF_RECORD_SAMPLE, 4, be);
    put_n(r + 4, 2 /* PERF_RECORD_MISC_USER */, 2, be);
    put_n(r + 6, total, 2, be);
    put_n(r + 8, 100 + tp, 8, be);
    put_n(r + 16, pid, 4, be);
    put_n(r + 20, tid, 4, be);
    put_n(r + 24, time, 8, be);
    put_n(r + 32, cpu, 4, be);
    put_n(r + 36, 0, 4, be);
    put_n(r + 40, raw_size, 4, be);
    uint8_t *raw = r + 44;
    put_n(raw, 1000 + tp, 2, be); /* common_type */
    raw[2] = 0;
    raw[3] = 0;
    put_n(raw + 4, pid, 4, be);
    memcpy(raw + 8, payload, size);
    memset(raw + 8 + size, 0xAA, raw_size - 8 - size); /* stale ring-buffer bytes */
    wr(w, r, total);
    if (w->o.round_every && ++w->in_round >= w->o.round_every) {
        record(w, EHD_PERF_RECORD_FINISHED_ROUND, NULL, 0);
        w->in_round = 0;
    }
    return 0;
}

int ehd_perf_writer_finish(ehd_perf_writer *w)
{
    int be = w->o.big_endian;
    if (w->in_round || !w->o.round_every)
        record(w, EHD_PERF_RECORD_FINISHED_ROUND, NULL, 0);
    if (!w->o.pipe) {
        uint64_t data_size = w->pos - w->data_off;
        /* sections in feature-bit order. HOSTNAME is there because perf uses
         * its bit to guess the bitmap's byte order in big-endian files. */
        struct blob sec[4] = {{0}, {0}, {0}, {0}};
        unsigned bits[4] = {EHD_PERF_FEAT_TRACING_DATA, 3 /* HOSTNAME */, EHD_PERF_FEAT_EVENT_DESC,
                            EHD_PERF_FEAT_CLOCK_DATA};
        size_t nsec = w->o.clock_data ? 4 : 3;
        tracing_data(w, &sec[0]);
        blob_int(&sec[1], 8, 4, be); /* perf_header_string: u32 len, NUL-padded text */
        blob_add(&sec[1], "mkperf\0\0", 8);
        event_desc(w, &sec[2]);
        if (nsec == 4)
            clock_data(w, &sec[3]);
        uint64_t at = w->pos + 16 * nsec;
        for (size_t i = 0; i < nsec; i++) {
            uint8_t e[16];
            put_n(e, at, 8, be);
            put_n(e + 8, sec[i].n, 8, be);
            wr(w, e, 16);
            at += sec[i].n;
        }
        for (size_t i = 0; i < nsec; i++) {
            wr(w, sec[i].p, sec[i].n);
            w->failed |= sec[i].oom;
            free(sec[i].p);
        }
        uint64_t ids_off = w->pos;
        for (size_t i = 0; i < w->ntp; i++) {
            uint8_t id[8];
            put_n(id, 100 + i, 8, be);
            wr(w, id, 8);
        }
        uint64_t attrs_off = w->pos;
        for (size_t i = 0; i < w->ntp; i++) {
            uint8_t a[ATTR_BYTES + 16];
            attr_bytes(w, i, a);
            put_n(a + ATTR_BYTES, ids_off + 8 * i, 8, be);
            put_n(a + ATTR_BYTES + 8, 8, 8, be);
            wr(w, a, sizeof a);
        }
        uint8_t h[FILE_HEADER_BYTES] = {0};
        memcpy(h, be ? "2ELIFREP" : "PERFILE2", 8);
        put_n(h + 8, FILE_HEADER_BYTES, 8, be);
        put_n(h + 16, ATTR_BYTES + 16, 8, be);
        put_n(h + 24, attrs_off, 8, be);
        put_n(h + 32, (ATTR_BYTES + 16) * w->ntp, 8, be);
        put_n(h + 40, w->data_off, 8, be);
        put_n(h + 48, data_size, 8, be);
        uint64_t feat = 0;
        for (size_t i = 0; i < nsec; i++)
            feat |= 1ull << bits[i];
        put_n(h + 72, feat, 8, be);
        if (fseeko(w->out, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->out) != sizeof h ||
            fseeko(w->out, 0, SEEK_END) != 0)
            w->failed = 1;
    }
    int rc = fflush(w->out) != 0 || w->failed ? EIO : 0;
    for (size_t i = 0; i < w->ntp; i++)
        free(w->names[i]);
    free(w->names);
    free(w);
    return rc;
}
