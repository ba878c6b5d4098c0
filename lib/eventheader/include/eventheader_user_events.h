/* SPDX-License-Identifier: MIT */
/*
 * The Linux user_events ioctl ABI (kernel 6.4+), written from the documented
 * layout because Debian 12's linux-libc-dev lacks <linux/user_events.h>.
 * Shared by the library's user_events backend and tools/ehregister.c.
 */
#ifndef EVENTHEADER_USER_EVENTS_H
#define EVENTHEADER_USER_EVENTS_H

#include <stdint.h>
#include <sys/ioctl.h>

struct eh_user_reg {
    uint32_t size;       /* sizeof(struct eh_user_reg) = 28 */
    uint8_t enable_bit;  /* bit the kernel flips at enable_addr */
    uint8_t enable_size; /* 4 or 8 */
    uint16_t flags;      /* EH_USER_EVENT_REG_* */
    uint64_t enable_addr;
    uint64_t name_args;   /* pointer to "name fields" */
    uint32_t write_index; /* out */
} __attribute__((packed));

struct eh_user_unreg {
    uint32_t size; /* 16 */
    uint8_t disable_bit;
    uint8_t reserved;
    uint16_t reserved2;
    uint64_t disable_addr;
} __attribute__((packed));

_Static_assert(sizeof(struct eh_user_reg) == 28, "user_reg is 28 bytes");
_Static_assert(sizeof(struct eh_user_unreg) == 16, "user_unreg is 16 bytes");

enum { EH_USER_EVENT_REG_PERSIST = 1 };

/* The size field of these ioctl numbers encodes a pointer, as the kernel's do. */
#define EH_DIAG_IOCSREG   _IOWR('*', 0, struct eh_user_reg *)
#define EH_DIAG_IOCSDEL   _IOW('*', 1, char *)
#define EH_DIAG_IOCSUNREG _IOW('*', 2, struct eh_user_unreg *)

#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(EH_DIAG_IOCSREG == 0xc0082a00u && EH_DIAG_IOCSDEL == 0x40082a01u &&
                   EH_DIAG_IOCSUNREG == 0x40082a02u,
               "ioctl numbers as the kernel defines them on 64-bit");
#endif

#define EH_USER_EVENTS_DATA "/sys/kernel/tracing/user_events_data"

/* Opens user_events_data (O_WRONLY|O_CLOEXEC): the default path, else the first
 * tracefs mount, else the first debugfs mount (+"/tracing") from /proc/mounts.
 * Returns the fd, or -errno (-ENOTSUP when no tracefs/debugfs is mounted). */
int eh_user_events_open_data(void);

#endif /* EVENTHEADER_USER_EVENTS_H */
