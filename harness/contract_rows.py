# SPDX-License-Identifier: GPL-2.0
"""The rows of the library-kernel contract (Documentation/impl-contract.md): what the guest
asks every implementation's `emit --contract` on the real kernel, and what the seed
documents and the kernel ABI promise it answers. The guest (harness/guest_impl.py) runs
the rows; the host (harness/run_impl_vm.py) compares each observation with the promise for
the kernel it ran on (promise_for) and with the profile's
`contract <row> <observed> <reason>` declarations. Standard library only
(imported in the guest too).

An observation is one line of words: every answer of the emitter in order (the first is
always its registration's), with `sent` or `lost` after each write made while perf
records (did perf record the event?); a crash ends it with
`crash:<exit status or signal>@<command>`.
"""

from __future__ import annotations

from typing import Dict, NamedTuple, Tuple

TRACEPOINT = "EhconfContract_L4K1"
EVENT = "EhconfContract:Contract"

# Event sizes of the size row: bytes after the write index, the size EventHeader's
# 65,535-byte limit counts. 8,184 is the largest perf records on 6.12 (kernel-size-limits);
# 65,479 the largest the dynamic builders of microsoft/LinuxTracepoints write.
SIZES = (8184, 8185, 65479, 65535, 65536)


class Row(NamedTuple):
    name: str
    behaviours: str  # the rows of Documentation/kernel-behaviours.md it exercises
    what: str
    promise: str  # the observation the contract promises
    # Where the kernel, not the library, decides the answer: the kernel expectation
    # (cases/kernel-expectations.txt) that picks the promise, and the promise per value.
    # The promise then follows the kernel the row ran on, so a library that merely agrees
    # with what a broken library would answer cannot pass.
    kernel: Tuple[str, Tuple[Tuple[int, str], ...]] = ("", ())


ROWS: Tuple[Row, ...] = (
    Row("no-consumer", "K29", "register; enabled; write with no tracer attached", "ok 0 9"),
    Row("perf", "K36", "register; perf attaches; enabled; write; perf detaches; enabled",
        "ok 1 0 sent 0"),
    Row("ftrace", "K37", "register; ftrace enables; enabled; write; ftrace disables; enabled",
        "ok 1 0 0"),
    Row("reregister", "K22 K23", "register; perf attaches; unregister; enabled; register; "
        "enabled; write", "ok ok 0 ok 1 0 sent"),
    Row("fork", "K39", "register; perf attaches; fork: the child's enabled and write",
        "ok child 1 0 sent"),
    # On every kernel since 6.4 the registering thread takes the enablers with it when it
    # ends: perf's attach sets no bit, a library that honours the bit writes nothing (EBADF),
    # and only one that ignores the bit would be "enabled" and have its event recorded.
    Row("thread", "K40", "register from a thread that then ends; perf attaches; enabled; "
        "write", "ok 0 9 lost",
        ("thread_exit_drops_enablers", ((1, "ok 0 9 lost"), (0, "ok 1 0 sent")))),
    Row("size", "K34", "register; perf attaches; events of " + ", ".join(map(str, SIZES))
        + " bytes", "ok 0 sent 0 lost 0 lost 0 lost 7 lost"),
)

BY_NAME = {r.name: r for r in ROWS}


def promise_for(row: Row, expectations: Dict[str, int]) -> str:
    """The row's promise on a kernel whose expectations (name -> value) are given; a row
    the kernel does not decide, or an expectation the table lacks, keeps its own."""
    what, by_value = row.kernel
    if what and what in expectations:
        for value, promise in by_value:
            if value == expectations[what]:
                return promise
    return row.promise

