#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where each expected event comes from: the provenance files beside the inputs.

    harness/core/provenance.py [--check] [--counts]

Every golden family of a producer (impl/<name>/expected/<input>.json, the events of
impl/<name>/inputs/<input>.inputs) has impl/<name>/inputs/provenance.txt; the
conformance cases (golden/<case>.json, from descriptions/<case>.events) have
descriptions/provenance.txt. One line per event or range of events:

    <input> <n | a-b | all> <kind> <where> [| <what it promises>]
    * all <kind> <where> | <what>

kind, strongest first:
    doc       a documentation line of the producer (or, for the cases, the format's
              definition) promises it
    test      an upstream test asserts it (a sample output in a comment is not a test)
    source    no document or test promises it; the producer's source states the intent
    current   no document or test promises it; it is merely what the producer does today

Event n is the n-th event line of the family's <input>.json (directive lines
{"ehconf": ...} not counted). `all` is every event of the input. A `*` line is a part
every event of the family shares (a field every event carries, the member order): an
event's provenance is the weakest of its own line and the `*` lines, so an event whose
own content is documented but that carries an undocumented field counts as that field's
kind. `#` starts a comment line; blank lines are ignored.

The reader is strict: a malformed line, an unknown kind, an input without golden file,
an event the golden file does not have, two lines for one event, an event with no line:
each is an error naming the file and the line (or the event). The counts per producer
go into impls.md (harness/reports/impls_md.py); decoder_basis() is the line for decoders.md.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = ("doc", "test", "source", "current")  # strongest first
KIND_WORDS = {"doc": "documented", "test": "upstream test", "source": "source only",
              "current": "source only, current behaviour"}
CASES = "cases"  # the family name of the conformance cases (golden/<case>.json)
RANGE = re.compile(r"^(?:(\d+)(?:-(\d+))?|all)$")
FILENAME = "provenance.txt"


class ProvenanceError(Exception):
    """Every problem of one or more provenance files, one per line."""

    def __init__(self, problems: List[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Line:
    path: str
    lineno: int
    input: str  # "*" for a part every event shares
    first: int  # 0 for `all` (resolved later)
    last: int
    kind: str
    where: str
    what: str

    @property
    def at(self) -> str:
        return f"{self.path}:{self.lineno}"


@dataclass
class Family:
    name: str
    path: str  # the provenance file
    common: List[Line] = field(default_factory=list)
    # (input, event n) -> its own line
    events: Dict[Tuple[str, int], Line] = field(default_factory=dict)

    def kind_of(self, input_name: str, n: int) -> str:
        """The event's provenance: the weakest of its own line and the `*` lines."""
        kinds = [self.events[(input_name, n)].kind] + [c.kind for c in self.common]
        return max(kinds, key=KINDS.index)

    def counts(self, own_only: bool = False) -> Dict[str, int]:
        out = {k: 0 for k in KINDS}
        for (inp, n), line in self.events.items():
            out[line.kind if own_only else self.kind_of(inp, n)] += 1
        return out


def golden_events(golden_path: str) -> int:
    """How many events a golden file holds (directive lines not counted)."""
    n = 0
    with open(golden_path, encoding="utf-8") as f:
        for ln in f:
            s = ln.strip()
            if s and not s.startswith('{"ehconf"'):
                n += 1
    return n


def family_paths(family: str, root: str = ROOT) -> Tuple[str, str]:
    """(provenance file, golden folder) of a family; CASES is the top-level cases."""
    if family == CASES:
        return (os.path.join(root, "descriptions", FILENAME), os.path.join(root, "golden"))
    # A producer's own family lives in its folder (impl/<name>/inputs, expected).
    return (os.path.join(root, "impl", family, "inputs", FILENAME),
            os.path.join(root, "impl", family, "expected"))


def family_inputs(family: str, root: str = ROOT) -> Dict[str, int]:
    """{input: events} for every golden file of the family."""
    _, gdir = family_paths(family, root)
    out = {}
    for name in sorted(os.listdir(gdir)):
        p = os.path.join(gdir, name)
        if name.endswith(".json") and os.path.isfile(p):
            out[name[:-5]] = golden_events(p)
    return out


def parse(text: str, path: str, inputs: Dict[str, int], family: str = "") -> Family:
    """A provenance file's text, checked against {input: events of its golden file}.
    Raises ProvenanceError with every problem found."""
    fam = Family(family, path)
    problems: List[str] = []
    owner: Dict[Tuple[str, int], Line] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        at = f"{path}:{lineno}"
        parts = re.split(r"\s\|(?:\s|$)", s, maxsplit=1)
        head, sep, what = parts[0], len(parts) > 1, parts[1] if len(parts) > 1 else ""
        words = head.split(None, 3)
        if len(words) < 4:
            problems.append(f"{at}: expected `<input> <n|a-b|all> <kind> <where> "
                            f"[| <what>]`, got {s!r}")
            continue
        inp, rng, kind, where = words
        if sep and not what.strip():
            problems.append(f"{at}: nothing after `|`")
            continue
        if kind not in KINDS:
            problems.append(f"{at}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
            continue
        m = RANGE.match(rng)
        if not m:
            problems.append(f"{at}: {rng!r} is not an event number, a range a-b or `all`")
            continue
        if inp == "*":
            if rng != "all" or not sep:
                problems.append(f"{at}: a `*` line is `* all <kind> <where> | <what part>`")
                continue
            fam.common.append(Line(path, lineno, inp, 0, 0, kind, where, what.strip()))
            continue
        if inp not in inputs:
            problems.append(f"{at}: {inp!r} has no golden file (inputs: "
                            f"{', '.join(sorted(inputs)) or 'none'})")
            continue
        total = inputs[inp]
        if rng == "all":
            first, last = 1, total
        else:
            first = int(m.group(1))
            last = int(m.group(2)) if m.group(2) else first
            if first < 1 or last < first:
                problems.append(f"{at}: {rng!r}: events count from 1, a range a-b has a <= b")
                continue
            if last > total:
                problems.append(f"{at}: {inp} event {last}: the golden file has {total} "
                                f"event{'s' if total != 1 else ''}")
                continue
        line = Line(path, lineno, inp, first, last, kind, where, what.strip())
        clash = [n for n in range(first, last + 1) if (inp, n) in owner]
        if clash:
            other = owner[(inp, clash[0])]
            problems.append(f"{at}: {inp} event {clash[0]} already has a provenance "
                            f"(line {other.lineno})")
        for n in range(first, last + 1):
            owner.setdefault((inp, n), line)
    for inp, total in sorted(inputs.items()):
        missing = [n for n in range(1, total + 1) if (inp, n) not in owner]
        if missing:
            problems.append(f"{path}: {inp} event{'s' if len(missing) > 1 else ''} "
                            f"{_ranges(missing)}: no provenance line")
    if problems:
        raise ProvenanceError(problems)
    fam.events = owner
    return fam


def _ranges(ns: List[int]) -> str:
    out, start = [], ns[0]
    for a, b in zip(ns, ns[1:] + [None]):
        if b != a + 1:
            out.append(str(start) if start == a else f"{start}-{a}")
            start = b
    return ", ".join(out)


def read_family(family: str, root: str = ROOT) -> Family:
    path, _ = family_paths(family, root)
    rel = os.path.relpath(path, root)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ProvenanceError([f"{rel}: cannot read: {e.strerror}"])
    return parse(text, rel, family_inputs(family, root), family)


def families(root: str = ROOT) -> List[str]:
    """The registry's input families: CASES and every producer family."""
    sys.path.insert(0, root)
    from harness.impl.registry import read_registry
    out = []
    for impl in read_registry():
        fam = impl.family
        if fam not in out:
            out.append(fam)
    return out


def counts_for(inputs: str, root: str = ROOT) -> Optional[Dict[str, int]]:
    """The effective counts of an implementation's family ("cases" or its name);
    None when the family has no provenance file."""
    fam = CASES if inputs == "cases" else inputs
    path, _ = family_paths(fam, root)
    if not os.path.exists(path):
        return None
    return read_family(fam, root).counts()


def summary(counts: Dict[str, int]) -> str:
    total = sum(counts.values())
    return (f"{total} events: {counts['doc']} documented, {counts['test']} upstream test, "
            f"{counts['source'] + counts['current']} source only "
            f"({counts['current']} of them current behaviour)")


def decoder_basis(root: str = ROOT) -> str:
    """One line for decoders.md: what the decoders' expectation, ehdecode's JSON of
    ehconf's captures, rests on, counted per document from descriptions/provenance.txt
    (each case's line names the sections of Documentation/eventheader-wire.md that say
    what its bytes are and of Documentation/decoder-json.md that say how they print)."""
    fam = read_family(CASES, root)
    per_doc: Dict[str, int] = {}
    cases = set()
    for line in {id(x): x for x in fam.events.values()}.values():
        cases.add(line.input)
        for doc in sorted(set(re.findall(r"Documentation/[\w.-]+\.md", line.where))):
            per_doc[doc] = per_doc.get(doc, 0) + line.last - line.first + 1
    kinds = fam.counts()
    basis = ", ".join(f"{n} on {d}" for d, n in sorted(per_doc.items(), reverse=True))
    return (f"What the decoders are judged against, ehdecode's JSON of ehconf's own captures, "
            f"rests on the format's definition, not on any producer's behaviour: the "
            f"{len(fam.events)} golden events of the {len(cases)} cases are {kinds['doc']} "
            f"documented ({basis}), {kinds['test']} from an upstream test, "
            f"{kinds['source'] + kinds['current']} source only (descriptions/provenance.txt).")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", action="store_true", help="print the counts per family")
    args = ap.parse_args(argv)
    bad = 0
    for fam in families():
        try:
            f = read_family(fam)
        except ProvenanceError as e:
            bad += 1
            print("\n".join(e.problems), file=sys.stderr)
            continue
        if args.counts:
            own = f.counts(own_only=True)
            print(f"{fam}: {summary(f.counts())}; own lines without the shared parts: "
                  f"{summary(own)}")
    print(f"provenance: {len(families()) - bad} passed, {bad} failed, 0 skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
