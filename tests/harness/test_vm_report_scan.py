# SPDX-License-Identifier: GPL-2.0
"""scripts/vm-report.py: which console lines are the kernel's, and what a splat is. A panic
whose line the guest's own output interleaved with must still be found and named, or the
runner reports a planted crash as some other failure (seen from an empty cache on 2 busy
cores: "g[uest: crashing    11.120656] Kernel panic - not syncing: sysrq triggered crash")."""

from __future__ import annotations

import importlib.util
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "vm_report", os.path.join(HERE, "..", "..", "scripts", "vm-report.py"))
vm_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vm_report)

CONSOLE = """guest: activity: ok in 2.3 s\r
[   11.116656] sysrq: Trigger a crash\r
g[uest: crashing    11.120656] Kernel panic - not syncing: sysrq triggered crash\r
the kernel on purpose after activity\r
[   11.120656] CPU: 0 UID: 0 PID: 69 Comm: python3 Not tainted 6.12.117 #1 \r
[   11.120656] Call Trace:\r
guest: WARNING: printed by a guest program, not the kernel\r
"""


def test_an_interleaved_panic_line_is_the_kernels():
    lines = vm_report.kernel_lines(CONSOLE)
    assert "Kernel panic - not syncing: sysrq triggered crash" in lines
    assert lines[0] == "sysrq: Trigger a crash"


def test_a_guest_line_without_a_stamp_is_not_the_kernels():
    assert not any("printed by a guest" in ln for ln in vm_report.kernel_lines(CONSOLE))


def test_the_panic_is_the_first_finding_and_its_trace_follows_it():
    found = vm_report.scan(vm_report.kernel_lines(CONSOLE), [])
    assert [f["kind"] for f in found] == ["Kernel panic", "Call Trace"]
    assert "sysrq triggered crash" in found[0]["line"]
    assert not any(f["allowed"] for f in found)


def test_a_splat_is_allowed_by_its_message_and_judged_whole():
    console = ("[    1.000000] ------------[ cut here ]------------\n"
               "[    1.000001] perf buffer not large enough, wanted 70000, have 65536\n"
               "[    1.000002] WARNING: CPU: 0 PID: 1 at kernel/trace/trace_event_perf.c:1 f\n"
               "[    1.000003] Call Trace:\n"
               "[    1.000004] ---[ end trace 0000000000000000 ]---\n"
               "[    2.000000] BUG: unable to handle page fault\n")
    found = vm_report.scan(vm_report.kernel_lines(console),
                           [re.compile("perf buffer not large enough")])
    assert [(f["kind"], f["allowed"]) for f in found] == [
        ("WARNING:", True), ("Call Trace", True), ("BUG:", False)]
