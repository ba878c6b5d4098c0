// SPDX-License-Identifier: GPL-2.0
/*
 * impl/lttp-c/gen: turns a case description (Documentation/case-descriptions.md) into C
 * code that writes its events through microsoft/LinuxTracepoints' C macro API.
 *
 *   gen TYPES_TXT HEADER FILE.events OUTDIR
 *                                      writes the C files of one case: OUTDIR/<case>.c
 *                                      (lttpc.h's struct lttpc_case lttpc_case_<case>, its
 *                                      providers and tables) and OUTDIR/<case>_<n>.c (the
 *                                      event functions, EVENTS_PER_FILE a file)
 *   gen --table FILE.events...         prints the table of the cases (lttpc_cases[])
 *
 * TYPES_TXT is descriptions/types.txt (the field type names); HEADER the checkout's
 * TraceLoggingProvider.h, read only to cite its lines in the reasons of what it cannot
 * express. A description it cannot parse: `file:line: reason` on stderr, exit 2.
 *
 * Which API: the snapshot has no EventHeaderTracepoint.h (EHTP_* macros); its C macro API
 * is eventheader/TraceLoggingProvider.h (TRACELOGGING_DEFINE_PROVIDER, TraceLoggingRegister,
 * TraceLoggingWrite, TraceLoggingWriteActivity, TraceLoggingUnregister), which covers every
 * encoding (typed wrappers, TraceLoggingStruct, TraceLogging*Array / *FixedArray, and the
 * TraceLoggingPacked* macros for the rest). Each field uses the typed wrapper that writes
 * exactly its encoding and format when one exists (TraceLoggingUInt16, TraceLoggingHexUInt64Array,
 * TraceLoggingCountedString16, TraceLoggingBinaryEx, ...); the header's documented escape
 * hatch, TraceLoggingPackedField(Ex), only where none does (JSON/XML 16- and 32-bit strings,
 * raw format overrides, arrays of GUIDs and IPv4 addresses); an array of structs is
 * TraceLoggingPackedStructArray + TraceLoggingPackedMetadata(Ex) + TraceLoggingPackedData,
 * as the header shows. What no macro can write is generated as a skip with the reason.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textmatch.h"

#define MAX_ARGS        99 /* TraceLoggingWrite: _tlg_NARGS counts to 99 */
#define EVENTS_PER_FILE 500

/* ---- small utilities ------------------------------------------------------------------ */

static char const *g_path = "";
static int g_line;

static void die(int line, char const *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void die(int line, char const *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: ", g_path, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gen: out of memory\n");
        exit(1);
    }
    return p;
}

struct sb {
    char *p;
    size_t n, cap;
};

static void sb_add(struct sb *s, char const *text, size_t n)
{
    if (s->n + n + 1 > s->cap) {
        s->cap = (s->n + n + 1) * 2;
        s->p = xrealloc(s->p, s->cap);
    }
    memcpy(s->p + s->n, text, n);
    s->n += n;
    s->p[s->n] = '\0';
}

static void sb_printf(struct sb *s, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *s, char const *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        sb_add(s, small, (size_t)n);
        return;
    }
    char *big = xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(s, big, (size_t)n);
    free(big);
}

struct bytes {
    unsigned char *p;
    size_t n;
};

static void bytes_add(struct bytes *b, void const *p, size_t n)
{
    b->p = xrealloc(b->p, b->n + n);
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void bytes_u16(struct bytes *b, size_t v)
{
    unsigned char le[2] = {(unsigned char)(v & 0xff), (unsigned char)(v >> 8)};
    bytes_add(b, le, 2);
}

/* A C string literal of any bytes: printable ASCII as is (but `"`, `\`, and `?` for
   trigraphs), the rest as 3-digit octal escapes, which never merge with what follows. */
static void sb_literal(struct sb *s, unsigned char const *p, size_t n)
{
    sb_add(s, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?')
            sb_add(s, (char const *)&c, 1);
        else
            sb_printf(s, "\\%03o", c);
    }
    sb_add(s, "\"", 1);
}

static void sb_cstr(struct sb *s, char const *text)
{
    sb_literal(s, (unsigned char const *)text, strlen(text));
}

/* ---- the header's lines, for the reasons ---------------------------------------------------- */

static char *g_header;
static size_t g_header_len;

/* The line of the header holding `what` (0 when it is not there). */
static int header_line(char const *what)
{
    int line = 1;
    size_t wn = strlen(what);
    for (size_t i = 0; i + wn <= g_header_len; i++) {
        if (g_header[i] == '\n')
            line++;
        else if (memcmp(g_header + i, what, wn) == 0)
            return line;
    }
    return 0;
}

/* ---- encodings, formats, the type table --------------------------------------------------- */

enum {
    E_STRUCT = 1,
    E_V8,
    E_V16,
    E_V32,
    E_V64,
    E_V128,
    E_Z8,
    E_Z16,
    E_Z32,
    E_S8,
    E_S16,
    E_S32,
    E_B8,
    E_MAX,
};
#define CARRAY_FLAG 0x20
#define VARRAY_FLAG 0x40

static char const *const ENC_NAMES[E_MAX] = {
    "invalid",
    "struct",
    "value8",
    "value16",
    "value32",
    "value64",
    "value128",
    "zstring_char8",
    "zstring_char16",
    "zstring_char32",
    "string_length16_char8",
    "string_length16_char16",
    "string_length16_char32",
    "binary_length16_char8",
};

static char const *const FMT_NAMES[] = {
    "default",
    "unsigned_int",
    "signed_int",
    "hex_int",
    "errno",
    "pid",
    "time",
    "boolean",
    "float",
    "hex_bytes",
    "string8",
    "string_utf",
    "string_utf_bom",
    "string_xml",
    "string_json",
    "uuid",
    "port",
    "ip_address",
    "ip_address_obsolete",
};
#define NFMT (sizeof(FMT_NAMES) / sizeof(FMT_NAMES[0]))

static size_t unit_size(int enc)
{
    switch (enc) {
    case E_V8: return 1;
    case E_V16: return 2;
    case E_V32: return 4;
    case E_V64: return 8;
    case E_V128: return 16;
    case E_Z8:
    case E_S8:
    case E_B8: return 1;
    case E_Z16:
    case E_S16: return 2;
    case E_Z32:
    case E_S32: return 4;
    default: return 0;
    }
}

static int is_value(int enc)
{
    return enc >= E_V8 && enc <= E_V128;
}

struct type_row {
    char name[40];
    int enc, fmt;
};
static struct type_row *g_types;
static size_t g_ntypes;

static void load_types(char const *path)
{
    size_t len;
    char *text = lttpc_read_file(path, &len);
    char const *saved = g_path;
    g_path = path;
    int line = 0;
    for (char *s = text; s && *s;) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char name[64], enc[64], fmt[64];
        if (s[0] != '#' && sscanf(s, "%63s %63s %63s", name, enc, fmt) == 3) {
            struct type_row row;
            memset(&row, 0, sizeof(row));
            if (strlen(name) >= sizeof(row.name))
                die(line, "type name too long");
            strcpy(row.name, name);
            row.enc = -1;
            row.fmt = -1;
            if (strcmp(enc, "value_ptr") == 0)
                row.enc = sizeof(void *) == 8 ? E_V64 : E_V32;
            for (int e = 1; e < E_MAX; e++)
                if (strcmp(enc, ENC_NAMES[e]) == 0)
                    row.enc = e;
            for (size_t f = 0; f < NFMT; f++)
                if (strcmp(fmt, FMT_NAMES[f]) == 0)
                    row.fmt = (int)f;
            if (row.enc < 0 || row.fmt < 0)
                die(line, "unknown encoding or format: %s %s", enc, fmt);
            g_types = xrealloc(g_types, (g_ntypes + 1) * sizeof(*g_types));
            g_types[g_ntypes++] = row;
        }
        s = nl ? nl + 1 : NULL;
    }
    g_path = saved;
    free(text);
    if (g_ntypes < 10) {
        fprintf(stderr, "%s: not a type table (%zu rows)\n", path, g_ntypes);
        exit(2);
    }
}

/* ---- the description ------------------------------------------------------------------ */

enum { K_VALUE, K_STRUCT, K_SLICE };

struct field {
    int line;
    int kind;
    struct bytes name;
    int enc, fmt; /* base encoding, format (K_VALUE) */
    int varray, carray;
    unsigned tag;
    struct bytes *values; /* one per element; a scalar has one */
    size_t nvalues;
    struct field *members; /* struct: members; struct_slice: those of its first element */
    size_t nmembers;
    struct field **elems; /* struct_slice: its elements (each nmembers fields) */
    size_t count;         /* struct_slice: the element count */
};

struct event {
    int ordinal, line, provider;
    struct bytes name;
    unsigned level, opcode, tag, id, version;
    uint64_t keyword;
    int has_activity, has_related;
    unsigned char activity[16], related[16];
    struct field *fields;
    size_t nfields;
};

struct provider {
    char *token; /* as written */
    struct bytes name, group;
};

struct step {
    int kind; /* the names of lttpc.h, without LTTPC_ */
    int line, arg;
};
enum { S_REGISTER, S_UNREGISTER, S_EVENT, S_THREADS, S_THREAD, S_FORK, S_PARENT, S_END };
static char const *const STEP_NAMES[] = {"LTTPC_REGISTER", "LTTPC_UNREGISTER", "LTTPC_EVENT",
                                         "LTTPC_THREADS",  "LTTPC_THREAD",     "LTTPC_FORK",
                                         "LTTPC_PARENT",   "LTTPC_END"};

static char **g_lines;
static size_t *g_line_len;
static size_t g_nlines, g_next;
static char *g_words[16];
static size_t g_nwords;

static struct event *g_events;
static size_t g_nevents;
static struct provider *g_providers;
static size_t g_nproviders;
static struct step *g_steps;
static size_t g_nsteps;
static int g_current = -1;
static char *g_case;

static void add_step(int kind, int line, int arg)
{
    g_steps = xrealloc(g_steps, (g_nsteps + 1) * sizeof(*g_steps));
    g_steps[g_nsteps].kind = kind;
    g_steps[g_nsteps].line = line;
    g_steps[g_nsteps].arg = arg;
    g_nsteps++;
}

/* The next statement's words into g_words (the line is cut in place); 0 at the end. */
static int next_statement(void)
{
    while (g_next < g_nlines) {
        char *s = g_lines[g_next];
        size_t n = g_line_len[g_next];
        g_line = (int)++g_next;
        g_nwords = 0;
        size_t i = 0;
        while (i < n) {
            while (i < n && lttpc_space(s[i]))
                s[i++] = '\0';
            if (i >= n)
                break;
            if (g_nwords == sizeof(g_words) / sizeof(g_words[0]))
                die(g_line, "too many words");
            g_words[g_nwords++] = s + i;
            while (i < n && !lttpc_space(s[i]))
                i++;
        }
        if (i <= n)
            s[n] = '\0';
        if (g_nwords && g_words[0][0] != '#')
            return 1;
    }
    g_line = (int)g_nlines;
    return 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static struct bytes unescape(char const *s)
{
    struct bytes b = {NULL, 0};
    if (strcmp(s, "-") == 0)
        return b;
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            int hi = hexval(s[i + 1]), lo = hi < 0 ? -1 : hexval(s[i + 2]);
            if (hi < 0 || lo < 0)
                die(g_line, "`%%` without two hex digits in %s", s);
            c = (unsigned char)(hi * 16 + lo);
            if (!c)
                die(g_line, "a name cannot hold a NUL byte (%%00)");
            i += 2;
        }
        bytes_add(&b, &c, 1);
    }
    return b;
}

static struct bytes hex_bytes(char const *s, size_t n)
{
    struct bytes b = {NULL, 0};
    if (n % 2)
        die(g_line, "odd number of hex digits");
    b.p = xrealloc(NULL, n / 2);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            die(g_line, "not hex: %.40s", s);
        b.p[i] = (unsigned char)(hi * 16 + lo);
    }
    b.n = n / 2;
    return b;
}

static uint64_t number(char const *key, char const *text, uint64_t max, int hex)
{
    char const *d = text;
    if (hex) {
        if (d[0] != '0' || (d[1] != 'x' && d[1] != 'X') || !d[2])
            die(g_line, "%s= needs 0x<hex>, not %s", key, text);
        d += 2;
    }
    if (!*d || strlen(d) > 20)
        die(g_line, "bad number %s=%s", key, text);
    uint64_t v = 0, base = hex ? 16 : 10;
    for (; *d; d++) {
        int x = hex ? hexval(*d) : (*d >= '0' && *d <= '9' ? *d - '0' : -1);
        if (x < 0 || v > (UINT64_MAX - (uint64_t)x) / base)
            die(g_line, "bad number %s=%s", key, text);
        v = v * base + (uint64_t)x;
    }
    if (v > max)
        die(g_line, "%s=%s is out of range", key, text);
    return v;
}

static unsigned field_tag(size_t first)
{
    unsigned tag = 0;
    for (size_t i = first; i < g_nwords; i++) {
        if (strncmp(g_words[i], "tag=", 4) != 0)
            die(g_line, "unexpected `%s`", g_words[i]);
        tag = (unsigned)number("tag", g_words[i] + 4, 0xFFFF, 1);
    }
    return tag;
}

static void parse_type(struct field *f, char const *type)
{
    if (strncmp(type, "raw:", 4) == 0) {
        if (strlen(type) != 9 || type[6] != ':')
            die(g_line, "expected raw:<encoding>:<format>, not %s", type);
        int e0 = hexval(type[4]), e1 = hexval(type[5]), f0 = hexval(type[7]), f1 = hexval(type[8]);
        if (e0 < 0 || e1 < 0 || f0 < 0 || f1 < 0)
            die(g_line, "expected raw:<encoding>:<format>, not %s", type);
        int enc = e0 * 16 + e1;
        f->enc = enc & 0x1f;
        f->fmt = f0 * 16 + f1;
        f->carray = (enc & CARRAY_FLAG) != 0;
        f->varray = (enc & VARRAY_FLAG) != 0;
        if ((enc & 0x80) || f->fmt > 0x7f || f->enc < E_V8 || f->enc >= E_MAX ||
            (f->carray && f->varray))
            die(g_line, "bad raw type %s", type);
        return;
    }
    char base[64];
    size_t n = strlen(type);
    if (n >= sizeof(base))
        die(g_line, "unknown type %s", type);
    strcpy(base, type);
    if (n > 6 && strcmp(base + n - 6, "_slice") == 0) {
        base[n - 6] = '\0';
        f->varray = 1;
    } else if (n > 6 && strcmp(base + n - 6, "_array") == 0) {
        base[n - 6] = '\0';
        f->carray = 1;
    }
    for (size_t i = 0; i < g_ntypes; i++) {
        if (strcmp(g_types[i].name, base) == 0) {
            f->enc = g_types[i].enc;
            f->fmt = g_types[i].fmt;
            if ((f->varray || f->carray) && !is_value(f->enc))
                die(g_line, "arrays exist of value types only: %s", type);
            return;
        }
    }
    die(g_line, "unknown type %s", type);
}

static void parse_values(struct field *f, char const *text)
{
    size_t unit = unit_size(f->enc);
    if (strcmp(text, "-") == 0) {
        if (f->carray)
            die(g_line, "an _array has 1 to 65535 elements");
        if (f->varray || !is_value(f->enc)) {
            f->values = xrealloc(NULL, sizeof(struct bytes));
            f->values[0].p = NULL;
            f->values[0].n = 0;
            f->nvalues = f->varray ? 0 : 1;
            return;
        }
        die(g_line, "a value of a value type cannot be empty");
    }
    char const *s = text;
    for (;;) {
        char const *comma = (f->varray || f->carray) ? strchr(s, ',') : NULL;
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        struct bytes b = hex_bytes(s, n);
        if (is_value(f->enc) ? b.n != unit : b.n % unit != 0)
            die(g_line, "%zu bytes: not a value of this type", b.n);
        if (!is_value(f->enc) && b.n / unit > 65535)
            die(g_line, "a string has at most 65535 units");
        if (f->enc >= E_Z8 && f->enc <= E_Z32)
            for (size_t i = 0; i < b.n; i += unit) {
                int zero = 1;
                for (size_t k = 0; k < unit; k++)
                    zero &= b.p[i + k] == 0;
                if (zero)
                    die(g_line, "a zero-terminated string cannot hold a 0 unit");
            }
        f->values = xrealloc(f->values, (f->nvalues + 1) * sizeof(struct bytes));
        f->values[f->nvalues++] = b;
        if (!comma)
            break;
        s = comma + 1;
    }
    if (f->nvalues > 65535)
        die(g_line, "more than 65535 elements");
}

static void parse_fields(struct field **out, size_t *nout, int in_element);

/* Structs within structs, as deep as the reference parser takes them (impl/ehconf/
 * desc_parse.c): deeper, the recursion below would run out of stack. */
#define MAX_DEPTH 1024
static int g_depth;

/* One field statement (g_words), its block included. */
static void parse_field(struct field *f)
{
    memset(f, 0, sizeof(*f));
    f->line = g_line;
    char const *w = g_words[0];
    if (strcmp(w, "struct") == 0) {
        if (g_nwords < 2)
            die(g_line, "expected `struct <name> [tag=0x<hex>]`");
        f->kind = K_STRUCT;
        f->enc = E_STRUCT;
        f->name = unescape(g_words[1]);
        f->tag = field_tag(2);
        if (++g_depth > MAX_DEPTH)
            die(g_line, "structs nested deeper than %d", MAX_DEPTH);
        parse_fields(&f->members, &f->nmembers, 0);
        g_depth--;
        return;
    }
    if (strcmp(w, "struct_slice") == 0) {
        if (g_nwords < 3)
            die(g_line, "expected `struct_slice <name> <count> [tag=0x<hex>]`");
        int line = g_line;
        f->kind = K_SLICE;
        f->enc = E_STRUCT;
        f->varray = 1;
        f->name = unescape(g_words[1]);
        f->count = (size_t)number("count", g_words[2], 65535, 0);
        f->tag = field_tag(3);
        if (++g_depth > MAX_DEPTH)
            die(g_line, "structs nested deeper than %d", MAX_DEPTH);
        size_t blocks = 0;
        while (next_statement()) {
            if (strcmp(g_words[0], "end") == 0)
                break;
            if (strcmp(g_words[0], "element") != 0 || g_nwords != 1)
                die(g_line, "expected `element` or `end` in a struct_slice");
            struct field *m = NULL;
            size_t nm = 0;
            parse_fields(&m, &nm, 1);
            if (blocks && nm != f->nmembers)
                die(g_line, "the elements of a struct_slice have different members");
            if (!blocks) {
                f->members = m;
                f->nmembers = nm;
            }
            f->elems = xrealloc(f->elems, (blocks + 1) * sizeof(*f->elems));
            f->elems[blocks++] = m;
        }
        if (blocks != (f->count ? f->count : 1))
            die(line, "struct_slice %s: %zu element blocks for a count of %zu", g_words[1], blocks,
                f->count);
        g_depth--;
        return;
    }
    if (g_nwords < 3)
        die(g_line, "expected `<type> <name> <value> [tag=0x<hex>]`");
    f->kind = K_VALUE;
    parse_type(f, w);
    f->name = unescape(g_words[1]);
    f->tag = field_tag(3);
    parse_values(f, g_words[2]);
}

static void parse_fields(struct field **out, size_t *nout, int in_element)
{
    int opened = g_line;
    while (next_statement()) {
        if (strcmp(g_words[0], "end") == 0) {
            if (g_nwords != 1)
                die(g_line, "`end` takes nothing");
            return;
        }
        if (strcmp(g_words[0], "element") == 0 || strcmp(g_words[0], "event") == 0)
            die(g_line, "unexpected `%s`", g_words[0]);
        *out = xrealloc(*out, (*nout + 1) * sizeof(**out));
        parse_field(&(*out)[*nout]);
        (*nout)++;
    }
    die(opened, "%s without `end`", in_element ? "element" : "block");
}

static void parse_guid(char const *key, char const *text, unsigned char *out)
{
    if (strlen(text) != 32)
        die(g_line, "%s= needs 32 hex digits", key);
    struct bytes b = hex_bytes(text, 32);
    memcpy(out, b.p, 16);
    free(b.p);
}

static void parse_event(void)
{
    if (g_current < 0)
        die(g_line, "an event before any `provider`");
    if (g_nwords < 2)
        die(g_line, "expected `event <name> level=<n> keyword=0x<hex> ...`");
    struct event ev;
    memset(&ev, 0, sizeof(ev));
    ev.line = g_line;
    ev.ordinal = (int)g_nevents + 1;
    ev.provider = g_current;
    ev.name = unescape(g_words[1]);
    int have_level = 0, have_keyword = 0;
    for (size_t i = 2; i < g_nwords; i++) {
        char *w = g_words[i];
        char *eq = strchr(w, '=');
        if (!eq)
            die(g_line, "unexpected `%s`", w);
        *eq = '\0';
        char const *v = eq + 1;
        if (strcmp(w, "level") == 0)
            ev.level = (unsigned)number(w, v, 255, 0), have_level = 1;
        else if (strcmp(w, "keyword") == 0)
            ev.keyword = number(w, v, UINT64_MAX, 1), have_keyword = 1;
        else if (strcmp(w, "opcode") == 0)
            ev.opcode = (unsigned)number(w, v, 255, 0);
        else if (strcmp(w, "tag") == 0)
            ev.tag = (unsigned)number(w, v, 0xFFFF, 1);
        else if (strcmp(w, "id") == 0)
            ev.id = (unsigned)number(w, v, 0xFFFF, 0);
        else if (strcmp(w, "version") == 0)
            ev.version = (unsigned)number(w, v, 255, 0);
        else if (strcmp(w, "activity") == 0)
            parse_guid(w, v, ev.activity), ev.has_activity = 1;
        else if (strcmp(w, "related") == 0)
            parse_guid(w, v, ev.related), ev.has_related = 1;
        else if (strcmp(w, "needs") != 0)
            die(g_line, "unknown event option %s=", w);
    }
    if (!have_level || !have_keyword)
        die(g_line, "an event needs level= and keyword=");
    parse_fields(&ev.fields, &ev.nfields, 0);
    g_events = xrealloc(g_events, (g_nevents + 1) * sizeof(*g_events));
    g_events[g_nevents++] = ev;
    add_step(S_EVENT, ev.line, ev.ordinal);
}

static void parse_provider(void)
{
    if (g_nwords < 2 || g_nwords > 3)
        die(g_line, "expected `provider <name> [group=<group>]`");
    struct bytes name = unescape(g_words[1]);
    struct bytes group = {NULL, 0};
    if (g_nwords == 3) {
        if (strncmp(g_words[2], "group=", 6) != 0)
            die(g_line, "expected group=<group>");
        group = unescape(g_words[2] + 6);
    }
    for (size_t i = 0; i < g_nproviders; i++) {
        struct provider *p = &g_providers[i];
        if (p->name.n == name.n && p->group.n == group.n &&
            (!name.n || memcmp(p->name.p, name.p, name.n) == 0) &&
            (!group.n || memcmp(p->group.p, group.p, group.n) == 0)) {
            g_current = (int)i;
            return;
        }
    }
    g_providers = xrealloc(g_providers, (g_nproviders + 1) * sizeof(*g_providers));
    size_t tn = strlen(g_words[1]) + (g_nwords == 3 ? strlen(g_words[2]) + 1 : 0) + 1;
    char *token = xrealloc(NULL, tn);
    snprintf(token, tn, "%s%s%s", g_words[1], g_nwords == 3 ? " " : "",
             g_nwords == 3 ? g_words[2] : "");
    g_providers[g_nproviders].token = token;
    g_providers[g_nproviders].name = name;
    g_providers[g_nproviders].group = group;
    g_current = (int)g_nproviders++;
}

enum { B_TOP, B_THREADS, B_THREAD, B_CHILD, B_PARENT };

static void parse_block(int kind)
{
    int opened = g_line;
    while (next_statement()) {
        char const *w = g_words[0];
        if (strcmp(w, "end") == 0) {
            if (kind == B_TOP || g_nwords != 1)
                die(g_line, "`end` without a block");
            add_step(S_END, g_line, 0);
            return;
        }
        if (strcmp(w, "parent") == 0) {
            if (kind != B_CHILD || g_nwords != 1)
                die(g_line, "`parent` belongs inside a `fork` block, once");
            add_step(S_PARENT, g_line, 0);
            parse_block(B_PARENT);
            return;
        }
        if (kind == B_THREADS) {
            if (strcmp(w, "thread") != 0 || g_nwords != 1)
                die(g_line, "a `threads` block holds `thread` blocks only");
            add_step(S_THREAD, g_line, 0);
            parse_block(B_THREAD);
            continue;
        }
        if (strcmp(w, "provider") == 0) {
            parse_provider();
        } else if (strcmp(w, "event") == 0) {
            parse_event();
        } else if (kind != B_TOP) {
            die(g_line, "`%s` inside a thread or fork block", w);
        } else if (strcmp(w, "register") == 0 || strcmp(w, "unregister") == 0) {
            if (g_current < 0 || g_nwords != 1)
                die(g_line, "`%s` needs a provider first, and takes nothing", w);
            add_step(w[0] == 'r' ? S_REGISTER : S_UNREGISTER, g_line, g_current);
        } else if (strcmp(w, "threads") == 0 && g_nwords == 1) {
            add_step(S_THREADS, g_line, 0);
            parse_block(B_THREADS);
        } else if (strcmp(w, "fork") == 0 && g_nwords == 1) {
            add_step(S_FORK, g_line, 0);
            parse_block(B_CHILD);
        } else if (strcmp(w, "needs") == 0 && g_nwords == 2) {
            /* features: the runner's business */
        } else if (strcmp(w, "case") == 0) {
            die(g_line, "`case` again");
        } else {
            die(g_line, "unknown statement `%s`", w);
        }
    }
    if (kind != B_TOP)
        die(opened, "a block without `end`");
}

static void split_lines(char *text, size_t len)
{
    size_t pos = 0;
    while (pos <= len) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        g_lines = xrealloc(g_lines, (g_nlines + 1) * sizeof(*g_lines));
        g_line_len = xrealloc(g_line_len, (g_nlines + 1) * sizeof(*g_line_len));
        g_lines[g_nlines] = text + pos;
        g_line_len[g_nlines] = end - pos;
        g_nlines++;
        pos = end + 1;
    }
}

/* ---- generation ----------------------------------------------------------------------- */

/* A typed wrapper of TraceLoggingProvider.h for a value encoding + format. */
struct vmacro {
    int enc, fmt;
    char const *name; /* TraceLogging<name>, <name>Array, <name>FixedArray */
    char const *ctype;
    int arrays; /* the Array and FixedArray forms exist */
};

static struct vmacro const VMACROS[] = {
    {E_V8, 0, "UInt8", "uint8_t", 1},
    {E_V8, 2, "Int8", "int8_t", 1},
    {E_V8, 3, "HexUInt8", "uint8_t", 1},
    {E_V8, 7, "Boolean", "uint8_t", 1},
    {E_V8, 10, "Char", "char", 1},
    {E_V16, 0, "UInt16", "uint16_t", 1},
    {E_V16, 2, "Int16", "int16_t", 1},
    {E_V16, 3, "HexUInt16", "uint16_t", 1},
    {E_V16, 11, "Char16", "char16_t", 1},
    {E_V16, 16, "Port", "uint16_t", 1},
    {E_V32, 0, "UInt32", "uint32_t", 1},
    {E_V32, 2, "Int32", "int32_t", 1},
    {E_V32, 3, "HexUInt32", "uint32_t", 1},
    {E_V32, 4, "Errno", "int32_t", 1},
    {E_V32, 5, "Pid", "int32_t", 1},
    {E_V32, 6, "Time32", "int32_t", 1},
    {E_V32, 7, "Bool", "int32_t", 1},
    {E_V32, 8, "Float32", "float", 1},
    {E_V32, 11, "Char32", "char32_t", 1},
    {E_V32, 17, "IPv4Address", "uint32_t", 0},
    {E_V64, 0, "UInt64", "uint64_t", 1},
    {E_V64, 2, "Int64", "int64_t", 1},
    {E_V64, 3, "HexUInt64", "uint64_t", 1},
    {E_V64, 6, "Time64", "int64_t", 1},
    {E_V64, 8, "Float64", "double", 1},
    /* value128: pointer to 16 bytes. TraceLoggingIPv6Address is the header's macro for an
       IPv6 address; it writes event_field_format_ipv6, which eventheader.h defines as
       ip_address_obsolete (18), so it also serves the wire's ip_address (17) field. */
    {E_V128, 15, "Guid", NULL, 0},
    {E_V128, 17, "IPv6Address", NULL, 0},
    {E_V128, 18, "IPv6Address", NULL, 0},
};

static struct vmacro const *find_vmacro(int enc, int fmt)
{
    for (size_t i = 0; i < sizeof(VMACROS) / sizeof(VMACROS[0]); i++)
        if (VMACROS[i].enc == enc && VMACROS[i].fmt == fmt)
            return &VMACROS[i];
    return NULL;
}

static char const *uint_type(size_t size)
{
    switch (size) {
    case 1: return "uint8_t";
    case 2: return "uint16_t";
    case 4: return "uint32_t";
    default: return "uint64_t";
    }
}

static uint64_t le_value(struct bytes const *b)
{
    uint64_t v = 0;
    for (size_t i = b->n; i-- > 0;)
        v = (v << 8) | b->p[i];
    return v;
}

struct gen {
    struct sb decls; /* static data of the event function */
    struct sb args;  /* ",\n        arg" each */
    int nargs;
    int ndata;
    char const *problem; /* why the event cannot be written */
    char problem_buf[1024];
};

static void gen_problem(struct gen *g, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gen_problem(struct gen *g, char const *fmt, ...)
{
    if (g->problem)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->problem_buf, sizeof(g->problem_buf), fmt, ap);
    va_end(ap);
    g->problem = g->problem_buf;
}

static void printable_name(char *out, size_t size, struct bytes const *name)
{
    size_t o = 0;
    for (size_t i = 0; i < name->n && o + 5 < size; i++) {
        unsigned char c = name->p[i];
        if (c > 0x20 && c < 0x7f && c != '%')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "%%%02X", c);
    }
    if (!name->n && size > 1)
        out[o++] = '-';
    out[o] = '\0';
}

/* Declares a static array of the given unit size holding bytes b; returns its number. */
static int gen_data(struct gen *g, struct bytes const *b, size_t unit)
{
    int k = ++g->ndata;
    sb_printf(&g->decls, "    static const %s d%d[] = {", uint_type(unit), k);
    if (!b->n)
        sb_add(&g->decls, "0", 1);
    for (size_t i = 0; i < b->n; i += unit) {
        struct bytes one = {b->p + i, unit};
        sb_printf(&g->decls, "%s0x%llx", i ? "," : "", (unsigned long long)le_value(&one));
        if ((i / unit) % 16 == 15 && i + unit < b->n)
            sb_add(&g->decls, "\n        ", 9);
    }
    sb_add(&g->decls, "};\n", 3);
    return k;
}

/* `, "name"` or `, "name", "", 0xTAG` */
static void name_tag(struct sb *s, struct bytes const *name, unsigned tag)
{
    sb_add(s, ", ", 2);
    sb_literal(s, name->p, name->n);
    if (tag)
        sb_printf(s, ", \"\", 0x%x", tag);
}

static void begin_arg(struct gen *g)
{
    sb_add(&g->args, ",\n        ", 10);
    g->nargs++;
}

static void enc_expr(struct sb *s, int enc, int varray)
{
    sb_printf(s, "event_field_encoding_%s%s", ENC_NAMES[enc],
              varray ? "|event_field_encoding_varray_flag" : "");
}

static void fmt_expr(struct sb *s, int fmt)
{
    if ((size_t)fmt < NFMT && fmt != 18)
        sb_printf(s, "event_field_format_%s", FMT_NAMES[fmt]);
    else
        sb_printf(s, "(event_field_format)0x%x", fmt);
}

/* The payload bytes of a field as the wire has them. */
static void serialize(struct bytes *out, struct field const *f)
{
    if (f->kind == K_STRUCT) {
        for (size_t i = 0; i < f->nmembers; i++)
            serialize(out, &f->members[i]);
        return;
    }
    if (f->kind == K_SLICE) {
        bytes_u16(out, f->count);
        for (size_t e = 0; e < f->count; e++)
            for (size_t i = 0; i < f->nmembers; i++)
                serialize(out, &f->elems[e][i]);
        return;
    }
    if (f->varray)
        bytes_u16(out, f->nvalues);
    for (size_t i = 0; i < f->nvalues; i++) {
        struct bytes const *v = &f->values[i];
        size_t unit = unit_size(f->enc);
        if (f->enc >= E_S8 && f->enc <= E_B8)
            bytes_u16(out, v->n / unit);
        bytes_add(out, v->p, v->n);
        if (f->enc >= E_Z8 && f->enc <= E_Z32) {
            unsigned char zero[4] = {0, 0, 0, 0};
            bytes_add(out, zero, unit);
        }
    }
}

/* The end of a TraceLoggingPacked{Field,Metadata}[Ex] argument: its encoding, its format
 * when the Ex form takes one, its name and tag, the closing parenthesis. */
static void packed_tail(struct gen *g, struct field const *f)
{
    enc_expr(&g->args, f->enc, f->varray);
    if (f->fmt) {
        sb_add(&g->args, ", ", 2);
        fmt_expr(&g->args, f->fmt);
    }
    name_tag(&g->args, &f->name, f->tag);
    sb_add(&g->args, ")", 1);
}

static void packed_field(struct gen *g, struct field const *f)
{
    struct bytes data = {NULL, 0};
    serialize(&data, f);
    int k = gen_data(g, &data, 1);
    begin_arg(g);
    sb_printf(&g->args, "TraceLoggingPackedField%s(d%d, %zu, ", f->fmt ? "Ex" : "", k, data.n);
    packed_tail(g, f);
    free(data.p);
}

static void gen_metadata(struct gen *g, struct field const *f, char const *where);

static void gen_field(struct gen *g, struct field const *f)
{
    char name[600];
    printable_name(name, sizeof(name), &f->name);
    if (f->kind == K_STRUCT) {
        if (!f->nmembers) {
            gen_problem(g,
                        "TraceLoggingStruct cannot write a struct without members: its "
                        "fieldCount must be 1 to 127 (static assert `TraceLoggingStruct "
                        "fieldCount must be greater than 0.`, TraceLoggingProvider.h:%d): "
                        "struct %s",
                        header_line("TraceLoggingStruct fieldCount must be greater than 0"), name);
            return;
        }
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingStruct(%zu", f->nmembers);
        name_tag(&g->args, &f->name, f->tag);
        sb_add(&g->args, ")", 1);
        for (size_t i = 0; i < f->nmembers; i++)
            gen_field(g, &f->members[i]);
        return;
    }
    if (f->kind == K_SLICE) {
        /* The header's array-of-structs recipe: the count and the elements' bytes as
           TraceLoggingPackedData, the shape as TraceLoggingPackedStructArray + metadata. */
        struct bytes data = {NULL, 0};
        serialize(&data, f);
        int k = gen_data(g, &data, 1);
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingPackedData(d%d, %zu)", k, data.n);
        free(data.p);
        gen_metadata(g, f, name);
        return;
    }
    struct vmacro const *m = is_value(f->enc) ? find_vmacro(f->enc, f->fmt) : NULL;
    size_t unit = unit_size(f->enc);
    if (m && f->enc == E_V128 && !f->varray && !f->carray) {
        int k = gen_data(g, &f->values[0], 1);
        begin_arg(g);
        sb_printf(&g->args, "TraceLogging%s(d%d", m->name, k);
    } else if (m && !f->varray && !f->carray) {
        begin_arg(g);
        uint64_t v = le_value(&f->values[0]);
        if (strcmp(m->ctype, "float") == 0)
            sb_printf(&g->args, "TraceLogging%s(lttpc_f32(UINT32_C(0x%llx))", m->name,
                      (unsigned long long)v);
        else if (strcmp(m->ctype, "double") == 0)
            sb_printf(&g->args, "TraceLogging%s(lttpc_f64(UINT64_C(0x%llx))", m->name,
                      (unsigned long long)v);
        else
            sb_printf(&g->args, "TraceLogging%s((%s)UINT%zu_C(0x%llx)", m->name, m->ctype, unit * 8,
                      (unsigned long long)v);
    } else if (m && m->arrays) {
        struct bytes all = {NULL, 0};
        for (size_t i = 0; i < f->nvalues; i++)
            bytes_add(&all, f->values[i].p, f->values[i].n);
        int k = gen_data(g, &all, unit);
        free(all.p);
        begin_arg(g);
        sb_printf(&g->args, "TraceLogging%s%s((%s const *)(void const *)d%d, %zu", m->name,
                  f->carray ? "FixedArray" : "Array", m->ctype, k, f->nvalues);
    } else if (f->carray) {
        char what[80];
        snprintf(what, sizeof(what), "%s + %s", ENC_NAMES[f->enc],
                 (size_t)f->fmt < NFMT ? FMT_NAMES[f->fmt] : "format 0x..");
        gen_problem(g,
                    "no macro writes a constant-length array of %s: the "
                    "TraceLogging*FixedArray macros (TraceLoggingProvider.h:%d-%d) have no "
                    "such type, and TraceLoggingPackedField refuses the carray flag (static "
                    "assert `Invalid packed metadata encoding`, TraceLoggingProvider.h:%d): "
                    "field %s",
                    what, header_line("#define TraceLoggingInt8FixedArray"),
                    header_line("#define TraceLoggingTime64FixedArray"),
                    header_line("#define _tlg_AssertValidPackedMetadataEncoding"), name);
        return;
    } else if (!is_value(f->enc) && !f->varray) {
        struct bytes const *v = &f->values[0];
        char const *counted = NULL, *zstring = NULL, *ctype = "char";
        int binary_fmt = -1;
        switch (f->enc) {
        case E_S8:
            if (f->fmt == 0)
                counted = "CountedUtf8String";
            else if (f->fmt == 10)
                counted = "CountedString";
            else
                binary_fmt = f->fmt; /* TraceLoggingBinary(Ex): length16_char8 + format */
            break;
        case E_S16: counted = f->fmt ? NULL : "CountedString16", ctype = "char16_t"; break;
        case E_S32: counted = f->fmt ? NULL : "CountedString32", ctype = "char32_t"; break;
        case E_Z8: zstring = f->fmt == 0 ? "Utf8String" : f->fmt == 10 ? "String" : NULL; break;
        case E_Z16: zstring = f->fmt ? NULL : "String16", ctype = "char16_t"; break;
        case E_Z32: zstring = f->fmt ? NULL : "String32", ctype = "char32_t"; break;
        default: break;
        }
        if (counted) {
            int k = gen_data(g, v, unit);
            begin_arg(g);
            sb_printf(&g->args, "TraceLogging%s((%s const *)(void const *)d%d, %zu", counted, ctype,
                      k, v->n / unit);
        } else if (zstring) {
            struct bytes z = {NULL, 0};
            unsigned char zero[4] = {0, 0, 0, 0};
            bytes_add(&z, v->p, v->n);
            bytes_add(&z, zero, unit);
            int k = gen_data(g, &z, unit);
            free(z.p);
            begin_arg(g);
            sb_printf(&g->args, "TraceLogging%s((%s const *)(void const *)d%d", zstring, ctype, k);
        } else if (binary_fmt == 9) {
            int k = gen_data(g, v, 1);
            begin_arg(g);
            sb_printf(&g->args, "TraceLoggingBinary(d%d, %zu", k, v->n);
        } else if (binary_fmt >= 0) {
            int k = gen_data(g, v, 1);
            begin_arg(g);
            sb_printf(&g->args, "TraceLoggingBinaryEx(d%d, %zu, ", k, v->n);
            fmt_expr(&g->args, binary_fmt);
        } else {
            packed_field(g, f);
            return;
        }
    } else {
        packed_field(g, f);
        return;
    }
    name_tag(&g->args, &f->name, f->tag);
    sb_add(&g->args, ")", 1);
}

/* The metadata of an array of structs' shape: TraceLoggingPacked* macros only. */
static void gen_metadata(struct gen *g, struct field const *f, char const *where)
{
    char name[600];
    printable_name(name, sizeof(name), &f->name);
    if (f->kind != K_VALUE) {
        if (!f->nmembers) {
            gen_problem(g,
                        "TraceLoggingPackedStruct cannot write a struct without members "
                        "(static assert, TraceLoggingProvider.h:%d): struct %s in %s",
                        header_line("TraceLoggingStruct fieldCount must be greater than 0"), name,
                        where);
            return;
        }
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingPacked%s(%zu",
                  f->kind == K_SLICE ? "StructArray" : "Struct", f->nmembers);
        name_tag(&g->args, &f->name, f->tag);
        sb_add(&g->args, ")", 1);
        for (size_t i = 0; i < f->nmembers; i++)
            gen_metadata(g, &f->members[i], where);
        return;
    }
    if (f->carray) {
        gen_problem(g,
                    "TraceLoggingPackedMetadata refuses the carray flag (static assert "
                    "`Invalid packed metadata encoding`, TraceLoggingProvider.h:%d) and has no "
                    "element count: constant-length array %s in the array of structs %s",
                    header_line("#define _tlg_AssertValidPackedMetadataEncoding"), name, where);
        return;
    }
    begin_arg(g);
    sb_printf(&g->args, "TraceLoggingPackedMetadata%s(", f->fmt ? "Ex" : "");
    packed_tail(g, f);
}

static char *g_ident;

/* The C identifier of a case name. */
static char *ident_of(char const *name)
{
    size_t n = strlen(name);
    char *out = xrealloc(NULL, n * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            out[o++] = (char)c;
        else
            o += (size_t)sprintf(out + o, "_%02x", c);
    }
    out[o] = '\0';
    return out;
}

/* Why TRACELOGGING_DEFINE_PROVIDER cannot define this provider ("" if it can). */
static void provider_problem(struct provider const *p, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < p->name.n; i++)
        if (p->name.p[i] == ' ' || p->name.p[i] == ':') {
            snprintf(out, size,
                     "TRACELOGGING_DEFINE_PROVIDER: the name may not contain ' ' or "
                     "':' (TraceLoggingProvider.h:%d)",
                     header_line("contains no ' '"));
            return;
        }
    /* sizeof("" providerName "_LnnKnnnnnnnnnnnnnnnn" "G" group) <= EVENTHEADER_NAME_MAX */
    size_t size_of = p->name.n + 21 + (p->group.n ? 1 + p->group.n : 0) + 1;
    if (size_of > 256)
        snprintf(out, size,
                 "TRACELOGGING_DEFINE_PROVIDER refuses the name at compile time: "
                 "name + \"_LnnKnnnnnnnnnnnnnnnn\" + options take %zu bytes, more than "
                 "EVENTHEADER_NAME_MAX (256) (static assert, TraceLoggingProvider.h:%d)",
                 size_of,
                 header_line("TRACELOGGING_DEFINE_PROVIDER providerName + options is too long"));
}

static void gen_event(FILE *out, struct event const *ev, char const *const *unusable)
{
    struct gen g;
    memset(&g, 0, sizeof(g));
    char sym[256];
    snprintf(sym, sizeof(sym), "lttpc_%s_p%d", g_ident, ev->provider);
    if (unusable[ev->provider][0])
        gen_problem(&g, "provider %s: %s", g_providers[ev->provider].token, unusable[ev->provider]);
    if (ev->level != 5) {
        begin_arg(&g);
        sb_printf(&g.args, "TraceLoggingLevel(%u)", ev->level);
    }
    if (ev->keyword) {
        begin_arg(&g);
        sb_printf(&g.args, "TraceLoggingKeyword(UINT64_C(0x%llx))",
                  (unsigned long long)ev->keyword);
    }
    if (ev->opcode) {
        begin_arg(&g);
        sb_printf(&g.args, "TraceLoggingOpcode(%u)", ev->opcode);
    }
    if (ev->tag) {
        begin_arg(&g);
        sb_printf(&g.args, "TraceLoggingEventTag(0x%x)", ev->tag);
    }
    if (ev->id || ev->version) {
        begin_arg(&g);
        sb_printf(&g.args, "TraceLoggingIdVersion(%u, %u)", ev->id, ev->version);
    }
    for (size_t i = 0; i < ev->nfields; i++)
        gen_field(&g, &ev->fields[i]);
    if (ev->has_related && !ev->has_activity)
        gen_problem(&g, "TraceLoggingWriteActivity requires pRelatedActivityId to be NULL when "
                        "pActivityId is (eventheader_write asserts it)");
    if (g.nargs > MAX_ARGS)
        gen_problem(&g,
                    "TraceLoggingWrite takes at most %d arguments (TraceLoggingProvider.h:%d: "
                    "\"Supports up to 99 args\"; _tlg_NARGS counts to 99, "
                    "TraceLoggingProvider.h:%d): this event needs %d (its fields, struct "
                    "members included, and its level/keyword/opcode/tag/id options)",
                    MAX_ARGS, header_line("Supports up to 99 args"), header_line("99, 98, 97, 96"),
                    g.nargs);
    fprintf(out, "\n/* event %d, line %d */\nint lttpc_%s_e%d(char const **call)\n{\n", ev->ordinal,
            ev->line, g_ident, ev->ordinal);
    if (g.problem) {
        struct sb why = {NULL, 0, 0};
        sb_cstr(&why, g.problem);
        fprintf(out, "    *call = %s;\n    return -1;\n}\n", why.p);
        free(why.p);
    } else {
        struct sb name = {NULL, 0, 0};
        sb_literal(&name, ev->name.p, ev->name.n);
        if (g.decls.n)
            fputs(g.decls.p, out);
        if (ev->has_activity) {
            fprintf(out, "    static const uint8_t act[16] = {");
            for (int i = 0; i < 16; i++)
                fprintf(out, "%s0x%x", i ? "," : "", ev->activity[i]);
            fprintf(out, "};\n");
            if (ev->has_related) {
                fprintf(out, "    static const uint8_t rel[16] = {");
                for (int i = 0; i < 16; i++)
                    fprintf(out, "%s0x%x", i ? "," : "", ev->related[i]);
                fprintf(out, "};\n");
            }
            fprintf(out,
                    "    *call = \"TraceLoggingWriteActivity\";\n"
                    "    return TraceLoggingWriteActivity(%s, %s, act, %s%s);\n}\n",
                    sym, name.p, ev->has_related ? "rel" : "NULL", g.args.p ? g.args.p : "");
        } else {
            fprintf(
                out,
                "    *call = \"TraceLoggingWrite\";\n    return TraceLoggingWrite(%s, %s%s);\n}\n",
                sym, name.p, g.args.p ? g.args.p : "");
        }
        free(name.p);
    }
    free(g.decls.p);
    free(g.args.p);
}

struct items {
    struct lttpc_item *p;
    size_t n;
};

static void collect_item(void *ctx, struct lttpc_item const *item)
{
    struct items *it = ctx;
    it->p = xrealloc(it->p, (it->n + 1) * sizeof(*it->p));
    it->p[it->n++] = *item;
}

static FILE *open_out(char const *dir, char const *name, char const *suffix, char *path,
                      size_t size)
{
    snprintf(path, size, "%s/%s%s.c", dir, name, suffix);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gen: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return f;
}

static int close_out(FILE *f, char const *path)
{
    if (fflush(f) != 0 || ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "gen: %s: write error\n", path);
        return 1;
    }
    return 0;
}

static int gen_case(char const *types, char const *header, char const *path, char const *outdir)
{
    load_types(types);
    g_header = lttpc_read_file(header, &g_header_len);
    g_path = path;
    size_t len;
    char *text = lttpc_read_file(path, &len);
    char *copy = xrealloc(NULL, len + 1);
    memcpy(copy, text, len + 1);
    split_lines(copy, len);
    if (!next_statement() || strcmp(g_words[0], "case") != 0 || g_nwords != 2)
        die(g_line, "the first statement must be `case <name>`");
    g_case = g_words[1];
    g_ident = ident_of(g_case);
    parse_block(B_TOP);

    struct items items = {NULL, 0};
    int open = lttpc_items(text, len, collect_item, &items);
    if (open)
        die(open, "an event without `end`");

    char main_path[4096];
    FILE *out = open_out(outdir, g_ident, "", main_path, sizeof(main_path));
    fprintf(out,
            "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
            "   Case %s: %zu events (their functions in %s_<n>.c, %d a file), %zu providers, "
            "%zu steps. */\n"
            "#include \"lttpc.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
            path, g_case, g_nevents, g_ident, EVENTS_PER_FILE, g_nproviders, g_nsteps);
    char **unusable = xrealloc(NULL, (g_nproviders + 1) * sizeof(char *));
    for (size_t i = 0; i < g_nproviders; i++) {
        struct provider const *p = &g_providers[i];
        unusable[i] = xrealloc(NULL, 1024);
        provider_problem(p, unusable[i], 1024);
        if (unusable[i][0]) {
            fprintf(out, "/* provider %zu, %s: not defined: %s */\n", i, p->token, unusable[i]);
            continue;
        }
        struct sb name = {NULL, 0, 0}, group = {NULL, 0, 0};
        sb_literal(&name, p->name.p, p->name.n);
        fprintf(out,
                "TRACELOGGING_DEFINE_PROVIDER(lttpc_%s_p%zu, %s,\n"
                "    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
                g_ident, i, name.p);
        if (p->group.n) {
            sb_literal(&group, p->group.p, p->group.n);
            fprintf(out, ", TraceLoggingOptionGroupName(%s)", group.p);
        }
        fprintf(out,
                ");\nstatic int lttpc_reg%zu(void)\n{\n    return "
                "TraceLoggingRegister(lttpc_%s_p%zu);\n}\n"
                "static int lttpc_unreg%zu(void)\n{\n    TraceLoggingUnregister(lttpc_%s_p%zu);\n  "
                "  return 0;\n}\n",
                i, g_ident, i, i, g_ident, i);
        free(name.p);
        free(group.p);
    }
    /* The events in files of EVENTS_PER_FILE: the preprocessor spends milliseconds on each
       TraceLoggingWrite, so a case of thousands compiles in parallel. They use the provider
       as another file of a program does: TRACELOGGING_DECLARE_PROVIDER. */
    int status = 0;
    for (size_t first = 0; first < g_nevents; first += EVENTS_PER_FILE) {
        char part_path[4096], suffix[32];
        snprintf(suffix, sizeof(suffix), "_%zu", first / EVENTS_PER_FILE);
        FILE *part = open_out(outdir, g_ident, suffix, part_path, sizeof(part_path));
        fprintf(part,
                "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
                "   Case %s, events %zu to %zu. */\n"
                "#include \"lttpc.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
                path, g_case, first + 1,
                first + EVENTS_PER_FILE < g_nevents ? first + EVENTS_PER_FILE : g_nevents);
        for (size_t i = 0; i < g_nproviders; i++)
            if (!unusable[i][0])
                fprintf(part, "TRACELOGGING_DECLARE_PROVIDER(lttpc_%s_p%zu);\n", g_ident, i);
        for (size_t i = first; i < g_nevents && i < first + EVENTS_PER_FILE; i++)
            gen_event(part, &g_events[i], (char const *const *)unusable);
        status |= close_out(part, part_path);
    }
    fprintf(out, "\n");
    for (size_t i = 0; i < g_nevents; i++)
        fprintf(out, "int lttpc_%s_e%zu(char const **call);\n", g_ident, i + 1);

    fprintf(out, "\nstatic const struct lttpc_provider lttpc_providers[] = {\n");
    for (size_t i = 0; i < g_nproviders; i++) {
        struct sb token = {NULL, 0, 0}, group = {NULL, 0, 0};
        sb_cstr(&token, g_providers[i].token);
        sb_literal(&group, g_providers[i].group.p, g_providers[i].group.n);
        if (unusable[i][0])
            fprintf(out, "    {%s, %s, NULL, NULL},\n", token.p, group.p);
        else
            fprintf(out, "    {%s, %s, lttpc_reg%zu, lttpc_unreg%zu},\n", token.p, group.p, i, i);
        free(token.p);
        free(group.p);
    }
    if (!g_nproviders)
        fprintf(out, "    {\"\", \"\", NULL, NULL},\n");
    fprintf(out, "};\n\nstatic const lttpc_event_fn lttpc_events[] = {");
    for (size_t i = 0; i < g_nevents; i++)
        fprintf(out, "%slttpc_%s_e%zu",
                i == 0  ? "\n    "
                : i % 6 ? ", "
                        : ",\n    ",
                g_ident, i + 1);
    if (!g_nevents)
        fprintf(out, "NULL");
    fprintf(out, "\n};\n\nstatic const struct lttpc_step lttpc_steps[] = {\n");
    for (size_t i = 0; i < g_nsteps; i++)
        fprintf(out, "    {%s, %d, %d},\n", STEP_NAMES[g_steps[i].kind], g_steps[i].line,
                g_steps[i].arg);
    if (!g_nsteps)
        fprintf(out, "    {LTTPC_END, 0, 0},\n");
    fprintf(out, "};\n\nstatic const struct lttpc_item lttpc_items_[] = {\n");
    for (size_t i = 0; i < items.n; i++)
        fprintf(out, "    {%d, %d, UINT64_C(0x%016llx)},\n", items.p[i].is_event, items.p[i].line,
                (unsigned long long)items.p[i].hash);
    struct sb cname = {NULL, 0, 0}, cpath = {NULL, 0, 0};
    sb_cstr(&cname, g_case);
    sb_cstr(&cpath, path);
    fprintf(out,
            "};\n\nconst struct lttpc_case lttpc_case_%s = {\n"
            "    %s, %s,\n    lttpc_items_, %zu,\n    lttpc_steps, %zu,\n"
            "    lttpc_providers, %zu,\n    lttpc_events, %zu,\n};\n",
            g_ident, cname.p, cpath.p, items.n, g_nsteps, g_nproviders, g_nevents);
    return status | close_out(out, main_path);
}

/* gen --table FILE...: the case table, from each file's `case` statement. */
static int gen_table(int n, char **paths)
{
    char **idents = xrealloc(NULL, (size_t)(n + 1) * sizeof(char *));
    for (int i = 0; i < n; i++) {
        size_t len;
        g_path = paths[i];
        char *text = lttpc_read_file(paths[i], &len);
        g_nlines = g_next = 0;
        split_lines(text, len);
        if (!next_statement() || strcmp(g_words[0], "case") != 0 || g_nwords != 2)
            die(g_line, "the first statement must be `case <name>`");
        idents[i] = ident_of(g_words[1]);
    }
    printf("/* Generated by impl/lttp-c/gen --table: do not edit. */\n#include \"lttpc.h\"\n\n");
    for (int i = 0; i < n; i++)
        printf("extern const struct lttpc_case lttpc_case_%s;\n", idents[i]);
    printf("\nconst struct lttpc_case *const lttpc_cases[] = {\n");
    for (int i = 0; i < n; i++)
        printf("    &lttpc_case_%s,\n", idents[i]);
    printf("    NULL,\n};\n");
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--table") == 0)
        return gen_table(argc - 2, argv + 2);
    if (argc != 5) {
        fprintf(stderr, "usage: gen TYPES_TXT TraceLoggingProvider.h FILE.events OUTDIR | "
                        "gen --table FILE.events...\n");
        return 2;
    }
    return gen_case(argv[1], argv[2], argv[3], argv[4]);
}
