#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""`make test-kernel-mutants`: proof that the kernel-behaviour cases can fail.

    scripts/kernel-mutants.py [--only NAME[,NAME...]] [--list] [--no-control]

Each mutant in scripts/kernel-mutants.txt is one small edit of Debian's 6.12
kernel/trace/trace_events_user.c that breaks one row of Documentation/kernel-behaviours.md.
For each: a commit with that edit on top of the 6.12 git tree (scripts/kernel-good-tree.sh,
fixed dates, so a re-run finds its kernel cached), then `scripts/bisect.sh <kernel cases>`
inside it, exactly as a kernel developer's `git bisect run` would: an incremental kernel
build (one object tree for all of them), one QEMU boot, the kernel_* cases, a verdict.

A mutant with `arch: <name>` (a row of vm/arches other than x86_64) is one only that
guest can catch (K38's align_addr_bit() branches). Its kernel is not built from the git
tree (its first cross build there would be a cold one): scripts/kernel-overlay-build.sh
rebuilds the cached Debian kernel of that architecture (make check-vm KERNEL_ARCH=<name>'s)
with the edited file, in a private mount namespace over a copy of its object tree, and
one boot runs the kernel cases there, judged by scripts/bisect-verdict.py as bisect.sh
judges. Its control is that cached, unchanged kernel, booted the same way.

A mutant is CAUGHT when the verdict is BAD and a test it names under `expect:` failed
(another failure alone does not count: the case meant to decide that row must see it).
First the unchanged tree runs as the control and must be GOOD, otherwise no mutant result
means anything. Prints one line per mutant, a table in build/mutants/report.md, and
"N passed, N failed, N skipped" (a passed item = a caught mutant). Exit 0 iff all caught.

Environment: EHCONF_CACHE, EHCONF_VM_TIMEOUT (passed on to scripts/bisect.sh).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutant_recipes as recipes  # noqa: E402
TOP = os.path.dirname(HERE)
RECIPES = os.path.join(HERE, "kernel-mutants.txt")
OUT = os.path.join(TOP, "build", "mutants")
CACHE = os.environ.get("EHCONF_CACHE", "/var/cache/ehconf")
GOOD_TAG = "ehconf-bisect-good"
STEP_TIMEOUT = 3 * 3600  # one build + one boot; bisect.sh has its own tighter limits


@dataclass
class Mutant(recipes.Mutant):
    file: str = "kernel/trace/trace_events_user.c"


def parse_recipes(path: str) -> List[Mutant]:
    """scripts/kernel-mutants.txt: the shared format (scripts/mutant_recipes.py) with a
    `row:` in every block and an optional `arch:`; `file:` defaults to trace_events_user.c."""
    return recipes.parse_recipes(path, ("row",), Mutant, optional=("arch",))


def git(tree: str, *args: str, env=None) -> str:
    p = subprocess.run(["git", "-C", tree, *args], capture_output=True, text=True,
                       env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout.strip()


def commit_env(date: str) -> dict:
    env = dict(os.environ)
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "ehconf kernel-mutants"
        env[f"GIT_{who}_EMAIL"] = "kernel-mutants@ehconf.invalid"
        env[f"GIT_{who}_DATE"] = date
    return env


apply = recipes.apply


def kernel_cases() -> List[str]:
    return sorted(f[:-2] for f in os.listdir(os.path.join(TOP, "cases"))
                  if f.startswith("kernel_") and f.endswith(".c"))


def run_step(tree: str, label: str, cases: List[str], log_path: str, arch: str = "") -> dict:
    """scripts/bisect.sh in the tree at its current commit (on the guest architecture
    `arch`, x86_64 when empty): verdict, times, failed items."""
    sha = git(tree, "rev-parse", "--short=12", "HEAD")
    t0 = time.monotonic()
    env = dict(os.environ, EHCONF_BISECT_DIR=OUT, KERNEL_ARCH=arch or "x86_64")
    with open(log_path, "w", encoding="utf-8") as log:
        try:
            p = subprocess.run([os.path.join(HERE, "bisect.sh"), *cases], cwd=tree, env=env,
                               stdout=log, stderr=subprocess.STDOUT, timeout=STEP_TIMEOUT)
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = None
    secs = time.monotonic() - t0
    with open(log_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    build = re.search(r"kernel built in (\d+)s", text)
    verdict = [x for x in text.splitlines() if re.match(rf"bisect: {sha}: (GOOD|BAD|SKIP):", x)]
    failed = []
    vr = os.path.join(OUT, "steps", sha + ("-" + arch if arch else ""), "results", "vm-results.json")
    if os.path.exists(vr):
        with open(vr, encoding="utf-8") as f:
            # vm/ items only: the selftests are not built for these steps (not selected),
            # so their kselftest/* items fail as "not built" and say nothing here.
            failed = [i["ident"] for i in json.load(f).get("items", [])
                      if i["status"] == "fail" and i["ident"].startswith("vm/")]
    return {"label": label, "sha": sha, "arch": arch or "x86_64", "code": code, "seconds": round(secs),
            "build_seconds": int(build.group(1)) if build else None,
            "verdict": verdict[-1] if verdict else f"no verdict line (exit {code}), see {log_path}",
            "failed": failed}


def run_arch_step(m, arch: str, label: str, cases: List[str], log_path: str) -> dict:
    """An `arch:` mutant (m), or its architecture's control (m None): the kernel (the cached
    one, or scripts/kernel-overlay-build.sh with the edited file), one boot of the kernel
    cases with KERNEL_ARCH=arch, the verdict; the same fields as run_step."""
    t0 = time.monotonic()
    step = os.path.join(OUT, "steps", f"{label}-{arch}")
    results = os.path.join(step, "results")
    os.makedirs(step, exist_ok=True)
    env = dict(os.environ, KERNEL_ARCH=arch, KASAN="0")
    with open(log_path, "w", encoding="utf-8") as log:
        def sh(argv, **kw):
            log.write(f"$ {' '.join(argv)}\n")
            log.flush()
            return subprocess.run(argv, cwd=TOP, env=kw.pop("env", env), stderr=log,
                                  text=True, timeout=STEP_TIMEOUT, **kw)
        ok = sh(["make", "--no-print-directory", f"KERNEL_ARCH={arch}", "vm-cross"],
                stdout=log).returncode == 0
        kernel, build_s = "", None
        if ok and m is None:
            p = sh([os.path.join(TOP, "vm", "build-kernel"), "--cached"], stdout=subprocess.PIPE)
            kernel = p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else ""
        elif ok:
            tree = os.path.join(step, "tree")
            src = os.path.join(arch_source(arch), m.file)
            os.makedirs(os.path.dirname(os.path.join(tree, m.file)), exist_ok=True)
            with open(src, encoding="utf-8") as f, open(os.path.join(tree, m.file), "w", encoding="utf-8") as g:
                g.write(f.read())
            apply(tree, m)
            tb = time.monotonic()
            p = sh([os.path.join(HERE, "kernel-overlay-build.sh"), arch, os.path.join(tree, m.file), m.file],
                   stdout=subprocess.PIPE)
            build_s = round(time.monotonic() - tb)
            kernel = p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else ""
        code, verdict = 125, "SKIP: the ehconf cross build or the kernel failed (see the log)"
        if kernel:
            sh(["/usr/bin/python3", "harness/run.py", "vm", "--no-crash-test", "--build",
                os.path.join(TOP, "build", arch), "--results", results],
               stdout=log, env=dict(env, KERNEL=kernel, EHCONF_VM_CASES=" ".join(cases)))
            v = sh(["/usr/bin/python3", os.path.join(HERE, "bisect-verdict.py"), "--results", results]
                   + [a for c in cases for a in ("--case", c)], stdout=subprocess.PIPE)
            code, verdict = v.returncode, v.stdout.strip().splitlines()[-1] if v.stdout.strip() else "no verdict"
    failed = []
    vr = os.path.join(results, "vm-results.json")
    if os.path.exists(vr):
        with open(vr, encoding="utf-8") as f:
            failed = [i["ident"] for i in json.load(f).get("items", [])
                      if i["status"] == "fail" and i["ident"].startswith("vm/")]
    return {"label": label, "sha": "overlay", "arch": arch, "code": code,
            "seconds": round(time.monotonic() - t0), "build_seconds": build_s,
            "verdict": verdict, "failed": failed}


def arch_source(arch: str) -> str:
    """The unpacked Debian source the cached kernel of arch was built from."""
    p = subprocess.run([os.path.join(TOP, "vm", "build-kernel"), "--cached"], capture_output=True,
                       text=True, env=dict(os.environ, KERNEL_ARCH=arch, KASAN="0"), timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"no cached {arch} kernel: run KERNEL_ARCH={arch} vm/build-kernel first")
    with open(os.path.join(os.path.dirname(p.stdout.strip().splitlines()[-1]), "source-id")) as f:
        kind, _name, tar_sum = f.read().split()
    top = os.path.join(CACHE, "kernel", "src", tar_sum[:16])
    return os.path.join(top, next(d for d in os.listdir(top) if d.startswith("linux-source-")))


def item_test(ident: str):
    """"vm/<case>/global.<test>" -> ("<case>", "<test>"); other items -> None."""
    parts = ident.split("/")
    if len(parts) != 3 or parts[0] != "vm":
        return None
    return parts[1], parts[2].split(".")[-1]


def caught(m: Mutant, r: dict) -> bool:
    """BAD, and one of the tests named by `expect: <case>/<test>` is among the failures."""
    failed = {item_test(i) for i in r["failed"]}
    return r["code"] == 1 and any(tuple(w.split("/", 1)) in failed for w in m.expect)


def write_report(rows: List[dict], controls: dict, path: str) -> None:
    L = ["# Kernel mutants (make test-kernel-mutants)\n"]
    L += [f"Control (unchanged 6.12 tree, {a}): {c.get('verdict', 'not run')}\n"
          for a, c in sorted(controls.items())] or ["Control: not run\n"]
    L += ["| mutant | row | arch | what it breaks | caught | failing tests | build | total |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fails = ", ".join(f"`{x}`" for x in r["failed"][:6]) + (" ..." if len(r["failed"]) > 6 else "")
        L.append(f"| {r['name']} | {r['row']} | {r.get('arch') or 'x86_64'} | {r['what']} | {'yes' if r['caught'] else '**NO**'} "
                 f"| {fails or '-'} | {r['build_seconds']} s | {r['seconds']} s |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--no-control", action="store_true", help="skip the unchanged-tree run")
    args = ap.parse_args()
    mutants = parse_recipes(RECIPES)
    if args.only:
        want = set(args.only.split(","))
        unknown = want - {m.name for m in mutants}
        if unknown:
            raise SystemExit(f"kernel-mutants: no mutant {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in want]
    if args.list:
        for m in mutants:
            print(f"{m.name:28} {m.row:8} {m.arch or 'x86_64':8} {m.what}")
        return 0
    cases = kernel_cases()
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(os.path.join(CACHE, "bisect-src"), exist_ok=True)
    lock = open(os.path.join(CACHE, "bisect-src", ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # the same tree as test-bisect.sh
    tree = subprocess.run([os.path.join(HERE, "kernel-good-tree.sh")], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]
    t_all = time.monotonic()
    print(f"kernel-mutants: {len(mutants)} mutant(s), cases {' '.join(cases)}, tree {tree}",
          flush=True)

    controls = {}
    if os.path.exists(os.path.join(tree, ".git", "BISECT_LOG")):
        git(tree, "bisect", "reset")  # a test-bisect run that was interrupted
    if not args.no_control:
        # One control per guest architecture the selected mutants need.
        for arch in sorted({m.arch for m in mutants}):
            label = "control" + (f"-{arch}" if arch else "")
            if arch:
                controls[arch] = run_arch_step(None, arch, "control", cases,
                                               os.path.join(OUT, label + ".log"))
            else:
                git(tree, "checkout", "-q", "-f", "-B", "ehconf-mutant-control", GOOD_TAG)
                controls["x86_64"] = run_step(tree, label, cases, os.path.join(OUT, label + ".log"))
            print(f"kernel-mutants: {label}: {controls[arch or 'x86_64']['verdict']}", flush=True)
    rows = []
    for k, m in enumerate(mutants):
        if m.arch:
            try:
                r = run_arch_step(m, m.arch, m.name, cases, os.path.join(OUT, m.name + ".log"))
            except (RuntimeError, OSError) as e:
                r = {"code": 125, "failed": [], "build_seconds": None, "seconds": 0,
                     "verdict": f"NOT APPLIED: {e}", "arch": m.arch}
            r.update(name=m.name, row=m.row, what=m.what, caught=caught(m, r))
            rows.append(r)
            print(f"kernel-mutants: {m.name} ({m.row}, {m.arch}): "
                  f"{'CAUGHT' if r['caught'] else 'NOT CAUGHT'} in {r['seconds']} s "
                  f"(build {r['build_seconds']} s): {r['verdict']}", flush=True)
            continue
        git(tree, "checkout", "-q", "-f", "-B", f"ehconf-mutant-{m.name}", GOOD_TAG)
        git(tree, "clean", "-q", "-f", "-d")
        try:
            apply(tree, m)
        except RuntimeError as e:
            rows.append({"name": m.name, "row": m.row, "arch": m.arch, "what": m.what, "caught": False,
                         "failed": [], "build_seconds": None, "seconds": 0, "verdict": str(e)})
            print(f"kernel-mutants: {m.name}: NOT APPLIED: {e}", flush=True)
            continue
        git(tree, "commit", "-q", "-a", "-m", f"ehconf mutant {m.name}: {m.what}",
            env=commit_env(f"2026-02-{k + 1:02d}T00:00:00Z"))
        r = run_step(tree, m.name, cases, os.path.join(OUT, m.name + ".log"), m.arch)
        r.update(name=m.name, row=m.row, what=m.what, caught=caught(m, r))
        rows.append(r)
        print(f"kernel-mutants: {m.name} ({m.row}{', ' + m.arch if m.arch else ''}): {'CAUGHT' if r['caught'] else 'NOT CAUGHT'} "
              f"in {r['seconds']} s (build {r['build_seconds']} s): {r['verdict']}", flush=True)
    git(tree, "checkout", "-q", "-f", GOOD_TAG)
    write_report(rows, controls, os.path.join(OUT, "report.md"))
    n_ok = sum(r["caught"] for r in rows)
    control_ok = args.no_control or all(c.get("code") == 0 for c in controls.values())
    total = round(time.monotonic() - t_all)
    print(f"kernel-mutants: {n_ok} of {len(rows)} caught in {total // 60}m{total % 60:02d}s; "
          f"table: {os.path.relpath(os.path.join(OUT, 'report.md'), TOP)}")
    if not control_ok:
        print("kernel-mutants: FAIL: the unchanged kernel is not GOOD, so no mutant result counts")
    print(f"{n_ok if control_ok else 0} passed, {len(rows) - n_ok if control_ok else len(rows)} failed, 0 skipped")
    return 0 if control_ok and n_ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
