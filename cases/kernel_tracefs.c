// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_tracefs: the tracefs side of user_events (status file, dynamic_events) and who
 * may use it (file modes, a group grant, capabilities), asserted through the raw ABI
 * (cases/user_events_abi.h). IDs: Documentation/kernel-behaviours.md. What a 32-bit
 * process gets is cases/kernel_compat32.c (K46), an eBPF program on a user_events
 * tracepoint cases/kernel_bpf.c (K49).
 *
 * ehconf-no-golden: this case writes no EventHeader event to compare; everything it
 * checks is asserted here (KTAP only).
 *
 *   K45_data_0640_status_0440_owned_by_root
 *        K45: user_events_data is a regular file 0640 root:root, user_events_status
 *        0440 root:root (as the kernel creates them);
 *   K43_status_lists_consumers_and_totals
 *        K43: the event's line in user_events_status is the bare name, then
 *        "<name> # Used by perf" (perf event open), "... # Used by ftrace perf"
 *        (also enabled through events/user_events/<name>/enable), "... # Used by
 *        ftrace" (perf closed), the bare name again, and it goes away with the event;
 *        every time "Active: N" counts the event lines, "Busy: M" the lines with
 *        consumers, after one blank line; Busy rises and falls by one;
 *   K44_dynamic_events_creates_persistent_event
 *        K44: "u:<name> u32 a; u32 b" written to dynamic_events creates an event
 *        shown in tracefs, user_events_status and dynamic_events, which persists with
 *        nobody holding it; DIAG_IOCSREG matches it by the K11-K14 rules (spacing
 *        after ';' and a trailing ';' do not matter: same event, same index, same id;
 *        another field name, order, type or count: EADDRINUSE); "-:<name> u32 a; u32 b"
 *        fails with EBUSY while registered, a bare "-:<name>" does not match an event
 *        with fields (ENOENT), the full one deletes it; a field-less "u:<name>" is
 *        deleted by a bare "-:<name>";
 *   K44_dynamic_events_accepts_every_field_type
 *        K44 (with the K15-K17 type rules): "u:<name> <type> a" for every basic type,
 *        char[N]/unsigned char[N] (20, 0x14, 1024), __data_loc/__rel_loc (unsigned)
 *        char[] and "struct custom a 20" creates the event, dynamic_events lists the
 *        declaration as written, its format has exactly the one line f_show prints
 *        for it at offset 8 (type, size, signedness), and "-:<name> <decl>" deletes
 *        it from tracefs and dynamic_events; long, a struct without size, char[0],
 *        char[1025], char[9999], char[aa], an over-long length and "char a 20" are
 *        EINVAL and create nothing;
 *   K45_group_grant_lets_nonroot_open_register_and_write
 *        K45: uid/gid 65534 with a supplementary group cannot open user_events_data
 *        (EACCES) until tracefs grants the group x on /sys/kernel/tracing AND rw on
 *        user_events_data (the file's 0640 alone: EACCES; without the group: EACCES);
 *        then it registers, the kernel sets its enable bit when the root parent opens
 *        a perf event, and its write reaches that perf ring;
 *   K04_nonroot_persist_registration_eperm
 *        K04: the same non-root user gets EPERM for USER_EVENT_REG_PERSIST (no event
 *        is created) while the same registration without PERSIST succeeds;
 *   K27_nonroot_delete_of_persistent_event_eperm
 *        K27 (non-root part): DIAG_IOCSDEL of a persistent event by the non-root user:
 *        EPERM (of an unknown name: ENOENT), the event stays, root then deletes it;
 *   K44_nonroot_dynamic_events_needs_cap_perfmon
 *        K44 (non-root part): with write access to dynamic_events granted, the
 *        non-root user's "u:<name> u32 a" fails with EPERM and creates nothing, and its
 *        "-:<name> u32 a" of root's persistent event fails with EPERM.
 *
 * The non-root tests hand files to group GRANT_GID for the duration of the test and
 * put the owners and modes back before they assert anything. Without
 * /sys/kernel/tracing/user_events_data every test SKIPs with
 * "kernel lacks CONFIG_USER_EVENTS".
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "case_harness.h"
#include "user_events_abi.h"
#include "kernel_asserts.h"

/* The unprivileged user of the non-root tests, and the group tracefs is handed to
 * (a number no file of the guest belongs to). */
#define NOBODY_ID 65534
#define GRANT_GID 4711

/* A child's own exit codes: 0 = it ran its part; results travel in shared memory. */
#define CHILD_SETUP_FAILED 99
#define CHILD_WAIT_MS      5000

/* The u32 value written by the tests that look at what perf recorded. */
#define PAYLOAD_MAGIC 0x45484346u

/* ---- user_events_status ------------------------------------------------------- */

struct ue_status {
    bool read_ok;
    bool well_formed;   /* event lines, one blank line, "Active: N", "Busy: M", EOF */
    int lines;          /* event lines */
    int used_lines;     /* event lines with " # Used by" */
    int active, busy;   /* the totals as printed */
    bool found;         /* a line for the event asked about */
    char consumers[96]; /* that line after the name: "" or " # Used by ..." */
};

/* A whole number on a line of its own after `prefix`, or -1. */
static int status_line_number(const char *line, const char *prefix)
{
    size_t n = strlen(prefix);
    char *end;
    long v;

    if (strncmp(line, prefix, n) != 0 || line[n] < '0' || line[n] > '9')
        return -1;
    v = strtol(line + n, &end, 10);
    return *end == '\0' && v <= INT_MAX ? (int)v : -1;
}

static void status_read(const char *name, struct ue_status *st)
{
    static char text[1 << 16];
    size_t nlen = strlen(name);
    bool events = true;
    int tail = 0;
    char *line = text;

    memset(st, 0, sizeof *st);
    st->active = st->busy = -1;
    if (read_text(UE_STATUS, text, sizeof text) != 0)
        return;
    st->read_ok = true;
    st->well_formed = true;
    while (*line) {
        char *end = strchr(line, '\n');

        if (!end) { /* every line, the last one too, ends with a newline */
            st->well_formed = false;
            break;
        }
        *end = '\0';
        if (events && line[0] == '\0') {
            events = false;
        } else if (events) {
            st->lines++;
            if (strstr(line, " # Used by"))
                st->used_lines++;
            if (strncmp(line, name, nlen) == 0 && (line[nlen] == '\0' || line[nlen] == ' ')) {
                st->found = true;
                snprintf(st->consumers, sizeof st->consumers, "%s", line + nlen);
            }
        } else if (tail == 0) {
            st->active = status_line_number(line, "Active: ");
            tail++;
        } else if (tail == 1) {
            st->busy = status_line_number(line, "Busy: ");
            tail++;
        } else {
            tail++;
        }
        line = end + 1;
    }
    if (events || tail != 2 || st->active < 0 || st->busy < 0)
        st->well_formed = false;
}

/* Waits up to `ms` for the event's line in user_events_status to be gone. */
static bool status_wait_gone(const char *name, int ms)
{
    struct ue_status st;

    for (int i = 0; i <= ms; i++) {
        status_read(name, &st);
        if (st.read_ok && !st.found)
            return true;
        ue_sleep_ms(1);
    }
    return false;
}

/* ---- dynamic_events ----------------------------------------------------------- */

/* Writes one dynamic_events command (appending, so nothing else is cleared). */
static int dyn_command(const char *fmt, const char *name, const char *fields)
{
    char cmd[600];

    snprintf(cmd, sizeof cmd, fmt, name, fields);
    return write_text_flags(UE_DYNAMIC_EVENTS, cmd, O_APPEND);
}

/* "-:<name> <fields>", retried while the kernel answers EBUSY (references of an
 * unregistered event are released asynchronously): 0 or the last errno. */
static int dyn_delete_wait(const char *name, const char *fields, int ms)
{
    const char *fmt = fields[0] ? "-:%s %s" : "-:%s%s";
    int err = dyn_command(fmt, name, fields);

    for (int i = 0; err == EBUSY && i < ms; i++) {
        ue_sleep_ms(1);
        err = dyn_command(fmt, name, fields);
    }
    return err;
}

/* Whether dynamic_events lists exactly the line `line`. */
static bool dyn_lists(const char *line)
{
    static char text[1 << 16];
    size_t n = strlen(line);

    if (read_text(UE_DYNAMIC_EVENTS, text, sizeof text) != 0)
        return false;
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += n) {
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    }
    return false;
}

/* ---- ownership and modes of tracefs files --------------------------------------- */

struct saved_attr {
    const char *path;
    bool saved;
    uid_t uid;
    gid_t gid;
    mode_t mode;
};

static int attr_save(struct saved_attr *a, const char *path)
{
    struct stat st;

    a->path = path;
    a->saved = false;
    if (stat(path, &st) != 0)
        return errno;
    a->uid = st.st_uid;
    a->gid = st.st_gid;
    a->mode = st.st_mode & 07777;
    a->saved = true;
    return 0;
}

/* Hands the file to `gid` with mode `mode`: 0 or errno. */
static int attr_grant(const struct saved_attr *a, gid_t gid, mode_t mode)
{
    if (!a->saved)
        return EINVAL;
    if (chown(a->path, (uid_t)-1, gid) != 0 || chmod(a->path, mode) != 0)
        return errno;
    return 0;
}

static int attr_restore(const struct saved_attr *a)
{
    if (!a->saved)
        return 0;
    if (chown(a->path, a->uid, a->gid) != 0 || chmod(a->path, a->mode) != 0)
        return errno;
    return 0;
}

/* The documented grant: group x on the tracefs directory, group `file_mode` on `file`.
 * Saves both first; 0 or errno. */
static int grant_group(struct saved_attr *dir, struct saved_attr *file, const char *path,
                       mode_t file_mode)
{
    int err = attr_save(dir, TRACEFS);

    if (!err)
        err = attr_save(file, path);
    if (!err)
        err = attr_grant(dir, GRANT_GID, dir->mode | 0010);
    if (!err)
        err = attr_grant(file, GRANT_GID, file_mode);
    return err;
}

/* Puts file and directory back: 0 or the first errno. */
static int grant_restore(const struct saved_attr *dir, const struct saved_attr *file)
{
    int err_file = attr_restore(file);
    int err_dir = attr_restore(dir);

    return err_file ? err_file : err_dir;
}

/* ---- an unprivileged child ------------------------------------------------------- */

#define CHILD_OUTS 8

/* Results of a child: a shared page, every slot -1000 until the child fills it. */
static int *child_outs(void)
{
    int *out = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

    if (out == MAP_FAILED)
        return NULL;
    for (int i = 0; i < CHILD_OUTS; i++)
        out[i] = -1000;
    return out;
}

typedef int (*child_fn)(void *ctx, int *out);

/* Forks a child that becomes uid/gid 65534 (keeping only GRANT_GID as supplementary
 * group if `with_group`), so it has no capability left, and runs fn there. */
static pid_t spawn_nobody(bool with_group, child_fn fn, void *ctx, int *out)
{
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid != 0)
        return pid;
    {
        gid_t group = GRANT_GID;

        if (setgroups(with_group ? 1 : 0, &group) != 0 || setgid(NOBODY_ID) != 0 ||
            setuid(NOBODY_ID) != 0 || geteuid() != NOBODY_ID)
            _exit(CHILD_SETUP_FAILED);
        _exit(fn(ctx, out) & 0x7f);
    }
}

static int run_nobody(bool with_group, child_fn fn, void *ctx, int *out)
{
    return ue_reap(spawn_nobody(with_group, fn, ctx, out), CHILD_WAIT_MS);
}

/* out[0]: open(user_events_data, O_RDWR). */
static int child_open_data(void *ctx, int *out)
{
    int fd = ue_open();

    (void)ctx;
    out[0] = fd < 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    return 0;
}

/* ---- the tests --------------------------------------------------------------------- */

/* K45: the files keep the modes/owner they are created with; a wider or narrower mode fails. */
TEST(K45_data_0640_status_0440_owned_by_root)
{
    struct stat data, status;

    NEED_USER_EVENTS();
    ASSERT_EQ(0, stat(UE_DATA, &data));
    ASSERT_EQ(0, stat(UE_STATUS, &status));
    EXPECT_TRUE(S_ISREG(data.st_mode));
    EXPECT_EQ(0640u, data.st_mode & 07777);
    EXPECT_EQ(0u, data.st_uid);
    EXPECT_EQ(0u, data.st_gid);
    EXPECT_TRUE(S_ISREG(status.st_mode));
    EXPECT_EQ(0440u, status.st_mode & 07777);
    EXPECT_EQ(0u, status.st_uid);
    EXPECT_EQ(0u, status.st_gid);
}

/* K43: status follows each consumer and counts its lines; a missed consumer or miscount fails. */
TEST(K43_status_lists_consumers_and_totals)
{
    static const char *const want[5] = {
        "", " # Used by perf", " # Used by ftrace perf", " # Used by ftrace", "",
    };
    static const char *const step[5] = {
        "registered", "perf open", "ftrace enabled too", "perf closed", "ftrace disabled",
    };
    struct ue_status st[5], after;
    char name[64], enable[256];
    uint32_t word = 0, index;
    int fd, perf, enable_err, disable_err, unreg_err;
    bool gone;
    long id;

    NEED_USER_EVENTS();
    NEED_PERF();
    ue_event_name(name, sizeof name, "status");
    snprintf(enable, sizeof enable, TRACEFS "/events/user_events/%s/enable", name);
    fd = ue_open();
    ASSERT_LE(0, fd);
    ASSERT_EQ(0, ue_register(fd, name, "u32 a", &word, 0, &index));
    id = tracepoint_id(name);
    ASSERT_LT(0, id);

    status_read(name, &st[0]);
    perf = perf_attach_id(_metadata, id);
    status_read(name, &st[1]);
    enable_err = write_text(enable, "1");
    status_read(name, &st[2]);
    close(perf);
    status_read(name, &st[3]);
    disable_err = write_text(enable, "0");
    status_read(name, &st[4]);
    unreg_err = ue_unregister(fd, &word, 0);
    close(fd);
    gone = status_wait_gone(name, UE_WAIT_MS);
    status_read(name, &after);

    EXPECT_EQ(0, enable_err);
    EXPECT_EQ(0, disable_err);
    EXPECT_EQ(0, unreg_err);
    for (int i = 0; i < 5; i++) {
        EXPECT_TRUE(st[i].read_ok);
        EXPECT_TRUE(st[i].well_formed)
        {
            TH_LOG("%s: user_events_status is not lines, blank line, Active, Busy", step[i]);
        }
        EXPECT_TRUE(st[i].found)
        {
            TH_LOG("%s: no line for %s", step[i], name);
        }
        EXPECT_STREQ(want[i], st[i].consumers)
        {
            TH_LOG("%s", step[i]);
        }
        EXPECT_EQ(st[i].lines, st[i].active)
        {
            TH_LOG("%s: Active is not the number of event lines", step[i]);
        }
        EXPECT_EQ(st[i].used_lines, st[i].busy)
        {
            TH_LOG("%s: Busy is not the number of lines with consumers", step[i]);
        }
        EXPECT_LE(1, st[i].active);
    }
    /* Consumers of other events do not change during the test: Busy moves with ours. */
    EXPECT_EQ(st[0].busy + 1, st[1].busy);
    EXPECT_EQ(st[1].busy, st[2].busy);
    EXPECT_EQ(st[1].busy, st[3].busy);
    EXPECT_EQ(st[0].busy, st[4].busy);
    EXPECT_TRUE(gone)
    {
        TH_LOG("%s still listed after its last reference", name);
    }
    EXPECT_TRUE(after.well_formed);
    EXPECT_EQ(after.lines, after.active);
    EXPECT_EQ(after.used_lines, after.busy);
}

/* K44: "u:" makes a persistent event that joins by K11-K14; auto-delete or loose match fails. */
TEST(K44_dynamic_events_creates_persistent_event)
{
    char name[64], bare[64], listed[160];
    uint32_t word = 0, i_spacing = 99, i_trailing = 98, unused;
    int fd, create_err, spacing_err, trailing_err, other_name_err, other_order_err, other_type_err,
        fewer_err, busy_err, bare_err, delete_err, bare_create_err, bare_delete_err, unreg_a,
        unreg_b;
    bool exists, persisted, still_after_bare, gone, bare_exists, bare_gone, listed_ok;
    struct ue_status st, st_gone;
    long id0, id1;

    NEED_USER_EVENTS();
    ue_event_name(name, sizeof name, "dyn");
    ue_event_name(bare, sizeof bare, "dynbare");
    snprintf(listed, sizeof listed, "u:%s u32 a; u32 b", name);

    create_err = dyn_command("u:%s %s", name, "u32 a; u32 b");
    ASSERT_EQ(0, create_err);
    exists = tracefs_event_exists("user_events", name);
    status_read(name, &st);
    listed_ok = dyn_lists(listed);
    id0 = tracepoint_id(name);
    /* Nobody holds it: a non-persistent event would be gone within this wait. */
    persisted = !wait_event_presence(name, false, 200);

    fd = ue_open();
    ASSERT_LE(0, fd);
    spacing_err = ue_register(fd, name, "u32 a;u32 b", &word, 0, &i_spacing);
    trailing_err = ue_register(fd, name, "u32 a; u32 b;", &word, 1, &i_trailing);
    other_name_err = ue_register(fd, name, "u32 a; u32 c", &word, 2, &unused);
    other_order_err = ue_register(fd, name, "u32 b; u32 a", &word, 3, &unused);
    other_type_err = ue_register(fd, name, "u32 a; u64 b", &word, 4, &unused);
    fewer_err = ue_register(fd, name, "u32 a", &word, 5, &unused);
    id1 = tracepoint_id(name);
    busy_err = dyn_command("-:%s %s", name, "u32 a; u32 b");
    unreg_a = ue_unregister(fd, &word, 0);
    unreg_b = ue_unregister(fd, &word, 1);
    close(fd);

    bare_err = dyn_command("-:%s%s", name, "");
    still_after_bare = tracefs_event_exists("user_events", name);
    delete_err = dyn_delete_wait(name, "u32 a; u32 b", UE_WAIT_MS);
    gone = wait_event_presence(name, false, UE_WAIT_MS);
    status_read(name, &st_gone);
    if (!gone)
        ue_delete_wait(name, UE_WAIT_MS);

    bare_create_err = dyn_command("u:%s%s", bare, "");
    bare_exists = tracefs_event_exists("user_events", bare);
    bare_delete_err = dyn_delete_wait(bare, "", UE_WAIT_MS);
    bare_gone = wait_event_presence(bare, false, UE_WAIT_MS);
    if (!bare_gone)
        ue_delete_wait(bare, UE_WAIT_MS);

    EXPECT_TRUE(exists);
    EXPECT_TRUE(st.found);
    EXPECT_STREQ("", st.consumers);
    EXPECT_TRUE(listed_ok)
    {
        TH_LOG("dynamic_events does not list \"%s\"", listed);
    }
    EXPECT_LT(0, id0);
    EXPECT_TRUE(persisted)
    {
        TH_LOG("the dynamic_events event went away with nobody deleting it");
    }
    EXPECT_EQ(0, spacing_err);
    EXPECT_EQ(0, trailing_err);
    EXPECT_EQ(i_spacing, i_trailing);
    EXPECT_EQ(id0, id1);
    EXPECT_EQ(EADDRINUSE, other_name_err);
    EXPECT_EQ(EADDRINUSE, other_order_err);
    EXPECT_EQ(EADDRINUSE, other_type_err);
    EXPECT_EQ(EADDRINUSE, fewer_err);
    EXPECT_EQ(EBUSY, busy_err);
    EXPECT_EQ(0, unreg_a);
    EXPECT_EQ(0, unreg_b);
    EXPECT_EQ(ENOENT, bare_err);
    EXPECT_TRUE(still_after_bare);
    EXPECT_EQ(0, delete_err);
    EXPECT_TRUE(gone);
    EXPECT_FALSE(st_gone.found);
    EXPECT_EQ(0, bare_create_err);
    EXPECT_TRUE(bare_exists);
    EXPECT_EQ(0, bare_delete_err);
    EXPECT_TRUE(bare_gone);
}

/* ---- field types through dynamic_events ------------------------------------------ */

/* One declaration written as "u:<name> <decl>" and what the event's format shows for it.
 * f_show prints "\tfield:<type> <name>" for a plain type; for a type with '[' that is not
 * __data_loc it prints the type up to the '[', the name, then "[<len>]" from
 * ftrace_event_field.len, which user_events never sets (6.12 kmallocs the field): the
 * length between the brackets is whatever the allocation held, usually nothing. */
struct dyn_field {
    const char *decl;  /* after "u:<name> ", also what dynamic_events lists */
    const char *shown; /* after "\tfield:", up to ';' (or up to and with '[' for arrays) */
    bool array;        /* then an optional number and ']' */
    int size, is_signed;
};

/* The event's own field lines in its tracefs format: what lies between the blank line
 * after the common fields and the blank line before "print fmt: ". 0, or -1. */
static int format_own_fields(const char *name, char *out, size_t len)
{
    static char text[16384];
    char path[256];
    const char *start, *end;

    snprintf(path, sizeof path, TRACEFS "/events/user_events/%s/format", name);
    if (read_text(path, text, sizeof text) != 0)
        return -1;
    start = strstr(text, "\n\n");
    if (!start)
        return -1;
    start += 2;
    end = strstr(start, "\n\n");
    if (!end || strncmp(end + 2, "print fmt: ", 11) != 0)
        return -1;
    snprintf(out, len, "%.*s", (int)(end + 1 - start), start);
    return 0;
}

/* Whether `lines` is exactly the one field line 6.12 prints for `f` at offset 8 (the
 * first byte after the 8-byte common header). */
static bool field_line_is(const char *lines, const struct dyn_field *f)
{
    char tail[96];
    size_t n = strlen(f->shown);
    const char *p = lines;

    if (strncmp(p, "\tfield:", 7) != 0 || strncmp(p + 7, f->shown, n) != 0)
        return false;
    p += 7 + n;
    if (f->array) {
        if (*p == '-')
            p++;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p++ != ']')
            return false;
    }
    snprintf(tail, sizeof tail, ";\toffset:8;\tsize:%d;\tsigned:%d;\n", f->size, f->is_signed);
    return strcmp(p, tail) == 0;
}

/* K44: every type 6.12 accepts works through "u:"/"-:", the rest is EINVAL; a kernel that
 * drops, resizes or re-signs a type, lists it otherwise or accepts a bad one fails. */
TEST(K44_dynamic_events_accepts_every_field_type)
{
    /* Signedness is type[0] != 'u': the loc types and "struct" count as signed. */
    static const struct dyn_field good[] = {
        {"u8 a", "u8 a", false, 1, 0},
        {"u16 a", "u16 a", false, 2, 0},
        {"u32 a", "u32 a", false, 4, 0},
        {"u64 a", "u64 a", false, 8, 0},
        {"s8 a", "s8 a", false, 1, 1},
        {"s16 a", "s16 a", false, 2, 1},
        {"s32 a", "s32 a", false, 4, 1},
        {"s64 a", "s64 a", false, 8, 1},
        {"char a", "char a", false, 1, 1},
        {"unsigned char a", "unsigned char a", false, 1, 0},
        {"short a", "short a", false, 2, 1},
        {"unsigned short a", "unsigned short a", false, 2, 0},
        {"int a", "int a", false, 4, 1},
        {"unsigned int a", "unsigned int a", false, 4, 0},
        {"char[20] a", "char a[", true, 20, 1},
        {"unsigned char[20] a", "unsigned char a[", true, 20, 0},
        {"char[0x14] a", "char a[", true, 20, 1},
        {"unsigned char[0x14] a", "unsigned char a[", true, 20, 0},
        {"char[1024] a", "char a[", true, 1024, 1},
        {"__data_loc char[] a", "__data_loc char[] a", false, 4, 1},
        {"__data_loc unsigned char[] a", "__data_loc unsigned char[] a", false, 4, 1},
        {"__rel_loc char[] a", "__rel_loc char a[", true, 4, 1},
        {"__rel_loc unsigned char[] a", "__rel_loc unsigned char a[", true, 4, 1},
        {"struct custom a 20", "struct custom a", false, 20, 1},
    };
    /* No such type, a struct without its size, an array of 0 or more than 1024, a
	 * length that is no number or too long a string, a size on a non-struct. */
    static const char *const bad[] = {
        "long a",     "struct custom a",         "char[0] a", "char[1025] a", "char[9999] a",
        "char[aa] a", "char[0x0000000000001] a", "char a 20",
    };
    char name[64], what[32], listed[160], lines[512];
    struct ue_status st;

    NEED_USER_EVENTS();
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const struct dyn_field *f = &good[i];
        int create_err, format_err, delete_err;
        bool exists, listed_ok, line_ok, gone, unlisted;

        snprintf(what, sizeof what, "dtype%d", (int)i);
        ue_event_name(name, sizeof name, what);
        snprintf(listed, sizeof listed, "u:%s %s", name, f->decl);
        create_err = dyn_command("u:%s %s", name, f->decl);
        exists = tracefs_event_exists("user_events", name);
        listed_ok = dyn_lists(listed);
        lines[0] = '\0';
        format_err = format_own_fields(name, lines, sizeof lines);
        line_ok = format_err == 0 && field_line_is(lines, f);
        delete_err = dyn_delete_wait(name, f->decl, UE_WAIT_MS);
        gone = wait_event_presence(name, false, UE_WAIT_MS);
        unlisted = !dyn_lists(listed);
        if (!gone)
            ue_delete_wait(name, UE_WAIT_MS);

        if (f->array && line_ok) {
            printf("# %s: format shows \"%.*s\"\n", f->decl, (int)strcspn(lines + 7, ";"),
                   lines + 7);
            fflush(stdout);
        }
        EXPECT_EQ(0, create_err)
        {
            TH_LOG("\"%s\": %s", listed, strerror(create_err));
        }
        if (create_err)
            continue;
        EXPECT_TRUE(exists)
        {
            TH_LOG("%s: no events/user_events/%s", f->decl, name);
        }
        EXPECT_TRUE(listed_ok)
        {
            TH_LOG("dynamic_events does not list \"%s\"", listed);
        }
        EXPECT_EQ(0, format_err)
        {
            TH_LOG("%s: format unreadable or not header, fields, print fmt", f->decl);
        }
        EXPECT_TRUE(line_ok)
        {
            TH_LOG("%s: format fields \"%s\", want \"\\tfield:%s%s;\\toffset:8;"
                   "\\tsize:%d;\\tsigned:%d;\"",
                   f->decl, lines, f->shown, f->array ? "<len>]" : "", f->size, f->is_signed);
        }
        EXPECT_EQ(0, delete_err)
        {
            TH_LOG("\"-:%s %s\": %s", name, f->decl, strerror(delete_err));
        }
        EXPECT_TRUE(gone)
        {
            TH_LOG("%s: still in tracefs after its deletion", f->decl);
        }
        EXPECT_TRUE(unlisted)
        {
            TH_LOG("%s: still in dynamic_events after its deletion", f->decl);
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int err;
        bool created;

        snprintf(what, sizeof what, "dbad%d", (int)i);
        ue_event_name(name, sizeof name, what);
        err = dyn_command("u:%s %s", name, bad[i]);
        created = tracefs_event_exists("user_events", name);
        status_read(name, &st);
        if (err == 0 || created)
            ue_delete_wait(name, UE_WAIT_MS);

        EXPECT_EQ(EINVAL, err)
        {
            TH_LOG("\"u:%s %s\" gave %d", name, bad[i], err);
        }
        EXPECT_FALSE(created)
        {
            TH_LOG("\"%s\" created events/user_events/%s", bad[i], name);
        }
        EXPECT_TRUE(st.read_ok);
        EXPECT_FALSE(st.found)
        {
            TH_LOG("\"%s\" left %s in user_events_status", bad[i], name);
        }
    }
}

/* The non-root side of K45: register, tell the parent, wait for its perf event, write.
 * out[0] open, out[1] register, out[2] enable bit seen (1/0), out[3] write, out[4]
 * unregister. */
struct register_write_ctx {
    const char *name;
    int ready_w, go_r;
};

static int child_register_write(void *p, int *out)
{
    struct register_write_ctx *ctx = p;
    uint32_t word = 0, index = 0, value = PAYLOAD_MAGIC;
    char byte = 'r';
    int fd = ue_open();

    out[0] = fd < 0 ? errno : 0;
    if (fd >= 0)
        out[1] = ue_register(fd, ctx->name, "u32 a", &word, 0, &index);
    if (write(ctx->ready_w, &byte, 1) != 1 || fd < 0 || out[1] != 0)
        return 0;
    if (read(ctx->go_r, &byte, 1) != 1)
        return 0;
    out[2] = wait_bits(&word, 1u, true, UE_WAIT_MS);
    out[3] = ue_writev(fd, index, &value, sizeof value);
    out[4] = ue_unregister(fd, &word, 0);
    close(fd);
    return 0;
}

/* Waits up to `ms` for a byte on `fd`: true when one came. */
static bool wait_byte(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char byte;

    return poll(&p, 1, ms) == 1 && read(fd, &byte, 1) == 1;
}

/* K45: only the group grant opens the file to nobody; any other check on open/register fails. */
TEST(K45_group_grant_lets_nonroot_open_register_and_write)
{
    struct saved_attr dir, data;
    struct register_write_ctx ctx;
    struct perf_ring ring = {.fd = -1};
    int *o_none, *o_dir, *o_nogroup, *o_rw;
    int st_none, st_dir, st_nogroup, st_rw, grant_dir_err, grant_data_err, restore_err;
    int ring_err = -1, samples = 0, ready[2], go[2];
    uint32_t value = 0, raw_len = 0;
    bool ready_seen, value_ok = false;
    char name[64];
    pid_t pid;

    NEED_USER_EVENTS();
    NEED_PERF();
    ue_skip_unless_root(_metadata, "needs root to hand user_events_data to a group");
    ue_event_name(name, sizeof name, "grant");
    ASSERT_EQ(0, ue_pin_cpu0());
    o_none = child_outs();
    o_dir = child_outs();
    o_nogroup = child_outs();
    o_rw = child_outs();
    ASSERT_TRUE(o_none && o_dir && o_nogroup && o_rw);
    ASSERT_EQ(0, pipe(ready));
    ASSERT_EQ(0, pipe(go));
    ASSERT_EQ(0, attr_save(&dir, TRACEFS));
    ASSERT_EQ(0, attr_save(&data, UE_DATA));

    /* 1. nothing granted; 2. the directory only (the file's own 0640 stays). */
    st_none = run_nobody(true, child_open_data, NULL, o_none);
    grant_dir_err = attr_grant(&dir, GRANT_GID, dir.mode | 0010);
    st_dir = run_nobody(true, child_open_data, NULL, o_dir);
    /* 3. directory and file, but the child is not in the group; 4. in the group. */
    grant_data_err = attr_grant(&data, GRANT_GID, 0660);
    st_nogroup = run_nobody(false, child_open_data, NULL, o_nogroup);

    ctx.name = name;
    ctx.ready_w = ready[1];
    ctx.go_r = go[0];
    pid = spawn_nobody(true, child_register_write, &ctx, o_rw);
    close(ready[1]);
    close(go[0]);
    ready_seen = wait_byte(ready[0], CHILD_WAIT_MS);
    if (ready_seen && o_rw[1] == 0)
        ring_err = perf_ring_open(&ring, tracepoint_id(name));
    if (write(go[1], "g", 1) != 1)
        ring_err = ring_err ? ring_err : EPIPE;
    close(go[1]);
    st_rw = ue_reap(pid, CHILD_WAIT_MS);
    close(ready[0]);
    restore_err = grant_restore(&dir, &data);
    if (ring_err == 0) {
        const uint8_t *raw;

        while (perf_ring_next(&ring, &raw, &raw_len)) {
            samples++;
            if (raw_len >= 8 + sizeof value) {
                memcpy(&value, raw + 8, sizeof value);
                value_ok = value == PAYLOAD_MAGIC;
            }
        }
        perf_ring_close(&ring);
    }

    EXPECT_EQ(0, restore_err);
    EXPECT_EQ(0, grant_dir_err);
    EXPECT_EQ(0, grant_data_err);
    EXPECT_EQ(0, st_none);
    EXPECT_EQ(EACCES, o_none[0])
    {
        TH_LOG("no grant: open gave %d", o_none[0]);
    }
    EXPECT_EQ(0, st_dir);
    EXPECT_EQ(EACCES, o_dir[0])
    {
        TH_LOG("directory granted, file 0640: open gave %d", o_dir[0]);
    }
    EXPECT_EQ(0, st_nogroup);
    EXPECT_EQ(EACCES, o_nogroup[0])
    {
        TH_LOG("granted, child not in the group: open gave %d", o_nogroup[0]);
    }
    EXPECT_EQ(0, st_rw);
    EXPECT_TRUE(ready_seen);
    EXPECT_EQ(0, o_rw[0]);
    EXPECT_EQ(0, o_rw[1]);
    EXPECT_EQ(0, ring_err);
    EXPECT_EQ(1, o_rw[2])
    {
        TH_LOG("the child's enable bit was not set by the parent's perf event");
    }
    EXPECT_EQ(0, o_rw[3]);
    EXPECT_EQ(0, o_rw[4]);
    EXPECT_EQ(1, samples);
    EXPECT_TRUE(value_ok)
    {
        TH_LOG("sample: %u bytes, value 0x%x", raw_len, value);
    }
}

/* out[0] open, out[1] PERSIST registration of name[0], out[2] the same without PERSIST
 * of name[1], out[3] unregister of that one. */
static int child_register_persist(void *p, int *out)
{
    const char *const *names = p;
    uint32_t word = 0, index;
    int fd = ue_open();

    out[0] = fd < 0 ? errno : 0;
    if (fd < 0)
        return 0;
    out[1] = ue_register_flags(fd, names[0], "u32 a", &word, 0, EH_USER_EVENT_REG_PERSIST, &index);
    if (out[1] == 0)
        ue_unregister(fd, &word, 0);
    out[2] = ue_register(fd, names[1], "u32 a", &word, 1, &index);
    out[3] = out[2] == 0 ? ue_unregister(fd, &word, 1) : -1;
    close(fd);
    return 0;
}

/* K04: PERSIST without CAP_PERFMON is EPERM; a kernel without the check creates the event. */
TEST(K04_nonroot_persist_registration_eperm)
{
    struct saved_attr dir, data;
    char persist[64], plain[64];
    const char *names[2] = {persist, plain};
    int *out, st, grant_err, restore_err;
    bool created;

    NEED_USER_EVENTS();
    ue_skip_unless_root(_metadata, "needs root to hand user_events_data to a group");
    ue_event_name(persist, sizeof persist, "np_persist");
    ue_event_name(plain, sizeof plain, "np_plain");
    out = child_outs();
    ASSERT_NE(NULL, out);

    grant_err = grant_group(&dir, &data, UE_DATA, 0660);
    st = grant_err ? -1 : run_nobody(true, child_register_persist, names, out);
    restore_err = grant_restore(&dir, &data);
    created = tracefs_event_exists("user_events", persist);
    if (created)
        ue_delete_wait(persist, UE_WAIT_MS);

    EXPECT_EQ(0, grant_err);
    EXPECT_EQ(0, restore_err);
    EXPECT_EQ(0, st);
    EXPECT_EQ(0, out[0]);
    EXPECT_EQ(EPERM, out[1]);
    EXPECT_FALSE(created);
    EXPECT_EQ(0, out[2]);
    EXPECT_EQ(0, out[3]);
}

/* out[0] open, out[1] DIAG_IOCSDEL of names[0], out[2] DIAG_IOCSDEL of names[1]. */
static int child_delete(void *p, int *out)
{
    const char *const *names = p;
    int fd = ue_open();

    out[0] = fd < 0 ? errno : 0;
    if (fd < 0)
        return 0;
    close(fd);
    out[1] = ue_delete(names[0]);
    out[2] = ue_delete(names[1]);
    return 0;
}

/* K27: non-root DIAG_IOCSDEL of a persistent event is EPERM; without the check it is deleted. */
TEST(K27_nonroot_delete_of_persistent_event_eperm)
{
    struct saved_attr dir, data;
    char name[64], unknown[64];
    const char *names[2] = {name, unknown};
    int *out, st, grant_err, restore_err, delete_err;
    bool still;

    NEED_USER_EVENTS();
    ue_skip_unless_root(_metadata, "needs root to hand user_events_data to a group");
    ue_event_name(name, sizeof name, "np_del");
    ue_event_name(unknown, sizeof unknown, "np_del_unknown");
    out = child_outs();
    ASSERT_NE(NULL, out);
    /* Created through dynamic_events: no reference of a creator can make it EBUSY. */
    ASSERT_EQ(0, dyn_command("u:%s %s", name, "u32 a"));

    grant_err = grant_group(&dir, &data, UE_DATA, 0660);
    st = grant_err ? -1 : run_nobody(true, child_delete, names, out);
    restore_err = grant_restore(&dir, &data);
    still = tracefs_event_exists("user_events", name);
    delete_err = ue_delete_wait(name, UE_WAIT_MS);

    EXPECT_EQ(0, grant_err);
    EXPECT_EQ(0, restore_err);
    EXPECT_EQ(0, st);
    EXPECT_EQ(0, out[0]);
    EXPECT_EQ(EPERM, out[1]);
    EXPECT_EQ(ENOENT, out[2]);
    EXPECT_TRUE(still);
    EXPECT_EQ(0, delete_err);
}

/* out[0] "u:names[1] u32 a", out[1] "-:names[0] u32 a", both to dynamic_events. */
static int child_dynamic_events(void *p, int *out)
{
    const char *const *names = p;

    out[0] = dyn_command("u:%s %s", names[1], "u32 a");
    out[1] = dyn_command("-:%s %s", names[0], "u32 a");
    return 0;
}

/* K44: "u:"/"-:" need CAP_PERFMON even with the file writable; without the check they succeed. */
TEST(K44_nonroot_dynamic_events_needs_cap_perfmon)
{
    struct saved_attr dir, dyn;
    char root_event[64], user_event[64];
    const char *names[2] = {root_event, user_event};
    int *out, st, grant_err, restore_err, delete_err;
    bool created, still;

    NEED_USER_EVENTS();
    ue_skip_unless_root(_metadata, "needs root to hand dynamic_events to a group");
    ue_event_name(root_event, sizeof root_event, "np_dynroot");
    ue_event_name(user_event, sizeof user_event, "np_dynuser");
    out = child_outs();
    ASSERT_NE(NULL, out);
    ASSERT_EQ(0, dyn_command("u:%s %s", root_event, "u32 a"));

    grant_err = grant_group(&dir, &dyn, UE_DYNAMIC_EVENTS, 0660);
    st = grant_err ? -1 : run_nobody(true, child_dynamic_events, names, out);
    restore_err = grant_restore(&dir, &dyn);
    created = tracefs_event_exists("user_events", user_event);
    still = tracefs_event_exists("user_events", root_event);
    delete_err = dyn_delete_wait(root_event, "u32 a", UE_WAIT_MS);
    if (created)
        dyn_delete_wait(user_event, "u32 a", UE_WAIT_MS);

    EXPECT_EQ(0, grant_err);
    EXPECT_EQ(0, restore_err);
    EXPECT_EQ(0, st);
    EXPECT_EQ(EPERM, out[0]);
    EXPECT_FALSE(created);
    EXPECT_EQ(EPERM, out[1]);
    EXPECT_TRUE(still);
    EXPECT_EQ(0, delete_err);
}

TEST_HARNESS_MAIN
