#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-decoders: the decoders of decoders/decoders.txt side by side on one file.

    harness/decoders/bench.py --build B --results R [--rounds N]

The file is `make bench`'s mixed perf.data (1,500,000 events of five shapes, written by
`bench_decode --write-mixed`); every decoder that builds (harness/decoders/registry.py:
built_decoders, release builds against the IMPL_SRC_<X> checkouts) decodes it to /dev/null,
ehdecode twice (one job, and its default: one job per CPU). Per decoder, the best of N runs:
wall time, events per second, CPU time (user + sys, the steadier figure on a shared machine),
peak RSS, and the wall time as a ratio to ehdecode with one job in the same run. Figures
only. Writes R/bench-decoders.json and R/bench-decoders.md."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import List

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.common import display_path  # noqa: E402
from harness.decoders.registry import built_decoders  # noqa: E402

NEVENTS = 1_500_000  # tests/bench/bench_decode.c's NEVENTS
TIMEOUT = 900


def parse_measured(line: str) -> dict:
    """run_measured's line: wall s, cpu s, peak RSS in MB, exit status."""
    w = line.split()
    if len(w) != 8 or w[0::2] != ["wall", "cpu", "maxrss_kb", "status"]:
        raise ValueError(f"run_measured said {line!r}")
    return {"wall": float(w[1]), "cpu": float(w[3]), "rss_mb": int(w[5]) / 1024.0,
            "status": int(w[7])}


def timed(measure: str, argv: List[str]) -> dict:
    """One run to /dev/null through run_measured (harness/impl/run_measured.c)."""
    r = subprocess.run([measure] + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=TIMEOUT, check=False)
    return parse_measured(r.stdout.decode("utf-8", "replace").strip())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    os.makedirs(args.results, exist_ok=True)
    mixed = os.path.join(args.results, "mixed.perf.data")
    writer = os.path.join(args.build, "bench", "bench_decode")
    measure = os.path.join(args.build, "bench", "run_measured")
    if not os.path.exists(mixed):
        if subprocess.run([writer, "--write-mixed", mixed], timeout=TIMEOUT).returncode != 0:
            print(f"bench-decoders: {display_path(writer)} could not write the file", file=sys.stderr)
            return 1
    runs = []
    for d, path in built_decoders(args.build, os.path.join(args.results, "build")):
        if d.reference:
            runs.append((d.name + " --jobs 1", [path, "--jobs", "1", mixed]))
            runs.append((d.name + f" (default: --jobs {os.cpu_count()})", [path, mixed]))
        else:
            runs.append((d.name, [path, mixed]))
    best = {name: None for name, _ in runs}
    for _ in range(max(1, args.rounds)):  # interleaved: each decoder sees the same minutes
        for name, cmd in runs:
            print(f"bench-decoders: {name}", flush=True)
            r = timed(measure, cmd)
            if best[name] is None or r["wall"] < best[name]["wall"]:
                best[name] = dict(r, command=" ".join(display_path(a) if os.path.isabs(a) else a
                                                      for a in cmd))
    base = next((r for n, r in best.items() if n.endswith("--jobs 1")), None)
    lines = ["| decoder | wall (best of %d) | M events/s | CPU s | peak RSS | wall / ehdecode one job | exit |"
             % args.rounds, "|---|---|---|---|---|---|---|"]
    for name, r in best.items():
        ratio = f"{r['wall'] / base['wall']:.2f}x" if base else "-"
        lines.append(f"| {name} | {r['wall']:.2f} s | {NEVENTS / r['wall'] / 1e6:.2f} | "
                     f"{r['cpu']:.2f} | {r['rss_mb']:.1f} MB | {ratio} | {r['status']} |")
    doc = {"file": display_path(mixed), "events": NEVENTS,
           "bytes": os.path.getsize(mixed), "rounds": args.rounds, "decoders": best}
    with open(os.path.join(args.results, "bench-decoders.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
    text = "\n".join([f"# make bench-decoders: {NEVENTS:,} events, "
                      f"{os.path.getsize(mixed) / 1e6:.1f} MB of perf.data", ""] + lines + [""]
                     + [f"- {n}: `{r['command']}`" for n, r in best.items()] + [""])
    with open(os.path.join(args.results, "bench-decoders.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    return 0 if best else 1


if __name__ == "__main__":
    sys.exit(main())
