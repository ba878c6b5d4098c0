/* SPDX-License-Identifier: MIT */
/*
 * ehdescribe: the case description of every event in a capture file.
 *
 *   ehdescribe FILE.dat
 *
 * Prints, for each record of a capture (.dat) file, the statements of
 * Documentation/case-descriptions.md that write the same event again: a `provider` line
 * where the provider (or its group) changes, then `event ... end` with the header's
 * attributes, the activity ids and every field, named by the first row of
 * descriptions/types.txt (compiled in) whose encoding and format it has. `needs=` lists
 * the features the bytes show (fields>99, fields>254, size>65534, name-non-utf8,
 * carray); the steps a capture cannot show (register, threads, fork) are the case's.
 * The events are read with the decoder's own parse (lib/decode/internal/ehd_view.h), so
 * what ehdecode rejects is rejected here with the same reason.
 * Exit: 0 every event described, 1 one could not be (ehdescribe: FILE:OFFSET: reason on
 * stderr; the description stops there), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ehd.h"
#include "ehd_view.h"
#include "eventheader_read.h" /* eh_enc_value_size */

#include "eh_types.h" /* eh_types[]: descriptions/types.txt */

/* One event being described: where its errors go. */
struct describe {
    const struct ehd_view *v;
    const char **reason;
    size_t *err_offset;
};

static void put_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        putchar_unlocked("0123456789abcdef"[p[i] >> 4]);
        putchar_unlocked("0123456789abcdef"[p[i] & 15]);
    }
}

/* A name token: bytes outside 0x21..0x7E and '%' as %XX, so names with spaces or
 * invalid UTF-8 stay exact; an empty name is "-" and the name "-" is "%2D". */
static void put_name(const void *name, size_t n)
{
    const uint8_t *s = name;
    if (n == 0) {
        putchar_unlocked('-');
        return;
    }
    if (n == 1 && s[0] == '-') {
        fputs("%2D", stdout);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x21 || s[i] > 0x7E || s[i] == '%')
            printf("%%%02X", s[i]);
        else
            putchar_unlocked(s[i]);
    }
}

static void indent(unsigned depth)
{
    for (unsigned i = 0; i < depth; i++)
        fputs("  ", stdout);
}

/* True if s is well-formed UTF-8 (no overlong forms, surrogates or values above
 * U+10FFFF): the names an implementation taking UTF-8 strings can pass. */
static int is_utf8(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        size_t k; /* continuation bytes */
        if (c < 0x80)
            k = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            k = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            k = 2;
        else if (c >= 0xF0 && c <= 0xF4)
            k = 3;
        else
            return 0;
        if (n - i - 1 < k)
            return 0;
        /* the second byte's range rules out overlong forms, surrogates and > U+10FFFF */
        uint8_t lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        uint8_t hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        for (size_t j = 1; j <= k; j++) {
            uint8_t b = s[i + j];
            if (b < (j == 1 ? lo : 0x80) || b > (j == 1 ? hi : 0xBF))
                return 0;
        }
        i += k + 1;
    }
    return 1;
}

/* `type` of a field: the first row with its encoding and format, plus _slice / _array,
 * or raw:<encoding byte with the array flags>:<format> where no row matches. */
static void put_type(const struct ehd_node *f)
{
    for (size_t i = 0; i < sizeof eh_types / sizeof eh_types[0]; i++) {
        if (eh_types[i].encoding != f->enc || eh_types[i].format != f->fmt)
            continue;
        fputs(eh_types[i].name, stdout);
        fputs(f->array == EH_ENC_VARRAY_FLAG   ? "_slice"
              : f->array == EH_ENC_CARRAY_FLAG ? "_array"
                                               : "",
              stdout);
        return;
    }
    printf("raw:%02x:%02x", f->enc | f->array, f->fmt);
}

static void put_tag(uint16_t tag)
{
    if (tag)
        printf(" tag=0x%x", tag);
}

static int fail(const struct describe *d, size_t offset, const char *why)
{
    *d->reason = why;
    *d->err_offset = offset;
    return EINVAL;
}

static int describe_field(const struct describe *d, uint32_t idx, size_t *pos, unsigned depth);

/* The members of struct node idx at *pos; pos NULL: no data (an array of 0 structs),
 * placeholder values that give only the metadata. */
static int describe_members(const struct describe *d, uint32_t idx, size_t *pos, unsigned depth)
{
    const struct ehd_node *s = &d->v->fields[idx];
    for (uint32_t m = idx + 1; m < s->end; m = d->v->fields[m].end) {
        int err = describe_field(d, m, pos, depth);
        if (err)
            return err;
    }
    return 0;
}

/* The element count of field f (1 when it is no array): a constant array's from the
 * metadata, a variable one's from the payload at *pos, or 0 without data (pos NULL). */
static int count_of(const struct describe *d, const struct ehd_node *f, size_t *pos,
                    uint32_t *count)
{
    size_t metadata_only = d->v->payload;
    *count = f->array ? 0 : 1;
    if (!f->array || (!pos && f->array == EH_ENC_VARRAY_FLAG))
        return 0;
    return ehd_view_count(d->v, f, pos ? pos : &metadata_only, count, d->reason, d->err_offset);
}

static int describe_struct(const struct describe *d, uint32_t idx, size_t *pos, unsigned depth)
{
    const struct ehd_node *f = &d->v->fields[idx];
    uint32_t count;
    if (f->array == EH_ENC_CARRAY_FLAG)
        return fail(d, pos ? *pos : d->v->payload,
                    "a constant-length array of structs has no description syntax");
    int err = count_of(d, f, pos, &count);
    if (err)
        return err;
    indent(depth);
    fputs(f->array ? "struct_slice " : "struct ", stdout);
    put_name(f->name, f->name_len);
    if (f->array)
        printf(" %" PRIu32, count);
    put_tag(f->tag);
    putchar_unlocked('\n');
    /* An array of 0 structs still needs its members once, for the metadata. */
    for (uint32_t e = 0; e < (f->array ? (count ? count : 1) : 1); e++) {
        unsigned inner = depth + (f->array ? 2 : 1);
        if (f->array) {
            indent(depth + 1);
            fputs("element\n", stdout);
        }
        err = describe_members(d, idx, count ? pos : NULL, inner);
        if (err)
            return err;
        if (f->array) {
            indent(depth + 1);
            fputs("end\n", stdout);
        }
    }
    indent(depth);
    fputs("end\n", stdout);
    return 0;
}

/* One value of f at *pos, or its placeholder (zeros; an empty string) when pos is NULL. */
static int put_one_value(const struct describe *d, const struct ehd_node *f, size_t *pos)
{
    static const uint8_t zeros[16];
    const uint8_t *value = zeros;
    size_t size = eh_enc_value_size(f->enc);
    if (pos) {
        int err = ehd_view_value(d->v, f, pos, &value, &size, d->reason, d->err_offset);
        if (err)
            return err;
    }
    if (size == 0)
        putchar_unlocked('-');
    put_hex(value, size);
    return 0;
}

static int describe_field(const struct describe *d, uint32_t idx, size_t *pos, unsigned depth)
{
    const struct ehd_node *f = &d->v->fields[idx];
    uint32_t count;
    if (f->enc == EH_ENC_STRUCT)
        return describe_struct(d, idx, pos, depth);
    if (f->array && !eh_enc_value_size(f->enc))
        return fail(d, pos ? *pos : d->v->payload, "an array of strings has no description syntax");
    int err = count_of(d, f, pos, &count);
    if (err)
        return err;
    indent(depth);
    put_type(f);
    putchar_unlocked(' ');
    put_name(f->name, f->name_len);
    putchar_unlocked(' ');
    if (f->array && count == 0)
        putchar_unlocked('-');
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            putchar_unlocked(',');
        err = put_one_value(d, f, pos);
        if (err)
            return err;
    }
    put_tag(f->tag);
    putchar_unlocked('\n');
    return 0;
}

/* `needs=` features the bytes show (Documentation/case-descriptions.md, Features). */
static void put_needs(const struct ehd_view *v)
{
    const char *needs[5];
    int n = 0, utf8 = is_utf8((const uint8_t *)v->provider, v->provider_len) &&
                      is_utf8(v->name, v->name_len);
    int carray = 0;
    for (uint32_t i = 0; i < v->n_fields; i++) {
        utf8 = utf8 && is_utf8(v->fields[i].name, v->fields[i].name_len);
        carray = carray || v->fields[i].array == EH_ENC_CARRAY_FLAG;
    }
    if (v->n_fields > 99)
        needs[n++] = "fields>99";
    if (v->n_fields > 254)
        needs[n++] = "fields>254";
    if (v->size > 65534)
        needs[n++] = "size>65534";
    if (!utf8)
        needs[n++] = "name-non-utf8";
    if (carray)
        needs[n++] = "carray";
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? "," : " needs=", needs[i]);
}

static int describe_event(const struct describe *d)
{
    const struct ehd_view *v = d->v;
    fputs("event ", stdout);
    put_name(v->name, v->name_len);
    printf(" level=%u keyword=0x%" PRIx64, v->level, v->keyword);
    if (v->opcode)
        printf(" opcode=%u", v->opcode);
    if (v->tag)
        printf(" tag=0x%x", v->tag);
    if (v->id)
        printf(" id=%u", v->id);
    if (v->version)
        printf(" version=%u", v->version);
    if (v->activity) {
        fputs(" activity=", stdout);
        put_hex(v->activity, 16);
    }
    if (v->activity_size == 32) {
        fputs(" related=", stdout);
        put_hex(v->activity + 16, 16);
    }
    put_needs(v);
    putchar_unlocked('\n');
    size_t pos = v->payload;
    for (uint32_t i = 0; i < v->n_fields; i = v->fields[i].end) {
        int err = describe_field(d, i, &pos, 1);
        if (err)
            return err;
    }
    fputs("end\n", stdout);
    return 0;
}

/* The provider of the previous event (names longer than the room are never "the same"). */
struct last_provider {
    char name[EH_NAME_MAX], group[EH_NAME_MAX];
    size_t name_len, group_len;
    int known, grouped;
};

/* The provider line, when provider or group differ from the previous event's. */
static void put_provider(const struct ehd_view *v, struct last_provider *last)
{
    int grouped = v->group != NULL;
    if (last->known && last->name_len == v->provider_len && last->grouped == grouped &&
        last->group_len == v->group_len && memcmp(last->name, v->provider, v->provider_len) == 0 &&
        (!grouped || memcmp(last->group, v->group, v->group_len) == 0))
        return;
    last->known = v->provider_len <= sizeof last->name && v->group_len <= sizeof last->group;
    if (last->known) {
        memcpy(last->name, v->provider, v->provider_len);
        memcpy(last->group, grouped ? v->group : "", v->group_len);
        last->name_len = v->provider_len;
        last->group_len = v->group_len;
        last->grouped = grouped;
    }
    fputs("provider ", stdout);
    put_name(v->provider, v->provider_len);
    if (grouped) {
        fputs(" group=", stdout);
        put_name(v->group, v->group_len);
    }
    putchar_unlocked('\n');
}

static int describe_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ehdescribe: %s: %s\n", path, strerror(errno));
        return 1;
    }
    ehd_dat_reader *r = ehd_dat_open(f);
    ehd_dat_record rec;
    const char *reason = "out of memory";
    uint64_t offset = 0;
    struct last_provider last = {.known = 0};
    int got = r ? 0 : -1, status = 0;
    while (r && (got = ehd_dat_next(r, &rec, &reason, &offset)) == 1) {
        struct ehd_view v;
        size_t at = 0;
        struct describe d = {.v = &v, .reason = &reason, .err_offset = &at};
        int err = ehd_view_open(&v, rec.tp_name, rec.tp_name_len, rec.data, rec.size, &reason, &at);
        if (!err && v.big_endian)
            err = fail(&d, 0, "a big-endian event: descriptions hold little-endian values");
        if (!err) {
            put_provider(&v, &last);
            err = describe_event(&d);
        }
        ehd_view_close(&v);
        if (err) {
            /* the record's event bytes start after the size and the name */
            offset = rec.file_offset + 4 + rec.tp_name_len + 1 + at;
            got = -1;
            break;
        }
    }
    if (got < 0) {
        fflush(stdout);
        fprintf(stderr, "ehdescribe: %s:%" PRIu64 ": %s\n", path, offset, reason);
        status = 1;
    }
    ehd_dat_close(r);
    fclose(f);
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fputs("usage: ehdescribe FILE.dat\n"
              "Prints the case description (Documentation/case-descriptions.md) of every\n"
              "event of a capture file. Exit status: 0 all described, 1 an event could not\n"
              "be, 2 usage error.\n",
              argc == 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
        return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    int status = describe_file(argv[1]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ehdescribe: write error: %s\n", strerror(errno));
        return 1;
    }
    return status;
}
