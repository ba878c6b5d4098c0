/* SPDX-License-Identifier: MIT */
/*
 * EH_WRITE and EH_ENABLED forwarded through an application's own variadic macro:
 * EH_EVENT keeps its arguments in parentheses, so the event stays one macro argument
 * after the wrapper has expanded it. The record bytes are worked out by hand.
 */
#include <errno.h>

#include "eventheader.h"
#include "ktap.h"
#include "support_capture.h"

static EH_DEFINE_PROVIDER(fwd, "FwdProv");

static int passthrough(int err)
{
    return err;
}

/* The kind of wrapper an application writes around its logging calls. */
#define APP_WRITE(...)   passthrough(EH_WRITE(fwd, __VA_ARGS__))
#define APP_ENABLED(...) EH_ENABLED(fwd, __VA_ARGS__)

static void test_register(void)
{
    cap_setup("forwarding");
    KT_EXPECT_EQ(eh_provider_register(&fwd), 0);
}

static void test_forwarded_write(void)
{
    size_t mark = cap_size();
    KT_EXPECT_EQ(APP_WRITE(EH_EVENT("Fwd", 5, 1, .opcode = 2), EH_U32("n", 7),
                           EH_STRUCT("s", EH_I8("x", -1), EH_I8("y", 2))),
                 0);
    static const uint8_t want[] = {
        0x07, 0,   0,    0,    0,   0, 2,    5, /* header: flags, version, id, tag, opcode 2, level 5 */
        19,   0,   1,    0,                  /* metadata extension: 4+3+4+4+4 = 19 bytes, kind 1 */
        'F',  'w', 'd',  0,    'n', 0, 0x04, /* Value32 */
        's',  0,   0x81, 0x02,               /* struct of 2 */
        'x',  0,   0x82, 0x02,               /* Value8 + SignedInt */
        'y',  0,   0x82, 0x02, 7,   0, 0,    0, 0xff, 0x02, /* n = 7, x = -1, y = 2 */
    };
    KT_EXPECT(CAP_ONE(mark, "FwdProv_L5K1", want));
}

static void test_forwarded_enabled(void)
{
    KT_EXPECT(APP_ENABLED(4, 2)); /* capture backend: every event enabled */
}

KT_MAIN(KT_CASE(test_register), KT_CASE(test_forwarded_write), KT_CASE(test_forwarded_enabled))
