#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turns one VM run of the harness (harness/vm/run_vm.py's vm-results.json) into a
`git bisect run` verdict for scripts/bisect.sh.

    scripts/bisect-verdict.py --results DIR [--case NAME]... [--ignore-kernel-log]

DIR is the EHCONF_RESULTS folder of that run (vm-results.json, vm/console.log).
Prints ONE line "GOOD: why", "BAD: why" or "SKIP: why" and exits 0, 1 or 125:

  SKIP (125, cannot test this commit):
    - no vm-results.json (the harness did not run)
    - the guest never started the test command (kernel did not boot, panicked or hung
      before init, or init failed): unrelated to user_events
    - the kernel has no /sys/kernel/tracing/user_events_data (CONFIG_USER_EVENTS off)
    - every selected item was skipped
  BAD (1):
    - the guest started the cases but did not finish (panic, hang, timeout while
      the cases ran: that is the kernel failing the test)
    - any selected item failed: vm/<case>/<test>, vm-golden/<case>, vm-limits/* (when
      kernel_limits is selected: it measures the limits), kselftest/<binary>/* (when
      "kselftest" or "kselftest/<binary>" is selected), and vm/kernel-log (kernel
      WARNING/BUG/Oops in the console) unless --ignore-kernel-log
  GOOD (0): everything selected passed (skips and TODOs allowed).
A selected case (or test) that produced no item at all is BAD: the harness lost it.

--case NAME selects a whole case. --case NAME/TEST selects only that test of the case
(TEST as in its KTAP line, with or without the kselftest "global." prefix, subtests
included): its golden comparison, the limits and the kernel log are then NOT judged,
because the case binary still runs all its tests and any of them may cause those
(add --case NAME as well to judge the whole case).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.core.common import NO_USER_EVENTS, one_line  # noqa: E402

SHORT = 160  # a verdict line's reasons stay short: git bisect prints them per step

GOOD, BAD, SKIP = 0, 1, 125
GUEST_BEGIN = "EHCONF-GUEST: begin"
MAX_NAMED = 3


def reason_line(message: str) -> str:
    """The most telling line of a failure message: the first assertion ("file:line:
    ...Expected ...") or diagnostic, else the whole message."""
    for line in message.splitlines():
        t = line.strip().lstrip("#").strip()
        if re.search(r":\d+:|Expected|expected|error|Error", t):
            return t
    return message


def guest_began(results: str) -> bool:
    """True if the guest's init reached the test command (its console marker)."""
    try:
        with open(os.path.join(results, "vm", "console.log"), encoding="utf-8",
                  errors="replace") as f:
            return GUEST_BEGIN in f.read()
    except OSError:
        return False


def split_case(c: str) -> Tuple[str, str]:
    """"kernel_write/K29_write_without_tracer_is_EBADF" -> ("kernel_write", "K29_...")."""
    case, _, test = c.partition("/")
    return case, test


def test_matches(ident: str, case: str, test: str) -> bool:
    for t in (test, "global." + test):
        base = f"vm/{case}/{t}"
        if ident == base or ident.startswith(base + "/") or ident.startswith(base + "#"):
            return True
    return False


def selected(item: dict, cases: List[str], ignore_kernel_log: bool) -> bool:
    ident, group, case = item.get("ident", ""), item.get("group", ""), item.get("case", "")
    whole = [c for c in cases if "/" not in c]
    tests = [split_case(c) for c in cases if "/" in c and not c.startswith("kselftest")]
    if ident == "vm/boot":
        return True
    if ident == "vm/kernel-log":
        return not ignore_kernel_log and any(not c.startswith("kselftest") for c in whole)
    if group in ("vm", "vm-golden"):
        if case in whole:
            return True
        return group == "vm" and any(c == case and test_matches(ident, c, t) for c, t in tests)
    if group == "vm-limits":
        return "kernel_limits" in whole
    if group == "kselftest":
        return "kselftest" in cases or f"kselftest/{case}" in cases
    return False


def verdict(results: str, cases: List[str], ignore_kernel_log: bool = False) -> Tuple[int, str]:
    path = os.path.join(results, "vm-results.json")
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return SKIP, f"the harness wrote no usable {path} ({e})"

    problem = report.get("problem") or ""
    if problem:
        # The run as a whole failed: did the kernel get as far as our command?
        if not guest_began(results):
            return SKIP, f"boot failed before the test command ran: {one_line(problem, SHORT)}"
        return BAD, f"guest started the cases but did not finish: {one_line(problem, SHORT)}"

    guest = report.get("guest") or {}
    if guest.get("user_events") is False:
        return SKIP, NO_USER_EVENTS

    items = [i for i in report.get("items", []) if selected(i, cases, ignore_kernel_log)]
    lost = []
    for c in cases:
        if c.startswith("kselftest"):
            continue
        case, test = split_case(c)
        if not any(i.get("case") == case and i.get("group") in ("vm", "vm-golden")
                   and (not test or test_matches(i.get("ident", ""), case, test)) for i in items):
            lost.append(c)
    failed = [i for i in items if i.get("status") == "fail"]
    if failed or lost:
        names = [f"{i['ident']} failed" for i in failed] + [f"{c} produced no result" for c in lost]
        why = ", ".join(names[:MAX_NAMED])
        if len(names) > MAX_NAMED:
            why += f" (+{len(names) - MAX_NAMED} more)"
        first = failed[0].get("message", "") if failed else ""
        if first:
            why += f" -- {one_line(reason_line(first), 200)}"
        return BAD, why
    tested = [i for i in items if i.get("status") in ("pass", "xfail")
              and i.get("ident") not in ("vm/boot", "vm/kernel-log")]
    if not tested:
        skipped = [i for i in items if i.get("status") == "skip"]
        why = one_line(skipped[0].get("message", ""), SHORT) if skipped else "no items"
        return SKIP, f"nothing was tested (every selected item skipped: {why})"
    return GOOD, f"{len(tested)} item(s) passed ({', '.join(cases)})"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--ignore-kernel-log", action="store_true")
    args = ap.parse_args(argv)
    code, why = verdict(args.results, args.case, args.ignore_kernel_log)
    label = {GOOD: "GOOD", BAD: "BAD", SKIP: "SKIP"}[code]
    print(f"{label}: {why}")
    return code


if __name__ == "__main__":
    sys.exit(main())
