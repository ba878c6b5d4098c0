#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Writes descriptions/<case>.events, the case descriptions (Documentation/case-descriptions.md),
from the offline captures of the cases.

For each case with a golden file: the capture build/results/offline-gcc/<case>.dat (made by
`make -j2 VARIANT=gcc check-offline`) must decode to golden/<case>.json (the offline run's
comparison); `ehdescribe` turns each of its events into an `event ... end` block; the blocks
are put in golden order (event n of the file is golden event n, which harness/run_impl.py
relies on; for an unordered case that is the golden file's sorted order); and the steps the
bytes cannot show are added from the layouts below, each read from its cases/<case>.c:
`register` of every provider before its first event, lifecycle's unregister / register
sequence, concurrency's `fork` and `threads`, and the `needs=` features those steps bring.

Usage: scripts/gen-case-descriptions.py [--build build/gcc] [--captures DIR] [--check] [case...]
--check writes nothing and fails when a committed description differs from what it would write.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Dict, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "harness"))

from cases import decode  # noqa: E402
from golden import compare, parse_lines  # noqa: E402
from transports import get  # noqa: E402

TIMEOUT = 60.0


class Event:
    """One `event ... end` block of ehdescribe's output, with its provider line and the
    decoded golden line of the same event."""

    def __init__(self, provider: str, lines: List[str], golden: str):
        self.provider = provider
        self.lines = lines
        self.golden = golden
        self.fields = dict(parse_lines(golden, "capture", False).events[0].value)

    def text(self, indent: int, needs: str = "") -> List[str]:
        head = self.lines[0]
        if needs:
            head += ("," if " needs=" in head else " needs=") + needs
        return [" " * indent + line for line in [head] + self.lines[1:]]


def describe(ehdescribe: str, dat: str) -> List[tuple]:
    """(provider line, event lines) per event of the capture, in file order."""
    r = subprocess.run([ehdescribe, dat], capture_output=True, text=True, errors="surrogateescape",
                       timeout=TIMEOUT)
    if r.returncode != 0:
        raise SystemExit(f"gen-case-descriptions: {r.stderr.strip() or 'ehdescribe failed'}")
    out, provider, block = [], "", None
    for line in r.stdout.splitlines():
        if line.startswith("provider "):
            provider = line
        elif line.startswith("event "):
            block = [line]
        elif block is not None:
            block.append(line)
            if line == "end":
                out.append((provider, block))
                block = None
    return out


def events_of(case: str, build: str, captures: str) -> List[Event]:
    """The capture's events in golden order, after checking that it matches golden/."""
    dat = os.path.join(captures, case + ".dat")
    if not os.path.exists(dat):
        raise SystemExit(f"gen-case-descriptions: no capture {dat}: run "
                         f"`make -j2 VARIANT=gcc check-offline` first")
    with open(os.path.join(REPO, "golden", case + ".json"), encoding="utf-8",
              errors="surrogateescape") as f:
        golden_text = f.read()
    d = decode(os.path.join(build, "bin", "ehdecode"), dat, TIMEOUT)
    res = compare(golden_text, d.text, case, get("capture").golden) if d.ok else None
    if not res or not res.ok:
        raise SystemExit(f"gen-case-descriptions: {dat} does not match golden/{case}.json: "
                         f"{res.message if res else d.problem}")
    decoded = [line for line in d.text.splitlines() if line.strip()]
    blocks = describe(os.path.join(build, "bin", "ehdescribe"), dat)
    if len(blocks) != len(decoded):
        raise SystemExit(f"gen-case-descriptions: {case}: ehdescribe gave {len(blocks)} events, "
                         f"ehdecode {len(decoded)}")
    events = [Event(p, b, g) for (p, b), g in zip(blocks, decoded)]
    golden = parse_lines(golden_text, case, True)
    if golden.directives.get("order") == "unordered":
        events.sort(key=lambda e: e.golden)  # harness/golden.py sorted_for_golden's order
    want = [line.strip() for line in golden_text.splitlines()
            if line.strip() and not line.startswith('{"ehconf"')]
    if [e.golden for e in events] != want:
        raise SystemExit(f"gen-case-descriptions: {case}: the events cannot be put in golden order")
    return events


def plain(events: List[Event]) -> List[str]:
    """Every provider registered before its first event; no other step."""
    out, current, registered = [], None, set()
    for e in events:
        if e.provider != current:
            out.append(e.provider)
            current = e.provider
            if current not in registered:
                out.append("register")
                registered.add(current)
        out += e.text(0)
    return out


# lifecycle (cases/lifecycle.c): its TESTs in order. ("seq", "n"[, needs]) is the event whose
# "seq" is n (JSON numbers are compared as their text); events written while their provider is unregistered are refused (EBADF) and
# are not in golden/lifecycle.json, so they are only named in comments.
A, B, AG, U = ("provider EhconfLifeA", "provider EhconfLifeB", "provider EhconfLifeA group=grp",
               "provider Ehconf_Under_Score")
LIFECYCLE = [
    "# register_unregister_register: seq 2 is written while unregistered and not delivered",
    A, "register", ("seq", "1"), "unregister", "register", ("seq", "3", "reregister"), "unregister",
    "# register_twice_unregister_twice (the second register's EALREADY is the library's own",
    "# check, not an event), then seq 5 while unregistered: not delivered",
    "register", ("seq", "4", "reregister"), "unregister",
    "# builder_across_registration: DynLife seq 7 while unregistered is not delivered",
    "register", ("seq", "6", "reregister"), "unregister", "register", ("seq", "8", "reregister"),
    "unregister",
    "# two_providers_same_event_name: A's seq 12 after its unregister is not delivered",
    A, "register", B, "register", AG, "register",
    A, ("seq", "9", "reregister"), B, ("seq", "10"), AG, ("seq", "11"), A, "unregister",
    B, ("seq", "13"), AG, ("seq", "14"), B, "unregister", AG, "unregister",
    "# provider_name_with_underscores",
    U, "register", ("seq", "15"), "unregister",
]


def laid_out(events: List[Event], layout: list) -> List[str]:
    """A layout's lines, each ("field", value[, needs]) replaced by that event's block,
    checked to be under its own provider; every event used once, in golden order."""
    out, current, used = [], None, []
    for item in layout:
        if isinstance(item, str):
            out.append(item)
            current = item if item.startswith("provider ") else current
            continue
        hits = [i for i, e in enumerate(events) if e.fields.get(item[0]) == item[1]]
        if len(hits) != 1 or events[hits[0]].provider != current:
            raise SystemExit(f"gen-case-descriptions: layout item {item} matches {len(hits)} "
                             f"events, or one of another provider than {current}")
        used.append(hits[0])
        out += events[hits[0]].text(0, item[2] if len(item) > 2 else "")
    if used != list(range(len(events))):
        raise SystemExit("gen-case-descriptions: the layout does not use every event once, "
                         "in golden order")
    return out


def lifecycle(events: List[Event]) -> List[str]:
    return laid_out(events, LIFECYCLE)


def concurrency(events: List[Event]) -> List[str]:
    """cases/concurrency.c: 8 threads x 1000 "T" through one provider, and a forked child
    writing "Child" s 0..2 while the parent writes "Parent" s 0..2. The golden file is
    unordered, so golden order (sorted text) puts the fork first and each thread's events in
    sorted order; the multiset is the same, and event n stays golden event n."""
    name = {e: e.fields["n"] for e in events}
    if {e.provider for e in events} != {"provider EhconfMt"}:
        raise SystemExit("gen-case-descriptions: concurrency: expected provider EhconfMt only")
    out = ["provider EhconfMt", "register",
           "# fork_child_writes: the child writes Child s 0..2 while the parent writes Parent",
           "fork"]
    out += [line for e in events if name[e] == "EhconfMt:Child" for line in e.text(2, "fork")]
    out.append("parent")
    out += [line for e in events if name[e] == "EhconfMt:Parent" for line in e.text(2, "fork")]
    out += ["end", "# threads_8_x_1000: released together, 1000 events \"T\" each", "threads"]
    threads = sorted({e.fields["t"] for e in events if name[e] == "EhconfMt:T"}, key=int)
    for t in threads:
        out.append("  thread")
        out += [line for e in events if name[e] == "EhconfMt:T" and e.fields["t"] == t
                for line in e.text(4, "threads")]
        out.append("  end")
    out.append("end")
    ordered = [e for e in events if name[e] == "EhconfMt:Child"] + \
        [e for e in events if name[e] == "EhconfMt:Parent"] + \
        [e for t in threads for e in events if name[e] == "EhconfMt:T" and e.fields["t"] == t]
    if ordered != events:
        raise SystemExit("gen-case-descriptions: concurrency: the layout is not in golden order")
    return out


LAYOUTS = {"lifecycle": lifecycle, "concurrency": concurrency}


def description(case: str, events: List[Event]) -> str:
    body = LAYOUTS.get(case, plain)(events)
    head = [f"# descriptions/{case}.events: the events of cases/{case}.c, event n being event n",
            f"# of golden/{case}.json. Made by scripts/gen-case-descriptions.py (ehdescribe on the",
            "# case's offline capture, plus the steps that script takes from the case): change",
            "# the case or the script and regenerate (descriptions/README.md), never by hand.",
            f"case {case}"]
    return "\n".join(head + body) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build/gcc")
    ap.add_argument("--captures", default="build/results/offline-gcc")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args(argv)
    build = os.path.join(REPO, args.build)
    captures = os.path.join(REPO, args.captures)
    cases = args.cases or sorted(f[:-5] for f in os.listdir(os.path.join(REPO, "golden"))
                                 if f.endswith(".json"))
    counts: Dict[str, int] = {"written": 0, "unchanged": 0, "differ": 0}
    for case in cases:
        events = events_of(case, build, captures)
        text = description(case, events)
        path = os.path.join(REPO, "descriptions", case + ".events")
        old = open(path, encoding="utf-8", errors="surrogateescape").read() \
            if os.path.exists(path) else None
        state = "unchanged" if old == text else "differ" if args.check else "written"
        if state == "written":
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        counts[state] += 1
        print(f"descriptions/{case}.events: {len(events)} events, {state}")
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
