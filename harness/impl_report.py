#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""impls.md: the implementations side by side, from the results of `make check-impl`
(<results>/impl-<name>/summary.json, written by harness/run_impl.py).

    harness/impl_report.py RESULTS OUT.md

Per implementation and case: golden events reproduced, left out (by reason), declared
different, failed. Every difference, declared or not, is listed in bold at the top. The
golden comparison is judged again here with the harness's own judge (cases.golden_problem),
so the report never disagrees with the JUnit items."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cases import golden_problem  # noqa: E402
from impls import read_registry  # noqa: E402
from results import read_summary  # noqa: E402
from run_impl import folder_of  # noqa: E402


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
    for impl in read_registry():
        folder = folder_of(results, impl.name)
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
                        f"{len(c['declared'])} | {len(c['failed']) + (1 if problem else 0)} |")
            for why in c["declared"]:
                differences.append(f"- **{impl.name}: {why}** (declared)")
            for why in c["failed"]:
                differences.append(f"- **{impl.name}: {why}** (NOT declared: a failure)")
            if problem:
                differences.append(f"- **{impl.name}: {case}: decoded events differ from "
                                   f"golden** (NOT declared): {problem.splitlines()[0]}")
            for why, n in sorted(c["skipped"].items()):
                notes.append(f"- {impl.name}, {case}: {n} event(s) left out: {why}")
    out = ["# Implementations side by side (offline, user_events stand-in)", ""]
    out += ["## Differences", ""] + (differences or ["None."]) + [""]
    out += ["## Events per case", "",
            "| implementation | case | golden events | reproduced | left out | declared "
            "different | failed |", "|---|---|---|---|---|---|---|"] + rows + [""]
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
