/* SPDX-License-Identifier: MIT */
/*
 * The tokens of a case description (Documentation/case-descriptions.md): names with
 * %XX escapes, field types (descriptions/types.txt, compiled in as eh_types.h) and
 * values as little-endian hex bytes, kept in the machine's byte order (desc_order.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_internal.h"
#include "eventheader_read.h" /* eh_enc_value_size */
#include "eventheader_wire.h"

#include "eh_types.h" /* eh_types[]: descriptions/types.txt */

/* ---- names ---- */

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

const char *desc_name(struct desc *d, const char *token, const char **why)
{
    size_t n = strlen(token), k = 0;
    char *out = desc_alloc(d, n + 1);
    if (!out) {
        *why = "out of memory";
        return NULL;
    }
    if (strcmp(token, "-") == 0)
        return out; /* the empty name */
    for (size_t i = 0; i < n; i++) {
        if (token[i] != '%') {
            out[k++] = token[i];
            continue;
        }
        int hi = i + 2 < n ? hex_digit(token[i + 1]) : -1;
        int lo = hi >= 0 ? hex_digit(token[i + 2]) : -1;
        if (lo < 0) {
            *why = "a '%' in a name must be followed by two hex digits";
            return NULL;
        }
        if (hi == 0 && lo == 0) {
            *why = "a name cannot hold a NUL byte (%00)";
            return NULL;
        }
        out[k++] = (char)(hi << 4 | lo);
        i += 2;
    }
    return out;
}

char *desc_name_token(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    if (!*name && cap > 1)
        out[k++] = '-';
    for (; *name && k + 4 <= cap; name++) {
        unsigned char c = (unsigned char)*name;
        if (c < 0x21 || c > 0x7E || c == '%' || (c == '-' && !name[1] && k == 0))
            k += (size_t)snprintf(out + k, cap - k, "%%%02X", c);
        else
            out[k++] = (char)c;
    }
    if (cap)
        out[k < cap ? k : cap - 1] = 0;
    return out;
}

/* ---- types ---- */

const char *desc_type_at(size_t i, uint8_t *encoding, uint8_t *format)
{
    if (i >= sizeof eh_types / sizeof eh_types[0])
        return NULL;
    *encoding = eh_types[i].encoding;
    *format = eh_types[i].format;
    return eh_types[i].name;
}

static int parse_hex_byte(const char *s, size_t n, uint8_t *out)
{
    unsigned v = 0;
    if (n != 2)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int x = hex_digit(s[i]);
        if (x < 0)
            return -1;
        v = v << 4 | (unsigned)x;
    }
    *out = (uint8_t)v;
    return 0;
}

/* raw:<encoding byte, with 0x20 or 0x40 for arrays>:<format> */
static int raw_type(const char *t, uint8_t *enc, uint8_t *fmt)
{
    const char *colon = strchr(t, ':');
    if (!colon || parse_hex_byte(t, (size_t)(colon - t), enc) ||
        parse_hex_byte(colon + 1, strlen(colon + 1), fmt))
        return -1;
    return 0;
}

static unsigned string_unit(uint8_t enc)
{
    switch (enc) {
    case EH_ENC_ZSTRING_CHAR8:
    case EH_ENC_STRING_LENGTH16_CHAR8:
    case EH_ENC_BINARY_LENGTH16_CHAR8: return 1;
    case EH_ENC_ZSTRING_CHAR16:
    case EH_ENC_STRING_LENGTH16_CHAR16: return 2;
    case EH_ENC_ZSTRING_CHAR32:
    case EH_ENC_STRING_LENGTH16_CHAR32: return 4;
    default: return 0;
    }
}

int desc_type(const char *token, struct desc_field *f, const char **why)
{
    uint8_t enc = 0, fmt = 0, array = 0;
    const struct eh_type_row *row = NULL;
    if (strncmp(token, "raw:", 4) == 0) {
        if (raw_type(token + 4, &enc, &fmt)) {
            *why = "a raw type is raw:<encoding hex>:<format hex>";
            return -1;
        }
        array = enc & (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG);
        if ((enc & EH_ENC_CHAIN_FLAG) || (fmt & EH_FMT_CHAIN_FLAG) ||
            array == (EH_ENC_CARRAY_FLAG | EH_ENC_VARRAY_FLAG)) {
            *why = "a raw type's encoding takes 0x20 or 0x40 and its format no flag";
            return -1;
        }
        enc &= EH_ENC_VALUE_MASK;
    } else {
        size_t n = strlen(token);
        for (size_t i = 0; i < sizeof eh_types / sizeof eh_types[0] && !row; i++) {
            size_t k = strlen(eh_types[i].name);
            if (strncmp(token, eh_types[i].name, k) != 0)
                continue;
            if (k == n)
                row = &eh_types[i];
            else if (strcmp(token + k, "_slice") == 0 || strcmp(token + k, "_array") == 0) {
                row = &eh_types[i];
                array = token[k + 1] == 's' ? EH_ENC_VARRAY_FLAG : EH_ENC_CARRAY_FLAG;
            }
        }
        if (!row) {
            *why = "unknown field type (descriptions/types.txt lists them)";
            return -1;
        }
        enc = row->encoding;
        fmt = row->format;
    }
    unsigned value_size = eh_enc_value_size(enc), str_unit = string_unit(enc);
    if (!value_size && !str_unit) {
        *why = "the encoding is not a value or string encoding";
        return -1;
    }
    if (array && !value_size) {
        *why = "only value types have _slice and _array forms";
        return -1;
    }
    f->encoding = enc;
    f->format = fmt;
    f->unit = value_size ? value_size : str_unit;
    f->kind = array == EH_ENC_VARRAY_FLAG   ? DESC_VARRAY
              : array == EH_ENC_CARRAY_FLAG ? DESC_CARRAY
              : value_size                  ? DESC_VALUE
                                            : DESC_STRING;
    return 0;
}

/* ---- values ---- */

/* n hex digits at s into out (n even). */
static int hex_bytes(const char *s, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

static int is_zero_unit(const uint8_t *p, unsigned unit)
{
    for (unsigned i = 0; i < unit; i++)
        if (p[i])
            return 0;
    return 1;
}

static int string_value(struct desc *d, const char *token, struct desc_field *f, const char **why)
{
    size_t n = strcmp(token, "-") == 0 ? 0 : strlen(token);
    uint8_t *out = desc_alloc(d, n / 2 + 1);
    if (!out) {
        *why = "out of memory";
        return -1;
    }
    if (n % (2 * f->unit) || hex_bytes(token, n, out)) {
        *why = f->unit == 1 ? "a string value is hex bytes, or - when empty"
                            : "a string value is hex code units of its width, or - when empty";
        return -1;
    }
    if (n / 2 / f->unit > UINT16_MAX) {
        *why = "a string of more than 65535 code units";
        return -1;
    }
    if (f->encoding >= EH_ENC_ZSTRING_CHAR8 && f->encoding <= EH_ENC_ZSTRING_CHAR32) {
        for (size_t i = 0; i < n / 2; i += f->unit) {
            if (is_zero_unit(out + i, f->unit)) {
                *why = "a zero-terminated string cannot hold a 0 code unit";
                return -1;
            }
        }
    }
    f->data = out;
    f->size = n / 2;
    f->count = 1;
    return 0;
}

/* A value, or the elements of an array separated by ',' ("-": no element). */
static int values(struct desc *d, const char *token, struct desc_field *f, const char **why)
{
    int array = f->kind != DESC_VALUE;
    size_t n = strlen(token), width = 2 * f->unit, count = 0;
    if (!array && n != width) {
        *why = "the value is not hex bytes of the type's size";
        return -1;
    }
    if (!array || strcmp(token, "-") != 0) {
        /* every element is width digits, and all but the last a ',' after them */
        if ((n + array) % (width + array) != 0) {
            *why = "array elements are hex values of the type's size separated by ','";
            return -1;
        }
        count = (n + array) / (width + array);
    }
    if (count > UINT16_MAX || (f->kind == DESC_CARRAY && count == 0)) {
        *why = count ? "an array of more than 65535 elements"
                     : "a constant-length array needs at least one element";
        return -1;
    }
    uint8_t *out = desc_alloc(d, count * f->unit + 1);
    if (!out) {
        *why = "out of memory";
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        const char *e = token + i * (width + array);
        if ((i + 1 < count && e[width] != ',') || hex_bytes(e, width, out + i * f->unit)) {
            *why = "bad hex in the value";
            return -1;
        }
    }
    f->data = out;
    f->size = count * f->unit;
    f->count = (uint32_t)count;
    return 0;
}

int desc_value(struct desc *d, const char *token, struct desc_field *f, const char **why)
{
    int err = f->kind == DESC_STRING ? string_value(d, token, f, why) : values(d, token, f, why);
    if (!err && DESC_BIG_ENDIAN)
        desc_reverse_units(f, (uint8_t *)f->data); /* the machine's numbers (desc.h) */
    return err;
}
