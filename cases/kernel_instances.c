// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_instances: user events in tracefs instances (instances/<name>/), which a user
 * creates with mkdir to trace into a buffer of their own.
 *
 * ehconf-no-golden: this case writes no EventHeader event of its own to compare;
 * everything it checks is asserted here (KTAP only, no golden file).
 *
 *   K53_instance_lists_the_event
 *                 K53: an event registered after the instance was made is listed in the
 *                 instance too (instances/<i>/events/user_events/<name>/ with its format);
 *   K54_instance_enable_sets_bit_and_delivers_there_only
 *                 K54: enabling the event in the instance sets the registration's enable
 *                 bit, a write lands in the instance's buffer and not in the top-level
 *                 one, and disabling it there clears the bit;
 *   K55_removing_the_instance_clears_the_bit
 *                 K55: rmdir of an instance with the event enabled in it succeeds and
 *                 clears the bit (nothing is left enabled on the removed buffer).
 *
 * Each test makes its own instance (ehconf_<test>_<pid>) and removes it. Needs root;
 * without user_events_data every test SKIPs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "case_harness.h"
#include "user_events_abi.h"

/* One instance, one event registered after it on bit 0 of word. */
struct inst {
    char dir[256];   /* TRACEFS/instances/ehconf_<what>_<pid> */
    char name[64];   /* the event */
    char event[512]; /* dir/events/user_events/<name> */
    uint32_t word, index;
    int fd;
};

/* NULL or the step that failed (errno in *err). */
static const char *inst_open(struct inst *in, const char *what, int *err)
{
    char iname[64];

    memset(in, 0, sizeof *in);
    in->fd = -1;
    ue_event_name(iname, sizeof iname, what);
    snprintf(in->dir, sizeof in->dir, TRACEFS "/instances/%s", iname);
    if (mkdir(in->dir, 0750) != 0) {
        *err = errno;
        return "mkdir of the instance";
    }
    ue_event_name(in->name, sizeof in->name, what);
    snprintf(in->event, sizeof in->event, "%s/events/user_events/%s", in->dir, in->name);
    in->fd = ue_open();
    if (in->fd < 0) {
        *err = errno;
        return "open user_events_data";
    }
    *err = ue_register(in->fd, in->name, "u32 magic", &in->word, 0, &in->index);
    return *err ? "register" : NULL;
}

static void inst_close(struct inst *in)
{
    if (in->fd >= 0) {
        ue_unregister(in->fd, &in->word, 0);
        close(in->fd);
    }
    rmdir(in->dir); /* gone already after K55 */
}

static int inst_enable(const struct inst *in, bool on)
{
    char path[600];

    snprintf(path, sizeof path, "%s/enable", in->event);
    return write_text(path, on ? "1" : "0");
}

/* The line of the text trace of a buffer (dir: the instance or TRACEFS) that holds the
 * event, or NULL. */
static const char *trace_line(const char *dir, const char *name)
{
    static char text[1 << 16];
    char path[300];
    char *at, *start;

    snprintf(path, sizeof path, "%s/trace", dir);
    if (read_text(path, text, sizeof text) != 0 || !(at = strstr(text, name)))
        return NULL;
    for (start = at; start > text && start[-1] != '\n'; start--)
        ;
    at[strcspn(at, "\n")] = '\0';
    return start;
}

TEST(K53_instance_lists_the_event)
{
    struct inst in;
    char path[600], format[4096];
    const char *step;
    int err = 0;

    NEED_USER_EVENTS();
    step = inst_open(&in, "k53", &err);
    ASSERT_EQ(NULL, step)
    {
        TH_LOG("%s: %s", step, strerror(err));
        inst_close(&in);
    }
    EXPECT_EQ(0, access(in.event, F_OK))
    {
        TH_LOG("%s: %s", in.event, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/format", in.event);
    EXPECT_EQ(0, read_text(path, format, sizeof format));
    EXPECT_NE(NULL, strstr(format, "field:u32 magic;"))
    {
        TH_LOG("%s:\n%s", path, format);
    }
    inst_close(&in);
}

TEST(K54_instance_enable_sets_bit_and_delivers_there_only)
{
    char top[600], was[16], needle[128];
    struct timespec now;
    uint32_t magic;
    const char *line;
    struct inst in;
    const char *step;
    int err = 0;

    NEED_USER_EVENTS();
    step = inst_open(&in, "k54", &err);
    ASSERT_EQ(NULL, step)
    {
        TH_LOG("%s: %s", step, strerror(err));
        inst_close(&in);
    }
    /* Off in the top level, whatever another program left on there (the kernel's own
     * selftests enable user_events system-wide), so that its buffer must stay quiet. */
    snprintf(top, sizeof top, TRACEFS "/events/user_events/%s/enable", in.name);
    if (read_text(top, was, sizeof was) == 0 && was[0] != '0')
        TH_LOG("the event was born enabled in the top level (%.*s): turning it off there",
               (int)strcspn(was, "\n"), was);
    ASSERT_EQ(0, write_text(top, "0"))
    {
        inst_close(&in);
    }
    EXPECT_FALSE(wait_bits(&in.word, 1, true, 50)); /* nobody listens yet */
    ASSERT_EQ(0, inst_enable(&in, true))
    {
        inst_close(&in);
    }
    EXPECT_TRUE(wait_bits(&in.word, 1, true, UE_WAIT_MS))
    {
        TH_LOG("enabled in %s, but bit 0 is still clear", in.dir);
    }
    /* A value no other write of this boot has: a buffer may still hold the lines of an
     * earlier run whose event had the same name (names carry a pid, and pids repeat). */
    clock_gettime(CLOCK_MONOTONIC, &now);
    magic = (uint32_t)now.tv_nsec | 0x80000000u;
    snprintf(needle, sizeof needle, "%s: magic=0x%x", in.name, magic);
    EXPECT_EQ(0, ue_writev(in.fd, in.index, &magic, sizeof magic));
    EXPECT_NE(NULL, trace_line(in.dir, needle))
    {
        TH_LOG("no `%s` in %s/trace", needle, in.dir);
    }
    line = trace_line(TRACEFS, needle);
    EXPECT_EQ(NULL, line)
    {
        TH_LOG("the event reached the top-level buffer too: %s", line);
    }
    EXPECT_EQ(0, inst_enable(&in, false));
    EXPECT_TRUE(wait_bits(&in.word, 1, false, UE_WAIT_MS))
    {
        TH_LOG("disabled in %s, but bit 0 is still set", in.dir);
    }
    inst_close(&in);
}

TEST(K55_removing_the_instance_clears_the_bit)
{
    struct inst in;
    const char *step;
    int err = 0;

    NEED_USER_EVENTS();
    step = inst_open(&in, "k55", &err);
    ASSERT_EQ(NULL, step)
    {
        TH_LOG("%s: %s", step, strerror(err));
        inst_close(&in);
    }
    ASSERT_EQ(0, inst_enable(&in, true))
    {
        inst_close(&in);
    }
    ASSERT_TRUE(wait_bits(&in.word, 1, true, UE_WAIT_MS))
    {
        inst_close(&in);
    }
    EXPECT_EQ(0, rmdir(in.dir))
    {
        TH_LOG("rmdir %s with the event enabled: %s", in.dir, strerror(errno));
    }
    EXPECT_TRUE(wait_bits(&in.word, 1, false, UE_WAIT_MS))
    {
        TH_LOG("the instance is gone, but bit 0 is still set");
    }
    inst_close(&in);
}

TEST_HARNESS_MAIN
