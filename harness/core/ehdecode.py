# SPDX-License-Identifier: GPL-2.0
"""A capture decoded by `ehdecode --golden`, with the decoder's messages: what every runner,
the guest and the tests decode with. Standard library only."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from harness.core.common import REPO_ROOT
from harness.core.processes import run


@dataclass
class Decoded:
    ok: bool
    text: str  # JSON lines (all ehdecode printed, also when it failed)
    problem: str  # why it failed, with the decoder's messages
    exit: Optional[int] = None  # ehdecode's exit status; None: it did not run to an end
    stderr: str = ""  # the decoder's messages


def decode(ehdecode: str, dat: str, timeout: float, script: str = "") -> Decoded:
    """`ehdecode --golden dat`: exit 0 = every record decoded, 1 = something malformed,
    2 = usage. A missing or empty capture is a failure here, never an empty success.
    script: a decoder of the checkout for a producer that does not write EventHeader (the
    implementation registry's decoder column), run as `script dat` with the same exit
    statuses, in ehdecode's place."""
    if not os.path.exists(dat):
        return Decoded(False, "", f"no capture file {dat}: the case wrote no event at all "
                                  f"(does the library support its capture variable?)")
    if os.path.getsize(dat) == 0:
        return Decoded(False, "", f"capture file {dat} is empty")
    argv = [script, dat] if script else [ehdecode, "--golden", dat]
    if not os.access(argv[0], os.X_OK):
        return Decoded(False, "", f"decoder {argv[0]} not built")
    r = run(argv, timeout, merge_stderr=False)
    if r.error:
        return Decoded(False, "", r.error)
    if r.timed_out:
        return Decoded(False, r.output, f"{' '.join(argv)}: timed out\n{r.stderr[:4000]}",
                       None, r.stderr)
    if r.returncode != 0:
        # The decoder's first message on the first line: the line a report shows.
        first = (r.stderr.strip().splitlines() or [""])[0][:200]
        return Decoded(False, r.output, f"{' '.join(argv)}: exit status {r.returncode}"
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


def decoder_script(decoder: str) -> str:
    """The registry's decoder column as a script path ("" for ehdecode)."""
    return "" if decoder == "ehdecode" else os.path.join(REPO_ROOT, decoder)


def definitions(script: str) -> dict:
    """name -> user_events definition ("name fields") of the tracepoints a decoder script
    reads (`SCRIPT --definitions`, one per line): a producer that is not EventHeader
    registers them so, and a consumer that registers them first must use the same."""
    if not script:
        return {}
    r = run([script, "--definitions"], 60, merge_stderr=False)
    if r.how() or r.returncode:
        raise ValueError(f"{script} --definitions: {r.how() or 'exit status %d' % r.returncode}")
    return {ln.split()[0]: ln.strip() for ln in r.output.splitlines() if ln.strip()}
