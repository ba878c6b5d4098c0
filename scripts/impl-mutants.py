#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`make test-impl-mutants`: proof that `make check-impl` catches bugs in the
implementations it judges.

    scripts/impl-mutants.py [--only NAME[,NAME...]] [--list] [--build DIR]

Each mutant of impl/<name>/mutants.txt is one small edit of an implementation at the
commit ehconf pins. The checkouts are the ones make check-impl takes (IMPL_SRC_<X> of the
mutant's registry row); a mutant whose checkout is not given is skipped with the variable
to pass. First the control: each implementation's unchanged checkout through the runs its
mutants need (offline; the real kernel too when one of them expects an impl-vm item), and
every expected item must pass there, or a mutant's failure would mean nothing. Then per
mutant: a copy of the checkout with the edit ($EHCONF_CACHE/impl-mutants/<name>/, never
the checkout itself), the same runs into build/impl-mutants/<name>/, and the items judged
by harness/core/verdicts.py, as pytest and impls.md judge them. CAUGHT: an item under
`expect:` failed. One line per mutant, a table in build/impl-mutants/report.md, and
"N passed, N failed, N skipped" (a passed item = a caught mutant). Exit 0 iff every
mutant that ran was caught.

Environment: EHCONF_CACHE, EHCONF_VM_TIMEOUT (the boot, default 1200 s).
"""

from __future__ import annotations

import argparse
import glob
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
from harness.impl.registry import CRATES, read_registry, resolve  # noqa: E402
from harness.core.verdicts import collect_results, outcome  # noqa: E402

RECIPES = "mutants.txt"  # in each implementation's folder, impl/<name>/mutants.txt
OUT = os.path.join(TOP, "build", "impl-mutants")
CACHE = os.environ.get("EHCONF_CACHE", "/var/cache/ehconf")
RUN_TIMEOUT = 1800  # one offline run with its build from scratch, or one boot


def parse_recipes(top: str = TOP) -> List[recipes.Mutant]:
    """Every implementation's planted bugs, impl/<name>/mutants.txt in the registry's order;
    a block must name the folder it is in (its `impl:`)."""
    out: List[recipes.Mutant] = []
    for impl in read_registry():
        path = os.path.join(top, "impl", impl.name, RECIPES)
        if not os.path.exists(path):
            continue
        for m in recipes.parse_recipes(path, ("impl",), optional=("crate",)):
            # impl: NAME, or NAME@VERSION for a release the crate column pins beside the
            # row's own (its newest, say): the runs and items are then NAME@VERSION's.
            if m.impl.partition("@")[0] != impl.name:
                raise SystemExit(f"{path}: mutant {m.name} is planted in {m.impl}, not in "
                                 f"{impl.name}: it belongs in impl/{m.impl}/{RECIPES}")
            out.append(m)
    return out


def published_crate(m: recipes.Mutant) -> str:
    """The source of the published crate a producer's mutant edits: cargo's copy of it in
    the ehconf cache, which the control's build has fetched."""
    found = sorted(glob.glob(os.path.join(CACHE, "cargo", "registry", "src", "*", m.crate)))
    if not found:
        raise RuntimeError(f"{m.crate} is not in {CACHE}/cargo/registry/src (the control's "
                           f"build fetches it)")
    return found[0]


def needs_vm(m: recipes.Mutant) -> bool:
    return any(e.startswith("impl-vm/") for e in m.expect)


def run_impl(name: str, src: str, build: str, results: str, vm: bool, log: str) -> str:
    """make check-impl's two runners for one implementation: "" or why they broke."""
    shutil.rmtree(results, ignore_errors=True)
    os.makedirs(results)
    steps = [["harness/run.py", "impl", "--impl", name, "--impl-src", src]]
    if vm:
        steps.append(["harness/run.py", "impl-vm", "--impls", name])
    env = dict(os.environ, EHCONF_VM_TIMEOUT=os.environ.get("EHCONF_VM_TIMEOUT", "1200"))
    with open(log, "a", encoding="utf-8") as out:
        for step in steps:
            argv = ["/usr/bin/python3", *step, "--build", build, "--results", results]
            out.write(f"$ {' '.join(argv)}\n")
            out.flush()
            try:
                p = subprocess.run(argv, cwd=TOP, stdout=out, stderr=subprocess.STDOUT, env=env,
                                   timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                return f"{step[1]} timed out after {RUN_TIMEOUT} s (log: {log})"
            if p.returncode:
                return f"{step[1]} exited {p.returncode} (log: {log})"
    return ""


def outcomes(results: str, name: str, vm: bool) -> Dict[str, Tuple[str, str]]:
    runners = ("impl", "impl-vm") if vm else ("impl",)
    return {i.ident: outcome(i) for i in collect_results(results, runners, name)}


def control_passes(control: Dict[str, Tuple[str, str]], item: str) -> bool:
    """The unchanged checkout passes the item: its own outcome, or, for an event's item
    (impl/<name>/<case>/<n>, made only when that event is not judged with its case), the
    case's outcome. A declared difference's item holds as declared (xfail): the mutant must
    make it fail, which a declaration that excused anything in the event would not."""
    if item in control:
        return control[item][0] in ("pass", "xfail")
    parent = item.rsplit("/", 1)[0]
    return item.rsplit("/", 1)[1].isdigit() and control.get(parent, ("missing",))[0] == "pass"


def copy_with_edit(m: recipes.Mutant, src: str) -> str:
    tree = os.path.join(CACHE, "impl-mutants", m.name)
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.dirname(tree), exist_ok=True)
    # The checkout may be read-only (CI's snapshots): the copy must be writable.
    subprocess.run(["cp", "-R", "--no-preserve=mode,ownership", src, tree], check=True,
                   timeout=600)
    recipes.apply(tree, m)
    return tree


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--build", default=os.path.join(TOP, "build", "gcc"))
    args = ap.parse_args(argv)
    mutants = parse_recipes()
    rows = read_registry()
    impls = {m.impl: resolve(m.impl, rows) for m in mutants}
    if args.list:
        for m in mutants:
            print(f"{m.name:34} {m.impl:13} {m.what}")
        return 0
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.name for m in mutants}
        if unknown:
            print(f"impl-mutants: unknown mutant(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.name in wanted]
    build = os.path.abspath(args.build)
    os.makedirs(OUT, exist_ok=True)
    rows, caught, missed, skipped = [], 0, 0, 0
    controls: Dict[str, Dict[str, Tuple[str, str]]] = {}
    t0 = time.monotonic()
    for m in mutants:
        impl = impls.get(m.impl)
        # A producer from the crate registry needs no checkout: the control builds the
        # published crate, the mutant a copy of its source (the recipe's crate:).
        crates = impl is not None and impl.checkout == CRATES
        src = "-" if crates else os.environ.get(impl.variable, "") if impl else ""
        if not impl or not src:
            why = (f"no registry row {m.impl!r}" if not impl else
                   f"no checkout: pass {impl.variable}=<path of {impl.upstream}>")
            print(f"impl-mutants: SKIP {m.name}: {why}")
            rows.append((m, "skipped", why))
            skipped += 1
            continue
        vm = needs_vm(m)
        if m.impl not in controls:
            # One control per implementation, with the kernel when any of its mutants needs it.
            cvm = any(needs_vm(x) for x in mutants if x.impl == m.impl)
            res = os.path.join(OUT, f"control-{m.impl}")
            print(f"impl-mutants: control: {m.impl} unchanged"
                  f"{' (with the real kernel)' if cvm else ''} [{time.monotonic() - t0:.0f} s]",
                  flush=True)
            broke = run_impl(m.impl, src, build, res, cvm, res + ".log")
            controls[m.impl] = {} if broke else outcomes(res, m.impl, cvm)
            if broke:
                print(f"impl-mutants: control of {m.impl} broke: {broke}")
        control = controls[m.impl]
        bad_control = [e for e in m.expect if not control_passes(control, e)]
        if bad_control:
            why = (f"the control does not pass {', '.join(bad_control)}: "
                   f"{(control.get(bad_control[0]) or ('missing', 'no such item'))[1].splitlines()[0][:160]}")
            print(f"impl-mutants: NOT CAUGHT {m.name}: {why}")
            rows.append((m, "no control", why))
            missed += 1
            continue
        res = os.path.join(OUT, m.name)
        print(f"impl-mutants: {m.name} in {m.impl}{' (with the real kernel)' if vm else ''} "
              f"[{time.monotonic() - t0:.0f} s]", flush=True)
        try:
            tree = copy_with_edit(m, published_crate(m) if crates else src)
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            print(f"impl-mutants: NOT CAUGHT {m.name}: {e}")
            rows.append((m, "stale recipe", str(e)))
            missed += 1
            continue
        broke = run_impl(m.impl, tree, build, res, vm, res + ".log")
        got = outcomes(res, m.impl, vm)
        failed = [e for e in m.expect if got.get(e, ("missing",))[0] == "fail"]
        others = sorted(i for i, (s, _) in got.items() if s == "fail" and i not in failed)
        if failed:
            why = got[failed[0]][1].strip().splitlines()[0][:200]
            caught += 1
            print(f"impl-mutants: CAUGHT {m.name} by {failed[0]}: {why}")
            rows.append((m, "caught", f"{failed[0]}: {why}" + (f" (also failed: "
                         f"{', '.join(others[:6])})" if others else "")))
        else:
            why = broke or (f"{', '.join(m.expect)} did not fail" + (f"; failed instead: "
                            f"{', '.join(others[:6])}" if others else ""))
            missed += 1
            print(f"impl-mutants: NOT CAUGHT {m.name}: {why}")
            rows.append((m, "NOT CAUGHT", why))
    with open(os.path.join(OUT, "report.md"), "w", encoding="utf-8") as f:
        f.write("# Planted bugs in the implementations under test\n\n"
                "`make test-impl-mutants` (scripts/impl-mutants.py, recipes in "
                "impl/<name>/mutants.txt).\n\n| mutant | implementation | what | verdict | "
                "evidence |\n|---|---|---|---|---|\n")
        for m, verdict, why in rows:
            f.write(f"| {m.name} | {m.impl} | {m.what} | {verdict} | "
                    f"{why.replace('|', '/')} |\n")
    print(f"impl-mutants: report in {os.path.relpath(os.path.join(OUT, 'report.md'), TOP)} "
          f"({time.monotonic() - t0:.0f} s)")
    print(f"{caught} passed, {missed} failed, {skipped} skipped")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
