// SPDX-License-Identifier: GPL-2.0
/*
 * emit --contract: the line protocol of Documentation/impl-contract.md through ehconf's
 * static macros. The event is fixed, so it is written here by hand rather than generated:
 * provider EhconfContract, event Contract (level 4, keyword 0x1), fields seq (EH_U32) and pad
 * (EH_STR8, a counted string of 'p'), as impl/ehconf/contract.c writes it with the builder.
 *
 * Each command calls the library as is and answers what it returned: the emitter decides
 * nothing. The loop, its grammar, fork and thread-register are emitlib/c/contract_loop.c's;
 * the entry point is the one emitlib/gencase/driver.c calls (contract.h there).
 */
#define _GNU_SOURCE

#include <string.h>

#include <eventheader.h>

#include "contract.h"
#include "contract_loop.h"

static EH_DEFINE_PROVIDER(ehm_contract, "EhconfContract");

static char g_pad[CONTRACT_PAD_MAX];

static int contract_register(void)
{
    return eh_provider_register(&ehm_contract);
}

static int contract_enabled(void)
{
    return EH_ENABLED(ehm_contract, 4, 0x1);
}

/* EH_WRITE returns 0 or an errno (EBADF while nobody listens). */
static int contract_write(uint32_t seq, uint32_t pad)
{
    return EH_WRITE(ehm_contract, EH_EVENT("Contract", 4, 0x1), EH_U32("seq", seq),
                    EH_STR8("pad", g_pad, pad));
}

static int contract_unregister(void)
{
    return eh_provider_unregister(&ehm_contract);
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
