/* SPDX-License-Identifier: MIT */
/* Metadata encoding shared by the static API and the dynamic builder. */
#include <errno.h>
#include <string.h>

#include "eh_internal.h"

size_t eh_meta_field(struct eh_buf_ *m, const char *name, uint8_t encoding, uint8_t format,
                     uint16_t tag, uint16_t carray, int force_format)
{
    size_t fmt_pos = 0;
    encoding &= (uint8_t)~EH_ENC_CHAIN_FLAG;
    format &= EH_FMT_VALUE_MASK;
    eh_buf_put(m, name, strlen(name) + 1);
    if (format || tag || force_format) {
        eh_buf_u8(m, encoding | EH_ENC_CHAIN_FLAG);
        fmt_pos = m->len;
        eh_buf_u8(m, tag ? (uint8_t)(format | EH_FMT_CHAIN_FLAG) : format);
        if (tag)
            eh_buf_u16(m, tag);
    } else {
        eh_buf_u8(m, encoding);
    }
    if (encoding & EH_ENC_CARRAY_FLAG)
        eh_buf_u16(m, carray);
    return fmt_pos;
}

void eh_meta_start(struct eh_buf_ *m, const char *event_name)
{
    m->len = 0;
    m->err = 0;
    eh_buf_u16(m, 0); /* size, filled by eh_meta_finish */
    eh_buf_u16(m, EH_EXT_KIND_METADATA);
    eh_buf_put(m, event_name, strlen(event_name) + 1);
}

int eh_meta_finish(struct eh_buf_ *m)
{
    if (m->err)
        return m->err;
    size_t size = m->len - sizeof(struct eh_wire_extension);
    if (size > UINT16_MAX)
        return E2BIG;
    uint16_t s16 = (uint16_t)size;
    memcpy(m->p, &s16, 2);
    return 0;
}
