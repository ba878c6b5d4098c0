# SPDX-License-Identifier: GPL-2.0
"""Runs INSIDE the QEMU guest (make bench-impls-vm, through vm/run): make bench-impls' timed
half on the real kernel, for the emitters the host run measured (its bench-impls.json).

    python3 harness/impl/guest_bench.py --doc HOST/bench-impls.json --results DIR
                                         [--build build/gcc] [--count N] [--rounds N]

The tracepoints of the captures the host run kept (one per implementation and workload file)
are held by ehregister and enabled through ftrace (tracefs `events/user_events/<name>/enable`:
the events go to the kernel's trace ring buffer, which overwrites itself, where perf would
write a file as large as the run into the guest's small /tmp); then each implementation's
`emit --bench N FILE` and replay_writev of its captured event, interleaved, best of the
rounds, each run's failed writes kept (a write the kernel refused is a run that measured
nothing); the tracepoints disabled again, the disabled workload. Under TCG every figure is
an emulated CPU's: coarse, and comparable only within one run. Writes DIR/bench-impls-vm.json
and prints a table. Standard library only (the guest runs the host's python3)."""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.impl.bench_figures import Workload, parse_bench, record_size  # noqa: E402
from harness.vm.guest_run import HOLD, T_REGISTER, TRACING, UE_DATA, log, wait_ready  # noqa: E402
from harness.core.processes import run, start, stop  # noqa: E402
from harness.core.ehdecode import decoder_script, definitions  # noqa: E402
from harness.impl.registry import read_registry  # noqa: E402
from harness.core.standin import live_env  # noqa: E402

T_RUN = 300


def _best(argv, rounds: int, note: list):
    """(best ns per event, failed writes of the runs)."""
    best, failed = None, 0
    for _ in range(rounds):
        r = run(argv, T_RUN, live_env(), merge_stderr=False)
        lines = parse_bench(r.output)
        if r.how() and not lines:
            note.append(f"{' '.join(argv[:2])}: {r.how()}: {(r.stderr.strip().splitlines() or [''])[-1][:150]}")
            return None, failed
        if lines:
            failed += lines[0].failed
            best = lines[0].per_event if best is None else min(best, lines[0].per_event)
    return best, failed


def _ftrace(names, on: bool, note: list) -> None:
    for n in names:
        path = os.path.join(TRACING, "events", "user_events", n, "enable")
        try:
            with open(path, "w") as f:
                f.write("1" if on else "0")
        except OSError as e:
            note.append(f"{path}: {e}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doc", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--build", default="build/gcc")
    ap.add_argument("--count", type=int, default=50000)  # the guest clock is coarse: long runs
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    with open(args.doc, encoding="utf-8") as f:
        doc = json.load(f)
    host = os.path.dirname(os.path.abspath(args.doc))
    replay = os.path.join(args.build, "bench", "replay_writev")
    ws = {w["name"]: Workload(w["name"], w["description"], w["listening"], w["count"],
                              tuple(w["callgrind"])) for w in doc["workloads"]}
    plan = []  # (impl, workload, emitter, file, capture, tracepoint)
    for name, r in doc["implementations"].items():
        if r.get("status") != "measured":
            continue
        for wname, w in ws.items():
            path = w.inputs_for(r["inputs"])
            dat = path and os.path.join(host, "captures", f"{name}-{os.path.basename(path)}.dat")
            if path and os.path.exists(dat):
                with open(dat, "rb") as f:
                    plan.append((name, w, r["emitter"], path, dat, record_size(f.read())[0]))
    res = {"kernel": os.uname().release, "count": args.count, "rounds": args.rounds, "results": {},
           "notes": [], "steps": {}}
    os.makedirs(args.results, exist_ok=True)
    if not os.path.exists(UE_DATA):
        res["notes"].append("the kernel has no user_events")
    names = sorted({p[5] for p in plan})
    n = str(args.count)
    # A producer that is not EventHeader registers its tracepoint with its own fields, and
    # the kernel takes a second registration only with the same: its decoder says which.
    defs = {}
    for impl in read_registry():
        defs.update(definitions(decoder_script(impl.decoder)))
    reg = start([os.path.join(args.build, "bin", "ehregister"), "--hold", str(HOLD)]
                + [defs.get(n, n) for n in names])
    try:
        why = wait_ready(reg, T_REGISTER)
        if why:
            res["notes"].append(why)
            raise RuntimeError(why)
        _ftrace(names, True, res["notes"])
        for name, w, emitter, path, dat, _ in plan:
            if not w.listening:
                continue
            log(f"bench-impls-vm: {name} {w.name}")
            ns, failed = _best([emitter, "--bench", n, path], args.rounds, res["notes"])
            raw, raw_failed = _best([replay, n, dat], args.rounds, res["notes"])
            res["results"].setdefault(name, {})[w.name] = {
                "ns": ns, "raw_ns": raw, "ratio": ns / raw if ns and raw else None,
                "failed": failed, "raw_failed": raw_failed}
        _ftrace(names, False, res["notes"])
        for name, w, emitter, path, dat, _ in plan:
            if w.listening:
                continue
            log(f"bench-impls-vm: {name} {w.name} (tracing off)")
            ns, _ = _best([emitter, "--bench", n, path], args.rounds, res["notes"])
            res["results"].setdefault(name, {})[w.name] = {"ns": ns}
    except RuntimeError:
        pass
    finally:
        stop(reg, 10)
    with open(os.path.join(args.results, "bench-impls-vm.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    cols = list(ws)
    print(f"| implementation | {' | '.join(cols)} |  (kernel {res['kernel']}, TCG: coarse)")
    for name, per in res["results"].items():
        cells = []
        for c in cols:
            x = per.get(c) or {}
            cell = "-" if x.get("ns") is None else f"{x['ns']:,.0f} ns"
            if x.get("ratio"):
                cell += f" ({x['ratio']:.2f}x raw {x['raw_ns']:,.0f} ns)"
            if x.get("failed") or x.get("raw_failed"):
                cell += f" [failed writes: {x.get('failed')} / raw {x.get('raw_failed')}]"
            cells.append(cell)
        print(f"| {name} | {' | '.join(cells)} |")
    for note in res["notes"]:
        print("note:", note)
    return 0 if res["results"] else 1


if __name__ == "__main__":
    sys.exit(main())
