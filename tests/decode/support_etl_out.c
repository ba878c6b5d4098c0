/* SPDX-License-Identifier: MIT */
/* See support_etl_out.h. */
#include "support_etl_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_tl.h"
#include "support_perf_util.h"

static void emit(void *ctx, const char *json, size_t len)
{
    struct etl_out *o = ctx;
    if (!perf_test_json_valid(json, len))
        o->invalid++;
    if (o->n < ETL_OUT_MAX)
        o->ev[o->n++] = strndup(json, len);
}

static void diag(void *ctx, uint64_t off, const char *reason)
{
    struct etl_out *o = ctx;
    if (o->ndiag < ETL_OUT_MAX) {
        o->diag_off[o->ndiag] = off;
        o->diag[o->ndiag++] = strdup(reason);
    }
}

void etl_out_free(struct etl_out *o)
{
    for (size_t i = 0; i < o->n; i++)
        free(o->ev[i]);
    for (size_t i = 0; i < o->ndiag; i++)
        free(o->diag[i]);
    memset(o, 0, sizeof *o);
}

int etl_out_decode(const uint8_t *d, size_t n, unsigned flags, struct etl_out *o)
{
    memset(o, 0, sizeof *o);
    FILE *f = fmemopen((void *)d, n, "rb");
    if (!f)
        return -1;
    int rc = ehd_etl_decode(f, flags, emit, o, diag, o);
    fclose(f);
    return rc;
}
