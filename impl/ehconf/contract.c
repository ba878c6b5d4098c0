/* SPDX-License-Identifier: MIT */
/*
 * emit --contract: the line protocol of Documentation/impl-contract.md through ehconf's own
 * libeventheader (its dynamic builder on a runtime tracepoint of the provider), so the
 * reference answers every contract row the way the other implementations are asked to. The
 * loop, its grammar, fork and thread-register are emitlib/c/contract_loop.c's; here are
 * the library's calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "contract_loop.h"
#include "emit.h"

#define LEVEL   4
#define KEYWORD 0x1

static eh_provider provider = {.name = "EhconfContract"};
static eh_tracepoint *tp; /* the (level 4, keyword 1) tracepoint; valid until exit */

static int do_register(void)
{
    int err = eh_provider_register(&provider);
    if (!err && !tp)
        err = eh_provider_tracepoint(&provider, LEVEL, KEYWORD, &tp);
    return err;
}

static int enabled(void)
{
    return tp && eh_tracepoint_enabled(tp);
}

/* The event: u32 seq, then pad bytes of 'p' as a counted string. Returns the errno of
 * eh_builder_write (or of the add that failed; EBADF before any registration, as for a
 * disabled tracepoint). */
static int write_event(uint32_t seq, uint32_t pad)
{
    if (!tp)
        return EBADF;
    char *bytes = malloc(pad ? pad : 1);
    if (!bytes)
        return ENOMEM;
    memset(bytes, 'p', pad);
    uint32_t v = seq;
    eh_builder b;
    eh_builder_init(&b);
    int err = eh_builder_reset(&b, "Contract", 0, 0, 0, 0);
    if (!err)
        err = eh_builder_add_value(&b, "seq", EH_ENC_VALUE32, EH_FMT_DEFAULT, 0, &v);
    if (!err)
        err = eh_builder_add_string(&b, "pad", EH_ENC_STRING_LENGTH16_CHAR8, EH_FMT_DEFAULT, 0,
                                    bytes, pad);
    if (!err)
        err = eh_builder_write(&b, tp, NULL, NULL);
    eh_builder_destroy(&b);
    free(bytes);
    return err;
}

static int do_unregister(void)
{
    return eh_provider_unregister(&provider);
}

int contract_main(void)
{
    static const struct contract_api api = {
        .do_register = do_register,
        .do_unregister = do_unregister,
        .enabled = enabled,
        .write = write_event,
    };
    return contract_loop(&api);
}
