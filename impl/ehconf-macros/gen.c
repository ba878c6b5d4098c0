// SPDX-License-Identifier: GPL-2.0
/*
 * impl/ehconf-macros/gen: turns a case description (Documentation/case-descriptions.md)
 * into C code that writes its events through ehconf's own static macros (eventheader.h:
 * EH_DEFINE_PROVIDER, eh_provider_register, EH_WRITE with the EH_<T> field macros), the
 * way impl/lttp-c/gen does for LinuxTracepoints' TraceLoggingWrite.
 *
 *   gen EVENTHEADER_H FILE.events OUTDIR   the C files of one case: OUTDIR/<case>.c (the
 *                                          providers, the tables of emitlib/gencase/gencase.h)
 *                                          and OUTDIR/<case>_<n>.c (the event functions,
 *                                          EVENTS_PER_FILE a file)
 *   gen --table FILE.events...             prints the table of the cases (gencase_cases[])
 *
 * Which macro writes a field comes from the library's own type table (eh_field_types.def of
 * the checkout, compiled in through its X-macros): the first row of the field's encoding and
 * format, as a user picks EH_U16 or EH_STR8_JSON; a format no row has is the first row of the
 * encoding with EH_FORMAT(f), the header's override. An array of structs is EH_STRUCT_ARRAY
 * over a C struct when its members are fixed-size values, else the header's raw items
 * (EH_RAW_STRUCT_SLICE, EH_RAW_META, EH_RAW_DATA), as is a zero-terminated string holding a
 * NUL (EH_CSTR* measures up to the first). What no macro can write is generated as a skip with
 * the reason and eventheader.h's line.
 *
 * Byte order: this program runs on the build machine, which may not be the emitter's
 * (EHCONF_CROSS_ARCH). libdesc hands it the description's numbers in the build machine's
 * order, and every number goes into the generated code as a C value (a literal, or an element
 * of a typed array), which the target's compiler lays out in the target's order; only bytes
 * whose order the format fixes (uuids, addresses, ports, hex_bytes, char8) are written as
 * bytes. Which is which is libdesc's rule, desc_order_unit (emitlib/c/desc_order.c), the one
 * every C emitter follows.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <eventheader_wire.h>

#include "desc.h"
#include "gen_common.h"

#define EVENTS_PER_FILE 500

/* The case being generated. */
static struct gen_source g_src;

/* ---- the library's type table ----------------------------------------------------------- */

enum { R_SCALAR, R_FIXED, R_COUNTED, R_ZSTRING };

struct row {
    char const *name;        /* the macro is EH_<name> */
    int kind;                /* R_* */
    unsigned enc, fmt;       /* EH_ENC_*, EH_FMT_* */
    int arrays;              /* has _SLICE and _ARRAY */
    char const *ctype;       /* R_SCALAR: what the value is stored as */
    char const *array_ctype; /* what a _SLICE/_ARRAY pointer points to */
};

#define FORMS_SLICE  1
#define FORMS_ARRAYS 1
#define FORMS_SINGLE 0
static struct row const ROWS[] = {
#define EH_FIELD_SCALAR(N, e, f, h, ti, to, forms, ct, act) \
    {#N, R_SCALAR, EH_ENC_##e, EH_FMT_##f, FORMS_##forms, #ct, #act},
#define EH_FIELD_FIXED(N, e, f, h, ti, to, forms, size) \
    {#N, R_FIXED, EH_ENC_##e, EH_FMT_##f, FORMS_##forms, NULL, "void"},
#define EH_FIELD_COUNTED(N, e, f, h, ti, to, listed) \
    {#N, R_COUNTED, EH_ENC_##e, EH_FMT_##f, 0, NULL, NULL},
#define EH_FIELD_ZSTRING(N, e, f, h, ti, to, listed) \
    {#N, R_ZSTRING, EH_ENC_##e, EH_FMT_##f, 0, NULL, NULL},
#include <eh_field_types.def>
};
#define NROWS (sizeof(ROWS) / sizeof(ROWS[0]))

/* The macro of a field: the first row of its encoding and format that has the form it
 * needs, else the first row of its encoding (*override: EH_FORMAT(f) must follow). The
 * pointer-sized rows ([u]intptr_t) never match: a description's encodings have fixed widths,
 * and the target's pointer may not be this machine's. */
static struct row const *find_row(struct desc_field const *f, int *override)
{
    int kinds = f->kind == DESC_STRING
                    ? (f->encoding >= EH_ENC_ZSTRING_CHAR8 && f->encoding <= EH_ENC_ZSTRING_CHAR32
                           ? 1 << R_ZSTRING
                           : 1 << R_COUNTED)
                    : (1 << R_SCALAR | 1 << R_FIXED);
    int arrays = f->kind == DESC_VARRAY || f->kind == DESC_CARRAY;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < NROWS; i++) {
            struct row const *r = &ROWS[i];
            if (!(kinds & 1 << r->kind) || r->enc != f->encoding || (arrays && !r->arrays) ||
                (pass == 0 && r->fmt != f->format) || (r->ctype && strstr(r->ctype, "intptr_t")))
                continue;
            *override = r->fmt != f->format;
            return r;
        }
    return NULL;
}

/* ---- byte order ---------------------------------------------------------------------- */

/* A number of n bytes (1, 2, 4 or 8) as libdesc keeps it: in this machine's byte order
 * (desc_order.c). */
static uint64_t host_value(uint8_t const *p, size_t n)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (n) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

/* ---- one event ------------------------------------------------------------------------- */

struct gen {
    struct gen_sb decls; /* the event function's static data */
    struct gen_sb args;  /* ",\n        item" each */
    int ndata;
    struct gen_reason problem; /* why the event cannot be written */
};

/* The initializer of n bytes at p: numbers of `unit` bytes read little-endian ("{0x1,0x2}"),
 * or bytes when unit < 2. */
static void initializer(struct gen_sb *s, uint8_t const *p, size_t n, size_t unit)
{
    if (unit < 2)
        unit = 1;
    gen_sb_add(s, "{", 1);
    for (size_t i = 0; i + unit <= n; i += unit) {
        gen_sb_printf(s, "%s0x%llx", i ? "," : "", (unsigned long long)host_value(p + i, unit));
        if ((i / unit) % 16 == 15 && i + unit < n)
            gen_sb_add(s, "\n        ", 9);
    }
    if (!n)
        gen_sb_add(s, "0", 1);
    gen_sb_add(s, "}", 1);
}

/* Declares the static array dK of n bytes at p, as numbers of `unit` bytes (C values: the
 * target's byte order) or as bytes; returns K. */
static int gen_data(struct gen *g, uint8_t const *p, size_t n, size_t unit)
{
    int k = ++g->ndata;
    if (unit >= 2)
        gen_sb_printf(&g->decls, "    static const uint%zu_t d%d[] = ", unit * 8, k);
    else
        gen_sb_printf(&g->decls, "    static const _Alignas(8) uint8_t d%d[] = ", k);
    initializer(&g->decls, p, n, unit);
    gen_sb_add(&g->decls, ";\n", 2);
    return k;
}

static void begin_item(struct gen *g)
{
    gen_sb_add(&g->args, ",\n        ", 10);
}

/* `, EH_FORMAT(f)` when the macro's own format is not the field's, `, EH_TAG(t)` when set. */
static void options(struct gen_sb *s, struct desc_field const *f, int override)
{
    if (override)
        gen_sb_printf(s, ", EH_FORMAT(%u)", f->format);
    if (f->tag)
        gen_sb_printf(s, ", EH_TAG(0x%x)", f->tag);
}

/* ---- raw items: the header's escape hatch, bytes laid out by a packed struct -------------- */

/* The payload of a raw item as the members of a packed struct: each number a C value of its
 * width (so the target's compiler orders its bytes), each run of fixed-order bytes a uint8_t
 * array. */
struct packed {
    struct gen_sb members, init;
    int n;
    size_t size;
};

static void packed_piece(struct packed *pk, uint8_t const *p, size_t n, size_t unit)
{
    if (!n)
        return;
    if (unit < 2)
        unit = 1;
    gen_sb_printf(&pk->members, " uint%zu_t p%d[%zu];", unit * 8, pk->n, n / unit);
    gen_sb_add(&pk->init, pk->n ? ", " : "", pk->n ? 2 : 0);
    initializer(&pk->init, p, n, unit);
    pk->n++;
    pk->size += n;
}

static void packed_u16(struct packed *pk, size_t v)
{
    uint16_t count = (uint16_t)v;
    packed_piece(pk, (uint8_t const *)&count, 2, 2);
}

/* A field's payload as the wire has it (Documentation/eventheader-wire.md). */
static void packed_field(struct packed *pk, struct desc_field const *f)
{
    static uint8_t const zero[4];
    size_t unit = desc_order_unit(f);
    switch (f->kind) {
    case DESC_STRUCT:
        for (uint32_t i = 0; i < f->n_members; i++)
            packed_field(pk, &f->members[i]);
        return;
    case DESC_STRUCT_SLICE:
        packed_u16(pk, f->count);
        for (uint32_t e = 0; e < f->count; e++)
            for (uint32_t i = 0; i < f->members[e].n_members; i++)
                packed_field(pk, &f->members[e].members[i]);
        return;
    case DESC_VARRAY: packed_u16(pk, f->count); break;
    case DESC_STRING:
        if (f->encoding >= EH_ENC_STRING_LENGTH16_CHAR8)
            packed_u16(pk, f->size / f->unit);
        break;
    default: break;
    }
    packed_piece(pk, f->data, f->size, unit);
    if (f->kind == DESC_STRING && f->encoding >= EH_ENC_ZSTRING_CHAR8 &&
        f->encoding <= EH_ENC_ZSTRING_CHAR32)
        packed_piece(pk, zero, f->unit, f->unit);
}

/* Declares dK, the packed payload of a field; returns K (its bytes: sizeof dK). */
static int gen_packed(struct gen *g, struct desc_field const *f)
{
    struct packed pk = {{0}, {0}, 0, 0};
    packed_field(&pk, f);
    int k = ++g->ndata;
    if (!pk.n)
        gen_sb_printf(&g->decls, "    static const uint8_t d%d[1];\n", k);
    else
        gen_sb_printf(&g->decls,
                      "    static const struct __attribute__((packed)) {%s } d%d = {%s};\n",
                      pk.members.p, k, pk.init.p);
    free(pk.members.p);
    free(pk.init.p);
    return k;
}

/* The raw metadata of f, a member of an array of structs (its data is the array's). */
static void raw_meta(struct gen *g, struct desc_field const *f)
{
    struct gen_sb *a = &g->args;
    begin_item(g);
    if (f->kind == DESC_STRUCT || f->kind == DESC_STRUCT_SLICE) {
        uint32_t n = f->kind == DESC_STRUCT ? f->n_members : f->members[0].n_members;
        struct desc_field const *m = f->kind == DESC_STRUCT ? f->members : f->members[0].members;
        if (!n) {
            gen_reason_set(&g->problem,
                           "EH_RAW_STRUCT takes 1 to 127 members, and this struct has none "
                           "(eventheader.h:%d)",
                           gen_header_line("A struct whose next n"));
            return;
        }
        gen_sb_printf(a, "EH_RAW_STRUCT%s(", f->kind == DESC_STRUCT ? "" : "_SLICE");
        gen_sb_cstr(a, f->name);
        gen_sb_printf(a, ", %u%s", n, f->tag ? "" : ")");
        if (f->tag)
            gen_sb_printf(a, ", EH_TAG(0x%x))", f->tag);
        for (uint32_t i = 0; i < n; i++)
            raw_meta(g, &m[i]);
        return;
    }
    gen_sb_printf(a, "EH_RAW_META%s(", f->kind == DESC_VARRAY ? "_SLICE" : "");
    gen_sb_cstr(a, f->name);
    if (f->kind == DESC_CARRAY)
        gen_sb_printf(a, ", %u | EH_ENC_CARRAY_FLAG, .carray = %u", f->encoding, f->count);
    else
        gen_sb_printf(a, ", %u", f->encoding);
    options(a, f, f->format != 0);
    gen_sb_add(a, ")", 1);
}

/* ---- fields ---------------------------------------------------------------------------- */

static void gen_field(struct gen *g, struct desc_field const *f);

/* The C type of a member of an array-of-structs element: numbers as integers of their
 * width, fixed-order values as bytes. */
static void member_decl(struct gen_sb *s, struct desc_field const *m, int i)
{
    size_t unit = desc_order_unit(m);
    uint32_t n = m->kind == DESC_CARRAY ? m->count : 1;
    if (unit)
        gen_sb_printf(s, " uint%zu_t m%d[%u];", unit * 8, i, n);
    else
        gen_sb_printf(s, " uint8_t m%d[%zu];", i, (size_t)m->unit * n);
}

/* An array of structs whose members are all fixed-size values: EH_STRUCT_ARRAY over an
 * array of a C struct, each member EH_MEMBER(name, type, member, encoding, format, size, n). */
static int simple_sarray(struct desc_field const *f)
{
    struct desc_field const *shape = f->members[0].members;
    for (uint32_t i = 0; i < f->members[0].n_members; i++)
        if (!(shape[i].kind == DESC_VALUE || (shape[i].kind == DESC_CARRAY && shape[i].count > 1)))
            return 0;
    return f->members[0].n_members > 0;
}

static void gen_sarray(struct gen *g, struct desc_field const *f)
{
    struct gen_sb *a = &g->args;
    if (!simple_sarray(f)) {
        /* The raw form: the shape as EH_RAW_STRUCT_SLICE + metadata, the count and the
           elements as one EH_RAW_DATA. */
        int k = gen_packed(g, f);
        raw_meta(g, f);
        begin_item(g);
        gen_sb_printf(a, "EH_RAW_DATA(&d%d, sizeof(d%d))", k, k);
        return;
    }
    struct desc_field const *shape = f->members[0].members;
    uint32_t n = f->members[0].n_members;
    int k = ++g->ndata;
    gen_sb_printf(&g->decls, "    struct s%d {", k);
    for (uint32_t i = 0; i < n; i++)
        member_decl(&g->decls, &shape[i], (int)i);
    /* No element: one zeroed, for the stride (sizeof *p), never read. */
    if (!f->count)
        gen_sb_printf(&g->decls, " };\n    static const struct s%d d%d[1];\n", k, k);
    else
        gen_sb_printf(&g->decls, " };\n    static const struct s%d d%d[%u] = {", k, k, f->count);
    for (uint32_t e = 0; e < f->count; e++) {
        gen_sb_add(&g->decls, e ? ", {" : "{", e ? 3 : 1);
        for (uint32_t i = 0; i < n; i++) {
            struct desc_field const *m = &f->members[e].members[i];
            gen_sb_add(&g->decls, i ? ", " : "", i ? 2 : 0);
            initializer(&g->decls, m->data, m->size, desc_order_unit(m));
        }
        gen_sb_add(&g->decls, "}", 1);
    }
    if (f->count)
        gen_sb_add(&g->decls, "};\n", 3);
    begin_item(g);
    gen_sb_printf(a, "EH_STRUCT_ARRAY_TAGGED(");
    gen_sb_cstr(a, f->name);
    gen_sb_printf(a, ", 0x%x, d%d, %u", f->tag, k, f->count);
    for (uint32_t i = 0; i < n; i++) {
        struct desc_field const *m = &shape[i];
        gen_sb_add(a, ",\n            EH_MEMBER(", 24);
        gen_sb_cstr(a, m->name);
        gen_sb_printf(a, ", struct s%d, m%u, %u, %u, %u, %u", k, i, m->encoding, m->format, m->unit,
                      m->kind == DESC_CARRAY ? m->count : 1);
        if (m->tag)
            gen_sb_printf(a, ", EH_TAG(0x%x)", m->tag);
        gen_sb_add(a, ")", 1);
    }
    gen_sb_add(a, ")", 1);
}

/* A zero-terminated string that holds a zero unit: EH_CSTR* would stop there. */
static int has_zero_unit(struct desc_field const *f)
{
    for (size_t i = 0; i + f->unit <= f->size; i += f->unit)
        if (!host_value(f->data + i, f->unit))
            return 1;
    return 0;
}

/* A value passed by value: a C literal of the row's type, or for bytes the format fixes,
 * the number a caller would hold for them (gencase_u<N>_at). */
static void scalar_value(struct gen *g, struct desc_field const *f, struct row const *r)
{
    struct gen_sb *a = &g->args;
    size_t unit = f->unit == 1 ? 1 : desc_order_unit(f); /* one byte has no order */
    if (!unit) {
        int k = gen_data(g, f->data, f->size, 1);
        gen_sb_printf(a, "gencase_u%u_at(d%d)", f->unit * 8, k);
    } else if (strcmp(r->ctype, "float") == 0) {
        gen_sb_printf(a, "gencase_f32(UINT32_C(0x%llx))",
                      (unsigned long long)host_value(f->data, 4));
    } else if (strcmp(r->ctype, "double") == 0) {
        gen_sb_printf(a, "gencase_f64(UINT64_C(0x%llx))",
                      (unsigned long long)host_value(f->data, 8));
    } else {
        gen_sb_printf(a, "(%s)UINT%u_C(0x%llx)", r->ctype, f->unit * 8,
                      (unsigned long long)host_value(f->data, f->unit));
    }
}

static void gen_string(struct gen *g, struct desc_field const *f, struct row const *r, int override)
{
    struct gen_sb *a = &g->args;
    int zstring = r->kind == R_ZSTRING;
    if (zstring && has_zero_unit(f)) {
        /* The header's raw field: the units and the terminating zero, as given. */
        int k = gen_packed(g, f);
        begin_item(g);
        gen_sb_add(a, "EH_RAW_FIELD(", 13);
        gen_sb_cstr(a, f->name);
        gen_sb_printf(a, ", %u, &d%d, sizeof(d%d)", f->encoding, k, k);
        options(a, f, f->format != 0);
        gen_sb_add(a, ")", 1);
        return;
    }
    begin_item(g);
    gen_sb_printf(a, "EH_%s(", r->name);
    gen_sb_cstr(a, f->name);
    gen_sb_add(a, ", ", 2);
    size_t unit = desc_order_unit(f);
    if (f->unit == 1 && unit < 2) {
        gen_sb_literal(a, f->data, f->size); /* char8 and binary: a string literal */
    } else if (zstring) {
        /* The units and a zero unit: numbers, or, when the format reads them as bytes
           (hex_bytes), those bytes as given, which EH_CSTR16/32 measure all the same. */
        struct gen_sb z = {0};
        static uint8_t const zero[4];
        gen_sb_add(&z, (char const *)f->data, f->size);
        gen_sb_add(&z, (char const *)zero, f->unit);
        int k = gen_data(g, (uint8_t const *)z.p, z.n, unit);
        free(z.p);
        gen_sb_printf(a, "(const uint%u_t *)(const void *)d%d", f->unit * 8, k);
    } else {
        gen_sb_printf(a, "d%d", gen_data(g, f->data, f->size, unit));
    }
    if (!zstring)
        gen_sb_printf(a, ", %zu", f->size / f->unit);
    options(a, f, override);
    gen_sb_add(a, ")", 1);
}

static void gen_field(struct gen *g, struct desc_field const *f)
{
    struct gen_sb *a = &g->args;
    if (f->kind == DESC_STRUCT) {
        if (!f->n_members) {
            gen_reason_set(&g->problem,
                           "EH_STRUCT needs at least one member: an empty one does not "
                           "compile (eventheader.h:%d): struct %s",
                           gen_header_line("A struct needs at"), f->name);
            return;
        }
        begin_item(g);
        if (f->tag)
            gen_sb_add(a, "EH_STRUCT_TAGGED(", 17);
        else
            gen_sb_add(a, "EH_STRUCT(", 10);
        gen_sb_cstr(a, f->name);
        if (f->tag)
            gen_sb_printf(a, ", 0x%x", f->tag);
        for (uint32_t i = 0; i < f->n_members; i++)
            gen_field(g, &f->members[i]);
        gen_sb_add(a, ")", 1);
        return;
    }
    if (f->kind == DESC_STRUCT_SLICE) {
        gen_sarray(g, f);
        return;
    }
    int override = 0;
    struct row const *r = find_row(f, &override);
    if (!r) {
        gen_reason_set(&g->problem,
                       "no EH_<T> field macro writes encoding %u (eh_field_types.def): field %s",
                       f->encoding, f->name);
        return;
    }
    if (f->kind == DESC_STRING) {
        gen_string(g, f, r, override);
        return;
    }
    if (f->kind == DESC_CARRAY && !f->count) {
        gen_reason_set(&g->problem,
                       "EH_%s_ARRAY takes a constant N of 1 to 65535 (eventheader.h:%d): "
                       "the empty constant-length array %s does not compile",
                       r->name, gen_header_line("constant-length arrays EH_U32_ARRAY"), f->name);
        return;
    }
    begin_item(g);
    if (f->kind == DESC_VALUE) {
        gen_sb_printf(a, "EH_%s(", r->name);
        gen_sb_cstr(a, f->name);
        gen_sb_add(a, ", ", 2);
        if (r->kind == R_FIXED)
            gen_sb_printf(a, "d%d", gen_data(g, f->data, f->size, desc_order_unit(f)));
        else
            scalar_value(g, f, r);
    } else {
        int k = gen_data(g, f->data, f->size, desc_order_unit(f));
        gen_sb_printf(a, "EH_%s_%s(", r->name, f->kind == DESC_VARRAY ? "SLICE" : "ARRAY");
        gen_sb_cstr(a, f->name);
        if (strcmp(r->array_ctype, "void") == 0)
            gen_sb_printf(a, ", d%d, %u", k, f->count);
        else
            gen_sb_printf(a, ", (const %s *)(const void *)d%d, %u", r->array_ctype, k, f->count);
    }
    options(a, f, override);
    gen_sb_add(a, ")", 1);
}

static void gen_event(FILE *out, struct desc_event const *ev)
{
    struct gen g;
    memset(&g, 0, sizeof(g));
    for (uint32_t i = 0; i < ev->n_fields; i++)
        gen_field(&g, &ev->fields[i]);
    fprintf(out, "\n/* event %u, line %u */\nint ehm_%s_e%u(char const **call)\n{\n", ev->ordinal,
            ev->line, g_src.ident, ev->ordinal);
    if (g.problem.why) {
        struct gen_sb why = {0};
        gen_sb_cstr(&why, g.problem.why);
        fprintf(out, "    *call = %s;\n    return -1;\n}\n", why.p);
        free(why.p);
    } else {
        struct gen_sb attrs = {0};
        gen_sb_cstr(&attrs, ev->name);
        gen_sb_printf(&attrs, ", %u, UINT64_C(0x%llx)", ev->level, (unsigned long long)ev->keyword);
        if (ev->opcode)
            gen_sb_printf(&attrs, ", .opcode = %u", ev->opcode);
        if (ev->tag)
            gen_sb_printf(&attrs, ", .tag = 0x%x", ev->tag);
        if (ev->id)
            gen_sb_printf(&attrs, ", .id = %u", ev->id);
        if (ev->version)
            gen_sb_printf(&attrs, ", .version = %u", ev->version);
        if (g.decls.n)
            fputs(g.decls.p, out);
        if (ev->has_activity || ev->has_related) {
            /* The ids ride along as items; the library puts them in the header. */
            int k = ++g.ndata;
            fprintf(out, "    static const uint8_t d%d[2][16] = {", k);
            for (int w = 0; w < 2; w++) {
                uint8_t const *id = w ? ev->related : ev->activity;
                fprintf(out, "%s{", w ? ", " : "");
                for (int i = 0; i < 16; i++)
                    fprintf(out, "%s0x%x", i ? "," : "", id[i]);
                fprintf(out, "}");
            }
            fprintf(out, "};\n");
            if (ev->has_activity)
                gen_sb_printf(&g.args, ",\n        EH_ACTIVITY_ID(d%d[0])", k);
            if (ev->has_related)
                gen_sb_printf(&g.args, ",\n        EH_RELATED_ID(d%d[1])", k);
        }
        fprintf(out,
                "    *call = \"EH_WRITE\";\n    return EH_WRITE(ehm_%s_p%d, EH_EVENT(%s)%s);\n}\n",
                g_src.ident, gen_provider_index(&g_src, ev->provider), attrs.p,
                g.args.p ? g.args.p : "");
        free(attrs.p);
    }
    free(g.decls.p);
    free(g.args.p);
}

/* ---- the files of a case ----------------------------------------------------------------- */

#define HEADER_LINES "#include \"ehm.h\"\n\n"

/* The providers: defined here, registered and unregistered through the tables. */
static void gen_providers(FILE *out)
{
    for (uint32_t i = 0; i < g_src.desc.n_providers; i++) {
        struct desc_provider const *p = g_src.desc.providers[i];
        struct gen_sb name = {0};
        gen_sb_cstr(&name, p->name);
        if (p->group) {
            gen_sb_add(&name, ", ", 2);
            gen_sb_cstr(&name, p->group);
        }
        fprintf(out,
                "EH_DEFINE_PROVIDER%s(ehm_%s_p%u, %s);\n"
                "static int ehm_reg%u(void)\n{\n    return eh_provider_register(&ehm_%s_p%u);\n}\n"
                "static int ehm_unreg%u(void)\n{\n    return eh_provider_unregister(&ehm_%s_p%u);\n"
                "}\n",
                p->group ? "_GROUP" : "", g_src.ident, i, name.p, i, g_src.ident, i, i, g_src.ident,
                i);
        free(name.p);
    }
}

static int gen_case(char const *header, char const *path, char const *outdir)
{
    gen_header_load(header);
    gen_source_load(&g_src, path);

    char main_path[4096];
    FILE *out = gen_open_out(&g_src, outdir, "", main_path, sizeof(main_path));
    fprintf(out,
            "/* Generated by impl/ehconf-macros/gen from %s: do not edit.\n"
            "   Case %s: %u events (their functions in %s_<n>.c, %d a file), %u providers. "
            "*/\n" HEADER_LINES,
            path, g_src.name, g_src.desc.n_events, g_src.ident, EVENTS_PER_FILE,
            g_src.desc.n_providers);
    gen_providers(out);
    /* The events in files of EVENTS_PER_FILE, compiled in parallel; they use the providers
       as another file of a program does, through EH_DECLARE_PROVIDER. */
    int status = 0;
    for (uint32_t first = 0; first < g_src.desc.n_events; first += EVENTS_PER_FILE) {
        char part_path[4096], suffix[32];
        snprintf(suffix, sizeof(suffix), "_%u", first / EVENTS_PER_FILE);
        FILE *part = gen_open_out(&g_src, outdir, suffix, part_path, sizeof(part_path));
        fprintf(part,
                "/* Generated by impl/ehconf-macros/gen from %s: do not edit. */\n" HEADER_LINES,
                path);
        for (uint32_t i = 0; i < g_src.desc.n_providers; i++)
            fprintf(part, "EH_DECLARE_PROVIDER(ehm_%s_p%u);\n", g_src.ident, i);
        for (uint32_t i = first; i < g_src.desc.n_events && i < first + EVENTS_PER_FILE; i++)
            gen_event(part, g_src.events[i]);
        status |= gen_close_out(part, part_path);
    }
    gen_source_tables(out, &g_src, "ehm", NULL);
    return status | gen_close_out(out, main_path);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--table") == 0)
        return gen_cases_table(
            argc - 2, argv + 2, "impl/ehconf-macros/gen", "#include \"ehm.h\"",
            &(struct gencase_api){"eh_provider_register", "impl/ehconf-macros/build"});
    if (argc != 4) {
        fprintf(stderr,
                "usage: gen eventheader.h FILE.events OUTDIR | gen --table FILE.events...\n");
        return 2;
    }
    return gen_case(argv[1], argv[2], argv[3]);
}
