#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""impls.md: the implementations side by side, rendered from the JUnit files `make
check-impl` wrote (<JUNIT_PREFIX>-<name>.xml, one per implementation, its offline and
real-kernel items): every verdict, reason and fact below is read back from them
(harness/reports/junit.py), nothing is judged here.

    harness/reports/impls_md.py JUNIT_PREFIX OUT.md [--run NAME...] [--vm 0|1] [--bench FILE]

--run: the implementations of this run; every other one with a JUnit file left is shown
as an earlier run, labelled with its checkout, commit and time, never as current.
--vm: whether this run had the real-kernel half (the impl-vm items), as make's IMPL_VM.
--bench: make bench-impls' bench-impls.json, for the cost per event (figures, not
verdicts; "not measured" without it).

Sections: the runs; where each implementation's expected events come from (documented,
upstream test, source only, current behaviour: harness/core/provenance.py's counts of the
provenance files); every difference (each failed or expected-failure item) in bold; per
implementation and case the golden events reproduced, left out, declared different and
failed, counted per event, with the real kernel's verdict; the contract rows side by side
(the promise of the kernel they ran on); what was not run; and last every item with its
outcome."""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.impl.bench_figures import cost_cell  # noqa: E402
from harness.impl.contract_rows import ROWS, promise_for  # noqa: E402
from harness.kernel.expectations import for_kernel  # noqa: E402
from harness.impl.registry import read_registry  # noqa: E402
from harness.core.provenance import KINDS, ProvenanceError, read_family  # noqa: E402
from harness.reports.items import section  # noqa: E402
from harness.reports.junit import Item, read  # noqa: E402


@dataclass
class ImplRun:
    name: str  # the registry row's, or <row>@<version> for another version a row pins
    current: bool
    offline: dict = field(default_factory=dict)  # the offline run's testsuite properties
    vm: dict = field(default_factory=dict)  # the real-kernel run's
    judged: List[Item] = field(default_factory=list)
    row: str = ""  # the registry row
    version: str = ""  # a crate-registry producer's release

    def under(self, prefix: str) -> List[Item]:
        return [j for j in self.judged if j.ident == prefix or j.ident.startswith(prefix + "/")]


def gather(prefix: str, run: List[str]) -> List[ImplRun]:
    """Every implementation of the registry with a JUnit file: those of this run, and
    earlier ones; one of this run without its file is a note (notes())."""
    out = []
    for impl in read_registry():
        pinned = impl.crate.partition("@")[2].split(",") if impl.crate != "-" else [""]
        # the row's own version is its plain file; every other one, pinned or not, is
        # <prefix>-<row>@<version>.xml (make check-impl VERSION=...)
        others = sorted((p[len(f"{prefix}-{impl.name}@"):-len(".xml")]
                         for p in glob.glob(f"{glob.escape(prefix)}-{glob.escape(impl.name)}@*.xml")),
                        key=version_key)
        for version, name in [(pinned[0], impl.name)] + [(v, f"{impl.name}@{v}") for v in others]:
            suite = read(f"{prefix}-{name}.xml")
            if suite is None:
                continue
            out.append(ImplRun(name, impl.name in run, suite.run("impl"), suite.run("impl-vm"),
                               suite.items, impl.name, version))
    return out


def version_key(v: str):
    """1.10.0 after 1.9.0: a release's numbers compared as numbers."""
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.+-]", v))


def _when(r: ImplRun) -> str:
    return "this run" if r.current else "**earlier run**"


def bench_results(path: str) -> Optional[dict]:
    """make bench-impls' figures (harness/impl/bench.py), None when it has not run."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def runs_table(runs: List[ImplRun], bench: Optional[dict] = None) -> List[str]:
    """One row per implementation; its last column the cost of an event, from make
    bench-impls (figures, not verdicts: Documentation/performance.md)."""
    out = ["| implementation | run | checkout | commit | offline finished | real kernel | "
           "cost per event (make bench-impls) |",
           "|---|---|---|---|---|---|---|"]
    for r in runs:
        vm = (f"{r.vm.get('kernel') or '?'}, {r.vm.get('finished', '?')}" if r.vm
              else "not run")
        out.append(f"| {r.name} | {_when(r)} | {r.offline.get('checkout') or '-'} | "
                   f"{r.offline.get('commit') or '-'} | {r.offline.get('finished', 'not run')} "
                   f"| {vm} | {cost_cell(bench, r.name)} |")
    return out + [""]


SHORT = {"doc": "documented", "test": "upstream test", "source": "source only",
         "current": "current behaviour"}


def _kinds_cell(counts: dict) -> str:
    return " / ".join(str(counts[k]) for k in KINDS)


def provenance_table(root: Optional[str] = None) -> List[str]:
    """Per implementation, where its expected events come from, counted from the
    provenance files (descriptions/provenance.txt for the cases,
    impl/<name>/inputs/provenance.txt for a producer's own inputs; harness/core/provenance.py).
    An event counts as the weakest of its own line and the parts every event of its
    family shares; the last columns give its own lines alone and those shared parts."""
    out = ["| implementation | inputs | expected events | documented | upstream test | "
           "source only | of which current behaviour | own lines alone (doc / test / "
           "source / current) | parts every event shares |",
           "|---|---|---|---|---|---|---|---|---|"]
    fams: dict = {}
    for impl in read_registry():
        fam = impl.family
        if fam not in fams:
            try:
                fams[fam] = read_family(fam, root) if root else read_family(fam)
            except ProvenanceError as e:
                fams[fam] = e
        f = fams[fam]
        if isinstance(f, ProvenanceError):
            first = f.problems[0].replace("|", "\\|")
            out.append(f"| {impl.name} | {fam} | **provenance unreadable: {first}** "
                       "| | | | | | |")
            continue
        c = f.counts()
        shared = ", ".join(f"{n} {SHORT[k]}" for k in KINDS
                           for n in [sum(1 for s in f.common if s.kind == k)] if n)
        shared = f"{shared} ({f.path})" if shared else "-"
        out.append(f"| {impl.name} | {fam} | {sum(c.values())} | {c['doc']} | {c['test']} | "
                   f"{c['source'] + c['current']} | {c['current']} | "
                   f"{_kinds_cell(f.counts(own_only=True))} | {shared} |")
    return out + ["", "Documented: a line of the producer's documentation (for the cases: the "
                  "EventHeader format's definition) promises it; upstream test: a test of the "
                  "producer asserts it; source only: nothing but the producer's source says "
                  "so; current behaviour: merely what the producer does today, not a promise. "
                  "An event counts as the weakest of its parts.", ""]


def differences(runs: List[ImplRun]) -> List[str]:
    out = []
    for r in runs:
        tag = "" if r.current else " (earlier run)"
        for j in r.judged:
            if j.outcome == "fail":
                out.append(f"- **{r.name}: {j.ident}** (FAILED{tag}): {j.first}")
            elif j.outcome == "xfail":
                out.append(f"- **{r.name}: {j.ident}** (declared{tag}): {j.first}")
    return out or ["None."]


EVENT_ITEM = re.compile(r"/(\d+)$")


def _golden(j: Item) -> Tuple[int, int]:
    """(failed events, expected events) of a golden item, as its judge recorded them;
    -1 when unknown (nothing decoded, or not a golden item)."""
    if j.outcome == "pass":
        return 0, -1
    return j.fact("failed_events"), j.fact("expected_events")


def _vm_cell(r: ImplRun, case: str) -> str:
    if not r.vm:
        return "not run"
    mine = r.under(f"impl-vm/{r.name}/{case}")
    if not mine:
        return "not run"
    bad = [j for j in mine if j.outcome == "fail"]
    if bad:
        failed, expected = _golden(bad[0])
        count = f"{failed} of {expected} events failed: " if failed > 0 else ""
        return f"**FAILED: {count}{bad[0].first[:120]}**"
    return "same"


def _cases(r: ImplRun):
    """(case, the item carrying its counts) in case order: the item whose facts say how
    many golden events the case has (harness/impl/run_impl.py _case_facts)."""
    cases = {}
    for j in r.judged:
        if "events" in j.facts and j.ident.startswith(f"impl/{r.name}/"):
            case = j.ident[len(f"impl/{r.name}/"):].split("/")[0]
            cases.setdefault(case, j)
    return sorted(cases.items())


def case_rows(runs: List[ImplRun]) -> List[str]:
    out = ["| implementation | case | golden events | reproduced | left out | declared "
           "different | failed | offline | real kernel, perf |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for case, c in _cases(r):
            mine = r.under(f"impl/{r.name}/{case}")
            declared = sum(1 for j in mine if j.outcome == "xfail"
                           and EVENT_ITEM.search(j.ident))
            refused = sum(1 for j in mine if j.outcome == "fail"
                          and EVENT_ITEM.search(j.ident))
            judged = c.fact("compared", 0)
            failed_events = 0
            verdict = "pass"
            for j in mine:
                if j.outcome == "fail":
                    verdict = "**FAILED**"
                if "expected_events" in j.facts and j.outcome == "fail":
                    n, _ = _golden(j)
                    failed_events = judged if n < 0 else min(n, judged)
            if any(j.outcome == "fail" and "expected_events" not in j.facts
                   and j.ident == f"impl/{r.name}/{case}" for j in mine):
                failed_events = judged = 0  # the case did not run at all
            left_out = c.fact("left_out", 0)
            name = r.name if r.current else f"{r.name} (earlier run)"
            out.append(f"| {name} | {case} | {c.fact('events', 0)} | {judged - failed_events} | "
                       f"{left_out} | {declared} | {failed_events + refused} | {verdict} | "
                       f"{_vm_cell(r, case)} |")
    return out + [""]


def _kernel(runs: List[ImplRun]) -> str:
    for r in runs:
        if r.current and r.vm.get("kernel"):
            return r.vm["kernel"]
    return ""


def contract_table(runs: List[ImplRun]) -> List[str]:
    """The contract rows, one column per implementation whose real-kernel half ran; a
    cell is plain when its item passed, bold with (declared) or FAILED otherwise."""
    cols = [r for r in runs if any("/contract/" in j.ident for j in r.judged)]
    if not cols:
        return ["Not run (`make check-impl` with the VM: IMPL_VM=1).", ""]
    kernel = _kernel(runs)
    expectations = {w: e.value for w, e in for_kernel(kernel).items()} if kernel else {}
    out = ["| row | behaviour | promised | " + " | ".join(
        r.name if r.current else f"{r.name} (earlier run)" for r in cols) + " |",
        "|---|---|---|" + "---|" * len(cols)]
    for row in ROWS:
        cells = []
        for r in cols:
            j = {x.ident: x for x in r.judged}.get(f"impl-vm/{r.name}/contract/{row.name}")
            got = j.facts.get("observed", "not run") if j else "not run"
            status = j.outcome if j else "not run"
            cells.append(got if status == "pass" else f"**{got}** (declared)"
                         if status == "xfail" else f"**{got}** ({status.upper()})")
        out.append(f"| {row.name} | {row.behaviours} | {promise_for(row, expectations)} | "
                   + " | ".join(cells) + " |")
    return out + ["", "Each row: " + "; ".join(f"{r.name}: {r.what}" for r in ROWS) + ".", ""]


def _relative(r: ImplRun, ident: str) -> str:
    """An item's id under its row's name, without the version: the same check on every
    version."""
    for kind in ("impl", "impl-vm"):
        if ident.startswith(f"{kind}/{r.name}/"):
            return f"{kind}/{r.row}/{ident[len(kind) + len(r.name) + 2:]}"
    return ident


def _finding_status(cells: List[str], versions: List[str]) -> str:
    """What the versions say of one item that is not a plain pass on all of them."""
    if "fail" in cells:
        return "**FAILED on " + ", ".join(v for v, c in zip(versions, cells) if c == "fail") + "**"
    shows = [v for v, c in zip(versions, cells) if c == "xfail"]
    if cells[-1] == "xfail":
        return "still in the newest" if len(shows) == len(versions) else \
            f"shows from {shows[0]} on" if shows == versions[versions.index(shows[0]):] else \
            "shows on " + ", ".join(shows)
    if shows and cells[-1] == "pass":
        later = [v for v, c in zip(versions, cells) if c == "pass" and
                 version_key(v) > version_key(shows[-1])]
        return f"fixed in {later[0]}" if later else "not shown on the newest"
    return "not run on every version"


def _in_version(b: dict, ident: str) -> Tuple[Optional[Item], bool]:
    """A version's item for ident; for an event (<input>/<n>) that release has no item of (it
    is declared on other releases only), its input's item, which judged it with the rest of
    the input there (True): a finding fixed in a release shows as its input's pass."""
    if ident in b:
        return b[ident], False
    m = EVENT_ITEM.search(ident)
    parent = ident[:m.start()] if m else ""
    return (b[parent], True) if parent in b else (None, False)


def _version_cell(j: Optional[Item], with_input: bool = False) -> str:
    """One version's cell of a finding: its outcome there (bold unless a pass) and where that
    release's source makes the behaviour, the item's fact "upstream" (the profile's `upstream
    <V>` line, harness/impl/run_impl.py upstream_facts)."""
    if j is None:
        return "not run"
    cell = j.outcome if j.outcome == "pass" else f"**{j.outcome}**"
    if with_input:
        return f"{cell} (with its input)"
    where = j.facts.get("upstream", "")
    return f"{cell} · {where.replace('|', chr(92) + '|')}" if where else cell


def versions_section(runs: List[ImplRun]) -> List[str]:
    """Per crate-registry producer judged at more than one release, its findings table: a
    column per version, a row per finding (an item declared, failed or skipped on some
    version), each version's cell its outcome there and that release's upstream line, then
    what the versions say of it (still in the newest, fixed in X) and the reason of the
    newest release that shows it; every item that passes on all of them is counted."""
    out = []
    rows = {}
    for r in runs:
        if r.version:
            rows.setdefault(r.row, []).append(r)
    for row, rs in rows.items():
        if len(rs) < 2:
            continue
        rs = sorted(rs, key=lambda r: version_key(r.version))
        versions = [r.version for r in rs]
        by = [{_relative(r, j.ident): j for j in r.judged} for r in rs]
        idents = sorted(set().union(*by))
        out += [f"### {row}", "",
                "| item | " + " | ".join(versions) + " | status | reason (the newest release "
                "showing it) |",
                "|---|" + "---|" * (len(versions) + 2)]
        same = alone = 0
        for ident in idents:
            found = [_in_version(b, ident) for b in by]
            cells = [j.outcome if j else "not run" for j, _ in found]
            if all(c == "pass" for c in cells):
                same += 1
                continue
            if sum(c != "not run" for c in cells) == 1:
                alone += 1  # e.g. a declaration of one release for an event only it writes
                continue
            own = [j for j, derived in found if j and not derived]
            newest = next((j for j in reversed(own) if j.outcome != "pass"), own[-1])
            why = newest.first.replace("|", "\\|")[:160]
            out.append(f"| {ident} | " + " | ".join(_version_cell(*f) for f in found) +
                       f" | {_finding_status(cells, versions)} | {why} |")
        out += ["", f"{same} items pass on every version; {alone} were judged on one version "
                    "only. Each version's cell: its outcome there, then where that release's "
                    "source makes the behaviour (the declaration's `upstream <V>` line in "
                    f"impl/{row}/profile.txt: a file of the crate, or <crate>@<V>/... of a "
                    "dependency its lock pins).", ""]
    return out


def notes(runs: List[ImplRun], run: List[str]) -> List[str]:
    out = []
    have = {r.name for r in runs}
    for name in run:
        if name not in have:
            out.append(f"- {name}: no JUnit file: not judged (`make check-impl IMPL={name}`)")
    for r in runs:
        for j in r.judged:
            if j.outcome == "skip":
                out.append(f"- {r.name}: {j.ident}: {j.first}")
    return out


def report(prefix: str, run: List[str], vm: bool, bench: str = "") -> str:
    runs = gather(prefix, run)
    kernel = _kernel(runs)
    out = ["# Implementations side by side", "",
           "Offline under the user_events stand-in, then on the real kernel in QEMU under perf "
           "(`make check-impl`). Every verdict below is an item of the JUnit files make "
           "writes (one per implementation), and every item is listed at the end.", "", "## Runs", ""]
    out += runs_table(runs, bench_results(bench) if bench else None)
    out += ["## Where the expectations come from", ""] + provenance_table()
    out += ["## Differences", ""] + differences(runs) + [""]
    out += ["## Events per case", "",
            "Counted per golden event: one event that differs costs that event, not the case.",
            ""] + case_rows(runs)
    out += ["## The library-kernel contract on the real kernel" + (f" ({kernel})" if kernel
                                                                  else ""),
            "", "Documentation/impl-contract.md; the promise is the booted kernel's; bold: "
            "not what the contract promises.", ""]
    out += contract_table(runs)
    versions = versions_section(runs)
    if versions:
        out += ["## Versions side by side", "",
                "A crate-registry producer judged at each release ehconf pins (and any other "
                "run with `VERSION=`), the oldest first: every item that is not a plain pass "
                "on all of them, and what the releases say of it.", ""] + versions
    extra = notes(runs, run)
    if extra:
        out += ["## Not run, left out", ""] + extra + [""]
    out += section([(r.name, [(j.outcome, j.ident) for j in r.judged]) for r in runs])
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit_prefix", help="the JUnit files are <prefix>-<name>.xml")
    ap.add_argument("out")
    ap.add_argument("--bench", default="", help="make bench-impls' bench-impls.json")
    ap.add_argument("--run", nargs="*", default=None,
                    help="the implementations of this run (default: every registered one)")
    ap.add_argument("--vm", choices=("0", "1"), default="1")
    args = ap.parse_args(argv)
    run = args.run if args.run is not None else [i.name for i in read_registry()]
    text = report(args.junit_prefix, run, args.vm == "1", args.bench)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"impl-report: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
