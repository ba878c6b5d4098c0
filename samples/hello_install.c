/* SPDX-License-Identifier: MIT */
/*
 * hello_install.c: the README's example, built against an installed libeventheader
 * through pkg-config (mk/install.mk's test-install builds it statically and shared):
 *
 *   cc hello_install.c $(pkg-config --cflags --libs eventheader) -o hello
 *   EHCONF_CAPTURE=hello.dat ./hello && ehdecode --golden hello.dat
 *
 * Exit 0 when the event was written (with EHCONF_CAPTURE, or on a kernel with user_events
 * and a tracer listening); the errno value otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "eventheader.h"

EH_DEFINE_PROVIDER(my_provider, "MyCompany_MyComponent");

int main(void)
{
    int err = eh_provider_register(&my_provider);
    if (err)
        fprintf(stderr, "hello_install: eh_provider_register: %s\n", strerror(err));

    const char *msg = "We're low on ice cream.";
    err = EH_WRITE(my_provider, EH_EVENT("MyWarningEvent", EH_LEVEL_WARNING, 0x23),
                   EH_CSTR8("Message", msg),
                   EH_U32("Count", 42, EH_TAG(0x12), EH_FORMAT(EH_FMT_HEX_INT)),
                   EH_STRUCT("Where", EH_STR8("File", "hello_install.c", 15), EH_I32("Line", 7)));
    if (err)
        fprintf(stderr, "hello_install: EH_WRITE: %s (backend %s)\n", strerror(err),
                eh_backend_name());

    eh_provider_unregister(&my_provider);
    return err;
}
