/* SPDX-License-Identifier: MIT */
/*
 * The `emit --contract` loop (Documentation/impl-contract.md) for the C and C++ emitters:
 * one grammar and one wording of the answers, the implementation's own calls behind the
 * callbacks. A command is words separated by blanks; a number is decimal digits only (no
 * sign, no base prefix), a sequence number at most 4294967295, a pad at most
 * CONTRACT_PAD_MAX; a command with another count of words, or a number outside that, is
 * answered `error usage` and changes nothing.
 */
#ifndef CONTRACT_LOOP_H
#define CONTRACT_LOOP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest pad any emitter is asked for: a counted string of 65,535 bytes, the most a
 * 16-bit length holds (the size row asks for events of up to 65,536 bytes in all). */
#define CONTRACT_PAD_MAX 65535u

/* What `write` answers when the API returns nothing to say how the write went. */
#define CONTRACT_WRITE_NONE (-1)

struct contract_api {
    int (*do_register)(void);   /* 0 or the errno the API returned */
    int (*do_unregister)(void); /* 0 or the errno; an API with nothing to fail returns 0 */
    int (*enabled)(void);       /* 1 or 0: the API's check for level 4, keyword 0x1 */
    /* The event: seq, then pad bytes of 'p' as a counted string; the API's return (0 or an
     * errno), or CONTRACT_WRITE_NONE */
    int (*write)(uint32_t seq, uint32_t pad);
};

/* Answers the commands of standard input until `quit` or its end, one line each, flushed
 * at once (the guest changes the tracers between an answer and the next command). Returns
 * the exit status, 0. */
int contract_loop(const struct contract_api *api);

#ifdef __cplusplus
}
#endif

#endif /* CONTRACT_LOOP_H */
