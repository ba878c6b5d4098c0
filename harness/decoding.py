# SPDX-License-Identifier: GPL-2.0
"""A capture decoded by `ehdecode --golden`, with the decoder's messages: what every runner,
the guest and the tests decode with. Standard library only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from runner import run


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
        # The decoder's first message on the first line: the line a report shows.
        first = (r.stderr.strip().splitlines() or [""])[0][:200]
        return Decoded(False, r.output, f"ehdecode --golden {dat}: exit status {r.returncode}"
                                        + (f": {first}" if first else "")
                                        + f"\n{r.stderr[:4000]}", r.returncode, r.stderr)
    return Decoded(True, r.output, "", 0, r.stderr)


def decode_to(ehdecode: str, capture: str, decoded: str, timeout: float) -> str:
    """Decode capture into the file decoded (kept for a diff by hand, and read by the
    judge): "" on success, else why not, with the decoder's messages."""
    d = decode(ehdecode, capture, timeout)
    with open(decoded, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(d.text)
    return d.problem
