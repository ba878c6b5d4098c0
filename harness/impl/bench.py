#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-impls: what an event costs in each implementation, side by side.

    harness/impl/bench.py --build B --results R [--impls all|a,b] [--rounds N] [--callgrind 0|1]

For every implementation of impl/implementations.txt whose emitter builds (checkouts from
the IMPL_SRC_<X> variables, as make check-impl takes them) and has a workload file for its
inputs, and for every workload of tests/bench/impls/workloads.txt (with the counts of
impl/<name>/bench/counts.txt where a producer has its own):
  - ns per event: `emit --bench COUNT FILE` under the stand-in in count mode (every write
    checked, counted and passed to /dev/null, nothing stored), best of N rounds; each round
    also runs replay_writev, a raw writev() of the bytes that implementation wrote for the
    same event, and the ratio is best over best (the two interleaved, so both see the same
    minutes of a shared machine);
  - instructions per event: the same two programs under `valgrind --tool=callgrind` at two
    counts, the difference over the difference (start-up cancels), twice, with the spread
    of the two repetitions; a family whose counts.txt names more processes (an emitter whose
    count differs from one process to the next) takes each repetition as the median of that
    many such pairs;
  - the stand-in's count of every run held to what the workload writes: COUNT events of the
    size the capture shows, or none when nobody listens (a mismatch is reported, and the
    figure is kept out).
Figures only: the exit status is 1 only when nothing at all could be measured. Writes
R/bench-impls.json (impls.md's cost column reads it), R/bench-impls.md and R/callgrind/
(the callgrind.out files, for callgrind_annotate)."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shutil
import sys
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.impl.bench_contract import cell as contract_cell, disabled_write  # noqa: E402
from harness.impl.bench_figures import (Workload, WORKLOADS_DIR, callgrind_inside,  # noqa: E402
                           callgrind_total, for_family, median_figure, parse_bench, parse_counts, per_event, ratio,
                           read_workloads, record_size, spread)
from harness.core.common import REPO_ROOT, display_path  # noqa: E402
from harness.impl.registry import CRATES, Impl, read_registry  # noqa: E402
from harness.core.processes import run  # noqa: E402
from harness.core.standin import count_env, standin_env, standin_path  # noqa: E402

BUILD_TIMEOUT = 900
RUN_TIMEOUT = 300
RESULTS_JSON = "bench-impls.json"
SIZE_SLACK = 0.02  # Bench._check


def results_json(results_root: str) -> str:
    """Where make bench-impls leaves its figures under a results folder (build/results)."""
    return os.path.join(results_root, "bench-impls", RESULTS_JSON)


def _events_dir(out: str) -> str:
    """The workloads' case descriptions and the type table, the folder the builds that
    compile descriptions in (lttp-c's gen, rust-macro's build.rs) are pointed at."""
    d = os.path.join(out, "events")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(WORKLOADS_DIR):
        if f.endswith(".events"):
            shutil.copyfile(os.path.join(WORKLOADS_DIR, f), os.path.join(d, f))
    shutil.copyfile(os.path.join(REPO_ROOT, "descriptions", "types.txt"),
                    os.path.join(d, "types.txt"))
    return d


def build_emitter(impl: Impl, build: str, out: str, events: str) -> Tuple[str, str]:
    """(emitter, "") or ("", why not)."""
    if impl.checkout == "-":
        path = os.path.join(build, "impl", impl.name, "emit")
        return (path, "") if os.access(path, os.X_OK) else ("", f"{display_path(path)} is not built")
    src = "-" if impl.checkout == CRATES else os.environ.get(impl.variable, "")
    if not src:
        return "", f"no checkout: pass {impl.variable}=<path>"
    where = os.path.join(out, "build", impl.name)
    os.makedirs(where, exist_ok=True)
    # The bench's own build: its descriptions compiled in, the macros at -O2 (lttp-c).
    env = {"EHCONF_EVENTS_DIR": events, "GENCASE_OPT": "-O2"}
    r = run(["nice", "-n", "19", os.path.join(impl.folder, "build"),
             src if src == "-" else os.path.abspath(src), where],
            BUILD_TIMEOUT, env, merge_stderr=False)
    with open(os.path.join(where, "bench-build.log"), "w", encoding="utf-8") as f:
        f.write(r.output + "\n--- stderr ---\n" + r.stderr)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    if r.how() or not os.access(last, os.X_OK):
        why = (r.stderr.strip().splitlines() or [r.how() or "no emitter path printed"])[-1]
        return "", f"build failed: {why}"
    return last, ""


class Bench:
    def __init__(self, build: str, out: str, rounds: int, callgrind: bool):
        self.build, self.out, self.rounds, self.callgrind = build, out, rounds, callgrind
        self.standin = standin_path(build)
        self.replay = os.path.join(build, "bench", "replay_writev")
        self.counts = os.path.join(out, "counts.txt")
        self.commands: Dict[str, str] = {}
        self.last_cpu = 0.0

    def _counted(self, argv: List[str], listening: bool, what: str,
                 valgrind: Optional[str] = None) -> Tuple[Optional[object], Tuple[int, int], str]:
        """Runs argv under the stand-in in count mode: (its Timed line or None, the
        stand-in's (events, bytes), why it failed or "")."""
        if os.path.exists(self.counts):
            os.remove(self.counts)
        full = argv
        if valgrind:
            full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + valgrind] + argv
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = run(full, RUN_TIMEOUT * (10 if valgrind else 1), count_env(self.standin, self.counts, listening),
                merge_stderr=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # The run's CPU time (user + sys; its start-up included, a few ms against the
        # loop's tenths of a second): steadier than wall time when others share the cores.
        self.last_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        self.commands.setdefault(what, " ".join(["LD_PRELOAD=" + display_path(self.standin),
                                                 "EHCONF_STANDIN_COUNT=counts.txt"]
                                                + ([] if listening else ["EHCONF_STANDIN_LISTENING=0"])
                                                + [display_path(a) if os.path.isabs(a) else a for a in full]))
        lines = parse_bench(r.output)
        try:
            with open(self.counts, encoding="utf-8") as f:
                counted = parse_counts(f.read())
        except (OSError, ValueError) as e:
            counted = (-1, -1)
            if not r.how():
                return None, counted, f"no count from the stand-in: {e}"
        if r.how() and not (lines and r.returncode == 1 and not listening):
            tail = (r.stderr.strip().splitlines() or [""])[-1][:200]
            return None, counted, f"{r.how()}: {tail}"
        if len(lines) != 1:
            return None, counted, f"{len(lines)} bench lines in its output"
        return lines[0], counted, ""

    def capture(self, emitter: str, path: str, tag: str) -> Tuple[str, int, str]:
        """One event of the workload file, written into a capture: (its file, its event
        bytes, why not)."""
        dat = os.path.join(self.out, "captures", tag + ".dat")
        os.makedirs(os.path.dirname(dat), exist_ok=True)
        if os.path.exists(dat):
            os.remove(dat)
        r = run([emitter, "--bench", "1", path], RUN_TIMEOUT, standin_env(self.standin, dat),
                merge_stderr=False)
        if not parse_bench(r.output):
            why = (r.stderr.strip().splitlines() or [r.how() or "no bench line"])[-1][:200]
            return "", 0, f"no --bench mode ({why})"
        try:
            with open(dat, "rb") as f:
                return dat, record_size(f.read())[1], ""
        except (OSError, ValueError) as e:
            return "", 0, f"capture: {e}"

    def _check(self, counted: Tuple[int, int], w: Workload, n: int, size: int) -> str:
        """The stand-in's count against the workload: exactly n events (none when nobody
        listens), of the captured event's size on average within SIZE_SLACK (an event that
        holds the time as text, as OpenTelemetry's logs exporter writes it, is a few bytes
        longer or shorter from one write to the next)."""
        want = (n, n * (4 + size)) if w.listening else (0, 0)
        if counted[0] != want[0] or abs(counted[1] - want[1]) > SIZE_SLACK * want[1]:
            return (f"the stand-in counted {counted[0]} events, {counted[1]} bytes; the "
                    f"workload writes {want[0]} events, {want[1]} bytes")
        return ""

    def timed(self, emitter: str, path: str, dat: str, size: int, w: Workload) -> dict:
        res: dict = {"count": w.count, "callgrind_counts": list(w.callgrind), "event_bytes": size,
                     "rounds": [], "raw_rounds": [],
                     "cpu_rounds": [], "raw_cpu_rounds": []}
        for _ in range(self.rounds):
            t, counted, why = self._counted([emitter, "--bench", str(w.count), path], w.listening,
                                            "emit")
            why = why or self._check(counted, w, w.count, size)
            if why:
                res["error"] = why
                return res
            res["rounds"].append(t.per_event)
            res["cpu_rounds"].append(self.last_cpu * 1e9 / w.count)
            res["failed"] = t.failed
            if w.listening:
                t, counted, why = self._counted([self.replay, str(w.count), dat], True, "raw")
                why = why or self._check(counted, w, w.count, size)
                if why:
                    res["error"] = "raw writev: " + why
                    return res
                res["raw_rounds"].append(t.per_event)
                res["raw_cpu_rounds"].append(self.last_cpu * 1e9 / w.count)
        res["ns"] = min(res["rounds"])
        res["raw_ns"] = min(res["raw_rounds"]) if res["raw_rounds"] else None
        res["ratio"] = ratio(res["ns"], res["raw_ns"])
        res["cpu_ns"] = min(res["cpu_rounds"])
        res["raw_cpu_ns"] = min(res["raw_cpu_rounds"]) if res["raw_cpu_rounds"] else None
        res["cpu_ratio"] = ratio(res["cpu_ns"], res["raw_cpu_ns"])
        return res

    def instructions(self, argv_of, tag: str, w: Workload, size: int, raw: bool) -> dict:
        """Instructions per event, twice: {"runs": [a, b], "spread_pct": ...,
        "without_handoff": {"runs": [a, b], "spread_pct": ...}} or an error. The second
        figure leaves out the instructions inside the thread hand-off's functions
        (bench_figures.HANDOFF: none in a single-threaded emitter). Each repetition is the
        median of w.processes pairs of runs (median_figure; the pairs' figures under
        "processes" when more than one); the raw writev's repetitions are one pair each (a
        single thread: every process counts the same)."""
        runs, steady, every, every_steady = [], [], [], []
        processes = 1 if raw else w.processes
        for rep in (1, 2):
            figures, steadies = [], []
            for p in range(1, processes + 1):
                totals, handoff = [], []
                for n in w.callgrind:
                    name = f"{tag}-{rep}-{n}" + (f"-p{p}" if processes > 1 else "")
                    out = os.path.join(self.out, "callgrind", name + ".out")
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    _, counted, why = self._counted(argv_of(n), w.listening or raw,
                                                    "callgrind raw" if raw else "callgrind emit", out)
                    why = why or self._check(counted, w if not raw else _listening(w), n, size)
                    if why:
                        return {"error": why}
                    try:
                        with open(out, encoding="utf-8", errors="replace") as f:
                            text = f.read()
                        totals.append(callgrind_total(text))
                        handoff.append(callgrind_inside(text))
                    except (OSError, ValueError) as e:
                        return {"error": f"{display_path(out)}: {e}"}
                figures.append(per_event((totals[0], totals[1]), w.callgrind))
                steadies.append(per_event((totals[0] - handoff[0], totals[1] - handoff[1]),
                                          w.callgrind))
            every.append(figures)
            every_steady.append(steadies)
            runs.append(median_figure(figures))
            steady.append(median_figure(steadies))
        res = {"runs": runs, "spread_pct": spread(runs[0], runs[1]),
               "without_handoff": {"runs": steady, "spread_pct": spread(steady[0], steady[1])}}
        if processes > 1:
            res["processes"] = every
            res["without_handoff"]["processes"] = every_steady
        return res


def _listening(w: Workload) -> Workload:
    return replace(w, listening=True)


def measure(impl: Impl, bench: Bench, workloads: List[Workload], events: str) -> dict:
    out: dict = {"language": impl.language, "inputs": impl.family}
    emitter, why = build_emitter(impl, bench.build, bench.out, events)
    if not emitter:
        return dict(out, status="not measured", why=why)
    out["emitter"] = display_path(emitter)
    if bench.callgrind:
        print(f"bench-impls: {impl.name}: a write with nobody listening (--contract, callgrind)",
              flush=True)
        out["contract_disabled"] = disabled_write(
            emitter, bench.standin, os.path.join(bench.out, "callgrind", impl.name + "-contract"))
    try:
        workloads = for_family(workloads, impl.family)
    except ValueError as e:
        return dict(out, status="not measured", why=str(e))
    if not any(w.inputs_for(impl.family) for w in workloads):
        # A new producer's workload files are impl/<name>/bench/<workload>.inputs.
        return dict(out, status="not measured",
                    why=f"no workload for its inputs ({impl.family}): impl/{impl.family}/bench/ "
                        f"has none")
    measured: Dict[str, dict] = {}
    captures: Dict[str, Tuple[str, int, str]] = {}
    for w in workloads:
        path = w.inputs_for(impl.family)
        if not path:
            measured[w.name] = {"error": f"no workload file for inputs {impl.family} "
                                         f"(impl/{impl.family}/bench/)"}
            continue
        if path not in captures:
            captures[path] = bench.capture(emitter, path, f"{impl.name}-{os.path.basename(path)}")
        dat, size, why = captures[path]
        if why:
            measured[w.name] = {"error": why}
            continue
        print(f"bench-impls: {impl.name} {w.name}: timing ({bench.rounds} rounds)", flush=True)
        res = bench.timed(emitter, path, dat, size, w)
        if bench.callgrind and "error" not in res:
            print(f"bench-impls: {impl.name} {w.name}: callgrind", flush=True)
            res["instructions"] = bench.instructions(
                lambda n: [emitter, "--bench", str(n), path], f"{impl.name}-{w.name}", w, size, False)
            if w.listening:
                res["raw_instructions"] = bench.instructions(
                    lambda n: [bench.replay, str(n), dat], f"{impl.name}-{w.name}-raw", w, size, True)
        measured[w.name] = res
    ok = any("ns" in r for r in measured.values())
    return dict(out, status="measured" if ok else "not measured",
                why="" if ok else "; ".join(sorted({r.get("error", "") for r in measured.values()})),
                workloads=measured)


# ---- the table ----------------------------------------------------------------------------

def _num(x: Optional[float], digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def _instr(res: dict, key: str) -> Optional[float]:
    runs = (res.get(key) or {}).get("runs")
    return runs[0] if runs else None


def _steady(ins: Optional[dict]) -> Optional[float]:
    """The first repetition's figure without the thread hand-off's instructions, when it
    differs from the raw one (never in a single-threaded emitter)."""
    runs = ((ins or {}).get("without_handoff") or {}).get("runs")
    if not runs or round(runs[0]) == round((ins or {}).get("runs", [runs[0]])[0]):
        return None
    return runs[0]


def cell(res: Optional[dict], listening: bool) -> str:
    """One workload of one implementation: ns (ratio to raw), instructions (raw's)."""
    if not res:
        return "not measured"
    if "error" in res and "ns" not in res:
        return "not measured: " + res["error"].replace("|", "/")
    text = f"{_num(res['ns'], 1)} ns"
    if listening:
        text += f" ({_num(res.get('ratio'), 2)}x raw {_num(res.get('raw_ns'), 0)} ns)"
    if res.get("cpu_ns") is not None:
        text += f", CPU {_num(res['cpu_ns'], 1)} ns"
        if listening:
            text += f" ({_num(res.get('cpu_ratio'), 2)}x raw {_num(res.get('raw_cpu_ns'), 0)} ns)"
    ins = _instr(res, "instructions")
    if ins is not None:
        text += f"; {_num(ins)} instr"
        steady = _steady(res.get("instructions"))
        if steady is not None:
            text += f" ({_num(steady)} without hand-offs)"
        raw = _instr(res, "raw_instructions")
        if raw is not None:
            text += f" (raw {_num(raw)})"
    elif "instructions" in res:
        text += "; callgrind: " + res["instructions"].get("error", "?")
    return text


def table(doc: dict) -> List[str]:
    names = [w["name"] for w in doc["workloads"]]
    listening = {w["name"]: w["listening"] for w in doc["workloads"]}
    out = ["| implementation | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for name, r in doc["implementations"].items():
        if r["status"] != "measured":
            out.append(f"| {name} | " + " | ".join(["not measured: " + r.get("why", "")] * 1
                                                    + [""] * (len(names) - 1)) + " |")
            continue
        out.append(f"| {name} | " + " | ".join(cell(r["workloads"].get(n), listening[n])
                                              for n in names) + " |")
    return out


def ranks(doc: dict) -> List[str]:
    """Each implementation's rank per workload by instructions per event (the figure that
    repeats; 1 is the fewest, equal counts share a rank), with its CPU ratio to the raw
    writev beside it, as a table (issue 42: which implementation is the cheapest writer)."""
    names = [w["name"] for w in doc["workloads"]]
    measured = {name: r for name, r in doc["implementations"].items() if r["status"] == "measured"}
    if not measured:
        return []
    cells: Dict[str, List[str]] = {name: [] for name in measured}
    for w in names:
        figures = {name: _instr(r["workloads"].get(w) or {}, "instructions")
                   for name, r in measured.items()}
        ranked = [f for f in figures.values() if f is not None]
        for name, r in measured.items():
            f = figures[name]
            if f is None:
                cells[name].append("-")
                continue
            rank = 1 + sum(1 for g in ranked if round(g) < round(f))
            text = f"{rank} of {len(ranked)} ({_num(f)} instr"
            cpu = (r["workloads"].get(w) or {}).get("cpu_ratio")
            if cpu is not None:
                text += f", CPU {_num(cpu, 2)}x raw"
            cells[name].append(text + ")")
    out = ["| implementation | " + " | ".join(f"rank, {w}" for w in names) + " |",
           "|---" * (len(names) + 1) + "|"]
    out += [f"| {name} | " + " | ".join(c) + " |" for name, c in cells.items()]
    return out


def _repetition(res: dict, i: int) -> str:
    """One repetition's figure; with the processes it is the median of, their range."""
    text = f"{res['runs'][i]:,.1f}"
    every = (res.get("processes") or [])
    if len(every) > i and len(every[i]) > 1:
        text += f" (median of {len(every[i])}: {min(every[i]):,.1f}-{max(every[i]):,.1f})"
    return text


def reproducibility(doc: dict) -> List[str]:
    out = []
    handoffs = False
    for name, r in doc["implementations"].items():
        for wname, res in (r.get("workloads") or {}).items():
            for key in ("instructions", "raw_instructions"):
                runs = (res.get(key) or {}).get("runs")
                if runs:
                    out.append(f"| {name} | {wname}{' raw' if key.startswith('raw') else ''} | "
                               f"{_repetition(res[key], 0)} | {_repetition(res[key], 1)} | "
                               f"{res[key]['spread_pct']:.3f}% |")
                    steady = res[key].get("without_handoff")
                    if _steady(res[key]) is not None:
                        handoffs = True
                        out.append(f"| {name} | {wname}{' raw' if key.startswith('raw') else ''}"
                                   f" without hand-offs | {_repetition(steady, 0)} | "
                                   f"{_repetition(steady, 1)} | {steady['spread_pct']:.3f}% |")
    head = ["| implementation | workload | callgrind run 1 | run 2 | spread |",
            "|---|---|---|---|---|"]
    note = (["", "Without hand-offs: less the instructions inside std's channels, thread parking "
             "and a contended mutex (bench_figures.HANDOFF), whose count follows the threads' "
             "scheduling; the rows without such a line never enter them."] if handoffs else [])
    return (head + out + note) if out else []


def markdown(doc: dict) -> str:
    lines = [f"# make bench-impls, {doc['when']}", "",
             f"{doc['machine']}; best of {doc['rounds']} rounds; ns per event under the stand-in in "
             "count mode, wall (the emitter's own clock around its loop) and CPU (the process's "
             "user + sys time over the count); instructions per event under callgrind.", ""] + table(doc) + [""]
    contract = [f"| {name} | {contract_cell(r.get('contract_disabled'))} |"
                for name, r in doc["implementations"].items() if "contract_disabled" in r]
    if contract:
        lines += ["A write with nobody listening, through `emit --contract` (harness/impl/bench_contract.py):",
                  "", "| implementation | instructions per command, the protocol loop included |", "|---|---|"] + contract + [""]
    rank = ranks(doc)
    if rank:
        lines += ["Rank per workload by instructions per event (1: the fewest):", ""] + rank + [""]
    rep = reproducibility(doc)
    if rep:
        lines += ["Callgrind, two repetitions:", ""] + rep + [""]
    lines += ["Commands (one of each kind):", ""] + [f"- {k}: `{v}`" for k, v in
                                                     sorted(doc["commands"].items())] + [""]
    return "\n".join(lines)


def _machine() -> str:
    model = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {model}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--impls", default="all")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--callgrind", choices=("0", "1"), default="1")
    args = ap.parse_args(argv)
    registry = read_registry()
    wanted = [i.name for i in registry] if args.impls == "all" else args.impls.split(",")
    unknown = sorted(set(wanted) - {i.name for i in registry})
    if unknown:
        print(f"bench-impls: unknown implementation(s) {', '.join(unknown)}", file=sys.stderr)
        return 2
    workloads = read_workloads()
    os.makedirs(args.results, exist_ok=True)
    callgrind = args.callgrind == "1" and shutil.which("valgrind") is not None
    bench = Bench(args.build, args.results, max(1, args.rounds), callgrind)
    for need in (bench.standin, bench.replay):
        if not os.path.exists(need):
            print(f"bench-impls: {display_path(need)} is not built (make all)", file=sys.stderr)
            return 1
    events = _events_dir(args.results)
    doc = {"when": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": _machine(), "rounds": bench.rounds, "callgrind": callgrind,
           "workloads": [dict(name=w.name, description=w.description, listening=w.listening,
                              count=w.count, callgrind=list(w.callgrind)) for w in workloads],
           "implementations": {}, "commands": bench.commands}
    if args.callgrind == "1" and not callgrind:
        print("bench-impls: valgrind is not installed (make deps): no instruction counts")
    for impl in registry:
        if impl.name in wanted:
            print(f"bench-impls: {impl.name}", flush=True)
            doc["implementations"][impl.name] = measure(impl, bench, workloads, events)
    with open(os.path.join(args.results, RESULTS_JSON), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    text = markdown(doc)
    with open(os.path.join(args.results, "bench-impls.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    return 0 if any(r["status"] == "measured" for r in doc["implementations"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
