// SPDX-License-Identifier: GPL-2.0
/*
 * emit --contract: the line protocol of Documentation/impl-contract.md through
 * microsoft/LinuxTracepoints' C macros (eventheader/TraceLoggingProvider.h). The event is
 * fixed, so it is written here by hand rather than generated: provider EhconfContract,
 * event Contract (level 4, keyword 0x1), fields seq (u32) and pad (string_length16_char8,
 * default format: TraceLoggingCountedUtf8String, as gen.c writes a `str8`).
 *
 * Each command calls the macro as is and answers what it returned: the emitter decides
 * nothing (so `register` on a registered provider reaches the library's own precondition).
 * The loop, its grammar, fork and thread-register are emitlib/c/contract_loop.c's.
 */
#define _GNU_SOURCE

#include <string.h>

#include <eventheader/TraceLoggingProvider.h>

#include "contract.h"
#include "contract_loop.h"

TRACELOGGING_DEFINE_PROVIDER(gencase_contract, "EhconfContract", (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));

/* The macro stores the count in a uint16_t: the loop refuses a longer pad as malformed
   (CONTRACT_PAD_MAX), so none is silently truncated. */
static char g_pad[CONTRACT_PAD_MAX];

static int contract_register(void)
{
    return TraceLoggingRegister(gencase_contract);
}

static int contract_enabled(void)
{
    return TraceLoggingProviderEnabled(gencase_contract, 4, 0x1) ? 1 : 0;
}

/* TraceLoggingWrite returns 0 or an errno (EBADF when nobody listens). */
static int contract_write(uint32_t seq, uint32_t pad)
{
    return TraceLoggingWrite(gencase_contract, "Contract", TraceLoggingLevel(4),
                             TraceLoggingKeyword(0x1), TraceLoggingUInt32(seq, "seq"),
                             TraceLoggingCountedUtf8String(g_pad, pad, "pad"));
}

static int contract_unregister(void)
{
    TraceLoggingUnregister(gencase_contract); /* void: nothing can fail */
    return 0;
}

int gencase_contract_main(void)
{
    static const struct contract_api api = {
        .do_register = contract_register,
        .do_unregister = contract_unregister,
        .enabled = contract_enabled,
        .write = contract_write,
    };
    memset(g_pad, 'p', sizeof(g_pad));
    return contract_loop(&api);
}
