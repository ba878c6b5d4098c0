/* SPDX-License-Identifier: MIT */
/*
 * The user_events backend on a host without user_events (Debian's kernels lack
 * CONFIG_USER_EVENTS): registration reports an errno, every event stays
 * disabled, writes return EBADF, and no field expression is evaluated.
 * On a kernel with user_events, registration succeeds and events stay disabled
 * until a session listens, so the disabled-path checks hold there too; then
 * test_kernel_enable attaches ftrace to the tracepoint through tracefs and checks
 * that the kernel flips the enable word and accepts the write.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventheader.h"
#include "ktap.h"

EH_DEFINE_PROVIDER(ue, "TestUserEvents");

static int g_register_err = -1;
static int g_evaluated;

static uint32_t side_effect(void)
{
    g_evaluated++;
    return 7;
}

static const char *side_effect_str(void)
{
    g_evaluated++;
    return "x";
}

static void test_register(void)
{
    unsetenv("EHCONF_CAPTURE");
    g_register_err = eh_provider_register(&ue);
    kt_diag("register returned %d, backend %s", g_register_err, eh_backend_name());
    if (g_register_err == 0) {
        KT_EXPECT_STR(eh_backend_name(), "user_events");
    } else {
        KT_EXPECT(g_register_err > 0);
        KT_EXPECT_STR(eh_backend_name(), "none");
        /* the failure is final for the process and repeatable */
        KT_EXPECT_EQ(eh_provider_register(&ue), g_register_err);
    }
}

static void test_disabled(void)
{
    KT_EXPECT(!EH_ENABLED(ue, 5, 1));
    KT_EXPECT(!EH_ENABLED(ue, 1, 0));
    KT_EXPECT_EQ(EH_WRITE(ue, EH_EVENT("E", 5, 1), EH_U32("a", 1)), EBADF);
    KT_EXPECT_EQ(EH_WRITE(ue, EH_EVENT("E", 4, 0)), EBADF);
}

static void test_no_evaluation_when_disabled(void)
{
    int counter = 0, counter2 = 0;
    g_evaluated = 0;
    for (int i = 0; i < 10; i++) {
        int r =
            EH_WRITE(ue, EH_EVENT("Side", 5, 1), EH_I32("c", counter++), EH_U32("f", side_effect()),
                     EH_CSTR8("s", side_effect_str()), EH_STRUCT("st", EH_I32("c2", ++counter2)));
        KT_EXPECT_EQ(r, EBADF);
    }
    KT_EXPECT_EQ(counter, 0);
    KT_EXPECT_EQ(counter2, 0);
    KT_EXPECT_EQ(g_evaluated, 0);
}

static void test_builder_disabled(void)
{
    eh_tracepoint *tp = NULL;
    int r = eh_provider_tracepoint(&ue, 5, 2, &tp);
    if (g_register_err != 0)
        KT_EXPECT_EQ(r, 0); /* provider not registered: created, not connected */
    KT_EXPECT(tp != NULL);
    if (!tp)
        return;
    KT_EXPECT(!eh_tracepoint_enabled(tp));
    eh_builder b;
    eh_builder_init(&b);
    eh_builder_reset(&b, "Dyn", 0, 0, 0, 0);
    uint32_t v = 1;
    eh_builder_add_value(&b, "v", EH_ENC_VALUE32, 0, 0, &v);
    KT_EXPECT_EQ(eh_builder_write(&b, tp, NULL, NULL), EBADF);
    eh_builder_destroy(&b);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_TRUNC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The first line of the ftrace buffer that mentions needle ("" if none). */
static const char *trace_line(const char *needle)
{
    static char buf[1 << 16];
    int fd = open("/sys/kernel/tracing/trace", O_RDONLY);
    if (fd < 0)
        return "";
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    char *hit = strstr(buf, needle);
    if (!hit)
        return "";
    while (hit > buf && hit[-1] != '\n')
        hit--;
    char *nl = strchr(hit, '\n');
    if (nl)
        *nl = 0;
    return hit;
}

/* ftrace prints a field as "name=v", "name=(v)" or "name=0x.. (v)" depending on
 * the kernel's output path; accept each. */
static int field_is(const char *line, const char *name, unsigned v)
{
    char a[64], b[64], c[64];
    snprintf(a, sizeof a, " %s=%u ", name, v);
    snprintf(b, sizeof b, " %s=(%u)", name, v);
    snprintf(c, sizeof c, " %s=0x%x (%u)", name, v, v);
    char padded[1024];
    snprintf(padded, sizeof padded, "%s ", line);
    return strstr(padded, a) || strstr(padded, b) || strstr(padded, c);
}

static void test_kernel_enable(void)
{
    static const char enable[] =
        "/sys/kernel/tracing/events/user_events/TestUserEvents_L5K1/enable";
    if (g_register_err != 0)
        KT_SKIP("user_events not available on this kernel");
    KT_EXPECT(!EH_ENABLED(ue, 5, 1));
    if (write_file(enable, "1") != 0)
        KT_SKIP("cannot enable the tracepoint through tracefs");
    KT_EXPECT(EH_ENABLED(ue, 5, 1));
    KT_EXPECT(!EH_ENABLED(ue, 4, 1)); /* another tracepoint stays off */
    KT_EXPECT_EQ(
        EH_WRITE(ue,
                 EH_EVENT("KernelEvent", 5, 1, .version = 1, .id = 0x33, .tag = 0x44, .opcode = 2),
                 EH_U32("a", 0x1234)),
        0);
    const char *line = trace_line("TestUserEvents_L5K1");
    kt_diag("ftrace: %s", line);
    /* ftrace shows the six header fields the command declared */
    KT_EXPECT(field_is(line, "eventheader_flags", 7));
    KT_EXPECT(field_is(line, "version", 1));
    KT_EXPECT(field_is(line, "id", 0x33));
    KT_EXPECT(field_is(line, "tag", 0x44));
    KT_EXPECT(field_is(line, "opcode", 2));
    KT_EXPECT(field_is(line, "level", 5));
    KT_EXPECT_EQ(write_file(enable, "0"), 0);
    KT_EXPECT(!EH_ENABLED(ue, 5, 1));
    KT_EXPECT_EQ(EH_WRITE(ue, EH_EVENT("KernelEvent", 5, 1), EH_U32("a", 0x1234)), EBADF);
}

static void test_unregister(void)
{
    KT_EXPECT_EQ(eh_provider_unregister(&ue), 0);
    KT_EXPECT_EQ(eh_provider_unregister(&ue), 0);
    KT_EXPECT_EQ(EH_WRITE(ue, EH_EVENT("E", 5, 1), EH_U32("a", 1)), EBADF);
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_disabled), KT_CASE(test_no_evaluation_when_disabled),
        KT_CASE(test_builder_disabled), KT_CASE(test_kernel_enable), KT_CASE(test_unregister))
