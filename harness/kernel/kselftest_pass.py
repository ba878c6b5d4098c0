# SPDX-License-Identifier: GPL-2.0
"""The second pass of `make check-vm` (issue 22): the kernel cases installed as a kselftest
collection (make kselftest-install, Documentation/kselftest.md) and run in the same guest by
the kernel's own run_kselftest.sh, as LKFT runs them, must report every test exactly as
ehconf's own runner reported it in the first pass.

run_kselftest.sh prints one block per program:
    # selftests: ehconf_user_events: kernel_write
    # TAP version 13            <- the program's own KTAP, each line behind "# "
    # ok 1 global.K29_...
    ok 3 selftests: ehconf_user_events: kernel_write
Items: kselftest-install/<case>/<test>, passing when the status equals that of
vm/<case>/<test>; kselftest-install/<case> when a program is missing from either side.
Standard library only."""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

from harness.core.common import safe_id
from harness.core.ktap import FAIL, PASS, SKIP, TODO, finish, item_names, parse

COLLECTION = "ehconf_user_events"
START = re.compile(r"^# selftests: %s: (\S+)\s*$" % COLLECTION)
END = re.compile(r"^(not ok|ok) \d+ selftests: %s: (\S+)(.*)$" % COLLECTION)
STATUS = {PASS: "pass", FAIL: "fail", SKIP: "skip", TODO: "xfail"}


def blocks(text: str) -> Dict[str, Tuple[str, str]]:
    """case -> (its own KTAP, run_kselftest.sh's verdict line)."""
    found: Dict[str, Tuple[str, str]] = {}
    case, inner = None, []
    for line in text.splitlines():
        m = START.match(line)
        if m:
            case, inner = m.group(1), []
            continue
        m = END.match(line)
        if m and case == m.group(2):
            found[case] = ("\n".join(inner) + "\n", line)
            case = None
            continue
        if case is not None:
            inner.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return found


def results_of(ktap: str, case: str) -> Dict[str, Tuple[str, str]]:
    """test -> (status, reason) of one program's KTAP, tests named as the first pass names
    them (safe_id of vm/<case>/<test>, without the prefix)."""
    rep = finish(parse(ktap), 0, False, None, ktap)
    prefix = f"vm/{case}/"
    return {safe_id(ident)[len(prefix):]: (STATUS[r.status], r.reason or "")
            for ident, r in item_names(rep.results, prefix)}


def compare(text: str, own: Dict[str, str], cases: List[str]) -> List[Tuple[str, str, str, str]]:
    """(ident, status, message, case) per test: own maps 'vm/<case>/<test>' to the first
    pass's status."""
    out = []
    got = blocks(text)
    for case in cases:
        ident = f"kselftest-install/{case}"
        mine = {k[len(f"vm/{case}/"):]: v for k, v in own.items() if k.startswith(f"vm/{case}/")}
        if case not in got:
            out.append((ident, "fail", f"run_kselftest.sh ran no {case} "
                        f"(is it in kselftest-list.txt?)", case))
            continue
        theirs = results_of(got[case][0], case)
        for test in sorted(set(mine) | set(theirs)):
            a, b = mine.get(test), theirs.get(test, (None, ""))[0]
            if a == b:
                out.append((f"{ident}/{test}", "pass", f"{b} in both passes", case))
            else:
                why = theirs.get(test, (None, ""))[1]
                out.append((f"{ident}/{test}", "fail",
                            f"run_kselftest.sh: {b or 'not reported'}"
                            + (f" ({why})" if why else "")
                            + f"; ehconf's runner: {a or 'not reported'}", case))
    return out
