/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE fields (perf_event_open(2) "PERF_RECORD_SAMPLE", in
 * sample_type bit order) up to RAW, and the sample_id_all trailer of other
 * records. Fields after RAW (branch stack, registers, ...) do not move the raw
 * data, so they are never needed.
 */
#include <errno.h>
#include <string.h>

#include "perf_internal.h"

int ehd_perf_parse_sample(const ehd_perf_reader *r, const ehd_perf_record *rec, ehd_perf_sample *s,
                          const char **reason)
{
    memset(s, 0, sizeof *s);
    s->file_offset = rec->file_offset;
    if (!r->nattrs) {
        *reason = "sample before any attr";
        return EBADMSG;
    }
    const uint8_t *p = rec->data + 8, *end = rec->data + rec->size;
    size_t n = rec->size - 8;
    const ehd_perf_attr *a = &r->attrs[0];
    if (r->nattrs > 1 || r->nidmap) {
        if (r->id_pos < 0) {
            if (r->nattrs > 1) {
                *reason = "several attrs but samples carry no id";
                return ENOTSUP;
            }
        } else {
            if ((size_t)r->id_pos + 8 > n) {
                *reason = "sample too short for its id";
                return EBADMSG;
            }
            s->id = U64(p + r->id_pos);
            s->has_id = 1;
            a = ehd_perf_attr_by_id(r, s->id);
            if (!a && r->nattrs == 1)
                a = &r->attrs[0];
            if (!a) {
                *reason = "sample id matches no attr";
                return EBADMSG;
            }
        }
    }
    s->attr = a;
    uint64_t st = a->sample_type;
#define NEED(k)                                                   \
    do {                                                          \
        if ((size_t)(end - p) < (size_t)(k)) {                    \
            *reason = "sample shorter than its sample_type says"; \
            return EBADMSG;                                       \
        }                                                         \
    } while (0)
    if (st & EHD_PERF_SAMPLE_IDENTIFIER) {
        NEED(8);
        s->id = U64(p);
        s->has_id = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_IP) {
        NEED(8);
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_TID) {
        NEED(8);
        s->pid = U32(p);
        s->tid = U32(p + 4);
        s->has_tid = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_TIME) {
        NEED(8);
        s->time = U64(p);
        s->has_time = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_ADDR) {
        NEED(8);
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_ID) {
        NEED(8);
        s->id = U64(p);
        s->has_id = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_STREAM_ID) {
        NEED(8);
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_CPU) {
        NEED(8);
        s->cpu = U32(p);
        s->has_cpu = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_PERIOD) {
        NEED(8);
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_READ) {
        uint64_t rf = a->read_format;
        uint64_t per = 1 + !!(rf & EHD_PERF_FORMAT_ID) + !!(rf & EHD_PERF_FORMAT_LOST);
        uint64_t times = !!(rf & EHD_PERF_FORMAT_TOTAL_TIME_ENABLED) +
                         !!(rf & EHD_PERF_FORMAT_TOTAL_TIME_RUNNING);
        if (rf & EHD_PERF_FORMAT_GROUP) {
            NEED(8);
            uint64_t nr = U64(p);
            p += 8;
            uint64_t left = (uint64_t)(end - p) / 8;
            if (times > left || nr > (left - times) / per) {
                *reason = "sample read group count beyond the record";
                return EBADMSG;
            }
            p += 8 * (times + nr * per);
        } else {
            NEED(8 * (per + times));
            p += 8 * (per + times);
        }
    }
    if (st & EHD_PERF_SAMPLE_CALLCHAIN) {
        NEED(8);
        uint64_t nr = U64(p);
        p += 8;
        if (nr > (uint64_t)(end - p) / 8) {
            *reason = "sample callchain count beyond the record";
            return EBADMSG;
        }
        p += 8 * nr;
    }
    if (st & EHD_PERF_SAMPLE_RAW) {
        NEED(4);
        uint32_t rs = U32(p);
        p += 4;
        if (rs > (size_t)(end - p)) {
            *reason = "sample raw size beyond the record";
            return EBADMSG;
        }
        s->raw = p;
        s->raw_size = rs;
    }
    /* fields after RAW (branch stack, regs, ...) do not move the raw data */
    return 0;
#undef NEED
}

/* The sample_id_all trailer sits at the end of the record, fields in the
 * order TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER; IDENTIFIER (if present)
 * is the last u64, which is how the attr, and so the layout, is found. */
int ehd_perf_parse_sample_id(const ehd_perf_reader *r, const ehd_perf_record *rec,
                             ehd_perf_sample *s, const char **reason)
{
    memset(s, 0, sizeof *s);
    s->file_offset = rec->file_offset;
    if (rec->type == EHD_PERF_RECORD_SAMPLE || rec->type >= 64 || !r->nattrs) {
        *reason = "record type has no sample_id trailer";
        return ENOENT;
    }
    const ehd_perf_attr *a = &r->attrs[0];
    const uint8_t *end = rec->data + rec->size;
    size_t body = rec->size - 8;
    if (a->sample_type & EHD_PERF_SAMPLE_IDENTIFIER) {
        if (body < 8) {
            *reason = "record too short for its sample_id trailer";
            return EBADMSG;
        }
        s->id = U64(end - 8);
        s->has_id = 1;
        const ehd_perf_attr *b = ehd_perf_attr_by_id(r, s->id);
        if (b)
            a = b;
    }
    if (!(a->flags & EHD_PERF_ATTR_FLAG_SAMPLE_ID_ALL)) {
        *reason = "attr has no sample_id_all";
        return ENOENT;
    }
    uint64_t st = a->sample_type;
    size_t need = 8 * (!!(st & EHD_PERF_SAMPLE_TID) + !!(st & EHD_PERF_SAMPLE_TIME) +
                       !!(st & EHD_PERF_SAMPLE_ID) + !!(st & EHD_PERF_SAMPLE_STREAM_ID) +
                       !!(st & EHD_PERF_SAMPLE_CPU) + !!(st & EHD_PERF_SAMPLE_IDENTIFIER));
    if (need > body) {
        *reason = "record too short for its sample_id trailer";
        return EBADMSG;
    }
    s->attr = a;
    const uint8_t *p = end - need;
    if (st & EHD_PERF_SAMPLE_TID) {
        s->pid = U32(p);
        s->tid = U32(p + 4);
        s->has_tid = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_TIME) {
        s->time = U64(p);
        s->has_time = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_ID) {
        s->id = U64(p);
        s->has_id = 1;
        p += 8;
    }
    if (st & EHD_PERF_SAMPLE_STREAM_ID)
        p += 8;
    if (st & EHD_PERF_SAMPLE_CPU) {
        s->cpu = U32(p);
        s->has_cpu = 1;
    }
    return 0;
}
