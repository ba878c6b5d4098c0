/* SPDX-License-Identifier: MIT */
/*
 * The writer's one growable byte buffer (struct eh_buf_, declared in eventheader.h
 * because eh_builder holds two): EventHeader metadata, the dynamic builder's payload
 * and every TraceLogging translation (metadata, payload) are built in it. Errors are
 * sticky: after a failed growth err is ENOMEM and later appends are dropped, so callers
 * check once at the end. Zero-initialise before the first use; buf.c.
 */
#ifndef EH_BUF_H
#define EH_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "eventheader.h"

void eh_buf_reserve(struct eh_buf_ *b, size_t more);
void eh_buf_put(struct eh_buf_ *b, const void *p, size_t len);
void eh_buf_u8(struct eh_buf_ *b, uint8_t v);
/* Host byte order: EventHeader events are in the producer's order (the header flags
 * say which). */
void eh_buf_u16(struct eh_buf_ *b, uint16_t v);
/* Little-endian, whatever the host: TraceLogging and the .tlcap format. */
void eh_buf_u16le(struct eh_buf_ *b, uint16_t v);
void eh_buf_u64le(struct eh_buf_ *b, uint64_t v);
void eh_buf_free(struct eh_buf_ *b);

#endif /* EH_BUF_H */
