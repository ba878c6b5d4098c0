# SPDX-License-Identifier: GPL-2.0
"""The kernel behaviour inventory, Documentation/kernel-behaviours.md, as data.

One job: read the document's tables (rows K01..K55 with behaviour, since and the case
that decides each) and its "Rows not asserted on every run" reasons, and tell, from the
VM run's items, what each row's result was on the kernel that ran.

A kernel case test names the rows it asserts at the start of its name:
"K10_K11_same_format_shares_the_event" asserts K10 and K11. The test name is the part of
the KTAP name after the last "." ("global.K13_x" -> "K13_x").

Pure functions only: harness/vm/run_vm.py calls rows_with_results() on its items, and
harness/reports/report_md.py prints what it returned from vm-results.json.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Tuple

DOC = os.path.join("Documentation", "kernel-behaviours.md")
HEADER = ["ID", "behaviour", "since", "case"]
NOT_ASSERTED = "Rows not asserted on every run"
ID_RE = re.compile(r"K\d\d")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_REASON_RE = re.compile(r"^- (K\d\d):\s*(.*)$")


@dataclass
class Row:
    id: str
    behaviour: str
    since: str
    case: str  # as written: one case, or several joined by ", "
    area: str  # the "## " heading the row's table is under

    @property
    def cases(self) -> List[str]:
        return [c.strip() for c in self.case.split(",") if c.strip()]


def _cells(line: str) -> List[str]:
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(line.strip())[1:-1]]


def parse(text: str, where: str = DOC) -> Tuple[List[Row], Dict[str, str]]:
    """(rows in document order, {id: reason not asserted on every run}).
    A malformed table row is a ValueError naming its line: a row silently dropped would
    look like a row nobody has to test."""
    rows: List[Row] = []
    reasons: Dict[str, str] = {}
    area, in_table, last_reason = "", False, None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            area, in_table, last_reason = line[3:].strip(), False, None
            continue
        if not line.startswith("|"):
            in_table = False
            if area == NOT_ASSERTED:
                m = _REASON_RE.match(line)
                if m:
                    last_reason = m.group(1)
                    reasons[last_reason] = m.group(2).strip()
                elif line.startswith((" ", "\t")) and line.strip() and last_reason:
                    reasons[last_reason] += " " + line.strip()  # a wrapped bullet
                elif line.strip():
                    last_reason = None
            continue
        cells = _cells(line)
        if cells == HEADER:
            in_table = True
            continue
        if not in_table or set("".join(cells)) <= set("-: "):
            continue  # the |---| line, or a table that is not an inventory table
        if len(cells) != len(HEADER) or not ID_RE.fullmatch(cells[0]):
            raise ValueError(f"{where}:{n}: expected | ID | behaviour | since | case |, got {line!r}")
        rows.append(Row(cells[0], cells[1], cells[2], cells[3], area))
    return rows, reasons


def load(repo: str) -> Tuple[List[Row], Dict[str, str]]:
    path = os.path.join(repo, DOC)
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), DOC)


def case_test_name(ident: str) -> str:
    """'vm/kernel_write/global.K29_x#2' -> 'K29_x': the last path part without the
    duplicate counter item_names() adds, after the last '.'."""
    last = re.sub(r"#\d+$", "", ident.rsplit("/", 1)[-1])
    return last.rsplit(".", 1)[-1]


def _display(ident: str) -> str:
    """'vm/kernel_write/global.K29_x' -> 'kernel_write/K29_x' (a case item stays 'kernel_write')."""
    case, _, rest = ident[len("vm/"):].partition("/")
    return f"{case}/{case_test_name(ident)}" if rest else case


def ids_of(name: str) -> List[str]:
    """The IDs a test name starts with: 'K10_K11_same_format' -> ['K10', 'K11']."""
    ids = []
    for part in name.split("_"):
        if not ID_RE.fullmatch(part):
            break
        ids.append(part)
    return ids


def combine(statuses: List[str]) -> str:
    """One row's result from the statuses of the tests that decide it: a failure anywhere
    fails the row; it passes only if every test ran and passed."""
    if not statuses:
        return "not run"
    if "fail" in statuses:
        return "fail"
    if "xfail" in statuses:
        return "xfail"
    if all(s == "pass" for s in statuses):
        return "pass"
    return "skip"  # all skipped, or some: the row was not fully asserted


def rows_with_results(rows: List[Row], reasons: Dict[str, str], items: List[dict]) -> List[dict]:
    """Per row: id, behaviour, since, case, result, tests [{ident, name, status}], reason.
    items are the VM run's items as dicts (ident, status, case). A case that produced no
    test lines at all (skipped on a kernel without user_events, or never run) has one item
    "vm/<case>": it decides the rows of that case that no test named."""
    by_id: Dict[str, List[dict]] = {}
    case_items: Dict[str, dict] = {}
    for it in items:
        ident = it["ident"]
        if not ident.startswith("vm/"):
            continue
        if ident == f"vm/{it.get('case')}":
            case_items[it["case"]] = it
            continue
        for i in ids_of(case_test_name(ident)):
            by_id.setdefault(i, []).append(it)
    out = []
    for r in rows:
        deciding = by_id.get(r.id) or [case_items[c] for c in r.cases if c in case_items]
        out.append({"id": r.id, "behaviour": r.behaviour, "since": r.since, "case": r.case,
                    "result": combine([t["status"] for t in deciding]),
                    "tests": [{"ident": t["ident"], "name": _display(t["ident"]),
                               "status": t["status"]} for t in deciding],
                    "reason": reasons.get(r.id, "")})
    return out
