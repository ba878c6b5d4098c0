/* SPDX-License-Identifier: MIT */
/*
 * Windows backend entry points under the names provider.c already calls, so the
 * library core picks ETW on Windows without a platform switch of its own:
 *   eh_backend_user_events_open() -> the ETW backend (backend_etw.c);
 *   eh_backend_capture_open()     -> ENOTSUP (the .dat capture is POSIX-only; run
 *                                    cases under tools/windows/etwcapture instead).
 * backend_user_events.c and backend_capture.c are left out of the mingw build
 * (harness/kernel/windows.mk). On other systems this file is one typedef.
 */
#ifdef _WIN32

#include <errno.h>

#include "eh_internal.h"
#include "tl_encode.h"

int eh_backend_user_events_open(const struct eh_backend **out)
{
    return eh_backend_etw_open(out);
}

int eh_backend_capture_open(const char *path, const struct eh_backend **out)
{
    (void)path;
    (void)out;
    return ENOTSUP;
}

#else

typedef int eh_tl_win_backends_not_windows_;

#endif
