/* SPDX-License-Identifier: MIT */
/*
 * Repetition i of a `repeat`'s events: the same event with its own ordinal, and each
 * +<step> value advanced i steps (Documentation/case-descriptions.md). Events without a
 * step share their fields with the first repetition: parsed data is never written again.
 */
#include <string.h>

#include "desc_internal.h"

int desc_fields_step(const struct desc_field *fields, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (fields[i].step || desc_fields_step(fields[i].members, fields[i].n_members))
            return 1;
    return 0;
}

/* value += add, as an unsigned little-endian number of size bytes, wrapping around. */
static void advance(uint8_t *value, size_t size, uint64_t add)
{
    unsigned carry = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned sum = value[i] + (unsigned)(add & 0xFF) + carry;
        value[i] = (uint8_t)sum;
        carry = sum >> 8;
        add >>= 8;
    }
}

struct desc_field *desc_fields_at(struct desc *d, const struct desc_field *fields, uint32_t n,
                                  uint32_t rep)
{
    struct desc_field *out = desc_alloc(d, (n ? n : 1) * sizeof *out);
    if (!out)
        return NULL;
    memcpy(out, fields, n * sizeof *out);
    for (uint32_t i = 0; i < n; i++) {
        struct desc_field *f = &out[i];
        if (f->step) {
            uint8_t *data = desc_alloc(d, f->size);
            if (!data)
                return NULL;
            memcpy(data, f->data, f->size);
            /* the step counts in the file's little-endian order */
            if (DESC_BIG_ENDIAN)
                desc_reverse_units(f, data);
            advance(data, f->size, (uint64_t)rep * f->step);
            if (DESC_BIG_ENDIAN)
                desc_reverse_units(f, data);
            f->data = data;
        } else if (desc_fields_step(f->members, f->n_members)) {
            f->members = desc_fields_at(d, f->members, f->n_members, rep);
            if (!f->members)
                return NULL;
        }
    }
    return out;
}
