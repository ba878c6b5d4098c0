#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest-side check of vm/run's --allow-warning: provoke the 6.12 perf oversize WARN.

Registers user event `ehconf_vmwarn u32 a` through DIAG_IOCSREG, starts
`perf record -a` on it, writes one event whose payload is 8188 bytes (the
perf limit is 8184, Documentation/user-events-abi.md §6) and one of 8 bytes.
The kernel drops the big one and prints, once per boot,
"perf buffer not large enough, wanted 8200, have 8192" with a WARNING splat.
Exit 0 if that line is in dmesg, 1 if not, 77 if the kernel lacks user_events.
Run as: vm/run [--allow-warning 'perf buffer not large enough'] -- scripts/vm-trigger-perf-warning.py
"""
import ctypes
import os
import struct
import subprocess
import sys
import time

TRACING = "/sys/kernel/tracing"
NAME = b"ehconf_vmwarn u32 a"
# struct user_reg (packed): u32 size; u8 enable_bit; u8 enable_size; u16 flags;
# u64 enable_addr; u64 name_args; u32 write_index  -> 28 bytes.
USER_REG = struct.Struct("<IBBHQQI")
# DIAG_IOCSREG = _IOWR('*', 0, struct user_reg *): dir 3, size 8 (a pointer), type 0x2a, nr 0.
DIAG_IOCSREG = (3 << 30) | (8 << 16) | (0x2A << 8) | 0


def register(fd):
    import fcntl
    enabled = ctypes.c_uint32(0)
    name = ctypes.create_string_buffer(NAME)
    reg = bytearray(USER_REG.pack(USER_REG.size, 0, 4, 0, ctypes.addressof(enabled),
                                  ctypes.addressof(name), 0))
    # A mutable buffer: ioctl gets a pointer to it and the kernel's write_index comes back.
    fcntl.ioctl(fd, DIAG_IOCSREG, reg, True)
    write_index = USER_REG.unpack(bytes(reg))[6]
    return write_index, enabled, name, reg


def main():
    if not os.path.exists(f"{TRACING}/user_events_data"):
        print("SKIP: kernel lacks CONFIG_USER_EVENTS")
        return 77
    fd = os.open(f"{TRACING}/user_events_data", os.O_RDWR)
    write_index, enabled, *_keep = register(fd)
    perf = subprocess.Popen(["perf", "record", "-q", "-a", "-e", "user_events:ehconf_vmwarn",
                             "-o", "/tmp/vmwarn.data", "--", "sleep", "4"])
    for _ in range(100):  # wait (max 10 s) until perf has the event open
        if enabled.value:
            break
        time.sleep(0.1)
    time.sleep(1)  # perf enables collection a little after opening
    idx = struct.pack("<I", write_index)
    big = os.writev(fd, [idx, b"\x11" * 8188])
    small = os.writev(fd, [idx, struct.pack("<II", 1, 2)])
    print(f"enabled={enabled.value} writev(8188)={big} writev(8)={small}")
    perf.wait(timeout=30)
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    found = "perf buffer not large enough" in dmesg
    print("dmesg has the perf oversize warning" if found else "dmesg lacks the perf oversize warning")
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
