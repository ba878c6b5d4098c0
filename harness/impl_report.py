#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""impls.md: the implementations side by side, from the results of `make check-impl`
(<results>/impl-<name>/summary.json, written by harness/run_impl.py, and
<results>/impl-vm/<name>/summary.json, harness/run_impl_vm.py).

    harness/impl_report.py RESULTS OUT.md

Per implementation and case: golden events reproduced, left out (by reason), declared
different, failed, and whether the perf capture on the real kernel matched too; then the
contract rows (Documentation/impl-contract.md), implementations side by side. Every
difference, declared or not, is listed in bold at the top. The
golden comparison is judged again here with the harness's own judge (cases.golden_problem),
so the report never disagrees with the JUnit items."""

from __future__ import annotations

import json
import os
import sys
from typing import List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cases import golden_problem  # noqa: E402
from contract_rows import ROWS  # noqa: E402
from impls import read_profile, read_registry  # noqa: E402
from results import read_summary, runner_dir  # noqa: E402
from run_impl import folder_of  # noqa: E402


def _vm(results: str, name: str) -> dict:
    """The implementation's VM summary, or {} when the VM half did not run."""
    try:
        return read_summary(runner_dir(results, "impl-vm", name))
    except (OSError, ValueError):
        return {}


def _vm_case(results: str, name: str, vm: dict, case: str) -> str:
    """The real-kernel column: `same`, `not run` or the first line of what differs."""
    entries = [e for e in vm.get("entries", []) if e.get("id", "").startswith(
        f"impl-vm/{name}/{case}")]
    if not entries:
        return "not run"
    bad = [e.get("message", "") for e in entries if e.get("status") == "fail"]
    for e in entries:
        if e.get("kind") == "golden":
            why = _judge(runner_dir(results, "impl-vm", name), e)
            bad += [why] if why else []
    return "**" + bad[0].splitlines()[0][:120] + "**" if bad else "same"


def _kernel(results: str) -> str:
    try:
        with open(os.path.join(runner_dir(results, "impl-vm", ""), "guest-impl.json"),
                  encoding="utf-8") as f:
            return f" ({json.load(f)['guest']['kernel_release']})"
    except (OSError, ValueError, KeyError):
        return ""


def contract_table(results: str, impls, differences: list) -> List[str]:
    """The contract rows, one column per implementation that ran them."""
    seen = {i.name: (_vm(results, i.name).get("contract") or {}) for i in impls}
    names = [n for n, c in seen.items() if c]
    if not names:
        return ["Not run (`make check-impl` with the VM: IMPL_VM=1).", ""]
    profiles = {i.name: read_profile(i) for i in impls if i.name in names}
    out = ["| row | behaviour | promised | " + " | ".join(names) + " |",
           "|---|---|---|" + "---|" * len(names)]
    for row in ROWS:
        cells = []
        for n in names:
            got = (seen[n].get(row.name) or {}).get("observed", "not run")
            if got == row.promise:
                cells.append(got)
                continue
            cells.append(f"**{got}**")
            declared = profiles[n].contract.get(row.name)
            if declared and declared[0] == got:
                differences.append(f"- **{n}: contract {row.name}: {got}** (promised "
                                   f"{row.promise}; declared): {declared[1]}")
            else:
                differences.append(f"- **{n}: contract {row.name}: {got}** (promised "
                                   f"{row.promise}; NOT declared: a failure)")
        out.append(f"| {row.name} | {row.behaviours} | {row.promise} | " + " | ".join(cells) + " |")
    return out + ["", "Each row: " + "; ".join(f"{r.name}: {r.what}" for r in ROWS) + ".", ""]


def _judge(folder: str, entry: dict) -> str:
    with open(os.path.join(folder, entry["decoded"]), encoding="utf-8",
              errors="surrogateescape") as f:
        text = f.read()
    if entry.get("problem"):
        return entry["problem"]
    return golden_problem(text, entry["golden"], entry["case"], entry["transport"],
                          entry["decoded"])


def report(results: str) -> str:
    rows, differences, notes = [], [], []
    impls = read_registry()
    for impl in impls:
        folder = folder_of(results, impl.name)
        vm = _vm(results, impl.name)
        try:
            data = read_summary(folder)
        except (OSError, ValueError):
            notes.append(f"- {impl.name}: not run (`make check-impl IMPL={impl.name}`)")
            continue
        entries = data["entries"]
        skipped_build = [e for e in entries if e.get("id", "").endswith("/build")
                         and e.get("status") in ("skip", "fail")]
        for e in skipped_build:
            notes.append(f"- {impl.name}: {e['status'].upper()}: {e['message']}")
        for case, c in sorted((data.get("counts") or {}).items()):
            golden = [e for e in entries if e.get("kind") == "golden" and e["case"] == case]
            problem = "; ".join(filter(None, (_judge(folder, e) for e in golden)))
            reproduced = 0 if problem else c["reproduced"]
            left_out = sum(c["skipped"].values())
            rows.append(f"| {impl.name} | {case} | {c['events']} | {reproduced} | {left_out} | "
                        f"{len(c['declared'])} | {len(c['failed']) + (1 if problem else 0)} | "
                        f"{_vm_case(results, impl.name, vm, case)} |")
            for why in c["declared"]:
                differences.append(f"- **{impl.name}: {why}** (declared)")
            for why in c["failed"]:
                differences.append(f"- **{impl.name}: {why}** (NOT declared: a failure)")
            if problem:
                differences.append(f"- **{impl.name}: {case}: decoded events differ from "
                                   f"golden** (NOT declared): {problem.splitlines()[0]}")
            for why, n in sorted(c["skipped"].items()):
                notes.append(f"- {impl.name}, {case}: {n} event(s) left out: {why}")
        if vm.get("entries") and vm["entries"][0].get("status") == "fail":
            notes.append(f"- {impl.name}: the VM half failed: {vm['entries'][0]['message']}")
    contract = contract_table(results, impls, differences)
    out = ["# Implementations side by side", "",
           "Offline under the user_events stand-in, then on the real kernel in QEMU under perf "
           "(`make check-impl`).", ""]
    out += ["## Differences", ""] + (differences or ["None."]) + [""]
    out += ["## Events per case", "",
            "| implementation | case | golden events | reproduced | left out | declared "
            "different | failed | real kernel, perf |", "|---|---|---|---|---|---|---|---|"]
    out += rows + [""]
    out += ["## The library-kernel contract on the real kernel" + _kernel(results),
            "", "Documentation/impl-contract.md; bold: not what the contract promises.", ""]
    out += contract
    if notes:
        out += ["## Not run, left out", ""] + notes + [""]
    return "\n".join(out)


def main(argv) -> int:
    if len(argv) != 3:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    text = report(argv[1])
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(text)
    print(f"impl-report: wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
