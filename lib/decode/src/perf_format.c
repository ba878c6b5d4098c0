/* SPDX-License-Identifier: MIT */
/*
 * tracefs "format" text -> ehd_tp_format (Documentation/user-events-abi.md §8,
 * Documentation/decoder-json.md §7).
 *
 *   name: sched_switch
 *   ID: 316
 *   format:
 *   \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
 *   ...
 *   print fmt: ...
 *
 * The field declaration gives the rendering kind (§7 type deduction); offset,
 * size and signed come from the line.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_perf.h"

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Finds "key" inside [p, end) and parses the unsigned decimal after it. */
static int find_number(const char *p, const char *end, const char *key, unsigned long *out)
{
    size_t klen = strlen(key);
    for (const char *q = p; q + klen <= end; q++) {
        if (memcmp(q, key, klen) != 0)
            continue;
        q += klen;
        while (q < end && *q == ' ')
            q++;
        if (q >= end || *q < '0' || *q > '9')
            return -1;
        unsigned long v = 0;
        while (q < end && *q >= '0' && *q <= '9') {
            if (v > (ULONG_MAX - 9) / 10)
                return -1;
            v = v * 10 + (unsigned long)(*q - '0');
            q++;
        }
        *out = v;
        return 0;
    }
    return -1;
}

/* Word-level view of a type declaration such as "const unsigned long". */
struct type_words {
    int n_unsigned, n_signed, n_long, n_short, n_int, n_char, n_struct, n_other, pointer;
    char other[32];
};

static void scan_type(const char *t, size_t len, struct type_words *w)
{
    memset(w, 0, sizeof *w);
    size_t i = 0;
    while (i < len) {
        if (t[i] == '*') {
            w->pointer = 1;
            i++;
            continue;
        }
        if (!is_ident_char(t[i])) {
            i++;
            continue;
        }
        size_t s = i;
        while (i < len && is_ident_char(t[i]))
            i++;
        size_t wl = i - s;
        const char *word = t + s;
#define IS(lit) (wl == sizeof(lit) - 1 && memcmp(word, lit, wl) == 0)
        if (IS("const") || IS("volatile") || IS("__data_loc") || IS("__rel_loc"))
            continue;
        if (IS("unsigned"))
            w->n_unsigned++;
        else if (IS("signed"))
            w->n_signed++;
        else if (IS("long"))
            w->n_long++;
        else if (IS("short"))
            w->n_short++;
        else if (IS("int"))
            w->n_int++;
        else if (IS("char"))
            w->n_char++;
        else if (IS("struct") || IS("union") || IS("enum"))
            w->n_struct++;
        else {
            w->n_other++;
            if (wl < sizeof w->other) {
                memcpy(w->other, word, wl);
                w->other[wl] = 0;
            }
        }
#undef IS
    }
}

/* Fixed-width names: u8 __u8 uint8_t s8 __s8 int8_t ... -> size and signedness. */
static int fixed_width_name(const char *s, uint32_t *size, int *is_signed)
{
    if (strncmp(s, "__", 2) == 0)
        s += 2;
    int sg;
    if (s[0] == 'u' && s[1] != 'i')
        sg = 0, s += 1;
    else if (s[0] == 's')
        sg = 1, s += 1;
    else if (strncmp(s, "uint", 4) == 0)
        sg = 0, s += 4;
    else if (strncmp(s, "int", 3) == 0)
        sg = 1, s += 3;
    else
        return 0;
    uint32_t bits;
    size_t n;
    if (strncmp(s, "8", 1) == 0)
        bits = 8, n = 1;
    else if (strncmp(s, "16", 2) == 0)
        bits = 16, n = 2;
    else if (strncmp(s, "32", 2) == 0)
        bits = 32, n = 2;
    else if (strncmp(s, "64", 2) == 0)
        bits = 64, n = 2;
    else
        return 0;
    s += n;
    if (*s != 0 && strcmp(s, "_t") != 0)
        return 0;
    *size = bits / 8;
    *is_signed = sg;
    return 1;
}

/* §7 type deduction: kind and element size from the declaration words. */
static void deduce_kind(const struct type_words *w, uint32_t long_size, uint8_t *kind,
                        uint32_t *elem)
{
    if (w->pointer) {
        *kind = EHD_TP_HEX;
        *elem = long_size;
        return;
    }
    if (w->n_struct) {
        *kind = EHD_TP_NONE;
        *elem = 1;
        return;
    }
    if (w->n_other) {
        uint32_t sz;
        int sg;
        if (!w->n_unsigned && !w->n_signed && !w->n_long && !w->n_short && !w->n_int &&
            !w->n_char && fixed_width_name(w->other, &sz, &sg)) {
            *kind = sg ? EHD_TP_SIGNED : EHD_TP_UNSIGNED;
            *elem = sz;
            return;
        }
        /* pid_t, size_t, gfp_t, bool, ...: the reference shows these as hex. */
        *kind = EHD_TP_HEX;
        *elem = 0; /* from size: */
        return;
    }
    if (w->n_char) {
        *kind = w->n_unsigned ? EHD_TP_UNSIGNED : w->n_signed ? EHD_TP_SIGNED : EHD_TP_STRING;
        *elem = 1;
        return;
    }
    if (!w->n_unsigned && !w->n_signed && !w->n_long && !w->n_short && !w->n_int) {
        *kind = EHD_TP_NONE;
        *elem = 0;
        return;
    }
    if (w->n_unsigned && w->n_long == 1) {
        *kind = EHD_TP_HEX; /* "unsigned long" is shown as hex by the reference */
        *elem = long_size;
        return;
    }
    *kind = w->n_unsigned ? EHD_TP_UNSIGNED : EHD_TP_SIGNED;
    *elem = w->n_short ? 2 : w->n_long >= 2 ? 8 : w->n_long ? long_size : 4;
}

static int parse_field(ehd_tp_field *f, const char *decl, size_t dlen, const char *rest,
                       const char *end, char **store)
{
    unsigned long off, size, sg = 0;
    if (find_number(rest, end, "offset:", &off) || find_number(rest, end, "size:", &size) ||
        off > UINT32_MAX || size > UINT32_MAX)
        return -1;
    (void)find_number(rest, end, "signed:", &sg);
    f->offset = (uint32_t)off;
    f->size = (uint32_t)size;
    f->is_signed = sg != 0;

    while (dlen && decl[dlen - 1] == ' ')
        dlen--;
    while (dlen && *decl == ' ')
        decl++, dlen--;
    if (!dlen)
        return -1;
    f->loc = EHD_TP_LOC_NONE;
    if (dlen > 11 && memcmp(decl, "__data_loc ", 11) == 0)
        f->loc = EHD_TP_LOC_DATA;
    else if (dlen > 10 && memcmp(decl, "__rel_loc ", 10) == 0)
        f->loc = EHD_TP_LOC_REL;

    /* name = last identifier, optionally followed by [N] */
    size_t e = dlen;
    long count = -1;
    if (decl[e - 1] == ']') {
        size_t lb = e - 1;
        while (lb > 0 && decl[lb] != '[')
            lb--;
        if (decl[lb] != '[')
            return -1;
        count = 0;
        int numeric = lb + 1 < e - 1;
        for (size_t k = lb + 1; k < e - 1; k++) {
            if (decl[k] < '0' || decl[k] > '9' || count > 100000000) {
                numeric = 0;
                break;
            }
            count = count * 10 + (decl[k] - '0');
        }
        if (!numeric)
            count = -2; /* a macro or empty: derive from size */
        e = lb;
    }
    size_t ne = e;
    while (ne > 0 && is_ident_char(decl[ne - 1]))
        ne--;
    if (ne == e)
        return -1;
    size_t tlen = ne;
    while (tlen && decl[tlen - 1] == ' ')
        tlen--;

    char *s = *store;
    memcpy(s, decl + ne, e - ne);
    s[e - ne] = 0;
    f->name = s;
    s += e - ne + 1;
    memcpy(s, decl, tlen);
    s[tlen] = 0;
    f->type = s;
    s += tlen + 1;
    *store = s;

    struct type_words w;
    scan_type(decl, tlen, &w);
    uint32_t elem = 0;
    deduce_kind(&w, 8, &f->kind, &elem);
    if (f->kind == EHD_TP_SIGNED || f->kind == EHD_TP_UNSIGNED)
        f->kind = f->is_signed ? EHD_TP_SIGNED : EHD_TP_UNSIGNED;
    /* A "[]" inside the type (e.g. "char[]" of a __data_loc) marks a dynamic array. */
    int type_has_brackets = memchr(decl, '[', tlen) != NULL;

    f->is_array = 0;
    f->array_count = 0;
    if (f->loc) {
        f->is_array = 1;
        if (!elem)
            elem = 1;
    } else if (count != -1 || type_has_brackets) {
        f->is_array = 1;
        if (count > 0) {
            f->array_count = (uint32_t)count;
            if (f->size % (uint32_t)count == 0)
                elem = f->size / (uint32_t)count;
        } else {
            if (!elem)
                elem = 1;
            f->array_count = elem ? f->size / elem : 0;
        }
        if (!elem)
            elem = 1;
    } else {
        if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)
            elem = f->size;
        else if (f->kind != EHD_TP_STRING)
            f->kind = EHD_TP_NONE; /* odd-sized scalar: show its bytes */
        if (!elem)
            elem = f->size ? f->size : 1;
    }
    if ((f->kind == EHD_TP_HEX || f->kind == EHD_TP_SIGNED || f->kind == EHD_TP_UNSIGNED) &&
        elem != 1 && elem != 2 && elem != 4 && elem != 8)
        f->kind = EHD_TP_NONE;
    f->elem_size = elem;
    return 0;
}

void ehd_tp_format_free(ehd_tp_format *fmt)
{
    free(fmt->fields);
    free(fmt->storage);
    memset(fmt, 0, sizeof *fmt);
}

int ehd_tp_format_parse(ehd_tp_format *fmt, const char *system, const char *text, size_t len,
                        const char **reason)
{
    memset(fmt, 0, sizeof *fmt);
    size_t nfield_lines = 0;
    for (size_t i = 0; i + 6 <= len; i++)
        if (memcmp(text + i, "field:", 6) == 0)
            nfield_lines++;
    if (nfield_lines > EHD_TP_MAX_FIELDS) {
        *reason = "format has too many fields";
        return EBADMSG;
    }
    size_t syslen = system ? strlen(system) : 0;
    /* every string copied out of the text is shorter than the text itself */
    fmt->storage = malloc(2 * len + syslen + 8);
    fmt->fields = calloc(nfield_lines ? nfield_lines : 1, sizeof *fmt->fields);
    if (!fmt->storage || !fmt->fields) {
        ehd_tp_format_free(fmt);
        *reason = "out of memory";
        return ENOMEM;
    }
    char *store = fmt->storage;
    memcpy(store, system ? system : "", syslen);
    store[syslen] = 0;
    fmt->system = store;
    store += syslen + 1;

    int have_name = 0, have_id = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        if (!have_name && le - q > 5 && memcmp(q, "name:", 5) == 0) {
            q += 5;
            while (q < le && *q == ' ')
                q++;
            const char *ne = le;
            while (ne > q && (ne[-1] == ' ' || ne[-1] == '\r'))
                ne--;
            memcpy(store, q, (size_t)(ne - q));
            store[ne - q] = 0;
            fmt->name = store;
            store += ne - q + 1;
            have_name = 1;
        } else if (!have_id && le - q > 3 && memcmp(q, "ID:", 3) == 0) {
            unsigned long id;
            if (find_number(q, le, "ID:", &id) || id > UINT32_MAX) {
                ehd_tp_format_free(fmt);
                *reason = "format ID is not a number";
                return EBADMSG;
            }
            fmt->id = (uint32_t)id;
            have_id = 1;
        } else if (le - q > 6 && memcmp(q, "field:", 6) == 0) {
            q += 6;
            const char *semi = memchr(q, ';', (size_t)(le - q));
            ehd_tp_field *f = &fmt->fields[fmt->nfields];
            if (!semi || parse_field(f, q, (size_t)(semi - q), semi + 1, le, &store)) {
                ehd_tp_format_free(fmt);
                *reason = "malformed field line in format";
                return EBADMSG;
            }
            fmt->nfields++;
        } else if (le - q >= 10 && memcmp(q, "print fmt:", 10) == 0) {
            break;
        }
        p = nl ? nl + 1 : end;
    }
    if (!have_name || !have_id) {
        ehd_tp_format_free(fmt);
        *reason = "format has no name: or ID: line";
        return EBADMSG;
    }
    fmt->first_user = fmt->nfields;
    for (size_t i = 0; i < fmt->nfields; i++)
        if (strncmp(fmt->fields[i].name, "common_", 7) != 0) {
            fmt->first_user = i;
            break;
        }
    if (fmt->first_user < fmt->nfields) {
        const ehd_tp_field *f = &fmt->fields[fmt->first_user];
        fmt->is_eventheader = strcmp(f->name, "eventheader_flags") == 0 && f->offset == 8;
    }
    return 0;
}
