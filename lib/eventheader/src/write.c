/* SPDX-License-Identifier: MIT */
/*
 * The one place that assembles an event for a backend: header, optional activity
 * extension, metadata extension, payload; the size limit is checked here so that
 * the static API and the dynamic builder behave the same.
 */
#include <errno.h>
#include <string.h>

#include "eh_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define EH_FLAG_HOST_ENDIAN EH_FLAG_LITTLE_ENDIAN
#else
#define EH_FLAG_HOST_ENDIAN 0
#endif
#define EH_FLAG_HOST_POINTER (sizeof(void *) == 8 ? EH_FLAG_POINTER64 : 0)

_Static_assert(sizeof(struct eh_wire_header) == EH_HEADER_SIZE, "EventHeader header size");

void eh_header_bytes(uint8_t out[EH_HEADER_SIZE], uint8_t level, uint8_t opcode, uint16_t tag,
                     uint16_t id, uint8_t version)
{
    struct eh_wire_header h = {
        .flags = (uint8_t)(EH_FLAG_HOST_POINTER | EH_FLAG_HOST_ENDIAN | EH_FLAG_EXTENSION),
        .version = version,
        .id = id,
        .tag = tag,
        .opcode = opcode,
        .level = level,
    };
    memcpy(out, &h, sizeof h);
}

int eh_write_event(eh_tracepoint *tp, uint8_t level, uint8_t opcode, uint16_t tag, uint16_t id,
                   uint8_t version, const uint8_t *activity, const uint8_t *related,
                   const uint8_t *meta, size_t meta_len, struct iovec *iov, int iovcnt,
                   size_t payload_len, const struct eh_tl_hints *hints)
{
    /* header (8) + activity extension (4 + 16 or 32) */
    uint8_t head[sizeof(struct eh_wire_header) + sizeof(struct eh_wire_extension) + 32];
    size_t head_len = sizeof(struct eh_wire_header);
    if (related && !activity)
        return EINVAL;
    eh_header_bytes(head, level, opcode, tag, id, version);
    if (activity) {
        /* The metadata extension always follows, hence the chain bit. */
        struct eh_wire_extension ext = {
            .size = related ? 32 : 16,
            .kind = EH_EXT_KIND_ACTIVITY_ID | EH_EXT_CHAIN,
        };
        memcpy(head + head_len, &ext, sizeof ext);
        head_len += sizeof ext;
        memcpy(head + head_len, activity, 16);
        head_len += 16;
        if (related) {
            memcpy(head + head_len, related, 16);
            head_len += 16;
        }
    }
    size_t total = head_len + meta_len + payload_len;
    if (total > EH_EVENT_SIZE_MAX)
        return E2BIG;
    const struct eh_backend *be = eh_backend_current();
    if (!be || __atomic_load_n(&tp->write_index, __ATOMIC_RELAXED) < 0)
        return EBADF;
    iov[EH_IOV_HEADER].iov_base = head;
    iov[EH_IOV_HEADER].iov_len = head_len;
    iov[EH_IOV_META].iov_base = (void *)meta;
    iov[EH_IOV_META].iov_len = meta_len;
    return be->write(tp, iov, iovcnt, total, hints);
}
