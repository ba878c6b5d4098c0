/* SPDX-License-Identifier: MIT */
/*
 * ehd_eventheader_json: one EventHeader event -> one JSON object, following
 * Documentation/decoder-json.md §1-§4 (the reference decoder's EventFormatter output).
 *
 * PINNED CHOICES (where the reference decoders disagree, or where ehconf
 * deliberately differs from the C++ reference; README copies this block):
 *  - hex_bytes: lowercase, single spaces ("48 6f 77"), like the C++ decoder.
 *  - NaN: "nan" / "-nan" (sign bit shown), infinities "inf" / "-inf", quoted.
 *  - float exponent: "e+29" / "e-05" (at least two digits), like C++ to_chars.
 *  - time fields: "YYYY-MM-DDTHH:MM:SS" without "Z", for EVERY int64 value
 *    (proleptic Gregorian; no "TIME(n)" fallback); years outside 0..9999 are
 *    "-0001-..." and "10000-..." (see datetime.c). The reference prints year
 *    -1 as "-001" and gives up outside glibc's gmtime range.
 *  - Code points UTF-8 cannot carry (UTF-16/UCS-4 surrogates, values above
 *    U+10FFFF, 3-byte surrogate forms ED A0..BF xx inside UTF-8 strings, a
 *    partial trailing code unit) are written as U+FFFD. The reference emits
 *    raw 3..7-byte pseudo-UTF-8 there; ehconf's output is always valid UTF-8
 *    JSON (deliberate fix).
 *  - errno names: Linux generic numbering; 0, 41 and 58 print "ERRNO(n)";
 *    95 is "EOPNOTSUPP(95)".
 *  - IPv6 text: glibc inet_ntop rules, reimplemented (platform independent).
 *  - No reference limits: more than 255 top-level fields, struct nesting
 *    deeper than 8 and arrays longer than 4093 elements decode. ehconf's own
 *    bounds instead (both E2BIG, reason names the bound):
 *      * struct nesting deeper than EHD_MAX_DEPTH (1024) levels;
 *      * more than EHD_MAX_OUTPUT (64 MiB) of JSON for one event (stops a
 *        carray of carray of empty structs from exploding).
 *  - Header flags other than 0x01/0x02/0x04 -> ENOTSUP. A tracepoint name
 *    that is not "<provider>_L<level hex>K<keyword hex><options>" with the
 *    header's level -> EINVAL. Malformed data -> EBADMSG. Both carray and
 *    varray flags -> ENOTSUP. Struct with 0 members, carray count 0 -> EBADMSG.
 *  - BOM-sniffed strings (string_utf_bom/xml/json) whose remaining bytes end
 *    in a partial code unit: that unit is U+FFFD (the reference fails).
 *  - No tracepoint-name length limit (the reference rejects names of 256+
 *    characters); an embedded NUL is rejected.
 *  - Bytes after the last described field are padding (perf pads samples to
 *    8 bytes) and are ignored.
 *  - The tracepoint name's options ("Gmygroup") are always printed as the last
 *    meta member, "options"; the reference prints them only when asked
 *    (EventFormatterMetaFlags_options, off in its default flags).
 *  - *reason points to a thread-local buffer that stays valid until the
 *    calling thread's next call; it names the field where one is involved.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ehd_event.h"
#include "eventheader_wire.h"

/* One open container while writing. */
struct ehd_frame {
    uint32_t next, end; /* struct body: members [next, end) */
    uint32_t node;      /* array: the array's node */
    uint32_t remaining; /* array: elements left */
    uint8_t is_array;
    uint8_t first; /* nothing written in this container yet */
};

/* ---- whitespace per §1 ------------------------------------------------- */

/* The separators are json.c's; these only pass the context's flag. */
static int spaced(const struct ehd_ctx *c)
{
    return (c->flags & EHD_JSON_SPACE) != 0;
}

static void put_sep(struct ehd_ctx *c, uint8_t *first)
{
    ehd_json_sep(c->out, spaced(c), *first);
    *first = 0;
}

static void put_colon(struct ehd_ctx *c)
{
    ehd_json_colon(c->out, spaced(c));
}

static void put_close(struct ehd_ctx *c, char closer)
{
    ehd_json_close(c->out, spaced(c), closer);
}

/* Keys are short literals; one append instead of four (hot: ~10 per event). */
static void put_key(struct ehd_ctx *c, const char *key)
{
    char t[40];
    size_t n = strlen(key);
    if (n > sizeof t - 4) {
        ehd_buf_putc_fast(c->out, '"');
        ehd_buf_append_fast(c->out, key, n);
        ehd_buf_putc_fast(c->out, '"');
        put_colon(c);
        return;
    }
    t[0] = '"';
    memcpy(t + 1, key, n);
    t[n + 1] = '"';
    char *end = ehd_json_put_colon(t + n + 2, spaced(c));
    ehd_buf_append_fast(c->out, t, (size_t)(end - t));
}

/* Direct writers for a local cursor (ehd_buf_room): meta and plain field
 * names are a dozen small pieces per event, each an append before. The w_*
 * helpers use the same separators of json.c as put_sep, put_key and friends. */
static char *w_sep(const struct ehd_ctx *c, char *o, uint8_t *first)
{
    o = ehd_json_put_sep(o, spaced(c), *first);
    *first = 0;
    return o;
}

/* Inlined so that each literal key is a fixed-size copy, not a memcpy call. */
static inline __attribute__((always_inline)) char *w_key(const struct ehd_ctx *c, char *o,
                                                         uint8_t *first, const char *key, size_t n)
{
    o = w_sep(c, o, first);
    *o++ = '"';
    memcpy(o, key, n);
    o += n;
    *o++ = '"';
    o = ehd_json_put_colon(o, spaced(c));
    return o;
}
#define W_KEY(c, o, first, lit) w_key(c, o, first, lit, sizeof lit - 1)

/* "%" PRIX64 */
static char *w_hex(char *o, uint64_t v)
{
    char t[16];
    char *e = t + sizeof t, *s = e;
    do {
        *--s = "0123456789ABCDEF"[v & 15];
        v >>= 4;
    } while (v);
    memcpy(o, s, (size_t)(e - s));
    return o + (e - s);
}

/* "\"0x%" PRIX64 "\"" */
static char *w_hex_quoted(char *o, uint64_t v)
{
    *o++ = '"';
    *o++ = '0';
    *o++ = 'x';
    o = w_hex(o, v);
    *o++ = '"';
    return o;
}

/* "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", quoted */
static char *w_uuid(char *o, const uint8_t *p)
{
    *o++ = '"';
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        *o++ = "0123456789abcdef"[p[i] >> 4];
        *o++ = "0123456789abcdef"[p[i] & 15];
    }
    *o++ = '"';
    return o;
}

/* ---- payload ----------------------------------------------------------- */

/* Cuts the next value of node nd out of the payload and renders it. */
static int put_value(struct ehd_ctx *c, const struct ehd_node *nd)
{
    /* set by ehd_cut_value on success (gcc cannot see that ehd_fail returns non-zero) */
    size_t pos = c->pos, vstart = 0, vsize = 0, next = 0;
    int err = ehd_cut_value(c, nd, &vstart, &vsize, &next);
    if (err)
        return err;
    const char *why = NULL;
    err = ehd_render_value(c->out, nd->enc, nd->fmt, c->data + vstart, vsize, c->be, &why);
    if (err) {
        char fname[80];
        return ehd_fail(c, err, pos, "field '%s': %s", ehd_field_name(nd, fname, sizeof fname),
                        why);
    }
    c->pos = next;
    return 0;
}

/* "name;tag=0xT": (or "name": ) of a field, into out. */
static void put_field_name(ehd_buf *out, unsigned flags, const struct ehd_node *nd)
{
    ehd_buf_putc_fast(out, '"');
    ehd_json_utf8_body(out, nd->name, nd->name_len);
    if ((flags & EHD_JSON_FIELD_TAG) && nd->tag != 0) {
        ehd_buf_append_fast(out, ";tag=0x", 7);
        ehd_buf_hex(out, nd->tag, 1);
    }
    ehd_buf_putc_fast(out, '"');
    ehd_json_colon(out, (flags & EHD_JSON_SPACE) != 0);
}

/*
 * Starts one item of node idx (a member value, or an array element when
 * element != 0): writes a scalar completely, or opens a struct/array by
 * pushing a frame.
 */
static int begin_item(struct ehd_ctx *c, struct ehd_frame *stack, uint32_t *sp, uint32_t idx,
                      int element)
{
    const struct ehd_node *nd = &c->fields[idx];
    if (!element && nd->array) {
        uint32_t count;
        if (nd->array == EH_ENC_CARRAY_FLAG) {
            count = nd->carray_count;
        } else {
            char fname[80];
            if (c->size - c->pos < 2)
                return ehd_fail(c, EBADMSG, c->pos,
                                "array field '%s' count runs past the end of the event",
                                ehd_field_name(nd, fname, sizeof fname));
            count = eh_read_u16(c->data + c->pos, c->be);
            c->pos += 2;
        }
        ehd_buf_putc_fast(c->out, '[');
        struct ehd_frame *f = &stack[(*sp)++];
        memset(f, 0, sizeof *f);
        f->is_array = 1;
        f->node = idx;
        f->remaining = count;
        f->first = 1;
        return 0;
    }
    if (nd->enc == EH_ENC_STRUCT) {
        ehd_buf_putc_fast(c->out, '{');
        struct ehd_frame *f = &stack[(*sp)++];
        memset(f, 0, sizeof *f);
        f->next = idx + 1;
        f->end = nd->end;
        f->first = 1;
        return 0;
    }
    return put_value(c, nd);
}

/* put_sep + put_field_name in one write when the name needs no escaping
 * (the common case: ASCII identifiers). */
static void put_member_name(struct ehd_ctx *c, uint8_t *first, const struct ehd_node *nd)
{
    const uint8_t *s = nd->name;
    size_t n = nd->name_len, i = 0;
    while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
        i++;
    if (i < n) {
        put_sep(c, first);
        put_field_name(c->out, c->flags, nd);
        return;
    }
    char *o = ehd_buf_room(c->out, n + 32);
    if (!o)
        return; /* out of memory is sticky: put_fields reports it */
    o = w_sep(c, o, first);
    *o++ = '"';
    memcpy(o, s, n);
    o += n;
    if ((c->flags & EHD_JSON_FIELD_TAG) && nd->tag != 0) {
        memcpy(o, ";tag=0x", 7);
        o = w_hex(o + 7, nd->tag);
    }
    *o++ = '"';
    o = ehd_json_put_colon(o, spaced(c));
    ehd_buf_commit(c->out, o);
}

/* put_sep + the cached layout's prepared name of node idx. */
static void put_cached_name(struct ehd_ctx *c, uint8_t *first, uint32_t idx)
{
    const struct ehd_schema *s = c->schema;
    size_t n = s->name_off[idx + 1] - s->name_off[idx];
    char *o = ehd_buf_room(c->out, n + 4);
    if (!o)
        return; /* out of memory is sticky: put_fields reports it */
    o = w_sep(c, o, first);
    memcpy(o, s->names + s->name_off[idx], n);
    ehd_buf_commit(c->out, o + n);
}

static int put_fields(struct ehd_ctx *c)
{
    /* Frames: at most one struct body and one array per nesting level. */
    uint32_t max_frames = 2 * c->n_nodes + 2;
    struct ehd_frame stack_small[34]; /* no allocation for events of up to 16 fields */
    struct ehd_frame *stack = max_frames <= 34 ? stack_small : malloc(max_frames * sizeof *stack);
    if (!stack)
        return ehd_fail(c, ENOMEM, 0, "out of memory");
    uint32_t sp = 1;
    memset(&stack[0], 0, sizeof stack[0]);
    stack[0].next = 0;
    stack[0].end = c->n_nodes;
    stack[0].first = 0; /* "n" came first */
    int err = 0;
    while (sp > 0) {
        if (c->out->len - c->out_start > EHD_MAX_OUTPUT) {
            err = ehd_fail(c, E2BIG, c->pos, "event JSON larger than %zu MiB (ehconf bound)",
                           EHD_MAX_OUTPUT >> 20);
            break;
        }
        if (c->out->oom) {
            err = ehd_fail(c, ENOMEM, c->pos, "out of memory");
            break;
        }
        struct ehd_frame *f = &stack[sp - 1];
        if (f->is_array) {
            if (f->remaining == 0) {
                put_close(c, ']');
                sp--;
                continue;
            }
            f->remaining--;
            put_sep(c, &f->first);
            err = begin_item(c, stack, &sp, f->node, 1);
        } else {
            if (f->next >= f->end) {
                if (sp > 1)
                    put_close(c, '}');
                sp--;
                continue;
            }
            uint32_t idx = f->next;
            f->next = c->fields[idx].end;
            if (c->schema)
                put_cached_name(c, &f->first, idx);
            else
                put_member_name(c, &f->first, &c->fields[idx]);
            err = begin_item(c, stack, &sp, idx, 0);
        }
        if (err)
            break;
    }
    if (stack != stack_small)
        free(stack);
    return err;
}

/* ---- meta -------------------------------------------------------------- */

/* opts/opts_len: the tracepoint name's options ("Gmygroup"), checked by the name's grammar
 * to be [A-Z][0-9a-z]* items, so they need no escaping; empty when the name has none. */
static void put_meta(struct ehd_ctx *c, const ehd_sample_info *si, uint64_t keyword,
                     const char *opts, size_t opts_len, const struct ehd_event_parts *ev)
{
    const uint8_t *h = c->data;
    uint16_t id = eh_read_u16(h + 2, c->be), tag = eh_read_u16(h + 4, c->be);
    uint8_t version = h[1], opcode = h[6], level = h[7];
    uint8_t first = 1, outer_first = 0;
    int with_si = si && !(c->flags & EHD_META_GOLDEN);
    size_t tlen = with_si && si->time_json ? strlen(si->time_json) : 0;
    /* bounded: 14 members of at most ~60 bytes, plus the caller's time text and the
     * options (a name has no length limit, §2.2) */
    char *o = ehd_buf_room(c->out, 1024 + tlen + opts_len);
    if (!o)
        return; /* out of memory is sticky: the caller reports it */
    o = W_KEY(c, o, &outer_first, "meta");
    *o++ = '{';
    if (with_si) {
        if (si->time_json) {
            o = W_KEY(c, o, &first, "time");
            memcpy(o, si->time_json, tlen);
            o += tlen;
        }
        if (si->has_cpu) {
            o = W_KEY(c, o, &first, "cpu");
            o = ehd_put_u64(o, si->cpu);
        }
        if (si->has_pid) {
            o = W_KEY(c, o, &first, "pid");
            o = ehd_put_u64(o, si->pid);
            o = W_KEY(c, o, &first, "tid");
            o = ehd_put_u64(o, si->tid);
        }
    }
    if (id) {
        o = W_KEY(c, o, &first, "id");
        o = ehd_put_u64(o, id);
    }
    if (version) {
        o = W_KEY(c, o, &first, "version");
        o = ehd_put_u64(o, version);
    }
    if (level) {
        o = W_KEY(c, o, &first, "level");
        o = ehd_put_u64(o, level);
    }
    if (keyword) {
        o = W_KEY(c, o, &first, "keyword");
        o = w_hex_quoted(o, keyword);
    }
    if (opcode) {
        o = W_KEY(c, o, &first, "opcode");
        o = ehd_put_u64(o, opcode);
    }
    if (tag) {
        o = W_KEY(c, o, &first, "tag");
        o = w_hex_quoted(o, tag);
    }
    if (ev->activity) {
        o = W_KEY(c, o, &first, "activity");
        o = w_uuid(o, ev->activity);
        if (ev->activity_size == 32) {
            o = W_KEY(c, o, &first, "relatedActivity");
            o = w_uuid(o, ev->activity + 16);
        }
    }
    if (opts_len) {
        o = W_KEY(c, o, &first, "options");
        *o++ = '"';
        memcpy(o, opts, opts_len);
        o += opts_len;
        *o++ = '"';
    }
    o = ehd_json_put_close(o, spaced(c), '}');
    ehd_buf_commit(c->out, o);
}

/* ---- layout: parsed, or from the cache ---------------------------------- */

/* '{' and "n": "<provider>:<event>" */
static void put_head(struct ehd_ctx *c, const char *tp_name, size_t provider_len,
                     const uint8_t *ename, size_t ename_len)
{
    uint8_t first = 1;
    ehd_buf_putc_fast(c->out, '{');
    put_sep(c, &first);
    put_key(c, "n");
    ehd_buf_putc_fast(c->out, '"');
    ehd_json_utf8_body(c->out, (const uint8_t *)tp_name, provider_len);
    ehd_buf_putc_fast(c->out, ':');
    ehd_json_utf8_body(c->out, ename, ename_len);
    ehd_buf_putc_fast(c->out, '"');
}

/* The full path: tracepoint name, extensions, event name and field tree, then
 * the head of the object. */
static int parse_layout(struct ehd_ctx *c, const char *tp_name, size_t tp_name_len,
                        struct ehd_event_parts *ev, size_t *provider_len, uint64_t *keyword,
                        size_t *options_start)
{
    int err = ehd_parse_tp_name(c, tp_name, tp_name_len, c->data[7], provider_len, keyword,
                                options_start);
    if (err)
        return err;
    err = ehd_parse_extensions(c, ev);
    if (err)
        return err;
    const uint8_t *ename_end = memchr(ev->meta, 0, ev->meta_size);
    if (!ename_end)
        return ehd_fail(c, EBADMSG, ev->meta_offset,
                        "event name not NUL-terminated in the metadata");
    size_t ename_len = (size_t)(ename_end - ev->meta);
    const uint8_t *semi = memchr(ev->meta, ';', ename_len);
    err = ehd_parse_fields(c, ev, ename_len + 1);
    if (err)
        return err;
    c->fields = c->nodes;
    put_head(c, tp_name, *provider_len, ev->meta, semi ? (size_t)(semi - ev->meta) : ename_len);
    return 0;
}

/* Keeps the layout just parsed (its head is the last thing written to c->out)
 * for the next events of this thread; returns the cached copy or NULL. */
static const struct ehd_schema *remember_layout(struct ehd_ctx *c, const struct ehd_schema_key *k,
                                                size_t provider_len, uint64_t keyword,
                                                size_t options_start)
{
    uint32_t off_small[33];
    uint32_t *off = c->n_nodes < 33 ? off_small : malloc((c->n_nodes + 1) * sizeof *off);
    ehd_buf names;
    ehd_buf_init(&names);
    const struct ehd_schema *kept = NULL;
    if (!off || c->out->oom)
        goto out;
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        off[i] = (uint32_t)names.len;
        put_field_name(&names, c->flags, &c->nodes[i]);
    }
    off[c->n_nodes] = (uint32_t)names.len;
    if (names.oom)
        goto out;
    struct ehd_schema s = {
        .key = *k,
        .provider_len = provider_len,
        .keyword = keyword,
        .options_start = options_start,
        .head = c->out->data + c->out_start,
        .head_len = c->out->len - c->out_start,
        .nodes = c->nodes,
        .n_nodes = c->n_nodes,
        .names = names.data ? names.data : "",
        .name_off = off,
    };
    kept = ehd_schema_store(&s);
out:
    if (off != off_small)
        free(off);
    ehd_buf_free(&names);
    return kept;
}

/* ---- entry point ------------------------------------------------------- */

int ehd_eventheader_json(ehd_buf *out, const char *tp_name, size_t tp_name_len, const uint8_t *data,
                         size_t size, const ehd_sample_info *si, unsigned flags,
                         const char **reason, size_t *err_offset)
{
    struct ehd_ctx c;
    struct ehd_node small_nodes[32];
    memset(&c, 0, sizeof c);
    c.small_nodes = small_nodes;
    c.small_cap = 32;
    c.out = out;
    c.out_start = out->len;
    c.flags = flags;
    c.data = data;
    c.size = size;
    c.reason = reason;
    c.err_offset = err_offset;

    int err = ehd_parse_header(&c);
    if (err)
        return err;

    /* A layout seen before on this thread skips the name and metadata parse.
     * Anything unusual (no metadata, bad extensions) takes the full path,
     * which reports problems in their usual order. */
    struct ehd_event_parts ev;
    struct ehd_schema_key key;
    int have_key = 0;
    if (ehd_parse_extensions(&c, &ev) == 0) {
        ehd_schema_key_init(&key, tp_name, tp_name_len, ev.meta, ev.meta_size, flags, c.be,
                            data[7]);
        have_key = 1;
        c.schema = ehd_schema_find(&key);
    }
    size_t provider_len = 0, options_start = tp_name_len;
    uint64_t keyword = 0;
    if (c.schema) {
        provider_len = c.schema->provider_len;
        keyword = c.schema->keyword;
        options_start = c.schema->options_start;
        c.fields = c.schema->nodes;
        c.n_nodes = c.schema->n_nodes;
        ehd_buf_append_fast(out, c.schema->head, c.schema->head_len);
    } else {
        err = parse_layout(&c, tp_name, tp_name_len, &ev, &provider_len, &keyword, &options_start);
        if (!err && have_key)
            c.schema = remember_layout(&c, &key, provider_len, keyword, options_start);
    }
    if (!err) {
        c.pos = ev.payload;
        err = put_fields(&c);
    }
    if (!err) {
        put_meta(&c, si, keyword, tp_name + options_start, tp_name_len - options_start, &ev);
        put_close(&c, '}');
        if (out->oom)
            err = ehd_fail(&c, ENOMEM, c.pos, "out of memory");
    }
    if (c.nodes != small_nodes)
        free(c.nodes);
    if (err)
        ehd_buf_truncate(out, c.out_start);
    return err;
}
