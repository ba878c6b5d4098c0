/* SPDX-License-Identifier: MIT */
/*
 * Every row of the field-type table (lib/eventheader/include/eh_field_types.def) against
 * the code that has to know its type, so that a new row fails here until that code does:
 *   - the row's macros (eh_field_macros.h, generated from the row) make items of the row's
 *     encoding, format, element size and TraceLogging hint;
 *   - the TraceLogging encoder (lib/eventheader/src/tl_typemap.c) gives the field the
 *     row's InType and OutType; in an array it adds the array flag, and Binary becomes
 *     BinaryC (TraceLogging decoders read no arrays of Binary);
 *   - the TraceLogging decoder (lib/decode/src/tl_json.c) maps that InType/OutType back:
 *     the TraceLogging form of the field decodes to the JSON of its EventHeader form.
 *     The one difference by design (tl_json.c: errno-lost) is that errno loses its name,
 *     so an errno field decodes as the same value with the signed_int format.
 * Each type is written alone, as one value and, where the row has them, as a slice and a
 * constant array of 2 elements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "tracelogging_wire.h"
#include "tl_encode.h"
#include "ehd.h"
#include "ehd_tl.h"
#include "ktap.h"

#define FLAGS (EHD_JSON_SPACE | EHD_JSON_FIELD_TAG | EHD_META_GOLDEN)
/* Level 4, keyword 1: the events below say level 4. */
#define TP_NAME "FieldTypes_L4K1"

/* What a row of the table says about its type. */
struct row {
    unsigned enc, fmt, hint;
    unsigned unit; /* a value's size, or a string's code unit size */
    uint8_t tl_in, tl_out;
    int pointer_sized; /* enc VALUE_PTR: tl_in is the InType of 64-bit pointers */
};

/* One macro of a row: its name, and the item kind and array flag it must make. */
struct form {
    const char *macro;
    uint8_t kind, array_flag;
};

typedef void visit_fn(const struct row *r, const struct form *f, const eh_item *it);

static unsigned string_unit(unsigned enc)
{
    switch (enc) {
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR16: return 2;
    case EH_ENC_ZSTRING_CHAR32:
    case EH_ENC_STRING_LENGTH16_CHAR32: return 4;
    default: return 1;
    }
}

/* Two elements of size bytes, each 1 in its first byte and 0 after: a value no rendering
 * clamps (times, FILETIME) that still tells the formats apart (true, not 1; "0x1"; port 256;
 * a float's smallest denormal), the same for every width. */
static void two_values(uint8_t *buf, unsigned size)
{
    memset(buf, 0, 2 * size);
    buf[0] = buf[size] = 1;
}

/* The strings "Ab" of each code unit size, named by encoding for the zero-terminated rows. */
static const char units8[] = "Ab";
static const uint16_t units16[] = {'A', 'b', 0};
static const uint32_t units32[] = {'A', 'b', 0};
#define SAMPLE_ZSTRING_CHAR8  units8
#define SAMPLE_ZSTRING_CHAR16 units16
#define SAMPLE_ZSTRING_CHAR32 units32

static const void *counted_units(unsigned unit)
{
    return unit == 1 ? (const void *)units8 : unit == 2 ? (const void *)units16 : units32;
}

#define ROW_(enc, fmt, hint, unit, tl_in, tl_out)                                                 \
    {                                                                                             \
        EH_ENC_##enc, EH_FMT_##fmt, EH_TL_HINT_##hint##_, (unit), TL_IN_##tl_in, TL_OUT_##tl_out, \
            strcmp(#enc, "VALUE_PTR") == 0                                                        \
    }

/* The slice, constant array and struct member of a value row (forms SLICE and ARRAYS; a
 * SINGLE row has none). member_decl declares a member m of the row's size. */
#define VALUE_ARRAY_FORMS_SINGLE(NAME, member_decl)
#define VALUE_ARRAY_FORMS_ARRAYS(NAME, member_decl) VALUE_ARRAY_FORMS_SLICE(NAME, member_decl)
#define VALUE_ARRAY_FORMS_SLICE(NAME, member_decl)                                                \
    {                                                                                             \
        _Alignas(16) uint8_t two[32];                                                             \
        two_values(two, r.unit);                                                                  \
        const void *elems = two; /* the macros take a pointer of the row's type */                \
        const eh_item s = EH_##NAME##_SLICE("f", elems, 2);                                       \
        const eh_item a = EH_##NAME##_ARRAY("f", elems, 2);                                       \
        typedef struct {                                                                          \
            member_decl                                                                           \
        } one_member;                                                                             \
        const eh_item m = EH_MEMBER_##NAME(one_member, m);                                        \
        visit(&r, &(struct form){"EH_" #NAME "_SLICE", EH_ITEM_VARRAY_, EH_ENC_VARRAY_FLAG}, &s); \
        visit(&r, &(struct form){"EH_" #NAME "_ARRAY", EH_ITEM_CARRAY_, EH_ENC_CARRAY_FLAG}, &a); \
        visit(&r, &(struct form){"EH_MEMBER_" #NAME, EH_ITEM_MEMBER_, 0}, &m);                    \
    }

/* Calls visit for every macro of every row, in the table's order; returns the rows. */
static unsigned walk(visit_fn *visit)
{
    unsigned rows = 0;
#define EH_FIELD_SCALAR(NAME, enc, fmt, hint, tl_in, tl_out, forms, ctype, array_ctype) \
    {                                                                                   \
        rows++;                                                                         \
        const struct row r = ROW_(enc, fmt, hint, sizeof(ctype), tl_in, tl_out);        \
        const eh_item v = EH_##NAME("f", 1);                                            \
        visit(&r, &(struct form){"EH_" #NAME, EH_ITEM_VALUE_, 0}, &v);                  \
        VALUE_ARRAY_FORMS_##forms(NAME, ctype m;)                                       \
    }
#define EH_FIELD_FIXED(NAME, enc, fmt, hint, tl_in, tl_out, forms, size) \
    {                                                                    \
        rows++;                                                          \
        const struct row r = ROW_(enc, fmt, hint, size, tl_in, tl_out);  \
        _Alignas(16) uint8_t one[32];                                    \
        two_values(one, size);                                           \
        const eh_item v = EH_##NAME("f", one);                           \
        visit(&r, &(struct form){"EH_" #NAME, EH_ITEM_VALUE_, 0}, &v);   \
        VALUE_ARRAY_FORMS_##forms(NAME, uint8_t m[size];)                \
    }
#define EH_FIELD_COUNTED(NAME, enc, fmt, hint, tl_in, tl_out, listed)                        \
    {                                                                                        \
        const struct row r = ROW_(enc, fmt, hint, string_unit(EH_ENC_##enc), tl_in, tl_out); \
        const eh_item v = EH_##NAME("f", counted_units(r.unit), 2);                          \
        visit(&r, &(struct form){"EH_" #NAME, EH_ITEM_COUNTED_, 0}, &v);                     \
        rows++;                                                                              \
    }
#define EH_FIELD_ZSTRING(NAME, enc, fmt, hint, tl_in, tl_out, listed)                        \
    {                                                                                        \
        const struct row r = ROW_(enc, fmt, hint, string_unit(EH_ENC_##enc), tl_in, tl_out); \
        const eh_item v = EH_##NAME("f", SAMPLE_##enc);                                      \
        const eh_item n = EH_##NAME##_N("f", SAMPLE_##enc, 1);                               \
        visit(&r, &(struct form){"EH_" #NAME, EH_ITEM_ZSTRING_, 0}, &v);                     \
        visit(&r, &(struct form){"EH_" #NAME "_N", EH_ITEM_ZSTRING_, 0}, &n);                \
        rows++;                                                                              \
    }
#include "eh_field_types.def"
    return rows;
}

/* ---- the macros ---------------------------------------------------------------------- */

static void check_item(const struct row *r, const struct form *f, const eh_item *it)
{
    unsigned enc = it->encoding & EH_ENC_VALUE_MASK, flag = it->encoding & ~EH_ENC_VALUE_MASK;
    if (it->kind != f->kind || enc != r->enc || flag != f->array_flag || it->format != r->fmt ||
        it->tl_hint_ != r->hint || it->elem_size != r->unit) {
        kt_failed_now = 1;
        kt_diag("%s: kind %u, encoding 0x%02x, format %u, hint %u, unit %u; the table says kind "
                "%u, encoding 0x%02x, format %u, hint %u, unit %u (regenerate "
                "eh_field_macros.h: scripts/gen-field-types.py)",
                f->macro, it->kind, it->encoding, it->format, it->tl_hint_, it->elem_size, f->kind,
                r->enc | f->array_flag, r->fmt, r->hint, r->unit);
    }
}

static unsigned visits;

static void count_visit(const struct row *r, const struct form *f, const eh_item *it)
{
    (void)r, (void)f, (void)it;
    visits++;
}

static void test_every_macro_follows_its_row(void)
{
    unsigned rows = walk(check_item);
    visits = 0;
    walk(count_visit);
    /* the write_event! table alone has 64 types; each value type has 4 macros */
    KT_EXPECT(rows >= 64);
    KT_EXPECT(visits > rows * 2);
    kt_diag("%u rows, %u macros", rows, visits);
}

/* ---- the field through TraceLogging -------------------------------------------------- */

static void put_u16(uint8_t *p, size_t *n, unsigned v)
{
    p[(*n)++] = (uint8_t)v;
    p[(*n)++] = (uint8_t)(v >> 8);
}

/* The EventHeader event (header, metadata extension, payload) that holds the item as its
 * one field "f" of event "E", with format fmt; the bytes ehconf's encoder writes for it. */
static size_t eventheader_event(uint8_t *ev, const eh_item *it, unsigned fmt)
{
    uint8_t meta[16];
    size_t m = 0, n = 0;
    memcpy(meta, "E\0f", 4);
    m = 4;
    meta[m++] = (uint8_t)(it->encoding | EH_ENC_CHAIN_FLAG);
    meta[m++] = (uint8_t)fmt;
    if (it->encoding & EH_ENC_CARRAY_FLAG)
        put_u16(meta, &m, it->carray);
    ev[n++] =
        EH_FLAG_LITTLE_ENDIAN | EH_FLAG_EXTENSION | (sizeof(void *) == 8 ? EH_FLAG_POINTER64 : 0);
    static const uint8_t version_id_tag_opcode_level[7] = {0, 0, 0, 0, 0, 0, 4};
    memcpy(ev + n, version_id_tag_opcode_level, 7);
    n += 7;
    put_u16(ev, &n, (unsigned)m);
    put_u16(ev, &n, EH_EXT_KIND_METADATA);
    memcpy(ev + n, meta, m);
    n += m;
    size_t bytes = it->elem_size;
    switch (it->kind) {
    case EH_ITEM_VARRAY_:
    case EH_ITEM_COUNTED_:
        put_u16(ev, &n, it->count);
        bytes *= it->count;
        break;
    case EH_ITEM_CARRAY_: bytes *= it->carray; break;
    case EH_ITEM_ZSTRING_: bytes *= it->count; break;
    default: break;
    }
    memcpy(ev + n, it->data, bytes);
    n += bytes;
    if (it->kind == EH_ITEM_ZSTRING_) {
        memset(ev + n, 0, it->elem_size);
        n += it->elem_size;
    }
    return n;
}

/* The format the TraceLogging decoder gives back for fmt: all but errno's (tl_json.c). */
static unsigned format_through_tracelogging(unsigned fmt)
{
    return fmt == EH_FMT_ERRNO ? EH_FMT_SIGNED_INT : fmt;
}

/* The InType the encoder must choose for the row in this form. */
static uint8_t want_in_type(const struct row *r, const struct form *f)
{
    uint8_t in = r->tl_in;
    if (r->pointer_sized && sizeof(void *) == 4)
        in = in == TL_IN_U64 ? TL_IN_U32 : in == TL_IN_I64 ? TL_IN_I32 : TL_IN_HEX32;
    if (f->array_flag && in == TL_IN_BINARY)
        in = TL_IN_BINARYC;
    return (uint8_t)(in | (f->array_flag == EH_ENC_VARRAY_FLAG   ? TL_IN_VCOUNT
                           : f->array_flag == EH_ENC_CARRAY_FLAG ? TL_IN_CCOUNT
                                                                 : 0));
}

/* The TraceLogging form of the item's event, translated with the item's hint. */
static int to_tracelogging(struct eh_tl_event *tl, const eh_item *it)
{
    uint8_t ev[256];
    size_t n = eventheader_event(ev, it, it->format);
    return eh_tl_from_eventheader_hinted(tl, ev, n, &it->tl_hint_, 1);
}

static void check_tl_types(const struct row *r, const struct form *f, const eh_item *it)
{
    if (f->kind == EH_ITEM_MEMBER_)
        return; /* no field of its own: the struct array around it has the same types */
    struct eh_tl_event tl = {0};
    int err = to_tracelogging(&tl, it);
    /* event metadata: u16 size, event tags (the last byte without 0x80), "E\0", "f\0",
     * InType [OutType if InType has the chain bit] */
    size_t pos = 2;
    while (!err && pos < tl.meta_len && (tl.meta[pos++] & 0x80))
        ;
    pos += 4;
    uint8_t in = 0, out = TL_OUT_DEFAULT;
    if (!err && pos < tl.meta_len) {
        in = tl.meta[pos] & (TL_IN_TYPE_MASK | TL_IN_COUNT_MASK);
        if ((tl.meta[pos] & TL_IN_CHAIN) && pos + 1 < tl.meta_len)
            out = tl.meta[pos + 1] & TL_OUT_TYPE_MASK;
    }
    uint8_t want_in = want_in_type(r, f);
    if (err || in != want_in || out != r->tl_out) {
        kt_failed_now = 1;
        kt_diag("%s: TraceLogging InType 0x%02x OutType %u (error %d); the table says 0x%02x, "
                "%u: lib/eventheader/src/tl_typemap.c does not map this type as the row says",
                f->macro, in, out, err, want_in, r->tl_out);
    }
    eh_tl_event_release(&tl);
}

static void check_same_json(const struct row *r, const struct form *f, const eh_item *it)
{
    (void)r;
    if (f->kind == EH_ITEM_MEMBER_)
        return;
    ehd_buf eh, tlj;
    ehd_buf_init(&eh);
    ehd_buf_init(&tlj);
    const char *reason = "";
    size_t off = 0;
    uint8_t ev[256];
    size_t n = eventheader_event(ev, it, format_through_tracelogging(it->format));
    int eh_err =
        ehd_eventheader_json(&eh, TP_NAME, strlen(TP_NAME), ev, n, NULL, FLAGS, &reason, &off);
    const struct eh_tl_provider *prov = NULL;
    uint8_t level;
    uint64_t keyword;
    struct eh_tl_event tl = {0};
    int tl_err = eh_tl_provider_of_tp(TP_NAME, strlen(TP_NAME), &prov, &level, &keyword);
    if (!tl_err)
        tl_err = to_tracelogging(&tl, it);
    if (!tl_err) {
        ehd_tl_event tev = {.provider_meta = prov->meta,
                            .provider_meta_size = prov->meta_len,
                            .event_meta = tl.meta,
                            .event_meta_size = tl.meta_len,
                            .data = tl.data.p,
                            .data_size = tl.data.len,
                            .keyword = keyword,
                            .level = tl.level};
        tl_err = ehd_tl_json(&tlj, &tev, NULL, FLAGS, &reason, &off);
    }
    ehd_buf_putc(&eh, 0);
    ehd_buf_putc(&tlj, 0);
    if (eh_err || tl_err || strcmp(eh.data, tlj.data) != 0) {
        kt_failed_now = 1;
        if (eh_err || tl_err)
            kt_diag("%s: decoding failed (EventHeader %d, TraceLogging %d): %s", f->macro, eh_err,
                    tl_err, reason);
        else
            kt_diag("%s: the TraceLogging form decodes otherwise: lib/decode/src/tl_json.c does "
                    "not map its InType/OutType back",
                    f->macro);
        kt_diag("  EventHeader:  %s", eh.data);
        kt_diag("  TraceLogging: %s", tlj.data);
    } else if (getenv("TL_SHOW")) {
        kt_diag("%s: %s", f->macro, eh.data);
    }
    eh_tl_event_release(&tl);
    ehd_buf_free(&eh);
    ehd_buf_free(&tlj);
}

static void test_tracelogging_types_follow_the_table(void)
{
    walk(check_tl_types);
}

static void test_tracelogging_form_decodes_alike(void)
{
    walk(check_same_json);
}

KT_MAIN(KT_CASE(test_every_macro_follows_its_row),
        KT_CASE(test_tracelogging_types_follow_the_table),
        KT_CASE(test_tracelogging_form_decodes_alike))
