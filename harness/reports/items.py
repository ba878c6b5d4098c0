#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The items a report was rendered from, listed in the report itself, and the check that
they are the JUnit files' items with the same outcomes.

    harness/reports/items.py check REPORT.md JUNIT_PREFIX [--run NAME...]

A report (impls.md) ends with a section "## Every item": one block per JUnit file,
`[<name>]`, then `<outcome> <item id>` per line (outcome: pass, fail, skip, xfail).
`check` reads <JUNIT_PREFIX>-<name>.xml for each block and fails (exit 1, one line per
difference) when an item is missing from either side or has another outcome there. A
block of an implementation of this run (--run) must have its JUnit file; an earlier run's
may have none (then it is a note).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Tuple

SECTION = "## Every item"
# A JUnit testcase's name is its item id (results_plugin.judge); the older form
# test_results[<id>] is read too, for files an earlier run left.
CASE_NAME = re.compile(r"^(?:test_results\[(.*)\]|([^\[\]]+))$")


def section(blocks: List[Tuple[str, List[Tuple[str, str]]]]) -> List[str]:
    """The report's last section from (JUnit name, [(outcome, item id)]) blocks."""
    n = sum(len(items) for _, items in blocks)
    out = [SECTION, "",
           "The outcome of every item this report was rendered from, per JUnit file "
           "(`harness/reports/items.py check` holds them to the JUnit files).", "",
           f"<details><summary>{n} items</summary>", "", "```"]
    for name, items in blocks:
        out.append(f"[{name}]")
        out += [f"{o} {i}" for o, i in items]
    return out + ["```", "", "</details>", ""]


def read_section(text: str) -> Dict[str, Dict[str, str]]:
    """{name: {item id: outcome}} from a report's last section."""
    blocks: Dict[str, Dict[str, str]] = {}
    if SECTION not in text:
        raise ValueError(f"no section {SECTION!r}")
    body = text.split(SECTION, 1)[1]
    if "```" not in body:
        raise ValueError(f"{SECTION}: no block")
    body = body.split("```", 2)[1]
    cur = None
    for line in body.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^\[(.+)\]$", line)
        if m:
            cur = blocks.setdefault(m.group(1), {})
        elif cur is not None and " " in line:
            outcome, ident = line.split(" ", 1)
            cur[ident] = outcome
        else:
            raise ValueError(f"{SECTION}: unreadable line {line!r}")
    return blocks


def read_junit(path: str) -> Dict[str, str]:
    """{item id: outcome} of a JUnit file pytest wrote for harness/judge_items.py."""
    out: Dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        m = CASE_NAME.match(case.get("name", ""))
        if not m:
            continue
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "fail"
        else:
            skipped = case.find("skipped")
            if skipped is None:
                outcome = "pass"
            else:
                outcome = "xfail" if skipped.get("type") == "pytest.xfail" else "skip"
        out[m.group(1) or m.group(2)] = outcome
    return out


def disagreements(name: str, report: Dict[str, str], junit: Dict[str, str]) -> List[str]:
    out = []
    for ident in sorted(set(report) | set(junit)):
        r, j = report.get(ident), junit.get(ident)
        if r == j:
            continue
        if r is None:
            out.append(f"{name}: {ident}: {j} in JUnit, not in the report")
        elif j is None:
            out.append(f"{name}: {ident}: {r} in the report, not in JUnit")
        else:
            out.append(f"{name}: {ident}: {r} in the report, {j} in JUnit")
    return out


def check(report_path: str, prefix: str, run: List[str]) -> Tuple[List[str], List[str]]:
    """(disagreements, notes) between a report and the JUnit files."""
    with open(report_path, encoding="utf-8") as f:
        blocks = read_section(f.read())
    problems, notes = [], []
    for name in run:
        if name not in blocks:
            problems.append(f"{name}: ran, but the report has no items of it")
    for name, items in blocks.items():
        path = f"{prefix}-{name}.xml"
        if not os.path.exists(path):
            (problems if name in run else notes).append(f"{name}: no JUnit file {path}")
            continue
        problems += disagreements(name, items, read_junit(path))
    return problems, notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("check",))
    ap.add_argument("report")
    ap.add_argument("junit_prefix")
    ap.add_argument("--run", nargs="*", default=[])
    args = ap.parse_args(argv)
    try:
        problems, notes = check(args.report, args.junit_prefix, args.run)
    except (OSError, ValueError, ET.ParseError) as e:
        print(f"report-items: {args.report}: {e}", file=sys.stderr)
        return 1
    for line in notes:
        print(f"report-items: note: {line}")
    for line in problems[:50]:
        print(f"report-items: DISAGREE: {line}")
    print(f"report-items: {args.report} against {args.junit_prefix}-*.xml: "
          f"{len(problems)} disagreement(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
