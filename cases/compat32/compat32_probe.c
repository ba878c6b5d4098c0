// SPDX-License-Identifier: GPL-2.0
/*
 * compat32_probe: the user_events ABI seen from a 32-bit process (K46), built with
 * `$(CC) -m32 -static` to build/<variant>/cases/kernel_compat32.m32 and run by
 * cases/kernel_compat32.c in the guest. It asserts nothing itself: it prints one line
 * "<call> <errno>" per ABI call (0 = the call succeeded) and the case decides.
 *
 * Usage: kernel_compat32.m32 NAME [FD INDEX]
 *   NAME   an event name of the caller's choosing (unique per run);
 *   FD     a user_events_data descriptor inherited from the 64-bit parent, on which
 *   INDEX  is the write index of a registered event with one u32 field that a perf
 *          event listens to: the probe writes the value 0x32333233 to it.
 *
 * Lines, in this order:
 *   open 0            open(user_events_data, O_RDWR)
 *   reg32 E           DIAG_IOCSREG with the number a 32-bit build of the uapi header
 *                     gives (the pointer in its size field makes it 0xc0042a00)
 *   reg64 E           DIAG_IOCSREG with the 64-bit number 0xc0082a00
 *   unreg32 E / unreg64 E   DIAG_IOCSUNREG (0x40042a02 / 0x40082a02)
 *   del32 E / del64 E       DIAG_IOCSDEL of NAME (0x40042a01 / 0x40082a01)
 *   write_unregistered E    write() of the bare index 0 on its own fd, where
 *                           nothing was registered
 *   write_inherited E       (with FD INDEX) writev() of INDEX + u32 on FD
 * Exit status 0 once every line is printed, 2 for bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "eventheader_user_events.h"

/* The same three numbers with an 8-byte pointer in the size field, as a 64-bit
 * build of the uapi header defines them. */
#define REG_64BIT   0xc0082a00u
#define DEL_64BIT   0x40082a01u
#define UNREG_64BIT 0x40082a02u

#if defined(__i386__)
_Static_assert(EH_DIAG_IOCSREG == 0xc0042a00u && EH_DIAG_IOCSDEL == 0x40042a01u &&
                   EH_DIAG_IOCSUNREG == 0x40042a02u,
               "a 32-bit build puts a 4-byte pointer size into the ioctl numbers");
#endif

#define PROBE_VALUE 0x32333233u

static uint32_t enable_word;

static void report(const char *call, int err)
{
    printf("%s %d\n", call, err);
    fflush(stdout);
}

static int do_ioctl(int fd, unsigned long cmd, void *arg)
{
    return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/* write() of a bare index (the plain write path, which also checks the file offset). */
static int write_index_only(int fd, uint32_t index)
{
    ssize_t n = write(fd, &index, sizeof index);

    if (n < 0)
        return errno;
    return n == (ssize_t)sizeof index ? 0 : EIO;
}

/* writev() of index + one u32 (the write_iter path). */
static int writev_event(int fd, uint32_t index)
{
    uint32_t payload = PROBE_VALUE;
    struct iovec iov[2] = {
        {.iov_base = &index, .iov_len = sizeof index},
        {.iov_base = &payload, .iov_len = sizeof payload},
    };
    ssize_t n = writev(fd, iov, 2);

    if (n < 0)
        return errno;
    return n == (ssize_t)(sizeof index + sizeof payload) ? 0 : EIO;
}

int main(int argc, char **argv)
{
    char command[512];
    struct eh_user_reg reg;
    struct eh_user_unreg unreg;
    int fd;

    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: %s NAME [FD INDEX]\n", argv[0]);
        return 2;
    }
    snprintf(command, sizeof command, "%s u32 value", argv[1]);

    fd = open(EH_USER_EVENTS_DATA, O_RDWR | O_CLOEXEC);
    report("open", fd < 0 ? errno : 0);
    if (fd >= 0) {
        memset(&reg, 0, sizeof reg);
        reg.size = sizeof reg;
        reg.enable_bit = 0;
        reg.enable_size = sizeof enable_word;
        reg.enable_addr = (uint64_t)(uintptr_t)&enable_word;
        reg.name_args = (uint64_t)(uintptr_t)command;
        report("reg32", do_ioctl(fd, EH_DIAG_IOCSREG, &reg));
        report("reg64", do_ioctl(fd, REG_64BIT, &reg));

        memset(&unreg, 0, sizeof unreg);
        unreg.size = sizeof unreg;
        unreg.disable_bit = 0;
        unreg.disable_addr = (uint64_t)(uintptr_t)&enable_word;
        report("unreg32", do_ioctl(fd, EH_DIAG_IOCSUNREG, &unreg));
        report("unreg64", do_ioctl(fd, UNREG_64BIT, &unreg));

        report("del32", do_ioctl(fd, EH_DIAG_IOCSDEL, argv[1]));
        report("del64", do_ioctl(fd, DEL_64BIT, argv[1]));

        report("write_unregistered", write_index_only(fd, 0));
        close(fd);
    }

    if (argc == 4) {
        int inherited = atoi(argv[2]);
        uint32_t index = (uint32_t)strtoul(argv[3], NULL, 10);

        report("write_inherited", writev_event(inherited, index));
    }
    return 0;
}
