# SPDX-License-Identifier: GPL-2.0
"""report.md: one VM run, rendered from the JUnit file pytest wrote when it judged the
run (make check-vm's vm.xml, a matrix column's matrix-<column>.xml).

    /usr/bin/python3 harness/reports/report_md.py build/results/vm.xml report.md

A pure formatter: every verdict is a JUnit item's outcome and reason, every number a
property the judge wrote into the file (harness/reports/junit.py; the VM runner's tables
arrive as the testsuite properties "vm.report.<name>", harness/core/results.py run_facts);
nothing is run or compared here. The behaviour rows are the items' outcomes per row of
Documentation/kernel-behaviours.md (harness/kernel/inventory.py). Sections: the run (kernel, boot and guest times), the measured delivery
limits, each row of Documentation/kernel-behaviours.md with its result on this kernel,
every case against each transport (offline capture file, perf on the kernel), each
case's tests and events per transport, the kernel's own selftests, kernel log findings,
and the failures.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Optional

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*
from harness.core.common import REPO_ROOT  # noqa: E402
from harness.kernel.case_capture import CAPTURE  # noqa: E402
from harness.kernel.inventory import load as load_inventory, rows_with_results  # noqa: E402
from harness.reports.junit import read  # noqa: E402
from harness.vm.run_vm import CONSUMERS, OFFLINE, PERF  # noqa: E402  (golden names of the registry)

MARK = {"pass": "pass", "ok": "pass", "fail": "**FAIL**", "skip": "skip", "xfail": "xfail",
        "todo": "xfail", "not run": "not run", "missing or different": "**MISSING/DIFF**",
        "dropped as declared": "dropped (declared)",
        "arrived although declared dropped": "**ARRIVED (declared dropped)**"}


def mark(v) -> str:
    if v is None or v == "":
        return "-"
    return MARK.get(str(v), str(v))


def secs(v) -> str:
    return f"{float(v):.1f} s" if isinstance(v, (int, float)) else "-"


def cell(text) -> str:
    """Text for one table cell: no '|', no line break, control characters as \\xNN."""
    t = "".join(ch if ch >= " " and ch != "\x7f" else f"\\x{ord(ch):02x}" for ch in str(text))
    return t.replace("|", "\\|")


def fmt(data: dict) -> str:
    L = []
    g = data.get("guest", {}) or {}
    vm = data.get("vm", {}) or {}
    rel = g.get("kernel_release", "?")
    perf_t = f"perf on {rel}"
    items = data.get("items", [])
    counts = Counter(i["status"] for i in items)
    L.append(f"# ehconf conformance report: {cell(rel)}\n")
    L.append(f"**{counts.get('pass', 0)} passed, {counts.get('fail', 0)} failed, "
             f"{counts.get('skip', 0)} skipped, {counts.get('xfail', 0)} known failures (xfail)** "
             f"(items of harness/vm/run_vm.py; the offline run has its own JUnit file)\n")
    if data.get("problem"):
        L.append(f"> The VM run did not complete: {data['problem']}\n")

    L.append("## Run\n")
    L.append("| | |\n|---|---|")
    L.append(f"| kernel | `{cell(data.get('kernel') or '-')}` ({cell(rel)}) |")
    L.append(f"| user_events | {'present' if g.get('user_events') else 'ABSENT' if g else '-'} |")
    L.append(f"| perf | {cell(g.get('perf_version', '-'))} |")
    L.append(f"| acceleration | {cell(vm.get('accel', '-'))}, {g.get('cpus', '-')} guest CPUs |")
    L.append(f"| kernel build/lookup | {secs(data.get('kernel_build_seconds'))} |")
    L.append(f"| boot to guest init | {secs(vm.get('boot_to_init_seconds'))} |")
    L.append(f"| guest work (guest_run.py) | {secs(data.get('guest_seconds'))} |")
    L.append(f"| whole VM run (vm/run) | {secs(data.get('vm_seconds'))} |")
    L.append("")

    L.append("## Measured kernel limits\n")
    L.append("Largest payload (bytes after the 4-byte write index) delivered, found by cases/kernel_limits.c "
             "(binary search + neighbours).\n")
    L.append(f"| consumer | measured | expected for {cell(rel)} | from cases/kernel-expectations.txt |")
    L.append("|---|---|---|---|")
    lim = data.get("limits", {})
    exp = g.get("expectations") or {}
    for c in CONSUMERS:
        e = exp.get(f"{c}_max_payload")
        row = f"since {e['since']}: {cell(e['reason'])}" if e else "-"
        L.append(f"| {c} | {lim.get(c, 'not measured')} | {e['value'] if e else 'no row'} | {row} |")
    if g.get("expectations_problem"):
        L.append(f"\n**cases/kernel-expectations.txt could not be read: "
                 f"{cell(g['expectations_problem'])}**")
    for what, text in sorted((data.get("behaviours") or {}).items()):
        L.append(f"\n{what}: {cell(text)}")
    L.append("")

    L += _behaviours(data)

    cases = data.get("cases", {})
    L.append("## Cases against each transport\n")
    L.append(f"| case | kind | offline capture | {perf_t} | tracepoints | perf steps | problem |")
    L.append("|---|---|---|---|---|---|---|")
    for name, c in sorted(cases.items()):
        gold = c.get("golden", {})
        tests = c.get("tests", {})
        off = gold.get(OFFLINE) if c.get("kind") == CAPTURE else _worst(t.get(OFFLINE) for t in tests.values())
        live = gold.get(PERF) if c.get("kind") == CAPTURE else _worst(t.get(PERF) for t in tests.values())
        steps = ", ".join(f"{k} {v:.1f}" for k, v in c.get("steps", {}).items())
        L.append(f"| {name} | {c.get('kind', '-')} | {mark(off)} | {mark(live)} | "
                 f"{len(c.get('tracepoints', []))} | {cell(steps) or '-'} | {cell(c.get('problem', '')) or '-'} |")
    L.append("\nFor capture cases the transport columns are the golden comparison of the decoded "
             "capture; for KTAP-only cases the worst KTAP result.\n")

    L.append("## Tests per case (KTAP results)\n")
    for name, c in sorted(cases.items()):
        tests = c.get("tests", {})
        if not tests:
            continue
        L.append(f"### {name}\n")
        L.append(f"| test | offline | {perf_t} |\n|---|---|---|")
        for t, v in tests.items():
            L.append(f"| {cell(t)} | {mark(v.get(OFFLINE))} | {mark(v.get(PERF))} |")
        L.append("")

    L.append("## Events per case (golden events found in each decoded capture)\n")
    L.append("One row per event name (events written several times are counted together): "
             "how many of the golden events with that name each transport delivered intact.\n")
    for name, c in sorted(cases.items()):
        ev = c.get("events", [])
        if not ev:
            continue
        L.append(f"### {name}\n")
        L.append(f"| event | golden | offline | {perf_t} |\n|---|---|---|---|")
        groups = {}
        for e in ev:
            groups.setdefault(e.get("n"), []).append(e)
        for n, es in groups.items():
            L.append(f"| {cell(n)} | {len(es)} | {_tally(es, OFFLINE)} | {_tally(es, PERF)} |")
        L.append("")

    L.append("## Kernel user_events selftests\n")
    st = data.get("selftests", {})
    if st:
        L.append("| binary | exit | pass | fail | known failures (xfail) | skip | time | failed tests |")
        L.append("|---|---|---|---|---|---|---|---|")
        for n, s in sorted(st.items()):
            L.append(f"| {n} | {s.get('exit')} | {s.get('pass')} | {s.get('fail')} | "
                     f"{cell(', '.join(s.get('known', []))) or '-'} | {s.get('skip')} | "
                     f"{secs(s.get('seconds'))} | {cell(', '.join(s.get('failed', []))) or '-'} |")
        known = [i for i in data.get("items", []) if i.get("group") == "kselftest" and i["status"] == "xfail"]
        if known:
            L.append("\nKnown failures, with the reason they fail on this kernel:\n")
            for i in known:
                L.append(f"- `{i['ident']}`: {cell((i.get('message') or '').splitlines()[0])}")
    else:
        L.append("Not run (see the failures below).")
    L.append("")

    L.append("## Kernel log\n")
    f = data.get("kernel_findings", [])
    if not f:
        L.append("No WARNING/BUG/Oops/panic lines.")
    for x in f:
        L.append(f"- {'allowed' if x.get('allowed') else '**FAIL**'}: `{cell(x.get('line', ''))}`")
    L.append("")

    bad = [i for i in items if i["status"] == "fail"]
    L.append(f"## Failures ({len(bad)})\n")
    for i in bad:
        first = (i.get("message") or "").strip().splitlines()[:3]
        L.append(f"- `{i['ident']}`: {cell(' / '.join(first))}")
    if not bad:
        L.append("None.")
    skips = [i for i in items if i["status"] == "skip"]
    if skips:
        L.append(f"\n## Skipped ({len(skips)})\n")
        for i in skips:
            L.append(f"- `{i['ident']}`: {cell(i.get('message', ''))}")
    return "\n".join(L) + "\n"


def _behaviours(data: dict):
    """Each row of Documentation/kernel-behaviours.md with its result (harness/kernel/inventory.py
    computed them): one count line, the table, then the reasons of the rows that are not
    asserted with full strength on every run."""
    L = ["## Kernel behaviours (Documentation/kernel-behaviours.md)\n"]
    inv = data.get("inventory") or []
    if not inv:
        L.append(f"Not computed: {cell(data.get('inventory_problem') or 'no inventory in the results')}\n")
        return L
    limited = [r for r in inv if r.get("reason")]
    full = [r for r in inv if r["result"] == "pass" and not r.get("reason")]
    parts = [f"**{len(full)} of {len(inv)} rows asserted and passed**"]
    passed_limited = [r["id"] for r in limited if r["result"] == "pass"]
    if passed_limited:
        parts.append(f"{', '.join(passed_limited)} passed within the limits given below")
    for result in ("fail", "xfail", "skip", "not run"):
        ids = [r["id"] for r in inv if r["result"] == result]
        if ids:
            parts.append(f"{mark(result)}: {', '.join(ids)}")
    L.append("; ".join(parts) + "\n")
    L.append("| ID | behaviour | result on this kernel | decided by |\n|---|---|---|---|")
    for r in inv:
        result = mark(r["result"]) + (" (limited, see below)" if r.get("reason") else "")
        tests = ", ".join(t["name"] + ("" if t["status"] == "pass" else f" ({mark(t['status'])})")
                          for t in r.get("tests", []))
        L.append(f"| {r['id']} | {cell(r['behaviour'])} | {result} | {cell(tests) or '-'} |")
    if limited:
        L.append("\nRows not asserted with full strength on every run:\n")
        for r in limited:
            L.append(f"- {r['id']} ({mark(r['result'])}): {cell(r['reason'])}")
    L.append("")
    return L


def _tally(events, transport: str) -> str:
    """"3/3 ok", "2/3 ok, 1 dropped (declared)", "**1/3 ok, 2 MISSING/DIFF**"..."""
    c = Counter(e.get(transport) for e in events)
    n = len(events)
    if c.get("not run") == n or not c:
        return "not run"
    parts = [f"{c.get('ok', 0)}/{n} ok"]
    for status, label in (("dropped as declared", "dropped (declared)"),
                          ("missing or different", "MISSING/DIFF"),
                          ("arrived although declared dropped", "ARRIVED though declared dropped")):
        if c.get(status):
            parts.append(f"{c[status]} {label}")
    text = ", ".join(parts)
    bad = c.get("missing or different", 0) + c.get("arrived although declared dropped", 0)
    return f"**{text}**" if bad else text


def _worst(values):
    vals = [v for v in values if v]
    for w in ("fail", "todo", "skip", "pass"):
        if w in vals:
            return w
    return None


# The item's group, from the first part of its id (run_vm's Outcome.group).
GROUP = {"kselftest-install": "kselftest", "vm-clock": "vm-golden"}
RUN_ITEMS = ("vm/boot", "vm/kernel-expectations", "vm/kernel-log")  # of no case


def load(path: str, repo: str = REPO_ROOT) -> Optional[dict]:
    """The data fmt() renders, from one JUnit file alone: the run's tables from its
    testsuite properties, the items (id, outcome, reason) from its testcases, and the
    behaviour rows from those items. None when the file does not exist."""
    suite = read(path)
    if suite is None:
        return None
    data = {}
    for k, v in suite.run("vm").items():
        if k.startswith("report."):
            data[k[len("report."):]] = json.loads(v)
    items = []
    for i in suite.items:
        first = i.ident.split("/")[0]
        case = i.ident.split("/")[1] if first == "vm" and i.ident not in RUN_ITEMS else ""
        items.append({"ident": i.ident, "status": i.outcome, "message": i.message,
                      "group": GROUP.get(first, first), "case": case})
    data["items"] = items
    try:
        data["inventory"] = rows_with_results(*load_inventory(repo), items)
    except (OSError, ValueError) as e:
        data["inventory"], data["inventory_problem"] = [], str(e)
    return data


def main(argv) -> int:
    if len(argv) != 3:
        print("usage: report_md.py JUNIT.xml REPORT.md", file=sys.stderr)
        return 2
    try:
        data = load(argv[1])
    except (OSError, ValueError) as e:
        print(f"report_md.py: {argv[1]}: {e}", file=sys.stderr)
        return 1
    if data is None:
        print(f"report_md.py: {argv[1]}: no such JUnit file (the VM run was not judged)",
              file=sys.stderr)
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(fmt(data))
    print(f"report_md.py: wrote {argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
