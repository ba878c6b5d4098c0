/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the perf decoder tests: a strict JSON syntax checker (RFC 8259
 * grammar; duplicate keys allowed, as in the reference's output), a collector
 * for ehd_perf_decode output and diagnostics, and little-endian byte builders.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "support_perf_util.h"

/* ---- JSON syntax --------------------------------------------------------- */

struct jp {
    const char *p, *end;
    int depth;
};

static void ws(struct jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

static int value(struct jp *j);

static int string(struct jp *j)
{
    if (j->p >= j->end || *j->p != '"')
        return 0;
    j->p++;
    while (j->p < j->end) {
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (j->p >= j->end)
                return 0;
            char e = *j->p++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++, j->p++)
                    if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p))
                        return 0;
            } else if (!strchr("\"\\/bfnrt", e) || e == 0) {
                return 0;
            }
        }
    }
    return 0;
}

static int digits(struct jp *j)
{
    const char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s;
}

static int number(struct jp *j)
{
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!digits(j))
        return 0;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!digits(j))
            return 0;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!digits(j))
            return 0;
    }
    return 1;
}

static int literal(struct jp *j, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
        return 0;
    j->p += n;
    return 1;
}

static int container(struct jp *j, char open, char close)
{
    if (++j->depth > 64)
        return 0;
    j->p++; /* open */
    (void)open;
    ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return 1;
    }
    for (;;) {
        ws(j);
        if (close == '}') {
            if (!string(j))
                return 0;
            ws(j);
            if (j->p >= j->end || *j->p != ':')
                return 0;
            j->p++;
            ws(j);
        }
        if (!value(j))
            return 0;
        ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            j->depth--;
            return 1;
        }
        return 0;
    }
}

static int value(struct jp *j)
{
    if (j->p >= j->end)
        return 0;
    switch (*j->p) {
    case '{': return container(j, '{', '}');
    case '[': return container(j, '[', ']');
    case '"': return string(j);
    case 't': return literal(j, "true");
    case 'f': return literal(j, "false");
    case 'n': return literal(j, "null");
    default: return number(j);
    }
}

int perf_test_json_valid(const char *s, size_t n)
{
    struct jp j = {s, s + n, 0};
    ws(&j);
    if (!value(&j))
        return 0;
    ws(&j);
    return j.p == j.end;
}

/* ---- decode collector -------------------------------------------------------- */

static void on_event(void *ctx, const char *json, size_t len)
{
    struct perf_test_out *o = ctx;
    if (o->n < PERF_TEST_MAX_EVENTS) {
        o->ev[o->n] = strndup(json, len);
        o->n++;
    } else {
        o->overflow++;
    }
    if (!perf_test_json_valid(json, len))
        o->invalid++;
}

static void on_diag(void *ctx, uint64_t offset, const char *reason)
{
    struct perf_test_out *o = ctx;
    if (o->ndiag < PERF_TEST_MAX_DIAG) {
        o->diag_off[o->ndiag] = offset;
        o->diag[o->ndiag] = strdup(reason);
    }
    o->ndiag++;
}

int perf_test_decode(const void *data, size_t size, unsigned flags, struct perf_test_out *o)
{
    memset(o, 0, sizeof *o);
    /* fmemopen cannot open 0 bytes on every libc: use an empty temp file */
    FILE *f = size ? fmemopen((void *)data, size, "rb") : tmpfile();
    if (!f)
        return -1;
    int rc = ehd_perf_decode(f, flags, on_event, o, on_diag, o);
    fclose(f);
    return rc;
}

void perf_test_out_free(struct perf_test_out *o)
{
    for (size_t i = 0; i < o->n && i < PERF_TEST_MAX_EVENTS; i++)
        free(o->ev[i]);
    for (size_t i = 0; i < o->ndiag && i < PERF_TEST_MAX_DIAG; i++)
        free(o->diag[i]);
    memset(o, 0, sizeof *o);
}

int perf_test_diag_has(const struct perf_test_out *o, const char *needle)
{
    for (size_t i = 0; i < o->ndiag && i < PERF_TEST_MAX_DIAG; i++)
        if (strstr(o->diag[i], needle))
            return 1;
    return 0;
}

/* ---- reading whole files ------------------------------------------------------ */

uint8_t *perf_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (!got)
            break;
        n += got;
    }
    fclose(f);
    *size = n;
    return buf;
}

/* Contents of the whole FILE (rewound), for writer output. */
uint8_t *perf_test_slurp(FILE *f, size_t *size)
{
    if (fflush(f) != 0 || fseeko(f, 0, SEEK_END) != 0)
        return NULL;
    off_t n = ftello(f);
    if (n < 0 || fseeko(f, 0, SEEK_SET) != 0)
        return NULL;
    uint8_t *buf = malloc(n ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        return NULL;
    }
    *size = (size_t)n;
    return buf;
}

int perf_test_run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- the ehdecode binary ------------------------------------------------------------ */

char perf_test_tool[512], perf_test_dir[96];

/* The temporary folder goes at exit: removing it is not a test of its own. */
static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", perf_test_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", perf_test_dir);
}

int perf_test_tool_setup(void)
{
    const char *b = getenv("EHCONF_BUILD");
    if (!b)
        return 0;
    snprintf(perf_test_tool, sizeof perf_test_tool, "%s/bin/ehdecode", b);
    if (access(perf_test_tool, X_OK) != 0)
        return 0;
    if (!perf_test_dir[0]) {
        if (!kt_tmp_template(perf_test_dir, sizeof perf_test_dir, "ehconf-tool-XXXXXX") ||
            !mkdtemp(perf_test_dir)) {
            kt_diag("mkdtemp %s: %s", perf_test_dir, strerror(errno));
            perf_test_dir[0] = 0;
            return 0;
        }
        atexit(remove_dir);
    }
    return 1;
}
