// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_registration: registering a user event with DIAG_IOCSREG, asserted through
 * the raw user_events ABI (cases/user_events_abi.h), IDs K01-K03 and K05-K19 of
 * Documentation/kernel-behaviours.md, as Debian's 6.12.117 behaves.
 *
 * ehconf-no-golden: this case writes no EventHeader event to compare; every check is
 * an assertion here (KTAP only).
 *
 *   K01_reg_struct_size_bounds
 *                 K01: struct user_reg size 0, 1 or 27 -> EINVAL, PAGE_SIZE + 1 and
 *                 0xffffffff -> E2BIG, a non-zero byte past the 28 known ones (first
 *                 or last of the tail) -> E2BIG, a NULL struct -> EFAULT; none of them
 *                 creates the event, touches the enable word or returns an index;
 *                 28, 32 and PAGE_SIZE with a zero tail are accepted;
 *   K02_unknown_flag_bits_are_EINVAL
 *                 K02: flags with any bit >= 2 set (alone or with PERSIST or
 *                 MULTI_FORMAT) -> EINVAL and nothing is created; flags 0 works;
 *   K03_persist_event_outlives_unregister_and_close
 *                 K03: as root PERSIST is accepted; after unregister + close the
 *                 persistent event stays in tracefs while a normal one registered
 *                 alongside is deleted by the kernel; DIAG_IOCSDEL then removes it;
 *   K05_multi_format_tracepoints
 *                 K05: MULTI_FORMAT creates user_events_multi:<name>.<hex id> (not
 *                 user_events:<name>); the same fields share it, other fields get a
 *                 new tracepoint with a larger id; single-format registrations of the
 *                 name are separate; each format is deleted when its own last user
 *                 goes; DIAG_IOCSDEL of the name removes every (PERSIST) format;
 *   K06_enable_size_alignment_and_bit_range
 *                 K06: enable_size other than 4 and 8 -> EINVAL; a misaligned address
 *                 -> EINVAL; bit > size*8-1 -> EINVAL; bit 31 of a 4-byte word (at a
 *                 4-but-not-8-aligned address) and bit 63 of an 8-byte word work;
 *   K07_unwritable_or_unmapped_enable_addr
 *                 K07: a read-only, PROT_NONE or unmapped enable word is refused with
 *                 ENOMEM on 6.12 (the failed write is reported as a failed allocation),
 *                 an address in the kernel half with EFAULT; no enabler is left, but
 *                 the event was created and stays referenced by the fd until close;
 *   K08_same_address_and_bit_twice_is_EADDRINUSE
 *                 K08: an (address, bit) already registered in the process -> EADDRINUSE,
 *                 for the same or another event and through another fd; another bit or
 *                 address is fine; after DIAG_IOCSUNREG the pair is free again;
 *   K09_bit_reflects_the_event_state_at_registration
 *                 K09: with a perf event open on the tracepoint, a new enabler's bit is
 *                 set when DIAG_IOCSREG returns (other bits untouched); for an event
 *                 nobody traces a preset bit is cleared at registration;
 *   K10_write_index_is_a_per_fd_slot
 *                 K10: indexes count from 0 per fd in registration order; the same
 *                 event on the same fd always gets its first index; another fd has
 *                 its own numbering;
 *   K10_K12_reregister_format
 *                 K10, K12: the same name and fields again on one fd: same index;
 *                 other type or other field name -> EADDRINUSE, no index returned;
 *   K11_another_process_shares_the_event
 *                 K11: a forked child registering the same name and fields on its own
 *                 fd sees the same tracefs id and gets its bit set at once by the
 *                 parent's perf event; other fields -> EADDRINUSE in the child too;
 *   K12_fields_must_match_exactly
 *                 K12: a prefix or an extension of the field list, or no fields at all,
 *                 -> EADDRINUSE; a field-less event refuses fields; a refused
 *                 registration leaves no enabler behind;
 *   K13_field_list_spacing_after_semicolon
 *                 K13: "u32 a;u32 b", "u32 a; u32 b", "u32 a;  u32 b" and "u32 a;\tu32 b"
 *                 are the same field list, whichever was registered first;
 *   K14_trailing_semicolon_order_name_type_and_struct_matter
 *                 K14: a trailing ';' is accepted and matches the list without it;
 *                 another order, field name, type (also u32 vs unsigned int), struct
 *                 tag or struct size -> EADDRINUSE; the identical struct matches;
 *   K15_field_types_and_array_bounds
 *                 K15: every accepted basic type, char[N]/unsigned char[N] with N 1 and
 *                 1024 (decimal, hex, octal) have the expected size and signedness at
 *                 offset 8 in the format; long, char[0], char[1025], char[] and other
 *                 unknown types -> EINVAL and create nothing;
 *   K16_loc_field_declarations
 *                 K16 (registration side only): __data_loc and __rel_loc fields of any
 *                 array type are accepted as 4-byte fields, printed as strings for
 *                 char types; without a type name or with a size -> EINVAL;
 *   K17_struct_fields_need_a_size
 *                 K17: `struct <tag> <name> <size>` takes the decimal size as its field
 *                 size; no size, size 0, a hex or negative size, an extra word, no
 *                 name, or a size on a non-struct field -> EINVAL;
 *   K18_name_ends_at_the_first_space_and_flags_are_rejected
 *                 K18: "name:flag", "name:" and "name: fields" -> EINVAL and create
 *                 nothing; several spaces after the name are fine; a tab does not end
 *                 the name (EINVAL);
 *   K19_command_of_511_characters
 *                 K19: a command of exactly 511 characters is accepted, 512 and 4096
 *                 -> EINVAL (no event created);
 *   K19_names_over_255_bytes
 *                 K19: names of 255, 256 and 400 bytes register; on 6.12 they are also
 *                 visible in tracefs (lookup, readdir at full length, id, status) and a
 *                 perf event on the 400-byte one sets its bit.
 *   K52_char_array_format_shows_its_length
 *                 K52: the tracefs format of a `char[20]` field says `f[20]`; on the
 *                 kernels whose row of cases/kernel-expectations.txt says so (the length
 *                 is never set, the brackets show heap) it must show something else, so a
 *                 fixed kernel fails here and gets its own row.
 *
 * K04 (PERSIST without CAP_PERFMON) and K20 (user_events_max) are asserted by other
 * cases; so are the write-side checks of K16 (EFAULT for a bad loc or missing NUL).
 * Tests need root (PERSIST needs CAP_PERFMON, perf_event_open on cpu 0); without
 * user_events_data every test SKIPs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_harness.h"
#include "kernel_expect.h"
#include "user_events_abi.h"
#include "kernel_asserts.h"

#define SENTINEL_INDEX 0xdeadbeefu

/* Fills a whole struct user_reg for (cmd, 4-byte word, bit) with the given size. */
static void fill_reg(struct eh_user_reg *reg, uint32_t size, const char *cmd, uint32_t *word,
                     unsigned bit)
{
    memset(reg, 0, sizeof *reg);
    reg->size = size;
    reg->enable_bit = (uint8_t)bit;
    reg->enable_size = sizeof *word;
    reg->enable_addr = (uint64_t)(uintptr_t)word;
    reg->name_args = (uint64_t)(uintptr_t)cmd;
    reg->write_index = SENTINEL_INDEX;
}

/* Registers the command `cmd` on bit `bit` of a 32-bit word, no flags. */
static int reg_cmd(int fd, const char *cmd, uint32_t *word, unsigned bit, uint32_t *index)
{
    return ue_register_cmd(fd, cmd, word, sizeof *word, bit, 0, index);
}

/* Whether events/<system>/<event>/format contains `needle`. */
static bool format_has(const char *system, const char *event, const char *needle)
{
    static char text[16384];
    char path[1024];

    snprintf(path, sizeof path, TRACEFS "/events/%s/%s/format", system, event);
    if (read_text(path, text, sizeof text) != 0)
        return false;
    return strstr(text, needle) != NULL;
}

/* Whether user_events:<event> has a field at `offset` of `size` bytes, signed or not
 * (the format line "\toffset:O;\tsize:S;\tsigned:G;"). */
static bool field_at(const char *system, const char *event, int offset, int size, int is_signed)
{
    char needle[96];

    snprintf(needle, sizeof needle, "\toffset:%d;\tsize:%d;\tsigned:%d;\n", offset, size,
             is_signed);
    return format_has(system, event, needle);
}

/* The multi-format tracepoints of `name`: entries "<name>.<suffix>" of
 * events/user_events_multi, up to `max` of them copied into out[]. Returns the count. */
#define MULTI_NAME_LEN 256
static int multi_formats(const char *name, char out[][MULTI_NAME_LEN], int max)
{
    DIR *dir = opendir(TRACEFS "/events/user_events_multi");
    size_t len = strlen(name);
    struct dirent *de;
    int n = 0;

    if (!dir)
        return 0;
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, name, len) != 0 || de->d_name[len] != '.')
            continue;
        if (n < max)
            snprintf(out[n], MULTI_NAME_LEN, "%s", de->d_name);
        n++;
    }
    closedir(dir);
    return n;
}

/* The id part of "<name>.<id>" if it is non-empty lowercase hex: 0 and *id, else -1. */
static int multi_id(const char *tp, size_t name_len, unsigned long long *id)
{
    const char *hex = tp + name_len + 1;

    if (hex[0] == '\0' || strspn(hex, "0123456789abcdef") != strlen(hex))
        return -1;
    *id = strtoull(hex, NULL, 16);
    return 0;
}

/* K01: each size check guards the copy of the struct; a kernel that drops or shifts one
 * accepts a truncated or padded struct (returns 0 and writes an index) or answers with
 * another errno. The bit preset to 1 shows whether any enabler write happened. */
TEST(K01_reg_struct_size_bounds)
{
    char name[64];
    uint32_t words[3] = {1, 1, 1}, sizes_einval[] = {0, 1, 27};
    struct eh_user_reg *reg;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *buf;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k01");
    fd = ue_open();
    ASSERT_LE(0, fd);
    /* two pages: the struct at the start, room for a PAGE_SIZE struct with a tail */
    buf = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(MAP_FAILED, buf);
    reg = (struct eh_user_reg *)buf;

    for (size_t i = 0; i < sizeof sizes_einval / sizeof sizes_einval[0]; i++) {
        fill_reg(reg, sizes_einval[i], name, &words[0], 0);
        EXPECT_EQ(EINVAL, ue_reg_raw(fd, reg))
        {
            TH_LOG("size %u", sizes_einval[i]);
        }
    }
    fill_reg(reg, (uint32_t)page + 1, name, &words[0], 0);
    EXPECT_EQ(E2BIG, ue_reg_raw(fd, reg));
    fill_reg(reg, 0xffffffffu, name, &words[0], 0);
    EXPECT_EQ(E2BIG, ue_reg_raw(fd, reg));
    fill_reg(reg, 32, name, &words[0], 0);
    buf[28] = 0x01; /* first byte past the known struct */
    EXPECT_EQ(E2BIG, ue_reg_raw(fd, reg));
    buf[28] = 0;
    fill_reg(reg, (uint32_t)page, name, &words[0], 0);
    buf[page - 1] = 0x80; /* last byte of a PAGE_SIZE struct */
    EXPECT_EQ(E2BIG, ue_reg_raw(fd, reg));
    buf[page - 1] = 0;
    EXPECT_EQ(EFAULT, ue_reg_raw(fd, NULL));
    EXPECT_EQ(SENTINEL_INDEX, reg->write_index);
    EXPECT_EQ(1u, load_word(&words[0])); /* no enabler was written */
    EXPECT_FALSE(tracefs_event_exists("user_events", name));

    /* accepted: exactly 28 (on the same pair: the refusals left no enabler on it) */
    fill_reg(reg, 28, name, &words[0], 0);
    EXPECT_EQ(0, ue_reg_raw(fd, reg));
    EXPECT_EQ(0u, reg->write_index);
    EXPECT_EQ(0u, load_word(&words[0])); /* nobody traces it: the bit is cleared */
    EXPECT_TRUE(tracefs_event_exists("user_events", name));
    /* 32 and PAGE_SIZE with a zero tail: the same event, the same slot */
    fill_reg(reg, 32, name, &words[1], 0);
    EXPECT_EQ(0, ue_reg_raw(fd, reg));
    EXPECT_EQ(0u, reg->write_index);
    EXPECT_EQ(0u, load_word(&words[1]));
    fill_reg(reg, (uint32_t)page, name, &words[2], 0);
    EXPECT_EQ(0, ue_reg_raw(fd, reg));
    EXPECT_EQ(0u, reg->write_index);
    EXPECT_EQ(0u, load_word(&words[2]));
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(0, ue_unregister(fd, &words[i], 0));
    close(fd);
    munmap(buf, 2 * page);
}

/* K02: only PERSIST and MULTI_FORMAT are known flags; a kernel with a wider mask accepts
 * one of these (returns 0 and creates the event). */
TEST(K02_unknown_flag_bits_are_EINVAL)
{
    static const uint16_t bad[] = {1u << 2, 1u << 3,        1u << 8,        1u << 15,
                                   0xfffc,  (1u << 2) | 1u, (1u << 2) | 2u, 0xffff};
    char name[64], cmd[96];
    uint32_t word = 1, index = SENTINEL_INDEX;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k02");
    snprintf(cmd, sizeof cmd, "%s u32 a", name);
    fd = ue_open();
    ASSERT_LE(0, fd);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_EQ(EINVAL, ue_register_cmd(fd, cmd, &word, sizeof word, 0, bad[i], &index))
        {
            TH_LOG("flags 0x%x", bad[i]);
        }
    }
    EXPECT_EQ(SENTINEL_INDEX, index);
    EXPECT_EQ(1u, load_word(&word));
    EXPECT_FALSE(tracefs_event_exists("user_events", name));
    EXPECT_EQ(0, multi_formats(name, NULL, 0));
    /* the same registration without the unknown bits */
    EXPECT_EQ(0, ue_register_cmd(fd, cmd, &word, sizeof word, 0, 0, &index));
    EXPECT_EQ(0u, index);
    EXPECT_EQ(0u, load_word(&word));
    EXPECT_TRUE(tracefs_event_exists("user_events", name));
    EXPECT_EQ(0, ue_unregister(fd, &word, 0));
    close(fd);
}

/* K03: a normal event registered and dropped the same way is deleted by the kernel,
 * the persistent one must stay; a kernel that ignores PERSIST (or refuses it to root)
 * loses the event or fails the registration. */
TEST(K03_persist_event_outlives_unregister_and_close)
{
    char pname[64], tname[64];
    uint32_t words[2] = {0, 0}, index = 0;
    int fd, err;

    NEED_USER_EVENTS();
    ue_skip_unless_root(_metadata, "PERSIST needs CAP_PERFMON: not running as root");
    ue_event_name(pname, sizeof pname, "k03_persist");
    ue_event_name(tname, sizeof tname, "k03_transient");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(
        0, ue_register_flags(fd, pname, "u32 a", &words[0], 0, EH_USER_EVENT_REG_PERSIST, &index));
    ASSERT_EQ(0, ue_register(fd, tname, "u32 a", &words[1], 0, &index));
    EXPECT_TRUE(tracefs_event_exists("user_events", pname));
    EXPECT_EQ(0, ue_unregister(fd, &words[0], 0));
    EXPECT_EQ(0, ue_unregister(fd, &words[1], 0));
    close(fd);
    /* the control: the normal event goes once its references are released */
    EXPECT_TRUE(wait_event_presence(tname, false, UE_WAIT_MS));
    ue_sleep_ms(200); /* and some more time for the persistent one to (not) go */
    EXPECT_TRUE(tracefs_event_exists("user_events", pname));
    EXPECT_LT(0, tracepoint_id(pname));
    err = ue_delete_wait(pname, UE_WAIT_MS);
    EXPECT_EQ(0, err)
    {
        TH_LOG("DIAG_IOCSDEL of the persistent event: %s", strerror(err));
    }
    EXPECT_TRUE(wait_event_presence(pname, false, UE_WAIT_MS));
}

/* K05: the multi-format tracepoint name, sharing, separate lifetimes and the delete of
 * every format. A kernel that names it otherwise, reuses one tracepoint for other
 * fields, ties the formats' lifetimes or deletes only one format fails here. */
TEST(K05_multi_format_tracepoints)
{
    char name[64], pname[64], tp[4][MULTI_NAME_LEN], tp2[4][MULTI_NAME_LEN];
    char cmd_a[96], cmd_b[96];
    uint32_t words[8] = {0}, ia = 0, ia2 = 0, ib = 0, is = 0;
    unsigned long long id_a = 0, id_b = 0;
    int fd1, fd2, fd3, err;
    const uint16_t multi = UE_REG_MULTI_FORMAT;
    const uint16_t persist_multi = UE_REG_MULTI_FORMAT | EH_USER_EVENT_REG_PERSIST;

    NEED_USER_EVENTS();
    ue_skip_unless_root(_metadata, "PERSIST needs CAP_PERFMON: not running as root");
    ue_event_name(name, sizeof name, "k05");
    fd1 = ue_open();
    fd2 = ue_open();
    ASSERT_LE(0, fd1);
    ASSERT_LE(0, fd2);

    /* format A on fd1 (twice: shared), format B on fd2 */
    ASSERT_EQ(0, ue_register_flags(fd1, name, "u32 a", &words[0], 0, multi, &ia));
    ASSERT_EQ(1, multi_formats(name, tp, 4));
    ASSERT_EQ(0, multi_id(tp[0], strlen(name), &id_a))
    {
        TH_LOG("tracepoint %s is not <name>.<hex>", tp[0]);
    }
    EXPECT_FALSE(tracefs_event_exists("user_events", name));
    EXPECT_TRUE(format_has("user_events_multi", tp[0], "\tfield:u32 a;\toffset:8;\tsize:4;"));
    ASSERT_EQ(0, ue_register_flags(fd1, name, "u32 a", &words[1], 0, multi, &ia2));
    EXPECT_EQ(ia, ia2);
    EXPECT_EQ(1, multi_formats(name, tp2, 4));
    ASSERT_EQ(0, ue_register_flags(fd2, name, "u64 a", &words[2], 0, multi, &ib));
    ASSERT_EQ(2, multi_formats(name, tp2, 4));
    /* B is the entry that is not A */
    if (strcmp(tp2[0], tp[0]) == 0)
        memcpy(tp[1], tp2[1], MULTI_NAME_LEN);
    else
        memcpy(tp[1], tp2[0], MULTI_NAME_LEN);
    ASSERT_EQ(0, multi_id(tp[1], strlen(name), &id_b))
    {
        TH_LOG("tracepoint %s is not <name>.<hex>", tp[1]);
    }
    EXPECT_LT(id_a, id_b); /* ids only grow */
    EXPECT_TRUE(format_has("user_events_multi", tp[1], "\tfield:u64 a;\toffset:8;\tsize:8;"));
    EXPECT_NE(tracepoint_id_in("user_events_multi", tp[0]),
              tracepoint_id_in("user_events_multi", tp[1]));
    /* a single-format event of the same name is another event, and other fields are
	 * fine for it: single- and multi-format never match each other */
    EXPECT_EQ(0, ue_register(fd2, name, "u16 b", &words[3], 0, &is));
    EXPECT_TRUE(tracefs_event_exists("user_events", name));
    EXPECT_EQ(2, multi_formats(name, tp2, 4));

    /* format A's last users go: A is deleted, B stays */
    EXPECT_EQ(0, ue_unregister(fd1, &words[0], 0));
    EXPECT_EQ(0, ue_unregister(fd1, &words[1], 0));
    close(fd1);
    EXPECT_TRUE(wait_event_presence_in("user_events_multi", tp[0], false, UE_WAIT_MS));
    EXPECT_TRUE(tracefs_event_exists("user_events_multi", tp[1]));
    EXPECT_TRUE(tracefs_event_exists("user_events", name));
    EXPECT_EQ(0, ue_unregister(fd2, &words[2], 0));
    EXPECT_EQ(0, ue_unregister(fd2, &words[3], 0));
    close(fd2);
    EXPECT_TRUE(wait_event_presence_in("user_events_multi", tp[1], false, UE_WAIT_MS));
    EXPECT_TRUE(wait_event_presence(name, false, UE_WAIT_MS));

    /* two persistent formats of one name: one DIAG_IOCSDEL of the name removes both */
    ue_event_name(pname, sizeof pname, "k05_persist");
    snprintf(cmd_a, sizeof cmd_a, "%s u32 a", pname);
    snprintf(cmd_b, sizeof cmd_b, "%s u64 b", pname);
    fd3 = ue_open();
    ASSERT_LE(0, fd3);
    EXPECT_EQ(0, ue_register_cmd(fd3, cmd_a, &words[4], 4, 0, persist_multi, &ia));
    EXPECT_EQ(0, ue_register_cmd(fd3, cmd_b, &words[5], 4, 0, persist_multi, &ib));
    EXPECT_EQ(0, ue_unregister(fd3, &words[4], 0));
    EXPECT_EQ(0, ue_unregister(fd3, &words[5], 0));
    close(fd3);
    EXPECT_EQ(2, multi_formats(pname, tp, 4));
    err = ue_delete_wait(pname, UE_WAIT_MS);
    EXPECT_EQ(0, err)
    {
        TH_LOG("DIAG_IOCSDEL %s: %s", pname, strerror(err));
    }
    EXPECT_EQ(0, multi_formats(pname, tp, 4));
    if (multi_formats(pname, tp, 4) != 0)
        ue_delete_wait(pname, UE_WAIT_MS); /* leave nothing behind */
}

/* K06: the size, alignment and bit-range checks of the enable word, and that the two
 * accepted sizes work. A kernel that loosens a check accepts one of the bad pairs; one
 * that drops 8-byte words (or mis-sizes them) refuses bit 63 or sets another bit. */
TEST(K06_enable_size_alignment_and_bit_range)
{
    static const uint8_t bad_sizes[] = {0, 1, 2, 3, 5, 6, 7, 9, 16, 255};
    static const struct {
        unsigned off, size, bit;
    } bad[] = {
        {2, 4, 0},  {1, 4, 0},  {3, 4, 0},   {4, 8, 0},  {2, 8, 0},
        {0, 4, 32}, {0, 4, 63}, {0, 4, 255}, {0, 8, 64}, {0, 8, 255},
    };
    union {
        uint64_t q[4];
        uint32_t d[8];
        uint8_t b[32];
    } w;
    char name[64], bad_name[64], cmd[96], bad_cmd[96];
    uint32_t index = SENTINEL_INDEX;
    int fd, pfd;

    NEED_USER_EVENTS();
    NEED_PERF();
    if (sizeof(void *) != 8)
        SKIP(return, "8-byte enable words need a 64-bit process");
    memset(&w, 0, sizeof w);
    ue_event_name(name, sizeof name, "k06");
    ue_event_name(bad_name, sizeof bad_name, "k06_bad");
    snprintf(cmd, sizeof cmd, "%s u32 a", name);
    snprintf(bad_cmd, sizeof bad_cmd, "%s u32 a", bad_name);
    fd = ue_open();
    ASSERT_LE(0, fd);
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        EXPECT_EQ(EINVAL, ue_register_cmd(fd, bad_cmd, &w.q[0], bad_sizes[i], 0, 0, &index))
        {
            TH_LOG("enable_size %u", bad_sizes[i]);
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_EQ(EINVAL, ue_register_cmd(fd, bad_cmd, &w.b[bad[i].off], bad[i].size, bad[i].bit, 0,
                                          &index))
        {
            TH_LOG("offset %u, size %u, bit %u", bad[i].off, bad[i].size, bad[i].bit);
        }
    }
    EXPECT_EQ(SENTINEL_INDEX, index);
    EXPECT_FALSE(tracefs_event_exists("user_events", bad_name));
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(0u, w.q[i]);

    /* accepted: bit 31 of a 4-byte word at 4 mod 8, bit 0 of a 4-byte word at 0 mod 8,
	 * bit 63 and bit 0 of 8-byte words */
    EXPECT_EQ(0, ue_register_cmd(fd, cmd, &w.d[1], 4, 31, 0, &index));
    EXPECT_EQ(0, ue_register_cmd(fd, cmd, &w.d[2], 4, 0, 0, &index));
    EXPECT_EQ(0, ue_register_cmd(fd, cmd, &w.q[2], 8, 63, 0, &index));
    EXPECT_EQ(0, ue_register_cmd(fd, cmd, &w.q[3], 8, 0, 0, &index));
    pfd = perf_attach(_metadata, name);
    EXPECT_TRUE(wait_bits(&w.d[1], 1u << 31, true, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits(&w.d[2], 1u, true, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits64(&w.q[2], 1ull << 63, true, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits64(&w.q[3], 1ull, true, UE_WAIT_MS));
    EXPECT_EQ(0u, load_word(&w.d[0]));
    EXPECT_EQ(1u << 31, load_word(&w.d[1]));
    EXPECT_EQ(1u, load_word(&w.d[2]));
    EXPECT_EQ(0u, load_word(&w.d[3]));
    EXPECT_EQ(1ull << 63, __atomic_load_n(&w.q[2], __ATOMIC_RELAXED));
    EXPECT_EQ(1ull, __atomic_load_n(&w.q[3], __ATOMIC_RELAXED));
    close(pfd);
    EXPECT_TRUE(wait_bits(&w.d[1], 1u << 31, false, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits64(&w.q[2], 1ull << 63, false, UE_WAIT_MS));
    EXPECT_EQ(0, ue_unregister(fd, &w.d[1], 31));
    EXPECT_EQ(0, ue_unregister(fd, &w.d[2], 0));
    EXPECT_EQ(0, ue_unregister(fd, &w.q[2], 63));
    EXPECT_EQ(0, ue_unregister(fd, &w.q[3], 0));
    close(fd);
}

/* K07: the kernel must refuse an enable word it cannot write. 6.12 answers ENOMEM for a
 * user address (user_events_ioctl_reg reports the failed enabler as an allocation
 * failure before looking at the write result) and EFAULT for a kernel-half address
 * (access_ok). A kernel that accepted such a word, or changed the errno, fails here. */
TEST(K07_unwritable_or_unmapped_enable_addr)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char name[64], cmd[96];
    uint32_t index = SENTINEL_INDEX, *ro, *none, *gone;
    void *kernel_half = (void *)(UINTPTR_MAX & ~(uintptr_t)7);
    char from[128];
    long half_errno = EFAULT;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k07");
    snprintf(cmd, sizeof cmd, "%s u32 a", name);
    ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(MAP_FAILED, ro);
    ASSERT_NE(MAP_FAILED, none);
    ASSERT_NE(MAP_FAILED, gone);
    ASSERT_EQ(0, munmap(gone, page));
    fd = ue_open();
    ASSERT_LE(0, fd);
    EXPECT_EQ(ENOMEM, reg_cmd(fd, cmd, ro, 0, &index));
    EXPECT_EQ(ENOMEM, reg_cmd(fd, cmd, none, 0, &index));
    EXPECT_EQ(ENOMEM, reg_cmd(fd, cmd, gone, 0, &index));
    /* EFAULT from access_ok(); not on s390x, which has no kernel half: the table's row */
    ASSERT_EQ(
        0, kernel_expect("EHCONF_EXPECT_KERNEL_HALF_ENABLE_ERRNO", &half_errno, from, sizeof from))
    {
        TH_LOG("kernel_half_enable_errno: no row of cases/kernel-expectations.txt");
    }
    EXPECT_EQ(half_errno, reg_cmd(fd, cmd, kernel_half, 0, &index))
    {
        TH_LOG("kernel-half address: errno expected by %s", from);
    }
    EXPECT_EQ(SENTINEL_INDEX, index);
    /* 6.12 parses the command and takes the fd's slot before it tries the write */
    EXPECT_TRUE(tracefs_event_exists("user_events", name));
    /* no enabler was kept: once writable, the same address and bit register */
    ASSERT_EQ(0, mprotect(ro, page, PROT_READ | PROT_WRITE));
    *ro = 1;
    EXPECT_EQ(0, reg_cmd(fd, cmd, ro, 0, &index));
    EXPECT_EQ(0u, load_word(ro));
    EXPECT_EQ(0, ue_unregister(fd, ro, 0));
    close(fd);
    EXPECT_TRUE(wait_event_presence(name, false, UE_WAIT_MS));
    munmap(ro, page);
    munmap(none, page);
}

/* K08: an (address, bit) pair belongs to one enabler of the process; a kernel without
 * the check accepts the second registration (returns 0). */
TEST(K08_same_address_and_bit_twice_is_EADDRINUSE)
{
    char a[64], b[64];
    uint32_t words[2] = {0, 0}, index = 0, again = SENTINEL_INDEX;
    int fd1, fd2;

    NEED_USER_EVENTS();
    ue_event_name(a, sizeof a, "k08_a");
    ue_event_name(b, sizeof b, "k08_b");
    fd1 = ue_open();
    fd2 = ue_open();
    ASSERT_LE(0, fd1);
    ASSERT_LE(0, fd2);
    ASSERT_EQ(0, ue_register(fd1, a, "u32 x", &words[0], 0, &index));
    EXPECT_EQ(EADDRINUSE, ue_register(fd1, a, "u32 x", &words[0], 0, &again));
    EXPECT_EQ(EADDRINUSE, ue_register(fd1, b, "u32 x", &words[0], 0, &again));
    EXPECT_EQ(EADDRINUSE, ue_register(fd2, a, "u32 x", &words[0], 0, &again));
    EXPECT_EQ(EADDRINUSE, ue_register(fd2, b, "u32 x", &words[0], 0, &again));
    EXPECT_EQ(SENTINEL_INDEX, again);
    EXPECT_FALSE(tracefs_event_exists("user_events", b)); /* refused before parsing */
    /* another bit of the word, the same bit of another word */
    EXPECT_EQ(0, ue_register(fd1, a, "u32 x", &words[0], 1, &again));
    EXPECT_EQ(0, ue_register(fd2, b, "u32 x", &words[1], 0, &again));
    /* unregistered, the pair is free for any event */
    EXPECT_EQ(0, ue_unregister(fd1, &words[0], 0));
    EXPECT_EQ(0, ue_register(fd2, b, "u32 x", &words[0], 0, &again));
    EXPECT_EQ(0, ue_unregister(fd2, &words[0], 0));
    EXPECT_EQ(0, ue_unregister(fd1, &words[0], 1));
    EXPECT_EQ(0, ue_unregister(fd2, &words[1], 0));
    close(fd1);
    close(fd2);
}

/* K09: DIAG_IOCSREG writes the event's current state into the new bit before it
 * returns (no wait here); a kernel that leaves the word alone until the next state
 * change keeps the bit at its old value. */
TEST(K09_bit_reflects_the_event_state_at_registration)
{
    char name[64], quiet[64];
    uint32_t words[5] = {0, 0x80000001u, 0, 0x00000011u, 0x4u}, index = 0;
    int fd, fd2, pfd;

    NEED_USER_EVENTS();
    NEED_PERF();
    ue_event_name(name, sizeof name, "k09");
    ue_event_name(quiet, sizeof quiet, "k09_quiet");
    fd = ue_open();
    fd2 = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_LE(0, fd2);
    ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[0], 0, &index));
    EXPECT_EQ(0u, load_word(&words[0]));
    pfd = perf_attach(_metadata, name);
    ASSERT_TRUE(wait_bits(&words[0], 1, true, UE_WAIT_MS));
    /* traced: a second enabler (same fd) and a third (another fd) start at 1 */
    ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[1], 4, &index));
    EXPECT_EQ(0x80000011u, load_word(&words[1]));
    ASSERT_EQ(0, ue_register(fd2, name, "u32 a", &words[2], 31, &index));
    EXPECT_EQ(0x80000000u, load_word(&words[2]));
    /* an event nobody traces: a preset bit is cleared, the others stay */
    ASSERT_EQ(0, ue_register(fd, quiet, "u32 a", &words[3], 4, &index));
    EXPECT_EQ(0x1u, load_word(&words[3]));
    close(pfd);
    EXPECT_TRUE(wait_bits(&words[0], 1, false, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits(&words[1], 1u << 4, false, UE_WAIT_MS));
    EXPECT_TRUE(wait_bits(&words[2], 1u << 31, false, UE_WAIT_MS));
    /* no longer traced: a new enabler of the event starts at 0 */
    ASSERT_EQ(0, ue_register(fd2, name, "u32 a", &words[4], 2, &index));
    EXPECT_EQ(0u, load_word(&words[4]));
    EXPECT_EQ(0, ue_unregister(fd, &words[0], 0));
    EXPECT_EQ(0, ue_unregister(fd, &words[1], 4));
    EXPECT_EQ(0, ue_unregister(fd2, &words[2], 31));
    EXPECT_EQ(0, ue_unregister(fd, &words[3], 4));
    EXPECT_EQ(0, ue_unregister(fd2, &words[4], 2));
    close(fd);
    close(fd2);
}

/* K10: the index is the event's slot in the fd's own table; a kernel that numbers
 * globally, or gives a repeated event a new slot, returns other numbers. */
TEST(K10_write_index_is_a_per_fd_slot)
{
    char a[64], b[64], c[64];
    uint32_t words[10] = {0}, index = SENTINEL_INDEX;
    int fd1, fd2;

    NEED_USER_EVENTS();
    ue_event_name(a, sizeof a, "k10_a");
    ue_event_name(b, sizeof b, "k10_b");
    ue_event_name(c, sizeof c, "k10_c");
    fd1 = ue_open();
    fd2 = ue_open();
    ASSERT_LE(0, fd1);
    ASSERT_LE(0, fd2);
    EXPECT_EQ(0, ue_register(fd1, a, "u32 x", &words[0], 0, &index));
    EXPECT_EQ(0u, index);
    EXPECT_EQ(0, ue_register(fd1, b, "u32 x", &words[1], 0, &index));
    EXPECT_EQ(1u, index);
    EXPECT_EQ(0, ue_register(fd1, a, "u32 x", &words[2], 0, &index));
    EXPECT_EQ(0u, index);
    EXPECT_EQ(0, ue_register(fd1, c, "u32 x", &words[3], 0, &index));
    EXPECT_EQ(2u, index);
    EXPECT_EQ(0, ue_register(fd1, b, "u32 x", &words[4], 0, &index));
    EXPECT_EQ(1u, index);
    /* another fd of the same process numbers from 0 in its own order */
    EXPECT_EQ(0, ue_register(fd2, c, "u32 x", &words[5], 0, &index));
    EXPECT_EQ(0u, index);
    EXPECT_EQ(0, ue_register(fd2, a, "u32 x", &words[6], 0, &index));
    EXPECT_EQ(1u, index);
    EXPECT_EQ(0, ue_register(fd2, c, "u32 x", &words[7], 0, &index));
    EXPECT_EQ(0u, index);
    /* an unregistered enabler does not free the slot: the event keeps its index */
    EXPECT_EQ(0, ue_unregister(fd1, &words[1], 0));
    EXPECT_EQ(0, ue_unregister(fd1, &words[4], 0));
    EXPECT_EQ(0, ue_register(fd1, b, "u32 x", &words[1], 0, &index));
    EXPECT_EQ(1u, index);
    close(fd1);
    /* closing fd1 leaves fd2's table alone */
    EXPECT_EQ(0, ue_register(fd2, b, "u32 x", &words[8], 0, &index));
    EXPECT_EQ(2u, index);
    for (int i = 0; i < 9; i++)
        ue_unregister(fd2, &words[i], 0); /* fd1's enablers belong to the process too */
    close(fd2);
}

/* K10, K12: same name and fields share the
 * event and the fd's slot; other fields are refused. A kernel that silently reuses the
 * first event for other fields returns 0 instead of EADDRINUSE. */
TEST(K10_K12_reregister_format)
{
    char name[64];
    uint32_t words[4] = {0}, index0 = 99, index1 = 99, unused = 99;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k10_k12_format");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[0], 0, &index0));
    ASSERT_EQ(0, ue_register(fd, name, "u32 a", &words[1], 0, &index1));
    EXPECT_EQ(index0, index1);
    EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u64 a", &words[2], 0, &unused));
    EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u32 b", &words[3], 0, &unused));
    EXPECT_EQ(99u, unused); /* nothing returned for a refused registration */
    close(fd);
}

/* What the child of K11 reports through the pipe. */
struct k11_report {
    int err, err_other, err_read;
    uint32_t word;
    long id;
};

/* K11: the child's registration must find the parent's event: same tracefs id, and its
 * bit is set at once because the parent traces that event. A kernel that keeps events
 * per process (or per fd) gives the child a new event (registration fails on the
 * existing tracefs name, or the bit stays 0). */
TEST(K11_another_process_shares_the_event)
{
    char name[64];
    uint32_t pword = 0, cword = 0, cword2 = 0, index = 0;
    struct k11_report rep;
    int fd, pfd, pipefd[2], status = 0;
    long id;
    pid_t pid;
    ssize_t n;

    NEED_USER_EVENTS();
    NEED_PERF();
    ue_event_name(name, sizeof name, "k11");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 a; u64 b", &pword, 0, &index));
    id = tracepoint_id(name);
    ASSERT_LT(0, id);
    pfd = perf_attach_id(_metadata, id);
    ASSERT_TRUE(wait_bits(&pword, 1, true, UE_WAIT_MS));
    ASSERT_EQ(0, pipe(pipefd));
    pid = fork();
    ASSERT_LE(0, pid);
    if (pid == 0) {
        int cfd = ue_open();
        uint32_t cindex = 0;

        close(pipefd[0]);
        memset(&rep, 0, sizeof rep);
        rep.err_read = cfd < 0 ? errno : 0;
        rep.err = ue_register(cfd, name, "u32 a; u64 b", &cword, 3, &cindex);
        rep.word = load_word(&cword); /* right after the ioctl: no waiting */
        rep.id = tracepoint_id(name);
        rep.err_other = ue_register(cfd, name, "u32 a; u32 b", &cword2, 0, &cindex);
        ue_unregister(cfd, &cword, 3);
        close(cfd);
        _exit(write(pipefd[1], &rep, sizeof rep) == (ssize_t)sizeof rep ? 0 : 1);
    }
    close(pipefd[1]);
    memset(&rep, 0, sizeof rep);
    n = read(pipefd[0], &rep, sizeof rep);
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    EXPECT_EQ((ssize_t)sizeof rep, n);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(0, rep.err_read);
    EXPECT_EQ(0, rep.err);
    EXPECT_EQ(1u << 3, rep.word);
    EXPECT_EQ(id, rep.id);
    EXPECT_EQ(EADDRINUSE, rep.err_other);
    EXPECT_EQ(0u, cword); /* the parent's copy of the child's word: never registered */
    /* the child's references are gone, the parent's event is still the same */
    EXPECT_EQ(id, tracepoint_id(name));
    close(pfd);
    EXPECT_TRUE(wait_bits(&pword, 1, false, UE_WAIT_MS));
    EXPECT_EQ(0, ue_unregister(fd, &pword, 0));
    close(fd);
}

/* K12: a list that is not the registered one is refused even when one is a prefix of
 * the other; a kernel that compares only the common part (or only the first field)
 * accepts one of them. */
TEST(K12_fields_must_match_exactly)
{
    char name[64], bare[64];
    uint32_t words[4] = {0}, index = 0, bare_index = 0, again = SENTINEL_INDEX;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k12");
    ue_event_name(bare, sizeof bare, "k12_bare");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 a; u32 b", &words[0], 0, &index));
    EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u32 a", &words[1], 0, &again));
    EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "u32 a; u32 b; u32 c", &words[1], 0, &again));
    EXPECT_EQ(EADDRINUSE, ue_register(fd, name, "", &words[1], 0, &again));
    /* a field-less event: no fields matches, any field does not */
    ASSERT_EQ(0, ue_register(fd, bare, "", &words[2], 0, &bare_index));
    EXPECT_EQ(EADDRINUSE, ue_register(fd, bare, "u32 a", &words[1], 0, &again));
    EXPECT_EQ(SENTINEL_INDEX, again);
    EXPECT_EQ(0, ue_register(fd, bare, "", &words[3], 0, &again));
    EXPECT_EQ(bare_index, again);
    /* the refusals left no enabler on words[1] */
    EXPECT_EQ(0, ue_register(fd, name, "u32 a; u32 b", &words[1], 0, &again));
    EXPECT_EQ(index, again);
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(0, ue_unregister(fd, &words[i], 0));
    close(fd);
}

/* K13: a ';' followed by no space, one space, two spaces or a tab separates the same
 * fields; a kernel without the 6.9 normalisation refuses "a;u32 b" against "a; u32 b"
 * (and the other way round) with EADDRINUSE. */
TEST(K13_field_list_spacing_after_semicolon)
{
    static const char *const same[] = {"u32 a;u32 b", "u32 a; u32 b", "u32 a;  u32 b",
                                       "u32 a;\tu32 b"};
    char first[64], second[64], three[64];
    uint32_t words[12] = {0}, index = 0, again = 0;
    int fd, w = 0;

    NEED_USER_EVENTS();
    ue_event_name(first, sizeof first, "k13_nospace");
    ue_event_name(second, sizeof second, "k13_space");
    ue_event_name(three, sizeof three, "k13_three");
    fd = ue_open();
    ASSERT_LE(0, fd);
    /* registered without a space first */
    ASSERT_EQ(0, ue_register(fd, first, same[0], &words[w++], 0, &index));
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        again = SENTINEL_INDEX;
        EXPECT_EQ(0, ue_register(fd, first, same[i], &words[w++], 0, &again))
        {
            TH_LOG("\"%s\" against \"%s\"", same[i], same[0]);
        }
        EXPECT_EQ(index, again);
    }
    /* registered with a space first */
    ASSERT_EQ(0, ue_register(fd, second, same[1], &words[w++], 0, &index));
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        again = SENTINEL_INDEX;
        EXPECT_EQ(0, ue_register(fd, second, same[i], &words[w++], 0, &again))
        {
            TH_LOG("\"%s\" against \"%s\"", same[i], same[1]);
        }
        EXPECT_EQ(index, again);
    }
    /* three fields, the separators mixed */
    ASSERT_EQ(0, ue_register(fd, three, "u8 x; u16 y; u32 z", &words[w++], 0, &index));
    EXPECT_EQ(0, ue_register(fd, three, "u8 x;u16 y; u32 z", &words[w++], 0, &again));
    EXPECT_EQ(index, again);
    EXPECT_TRUE(field_at("user_events", first, 12, 4, 0)); /* b after a: two fields */
    for (int i = 0; i < w; i++)
        EXPECT_EQ(0, ue_unregister(fd, &words[i], 0));
    close(fd);
}

/* K14: what makes two field lists the same. A kernel that ignores the trailing ';'
 * refuses the first pair; one that compares loosely (sorted, by type only, without
 * the struct's tag or size) accepts one of the EADDRINUSE lines. */
TEST(K14_trailing_semicolon_order_name_type_and_struct_matter)
{
    static const char *const other[] = {
        "u32 b; u32 a", "u32 a; u32 c",          "u32 c; u32 b",        "u32 a; s32 b",
        "u32 a; u64 b", "u32 a; unsigned int b", "u32 a; u32 b; u32 b",
    };
    static const char *const other_struct[] = {
        "struct ehtag s 24",
        "struct ehtag2 s 20",
        "struct ehtag t 20",
        "char[20] s",
    };
    char name[64], semi[64], st[64];
    uint32_t words[16] = {0}, index = 0, again = 0;
    int fd, w = 0;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k14");
    ue_event_name(semi, sizeof semi, "k14_semi");
    ue_event_name(st, sizeof st, "k14_struct");
    fd = ue_open();
    ASSERT_LE(0, fd);
    /* a trailing ';' is accepted and equal to the list without it, either way round */
    ASSERT_EQ(0, ue_register(fd, name, "u32 a; u32 b", &words[w++], 0, &index));
    EXPECT_EQ(0, ue_register(fd, name, "u32 a; u32 b;", &words[w++], 0, &again));
    EXPECT_EQ(index, again);
    ASSERT_EQ(0, ue_register(fd, semi, "u32 a; u32 b;", &words[w++], 0, &index));
    EXPECT_TRUE(field_at("user_events", semi, 12, 4, 0));
    EXPECT_EQ(0, ue_register(fd, semi, "u32 a; u32 b", &words[w++], 0, &again));
    EXPECT_EQ(index, again);
    /* order, field name and type all count */
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        EXPECT_EQ(EADDRINUSE, ue_register(fd, name, other[i], &words[w], 0, &again))
        {
            TH_LOG("\"%s\" against \"u32 a; u32 b\"", other[i]);
        }
    }
    /* a struct: tag, name and size must all be the same */
    ASSERT_EQ(0, ue_register(fd, st, "struct ehtag s 20", &words[w++], 0, &index));
    EXPECT_EQ(0, ue_register(fd, st, "struct ehtag s 20", &words[w++], 0, &again))
    {
        TH_LOG("the identical struct field does not match");
    }
    EXPECT_EQ(index, again);
    for (size_t i = 0; i < sizeof other_struct / sizeof other_struct[0]; i++) {
        EXPECT_EQ(EADDRINUSE, ue_register(fd, st, other_struct[i], &words[w], 0, &again))
        {
            TH_LOG("\"%s\" against \"struct ehtag s 20\"", other_struct[i]);
        }
    }
    for (int i = 0; i < w; i++)
        EXPECT_EQ(0, ue_unregister(fd, &words[i], 0));
    close(fd);
}

/* K15: the type table. A kernel that drops or resizes a type refuses it or shows
 * another size/sign in the format; one that accepts `long` or moves the char[N]
 * bounds fails on the EINVAL side. */
TEST(K15_field_types_and_array_bounds)
{
    static const struct {
        const char *type;
        int size, is_signed;
    } good[] = {
        {"s8", 1, 1},
        {"u8", 1, 0},
        {"char", 1, 1},
        {"unsigned char", 1, 0},
        {"s16", 2, 1},
        {"u16", 2, 0},
        {"short", 2, 1},
        {"unsigned short", 2, 0},
        {"s32", 4, 1},
        {"u32", 4, 0},
        {"int", 4, 1},
        {"unsigned int", 4, 0},
        {"s64", 8, 1},
        {"u64", 8, 0},
        {"char[1]", 1, 1},
        {"char[1024]", 1024, 1},
        {"char[20]", 20, 1},
        {"char[0x14]", 20, 1},
        {"char[020]", 16, 1},
        {"char[0x400]", 1024, 1},
        {"unsigned char[1]", 1, 0},
        {"unsigned char[1024]", 1024, 0},
    };
    static const char *const bad[] = {
        "long",
        "unsigned long",
        "long long",
        "s128",
        "u24",
        "bool",
        "float",
        "U32",
        "char[0]",
        "char[1025]",
        "unsigned char[1025]",
        "char[0x401]",
        "char[]",
        "char[aa]",
        "char[-1]",
        "char[0x0000001]",
        "char[4096]",
        "u32[4]",
        "unsigned",
    };
    enum { NGOOD = sizeof good / sizeof good[0], NBAD = sizeof bad / sizeof bad[0] };
    uint32_t words[NGOOD + NBAD];
    char name[64], what[32], cmd[128];
    uint32_t index = 0;
    int fd, err;

    NEED_USER_EVENTS();
    memset(words, 0, sizeof words);
    fd = ue_open();
    ASSERT_LE(0, fd);
    for (int i = 0; i < NGOOD; i++) {
        snprintf(what, sizeof what, "k15_good%d", i);
        ue_event_name(name, sizeof name, what);
        snprintf(cmd, sizeof cmd, "%s %s f", name, good[i].type);
        err = reg_cmd(fd, cmd, &words[i], 0, &index);
        EXPECT_EQ(0, err)
        {
            TH_LOG("type \"%s\" refused", good[i].type);
        }
        if (err)
            continue;
        EXPECT_TRUE(field_at("user_events", name, 8, good[i].size, good[i].is_signed))
        {
            TH_LOG("type \"%s\": no field at offset 8 of size %d, signed %d", good[i].type,
                   good[i].size, good[i].is_signed);
        }
    }
    for (int i = 0; i < NBAD; i++) {
        snprintf(what, sizeof what, "k15_bad%d", i);
        ue_event_name(name, sizeof name, what);
        snprintf(cmd, sizeof cmd, "%s %s f", name, bad[i]);
        EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[NGOOD + i], 0, &index))
        {
            TH_LOG("type \"%s\"", bad[i]);
        }
        EXPECT_FALSE(tracefs_event_exists("user_events", name));
    }
    for (int i = 0; i < NGOOD; i++)
        ue_unregister(fd, &words[i], 0);
    close(fd);
}

/* K16: __data_loc/__rel_loc declarations (the write-side checks are elsewhere). A kernel
 * that drops the loc prefixes refuses them (or sizes them as arrays); one that no
 * longer demands the inner type accepts "__data_loc d". */
TEST(K16_loc_field_declarations)
{
    static const char *const bad[] = {"__data_loc d", "__rel_loc r", "__data_loc char[] d 4",
                                      "__rel_loc char[] r 4"};
    char name[64], what[32], cmd[160];
    uint32_t words[1 + sizeof bad / sizeof bad[0]] = {0}, index = 0;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k16");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0,
              ue_register(fd, name,
                          "__data_loc char[] d; __rel_loc char[] r; __data_loc unsigned char[] ud; "
                          "__rel_loc unsigned char[] ur; __data_loc u8[] x; __rel_loc u32[] y; "
                          "u8 tail",
                          &words[0], 0, &index));
    /* six 4-byte loc fields from offset 8 (signed: the type starts with '_'), then tail */
    for (int i = 0; i < 6; i++) {
        EXPECT_TRUE(field_at("user_events", name, 8 + 4 * i, 4, 1))
        {
            TH_LOG("loc field %d is not 4 bytes at offset %d", i, 8 + 4 * i);
        }
    }
    EXPECT_TRUE(field_at("user_events", name, 32, 1, 0));
    EXPECT_TRUE(format_has("user_events", name, "\tfield:__data_loc char[] d;\toffset:8;"));
    /* the char loc fields are printed as strings */
    EXPECT_TRUE(format_has("user_events", name, "__get_str(d)"));
    EXPECT_TRUE(format_has("user_events", name, "__get_rel_str(r)"));
    EXPECT_TRUE(format_has("user_events", name, "__get_str(ud)"));
    EXPECT_TRUE(format_has("user_events", name, "__get_rel_str(ur)"));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char bad_name[64];

        snprintf(what, sizeof what, "k16_bad%d", (int)i);
        ue_event_name(bad_name, sizeof bad_name, what);
        snprintf(cmd, sizeof cmd, "%s %s", bad_name, bad[i]);
        EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[1 + i], 0, &index))
        {
            TH_LOG("\"%s\"", bad[i]);
        }
        EXPECT_FALSE(tracefs_event_exists("user_events", bad_name));
    }
    EXPECT_EQ(0, ue_unregister(fd, &words[0], 0));
    close(fd);
}

/* K17: the struct size rules. A kernel that allows a size on any field, a missing or
 * zero size, or parses the size in another base accepts one of the EINVAL lines; one
 * that ignores the given size shows another size or offset in the format. */
TEST(K17_struct_fields_need_a_size)
{
    static const char *const bad[] = {
        "struct ehtag s",    "struct ehtag s 0",    "struct ehtag s 0x14",
        "struct ehtag s -4", "struct ehtag s 20 x", "struct ehtag",
        "u32 a 4",           "char[4] c 4",         "s32 a 0",
        "unsigned int a 4",
    };
    char name[64], one[64], what[32], cmd[128];
    uint32_t words[2 + sizeof bad / sizeof bad[0]] = {0}, index = 0;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k17");
    ue_event_name(one, sizeof one, "k17_one");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "struct ehtag s 20; u32 after", &words[0], 0, &index));
    EXPECT_TRUE(format_has("user_events", name, "\tfield:struct ehtag s;\toffset:8;\tsize:20;"));
    EXPECT_TRUE(field_at("user_events", name, 28, 4, 0));
    ASSERT_EQ(0, ue_register(fd, one, "struct ehtag s 1", &words[1], 0, &index));
    EXPECT_TRUE(field_at("user_events", one, 8, 1, 1));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char bad_name[64];

        snprintf(what, sizeof what, "k17_bad%d", (int)i);
        ue_event_name(bad_name, sizeof bad_name, what);
        snprintf(cmd, sizeof cmd, "%s %s", bad_name, bad[i]);
        EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[2 + i], 0, &index))
        {
            TH_LOG("\"%s\"", bad[i]);
        }
        EXPECT_FALSE(tracefs_event_exists("user_events", bad_name));
    }
    EXPECT_EQ(0, ue_unregister(fd, &words[0], 0));
    EXPECT_EQ(0, ue_unregister(fd, &words[1], 0));
    close(fd);
}

/* K18: no text flags are supported and only a space ends the name. A kernel that
 * accepted (or ignored) ":flag" would register the event; one that split at any
 * white space would accept the tab. */
TEST(K18_name_ends_at_the_first_space_and_flags_are_rejected)
{
    static const char *const suffix[] = {":flag u32 a", ":a,b u32 a", ": u32 a", ":", ":flag"};
    char name[64], spaced[64], tabbed[64], cmd[128], path[160];
    uint32_t words[4] = {0}, index = 0, again = 0;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "k18");
    ue_event_name(spaced, sizeof spaced, "k18_spaced");
    ue_event_name(tabbed, sizeof tabbed, "k18_tab");
    fd = ue_open();
    ASSERT_LE(0, fd);
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s%s", name, suffix[i]);
        EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[0], 0, &index))
        {
            TH_LOG("\"%s\"", cmd);
        }
    }
    EXPECT_FALSE(tracefs_event_exists("user_events", name));
    snprintf(path, sizeof path, "%s:flag", name);
    EXPECT_FALSE(tracefs_event_exists("user_events", path));
    /* several spaces: the name is what precedes the first, the fields follow */
    snprintf(cmd, sizeof cmd, "%s   u32 a", spaced);
    ASSERT_EQ(0, reg_cmd(fd, cmd, &words[1], 0, &index));
    EXPECT_TRUE(tracefs_event_exists("user_events", spaced));
    EXPECT_TRUE(format_has("user_events", spaced, "\tfield:u32 a;\toffset:8;\tsize:4;"));
    EXPECT_EQ(0, ue_register(fd, spaced, "u32 a", &words[2], 0, &again));
    EXPECT_EQ(index, again);
    /* a tab is part of the name: "<name>\tu32" with the field "a" (no type) */
    snprintf(cmd, sizeof cmd, "%s\tu32 a", tabbed);
    EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[3], 0, &index));
    EXPECT_FALSE(tracefs_event_exists("user_events", tabbed));
    EXPECT_EQ(0, ue_unregister(fd, &words[1], 0));
    EXPECT_EQ(0, ue_unregister(fd, &words[2], 0));
    close(fd);
}

/* Builds "<name> u32 <f...f>" of exactly `len` characters in cmd (len+1 bytes). */
static void long_command(char *cmd, size_t len, const char *name)
{
    size_t head = (size_t)snprintf(cmd, len + 1, "%s u32 ", name);

    memset(cmd + head, 'f', len - head);
    cmd[len] = '\0';
}

/* K19: the command is copied with a 512-byte limit including its NUL. A kernel with
 * another limit refuses the 511-character command or accepts the 512-character one. */
TEST(K19_command_of_511_characters)
{
    static char cmd[4097];
    char max[64], over[64], huge[64];
    uint32_t words[3] = {0}, index = SENTINEL_INDEX;
    int fd;

    NEED_USER_EVENTS();
    ue_event_name(max, sizeof max, "k19_max");
    ue_event_name(over, sizeof over, "k19_over");
    ue_event_name(huge, sizeof huge, "k19_huge");
    fd = ue_open();
    ASSERT_LE(0, fd);
    long_command(cmd, 511, max);
    ASSERT_EQ(511u, strlen(cmd));
    EXPECT_EQ(0, reg_cmd(fd, cmd, &words[0], 0, &index));
    EXPECT_TRUE(tracefs_event_exists("user_events", max));
    EXPECT_TRUE(field_at("user_events", max, 8, 4, 0));
    long_command(cmd, 512, over);
    EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[1], 0, &index));
    EXPECT_FALSE(tracefs_event_exists("user_events", over));
    long_command(cmd, 4096, huge);
    EXPECT_EQ(EINVAL, reg_cmd(fd, cmd, &words[2], 0, &index));
    EXPECT_FALSE(tracefs_event_exists("user_events", huge));
    EXPECT_EQ(0u, index);
    EXPECT_EQ(0, ue_unregister(fd, &words[0], 0));
    close(fd);
}

/* Whether events/user_events lists an entry equal to `name` (readdir, full length). */
static bool listed(const char *name)
{
    DIR *dir = opendir(TRACEFS "/events/user_events");
    struct dirent *de;
    bool found = false;

    if (!dir)
        return false;
    while (!found && (de = readdir(dir)) != NULL)
        found = strcmp(de->d_name, name) == 0;
    closedir(dir);
    return found;
}

/* K19: names longer than NAME_MAX. On 6.12 user_events has no name limit of its own
 * and eventfs looks names up without NAME_MAX, so these events are fully usable; a
 * kernel that refuses them, or hides them from tracefs (as the inventory's "unusable
 * from tracefs" expects of other versions), fails here. */
TEST(K19_names_over_255_bytes)
{
    static const int lens[] = {255, 256, 400};
    enum { NLENS = sizeof lens / sizeof lens[0] };
    static char names[NLENS][512], status[65536];
    char prefix[64];
    uint32_t words[NLENS] = {0}, index = 0;
    int fd, pfd, err;

    NEED_USER_EVENTS();
    NEED_PERF();
    ue_event_name(prefix, sizeof prefix, "k19_long");
    fd = ue_open();
    ASSERT_LE(0, fd);
    for (int i = 0; i < NLENS; i++) {
        size_t head = (size_t)snprintf(names[i], sizeof names[i], "%s_", prefix);

        memset(names[i] + head, 'a' + i, (size_t)lens[i] - head);
        names[i][lens[i]] = '\0';
        err = ue_register(fd, names[i], "u32 a", &words[i], 0, &index);
        EXPECT_EQ(0, err)
        {
            TH_LOG("a %d-byte name is refused", lens[i]);
        }
        if (err)
            continue;
        EXPECT_TRUE(tracefs_event_exists("user_events", names[i]))
        {
            TH_LOG("events/user_events/<%d-byte name>: %s", lens[i], strerror(errno));
        }
        EXPECT_LT(0, tracepoint_id(names[i]));
        EXPECT_TRUE(listed(names[i]));
    }
    ASSERT_EQ(0, read_text(UE_STATUS, status, sizeof status));
    for (int i = 0; i < NLENS; i++)
        EXPECT_TRUE(strstr(status, names[i]) != NULL);
    /* the 400-byte one can be traced: its bit follows a perf event */
    pfd = perf_attach(_metadata, names[2]);
    EXPECT_TRUE(wait_bits(&words[2], 1, true, UE_WAIT_MS));
    close(pfd);
    EXPECT_TRUE(wait_bits(&words[2], 1, false, UE_WAIT_MS));
    for (int i = 0; i < NLENS; i++)
        ue_unregister(fd, &words[i], 0);
    close(fd);
    for (int i = 0; i < NLENS; i++)
        EXPECT_TRUE(wait_event_presence(names[i], false, UE_WAIT_MS));
}

/* K52: what the format file shows between the brackets of a char[20] field. The kernel
 * prints field->len there, which user_events never sets (its field is kmalloc'ed, not
 * zeroed: trace_events_user.c, user_event_add_field), so on those kernels the brackets
 * hold whatever the heap held. The expectation (1: shows 20, 0: does not) is the table's. */
TEST(K52_char_array_format_shows_its_length)
{
    char name[64], path[256], format[4096], from[128];
    const char *line, *open_b;
    uint32_t word = 0, index = 0;
    long want = -1;
    int fd, err, shows;

    NEED_USER_EVENTS();
    err = kernel_expect("EHCONF_EXPECT_CHAR_ARRAY_FORMAT_LEN", &want, from, sizeof from);
    ASSERT_EQ(0, err)
    {
        TH_LOG("char_array_format_len: no row of cases/kernel-expectations.txt (%s)",
               strerror(err));
    }
    ue_event_name(name, sizeof name, "k52");
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "char[20] f", &word, 0, &index));
    snprintf(path, sizeof path, TRACEFS "/events/user_events/%s/format", name);
    ASSERT_EQ(0, read_text(path, format, sizeof format));
    line = strstr(format, "field:char f[");
    ASSERT_NE(NULL, line)
    {
        TH_LOG("no `field:char f[` in %s:\n%s", path, format);
    }
    open_b = strchr(line, '[');
    shows = strncmp(open_b, "[20];", 5) == 0;
    TH_LOG("char[20] field in the format: %.*s (%s)", (int)strcspn(line, ";"), line, from);
    EXPECT_EQ(want, shows)
    {
        TH_LOG("the format %s the length; cases/kernel-expectations.txt says it %s (%s)",
               shows ? "shows" : "does not show", want ? "does" : "does not", from);
    }
    EXPECT_EQ(0, ue_unregister(fd, &word, 0));
    close(fd);
}

TEST_HARNESS_MAIN
