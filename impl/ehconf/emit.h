/* SPDX-License-Identifier: MIT */
/* The reference emitter's pieces: emit.c runs a description's steps, emit_event.c writes
 * one event through libeventheader's dynamic builder, bench.c times them (emit --bench). */
#ifndef EMIT_H
#define EMIT_H

#include <stddef.h>

#include "desc.h"
#include "eventheader.h"

/* Writes event e (e->provider->user is its eh_provider) with builder b. Returns 0, or the
 * errno of the first call that failed, with that call, the field and the errno in why. */
int emit_event(eh_builder *b, const struct desc_event *e, char *why, size_t cap);

/* The same on tracepoint tp, which the caller looked up (emit --bench looks it up once). */
int emit_event_on(eh_builder *b, eh_tracepoint *tp, const struct desc_event *e, char *why,
                  size_t cap);

/* Event e's reset and adds on builder b, without the write (for eh_prepared_init). */
int emit_event_build(eh_builder *b, const struct desc_event *e, char *why, size_t cap);

/* Event e's data as eh_prepared_write takes it (one eh_arg per field with data, in the
 * order of the adds) into args; returns how many, or -1 (an array of structs, or more
 * than cap). */
int emit_event_args(const struct desc_event *e, eh_arg *args, int cap);

/* emit --bench COUNT FILE.events (bench.c, emitlib/c/bench.h). Returns the exit status. */
int bench_main(const char *count, const char *path);

/* emit --contract (contract.c): the protocol of Documentation/impl-contract.md on
 * stdin/stdout until "quit" or end of input. Returns the exit status. */
int contract_main(void);

#endif /* EMIT_H */
