/* SPDX-License-Identifier: MIT */
/*
 * The dynamic builder's metadata reuse (builder.c): one builder that writes a sequence of
 * events whose shapes change at every place the metadata can (the event name, a field's
 * name, encoding, format, tag, array length, a struct's member count, fewer and more
 * fields, a name in a buffer the caller rewrote) must write, for each, exactly the record
 * that a fresh builder writes for the same adds.
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

EH_DEFINE_PROVIDER(rp, "TestBuilderReuse");

static eh_tracepoint *g_tp;
static eh_builder g_reused; /* lives through the whole sequence */

/* One event's adds, written through whichever builder it is given. */
typedef void build_fn(eh_builder *b);

/* Writes the event with the reused builder, then with a fresh one, and expects the two
 * records to be the same bytes; returns 1 if they are. */
static int same_as_fresh(build_fn *build)
{
    size_t a = cap_size();
    build(&g_reused);
    int ok = eh_builder_write(&g_reused, g_tp, NULL, NULL) == 0;
    size_t b = cap_size();
    eh_builder fresh;
    eh_builder_init(&fresh);
    build(&fresh);
    ok &= eh_builder_write(&fresh, g_tp, NULL, NULL) == 0;
    eh_builder_destroy(&fresh);
    size_t la, lb;
    uint8_t *ra = cap_read_from(a, &la);
    uint8_t *rb = cap_read_from(b, &lb);
    ok &= lb > 0 && la > lb &&
          kt_mem_diff(__FILE__, __LINE__, "reused builder's record", ra, la - lb, rb, lb);
    free(ra);
    free(rb);
    return ok;
}

static const uint32_t u32v = 7;
static const uint64_t u64v = 0x0102030405060708u;
static const uint32_t arr[4] = {1, 2, 3, 4};

static void base(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, 0, 0, &u32v);
    eh_builder_add_value(b, "bb", EH_ENC_VALUE64, EH_FMT_HEX_INT, 0, &u64v);
    eh_builder_add_string(b, "s", EH_ENC_STRING_LENGTH16_CHAR8, 0, 0, "text", 4);
}
static void renamed_mid(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, 0, 0, &u32v);
    eh_builder_add_value(b, "bc", EH_ENC_VALUE64, EH_FMT_HEX_INT, 0, &u64v);
    eh_builder_add_string(b, "s", EH_ENC_STRING_LENGTH16_CHAR8, 0, 0, "text", 4);
}
static void longer_name(eh_builder *b) /* "a" then "ab": a name's NUL is compared too */
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "ab", EH_ENC_VALUE32, 0, 0, &u32v);
}
static void other_encoding(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE64, 0, 0, &u64v);
}
static void other_format(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, EH_FMT_HEX_INT, 0, &u32v);
}
static void with_tag(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, EH_FMT_HEX_INT, 0x1234, &u32v);
}
static void other_tag(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, EH_FMT_HEX_INT, 0x1235, &u32v);
}
static void fewer(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, 0, 0, &u32v);
}
static void more(eh_builder *b)
{
    base(b);
    eh_builder_add_carray(b, "c", EH_ENC_VALUE32, 0, 0, arr, 3);
}
static void carray_length(eh_builder *b)
{
    base(b);
    eh_builder_add_carray(b, "c", EH_ENC_VALUE32, 0, 0, arr, 4);
}
static void other_event_name(eh_builder *b) /* "Ev" then "Eve" */
{
    eh_builder_reset(b, "Eve", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, 0, 0, &u32v);
    eh_builder_add_value(b, "bb", EH_ENC_VALUE64, EH_FMT_HEX_INT, 0, &u64v);
}
static void struct_n(eh_builder *b, int members, uint16_t tag)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, "a", EH_ENC_VALUE32, 0, 0, &u32v);
    eh_builder_begin_struct(b, "st", tag);
    for (int i = 0; i < members; i++)
        eh_builder_add_value(b, "m", EH_ENC_VALUE32, 0, 0, &arr[i]);
    eh_builder_end_struct(b);
    eh_builder_add_value(b, "z", EH_ENC_VALUE32, 0, 0, &u32v);
}
static void struct2(eh_builder *b)
{
    struct_n(b, 2, 0);
}
static void struct3(eh_builder *b)
{
    struct_n(b, 3, 0);
}
static void struct2_tagged(eh_builder *b)
{
    struct_n(b, 2, 5);
}
static void struct_array(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_begin_struct_array(b, "sa", 0, 2);
    eh_builder_add_value(b, "x", EH_ENC_VALUE32, 0, 0, &arr[0]);
    eh_builder_next_element(b);
    eh_builder_add_value(b, "x", EH_ENC_VALUE32, 0, 0, &arr[1]);
    eh_builder_end_struct(b);
}
static char g_name[8]; /* rewritten between events: the same pointer, other names */
static void name_in_buffer(eh_builder *b)
{
    eh_builder_reset(b, "Ev", 0, 0, 0, 0);
    eh_builder_add_value(b, g_name, EH_ENC_VALUE32, 0, 0, &u32v);
}

static void test_register(void)
{
    cap_setup("builder_reuse");
    KT_EXPECT_EQ(eh_provider_register(&rp), 0);
    KT_EXPECT_EQ(eh_provider_tracepoint(&rp, 5, 1, &g_tp), 0);
    eh_builder_init(&g_reused);
}

/* The same shape again and again: matched, then a change at each place, and back. */
static void test_shape_changes(void)
{
    static build_fn *const seq[] = {
        base,           base,          renamed_mid,    base,         longer_name,
        fewer,          base,          other_encoding, fewer,        other_format,
        with_tag,       other_tag,     with_tag,       fewer,        more,
        more,           carray_length, more,           base,         other_event_name,
        base,           struct2,       struct3,        struct2,      struct2,
        struct2_tagged, struct2,       struct_array,   struct_array, base,
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        KT_EXPECT(same_as_fresh(seq[i]));
}

static void test_name_rewritten_in_place(void)
{
    strcpy(g_name, "n1");
    KT_EXPECT(same_as_fresh(name_in_buffer));
    strcpy(g_name, "n2");
    KT_EXPECT(same_as_fresh(name_in_buffer));
    strcpy(g_name, "n");
    KT_EXPECT(same_as_fresh(name_in_buffer));
    strcpy(g_name, "n22");
    KT_EXPECT(same_as_fresh(name_in_buffer));
}

/* A reset that fails (no name) and an add that fails leave nothing behind that the next
 * event could match wrongly. */
static void test_after_errors(void)
{
    KT_EXPECT(same_as_fresh(base));
    KT_EXPECT_EQ(eh_builder_reset(&g_reused, NULL, 0, 0, 0, 0), EINVAL);
    KT_EXPECT_EQ(eh_builder_write(&g_reused, g_tp, NULL, NULL), EINVAL);
    KT_EXPECT(same_as_fresh(base));
    eh_builder_reset(&g_reused, "Ev", 0, 0, 0, 0);
    KT_EXPECT_EQ(eh_builder_add_value(&g_reused, "a", 0x1f, 0, 0, &u32v), EINVAL);
    KT_EXPECT_EQ(eh_builder_write(&g_reused, g_tp, NULL, NULL), EINVAL);
    KT_EXPECT(same_as_fresh(base));
    eh_builder_destroy(&g_reused);
    eh_builder_init(&g_reused);
    KT_EXPECT(same_as_fresh(base));
    eh_builder_destroy(&g_reused);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_shape_changes), KT_CASE(test_name_rewritten_in_place),
        KT_CASE(test_after_errors))
