/* SPDX-License-Identifier: MIT */
/*
 * eventheader.h: libeventheader, a C library that writes EventHeader-encoded
 * events to Linux user_events (or to a capture file for offline runs).
 *
 *   EH_DEFINE_PROVIDER(my_provider, "MyCompany_MyComponent");
 *
 *   eh_provider_register(&my_provider);         // once, at start-up
 *   int err = EH_WRITE(my_provider,
 *       EH_EVENT("MyEvent", EH_LEVEL_WARNING, 0x23, .opcode = EH_OPCODE_INFO),
 *       EH_STR8("Field1", msg, msg_len),
 *       EH_U32("Field2", 42, EH_TAG(0x12), EH_FORMAT(EH_FMT_HEX_INT)),
 *       EH_STRUCT("Nested", EH_I32("a", -1), EH_CSTR8("b", "text")));
 *   eh_provider_unregister(&my_provider);       // before unload
 *
 * Every call returns 0 or a positive errno; a call that fails writes nothing.
 * EH_WRITE returns EBADF while nobody listens to the event, E2BIG when the event
 * would exceed 65535 bytes, EINVAL for a struct with 0 or more than 127 members.
 *
 * The enabled check of EH_WRITE is one load and one branch on the call site's own
 * enable word (which the kernel flips); field value expressions are evaluated only
 * when the event is enabled. Metadata is built once per call site.
 *
 * Call sites are found through the linker section "eh_events" of the module that
 * calls eh_provider_register() (a macro): register a provider from the same
 * executable or shared object that holds its EH_WRITE sites, and unregister it
 * before that shared object unloads.
 *
 * Field macros (names follow the write_event! table; the full list is eh_field_macros.h,
 * generated from the type table eh_field_types.def):
 *   scalars by value       EH_U32("n", v), EH_I8_HEX, EH_F64, EH_BOOL8, EH_PID, EH_SYSTEMTIME ...
 *   16/4-byte values       EH_GUID("g", ptr16), EH_IPV4("a", ptr4), EH_IPV6("a", ptr16)
 *   variable-length arrays EH_U32_SLICE("a", ptr, count)      (u16 count on the wire)
 *   constant-length arrays EH_U32_ARRAY("a", ptr, N)          (N constant 1..65535)
 *   counted strings        EH_STR8("s", ptr, len), EH_STR16, EH_STR32, EH_BINARY, *_JSON/_XML
 *   zero-terminated        EH_CSTR8("s", cstr), EH_CSTR8_N("s", ptr, max), EH_CSTR16, EH_CSTR32
 *   structs                EH_STRUCT("s", fields...), EH_STRUCT_TAGGED("s", tag, fields...)
 *   arrays of structs      EH_STRUCT_ARRAY("pts", array, count,
 *                                          EH_MEMBER_I16(struct point, x), ...)
 *   raw                    EH_RAW_FIELD, EH_RAW_FIELD_SLICE, EH_RAW_META, EH_RAW_META_SLICE,
 *                          EH_RAW_STRUCT, EH_RAW_STRUCT_SLICE, EH_RAW_DATA
 *   per write              EH_ACTIVITY_ID(ptr16), EH_RELATED_ID(ptr16)
 * Every field takes optional trailing EH_TAG(t) and EH_FORMAT(f). A struct needs at
 * least one member (an empty EH_STRUCT does not compile).
 *
 * Events known only at run time: eh_builder (below) with eh_provider_tracepoint(); a hot
 * event of a fixed shape: eh_prepared, made once from a builder, written with its data only.
 *
 * Backends (chosen process-wide at the first register): if the environment
 * variable EHCONF_CAPTURE names a file, every event is enabled and each write
 * appends one record to that file (.dat format: u32 LE record size including
 * itself, tracepoint name + NUL, event bytes); otherwise Linux user_events.
 *
 * Needs GNU C (statement expressions, section attributes): gcc or clang.
 */
#ifndef EVENTHEADER_H
#define EVENTHEADER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "eventheader_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Types. Members ending in '_' are private to the library.                 */

/* One kernel tracepoint: "<provider>_L<level>K<keyword>[G<group>]". */
typedef struct eh_tracepoint {
    uint32_t status;             /* non-zero while a session listens (the kernel flips bit 0) */
    int32_t write_index;         /* user_events write index; -1 while not connected */
    char *name_;                 /* tracepoint name, allocated at the first connect, kept */
    struct eh_tracepoint *next_; /* runtime tracepoints of a provider */
    uint64_t keyword_;           /* runtime tracepoints only */
    uint8_t level_;
    uint8_t connected_;
} eh_tracepoint;

typedef struct eh_event eh_event;

typedef struct eh_provider {
    const char *name;  /* no ' ' or ':' */
    const char *group; /* NULL or [0-9a-z]+ : tracepoint names end in "G<group>" */
    /* private, guarded by the library's registration mutex */
    eh_event **start_, **stop_; /* this module's call sites (linker section) */
    eh_tracepoint *runtime_;    /* eh_provider_tracepoint() list */
    int registered_;
} eh_provider;

/* Event attributes: EH_EVENT("Name", level, keyword, .opcode = .., .tag = .., .id = .., .version = ..) */
typedef struct eh_event_attrs {
    const char *name; /* event name; not empty; ";attr=value" suffixes allowed */
    uint64_t keyword;
    uint16_t id;
    uint16_t tag;
    uint8_t level;
    uint8_t opcode;
    uint8_t version;
} eh_event_attrs;

/* A static call site of EH_WRITE / EH_ENABLED (attrs.name == NULL for EH_ENABLED). */
struct eh_event {
    eh_tracepoint tp; /* first: the enable word */
    eh_provider *provider;
    eh_event_attrs attrs;
    const uint8_t *meta_; /* metadata extension (header included), built once */
    int meta_err_;        /* sticky metadata error (EINVAL), or EH_META_FAST_ */
    uint32_t meta_len_;
};

/* Item kinds (eh_item.kind). */
enum {
    EH_ITEM_NONE_ = 0, /* placeholder (first item of every write) */
    EH_ITEM_VALUE_,    /* elem_size bytes at data */
    EH_ITEM_CARRAY_,   /* carray elements of elem_size at data */
    EH_ITEM_VARRAY_,   /* u16 count, count elements of elem_size */
    EH_ITEM_COUNTED_,  /* u16 count of units, count units of elem_size (length16 strings, binary) */
    EH_ITEM_ZSTRING_,  /* count units of elem_size, then a NUL unit */
    EH_ITEM_STRUCT_BEGIN_, /* struct; members follow until EH_ITEM_STRUCT_END_ */
    EH_ITEM_STRUCT_END_,
    EH_ITEM_SARRAY_BEGIN_, /* array of structs: data = array, count = elements, offset = stride */
    EH_ITEM_MEMBER_,       /* member of an array of structs: offset, elem_size (x carray if set) */
    EH_ITEM_SARRAY_END_,
    EH_ITEM_RAW_FIELD_, /* metadata (encoding as given) + count bytes of data verbatim */
    EH_ITEM_RAW_META_,  /* metadata only */
    EH_ITEM_RAW_STRUCT_, /* metadata: struct with carray = member count; next N logical fields are members */
    EH_ITEM_RAW_DATA_,    /* count bytes of data only */
    EH_ITEM_ACTIVITY_ID_, /* 16 bytes */
    EH_ITEM_RELATED_ID_,  /* 16 bytes */
};

/* One element of an EH_WRITE: built by the field macros below. */
typedef struct eh_item {
    const char *name;
    const void *data;
    uint32_t count;  /* elements / units / bytes, by kind */
    uint32_t offset; /* member offset, or struct-array stride */
    uint16_t elem_size;
    uint16_t carray;          /* constant array length (metadata) */
    uint16_t tag;             /* EH_TAG(t) */
    uint16_t format_override; /* EH_FORMAT(f): 0x100 | f */
    uint8_t kind;
    uint8_t encoding;
    uint8_t format;
    /* EH_TL_HINT_*_: the TraceLogging type of a write_event! type whose EventHeader form it
     * shares with another (hresult is i32_hex on EventHeader, I32 + HResult on ETW). It
     * sits in what was tail padding, so eh_item keeps its size and offsets. */
    uint8_t tl_hint_;
} eh_item;

/* TraceLogging type hints (eh_item.tl_hint_): read only by the TraceLogging backends,
 * which give these fields Microsoft's InType/OutType (Documentation/tracelogging.md §5);
 * the EventHeader bytes do not change. */
enum {
    EH_TL_HINT_NONE_ = 0,
    EH_TL_HINT_HRESULT_ = 1,        /* value32 hex_int      -> I32 + HResult */
    EH_TL_HINT_TID_ = 2,            /* value32 pid          -> U32 + Tid */
    EH_TL_HINT_CODEPOINTER_ = 3,    /* value32/64 hex_int   -> Hex32/Hex64 + CodePointer */
    EH_TL_HINT_SOCKETADDRESS_ = 4,  /* counted hex_bytes    -> Binary + SocketAddress */
    EH_TL_HINT_SOCKETADDRESSC_ = 5, /* counted hex_bytes    -> BinaryC + SocketAddress */
    EH_TL_HINT_BINARYC_ = 6,        /* counted hex_bytes    -> BinaryC */
    EH_TL_HINT_IPV6C_ = 7,          /* value128 ip_address  -> BinaryC + IPv6 */
    EH_TL_HINT_MAX_ = 8,
};

/* ------------------------------------------------------------------------ */
/* Providers                                                                */

/* Defines a provider variable (prefix with `static` to keep it file-local). */
#define EH_DEFINE_PROVIDER(sym, provider_name) \
    eh_provider sym = {.name = (provider_name), .group = 0}
#define EH_DEFINE_PROVIDER_GROUP(sym, provider_name, group_name) \
    eh_provider sym = {.name = (provider_name), .group = (group_name)}
#define EH_DECLARE_PROVIDER(sym) extern eh_provider sym

/* The EH_WRITE call sites of the calling module (executable or DSO) live in section
 * "eh_events"; hidden weak bounds make eh_provider_register() see only its own module. */
extern eh_event *__start_eh_events[] __attribute__((weak, visibility("hidden")));
extern eh_event *__stop_eh_events[] __attribute__((weak, visibility("hidden")));

/* Registers the provider and connects every EH_WRITE/EH_ENABLED site of the calling
 * module that uses it, plus its runtime tracepoints. Returns 0, EALREADY if already
 * registered, EINVAL for a bad provider/group name or a tracepoint name >= 256 bytes
 * (nothing registered), ENOTSUP/open errno when user_events is unavailable (events stay
 * disabled; writes return EBADF), or the first DIAG_IOCSREG errno. */
int eh_provider_register_sites(eh_provider *provider, eh_event **start, eh_event **stop);
#define eh_provider_register(provider) \
    eh_provider_register_sites((provider), __start_eh_events, __stop_eh_events)

/* Disconnects every tracepoint of the provider (writes then return EBADF). Idempotent;
 * registering again works. Returns 0. */
int eh_provider_unregister(eh_provider *provider);

/* Finds or creates the runtime tracepoint (level, keyword) of a provider, for the
 * dynamic builder. It is connected whenever the provider is registered. *out stays
 * valid until the process exits. Returns 0, EINVAL (name too long) or ENOMEM; a
 * connection failure is returned too, with *out set (the tracepoint stays disabled). */
int eh_provider_tracepoint(eh_provider *provider, uint8_t level, uint64_t keyword,
                           eh_tracepoint **out);

static inline int eh_tracepoint_enabled(const eh_tracepoint *tp)
{
    return __atomic_load_n(&tp->status, __ATOMIC_RELAXED) != 0;
}

/* Which backend the process uses: "capture", "user_events" or "none" (not yet chosen). */
const char *eh_backend_name(void);

/* Formats the tracepoint name into buf (256 bytes). Returns 0 or EINVAL. */
int eh_tracepoint_name(char buf[EH_NAME_MAX], const char *provider, const char *group,
                       uint8_t level, uint64_t keyword);

/* Library internals used by the macros. */
int eh_event_write_(eh_event *event, const eh_item *items, unsigned count);

/* EH_WRITE's fast path. The first write of a site goes through eh_event_write_, which
 * builds the site's metadata, with the event's header in front of it, and sets meta_err_
 * to EH_META_FAST_ when every item is of a kind gathered here (values, arrays, strings,
 * raw fields and data: not arrays of structs or activity ids). From then on EH_WRITE
 * gathers the payload itself: a loop over the site's items (eh_gather_item_) that the
 * compiler unrolls, and since each item's kind and size are constants of the call site,
 * what is left of it is a store per value into one staged run (the staged bytes: a value,
 * or a piece of a length the compiler knows, of up to EH_GATHER_SMALL_ bytes; a u16
 * count; a NUL) and a piece per longer array or string, pointing at the caller's data.
 * eh_event_write_pieces_ adds the site's header and metadata as one piece and hands the
 * pieces to the backend: the same bytes and errors as eh_event_write_. meta_err_ is read
 * with acquire: the site's metadata, built by another thread, is then visible. Without
 * optimisation every write goes through the library, and so does every write of a site of
 * more than 64 items (EH_GATHERED_HERE_), whose loop would not unroll. */
typedef struct eh_piece_ { /* struct iovec's layout (event_static.c checks it) */
    const void *base;
    size_t len;
} eh_piece_;
enum {
    EH_META_FAST_ = -1,
    EH_GATHER_SMALL_ = 16,
    EH_GATHER_STAGE_ = 2 + EH_GATHER_SMALL_ + 4, /* staged bytes of one item, at most */
    EH_GATHER_PREFIX_ = 3, /* pieces before the payload: the backend's two, the header's */
};
int eh_event_write_pieces_(eh_event *event, eh_piece_ *pieces, unsigned count, size_t payload);

struct eh_gather_ {
    eh_piece_ *pc;
    unsigned char *stage;
    size_t staged, open, pointed; /* pointed: the bytes of the pieces not staged */
    unsigned np;
    int big; /* a count over 65535 or a piece over the event's size: E2BIG */
};

/* Inlined into each call site when optimising (it is what the unrolled loop folds); at -O0
 * one copy per file, called, which keeps a site cheap to compile. */
#ifdef __OPTIMIZE__
#define EH_GATHER_INLINE_ __attribute__((always_inline))
#else
#define EH_GATHER_INLINE_
#endif

/* The staged run so far becomes a piece. */
static inline EH_GATHER_INLINE_ void eh_gather_flush_(struct eh_gather_ *g)
{
    if (g->staged > g->open) {
        g->pc[g->np].base = g->stage + g->open;
        g->pc[g->np++].len = g->staged - g->open;
        g->open = g->staged;
    }
}

static inline EH_GATHER_INLINE_ void eh_gather_bytes_(struct eh_gather_ *g, const void *p,
                                                      size_t len)
{
    if (__builtin_constant_p(len) && len <= EH_GATHER_SMALL_) {
        memcpy(g->stage + g->staged, p, len);
        g->staged += len;
    } else if (len) {
        if (len > 0xffff)
            g->big = 1;
        eh_gather_flush_(g);
        g->pc[g->np].base = p;
        g->pc[g->np++].len = len;
        g->pointed += len;
    }
}

static inline EH_GATHER_INLINE_ void eh_gather_item_(struct eh_gather_ *g, const eh_item *it)
{
    /* One path for the value, array and string kinds rather than a case each: the same
     * bytes, and less for the compiler to unroll before it folds (-O2 compile time). */
    unsigned k = it->kind;
    if (k == EH_ITEM_RAW_FIELD_ || k == EH_ITEM_RAW_DATA_) {
        eh_gather_bytes_(g, it->data, it->count);
        return;
    }
    if (k < EH_ITEM_VALUE_ || k > EH_ITEM_ZSTRING_)
        return; /* metadata only */
    if (k == EH_ITEM_VARRAY_ || k == EH_ITEM_COUNTED_) {
        uint16_t c16 = (uint16_t)it->count;
        if (it->count > 0xffff)
            g->big = 1;
        memcpy(g->stage + g->staged, &c16, 2);
        g->staged += 2;
    }
    eh_gather_bytes_(g, it->data,
                     (size_t)it->elem_size * (k == EH_ITEM_VALUE_    ? 1u
                                              : k == EH_ITEM_CARRAY_ ? it->carray
                                                                     : it->count));
    if (k == EH_ITEM_ZSTRING_) {
        memset(g->stage + g->staged, 0, it->elem_size);
        g->staged += it->elem_size;
    }
}
size_t eh_strlen16_(const uint16_t *s);
size_t eh_strlen32_(const uint32_t *s);
size_t eh_strnlen16_(const uint16_t *s, size_t max);
size_t eh_strnlen32_(const uint32_t *s, size_t max);

/* ------------------------------------------------------------------------ */
/* Writing events                                                           */

/* EH_EVENT(name, level, keyword, .opcode = .., ...) keeps its arguments inside
 * parentheses, so an EH_WRITE forwarded through another variadic macro still sees the
 * event as ONE argument (a brace initializer's commas would split it); EH_SITE_
 * unpacks it with EH_EVENT_ATTRS_. */
#define EH_EVENT(...) (__VA_ARGS__)
#define EH_EVENT_ATTRS_(event_name, level_, keyword_, ...)                          \
    {                                                                               \
        .name = (event_name), .level = (level_), .keyword = (keyword_), __VA_ARGS__ \
    }

/* Registers the site in this module's "eh_events" section; event is EH_EVENT(...). */
#define EH_SITE_(sym, prov_, event)                                                       \
    static eh_event sym = {                                                               \
        .tp = {.write_index = -1}, .provider = &(prov_), .attrs = EH_EVENT_ATTRS_ event}; \
    static eh_event *sym##ptr_ __attribute__((section("eh_events"), used)) = &sym;        \
    (void)sym##ptr_

#define EH_NITEMS_(a) (sizeof(a) / sizeof((a)[0]))

/* The enabled part of EH_WRITE. Optimised: the site's later writes are gathered here
 * (eh_gather_item_), its first through the library, which builds the metadata. Without
 * optimisation (-O0, where nothing would fold): every write through the library, which
 * gathers the same way, and a site costs what it did before the fast path to compile. */
#ifdef __OPTIMIZE__
/* Whether the site's items are few enough for the loop below to unroll (64 and the NONE in
 * front of them; the pragma wants the number itself). A longer site would not fold, so it
 * goes through the library, which gathers the same way, and the compiler never sees its
 * loop: 1,000-item sites had cost tests/lib/test_limits.c 26 s more at gcc -O2 and 89 s
 * more under ASan, for a path those sites never took (the library gathers at most 128). */
#define EH_GATHERED_HERE_(...) \
    (sizeof((const eh_item[]){{.kind = EH_ITEM_NONE_}, __VA_ARGS__}) <= 65 * sizeof(eh_item))
#define EH_WRITE_ENABLED_(site, ...)                                                              \
    (__builtin_expect(EH_GATHERED_HERE_(__VA_ARGS__) &&                                           \
                          __atomic_load_n(&(site).meta_err_, __ATOMIC_ACQUIRE) == EH_META_FAST_,  \
                      1)                                                                          \
         ? __extension__({                                                                        \
               const eh_item eh_items_[] = {{.kind = EH_ITEM_NONE_}, __VA_ARGS__};                \
               eh_piece_ eh_pc_[EH_GATHER_PREFIX_ + 2 * EH_NITEMS_(eh_items_) + 1];               \
               unsigned char eh_st_[EH_GATHER_STAGE_ * EH_NITEMS_(eh_items_)];                    \
               struct eh_gather_ eh_g_ = {eh_pc_, eh_st_, 0, 0, 0, EH_GATHER_PREFIX_, 0};         \
               _Pragma("GCC unroll 64") for (unsigned eh_i_ = 1; eh_i_ < EH_NITEMS_(eh_items_);   \
                                             eh_i_++) eh_gather_item_(&eh_g_, &eh_items_[eh_i_]); \
               eh_gather_flush_(&eh_g_);                                                          \
               eh_event_write_pieces_(&(site), eh_pc_, eh_g_.np,                                  \
                                      eh_g_.big ? (size_t)-1 : eh_g_.staged + eh_g_.pointed);     \
           })                                                                                     \
         : EH_WRITE_ITEMS_(site, __VA_ARGS__))
#else
#define EH_WRITE_ENABLED_(site, ...) EH_WRITE_ITEMS_(site, __VA_ARGS__)
#endif
#define EH_WRITE_ITEMS_(site, ...)                                            \
    __extension__({                                                           \
        const eh_item eh_items_[] = {{.kind = EH_ITEM_NONE_}, __VA_ARGS__};   \
        eh_event_write_(&(site), eh_items_, (unsigned)EH_NITEMS_(eh_items_)); \
    })

/* int EH_WRITE(provider, EH_EVENT(...), fields...): 0, EBADF if disabled, or an errno. */
#define EH_WRITE(prov_, event, ...)                                                      \
    __extension__({                                                                      \
        EH_SITE_(eh_site_, prov_, event);                                                \
        int eh_err_ = EBADF;                                                             \
        if (__builtin_expect(__atomic_load_n(&eh_site_.tp.status, __ATOMIC_RELAXED), 0)) \
            eh_err_ = EH_WRITE_ENABLED_(eh_site_, __VA_ARGS__);                          \
        eh_err_;                                                                         \
    })

/* True if an EH_WRITE with this level and keyword would be enabled. */
#define EH_ENABLED(prov_, level_, keyword_)                                                    \
    __extension__({                                                                            \
        EH_SITE_(eh_site_, prov_, EH_EVENT(0, level_, keyword_));                              \
        (int)__builtin_expect(__atomic_load_n(&eh_site_.tp.status, __ATOMIC_RELAXED) != 0, 0); \
    })

/* Optional trailing field options. */
#define EH_TAG(t)    .tag = (uint16_t)(t)
#define EH_FORMAT(f) .format_override = (uint16_t)(0x100 | ((f)&0x7f))

/* Compile-time check usable inside an expression: 0, or an error if !(cond). */
#define EH_CHECK_(cond) (0 * sizeof(struct { int eh_check_ : (cond) ? 1 : -1; }))

#define EH_SCALAR_(nm, ctype, enc, fmt, v, ...)                                           \
    {                                                                                     \
        .kind = EH_ITEM_VALUE_, .name = (nm), .encoding = (enc), .format = (fmt),         \
        .elem_size = sizeof(ctype), .count = 1, .data = &(ctype){(ctype)(v)}, __VA_ARGS__ \
    }
#define EH_FIXED_(nm, size, enc, fmt, p, ...)                                     \
    {                                                                             \
        .kind = EH_ITEM_VALUE_, .name = (nm), .encoding = (enc), .format = (fmt), \
        .elem_size = (size), .count = 1, .data = (const void *)(p), __VA_ARGS__   \
    }
#define EH_VARRAY_(nm, ctype, size, enc, fmt, p, n, ...)                               \
    {                                                                                  \
        .kind = EH_ITEM_VARRAY_, .name = (nm), .encoding = (enc) | EH_ENC_VARRAY_FLAG, \
        .format = (fmt), .elem_size = (size), .count = (uint32_t)(n),                  \
        .data = (const ctype *){(p)}, __VA_ARGS__                                      \
    }
#define EH_CARRAY_(nm, ctype, size, enc, fmt, p, n, ...)                               \
    {                                                                                  \
        .kind = EH_ITEM_CARRAY_, .name = (nm), .encoding = (enc) | EH_ENC_CARRAY_FLAG, \
        .format = (fmt), .elem_size = (size),                                          \
        .carray = (uint16_t)((n) + EH_CHECK_((n) >= 1 && (n) <= 65535)),               \
        .data = (const ctype *){(p)}, __VA_ARGS__                                      \
    }
#define EH_STRING_(nm, kind_, enc, fmt, size, p, units, ...)                                    \
    {                                                                                           \
        .kind = (kind_), .name = (nm), .encoding = (enc), .format = (fmt), .elem_size = (size), \
        .count = (uint32_t)(units), .data = (const void *)(p), __VA_ARGS__                      \
    }
#define EH_MEMBER_(nm, type, member, size, enc, fmt, ...)                                   \
    {                                                                                       \
        .kind = EH_ITEM_MEMBER_, .name = (nm), .encoding = (enc), .format = (fmt),          \
        .elem_size = (uint16_t)((size) + EH_CHECK_(sizeof(((type *)0)->member) == (size))), \
        .offset = offsetof(type, member), __VA_ARGS__                                       \
    }

/* ---- the field macros of every type: EH_<T>, EH_<T>_SLICE, EH_<T>_ARRAY, EH_MEMBER_<T>,
 * the counted and zero-terminated strings. Generated from the type table eh_field_types.def
 * (one row per type) by scripts/gen-field-types.py. ---- */
#include "eh_field_macros.h"

/* ---- what the zero-terminated string macros expand to: EH_CSTRn(name, ptr) measures up
 * to the first NUL; EH_CSTRn_N(name, ptr, max) stops at the first NUL within max units.
 * The event gets the units and a NUL. ---- */
#define EH_ZSTR8_(name, fmt, p, n, ...) \
    EH_STRING_(name, EH_ITEM_ZSTRING_, EH_ENC_ZSTRING_CHAR8, fmt, 1, p, n, __VA_ARGS__)
#define EH_ZSTR16_(name, fmt, p, n, ...) \
    EH_STRING_(name, EH_ITEM_ZSTRING_, EH_ENC_ZSTRING_CHAR16, fmt, 2, p, n, __VA_ARGS__)
#define EH_ZSTR32_(name, fmt, p, n, ...) \
    EH_STRING_(name, EH_ITEM_ZSTRING_, EH_ENC_ZSTRING_CHAR32, fmt, 4, p, n, __VA_ARGS__)
/* The pointer expression is evaluated once (statement expression) and then measured;
 * a NULL pointer logs an empty string. */
#define EH_CSTR8_F_(name, fmt, s, ...) \
    EH_CSTR_ONCE_(name, EH_ZSTR8_, fmt, const char, s, eh_cs_ ? strlen(eh_cs_) : 0, __VA_ARGS__)
#define EH_CSTR8_NF_(name, fmt, s, max, ...)                                                \
    EH_CSTR_ONCE_(name, EH_ZSTR8_, fmt, const char, s, eh_cs_ ? strnlen(eh_cs_, (max)) : 0, \
                  __VA_ARGS__)
#define EH_CSTR16_F_(name, fmt, s, ...) \
    EH_CSTR_ONCE_(name, EH_ZSTR16_, fmt, const uint16_t, s, eh_strlen16_(eh_cs_), __VA_ARGS__)
#define EH_CSTR16_NF_(name, fmt, s, max, ...)                                             \
    EH_CSTR_ONCE_(name, EH_ZSTR16_, fmt, const uint16_t, s, eh_strnlen16_(eh_cs_, (max)), \
                  __VA_ARGS__)
#define EH_CSTR32_F_(name, fmt, s, ...) \
    EH_CSTR_ONCE_(name, EH_ZSTR32_, fmt, const uint32_t, s, eh_strlen32_(eh_cs_), __VA_ARGS__)
#define EH_CSTR32_NF_(name, fmt, s, max, ...)                                             \
    EH_CSTR_ONCE_(name, EH_ZSTR32_, fmt, const uint32_t, s, eh_strnlen32_(eh_cs_, (max)), \
                  __VA_ARGS__)
#define EH_CSTR_ONCE_(name, zmacro, fmt, ctype, s, measure, ...)          \
    __extension__({                                                       \
        ctype *eh_cs_ = (s);                                              \
        eh_item eh_ci_ = zmacro(name, fmt, eh_cs_, measure, __VA_ARGS__); \
        eh_ci_;                                                           \
    })

/* ---- structs: members are any fields (nested structs too); 1..127 members ---- */
#define EH_STRUCT(nm, ...)                                      \
    {.kind = EH_ITEM_STRUCT_BEGIN_, .name = (nm)}, __VA_ARGS__, \
    {                                                           \
        .kind = EH_ITEM_STRUCT_END_                             \
    }
#define EH_STRUCT_TAGGED(nm, t, ...)                                                  \
    {.kind = EH_ITEM_STRUCT_BEGIN_, .name = (nm), .tag = (uint16_t)(t)}, __VA_ARGS__, \
    {                                                                                 \
        .kind = EH_ITEM_STRUCT_END_                                                   \
    }

/* ---- arrays of structs: EH_STRUCT_ARRAY("pts", array_ptr, count,
 *          EH_MEMBER_I16(struct point, x), EH_MEMBER_I16(struct point, y))
 * Each member is a fixed-size field of the C struct (offsetof); the element stride
 * is sizeof *array_ptr. Encoded as a struct with the varray flag: u16 count, then
 * the members of each element in order. ---- */
#define EH_STRUCT_ARRAY(nm, p, n, ...) EH_STRUCT_ARRAY_TAGGED(nm, 0, p, n, __VA_ARGS__)
#define EH_STRUCT_ARRAY_TAGGED(nm, t, p, n, ...) \
    {.kind = EH_ITEM_SARRAY_BEGIN_,              \
     .name = (nm),                               \
     .tag = (uint16_t)(t),                       \
     .data = (const void *)(p),                  \
     .count = (uint32_t)(n),                     \
     .offset = (uint32_t)sizeof(*(p))},          \
        __VA_ARGS__,                             \
    {                                            \
        .kind = EH_ITEM_SARRAY_END_              \
    }
/* A member with an explicit name, encoding and format, e.g. a char[8] member as a
 * constant array: EH_MEMBER("code", struct s, code, EH_ENC_VALUE8, EH_FMT_STRING8, 1, 8). */
#define EH_MEMBER(nm, type, member, enc, fmt, elem_size_, n, ...)                              \
    {                                                                                          \
        .kind = EH_ITEM_MEMBER_, .name = (nm),                                                 \
        .encoding = (uint8_t)((enc) | ((n) > 1 ? EH_ENC_CARRAY_FLAG : 0)), .format = (fmt),    \
        .elem_size = (uint16_t)((elem_size_) +                                                 \
                                EH_CHECK_(sizeof(((type *)0)->member) == (elem_size_) * (n))), \
        .carray = (uint16_t)((n) > 1 ? (n) : 0), .offset = offsetof(type, member), __VA_ARGS__ \
    }

/* ---- raw items (like write_event!'s raw_*): the caller supplies exact bytes ---- */
/* Metadata + data; bytes must include any prefix (u16 length) or suffix (NUL). */
#define EH_RAW_FIELD(nm, enc, p, len, ...)                                    \
    {                                                                         \
        .kind = EH_ITEM_RAW_FIELD_, .name = (nm), .encoding = (uint8_t)(enc), \
        .data = (const void *)(p), .count = (uint32_t)(len), __VA_ARGS__      \
    }
/* Same with the varray flag: bytes start with the u16 element count. */
#define EH_RAW_FIELD_SLICE(nm, enc, p, len, ...)                                      \
    {                                                                                 \
        .kind = EH_ITEM_RAW_FIELD_, .name = (nm),                                     \
        .encoding = (uint8_t)((enc) | EH_ENC_VARRAY_FLAG), .data = (const void *)(p), \
        .count = (uint32_t)(len), __VA_ARGS__                                         \
    }
/* Metadata only; the data comes from EH_RAW_DATA. */
#define EH_RAW_META(nm, enc, ...)                                                        \
    {                                                                                    \
        .kind = EH_ITEM_RAW_META_, .name = (nm), .encoding = (uint8_t)(enc), __VA_ARGS__ \
    }
#define EH_RAW_META_SLICE(nm, enc, ...)                                \
    {                                                                  \
        .kind = EH_ITEM_RAW_META_, .name = (nm),                       \
        .encoding = (uint8_t)((enc) | EH_ENC_VARRAY_FLAG), __VA_ARGS__ \
    }
/* A struct whose next n (1..127) logical fields are its members. */
#define EH_RAW_STRUCT(nm, n, ...)                                             \
    {                                                                         \
        .kind = EH_ITEM_RAW_STRUCT_, .name = (nm), .encoding = EH_ENC_STRUCT, \
        .carray = (uint16_t)(n), __VA_ARGS__                                  \
    }
/* An array of structs; the data (u16 count, then the elements) comes from EH_RAW_DATA. */
#define EH_RAW_STRUCT_SLICE(nm, n, ...)                                                            \
    {                                                                                              \
        .kind = EH_ITEM_RAW_STRUCT_, .name = (nm), .encoding = EH_ENC_STRUCT | EH_ENC_VARRAY_FLAG, \
        .carray = (uint16_t)(n), __VA_ARGS__                                                       \
    }
#define EH_RAW_DATA(p, len)                                                            \
    {                                                                                  \
        .kind = EH_ITEM_RAW_DATA_, .data = (const void *)(p), .count = (uint32_t)(len) \
    }

/* ---- activity ids of this write (16 bytes each); a related id needs an activity id ---- */
#define EH_ACTIVITY_ID(p16)                                       \
    {                                                             \
        .kind = EH_ITEM_ACTIVITY_ID_, .data = (const void *)(p16) \
    }
#define EH_RELATED_ID(p16)                                       \
    {                                                            \
        .kind = EH_ITEM_RELATED_ID_, .data = (const void *)(p16) \
    }

/* ------------------------------------------------------------------------ */
/* Dynamic builder: events whose schema is known only at run time.          */
/* Errors are sticky: every add returns the first error so far, and         */
/* eh_builder_write returns it without writing.                             */

/* A growable byte buffer (private; err is ENOMEM once an allocation failed). */
struct eh_buf_ {
    uint8_t *p;
    size_t len, cap;
    int err;
};

typedef struct eh_builder {
    /* private */
    struct eh_buf_ meta_; /* metadata extension: ext header, event name, fields */
    struct eh_buf_ data_; /* payload */
    struct eh_builder_frame_ *frames_;
    unsigned depth_, frames_cap_;
    int err_;
    uint16_t id_, tag_;
    uint8_t opcode_, version_;
    /* Metadata reuse (builder.c): while matching_, the event's field definitions are
     * compared with the bytes already in meta_ (the last event's) instead of written
     * again; meta_seen_ is how many bytes of meta_.p were ever written. Both sit in what
     * was tail padding: eh_builder keeps its size. */
    uint8_t matching_;
    uint32_t meta_seen_;
} eh_builder;

void eh_builder_init(eh_builder *b);
void eh_builder_destroy(eh_builder *b);
/* Starts a new event (keeps the buffers). name: not empty. */
int eh_builder_reset(eh_builder *b, const char *event_name, uint8_t opcode, uint16_t tag,
                     uint16_t id, uint8_t version);
/* A Value8/16/32/64/128 (or EH_ENC_VALUE_PTR) field; size from the encoding. */
int eh_builder_add_value(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                         uint16_t tag, const void *data);
/* Variable-length array (u16 count on the wire) of count values. */
int eh_builder_add_array(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                         uint16_t tag, const void *data, size_t count);
/* Constant-length array (count 1..65535 in the metadata). */
int eh_builder_add_carray(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                          uint16_t tag, const void *data, size_t count);
/* A string: encoding EH_ENC_ZSTRING_CHAR8/16/32 (units without the NUL; a NUL is
 * appended), EH_ENC_STRING_LENGTH16_CHAR8/16/32 or EH_ENC_BINARY_LENGTH16_CHAR8
 * (units <= 65535). Units are code units (1, 2 or 4 bytes). */
int eh_builder_add_string(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                          uint16_t tag, const void *data, size_t units);
int eh_builder_begin_struct(eh_builder *b, const char *name, uint16_t tag);
int eh_builder_end_struct(eh_builder *b);
/* Array of count structs. The members added before the first next_element() define
 * the element (and carry element 0's data); each later element starts with
 * eh_builder_next_element() and repeats the same adds (data only). Closed with
 * eh_builder_end_struct(). With count 0, add the members once (their data is dropped). */
int eh_builder_begin_struct_array(eh_builder *b, const char *name, uint16_t tag, uint16_t count);
int eh_builder_next_element(eh_builder *b);
/* Raw metadata (encoding may carry the varray/carray flags; not a struct). */
int eh_builder_add_raw_meta(eh_builder *b, const char *name, uint8_t encoding, uint8_t format,
                            uint16_t tag, uint16_t carray_count);
int eh_builder_add_raw_data(eh_builder *b, const void *data, size_t len);
/* Writes the event to tp (level from the tracepoint). Returns 0, EBADF if disabled,
 * the sticky error, EINVAL for an open struct, E2BIG over 65535 bytes, or the
 * backend's errno. */
int eh_builder_write(eh_builder *b, eh_tracepoint *tp, const uint8_t *activity16,
                     const uint8_t *related16);

/* Prepared events: a hot event whose shape does not change, written with its data only.
 * Build the event once with a builder (eh_builder_reset and the adds, as for a write), then
 * eh_prepared_init fixes its name, header fields and field definitions for tracepoint tp;
 * each eh_prepared_write then takes one eh_arg per field that carries data, in the order
 * of the adds (a struct is metadata only: its members are the fields):
 *   a value (eh_builder_add_value)        data = the value's bytes (count unused)
 *   a constant-length array (add_carray)  data = the elements (count unused)
 *   a variable-length array (add_array)   data, count = elements
 *   a string (add_string)                 data, count = units (zero-terminated: without NUL)
 * and writes the bytes a builder would write for the same adds. Not preparable (ENOTSUP):
 * arrays of structs, raw metadata a prepared event cannot lay out, more than 128 fields.
 * The builder may be reset or destroyed afterwards. A prepared event is read-only: any
 * number of threads may write it at once. */
typedef struct eh_prepared {
    struct eh_prepared_data_ *p_; /* private */
} eh_prepared;
typedef struct eh_arg {
    const void *data;
    size_t count;
} eh_arg;
/* Returns 0, the builder's sticky error, EINVAL (a struct still open, no event, tp NULL),
 * E2BIG (metadata too large), ENOTSUP or ENOMEM; on error ev holds nothing (destroy is
 * still allowed). */
int eh_prepared_init(eh_prepared *ev, const eh_builder *b, eh_tracepoint *tp);
void eh_prepared_destroy(eh_prepared *ev);
/* How many eh_arg each write takes. */
unsigned eh_prepared_args(const eh_prepared *ev);
/* Writes the event: 0, EINVAL (nargs is not eh_prepared_args, or a related id without an
 * activity id), EBADF if disabled, E2BIG (a count over 65535, more than 65535 bytes), or
 * the backend's errno; nothing is written on error. */
int eh_prepared_write(const eh_prepared *ev, const eh_arg *args, unsigned nargs,
                      const uint8_t *activity16, const uint8_t *related16);

#ifdef __cplusplus
}
#endif

#endif /* EVENTHEADER_H */
