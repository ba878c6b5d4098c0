# SPDX-License-Identifier: GPL-2.0
"""Running a conformance case, shared by every runner on the host and by the guest
(harness/vm/guest_run.py): find the cases, tell a KTAP-only case from one with golden events,
and capture a case through a capture transport of the registry. Decoding the capture is
harness/core/ehdecode.py's, judging it harness/core/golden.py's."""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

from harness.core.ktap import Report
from harness.core.processes import Run, run_ktap
from harness.core.transports import capture_env


def find_cases(build: str) -> List[str]:
    """Case binaries in <build>/cases/ (executables without a dot in the name)."""
    d = os.path.join(build, "cases")
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if "." not in f and os.access(os.path.join(d, f), os.X_OK)
                  and os.path.isfile(os.path.join(d, f)))


NO_GOLDEN_MARK = "ehconf-no-golden"
# The two kinds of case: one whose events are captured and judged against golden, and one
# that asserts everything itself in its KTAP (the kernel_* cases).
CAPTURE, KTAP_ONLY = "capture", "ktap-only"


def declares_no_golden(repo: str, name: str) -> bool:
    """True if cases/<name>.c says "ehconf-no-golden": a case that writes no EventHeader
    event of its own to compare (it asserts everything itself, KTAP only)."""
    try:
        with open(os.path.join(repo, "cases", name + ".c"), encoding="utf-8") as f:
            return NO_GOLDEN_MARK in f.read()
    except OSError:
        return False


def case_kind(repo: str, name: str) -> str:
    """KTAP_ONLY for a case that declares ehconf-no-golden, else CAPTURE."""
    return KTAP_ONLY if declares_no_golden(repo, name) else CAPTURE


def fresh_capture(path: str) -> None:
    """Make way for a new capture file at path. The capture backends append, so an old
    file is removed: stale events must never make a broken case look right."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.unlink(path)


def capture_case(case: str, path: str, timeout: float, log: Optional[str] = None,
                 transport: str = "capture") -> Tuple[Run, Report]:
    """Run one case writing to capture transport `transport` of the registry (its variable
    set to path, every other capture variable removed: one set earlier in the registry
    would win), into a fresh file."""
    fresh_capture(path)
    return run_ktap([case], timeout, env=capture_env(transport, path), stdout_path=log)
