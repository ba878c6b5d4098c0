# SPDX-License-Identifier: GPL-2.0
"""Running conformance cases offline: case -> capture file (.dat) -> ehdecode --golden."""

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


def declares_no_golden(repo: str, name: str) -> bool:
    """True if cases/<name>.c says "ehconf-no-golden": a case that writes no EventHeader
    event of its own to compare (it asserts everything itself, KTAP only)."""
    try:
        with open(os.path.join(repo, "cases", name + ".c"), encoding="utf-8") as f:
            return NO_GOLDEN_MARK in f.read()
    except OSError:
        return False


def capture_case(case: str, dat: str, timeout: float, log: Optional[str] = None
                 ) -> Tuple[Run, Report]:
    """Run one case with EHCONF_CAPTURE=dat. The capture backend appends, so any old file
    is removed first: stale events must never make a broken case look right."""
    os.makedirs(os.path.dirname(dat), exist_ok=True)
    if os.path.exists(dat):
        os.unlink(dat)
    # Every other capture variable is removed: one set earlier in the registry would win.
    return run_ktap([case], timeout, env=capture_env("capture", dat), stdout_path=log)


def capture_case_tl(case: str, tlcap: str, timeout: float, log: Optional[str] = None
                    ) -> Tuple[Run, Report]:
    """Run one case with EHCONF_CAPTURE_TL=tlcap: every event is translated to TraceLogging
    exactly as the ETW backend would hand it to EventWriteTransfer and appended to a
    .tlcap file that `ehdecode --golden` decodes. Old file removed first, as above."""
    os.makedirs(os.path.dirname(tlcap), exist_ok=True)
    if os.path.exists(tlcap):
        os.unlink(tlcap)
    return run_ktap([case], timeout, env=capture_env("tlcapture", tlcap), stdout_path=log)


@dataclass
class Decoded:
    ok: bool
    text: str  # JSON lines on success
    problem: str  # why it failed, with the decoder's messages


def decode(ehdecode: str, dat: str, timeout: float) -> Decoded:
    """`ehdecode --golden dat`: exit 0 = every record decoded, 1 = something malformed,
    2 = usage. A missing or empty capture is a failure here, never an empty success."""
    if not os.path.exists(dat):
        return Decoded(False, "", f"no capture file {dat}: the case wrote no event at all "
                                  f"(is EHCONF_CAPTURE supported by the library?)")
    if os.path.getsize(dat) == 0:
        return Decoded(False, "", f"capture file {dat} is empty")
    if not os.access(ehdecode, os.X_OK):
        return Decoded(False, "", f"decoder {ehdecode} not built")
    r = run([ehdecode, "--golden", dat], timeout, merge_stderr=False)
    if r.error:
        return Decoded(False, "", r.error)
    if r.timed_out or r.returncode != 0:
        how = "timed out" if r.timed_out else f"exit status {r.returncode}"
        return Decoded(False, r.output, f"ehdecode --golden {dat}: {how}\n{r.stderr[:4000]}")
    return Decoded(True, r.output, "")


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
