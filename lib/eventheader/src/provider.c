/* SPDX-License-Identifier: MIT */
/*
 * Providers: tracepoint names, backend choice (once per process), registration
 * of the call sites of a module and of runtime tracepoints. Everything here runs
 * under one mutex; writes never take it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_internal.h"
#include "tl_encode.h" /* eh_backend_tlcapture_open */

/* The transport registry: lib/eventheader/include/eh_transports.def. */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* published once, read lock-free by writers (eh_backend_current, eh_internal.h) */
const struct eh_backend *eh_backend_g_;
static int g_backend_chosen, g_backend_err;

/* A child forked while another thread held the lock would deadlock at its first
 * metadata build: hold the lock across fork so the child gets it released. */
static void atfork_lock(void)
{
    pthread_mutex_lock(&g_lock);
}

static void atfork_unlock(void)
{
    pthread_mutex_unlock(&g_lock);
}

static void install_atfork(void)
{
    pthread_atfork(atfork_lock, atfork_unlock, atfork_unlock);
}

void eh_lock(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_atfork);
    pthread_mutex_lock(&g_lock);
}

void eh_unlock(void)
{
    pthread_mutex_unlock(&g_lock);
}

const char *eh_backend_name(void)
{
    const struct eh_backend *be = eh_backend_current();
    return be ? be->name : "none";
}

/* Called under the lock: the first capture transport of eh_transports.def whose
 * variable is set and non-empty (EHCONF_CAPTURE_TL=file the TraceLogging capture of
 * tl_capture.c, then EHCONF_CAPTURE=file the capture backend) opens its backend with
 * that path; else user_events (ETW on Windows, tl_win_backends.c). The choice (or the
 * failure) is final for the process. */
static int choose_backend(void)
{
    if (!g_backend_chosen) {
        const struct eh_backend *be = NULL;
        const char *path;
        int chosen = 0;
#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    if (!chosen && (path = getenv(env)) != NULL && path[0]) {                \
        g_backend_err = eh_backend_##backend##_open(path, &be);              \
        chosen = 1;                                                          \
    }
#include "eh_transports.def"
        if (!chosen)
            g_backend_err = eh_backend_user_events_open(&be);
        g_backend_chosen = 1;
        if (!g_backend_err)
            __atomic_store_n(&eh_backend_g_, be, __ATOMIC_RELEASE);
    }
    return g_backend_err;
}

static int provider_name_ok(const eh_provider *p)
{
    if (!p->name || !p->name[0] || strpbrk(p->name, " :"))
        return 0;
    if (p->group && p->group[0])
        for (const char *g = p->group; *g; g++)
            if (!((*g >= '0' && *g <= '9') || (*g >= 'a' && *g <= 'z')))
                return 0;
    return 1;
}

int eh_tracepoint_name(char buf[EH_NAME_MAX], const char *provider, const char *group,
                       uint8_t level, uint64_t keyword)
{
    int has_group = group && group[0];
    int n = snprintf(buf, EH_NAME_MAX, "%s_L%xK%" PRIx64 "%s%s", provider, (unsigned)level, keyword,
                     has_group ? "G" : "", has_group ? group : "");
    if (n < 0 || n + 1 >= EH_NAME_MAX)
        return EINVAL; /* the name and its NUL must be < 256 bytes */
    return 0;
}

/* Connects tp (under the lock). Its name is allocated once and kept, so that a
 * writer racing with unregister never sees it freed. */
static int connect_tp(const eh_provider *p, eh_tracepoint *tp, uint8_t level, uint64_t keyword)
{
    if (tp->connected_)
        return 0;
    if (!tp->name_) {
        char name[EH_NAME_MAX];
        int err = eh_tracepoint_name(name, p->name, p->group, level, keyword);
        if (err)
            return err;
        tp->name_ = strdup(name);
        if (!tp->name_)
            return ENOMEM;
    }
    tp->level_ = level;
    tp->keyword_ = keyword;
    int err = eh_backend_g_->connect(tp, tp->name_, strlen(tp->name_));
    if (!err)
        tp->connected_ = 1;
    return err;
}

static void disconnect_tp(eh_tracepoint *tp)
{
    if (!tp->connected_)
        return;
    eh_backend_g_->disconnect(tp);
    tp->connected_ = 0;
}

static int site_of(const eh_event *ev, const eh_provider *p)
{
    return ev && ev->provider == p;
}

int eh_provider_register_sites(eh_provider *p, eh_event **start, eh_event **stop)
{
    char name[EH_NAME_MAX];
    int err = 0;
    if (!p)
        return EINVAL;
    eh_lock();
    if (p->registered_) {
        eh_unlock();
        return EALREADY;
    }
    /* Every name first: a bad one means nothing is registered. */
    if (!provider_name_ok(p))
        err = EINVAL;
    for (eh_event **s = start; !err && s && s < stop; s++)
        if (site_of(*s, p))
            err =
                eh_tracepoint_name(name, p->name, p->group, (*s)->attrs.level, (*s)->attrs.keyword);
    for (eh_tracepoint *tp = p->runtime_; !err && tp; tp = tp->next_)
        err = eh_tracepoint_name(name, p->name, p->group, tp->level_, tp->keyword_);
    if (!err)
        err = choose_backend();
    if (err) {
        eh_unlock();
        return err;
    }
    p->start_ = start;
    p->stop_ = stop;
    p->registered_ = 1;
    for (eh_event **s = start; s && s < stop; s++)
        if (site_of(*s, p)) {
            int e = connect_tp(p, &(*s)->tp, (*s)->attrs.level, (*s)->attrs.keyword);
            if (e && !err)
                err = e;
        }
    for (eh_tracepoint *tp = p->runtime_; tp; tp = tp->next_) {
        int e = connect_tp(p, tp, tp->level_, tp->keyword_);
        if (e && !err)
            err = e;
    }
    eh_unlock();
    return err;
}

int eh_provider_unregister(eh_provider *p)
{
    if (!p)
        return EINVAL;
    eh_lock();
    if (p->registered_) {
        for (eh_event **s = p->start_; s && s < p->stop_; s++)
            if (site_of(*s, p))
                disconnect_tp(&(*s)->tp);
        for (eh_tracepoint *tp = p->runtime_; tp; tp = tp->next_)
            disconnect_tp(tp);
        p->registered_ = 0;
    }
    eh_unlock();
    return 0;
}

int eh_provider_tracepoint(eh_provider *p, uint8_t level, uint64_t keyword, eh_tracepoint **out)
{
    char name[EH_NAME_MAX];
    if (!p || !out)
        return EINVAL;
    *out = NULL;
    eh_lock();
    eh_tracepoint *tp = p->runtime_;
    while (tp && !(tp->level_ == level && tp->keyword_ == keyword))
        tp = tp->next_;
    int err = 0;
    if (!tp) {
        if (!provider_name_ok(p) || eh_tracepoint_name(name, p->name, p->group, level, keyword)) {
            eh_unlock();
            return EINVAL;
        }
        tp = calloc(1, sizeof *tp);
        if (!tp) {
            eh_unlock();
            return ENOMEM;
        }
        tp->write_index = -1;
        tp->level_ = level;
        tp->keyword_ = keyword;
        tp->next_ = p->runtime_;
        p->runtime_ = tp; /* kept until exit: callers hold the pointer */
    }
    if (p->registered_)
        err = connect_tp(p, tp, level, keyword);
    *out = tp;
    eh_unlock();
    return err;
}
