#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""decoders.md: the decoders side by side, rendered from the JUnit files of make
check-decoders (<JUNIT_PREFIX>-<name>.xml, one per decoder): every verdict, reason and
count below is read back from them (harness/reports/junit.py), nothing is judged here.

    harness/reports/decoders_md.py JUNIT_PREFIX OUT.md

Sections: every difference (each failed or declared item) in bold at the top; what the
expectations rest on (harness/core/provenance.py's decoder_basis()); the captures side by side; the damaged inputs side by side; the builds; last every item with its
outcome."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.decoders.registry import read_registry  # noqa: E402
from harness.core.provenance import ProvenanceError, decoder_basis  # noqa: E402
from harness.reports.items import section  # noqa: E402
from harness.reports.junit import read  # noqa: E402

RUNNER = "decoder"
CAPTURE_CHECKS = ("run", "json", "events", "meta")
ROBUST_CHECKS = ("crash", "hang", "json", "lost")


def gather(prefix: str) -> List[Tuple[str, dict, Dict[str, Tuple[str, str]]]]:
    """(name, the run's properties, {item id: (outcome, message)}) per decoder, the
    reference first; a decoder without a JUnit file has an empty run and no items."""
    out = []
    for d in sorted(read_registry(), key=lambda d: not d.reference):
        suite = read(f"{prefix}-{d.name}.xml")
        if suite is None:
            out.append((d.name, {}, {}))
            continue
        run = suite.run(RUNNER)
        run["facts"] = {i.ident: i.facts for i in suite.items}
        out.append((d.name, run, {i.ident: (i.outcome, i.message) for i in suite.items}))
    return out


def _captures(items, name: str) -> List[str]:
    """The captures a decoder was run on, in the order of its items."""
    prefix, out = f"decoder/{name}/", []
    for ident in items:
        if ident.startswith(prefix) and ident.endswith("/run") and "/damaged/" not in ident:
            c = ident[len(prefix):-len("/run")]
            if c not in out:
                out.append(c)
    return out


def _first(message: str) -> str:
    return (message.strip().splitlines() or [""])[0][:220]


def differences(runs) -> List[str]:
    out = []
    for name, _, items in runs:
        for ident, (status, message) in items.items():
            if status in ("fail", "xfail"):
                what = "FAILED" if status == "fail" else "declared"
                rel = ident.split("/", 2)[-1]
                first = _first(message)
                if status == "xfail":  # the observation, then the declared reason
                    lines = message.strip().splitlines()
                    obs = next((ln[len("observed: "):] for ln in lines
                                if ln.startswith("observed: ")), "")
                    first = f"{obs[:160]} — {lines[0][len('declared: '):][:220]}"
                out.append(f"- **{name}: {rel}** ({what}): {first}")
    return out or ["None."]


def _cell(items, prefix: str) -> str:
    bad = [(c, items[f"{prefix}/{c}"]) for c in CAPTURE_CHECKS if f"{prefix}/{c}" in items
           and items[f"{prefix}/{c}"][0] in ("fail", "xfail")]
    if not any(f"{prefix}/{c}" in items for c in CAPTURE_CHECKS):
        return "not run"
    if not bad:
        return "same"
    parts = []
    for c, (status, message) in bad:
        first = _first(message.split("observed: ", 1)[-1]).split(": ", 1)[-1]
        parts.append(f"{c}: {first[:90]}")
    return "**" + "; ".join(parts).replace("|", "\\|") + "**"


def captures_table(runs) -> List[str]:
    names = [n for n, s, _ in runs if s]
    if not names:
        return ["Not run (`make check-decoders`).", ""]
    caps: List[str] = []
    for n, _, items in runs:
        caps += [c for c in _captures(items, n) if c not in caps]
    out = ["| capture | events (reference) | " + " | ".join(names) + " |",
           "|---|---|" + "---|" * len(names)]
    by = {n: (s, items) for n, s, items in runs}
    ref_name, ref, _ = runs[0]  # gather() puts the reference first
    for c in caps:
        events = (ref.get("facts") or {}).get(f"decoder/{ref_name}/{c}/run", {}).get("events", "?")
        cells = [_cell(by[n][1], f"decoder/{n}/{c}") for n in names]
        out.append(f"| {c} | {events} | " + " | ".join(cells) + " |")
    return out + ["", "same: ran to exit status 0, valid JSON, and every event and meta member "
                      "as the reference decodes it after the normalization of "
                      "Documentation/decoders.md §3.", ""]


def damaged_table(runs) -> List[str]:
    names = [n for n, s, _ in runs if s]
    sets: List[str] = []
    for n, _, items in runs:
        for ident in items:
            parts = ident.split("/")
            if len(parts) == 5 and parts[2] == "damaged" and "/".join(parts[2:4]) not in sets:
                sets.append("/".join(parts[2:4]))
    if not sets:
        return ["Not run.", ""]
    out = ["| inputs | check | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for st in sets:
        for c in ROBUST_CHECKS:
            cells = []
            for n, s, _ in runs:
                if n not in names:
                    continue
                facts = (s.get("facts") or {}).get(f"decoder/{n}/{st}/{c}")
                if not facts:
                    cells.append("not run")
                    continue
                k = facts.get("count", "?")
                cells.append(f"**{k} of {facts.get('inputs', '?')}**" if k != "0"
                             else f"0 of {facts.get('inputs', '?')}")
            out.append(f"| {st} | {c} | " + " | ".join(cells) + " |")
    return out + ["", "crash: a signal or a sanitizer report; hang: no end within the "
                      "timeout; json: not one valid JSON document where the undamaged capture gave one; "
                      "lost: events whose records "
                      "lie wholly before the damage, decoded from the undamaged capture, missing "
                      "(Documentation/decoders.md §5).", ""]


def builds_table(runs) -> List[str]:
    out = ["| decoder | checkout | build | finished | seconds |", "|---|---|---|---|---|"]
    for n, s, items in runs:
        b = items.get(f"decoder/{n}/build")
        out.append(f"| {n} | {s.get('checkout') or '-'} | "
                   f"{(b[0] + ': ' + _first(b[1])) if b and b[1] else (b[0] if b else 'not run')}"
                   f" | {s.get('finished', 'not run')} | {s.get('seconds', '-')} |")
    return out + [""]


def basis_section(root: Optional[str] = None) -> List[str]:
    """What the reference's JSON, the expectation every decoder is held to, rests on:
    decoder_basis() from descriptions/provenance.txt; an unreadable file is said in bold."""
    try:
        line = decoder_basis(root) if root else decoder_basis()
    except ProvenanceError as e:
        line = f"**provenance unreadable: {e.problems[0]}**"
    return [line, "",
            "The real captures of `tests/data/perf` (`data/`) are held to the same reference, "
            "which the tests named in `tests/data/perf/README.md` check against the programs "
            "that wrote them and `perf script`; a damaged input to the reference's output for "
            "its undamaged capture (Documentation/decoders.md §1, §5).", ""]


def report(prefix: str, root: Optional[str] = None) -> str:
    runs = gather(prefix)
    out = ["# Decoders side by side", "",
           "Every capture ehconf has, and damaged copies of them, through each decoder of "
           "`decoders/decoders.txt`, compared with ehdecode's JSON (`make check-decoders`, "
           "Documentation/decoders.md). Every verdict below is an item of the JUnit files make "
           "writes (`decoder-<name>.xml`), and every item is listed at the end.", "",
           "## Differences", ""] + differences(runs) + [""]
    out += ["## Where the expectations come from", ""] + basis_section(root)
    out += ["## Captures", ""] + captures_table(runs)
    out += ["## Damaged input", ""] + damaged_table(runs)
    out += ["## Builds", ""] + builds_table(runs)
    out += section([(n, [(st, i) for i, (st, _) in items.items()]) for n, _, items in runs])
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("junit_prefix", help="the JUnit files are <prefix>-<name>.xml")
    ap.add_argument("out")
    args = ap.parse_args(argv)
    text = report(args.junit_prefix)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"decoder-report: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
