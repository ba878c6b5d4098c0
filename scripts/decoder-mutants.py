#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`make test-decoder-mutants`: proof that every check of `make check-decoders` can fail.

    scripts/decoder-mutants.py [--only NAME[,NAME...]] [--list] [--build DIR]

Each mutant of scripts/decoder-mutants.txt is one small edit of a decoder: of the checkout
make check-decoders takes (IMPL_SRC_<X> of the decoder's registry row; a mutant whose
checkout is not given is skipped with the variable to pass), or of ehconf's own tree for
ehdecode. First the control: each decoder unchanged through the inputs its mutants name,
and every expected item must pass there, or a mutant's failure would mean nothing. Then
per mutant: a copy of the source with the edit ($EHCONF_CACHE/decoder-mutants/<name>/,
kept so that the next run rebuilds only the edited file), built as make check-decoders
builds it (ASan), run on those inputs by harness/decoders/run_decoders.py --use into
build/decoder-mutants/<name>/, and judged by harness/core/verdicts.py without the decoder's
profile. CAUGHT: an item under `expect:` failed. One line per mutant and
"N passed, N failed, N skipped" (a passed item = a caught mutant); exit 0 iff every mutant
that ran was caught.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, TOP)
import mutant_recipes as recipes  # noqa: E402
from harness.decoders.registry import read_registry  # noqa: E402
from harness.core.verdicts import collect_results, outcome  # noqa: E402

RECIPES = os.path.join(HERE, "decoder-mutants.txt")
OUT = os.path.join(TOP, "build", "decoder-mutants")
CACHE = os.environ.get("EHCONF_CACHE", "/var/cache/ehconf")
BUILD_TIMEOUT = 1200
RUN_TIMEOUT = 900


def parse_recipes(path: str = RECIPES) -> List[recipes.Mutant]:
    mutants = recipes.parse_recipes(path, ("decoder", "inputs"), optional=("profile",))
    for m in mutants:
        if m.profile not in ("", "yes"):
            raise SystemExit(f"{path}: mutant {m.name}: profile: yes, or no profile line")
    return mutants


def _copy_tree(src: str, dst: str, files: List[str]) -> None:
    """The files (relative) of src into dst, times kept, so a build tree kept from the
    last run rebuilds only what the edit changed; a file that differs is replaced."""
    for rel in files:
        a, b = os.path.join(src, rel), os.path.join(dst, rel)
        if os.path.islink(a) or not os.path.isfile(a):
            continue
        if os.path.exists(b) and os.path.getmtime(b) == os.path.getmtime(a) and \
                os.path.getsize(b) == os.path.getsize(a):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        shutil.copy2(a, b)


def _source_files(src: str, ehconf: bool) -> List[str]:
    if ehconf:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode().split("\0")
        return [f for f in out if f]
    found = []
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in (".git", "target", "build", "out")]
        found += [os.path.relpath(os.path.join(root, f), src) for f in files]
    return found


def build_mutant(m: recipes.Mutant, src: str, ehconf: bool, log: str) -> str:
    """The mutated decoder built; its path, or raises RuntimeError naming the log."""
    base = os.path.join(CACHE, "decoder-mutants", m.name)
    tree = os.path.join(base, "src")
    _copy_tree(src, tree, _source_files(src, ehconf))
    shutil.copy2(os.path.join(src, m.file), os.path.join(tree, m.file))  # undo an old edit
    recipes.apply(tree, m)
    with open(log, "w", encoding="utf-8") as f:
        if ehconf:
            cmd = ["nice", "-n", "19", "make", "-C", tree, "-j2", "VARIANT=asan",
                   "build/asan/bin/ehdecode"]
            path = os.path.join(tree, "build", "asan", "bin", "ehdecode")
        else:
            cmd = [os.path.join(TOP, "decoders", m.decoder, "build"), tree,
                   os.path.join(base, "build")]
            path = ""
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=f, timeout=BUILD_TIMEOUT,
                           env=dict(os.environ, EHCONF_DECODER_ASAN="1"))
        out = r.stdout.decode(errors="replace")
        f.write(out)
    if r.returncode != 0:
        raise RuntimeError(f"build failed (log: {os.path.relpath(log, TOP)})")
    return path or out.strip().splitlines()[-1]


def run_decoders(name: str, inputs: List[str], write: str, build: str,
                 use: str = "", profile: bool = False) -> None:
    """Judged without the decoder's profile (a planted fault must fail a check, declared or
    not), or with it (profile: yes, a fault inside a declared difference: the declared item,
    expected failure in the control, must fail)."""
    cmd = [sys.executable, os.path.join(TOP, "harness", "decoders", "run_decoders.py"), "--build", build,
           "--asan-build", os.path.join(os.path.dirname(build), "asan"),
           "--results", os.path.join(os.path.dirname(build), "results"), "--write", write,
           "--decoder", name] + ([] if profile else ["--no-profile"])
    for g in inputs:
        cmd += ["--inputs", g]
    if use:
        cmd += ["--use", f"{name}={use}"]
    shutil.rmtree(os.path.join(write, "decoders", name), ignore_errors=True)
    subprocess.run(cmd, check=True, timeout=RUN_TIMEOUT, stdout=subprocess.DEVNULL)


def judged(write: str, name: str) -> Dict[str, tuple]:
    return {i.ident: outcome(i) for i in collect_results(write, ("decoder",), name)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--build", default=os.path.join(TOP, "build", "gcc"))
    args = ap.parse_args(argv)
    mutants = parse_recipes()
    registry = {d.name: d for d in read_registry()}
    if args.only:
        want = set(args.only.split(","))
        mutants = [m for m in mutants if m.name in want]
    if args.list:
        for m in mutants:
            print(f"{m.name:34} {m.decoder:12} {m.what}")
        return 0
    passed = failed = skipped = 0
    os.makedirs(OUT, exist_ok=True)
    # One control per decoder and way of judging (without its profile, or with it).
    control: Dict[Tuple[str, str], Dict[str, tuple]] = {}
    by_decoder: Dict[Tuple[str, str], List[recipes.Mutant]] = {}
    for m in mutants:
        by_decoder.setdefault((m.decoder, m.profile), []).append(m)
    for (name, profile), ms in by_decoder.items():
        d = registry[name]
        if not d.reference and not os.environ.get(d.variable):
            continue
        write = os.path.join(OUT, "control" + ("-profile" if profile else ""))
        run_decoders(name, [m.inputs for m in ms], write, args.build, profile=bool(profile))
        control[(name, profile)] = judged(write, name)
    for m in mutants:
        d = registry[m.decoder]
        t0 = time.monotonic()
        src = TOP if d.reference else os.environ.get(d.variable, "")
        if not src:
            print(f"SKIP   {m.name}: no checkout of {d.upstream}: pass {d.variable}=<path>")
            skipped += 1
            continue
        ids = [f"decoder/{m.decoder}/{e}" for e in m.expect]
        # Judged with the profile, a declared item holds as declared (xfail).
        holds = ("pass", "xfail") if m.profile else ("pass",)
        bad_control = [i for i in ids
                       if control[(m.decoder, m.profile)].get(i, ("missing",))[0] not in holds]
        if bad_control:
            print(f"FAILED {m.name}: the control does not pass {', '.join(bad_control)}, so "
                  f"the mutant would prove nothing")
            failed += 1
            continue
        write = os.path.join(OUT, m.name)
        os.makedirs(write, exist_ok=True)
        try:
            path = build_mutant(m, src, d.reference, os.path.join(write, "build.log"))
            run_decoders(m.decoder, [m.inputs], write, args.build, use=path,
                         profile=bool(m.profile))
        except (RuntimeError, subprocess.SubprocessError, OSError) as e:
            print(f"FAILED {m.name}: {e}")
            failed += 1
            continue
        got = judged(write, m.decoder)
        hit = [i for i in ids if got.get(i, ("missing",))[0] == "fail"]
        secs = time.monotonic() - t0
        if hit:
            first = (got[hit[0]][1].strip().splitlines() or [""])[0][:140]
            print(f"CAUGHT {m.name} ({secs:.0f} s): {hit[0]}: {first}")
            passed += 1
        else:
            print(f"MISSED {m.name} ({secs:.0f} s): none of {', '.join(ids)} failed "
                  f"({', '.join(got.get(i, ('missing',))[0] for i in ids)})")
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
