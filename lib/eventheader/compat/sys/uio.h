/* SPDX-License-Identifier: MIT */
/*
 * mingw-w64 has no <sys/uio.h>. The library's backend interface (eh_internal.h) passes
 * event pieces as struct iovec; on Windows only the type is needed (no readv/writev:
 * the ETW backend hands the pieces to EventWriteTransfer). lib/eventheader/mingw.mk puts
 * -Ilib/eventheader/compat on the library's include path for the mingw build only.
 */
#ifndef EHCONF_COMPAT_SYS_UIO_H
#define EHCONF_COMPAT_SYS_UIO_H

#include <stddef.h>

struct iovec {
    void *iov_base;
    size_t iov_len;
};

#endif
