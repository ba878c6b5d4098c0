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
#include "gen_common.h"

#define MAX_ARGS        99 /* TraceLoggingWrite: _tlg_NARGS counts to 99 */
#define EVENTS_PER_FILE 500

/* The case being generated. */
static struct gen_source g_src;

/* ---- small utilities ------------------------------------------------------------------ */

struct bytes {
    unsigned char *p;
    size_t n;
};

static void bytes_add(struct bytes *b, void const *p, size_t n)
{
    b->p = gen_xrealloc(b->p, b->n + n);
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
    struct gen_sb decls; /* static data of the event function */
    struct gen_sb args;  /* ",\n        arg" each */
    int nargs;
    int ndata;
    struct gen_reason problem; /* why the event cannot be written */
};

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
    gen_sb_printf(&g->decls, "    static const _Alignas(8) %s d%d[] = {", uint_type(unit), k);
    if (!b->n)
        gen_sb_add(&g->decls, "0", 1);
    for (size_t i = 0; i < b->n; i += unit) {
        struct bytes one = {b->p + i, unit};
        gen_sb_printf(&g->decls, "%s0x%llx", i ? "," : "", (unsigned long long)number(&one));
        if ((i / unit) % 16 == 15 && i + unit < b->n)
            gen_sb_add(&g->decls, "\n        ", 9);
    }
    gen_sb_add(&g->decls, "};\n", 3);
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
    gen_sb_printf(&g->decls, "#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n");
    gen_array(g, k, be, 1);
    gen_sb_printf(&g->decls, "#else\n");
    gen_array(g, k, le, 1);
    gen_sb_printf(&g->decls, "#endif\n");
    return k;
}

/* f's data in the target's byte order (big or not): a copy to free, each number reversed
 * where this machine's order differs (desc_order_unit: fixed-order bytes stay). */
static unsigned char *target_data(struct desc_field const *f, int big)
{
    unsigned char *t = gen_xrealloc(NULL, f->size + 1);
    if (f->size)
        memcpy(t, f->data, f->size);
    if (big != DESC_BIG_ENDIAN)
        desc_reverse_units(f, t);
    return t;
}

/* `, "name"` or `, "name", "", 0xTAG` */
static void name_tag(struct gen_sb *s, char const *name, unsigned tag)
{
    gen_sb_add(s, ", ", 2);
    gen_sb_cstr(s, name);
    if (tag)
        gen_sb_printf(s, ", \"\", 0x%x", tag);
}

static void begin_arg(struct gen *g)
{
    gen_sb_add(&g->args, ",\n        ", 10);
    g->nargs++;
}

static void enc_expr(struct gen_sb *s, int enc, int varray)
{
    gen_sb_printf(s, "event_field_encoding_%s%s", ENC_NAMES[enc],
                  varray ? "|event_field_encoding_varray_flag" : "");
}

static void fmt_expr(struct gen_sb *s, int fmt)
{
    if ((size_t)fmt < NFMT && fmt != 18)
        gen_sb_printf(s, "event_field_format_%s", FMT_NAMES[fmt]);
    else
        gen_sb_printf(s, "(event_field_format)0x%x", fmt);
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
        gen_sb_add(&g->args, ", ", 2);
        fmt_expr(&g->args, f->format);
    }
    name_tag(&g->args, f->name, f->tag);
    gen_sb_add(&g->args, ")", 1);
}

static void packed_field(struct gen *g, struct desc_field const *f)
{
    size_t n;
    int k = gen_payload(g, f, &n);
    begin_arg(g);
    gen_sb_printf(&g->args, "TraceLoggingPackedField%s(d%d, %zu, ", f->format ? "Ex" : "", k, n);
    packed_tail(g, f);
}

static void gen_metadata(struct gen *g, struct desc_field const *f, char const *where);

static void gen_field(struct gen *g, struct desc_field const *f)
{
    char name[600];
    printable_name(name, sizeof(name), f->name);
    if (f->kind == DESC_STRUCT) {
        if (!f->n_members) {
            gen_reason_set(&g->problem,
                           "TraceLoggingStruct cannot write a struct without members: its "
                           "fieldCount must be 1 to 127 (static assert `TraceLoggingStruct "
                           "fieldCount must be greater than 0.`, TraceLoggingProvider.h:%d): "
                           "struct %s",
                           gen_header_line("TraceLoggingStruct fieldCount must be greater than 0"),
                           name);
            return;
        }
        begin_arg(g);
        gen_sb_printf(&g->args, "TraceLoggingStruct(%u", f->n_members);
        name_tag(&g->args, f->name, f->tag);
        gen_sb_add(&g->args, ")", 1);
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
        gen_sb_printf(&g->args, "TraceLoggingPackedData(d%d, %zu)", k, n);
        gen_metadata(g, f, name);
        return;
    }
    struct vmacro const *m = is_value(f->encoding) ? find_vmacro(f->encoding, f->format) : NULL;
    size_t unit = unit_size(f->encoding);
    struct bytes first = value_at(f, 0);
    if (m && f->encoding == E_V128 && f->kind == DESC_VALUE) {
        int k = gen_data(g, &first, 1);
        begin_arg(g);
        gen_sb_printf(&g->args, "TraceLogging%s(d%d", m->name, k);
    } else if (m && f->kind == DESC_VALUE && unit > 1 && !desc_order_unit(f)) {
        /* a port or an IPv4 address: bytes in network order, whatever the target's */
        int k = gen_data(g, &first, 1);
        begin_arg(g);
        gen_sb_printf(&g->args, "TraceLogging%s(gencase_u%zu_at(d%d)", m->name, unit * 8, k);
    } else if (m && f->kind == DESC_VALUE) {
        begin_arg(g);
        uint64_t v = number(&first);
        if (strcmp(m->ctype, "float") == 0)
            gen_sb_printf(&g->args, "TraceLogging%s(gencase_f32(UINT32_C(0x%llx))", m->name,
                          (unsigned long long)v);
        else if (strcmp(m->ctype, "double") == 0)
            gen_sb_printf(&g->args, "TraceLogging%s(gencase_f64(UINT64_C(0x%llx))", m->name,
                          (unsigned long long)v);
        else
            gen_sb_printf(&g->args, "TraceLogging%s((%s)UINT%zu_C(0x%llx)", m->name, m->ctype,
                          unit * 8, (unsigned long long)v);
    } else if (m && m->arrays) {
        struct bytes all = {(unsigned char *)f->data, f->size};
        /* numbers as literals; fixed-order values (ports) as their bytes */
        int k = gen_data(g, &all, desc_order_unit(f) ? unit : 1);
        begin_arg(g);
        gen_sb_printf(&g->args, "TraceLogging%s%s((%s const *)(void const *)d%d, %u", m->name,
                      is_carray(f) ? "FixedArray" : "Array", m->ctype, k, f->count);
    } else if (is_carray(f)) {
        char what[80];
        snprintf(what, sizeof(what), "%s + %s", ENC_NAMES[f->encoding],
                 (size_t)f->format < NFMT ? FMT_NAMES[f->format] : "format 0x..");
        gen_reason_set(&g->problem,
                       "no macro writes a constant-length array of %s: the "
                       "TraceLogging*FixedArray macros (TraceLoggingProvider.h:%d-%d) have no "
                       "such type, and TraceLoggingPackedField refuses the carray flag (static "
                       "assert `Invalid packed metadata encoding`, TraceLoggingProvider.h:%d): "
                       "field %s",
                       what, gen_header_line("#define TraceLoggingInt8FixedArray"),
                       gen_header_line("#define TraceLoggingTime64FixedArray"),
                       gen_header_line("#define _tlg_AssertValidPackedMetadataEncoding"), name);
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
            gen_sb_printf(&g->args, "TraceLogging%s((%s const *)(void const *)d%d, %zu", counted,
                          ctype, k, v->n / unit);
        } else if (zstring) {
            struct bytes z = {NULL, 0};
            unsigned char zero[4] = {0, 0, 0, 0};
            bytes_add(&z, v->p, v->n);
            bytes_add(&z, zero, unit);
            int k = gen_data(g, &z, unit);
            free(z.p);
            begin_arg(g);
            gen_sb_printf(&g->args, "TraceLogging%s((%s const *)(void const *)d%d", zstring, ctype,
                          k);
        } else if (binary_fmt == 9) {
            int k = gen_data(g, v, 1);
            begin_arg(g);
            gen_sb_printf(&g->args, "TraceLoggingBinary(d%d, %zu", k, v->n);
        } else if (binary_fmt >= 0) {
            /* a counted number (decoder-json.md §4.12) is in the target's order */
            struct bytes le = {target_data(f, 0), v->n}, be = {target_data(f, 1), v->n};
            int k = gen_layouts(g, &le, &be);
            free(le.p);
            free(be.p);
            begin_arg(g);
            gen_sb_printf(&g->args, "TraceLoggingBinaryEx(d%d, %zu, ", k, v->n);
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
    gen_sb_add(&g->args, ")", 1);
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
            gen_reason_set(&g->problem,
                           "TraceLoggingPackedStruct cannot write a struct without members "
                           "(static assert, TraceLoggingProvider.h:%d): struct %s in %s",
                           gen_header_line("TraceLoggingStruct fieldCount must be greater than 0"),
                           name, where);
            return;
        }
        begin_arg(g);
        gen_sb_printf(&g->args, "TraceLoggingPacked%s(%u",
                      f->kind == DESC_STRUCT_SLICE ? "StructArray" : "Struct", n);
        name_tag(&g->args, f->name, f->tag);
        gen_sb_add(&g->args, ")", 1);
        for (size_t i = 0; i < n; i++)
            gen_metadata(g, &members[i], where);
        return;
    }
    if (is_carray(f)) {
        gen_reason_set(&g->problem,
                       "TraceLoggingPackedMetadata refuses the carray flag (static assert "
                       "`Invalid packed metadata encoding`, TraceLoggingProvider.h:%d) and has no "
                       "element count: constant-length array %s in the array of structs %s",
                       gen_header_line("#define _tlg_AssertValidPackedMetadataEncoding"), name,
                       where);
        return;
    }
    begin_arg(g);
    gen_sb_printf(&g->args, "TraceLoggingPackedMetadata%s(", f->format ? "Ex" : "");
    packed_tail(g, f);
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
                     gen_header_line("contains no ' '"));
            return;
        }
    /* sizeof("" providerName "_LnnKnnnnnnnnnnnnnnnn" "G" group) <= EVENTHEADER_NAME_MAX */
    size_t size_of = name_len + 21 + (group_len ? 1 + group_len : 0) + 1;
    if (size_of > 256)
        snprintf(
            out, size,
            "TRACELOGGING_DEFINE_PROVIDER refuses the name at compile time: "
            "name + \"_LnnKnnnnnnnnnnnnnnnn\" + options take %zu bytes, more than "
            "EVENTHEADER_NAME_MAX (256) (static assert, TraceLoggingProvider.h:%d)",
            size_of,
            gen_header_line("TRACELOGGING_DEFINE_PROVIDER providerName + options is too long"));
}

static void gen_event(FILE *out, struct desc_event const *ev, char const *const *unusable,
                      char const *const *tokens)
{
    struct gen g;
    memset(&g, 0, sizeof(g));
    char sym[256];
    int provider = gen_provider_index(&g_src, ev->provider);
    snprintf(sym, sizeof(sym), "gencase_%s_p%d", g_src.ident, provider);
    if (unusable[provider][0])
        gen_reason_set(&g.problem, "provider %s: %s", tokens[provider], unusable[provider]);
    if (ev->level != 5) {
        begin_arg(&g);
        gen_sb_printf(&g.args, "TraceLoggingLevel(%u)", ev->level);
    }
    if (ev->keyword) {
        begin_arg(&g);
        gen_sb_printf(&g.args, "TraceLoggingKeyword(UINT64_C(0x%llx))",
                      (unsigned long long)ev->keyword);
    }
    if (ev->opcode) {
        begin_arg(&g);
        gen_sb_printf(&g.args, "TraceLoggingOpcode(%u)", ev->opcode);
    }
    if (ev->tag) {
        begin_arg(&g);
        gen_sb_printf(&g.args, "TraceLoggingEventTag(0x%x)", ev->tag);
    }
    if (ev->id || ev->version) {
        begin_arg(&g);
        gen_sb_printf(&g.args, "TraceLoggingIdVersion(%u, %u)", ev->id, ev->version);
    }
    for (size_t i = 0; i < ev->n_fields; i++)
        gen_field(&g, &ev->fields[i]);
    if (ev->has_related && !ev->has_activity)
        gen_reason_set(&g.problem,
                       "TraceLoggingWriteActivity requires pRelatedActivityId to be NULL when "
                       "pActivityId is (eventheader_write asserts it)");
    if (g.nargs > MAX_ARGS)
        gen_reason_set(&g.problem,
                       "TraceLoggingWrite takes at most %d arguments (TraceLoggingProvider.h:%d: "
                       "\"Supports up to 99 args\"; _tlg_NARGS counts to 99, "
                       "TraceLoggingProvider.h:%d): this event needs %d (its fields, struct "
                       "members included, and its level/keyword/opcode/tag/id options)",
                       MAX_ARGS, gen_header_line("Supports up to 99 args"),
                       gen_header_line("99, 98, 97, 96"), g.nargs);
    fprintf(out, "\n/* event %u, line %u */\nint gencase_%s_e%u(char const **call)\n{\n",
            ev->ordinal, ev->line, g_src.ident, ev->ordinal);
    if (g.problem.why) {
        struct gen_sb why = {0};
        gen_sb_cstr(&why, g.problem.why);
        fprintf(out, "    *call = %s;\n    return -1;\n}\n", why.p);
        free(why.p);
    } else {
        struct gen_sb name = {0};
        gen_sb_cstr(&name, ev->name);
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

static int gen_case(char const *header, char const *path, char const *outdir)
{
    gen_header_load(header);
    gen_source_load(&g_src, path);
    size_t nevents = g_src.desc.n_events, nproviders = g_src.desc.n_providers;
    char const *g_case = g_src.name;

    char main_path[4096];
    FILE *out = gen_open_out(&g_src, outdir, "", main_path, sizeof(main_path));
    fprintf(out,
            "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
            "   Case %s: %zu events (their functions in %s_<n>.c, %d a file), %zu providers, "
            "%zu steps. */\n"
            "#include \"gencase.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
            path, g_case, nevents, g_src.ident, EVENTS_PER_FILE, nproviders, g_src.nsteps);
    char **unusable = gen_xrealloc(NULL, (nproviders + 1) * sizeof(char *));
    char **tokens = gen_xrealloc(NULL, (nproviders + 1) * sizeof(char *));
    for (size_t i = 0; i < nproviders; i++) {
        struct desc_provider const *p = g_src.desc.providers[i];
        tokens[i] = gen_provider_token(p);
        unusable[i] = gen_xrealloc(NULL, 1024);
        provider_problem(p, unusable[i], 1024);
        if (unusable[i][0]) {
            fprintf(out, "/* provider %zu, %s: not defined: %s */\n", i, tokens[i], unusable[i]);
            continue;
        }
        struct gen_sb name = {0}, group = {0};
        gen_sb_cstr(&name, p->name);
        fprintf(out,
                "TRACELOGGING_DEFINE_PROVIDER(gencase_%s_p%zu, %s,\n"
                "    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
                g_src.ident, i, name.p);
        if (p->group && p->group[0]) {
            gen_sb_cstr(&group, p->group);
            fprintf(out, ", TraceLoggingOptionGroupName(%s)", group.p);
        }
        fprintf(
            out,
            ");\nstatic int gencase_reg%zu(void)\n{\n    return "
            "TraceLoggingRegister(gencase_%s_p%zu);\n}\n"
            "static int gencase_unreg%zu(void)\n{\n    TraceLoggingUnregister(gencase_%s_p%zu);\n  "
            "  return 0;\n}\n",
            i, g_src.ident, i, i, g_src.ident, i);
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
        FILE *part = gen_open_out(&g_src, outdir, suffix, part_path, sizeof(part_path));
        fprintf(part,
                "/* Generated by impl/lttp-c/gen from %s: do not edit.\n"
                "   Case %s, events %zu to %zu. */\n"
                "#include \"gencase.h\"\n#include <eventheader/TraceLoggingProvider.h>\n\n",
                path, g_case, first + 1,
                first + EVENTS_PER_FILE < nevents ? first + EVENTS_PER_FILE : nevents);
        for (size_t i = 0; i < nproviders; i++)
            if (!unusable[i][0])
                fprintf(part, "TRACELOGGING_DECLARE_PROVIDER(gencase_%s_p%zu);\n", g_src.ident, i);
        for (size_t i = first; i < nevents && i < first + EVENTS_PER_FILE; i++)
            gen_event(part, g_src.events[i], (char const *const *)unusable,
                      (char const *const *)tokens);
        status |= gen_close_out(part, part_path);
    }
    unsigned char *usable = gen_xrealloc(NULL, nproviders + 1);
    for (size_t i = 0; i < nproviders; i++)
        usable[i] = !unusable[i][0];
    gen_source_tables(out, &g_src, "gencase", usable);
    free(usable);
    return status | gen_close_out(out, main_path);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--table") == 0)
        return gen_cases_table(argc - 2, argv + 2, "impl/lttp-c/gen", "#include \"gencase.h\"",
                               &(struct gencase_api){"TraceLoggingRegister", "impl/lttp-c/build"});
    if (argc != 4) {
        fprintf(stderr, "usage: gen TraceLoggingProvider.h FILE.events OUTDIR | "
                        "gen --table FILE.events...\n");
        return 2;
    }
    return gen_case(argv[1], argv[2], argv[3]);
}
