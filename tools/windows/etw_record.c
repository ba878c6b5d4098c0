/* SPDX-License-Identifier: MIT */
/*
 * etw_record.c: one ETW EVENT_RECORD of a TraceLogging provider -> one .tlcap record,
 * the form ehd_tlcap_decode() turns into ehdecode's JSON (see etw_record.h).
 * What ETW delivers (Documentation/tracelogging.md §1): the event metadata handed to
 * EventWriteTransfer comes back as extended item SCHEMA_TL (0x0B), the provider traits
 * as PROV_TRAITS (0x0C), the related activity id as RELATED_ACTIVITYID, the activity id
 * in the header, the field data as UserData.
 */
#ifdef _WIN32

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_read.h"
#include "tl_encode.h"
#include "etw_record.h"

static const uint8_t zero16[16];

struct tl_items {
    const uint8_t *schema, *traits, *related;
    size_t schema_n, traits_n;
};

static void find_items(const EVENT_RECORD *er, struct tl_items *it)
{
    memset(it, 0, sizeof *it);
    for (USHORT i = 0; i < er->ExtendedDataCount; i++) {
        const EVENT_HEADER_EXTENDED_DATA_ITEM *x = &er->ExtendedData[i];
        const uint8_t *p = (const uint8_t *)(ULONG_PTR)x->DataPtr;
        if (x->ExtType == EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL) {
            it->schema = p;
            it->schema_n = x->DataSize;
        } else if (x->ExtType == EVENT_HEADER_EXT_TYPE_PROV_TRAITS) {
            it->traits = p;
            it->traits_n = x->DataSize;
        } else if (x->ExtType == EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID && x->DataSize >= 16) {
            it->related = p;
        }
    }
}

int etw_record_schema(const EVENT_RECORD *er, const uint8_t **schema, size_t *schema_n)
{
    struct tl_items it;
    find_items(er, &it);
    if (!it.schema || !it.traits)
        return ENOENT;
    *schema = it.schema;
    *schema_n = it.schema_n;
    return 0;
}

int etw_record_to_tlcap(const EVENT_RECORD *er, uint8_t **out, size_t *size)
{
    struct tl_items it;
    find_items(er, &it);
    if (!it.schema || !it.traits)
        return ENOENT;
    const EVENT_DESCRIPTOR *d = &er->EventHeader.EventDescriptor;
    struct eh_tl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.meta = it.schema;
    ev.meta_len = it.schema_n;
    ev.level = d->Level;
    ev.opcode = d->Opcode;
    ev.version = d->Version;
    ev.id = d->Id;
    /* EventWriteTransfer with no activity id leaves the thread's, normally all zero. */
    const uint8_t *act = (const uint8_t *)&er->EventHeader.ActivityId;
    ev.activity = memcmp(act, zero16, 16) ? act : NULL;
    ev.related = it.related;
    ev.data.p = er->UserData;
    ev.data.len = er->UserDataLength;
    uint8_t guid[16];
    memcpy(guid, &er->EventHeader.ProviderId, 16);
    size_t n = eh_tl_record_encode(NULL, guid, d->Keyword, d->Channel, it.traits, it.traits_n, &ev);
    if (!n)
        return E2BIG;
    uint8_t *rec = malloc(n);
    if (!rec)
        return ENOMEM;
    eh_tl_record_encode(rec, guid, d->Keyword, d->Channel, it.traits, it.traits_n, &ev);
    *out = rec;
    *size = n;
    return 0;
}

int etw_schema_summary(const uint8_t *m, size_t n, const char **name, unsigned *top)
{
    size_t pos = 2;
    if (n < 4 || eh_read_u16(m, 0) > n)
        return -1;
    n = eh_read_u16(m, 0);
    while (pos < n && (m[pos] & 0x80))
        pos++;
    pos++;
    const uint8_t *nul = pos < n ? memchr(m + pos, 0, n - pos) : NULL;
    if (!nul)
        return -1;
    *name = (const char *)m + pos;
    pos = (size_t)(nul - m) + 1;
    unsigned pending[257]; /* members still to read per open struct */
    unsigned depth = 0;
    *top = 0;
    while (pos < n) {
        nul = memchr(m + pos, 0, n - pos);
        if (!nul || (size_t)(nul - m) + 1 >= n)
            return -1;
        pos = (size_t)(nul - m) + 1;
        uint8_t in = m[pos++], out = 0;
        if (in & TL_IN_CHAIN) {
            if (pos >= n)
                return -1;
            out = m[pos++];
            if (out & TL_OUT_CHAIN) {
                while (pos < n && (m[pos] & 0x80))
                    pos++;
                pos++;
            }
        }
        if ((in & TL_IN_COUNT_MASK) == TL_IN_CCOUNT)
            pos += 2;
        else if ((in & TL_IN_COUNT_MASK) == TL_IN_CUSTOM)
            return -1;
        if (depth == 0)
            ++*top;
        else
            pending[depth - 1]--;
        if ((in & TL_IN_TYPE_MASK) == TL_IN_STRUCT && (out & TL_OUT_TYPE_MASK) && depth < 256)
            pending[depth++] = out & TL_OUT_TYPE_MASK;
        while (depth > 0 && pending[depth - 1] == 0)
            depth--;
    }
    return pos == n ? 0 : -1;
}

#else /* !_WIN32 */

/* ISO C forbids an empty translation unit. */
typedef int etw_record_not_windows_;

#endif
