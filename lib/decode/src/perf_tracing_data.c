/* SPDX-License-Identifier: MIT */
/*
 * The HEADER_TRACING_DATA blob (Documentation/user-events-abi.md §8, the
 * perf.data tracing data):
 *   "\x17\x08\x44tracing", version "0.6\0", u8 big_endian, u8 long_size, u32 page_size,
 *   "header_page\0" u64 size + text, "header_event\0" u64 size + text,
 *   u32 nr ftrace formats { u64 size + text },
 *   u32 nr systems { "system\0", u32 nr events { u64 size + text } },
 *   u32 kallsyms size + data, u32 printk size + data, [u64 saved_cmdlines size + text]
 * Every count and size is checked against the bytes left, so a lying size
 * stops the walk instead of reading outside the blob.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"
#include "eventheader_read.h"

struct cursor {
    const uint8_t *p;
    size_t n, pos;
    int big_endian;
};

static int need(const struct cursor *c, size_t k)
{
    return c->n - c->pos >= k;
}

static int get_u32(struct cursor *c, uint32_t *v)
{
    if (!need(c, 4))
        return -1;
    *v = eh_read_u32(c->p + c->pos, c->big_endian);
    c->pos += 4;
    return 0;
}

static int get_u64(struct cursor *c, uint64_t *v)
{
    if (!need(c, 8))
        return -1;
    *v = eh_read_u64(c->p + c->pos, c->big_endian);
    c->pos += 8;
    return 0;
}

/* A NUL-terminated string inside the blob. */
static const char *get_str(struct cursor *c)
{
    const uint8_t *nul = memchr(c->p + c->pos, 0, c->n - c->pos);
    if (!nul)
        return NULL;
    const char *s = (const char *)(c->p + c->pos);
    c->pos = (size_t)(nul - c->p) + 1;
    return s;
}

static int skip(struct cursor *c, uint64_t k)
{
    if (k > c->n - c->pos)
        return -1;
    c->pos += (size_t)k;
    return 0;
}

void ehd_tracing_data_free(ehd_tracing_data *td)
{
    for (size_t i = 0; i < td->nformats; i++)
        ehd_tp_format_free(&td->formats[i]);
    free(td->formats);
    memset(td, 0, sizeof *td);
}

const ehd_tp_format *ehd_tracing_data_find(const ehd_tracing_data *td, uint32_t id)
{
    for (size_t i = 0; i < td->nformats; i++)
        if (td->formats[i].id == id)
            return &td->formats[i];
    return NULL;
}

/* Parses `count` format texts of one system. */
static int read_formats(ehd_tracing_data *td, struct cursor *c, const char *system, uint32_t count,
                        const char **reason, size_t *err_offset)
{
    /* each format needs at least its u64 size: bounds the allocation */
    if (count > (c->n - c->pos) / 8) {
        *reason = "tracing data: format count beyond the data";
        *err_offset = c->pos;
        return EBADMSG;
    }
    if (count) {
        ehd_tp_format *nf = realloc(td->formats, (td->nformats + count) * sizeof *nf);
        if (!nf) {
            *reason = "out of memory";
            return ENOMEM;
        }
        td->formats = nf;
    }
    for (uint32_t i = 0; i < count; i++) {
        size_t at = c->pos;
        uint64_t size;
        if (get_u64(c, &size) || size > c->n - c->pos) {
            *reason = "tracing data: format size beyond the data";
            *err_offset = at;
            return EBADMSG;
        }
        const char *why;
        int rc = ehd_tp_format_parse(&td->formats[td->nformats], system,
                                     (const char *)(c->p + c->pos), (size_t)size, &why);
        if (rc == ENOMEM) {
            *reason = why;
            return rc;
        }
        if (rc) {
            *reason = why; /* skipped, reported, walk goes on */
            *err_offset = c->pos;
        } else {
            td->nformats++;
        }
        c->pos += (size_t)size;
    }
    return 0;
}

int ehd_tracing_data_parse(ehd_tracing_data *td, const uint8_t *p, size_t n, const char **reason,
                           size_t *err_offset)
{
    static const uint8_t magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
    memset(td, 0, sizeof *td);
    *reason = NULL;
    *err_offset = 0;
    struct cursor c = {p, n, 0, 0};
#define FAIL(why)                       \
    do {                                \
        *reason = "tracing data: " why; \
        *err_offset = c.pos;            \
        return EBADMSG;                 \
    } while (0)
    if (n < sizeof magic || memcmp(p, magic, sizeof magic) != 0)
        FAIL("bad magic");
    c.pos = sizeof magic;
    const char *version = get_str(&c);
    if (!version || strlen(version) >= sizeof td->version)
        FAIL("bad version string");
    strcpy(td->version, version);
    if (!need(&c, 6))
        FAIL("truncated header");
    td->big_endian = p[c.pos] != 0;
    td->long_size = p[c.pos + 1];
    c.pos += 2;
    c.big_endian = td->big_endian;
    uint32_t u32;
    get_u32(&c, &td->page_size);

    static const char *const hdr_names[2] = {"header_page", "header_event"};
    for (int i = 0; i < 2; i++) {
        const char *name = get_str(&c);
        uint64_t size;
        if (!name || strcmp(name, hdr_names[i]) != 0)
            FAIL("missing header_page/header_event");
        if (get_u64(&c, &size) || skip(&c, size))
            FAIL("header file size beyond the data");
    }
    if (get_u32(&c, &u32))
        FAIL("truncated ftrace format count");
    int rc = read_formats(td, &c, "ftrace", u32, reason, err_offset);
    if (rc)
        return rc;
    uint32_t nsys;
    if (get_u32(&c, &nsys))
        FAIL("truncated system count");
    for (uint32_t s = 0; s < nsys; s++) {
        const char *system = get_str(&c);
        if (!system)
            FAIL("system name not terminated");
        if (get_u32(&c, &u32))
            FAIL("truncated event count");
        rc = read_formats(td, &c, system, u32, reason, err_offset);
        if (rc)
            return rc;
    }
    /* kallsyms, printk and saved_cmdlines are not needed for decoding; a blob
     * that ends here is accepted. */
    return 0;
#undef FAIL
}
