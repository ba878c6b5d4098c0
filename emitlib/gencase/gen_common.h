/* SPDX-License-Identifier: GPL-2.0 */
/*
 * emitlib/gencase/gen_common.h: what every per-case generator shares (impl/lttp-c/gen.c,
 * impl/ehconf-macros/gen.c). A generator turns one case description into C for a macro
 * API: the API-specific part is how a field, an event and a provider are written; the rest
 * is here: a string builder and C literals, the header the reasons cite, the description
 * parsed with its steps flattened into gencase.h's list and its text cut into items, the
 * output files, the tables of the case, and `gen --table`.
 */
#ifndef GENCASE_GEN_COMMON_H
#define GENCASE_GEN_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "desc.h"
#include "gencase.h"

/* realloc that exits with "gen: out of memory" (a generator has nothing to save). */
void *gen_xrealloc(void *p, size_t n);

/* A growing string, always NUL-terminated once anything is added ({0} is empty). */
struct gen_sb {
    char *p;
    size_t n, cap;
};

void gen_sb_add(struct gen_sb *s, char const *text, size_t n);
void gen_sb_printf(struct gen_sb *s, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A C string literal of any bytes: printable ASCII as is (but `"`, `\` and `?`, for
 * trigraphs), the rest as 3-digit octal escapes, which never merge with what follows. */
void gen_sb_literal(struct gen_sb *s, unsigned char const *p, size_t n);
void gen_sb_cstr(struct gen_sb *s, char const *text);

/* Why an event cannot be written: the first reason given stands (why stays NULL until
 * then), so a field deep in an event cannot replace the reason its first problem gave. */
struct gen_reason {
    char const *why;
    char buf[1024];
};

void gen_reason_set(struct gen_reason *r, char const *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The API's header, read once, so that a reason can cite the line holding `what` (0 when
 * it is not there). */
void gen_header_load(char const *path);
int gen_header_line(char const *what);

/* The case: the description (exit 2 with libdesc's `file:line: reason` when it is
 * refused), its C identifier, its events by ordinal, the flat step list of gencase.h and
 * the text items with the ordinals each event item stands for. */
struct gen_step {
    int kind, line, arg; /* kind: GENCASE_REGISTER ... GENCASE_END */
};

struct gen_source {
    char const *path;
    struct desc desc;
    char name[1024];                  /* the case name's token */
    char *ident;                      /* its C identifier */
    struct desc_event const **events; /* [ordinal - 1] */
    struct gen_step *steps;
    size_t nsteps;
    struct gencase_item *items;
    size_t nitems;
};

void gen_source_load(struct gen_source *c, char const *path);
int gen_provider_index(struct gen_source const *c, struct desc_provider const *p);
/* A provider as its `provider` statement writes it, "<name>[ group=<group>]" (malloc'd):
 * how the driver's messages and the reasons name it. */
char *gen_provider_token(struct desc_provider const *p);

/* OUTDIR/<ident><suffix>.c for writing (exit 1 when it cannot be created), and its close:
 * 0, or 1 with "gen: PATH: write error". */
FILE *gen_open_out(struct gen_source const *c, char const *dir, char const *suffix, char *path,
                   size_t size);
int gen_close_out(FILE *f, char const *path);

/* The end of the case's main file: the event functions' declarations and the tables of
 * gencase.h, ending with `const struct gencase_case gencase_case_<ident>`. The event
 * functions are `<fn>_<ident>_e<ordinal>`; provider i registers through
 * `<fn>_reg<i>` / `<fn>_unreg<i>` unless usable[i] is 0 (NULL: every one is usable), then
 * the driver skips its events. */
void gen_source_tables(FILE *out, struct gen_source *c, char const *fn,
                       unsigned char const *usable);

/* gen --table FILE...: the table of the cases (gencase_cases[]) and gencase_api, on stdout.
 * by: "impl/<row>/gen"; include: the line that declares what the generated code uses. */
int gen_cases_table(int n, char **paths, char const *by, char const *include,
                    struct gencase_api const *api);

#endif /* GENCASE_GEN_COMMON_H */
