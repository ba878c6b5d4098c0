// SPDX-License-Identifier: GPL-2.0
/*
 * impl/lttp-c/gen: turns a case description (Documentation/case-descriptions.md) into C
 * code that writes its events through microsoft/LinuxTracepoints' C macro API.
 *
 *   gen HEADER FILE.events OUTDIR      writes the C files of one case: OUTDIR/<case>.c
 *                                      (gencase.h's struct gencase_case gencase_case_<case>, its
 *                                      providers and tables) and OUTDIR/<case>_<n>.c (the
 *                                      event functions, EVENTS_PER_FILE a file)
 *   gen --table FILE.events...         prints the table of the cases (gencase_cases[])
 *
 * The description is read by libdesc (emitlib/c/desc.h), the parser ehconf's own emitter
 * links too: a `repeat` comes unrolled, one function per repetition's event. HEADER is the
 * checkout's TraceLoggingProvider.h, read only to cite its lines in the reasons of what it
 * cannot express. A description libdesc refuses: its `file:line: reason` on stderr, exit 2.
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

#include "desc.h"
#include "textmatch.h"

#define MAX_ARGS        99 /* TraceLoggingWrite: _tlg_NARGS counts to 99 */
#define EVENTS_PER_FILE 500

/* ---- small utilities ------------------------------------------------------------------ */

static char const *g_path = "";

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

/* A u16 (a count) as the target lays it out: big-endian or little-endian. */
static void bytes_u16(struct bytes *b, size_t v, int big)
{
    unsigned char lo = (unsigned char)(v & 0xff), hi = (unsigned char)(v >> 8);
    unsigned char out[2] = {big ? hi : lo, big ? lo : hi};
    bytes_add(b, out, 2);
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

/* ---- the description, as libdesc parsed it ------------------------------------------ */

static struct desc g_desc;

/* The index of a provider of g_desc. */
static int provider_index(struct desc_provider const *p)
{
    for (uint32_t i = 0; i < g_desc.n_providers; i++)
        if (g_desc.providers[i] == p)
            return (int)i;
    return -1;
}

/* The elements of a field: each value, or a string's code units, one per element. */
static uint32_t n_values(struct desc_field const *f)
{
    return f->kind == DESC_STRING ? 1 : f->count;
}

static struct bytes value_at(struct desc_field const *f, uint32_t i)
{
    struct bytes b = {(unsigned char *)f->data, f->size};
    if (f->kind != DESC_STRING) {
        b.p += (size_t)i * f->unit;
        b.n = f->unit;
    }
    return b;
}

static int is_varray(struct desc_field const *f)
{
    return f->kind == DESC_VARRAY;
}

static int is_carray(struct desc_field const *f)
{
    return f->kind == DESC_CARRAY;
}

/* An array of structs: the members of element e (the shape's when there is none). */
static struct desc_field const *element(struct desc_field const *f, uint32_t e, uint32_t *n)
{
    *n = f->members[e].n_members;
    return f->members[e].members;
}

enum { S_REGISTER, S_UNREGISTER, S_EVENT, S_THREADS, S_THREAD, S_FORK, S_PARENT, S_END };
static char const *const STEP_NAMES[] = {"GENCASE_REGISTER", "GENCASE_UNREGISTER", "GENCASE_EVENT",
                                         "GENCASE_THREADS",  "GENCASE_THREAD",     "GENCASE_FORK",
                                         "GENCASE_PARENT",   "GENCASE_END"};

/* The flat step list of gencase.h: a block's steps, then its END. */
struct step {
    int kind, line, arg;
};
static struct step *g_steps;
static size_t g_nsteps;
static struct desc_event const **g_events; /* [ordinal - 1] */

static void add_step(int kind, int line, int arg)
{
    g_steps = xrealloc(g_steps, (g_nsteps + 1) * sizeof(*g_steps));
    g_steps[g_nsteps].kind = kind;
    g_steps[g_nsteps].line = line;
    g_steps[g_nsteps].arg = arg;
    g_nsteps++;
}

static void flatten(struct desc_block const *b)
{
    for (uint32_t i = 0; i < b->n_steps; i++) {
        struct desc_step const *s = &b->steps[i];
        int line = (int)s->line;
        switch (s->kind) {
        case DESC_STEP_EVENT:
            g_events[s->event->ordinal - 1] = s->event;
            add_step(S_EVENT, line, (int)s->event->ordinal);
            break;
        case DESC_STEP_REGISTER:
        case DESC_STEP_UNREGISTER:
            add_step(s->kind == DESC_STEP_REGISTER ? S_REGISTER : S_UNREGISTER, line,
                     provider_index(s->provider));
            break;
        case DESC_STEP_THREADS:
            add_step(S_THREADS, line, 0);
            for (uint32_t t = 0; t < s->n_blocks; t++) {
                add_step(S_THREAD, line, 0);
                flatten(&s->blocks[t]);
                add_step(S_END, line, 0);
            }
            add_step(S_END, line, 0);
            break;
        case DESC_STEP_FORK:
            add_step(S_FORK, line, 0);
            flatten(&s->blocks[0]);
            if (s->blocks[1].n_steps) {
                add_step(S_PARENT, line, 0);
                flatten(&s->blocks[1]);
            }
            add_step(S_END, line, 0);
            break;
        }
    }
}

static void read_description(char const *path)
{
    char err[1024];
    if (desc_parse(path, &g_desc, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        exit(2);
    }
    g_path = path;
    g_events = xrealloc(NULL, (g_desc.n_events + 1) * sizeof(*g_events));
    flatten(&g_desc.main);
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

/* The number a value's bytes hold: libdesc keeps them in this machine's order (desc.h),
 * and the generated code writes it as a C literal, right for any target. */
static uint64_t number(struct bytes const *b)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (b->n) {
    case 1: memcpy(&u8, b->p, 1); return u8;
    case 2: memcpy(&u16, b->p, 2); return u16;
    case 4: memcpy(&u32, b->p, 4); return u32;
    default: memcpy(&u64, b->p, b->n < 8 ? b->n : 8); return u64;
    }
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

static void printable_name(char *out, size_t size, char const *name)
{
    size_t o = 0;
    for (size_t i = 0; name[i] && o + 5 < size; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c > 0x20 && c < 0x7f && c != '%')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "%%%02X", c);
    }
    if (!name[0] && size > 1)
        out[o++] = '-';
    out[o] = '\0';
}

/* Array k of the given unit size holding bytes b (numbers: as number() reads them).
 * Aligned for any unit: a byte array is passed where a macro takes uint16_t or uint32_t
 * values whose bytes are in a fixed order (ports, IPv4 addresses). */
static void gen_array(struct gen *g, int k, struct bytes const *b, size_t unit)
{
    sb_printf(&g->decls, "    static const _Alignas(8) %s d%d[] = {", uint_type(unit), k);
    if (!b->n)
        sb_add(&g->decls, "0", 1);
    for (size_t i = 0; i < b->n; i += unit) {
        struct bytes one = {b->p + i, unit};
        sb_printf(&g->decls, "%s0x%llx", i ? "," : "", (unsigned long long)number(&one));
        if ((i / unit) % 16 == 15 && i + unit < b->n)
            sb_add(&g->decls, "\n        ", 9);
    }
    sb_add(&g->decls, "};\n", 3);
}

/* Declares a static array of the given unit size holding bytes b; returns its number. */
static int gen_data(struct gen *g, struct bytes const *b, size_t unit)
{
    int k = ++g->ndata;
    gen_array(g, k, b, unit);
    return k;
}

/* Declares the bytes of a payload as the target machine lays them out: le on a
 * little-endian one, be on a big-endian one (one array when they are the same); returns
 * its number. The generated file builds for either. */
static int gen_layouts(struct gen *g, struct bytes const *le, struct bytes const *be)
{
    if (le->n == be->n && (!le->n || memcmp(le->p, be->p, le->n) == 0))
        return gen_data(g, le, 1);
    int k = ++g->ndata;
    sb_printf(&g->decls, "#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n");
    gen_array(g, k, be, 1);
    sb_printf(&g->decls, "#else\n");
    gen_array(g, k, le, 1);
    sb_printf(&g->decls, "#endif\n");
    return k;
}

/* f's data in the target's byte order (big or not): a copy to free, each number reversed
 * where this machine's order differs (desc_order_unit: fixed-order bytes stay). */
static unsigned char *target_data(struct desc_field const *f, int big)
{
    unsigned char *t = xrealloc(NULL, f->size + 1);
    if (f->size)
        memcpy(t, f->data, f->size);
    if (big != DESC_BIG_ENDIAN)
        desc_reverse_units(f, t);
    return t;
}

/* `, "name"` or `, "name", "", 0xTAG` */
static void name_tag(struct sb *s, char const *name, unsigned tag)
{
    sb_add(s, ", ", 2);
    sb_cstr(s, name);
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

/* The payload bytes of a field as the wire has them on a big-endian target (big) or a
 * little-endian one: counts and numbers in its order. */
static void serialize(struct bytes *out, struct desc_field const *f, int big)
{
    if (f->kind == DESC_STRUCT) {
        for (size_t i = 0; i < f->n_members; i++)
            serialize(out, &f->members[i], big);
        return;
    }
    if (f->kind == DESC_STRUCT_SLICE) {
        bytes_u16(out, f->count, big);
        for (uint32_t e = 0; e < f->count; e++) {
            uint32_t n;
            struct desc_field const *m = element(f, e, &n);
            for (size_t i = 0; i < n; i++)
                serialize(out, &m[i], big);
        }
        return;
    }
    if (is_varray(f))
        bytes_u16(out, f->count, big);
    struct desc_field target = *f;
    target.data = target_data(f, big);
    for (uint32_t i = 0; i < n_values(f); i++) {
        struct bytes v = value_at(&target, i);
        size_t unit = unit_size(f->encoding);
        if (f->encoding >= E_S8 && f->encoding <= E_B8)
            bytes_u16(out, v.n / unit, big);
        bytes_add(out, v.p, v.n);
        if (f->encoding >= E_Z8 && f->encoding <= E_Z32) {
            unsigned char zero[4] = {0, 0, 0, 0};
            bytes_add(out, zero, unit);
        }
    }
    free((void *)target.data);
}

/* Declares f's payload bytes for either target; returns the array's number. */
static int gen_payload(struct gen *g, struct desc_field const *f, size_t *n)
{
    struct bytes le = {NULL, 0}, be = {NULL, 0};
    serialize(&le, f, 0);
    serialize(&be, f, 1);
    int k = gen_layouts(g, &le, &be);
    *n = le.n;
    free(le.p);
    free(be.p);
    return k;
}

/* The end of a TraceLoggingPacked{Field,Metadata}[Ex] argument: its encoding, its format
 * when the Ex form takes one, its name and tag, the closing parenthesis. */
static void packed_tail(struct gen *g, struct desc_field const *f)
{
    enc_expr(&g->args, f->encoding, is_varray(f));
    if (f->format) {
        sb_add(&g->args, ", ", 2);
        fmt_expr(&g->args, f->format);
    }
    name_tag(&g->args, f->name, f->tag);
    sb_add(&g->args, ")", 1);
}

static void packed_field(struct gen *g, struct desc_field const *f)
{
    size_t n;
    int k = gen_payload(g, f, &n);
    begin_arg(g);
    sb_printf(&g->args, "TraceLoggingPackedField%s(d%d, %zu, ", f->format ? "Ex" : "", k, n);
    packed_tail(g, f);
}

static void gen_metadata(struct gen *g, struct desc_field const *f, char const *where);

static void gen_field(struct gen *g, struct desc_field const *f)
{
    char name[600];
    printable_name(name, sizeof(name), f->name);
    if (f->kind == DESC_STRUCT) {
        if (!f->n_members) {
            gen_problem(g,
                        "TraceLoggingStruct cannot write a struct without members: its "
                        "fieldCount must be 1 to 127 (static assert `TraceLoggingStruct "
                        "fieldCount must be greater than 0.`, TraceLoggingProvider.h:%d): "
                        "struct %s",
                        header_line("TraceLoggingStruct fieldCount must be greater than 0"), name);
            return;
        }
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingStruct(%u", f->n_members);
        name_tag(&g->args, f->name, f->tag);
        sb_add(&g->args, ")", 1);
        for (size_t i = 0; i < f->n_members; i++)
            gen_field(g, &f->members[i]);
        return;
    }
    if (f->kind == DESC_STRUCT_SLICE) {
        /* The header's array-of-structs recipe: the count and the elements' bytes as
           TraceLoggingPackedData, the shape as TraceLoggingPackedStructArray + metadata. */
        size_t n;
        int k = gen_payload(g, f, &n);
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingPackedData(d%d, %zu)", k, n);
        gen_metadata(g, f, name);
        return;
    }
    struct vmacro const *m = is_value(f->encoding) ? find_vmacro(f->encoding, f->format) : NULL;
    size_t unit = unit_size(f->encoding);
    struct bytes first = value_at(f, 0);
    if (m && f->encoding == E_V128 && f->kind == DESC_VALUE) {
        int k = gen_data(g, &first, 1);
        begin_arg(g);
        sb_printf(&g->args, "TraceLogging%s(d%d", m->name, k);
    } else if (m && f->kind == DESC_VALUE && unit > 1 && !desc_order_unit(f)) {
        /* a port or an IPv4 address: bytes in network order, whatever the target's */
        int k = gen_data(g, &first, 1);
        begin_arg(g);
        sb_printf(&g->args, "TraceLogging%s(gencase_u%zu_at(d%d)", m->name, unit * 8, k);
    } else if (m && f->kind == DESC_VALUE) {
        begin_arg(g);
        uint64_t v = number(&first);
        if (strcmp(m->ctype, "float") == 0)
            sb_printf(&g->args, "TraceLogging%s(gencase_f32(UINT32_C(0x%llx))", m->name,
                      (unsigned long long)v);
        else if (strcmp(m->ctype, "double") == 0)
            sb_printf(&g->args, "TraceLogging%s(gencase_f64(UINT64_C(0x%llx))", m->name,
                      (unsigned long long)v);
        else
            sb_printf(&g->args, "TraceLogging%s((%s)UINT%zu_C(0x%llx)", m->name, m->ctype, unit * 8,
                      (unsigned long long)v);
    } else if (m && m->arrays) {
        struct bytes all = {(unsigned char *)f->data, f->size};
        /* numbers as literals; fixed-order values (ports) as their bytes */
        int k = gen_data(g, &all, desc_order_unit(f) ? unit : 1);
        begin_arg(g);
        sb_printf(&g->args, "TraceLogging%s%s((%s const *)(void const *)d%d, %u", m->name,
                  is_carray(f) ? "FixedArray" : "Array", m->ctype, k, f->count);
    } else if (is_carray(f)) {
        char what[80];
        snprintf(what, sizeof(what), "%s + %s", ENC_NAMES[f->encoding],
                 (size_t)f->format < NFMT ? FMT_NAMES[f->format] : "format 0x..");
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
    } else if (f->kind == DESC_STRING) {
        struct bytes const *v = &first;
        char const *counted = NULL, *zstring = NULL, *ctype = "char";
        int binary_fmt = -1;
        switch (f->encoding) {
        case E_S8:
            if (f->format == 0)
                counted = "CountedUtf8String";
            else if (f->format == 10)
                counted = "CountedString";
            else
                binary_fmt = f->format; /* TraceLoggingBinary(Ex): length16_char8 + format */
            break;
        case E_S16: counted = f->format ? NULL : "CountedString16", ctype = "char16_t"; break;
        case E_S32: counted = f->format ? NULL : "CountedString32", ctype = "char32_t"; break;
        case E_Z8:
            zstring = f->format == 0 ? "Utf8String" : f->format == 10 ? "String" : NULL;
            break;
        case E_Z16: zstring = f->format ? NULL : "String16", ctype = "char16_t"; break;
        case E_Z32: zstring = f->format ? NULL : "String32", ctype = "char32_t"; break;
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
            /* a counted number (decoder-json.md §4.12) is in the target's order */
            struct bytes le = {target_data(f, 0), v->n}, be = {target_data(f, 1), v->n};
            int k = gen_layouts(g, &le, &be);
            free(le.p);
            free(be.p);
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
    name_tag(&g->args, f->name, f->tag);
    sb_add(&g->args, ")", 1);
}

/* The metadata of an array of structs' shape: TraceLoggingPacked* macros only. */
static void gen_metadata(struct gen *g, struct desc_field const *f, char const *where)
{
    char name[600];
    printable_name(name, sizeof(name), f->name);
    if (f->kind == DESC_STRUCT || f->kind == DESC_STRUCT_SLICE) {
        uint32_t n = f->n_members;
        struct desc_field const *members =
            f->kind == DESC_STRUCT_SLICE ? element(f, 0, &n) : f->members;
        if (!n) {
            gen_problem(g,
                        "TraceLoggingPackedStruct cannot write a struct without members "
                        "(static assert, TraceLoggingProvider.h:%d): struct %s in %s",
                        header_line("TraceLoggingStruct fieldCount must be greater than 0"), name,
                        where);
            return;
        }
        begin_arg(g);
        sb_printf(&g->args, "TraceLoggingPacked%s(%u",
                  f->kind == DESC_STRUCT_SLICE ? "StructArray" : "Struct", n);
        name_tag(&g->args, f->name, f->tag);
        sb_add(&g->args, ")", 1);
        for (size_t i = 0; i < n; i++)
            gen_metadata(g, &members[i], where);
        return;
    }
    if (is_carray(f)) {
        gen_problem(g,
                    "TraceLoggingPackedMetadata refuses the carray flag (static assert "
                    "`Invalid packed metadata encoding`, TraceLoggingProvider.h:%d) and has no "
                    "element count: constant-length array %s in the array of structs %s",
                    header_line("#define _tlg_AssertValidPackedMetadataEncoding"), name, where);
        return;
    }
    begin_arg(g);
    sb_printf(&g->args, "TraceLoggingPackedMetadata%s(", f->format ? "Ex" : "");
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

/* A provider as its `provider` statement writes it: "<name>[ group=<group>]". */
static char *provider_token(struct desc_provider const *p)
{
    size_t n = 3 * strlen(p->name) + 2 + (p->group ? 3 * strlen(p->group) + 9 : 0);
    char *out = xrealloc(NULL, n);
    desc_name_token(p->name, out, n);
    if (p->group) {
        strcat(out, " group=");
        desc_name_token(p->group, out + strlen(out), n - strlen(out));
    }
    return out;
}

/* Why TRACELOGGING_DEFINE_PROVIDER cannot define this provider ("" if it can). */
static void provider_problem(struct desc_provider const *p, char *out, size_t size)
{
    size_t name_len = strlen(p->name), group_len = p->group ? strlen(p->group) : 0;
    out[0] = '\0';
    for (size_t i = 0; i < name_len; i++)
        if (p->name[i] == ' ' || p->name[i] == ':') {
            snprintf(out, size,
                     "TRACELOGGING_DEFINE_PROVIDER: the name may not contain ' ' or "
                     "':' (TraceLoggingProvider.h:%d)",
                     header_line("contains no ' '"));
            return;
        }
    /* sizeof("" providerName "_LnnKnnnnnnnnnnnnnnnn" "G" group) <= EVENTHEADER_NAME_MAX */
    size_t size_of = name_len + 21 + (group_len ? 1 + group_len : 0) + 1;
    if (size_of > 256)
        snprintf(out, size,
                 "TRACELOGGING_DEFINE_PROVIDER refuses the name at compile time: "
                 "name + \"_LnnKnnnnnnnnnnnnnnnn\" + options take %zu bytes, more than "
                 "EVENTHEADER_NAME_MAX (256) (static assert, TraceLoggingProvider.h:%d)",
                 size_of,
                 header_line("TRACELOGGING_DEFINE_PROVIDER providerName + options is too long"));
}

static void gen_event(FILE *out, struct desc_event const *ev, char const *const *unusable,
                      char const *const *tokens)
{
    struct gen g;
    memset(&g, 0, sizeof(g));
    char sym[256];
    int provider = provider_index(ev->provider);
    snprintf(sym, sizeof(sym), "gencase_%s_p%d", g_ident, provider);
    if (unusable[provider][0])
        gen_problem(&g, "provider %s: %s", tokens[provider], unusable[provider]);
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
    for (size_t i = 0; i < ev->n_fields; i++)
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
    fprintf(out, "\n/* event %u, line %u */\nint gencase_%s_e%u(char const **call)\n{\n",
            ev->ordinal, ev->line, g_ident, ev->ordinal);
    if (g.problem) {
        struct sb why = {NULL, 0, 0};
        sb_cstr(&why, g.problem);
        fprintf(out, "    *call = %s;\n    return -1;\n}\n", why.p);
        free(why.p);
    } else {
        struct sb name = {NULL, 0, 0};
        sb_cstr(&name, ev->name);
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
    struct gencase_item *p;
    size_t n;
};

static void collect_item(void *ctx, struct gencase_item const *item)
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

/* The ordinals an event item of the text stands for: the events of its line, one or one per
 * repetition of a repeat, at a constant distance. */
static void item_ordinals(struct gencase_item *it)
{
    it->first = it->count = it->stride = 0;
    for (uint32_t o = 1; o <= g_desc.n_events; o++) {
        if ((int)g_events[o - 1]->line != it->line)
            continue;
        if (it->count == 1)
            it->stride = (int)o - it->first;
        if (!it->count++)
            it->first = (int)o;
    }
}

static int gen_case(char const *header, char const *path, char const *outdir)
{
    g_header = gencase_read_file(header, &g_header_len);
    read_description(path);
    size_t len, nevents = g_desc.n_events, nproviders = g_desc.n_providers;
    char *text = gencase_read_file(path, &len);
    char case_token[1024];
    char const *g_case = desc_name_token(g_desc.case_name, case_token, sizeof(case_token));
    g_ident = ident_of(g_case);

    struct items items = {NULL, 0};
    int open = gencase_items(text, len, collect_item, &items);
    if (open) {
        fprintf(stderr, "%s:%d: an event without `end`\n", path, open);
        exit(2);
    }

    char main_path[4096];
    FILE *out = open_out(outdir, g_ident, "", main_path, sizeof(main_path));
    fprintf(out,
            "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
            "   Case %s: %zu events (their functions in %s_<n>.c, %d a file), %zu providers, "
            "%zu steps. */\n"
            "#include \"gencase.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
            path, g_case, nevents, g_ident, EVENTS_PER_FILE, nproviders, g_nsteps);
    char **unusable = xrealloc(NULL, (nproviders + 1) * sizeof(char *));
    char **tokens = xrealloc(NULL, (nproviders + 1) * sizeof(char *));
    for (size_t i = 0; i < nproviders; i++) {
        struct desc_provider const *p = g_desc.providers[i];
        tokens[i] = provider_token(p);
        unusable[i] = xrealloc(NULL, 1024);
        provider_problem(p, unusable[i], 1024);
        if (unusable[i][0]) {
            fprintf(out, "/* provider %zu, %s: not defined: %s */\n", i, tokens[i], unusable[i]);
            continue;
        }
        struct sb name = {NULL, 0, 0}, group = {NULL, 0, 0};
        sb_cstr(&name, p->name);
        fprintf(out,
                "TRACELOGGING_DEFINE_PROVIDER(gencase_%s_p%zu, %s,\n"
                "    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
                g_ident, i, name.p);
        if (p->group && p->group[0]) {
            sb_cstr(&group, p->group);
            fprintf(out, ", TraceLoggingOptionGroupName(%s)", group.p);
        }
        fprintf(
            out,
            ");\nstatic int gencase_reg%zu(void)\n{\n    return "
            "TraceLoggingRegister(gencase_%s_p%zu);\n}\n"
            "static int gencase_unreg%zu(void)\n{\n    TraceLoggingUnregister(gencase_%s_p%zu);\n  "
            "  return 0;\n}\n",
            i, g_ident, i, i, g_ident, i);
        free(name.p);
        free(group.p);
    }
    /* The events in files of EVENTS_PER_FILE: the preprocessor spends milliseconds on each
       TraceLoggingWrite, so a case of thousands compiles in parallel. They use the provider
       as another file of a program does: TRACELOGGING_DECLARE_PROVIDER. */
    int status = 0;
    for (size_t first = 0; first < nevents; first += EVENTS_PER_FILE) {
        char part_path[4096], suffix[32];
        snprintf(suffix, sizeof(suffix), "_%zu", first / EVENTS_PER_FILE);
        FILE *part = open_out(outdir, g_ident, suffix, part_path, sizeof(part_path));
        fprintf(part,
                "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
                "   Case %s, events %zu to %zu. */\n"
                "#include \"gencase.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
                path, g_case, first + 1,
                first + EVENTS_PER_FILE < nevents ? first + EVENTS_PER_FILE : nevents);
        for (size_t i = 0; i < nproviders; i++)
            if (!unusable[i][0])
                fprintf(part, "TRACELOGGING_DECLARE_PROVIDER(gencase_%s_p%zu);\n", g_ident, i);
        for (size_t i = first; i < nevents && i < first + EVENTS_PER_FILE; i++)
            gen_event(part, g_events[i], (char const *const *)unusable,
                      (char const *const *)tokens);
        status |= close_out(part, part_path);
    }
    fprintf(out, "\n");
    for (size_t i = 0; i < nevents; i++)
        fprintf(out, "int gencase_%s_e%zu(char const **call);\n", g_ident, i + 1);

    fprintf(out, "\nstatic const struct gencase_provider gencase_providers[] = {\n");
    for (size_t i = 0; i < nproviders; i++) {
        struct sb token = {NULL, 0, 0}, group = {NULL, 0, 0};
        sb_cstr(&token, tokens[i]);
        sb_cstr(&group, g_desc.providers[i]->group ? g_desc.providers[i]->group : "");
        if (unusable[i][0])
            fprintf(out, "    {%s, %s, NULL, NULL},\n", token.p, group.p);
        else
            fprintf(out, "    {%s, %s, gencase_reg%zu, gencase_unreg%zu},\n", token.p, group.p, i,
                    i);
        free(token.p);
        free(group.p);
    }
    if (!nproviders)
        fprintf(out, "    {\"\", \"\", NULL, NULL},\n");
    fprintf(out, "};\n\nstatic const gencase_event_fn gencase_events[] = {");
    for (size_t i = 0; i < nevents; i++)
        fprintf(out, "%sgencase_%s_e%zu",
                i == 0  ? "\n    "
                : i % 6 ? ", "
                        : ",\n    ",
                g_ident, i + 1);
    if (!nevents)
        fprintf(out, "NULL");
    fprintf(out, "\n};\n\nstatic const struct gencase_step gencase_steps[] = {\n");
    for (size_t i = 0; i < g_nsteps; i++)
        fprintf(out, "    {%s, %d, %d},\n", STEP_NAMES[g_steps[i].kind], g_steps[i].line,
                g_steps[i].arg);
    if (!g_nsteps)
        fprintf(out, "    {GENCASE_END, 0, 0},\n");
    fprintf(out, "};\n\nstatic const struct gencase_item gencase_items_[] = {\n");
    for (size_t i = 0; i < items.n; i++) {
        if (items.p[i].is_event)
            item_ordinals(&items.p[i]);
        fprintf(out, "    {%d, %d, UINT64_C(0x%016llx), %d, %d, %d},\n", items.p[i].is_event,
                items.p[i].line, (unsigned long long)items.p[i].hash, items.p[i].first,
                items.p[i].count, items.p[i].stride);
    }
    struct sb cname = {NULL, 0, 0}, cpath = {NULL, 0, 0};
    sb_cstr(&cname, g_case);
    sb_cstr(&cpath, path);
    fprintf(out,
            "};\n\nconst struct gencase_case gencase_case_%s = {\n"
            "    %s, %s,\n    gencase_items_, %zu,\n    gencase_steps, %zu,\n"
            "    gencase_providers, %zu,\n    gencase_events, %zu,\n};\n",
            g_ident, cname.p, cpath.p, items.n, g_nsteps, nproviders, nevents);
    return status | close_out(out, main_path);
}

/* gen --table FILE...: the case table, from each file's `case` statement. */
static int gen_table(int n, char **paths)
{
    char **idents = xrealloc(NULL, (size_t)(n + 1) * sizeof(char *));
    for (int i = 0; i < n; i++) {
        struct desc d;
        char err[1024], token[1024];
        if (desc_parse(paths[i], &d, err, sizeof(err))) {
            fprintf(stderr, "%s\n", err);
            exit(2);
        }
        idents[i] = ident_of(desc_name_token(d.case_name, token, sizeof(token)));
        desc_free(&d);
    }
    printf("/* Generated by impl/lttp-c/gen --table: do not edit. */\n#include \"gencase.h\"\n\n");
    for (int i = 0; i < n; i++)
        printf("extern const struct gencase_case gencase_case_%s;\n", idents[i]);
    printf("\nconst struct gencase_case *const gencase_cases[] = {\n");
    for (int i = 0; i < n; i++)
        printf("    &gencase_case_%s,\n", idents[i]);
    printf("    NULL,\n};\n");
    printf("\nconst struct gencase_api gencase_api = {\"TraceLoggingRegister\", "
           "\"impl/lttp-c/build\"};\n");
    return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--table") == 0)
        return gen_table(argc - 2, argv + 2);
    if (argc != 4) {
        fprintf(stderr, "usage: gen TraceLoggingProvider.h FILE.events OUTDIR | "
                        "gen --table FILE.events...\n");
        return 2;
    }
    return gen_case(argv[1], argv[2], argv[3]);
}
