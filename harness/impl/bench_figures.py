# SPDX-License-Identifier: GPL-2.0
"""make bench-impls' arithmetic and parsing, apart from the running (harness/impl/bench.py),
so that tests/harness/test_bench_impls.py can hold each piece to hand-made inputs: the
workloads table, the `bench` line every `emit --bench` prints, the stand-in's count file,
callgrind's totals and the figures made of them. Standard library only."""

from __future__ import annotations

import fnmatch
import os
import re
import statistics
from dataclasses import dataclass, replace
from typing import List, Optional, Tuple

from harness.core.common import REPO_ROOT

WORKLOADS_DIR = os.path.join(REPO_ROOT, "tests", "bench", "impls")


FAMILIES_DIR = os.path.join(REPO_ROOT, "impl")


def _family_bench(family: str) -> str:
    """A producer's own workloads: impl/<name>/bench/ (its family is its name)."""
    return os.path.join(FAMILIES_DIR, family, "bench")
WORKLOADS = os.path.join(WORKLOADS_DIR, "workloads.txt")


@dataclass(frozen=True)
class Workload:
    name: str
    description: str  # a file name in WORKLOADS_DIR (or impl/<family>/bench/, .inputs)
    listening: bool
    count: int
    callgrind: Tuple[int, int]
    # The pairs of callgrind runs each repetition of the figure takes the median of (1 but
    # for a family whose counts.txt asks for more: median_figure says why).
    processes: int = 1

    def inputs_for(self, family: str) -> Optional[str]:
        """The workload's file for an implementation whose inputs are `family` ("cases":
        the description itself; else impl/<family>/bench/<stem>.inputs), None when it has
        none."""
        if family == "cases":
            path = os.path.join(WORKLOADS_DIR, self.description)
        else:
            stem = os.path.splitext(self.description)[0]
            path = os.path.join(_family_bench(family), stem + ".inputs")
        return path if os.path.isfile(path) else None


def read_workloads(path: str = WORKLOADS) -> List[Workload]:
    """name description listening count c1,c2 per line; ValueError names the line."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            try:
                if len(words) != 5 or words[2] not in ("0", "1"):
                    raise ValueError("want: name description listening(0|1) count c1,c2")
                c1, c2 = (int(x) for x in words[4].split(","))
                count = int(words[3])
                if not (0 < c1 < c2) or count <= 0:
                    raise ValueError("counts must be positive and c1 < c2")
            except ValueError as e:
                raise ValueError(f"{path}:{n}: {e}") from None
            out.append(Workload(words[0], words[1], words[2] == "1", count, (c1, c2)))
    return out


FAMILY_COUNTS = "counts.txt"
MAX_PROCESSES = 9


def for_family(workloads: List[Workload], family: str) -> List[Workload]:
    """The workloads as an implementation whose inputs are `family` runs them: the counts of
    impl/<family>/bench/counts.txt (rows `name count c1,c2 [processes]`) in place of workloads.txt's for
    the workloads it names, for a family whose one repetition costs far more than an event (a
    metrics collection: a round trip to the SDK's reader thread), so that its runs take
    seconds, not hours; `processes` (1 when left out) for a family whose callgrind count is
    not the same from one process to the next (median_figure). ValueError names the line."""
    path = os.path.join(_family_bench(family), FAMILY_COUNTS)
    if family == "cases" or not os.path.isfile(path):
        return workloads
    names = {w.name for w in workloads}
    counts = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            try:
                if len(words) not in (3, 4):
                    raise ValueError("want: name count c1,c2 [processes]")
                if words[0] not in names:
                    raise ValueError(f"no workload {words[0]!r} in workloads.txt")
                c1, c2 = (int(x) for x in words[2].split(","))
                count = int(words[1])
                processes = int(words[3]) if len(words) == 4 else 1
                if not (0 < c1 < c2) or count <= 0:
                    raise ValueError("counts must be positive and c1 < c2")
                if not 1 <= processes <= MAX_PROCESSES:
                    raise ValueError(f"processes must be 1 to {MAX_PROCESSES}")
            except ValueError as e:
                raise ValueError(f"{path}:{n}: {e}") from None
            counts[words[0]] = (count, (c1, c2), processes)
    return [replace(w, count=counts[w.name][0], callgrind=counts[w.name][1],
                    processes=counts[w.name][2]) if w.name in counts
            else w for w in workloads]


BENCH_LINE = re.compile(r"^bench (\d+) (\d+) (\d+) (\d+)$")


@dataclass(frozen=True)
class Timed:
    ordinal: int
    count: int
    ns: int
    failed: int

    @property
    def per_event(self) -> float:
        return self.ns / self.count


def parse_bench(output: str) -> List[Timed]:
    """The `bench <ordinal> <count> <ns> <failed>` lines of emit --bench (emitlib/c/bench.h,
    emitlib/rust/bench.rs) and replay_writev; anything else on stdout is ignored here and
    reported by the caller when no line came."""
    return [Timed(*(int(g) for g in m.groups()))
            for m in (BENCH_LINE.match(l.strip()) for l in output.splitlines()) if m]


COUNT_LINE = re.compile(r"^pid (\d+) events (\d+) bytes (\d+)$")


def parse_counts(text: str) -> Tuple[int, int]:
    """The stand-in's count file (EHCONF_STANDIN_COUNT): one line per process that used it;
    (events, bytes) summed. ValueError on a line of another shape."""
    events = size = 0
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = COUNT_LINE.match(line.strip())
        if not m:
            raise ValueError(f"count file line {n}: {line!r}")
        events += int(m.group(2))
        size += int(m.group(3))
    return events, size


TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.M)


def callgrind_total(text: str) -> int:
    """Instructions (Ir) of a callgrind.out file: its `totals:` line (else `summary:`), the
    first event, which is Ir unless --collect options changed that."""
    events = re.search(r"^events:\s+(\S+)", text, re.M)
    if events and events.group(1) != "Ir":
        raise ValueError(f"callgrind counted {events.group(1)} first, not Ir")
    m = TOTALS.search(text)
    if not m:
        raise ValueError("no totals: or summary: line")
    return int(m.group(1))


# The thread hand-off's functions (bench-impls' figure "without hand-offs"): std's channels
# (std::sync::mpsc is mpmc inside), thread parking, and a contended mutex's spin, wait and
# wake. How many times they spin, whether they park and which thread then frees the channel
# follow the kernel's scheduling of the threads, not the program: an emitter whose work is
# passed to a thread of its own (the metrics SDK's periodic reader) counts a different number
# in them from one process, and one machine load, to the next (Documentation/performance.md).
# A single-threaded emitter never enters them.
HANDOFF = ("*std::sync::mpmc::*", "*std::thread::*park*",
           "*std::sys::sync::mutex::futex::Mutex>::lock_contended",
           "*std::sys::sync::mutex::futex::Mutex>::wake")

_COST_LINE = re.compile(r"^[0-9+*-]")
_NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


def callgrind_inside(text: str, patterns=HANDOFF) -> int:
    """Instructions (Ir) of a callgrind.out file spent inside the functions whose names match
    one of `patterns` (fnmatch), their callees included, each instruction once: the sum of
    the inclusive costs of the calls from a function that does not match into one that does.
    Reads callgrind's format (name compression, `calls=` followed by the call's cost line);
    ValueError when the first event is not Ir."""
    events = re.search(r"^events:\s+(\S+)", text, re.M)
    if events and events.group(1) != "Ir":
        raise ValueError(f"callgrind counted {events.group(1)} first, not Ir")
    positions = re.search(r"^positions:\s+(.*)$", text, re.M)
    npos = len(positions.group(1).split()) if positions else 1
    names: dict = {}
    matches: dict = {}
    caller = callee = ""
    after_calls = False
    inside = 0

    def name(value: str) -> str:
        m = _NAMED.match(value)
        if not m:
            return value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), value)

    def match(fn: str) -> bool:
        if fn not in matches:
            matches[fn] = any(fnmatch.fnmatchcase(fn, p) for p in patterns)
        return matches[fn]

    for line in text.splitlines():
        if _COST_LINE.match(line):
            if after_calls:
                words = line.split()
                if len(words) > npos and match(callee) and not match(caller):
                    inside += int(words[npos])
                after_calls = False
        elif line.startswith("fn="):
            caller = name(line[3:])
        elif line.startswith("cfn="):
            callee = name(line[4:])
        elif line.startswith("calls="):
            after_calls = True
    return inside


def per_event(totals: Tuple[int, int], counts: Tuple[int, int]) -> float:
    """Instructions per event from two runs of `counts` events: the difference of the totals
    over the difference of the counts, so what every run does once (start-up, parsing,
    registration, exit) cancels out."""
    if counts[1] <= counts[0]:
        raise ValueError("the second count must be the larger")
    return (totals[1] - totals[0]) / (counts[1] - counts[0])


def median_figure(figures: List[float]) -> float:
    """One repetition's instructions per event from the per_event figures of several process
    pairs: their median. An emitter whose work is shared with a thread of its own (the
    metrics SDK's reader) does not count the same in every process: the threads' interleaving
    under valgrind follows the kernel's scheduling, and with it which thread frees which
    allocation and the paths glibc's malloc then takes (Documentation/performance.md); each
    process keeps its heap's layout to the end, so a longer run does not average it out, more
    processes do. The median, not the mean: one process that fell into an unusual layout
    moves it least. ValueError when there is none."""
    if not figures:
        raise ValueError("no figure")
    return float(statistics.median(figures))


def ratio(value: Optional[float], baseline: Optional[float]) -> Optional[float]:
    """value over baseline, None when either is missing or the baseline is not positive."""
    if value is None or not baseline or baseline <= 0:
        return None
    return value / baseline


def spread(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """How far apart two repetitions are, in percent of the first."""
    if a is None or b is None or a == 0:
        return None
    return abs(b - a) / abs(a) * 100.0


def record_size(dat: bytes) -> Tuple[str, int]:
    """(tracepoint name, event bytes) of the first record of a capture file (the stand-in's
    format: u32 size | name | NUL | event bytes). ValueError if there is none whole."""
    if len(dat) < 4:
        raise ValueError("no record")
    size = int.from_bytes(dat[:4], "little")
    if size < 6 or size > len(dat):
        raise ValueError(f"record size {size} for a file of {len(dat)} bytes")
    body = dat[4:size]
    nul = body.find(b"\0")
    if nul <= 0:
        raise ValueError("no tracepoint name")
    return body[:nul].decode("utf-8", "replace"), len(body) - nul - 1


def cost_cell(doc: Optional[dict], name: str) -> str:
    """impls.md's cost column for implementation `name` from make bench-impls' results
    (bench-impls.json, None when there is none): the enabled 5-field event against a raw
    writev of its bytes, its instructions (saying so when they are a median of processes),
    and the disabled event's."""
    r = (doc or {}).get("implementations", {}).get(name)
    if not r:
        return "not measured"
    if r.get("status") != "measured":
        return "not measured: " + (r.get("why") or "?").replace("|", "/")
    parts = []
    for wname in ("five", "disabled"):
        w = r.get("workloads", {}).get(wname) or {}
        if "ns" not in w:
            continue
        runs = (w.get("instructions") or {}).get("runs")
        processes = (w.get("instructions") or {}).get("processes")
        text = f"{wname}: {w['ns']:,.1f} ns"
        if w.get("ratio") is not None:
            text += f" ({w['ratio']:.2f}x raw writev)"
        if runs:
            text += f", {runs[0]:,.0f} instr"
            steady = ((w.get("instructions") or {}).get("without_handoff") or {}).get("runs")
            if steady and round(steady[0]) != round(runs[0]):
                text += f" ({steady[0]:,.0f} without thread hand-offs)"
            if processes:
                text += f" (median of {len(processes[0])} processes)"
        parts.append(text)
    return ("; ".join(parts) or "not measured") + f" ({doc.get('when', '?')})"
