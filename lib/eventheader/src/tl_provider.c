/* SPDX-License-Identifier: MIT */
/* TraceLogging provider metadata, the split of an EventHeader tracepoint name, and
 * the per-process provider cache (GUID + metadata built once per provider). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader_read.h"
#include "tl_encode.h"

int eh_tl_provider_meta(struct eh_buf_ *out, const char *name, size_t name_len,
                        const uint8_t *group_guid)
{
    if (name_len == 0 || memchr(name, 0, name_len))
        return EINVAL;
    size_t start = out->len;
    eh_buf_u16le(out, 0); /* size, patched below */
    eh_buf_put(out, name, name_len);
    eh_buf_u8(out, 0);
    if (group_guid) {
        eh_buf_u16le(out, 3 + 16);
        eh_buf_u8(out, TL_PROVIDER_TRAIT_GROUP);
        eh_buf_put(out, group_guid, 16);
    }
    if (out->err)
        return out->err;
    size_t size = out->len - start;
    if (size > 0xFFFF) {
        out->len = start;
        return E2BIG;
    }
    out->p[start] = (uint8_t)size;
    out->p[start + 1] = (uint8_t)(size >> 8);
    return 0;
}

int eh_tl_parse_tp_name(const char *name, size_t len, size_t *provider_len, uint8_t *level,
                        uint64_t *keyword, const char **group, size_t *group_len)
{
    struct eh_tp_name tp;
    /* TraceLogging needs a provider name, and its level is one byte (two digits). */
    if (eh_tp_name_parse(name, len, &tp) != EH_TP_NAME_OK || tp.provider_len == 0 ||
        tp.level_digits > 2)
        return EINVAL;
    *provider_len = tp.provider_len;
    *level = (uint8_t)tp.level;
    *keyword = tp.keyword;
    *group = tp.group;
    *group_len = tp.group_len;
    return 0;
}

/* ---- provider cache ---------------------------------------------------------- */

static struct eh_tl_provider *g_providers;
static pthread_mutex_t g_providers_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int same(const char *a, const char *b, size_t b_len)
{
    if (!a)
        return b == NULL;
    return b && strlen(a) == b_len && memcmp(a, b, b_len) == 0;
}

int eh_tl_provider_of_tp(const char *tp_name, size_t len, const struct eh_tl_provider **out,
                         uint8_t *level, uint64_t *keyword)
{
    size_t plen, glen;
    const char *group;
    int err = eh_tl_parse_tp_name(tp_name, len, &plen, level, keyword, &group, &glen);
    if (err)
        return err;
    pthread_mutex_lock(&g_providers_lock);
    struct eh_tl_provider *p;
    for (p = g_providers; p; p = p->next_)
        if (same(p->name, tp_name, plen) && same(p->group, group, glen))
            goto found;
    p = calloc(1, sizeof *p);
    struct eh_buf_ meta = {0};
    uint8_t group_guid[16];
    err = ENOMEM;
    if (!p || !(p->name = dup_n(tp_name, plen)) || (group && !(p->group = dup_n(group, glen))))
        goto fail;
    err = eh_tl_guid_from_name(p->name, plen, p->guid);
    if (!err && group)
        err = eh_tl_guid_from_name(p->group, glen, group_guid);
    if (!err)
        err = eh_tl_provider_meta(&meta, p->name, plen, group ? group_guid : NULL);
    if (err)
        goto fail;
    p->meta = meta.p;
    p->meta_len = meta.len;
    p->next_ = g_providers;
    g_providers = p;
found:
    pthread_mutex_unlock(&g_providers_lock);
    *out = p;
    return 0;
fail:
    pthread_mutex_unlock(&g_providers_lock);
    eh_buf_free(&meta);
    if (p) {
        free(p->name);
        free(p->group);
        free(p);
    }
    return err;
}
