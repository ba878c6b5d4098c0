/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emitlib/gencase/contract.h: emit --contract, the line protocol of
 * Documentation/impl-contract.md, which each generated row answers in its own contract.c
 * (impl/lttp-c/, impl/ehconf-macros/) through its API. Kept out of gencase.h so that
 * changing it does not recompile the generated events.
 */
#ifndef GENCASE_CONTRACT_H
#define GENCASE_CONTRACT_H

/* Answers the commands of stdin until `quit` or end of input; returns the exit status. */
int gencase_contract_main(void);

#endif
