# SPDX-License-Identifier: GPL-2.0
"""Formats the VM results of several kernels side by side (make check-matrix), on each
guest architecture of MATRIX_ARCHES (a column per kernel and architecture).

    /usr/bin/python3 harness/reports/matrix_md.py matrix.md 6.12=build/results/matrix-6.12.xml ...

Each argument after the output file is LABEL=PATH of one kernel's JUnit file (pytest's
judgement of that column's VM run). A pure formatter like report_md.py, which reads each
file (harness/reports/report_md.py load()): every verdict comes from those files. Sections: the kernels (release, counts), the differences between kernels
(every item, kernel-behaviour row or measured limit whose result is not the same on all
kernels), then the full tables: measured limits with each kernel's expectation, the rows
of Documentation/kernel-behaviours.md, and every item (case test, golden comparison,
limit, selftest). A kernel whose results file is missing or unreadable is a column of
"no results" and makes the exit status 1.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*
from harness.reports.report_md import cell, load as load_junit, mark  # noqa: E402  (one formatting of statuses and cells)
from harness.vm.run_vm import CONSUMERS  # noqa: E402  (consumers whose limits kernel_limits measures)

NO_RESULTS = "no results"


def load(arg: str) -> Tuple[str, Optional[dict], str]:
    """(label, data or None, problem) for one LABEL=PATH argument."""
    label, sep, path = arg.partition("=")
    if not sep:
        label, path = os.path.basename(os.path.dirname(arg)) or arg, arg
    try:
        data = load_junit(path)
    except (OSError, ValueError) as e:
        return label, None, f"{path}: {e}"
    return (label, data, "") if data is not None else (label, None, f"{path}: no such file")


ABSENT = "absent"


def row_cells(values: List[str], arches: Optional[List[str]] = None) -> Tuple[List[str], bool]:
    """The cells of one row and whether the kernels that have results differ (then every
    cell is bold); a kernel without results is reported once, not as a difference per row.
    An item absent from a column is a difference only against a column of the same
    architecture: some items exist on one architecture alone (the installed kselftest
    pass on x86_64, the host's decoding of a foreign guest's captures)."""
    arches = arches or [""] * len(values)
    present = {a for v, a in zip(values, arches) if v not in (NO_RESULTS, ABSENT)}
    seen = {v for v, a in zip(values, arches)
            if v != NO_RESULTS and (v != ABSENT or a in present)}
    differs = len(seen) > 1
    return [f"**{v}**" if differs else v for v in values], differs


def limits_of(d: Optional[dict]) -> Dict[str, str]:
    if d is None:
        return {c: NO_RESULTS for c in CONSUMERS}
    exp = (d.get("guest") or {}).get("expectations") or {}
    out = {}
    for c in CONSUMERS:
        got = (d.get("limits") or {}).get(c)
        e = exp.get(f"{c}_max_payload")
        out[c] = (f"{got if got is not None else 'not measured'}"
                  f" (expected {e['value'] if e else 'no row'})")
    return out


def architecture(d: dict) -> str:
    """The guest's architecture (vm/run's kernel_arch in vm.json); results from before
    there was a choice are x86_64's."""
    return cell((d.get("vm") or {}).get("kernel_arch") or "x86_64")


def fmt(kernels: List[Tuple[str, Optional[dict], str]]) -> str:
    labels = [k for k, _d, _p in kernels]
    head = "| | " + " | ".join(labels) + " |\n|---|" + "---|" * len(labels)
    L = ["# ehconf kernel matrix (make check-matrix)\n"]

    L.append("## Kernels\n")
    L.append(head)
    rel, arches, counts = [], [], []
    for _k, d, p in kernels:
        if d is None:
            rel.append(NO_RESULTS)
            arches.append(NO_RESULTS)
            counts.append(cell(p))
            continue
        arches.append(architecture(d))
        c = Counter(i["status"] for i in d.get("items", []))
        rel.append(f"`{cell((d.get('guest') or {}).get('kernel_release', '?'))}`")
        counts.append(f"{c.get('pass', 0)} passed, {c.get('fail', 0)} failed, "
                      f"{c.get('skip', 0)} skipped, {c.get('xfail', 0)} xfail")
    L.append("| release | " + " | ".join(rel) + " |")
    L.append("| architecture | " + " | ".join(arches) + " |")
    L.append("| items | " + " | ".join(counts) + " |")
    L.append("")

    arch_of = [architecture(d) if d is not None else NO_RESULTS for _k, d, _p in kernels]
    limits = [limits_of(d) for _k, d, _p in kernels]
    beh = [{r["id"]: r for r in (d or {}).get("inventory") or []} for _k, d, _p in kernels]
    items = [{i["ident"]: i for i in (d or {}).get("items") or []} for _k, d, _p in kernels]
    ids = sorted(set().union(*beh)) if beh else []
    idents = sorted(set().union(*items)) if items else []

    def beh_value(n: int, rid: str) -> str:
        if kernels[n][1] is None:
            return NO_RESULTS
        r = beh[n].get(rid)
        return mark(r["result"]) if r else "not in inventory"

    def item_value(n: int, ident: str) -> str:
        if kernels[n][1] is None:
            return NO_RESULTS
        i = items[n].get(ident)
        return mark(i["status"]) if i else ABSENT

    tables: List[str] = []
    diffs: List[str] = []

    def section(title: str, rows) -> None:
        """One table of (row label, difference label, values per kernel); every row whose
        kernels differ is also listed under the differences."""
        tables.extend([title, head])
        for label, what, values in rows:
            cells, differs = row_cells(values, arch_of)
            tables.append(f"| {label} | " + " | ".join(cells) + " |")
            if differs:
                diffs.append(f"- {what}: " + ", ".join(f"{k} {v}" for k, v in zip(labels, values)))
        tables.append("")

    section("## Measured limits\n",
            ((f"{c} max payload", f"limit {c}", [lim[c] for lim in limits]) for c in CONSUMERS))
    section("## Kernel behaviours (Documentation/kernel-behaviours.md)\n",
            ((f"{rid} {cell(next((b[rid]['behaviour'] for b in beh if rid in b), '')[:70])}", rid,
              [beh_value(n, rid) for n in range(len(kernels))]) for rid in ids))
    section("## Every item (case tests, golden comparisons, limits, selftests)\n",
            ((f"`{cell(i)}`", f"`{cell(i)}`", [item_value(n, i) for n in range(len(kernels))])
             for i in idents))

    L.append(f"## Differences between kernels ({len(diffs)})\n")
    L += diffs or ["None: every item, behaviour and limit has the same result on every kernel."]
    L.append("")
    return "\n".join(L + tables) + "\n"


def main(argv: List[str]) -> int:
    if len(argv) < 3:
        print("usage: matrix_md.py MATRIX.md LABEL=JUNIT.xml...", file=sys.stderr)
        return 2
    kernels = [load(a) for a in argv[2:]]
    with open(argv[1], "w", encoding="utf-8") as f:
        f.write(fmt(kernels))
    missing = [f"{k}: {p}" for k, d, p in kernels if d is None]
    for m in missing:
        print(f"matrix_md.py: no results for {m}", file=sys.stderr)
    print(f"matrix_md.py: wrote {argv[1]} ({len(kernels)} kernels)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
