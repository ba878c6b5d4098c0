# SPDX-License-Identifier: GPL-2.0
"""The steps of running a conformance case, shared by every runner on the host and by the
guest (harness/guest_run.py): find the cases, tell a KTAP-only case from one with golden
events, capture a case through a capture transport of the registry, decode the capture
with `ehdecode --golden`, judge it against golden/<case>.json."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from golden import compare
from ktap import Report
from runner import Run, run, run_ktap
from transports import capture_env


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


@dataclass
class Decoded:
    ok: bool
    text: str  # JSON lines (all ehdecode printed, also when it failed)
    problem: str  # why it failed, with the decoder's messages
    exit: Optional[int] = None  # ehdecode's exit status; None: it did not run to an end
    stderr: str = ""  # the decoder's messages


def decode(ehdecode: str, dat: str, timeout: float) -> Decoded:
    """`ehdecode --golden dat`: exit 0 = every record decoded, 1 = something malformed,
    2 = usage. A missing or empty capture is a failure here, never an empty success."""
    if not os.path.exists(dat):
        return Decoded(False, "", f"no capture file {dat}: the case wrote no event at all "
                                  f"(does the library support its capture variable?)")
    if os.path.getsize(dat) == 0:
        return Decoded(False, "", f"capture file {dat} is empty")
    if not os.access(ehdecode, os.X_OK):
        return Decoded(False, "", f"decoder {ehdecode} not built")
    r = run([ehdecode, "--golden", dat], timeout, merge_stderr=False)
    if r.error:
        return Decoded(False, "", r.error)
    if r.timed_out:
        return Decoded(False, r.output, f"ehdecode --golden {dat}: timed out\n{r.stderr[:4000]}",
                       None, r.stderr)
    if r.returncode != 0:
        return Decoded(False, r.output, f"ehdecode --golden {dat}: exit status {r.returncode}"
                                        f"\n{r.stderr[:4000]}", r.returncode, r.stderr)
    return Decoded(True, r.output, "", 0, r.stderr)


def decode_to(ehdecode: str, capture: str, decoded: str, timeout: float) -> str:
    """Decode capture into the file decoded (kept for a diff by hand, and read by the
    judge): "" on success, else why not, with the decoder's messages."""
    d = decode(ehdecode, capture, timeout)
    with open(decoded, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(d.text)
    return d.problem


def golden_problem(decoded_text: str, golden: str, case: str, transport: str,
                   decoded_label: str) -> str:
    """The judge: decoded events against golden (a path) compared as <transport>:
    "" when they agree, else why not (the reader's message)."""
    if not os.path.exists(golden):
        return (f"{case}: no golden file golden/{case}.json: run `make golden` and review "
                f"every line against cases/{case}.c")
    with open(golden, encoding="utf-8", errors="surrogateescape") as f:
        res = compare(f.read(), decoded_text, case, transport=transport)
    return "" if res.ok else f"{res.message}\n(decoded capture: {decoded_label})"
