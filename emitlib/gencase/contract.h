/* SPDX-License-Identifier: GPL-2.0 */
/*
 * impl/lttp-c/contract.h: emit --contract (contract.c), the line protocol of
 * Documentation/impl-contract.md on microsoft/LinuxTracepoints' C macros. Kept out of
 * lttpc.h so that adding it does not recompile the generated events.
 */
#ifndef LTTPC_CONTRACT_H
#define LTTPC_CONTRACT_H

/* Answers the commands of stdin until `quit` or end of input; returns the exit status. */
int lttpc_contract_main(void);

#endif
