/* SPDX-License-Identifier: MIT */
/* The mixed benchmark file: see support_mixed.h. */
#include "support_mixed.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "eventheader.h"
#include "ehd_perf.h"

EH_DEFINE_PROVIDER(mixed_provider, "EhconfMixed");

static const char *const funcs[4] = {"open_session", "read_block", "flush", "close_session"};
static const char *const files[3] = {"src/session.c", "src/io/block_reader.c", "main.c"};
static const char *const words[5] = {"ok", "retrying after timeout", "connection reset by peer",
                                     "cache miss", "checkpoint written"};
/* Non-ASCII UTF-16 messages (Latin-1, Greek, CJK, a surrogate pair). */
static const uint16_t wide0[] = {'G', 'r', 0xfc, 0xdf, 'e', ' ', 0x3b1, 0x3b2, 0x3b3, 0};
static const uint16_t wide1[] = {0x65e5, 0x672c, 0x8a9e, ' ', 'l', 'o', 'g', 0};
static const uint16_t wide2[] = {'e', 'm', 'o', 'j', 'i', ' ', 0xd83d, 0xde00, ' ', 'o', 'k', 0};
static const uint16_t *const wides[3] = {wide0, wide1, wide2};

static int write_log(unsigned v)
{
    char msg[96];
    const char *file = files[v % 3];

    snprintf(msg, sizeof msg, "request %u finished: %s", v * 7919u, words[v % 5]);
    return EH_WRITE(
        mixed_provider, EH_EVENT("LogLine", EH_LEVEL_INFORMATIONAL, 0x1), EH_CSTR8("msg", msg),
        EH_U32("thread", 1000 + v), EH_I64("offset", (int64_t)v * -123456789),
        EH_U32_HEX("flags", 0x80000000u >> (v % 32)),
        EH_STRUCT("where", EH_STR8("file", file, strlen(file)),
                  EH_I32("line", (int32_t)(10 + v * 3)), EH_CSTR8("func", funcs[v % 4])));
}

static int write_metrics(unsigned v)
{
    uint64_t counts[8];
    int32_t quad[4] = {(int32_t)v, -(int32_t)v, (int32_t)(v * v), 7};
    double lat[6];

    for (unsigned i = 0; i < 8; i++)
        counts[i] = (uint64_t)v * 1000003u + i;
    for (unsigned i = 0; i < 6; i++)
        lat[i] = 0.125 * (double)(v + i) + 1.0 / (double)(i + 3);
    return EH_WRITE(mixed_provider, EH_EVENT("Metrics", EH_LEVEL_VERBOSE, 0x2),
                    EH_F64("load", (double)v / 3.0), EH_F32("ratio", (float)v / 7.0f),
                    EH_U64_SLICE("counts", counts, 1 + v % 8), EH_I32_ARRAY("quad", quad, 4),
                    EH_F64_SLICE("latency", lat, 6), EH_BOOL8("healthy", (uint8_t)(v % 2)));
}

static int write_network(unsigned v)
{
    uint8_t ip4[4] = {10, (uint8_t)(v >> 8), (uint8_t)v, 1};
    uint8_t ip6[16] = {0x20,      0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (uint8_t)(v >> 8),
                       (uint8_t)v};
    uint8_t guid[16], act[16];
    char host[48];

    for (unsigned i = 0; i < 16; i++) {
        guid[i] = (uint8_t)(v * 31 + i * 17);
        act[i] = (uint8_t)(v * 13 + i);
    }
    snprintf(host, sizeof host, "node-%u.example.org", v % 23);
    return EH_WRITE(
        mixed_provider,
        EH_EVENT("Connect", EH_LEVEL_INFORMATIONAL, 0x4, .opcode = EH_OPCODE_ACTIVITY_START),
        EH_ACTIVITY_ID(act), EH_IPV4("src", ip4), EH_PORT("sport", htons((uint16_t)(1024 + v))),
        EH_IPV6("dst", ip6), EH_PORT("dport", htons(443)), EH_GUID("session", guid),
        EH_U64("bytes", (uint64_t)v * 65537u), EH_CSTR8("host", host));
}

static int write_failure(unsigned v)
{
    uint8_t blob[24];
    char what[64];

    for (unsigned i = 0; i < sizeof blob; i++)
        blob[i] = (uint8_t)(v + i * 11);
    snprintf(what, sizeof what, "write of block %u failed", v);
    return EH_WRITE(
        mixed_provider, EH_EVENT("Failure", EH_LEVEL_ERROR, 0x8),
        EH_ERRNO("err", (int32_t)(1 + v % 40)), EH_HRESULT("hr", (int32_t)(0x80070000u | (v % 64))),
        EH_TIME64("when", (int64_t)1700000000 + (int64_t)v * 3601),
        EH_BOOL32("fatal", (int32_t)(v % 3 == 0)), EH_BINARY("state", blob, sizeof blob),
        EH_CSTR8("what", what), EH_U16_HEX("code", (uint16_t)(0xbeef + v)));
}

static int write_wide(unsigned v)
{
    char tag[16];

    snprintf(tag, sizeof tag, "t%u", v);
    return EH_WRITE(mixed_provider, EH_EVENT("Wide", EH_LEVEL_WARNING, 0x10),
                    EH_CSTR16("text", wides[v % 3]), EH_I8("i8", (int8_t)(v - 64)),
                    EH_U16("u16", (uint16_t)(v * 999)), EH_STR8("tag", tag, strlen(tag)),
                    EH_I16_HEX("i16", (int16_t)(v * -77)));
}

int mixed_write_capture(const char *dat_path)
{
    int (*const shapes[5])(unsigned) = {write_log, write_metrics, write_network, write_failure,
                                        write_wide};
    int err;

    if (setenv("EHCONF_CAPTURE", dat_path, 1) != 0)
        return errno;
    err = eh_provider_register(&mixed_provider);
    for (unsigned v = 0; !err && v < MIXED_VARIANTS; v++)
        for (unsigned s = 0; !err && s < 5; s++)
            err = shapes[s](v);
    eh_provider_unregister(&mixed_provider);
    return err;
}

struct dat_record {
    size_t name_index;
    const uint8_t *event;
    size_t len;
};

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)n)) != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        *len = (size_t)n;
    fclose(f);
    return p;
}

int mixed_write_perf(const char *dat_path, const char *perf_path, unsigned nevents)
{
    const char *names[16];
    struct dat_record recs[5 * MIXED_VARIANTS];
    size_t nnames = 0, nrecs = 0, len = 0, off = 0;
    uint8_t *dat = read_all(dat_path, &len);
    int err = 0;

    if (!dat)
        return errno ? errno : EIO;
    /* .dat records: u32 size (itself included) | tracepoint name \0 | event bytes */
    while (off + 4 <= len && nrecs < sizeof recs / sizeof recs[0]) {
        uint32_t size;
        const char *name = (const char *)dat + off + 4;
        size_t name_len;

        memcpy(&size, dat + off, 4);
        if (size < 6 || size > len - off || !memchr(name, 0, size - 4)) {
            free(dat);
            return EINVAL;
        }
        name_len = strlen(name);
        size_t k = 0;
        while (k < nnames && strcmp(names[k], name) != 0)
            k++;
        if (k == nnames && nnames < sizeof names / sizeof names[0])
            names[nnames++] = name;
        recs[nrecs++] =
            (struct dat_record){k, dat + off + 4 + name_len + 1, size - 4 - name_len - 1};
        off += size;
    }
    if (nrecs == 0) {
        free(dat);
        return EINVAL;
    }

    FILE *f = fopen(perf_path, "w+b");
    static char buf[1 << 20];
    ehd_perf_writer_opts o = {0};
    const char *reason;
    ehd_perf_writer *w;

    if (!f) {
        free(dat);
        return errno;
    }
    setvbuf(f, buf, _IOFBF, sizeof buf);
    o.round_every = 1000;
    w = ehd_perf_writer_open(f, &o, names, nnames, &reason);
    for (unsigned i = 0; w && !err && i < nevents; i++) {
        const struct dat_record *r = &recs[i % nrecs];
        uint64_t t = 1000000000ull + (uint64_t)i * 100 + (i % 7) * 13; /* mildly unsorted */

        err = ehd_perf_writer_sample(w, r->name_index, r->event, r->len, t, 4242, 4243 + i % 4,
                                     i % 2);
    }
    if (!w)
        err = EINVAL;
    else if (ehd_perf_writer_finish(w) != 0 && !err)
        err = EIO;
    if (fclose(f) != 0 && !err)
        err = errno;
    free(dat);
    return err;
}
