#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Writes descriptions/<case>.events, the case descriptions (Documentation/case-descriptions.md),
from the offline captures of the cases.

For each case with a golden file: the capture build/results/offline-gcc/<case>.dat (made by
`make -j2 VARIANT=gcc check-offline`) must decode to golden/<case>.json (the offline run's
comparison); `ehdescribe` turns each of its events into an `event ... end` block; the blocks
are put in golden order (event n of the file is golden event n, which harness/impl/run_impl.py
relies on; for an unordered case that is the golden file's sorted order, but for the events
of a `repeat`); and the steps the bytes cannot show come from the case itself: its steps
file cases/<case>.steps when it has one (the statements of the main flow, `event` lines
that select golden events, `repeat` where the case repeats), else `register` of every
provider before its first event. The `needs=` features the steps bring (threads, fork,
reregister) are added where they apply. descriptions/README.md says how to write one.

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
sys.path.insert(0, REPO)

from harness.core.ehdecode import decode  # noqa: E402
from harness.core.common import display_path  # noqa: E402
from harness.core.golden import compare, parse_lines  # noqa: E402
from harness.core.transports import get  # noqa: E402

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


def events_of(case: str, build: str, captures: str):
    """The capture's events in golden order, after checking that it matches golden/, and
    whether the case is unordered."""
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
        events.sort(key=lambda e: e.golden)  # harness/core/golden.py sorted_for_golden's order
    want = [line.strip() for line in golden_text.splitlines()
            if line.strip() and not line.startswith('{"ehconf"')]
    if [e.golden for e in events] != want:
        raise SystemExit(f"gen-case-descriptions: {case}: the events cannot be put in golden order")
    return events, golden.directives.get("order") == "unordered"


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


class Steps:
    """A case's steps file, cases/<case>.steps (descriptions/README.md), laid over its
    events: the statements as written, each `event <field>=<value>...` replaced by the
    golden event with those values, and the needs= its place brings (threads, fork,
    reregister). In a `repeat <n>`, `<field>=<start>+<step>` selects value start + r * step
    in repetition r, and the event is written once, its field <hex>+<step>."""

    def __init__(self, case: str, path: str, events: List[Event], unordered: bool):
        self.case, self.path, self.events, self.unordered = case, path, events, unordered
        self.out: List[str] = []
        self.used: List[int] = []  # golden index of each ordinal, unrolled
        self.ranges: List[tuple] = []  # (first, end) ordinal positions of each repeat
        self.current = ""
        self.registered: Dict[str, bool] = {}
        self.unregistered_once: Dict[str, bool] = {}

    def fail(self, line: int, why: str):
        raise SystemExit(f"gen-case-descriptions: {self.path}:{line}: {why}")

    def select(self, line: int, words: List[str], rep: int) -> int:
        """The one event whose golden fields have the values words[1:] give (repetition rep)."""
        want = {}
        for w in words[1:]:
            key, _, value = w.partition("=")
            start, plus, step = value.partition("+")
            want[key] = str(int(start) + rep * int(step)) if plus else value
        hits = [i for i, e in enumerate(self.events)
                if all(e.fields.get(k) == v for k, v in want.items())]
        if len(hits) != 1 or self.events[hits[0]].provider != self.current:
            self.fail(line, f"{' '.join(words)} (repetition {rep}) selects {len(hits)} events, "
                            f"or one of another provider than `{self.current}`")
        return hits[0]

    def needs(self, blocks: List[str]) -> str:
        got = [n for n, opener in (("threads", "thread"), ("fork", "fork")) if opener in blocks]
        if self.registered.get(self.current) and self.unregistered_once.get(self.current):
            got.append("reregister")
        return ",".join(got)

    def stepped(self, line: int, words: List[str], block: List[str], first: Event,
                count: int) -> List[str]:
        """The block of the first repetition with each stepped field's value <hex>+<step>,
        checked against every repetition's own event."""
        steps = {}
        for w in words[1:]:
            key, _, value = w.partition("=")
            if "+" in value:
                steps[key] = int(value.partition("+")[2])
        lines = list(block)
        fields = {}  # key -> (its line in the block, its words)
        for k, text in enumerate(lines[1:-1], 1):
            f = text.split()
            if text.startswith("  ") and not text.startswith("   ") and f[1] in steps:
                fields[f[1]] = (k, f)
                lines[k] = "  " + " ".join(f[:2] + [f"{f[2]}+{steps[f[1]]}"] + f[3:])
        if set(fields) != set(steps):
            self.fail(line, f"no top-level field of `{first.lines[0]}` for "
                            f"{sorted(set(steps) - set(fields))}")
        return lines, fields, steps

    def expand(self, lines: List[str], fields: dict, steps: dict, rep: int) -> List[str]:
        """Repetition rep of a stepped block: each value plus rep steps, little-endian,
        wrapping around (Documentation/case-descriptions.md)."""
        out = list(lines)
        for key, (k, f) in fields.items():
            size = len(f[2]) // 2
            v = (int.from_bytes(bytes.fromhex(f[2]), "little") + rep * steps[key]) % (1 << (8 * size))
            out[k] = "  " + " ".join(f[:2] + [v.to_bytes(size, "little").hex()] + f[3:])
        return out

    def lay(self, text: str) -> List[str]:
        lines = text.split("\n")
        n = 0
        while n < len(lines) and lines[n].startswith("#"):
            n += 1  # the file's own header, up to its first blank line
        blocks: List[str] = []
        repeat = None  # (count, [(golden indices per repetition)], first position)
        for number, raw in enumerate(lines[n:], n + 1):
            words = raw.split()
            pad = "  " * len(blocks)
            if not words:
                continue
            if words[0].startswith("#"):
                self.out.append(pad + raw.strip())
            elif words[0] == "provider":
                self.current = " ".join(words)
                self.out.append(pad + self.current)
            elif words[0] in ("register", "unregister"):
                self.registered[self.current] = words[0] == "register"
                if words[0] == "unregister":
                    self.unregistered_once[self.current] = True
                self.out.append(pad + words[0])
            elif words[0] in ("threads", "thread", "fork"):
                self.out.append(pad + words[0])
                blocks.append(words[0])
            elif words[0] == "parent":
                self.out.append("  " * (len(blocks) - 1) + "parent")
            elif words[0] == "repeat":
                self.out.append(pad + raw.strip())
                blocks.append("repeat")
                repeat = (int(words[1]), [], len(self.used))
            elif words[0] == "end":
                if blocks.pop() == "repeat":
                    count, picked, first = repeat
                    self.used += [p[r] for r in range(count) for p in picked]
                    if picked:
                        self.ranges.append((first, len(self.used)))
                    repeat = None
                self.out.append("  " * len(blocks) + "end")
            elif words[0] == "event":
                needs = self.needs(blocks)
                if repeat is None:
                    i = self.select(number, words, 0)
                    self.used.append(i)
                    self.out += self.events[i].text(len(blocks) * 2, needs)
                    continue
                count, picked, _ = repeat
                chosen = [self.select(number, words, r) for r in range(count)]
                first = self.events[chosen[0]]
                body, widths, steps = self.stepped(number, words, first.text(0, needs), first,
                                                   count)
                for r, i in enumerate(chosen):
                    if self.expand(body, widths, steps, r) != self.events[i].text(0, needs):
                        self.fail(number, f"repetition {r} is not the event it selects")
                picked.append(chosen)
                self.out += ["  " * len(blocks) + line for line in body]
            else:
                self.fail(number, f"`{words[0]}` is not a step (provider, register, "
                                  f"unregister, threads, thread, fork, parent, repeat, event, end)")
        self.check_order()
        return self.out

    def check_order(self):
        """Every event once; event n golden event n, but inside a repeat of an unordered
        case, where its events are the golden events of the same ordinals in any order."""
        n = len(self.events)
        if sorted(self.used) != list(range(n)):
            raise SystemExit(f"gen-case-descriptions: {self.path} does not use every event of "
                             f"golden/{self.case}.json once")
        free = set(range(n))
        for a, b in self.ranges if self.unordered else []:
            if sorted(self.used[a:b]) != list(range(a, b)):
                raise SystemExit(f"gen-case-descriptions: {self.path}: the repeat of events "
                                 f"{a + 1}..{b} holds other golden events")
            free -= set(range(a, b))
        if any(self.used[i] != i for i in free):
            raise SystemExit(f"gen-case-descriptions: {self.path}: the events are not in golden "
                             f"order")


def steps_path(case: str) -> str:
    return os.path.join(REPO, "cases", case + ".steps")


def description(case: str, events: List[Event], unordered: bool) -> str:
    path = steps_path(case)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            body = Steps(case, display_path(path), events, unordered).lay(f.read())
    else:
        body = plain(events)
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
        events, unordered = events_of(case, build, captures)
        text = description(case, events, unordered)
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
