# SPDX-License-Identifier: GPL-2.0
"""Runner `impl-vm` (the second half of make check-impl): the implementations on the real
kernel. ONE QEMU boot (harness/run_vm.py boot) runs harness/guest_impl.py for every
implementation whose offline run (harness/run_impl.py) left a plan.json: its emitter on the
same descriptions under perf, then the contract rows (Documentation/impl-contract.md).

Outcomes, per implementation, in <results>/impl-vm/<name>/summary.json:
  impl-vm/<name>/boot              the guest ran through (else every item below fails too)
  impl-vm/<name>/kernel-log        no kernel WARNING/BUG/Oops/panic but the allowed one
  impl-vm/<name>/<case>            the perf capture, decoded, against the golden events
                                   the emitter wrote (transport perf: events above perf's
                                   limit must be missing); a declared difference is held
                                   to what the same emitter wrote offline
  impl-vm/<name>/<case>/<n>        an event the emitter did not write, undeclared (fail)
  impl-vm/<name>/contract/<row>    the row's observation: the promise for the booted kernel
                                   (pass), the profile's `contract` declaration (xfail),
                                   anything else (fail)
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Dict, List, Tuple

from common import display_path, safe_id
from contract_rows import ROWS, promise_for
from expectations import for_kernel
from impls import parse_emitter_output, read_profile, read_registry
from results import check_entry, golden_entry, read_summary, runner_dir, write_summary, write_text
from run_impl import PLAN, folder_of, golden_parts
from run_vm import PERF, boot, kernel_log

# The directives that still hold for a subset of a case's events under perf.
PERF_DIRECTIVES = ("order", "perf_max_payload", "size_field", "why")


def _no_plan(results: str, name: str) -> dict:
    """Why an implementation has nothing to run in the VM: its offline run says."""
    ident = f"impl-vm/{name}"
    try:
        build = [e for e in read_summary(folder_of(results, name)).get("entries", [])
                 if e.get("id", "").endswith("/build")]
    except (OSError, ValueError):
        build = []
    if build and build[0].get("status") == "skip":
        return check_entry(ident, "skip", build[0].get("message", ""))
    why = build[0].get("message", "") if build else "no offline run (make check-impl runs one)"
    return check_entry(ident, "fail", f"{name}: nothing to run in the VM: {why}")


def judge_case(name: str, profile, case: str, plan: dict, res: dict, folder: str) -> List[dict]:
    base = safe_id(f"impl-vm/{name}/{case}")
    if res is None:
        return [check_entry(base, "fail", "not run in the guest")]
    if res.get("status") != "ok":
        return [check_entry(base, "fail", res.get("problem") or "failed in the guest")]
    try:
        with open(os.path.join(folder, case + ".log"), encoding="utf-8", errors="replace") as f:
            said = parse_emitter_output(f.read())
    except OSError as e:
        return [check_entry(base, "fail", f"no output of the emitter's live run: {e}")]
    kept = plan["kept"]
    if len(said) != len(kept):
        return [check_entry(base, "fail", f"the emitter reported {len(said)} of {len(kept)} "
                            f"events (exit {res.get('live_exit')}); see {case}.log")]
    directives, golden = golden_parts(plan.get("golden", f"golden/{case}.json"), PERF_DIRECTIVES)
    entries, lines = [], []
    for k, o in enumerate(kept, 1):
        state, why = said[k]
        declared = (case, o) in profile.differs
        if state != "written":
            if not declared and (case, o) not in profile.refuses:
                entries.append(check_entry(f"{base}/{o}", "fail", f"{name} {state} event {o} "
                                           f"on the real kernel: {why}"))
            continue
        if declared and str(o) not in plan["declared"]:
            entries.append(check_entry(f"{base}/{o}", "fail", f"event {o} is declared "
                                       f"different, but the offline run kept no copy of it"))
            continue
        lines.append(plan["declared"][str(o)] if declared else golden[o - 1])
    if "declared_all" in plan:
        # Declared different as a whole: held to what the same emitter wrote offline.
        lines = plan["declared_all"]
    expected = os.path.join(folder, case + ".expected.json")
    write_text(expected, "\n".join(directives + lines) + "\n")
    problem = res.get("ehdecode_problem", "")
    return entries + [golden_entry(base, case, PERF, case + ".perf.json", expected, problem)]


def judge_contract(name: str, profile, seen: Dict[str, dict], kernel: str) -> List[dict]:
    """Each row's observation against its promise on `kernel` (the release the rows ran
    on) and the profile's declaration. A failure gives the evidence (what was declared,
    what was observed, what the kernel promises, which other rows moved with it) and no
    advice: a declaration that stops showing may as well be a new bug as a fixed one."""
    expectations = {w: e.value for w, e in for_kernel(kernel).items()} if kernel else {}
    verdicts = []
    for row in ROWS:
        got = (seen.get(row.name) or {}).get("observed", "not run")
        promise = promise_for(row, expectations)
        declared = profile.contract.get(row.name)
        wanted = declared[0] if declared else promise
        verdicts.append((row, got, promise, declared, got == wanted))
    moved = [f"{r.name} ({got!r})" for r, got, _, _, same in verdicts if not same]
    on = f" on {kernel}" if kernel else ""
    entries = []
    for row, got, promise, declared, same in verdicts:
        ident = f"impl-vm/{name}/contract/{row.name}"
        others = [m for m in moved if not m.startswith(row.name + " ")]
        also = (f"; rows that moved with it: {', '.join(others)}" if others
                else "; no other row moved")
        if declared and same:
            entries.append(check_entry(ident, "xfail", f"{declared[1]}\nobserved: {got}\n"
                                       f"promised{on}: {promise}"))
        elif declared:
            entries.append(check_entry(ident, "fail", f"{row.what}: observed {got!r}; "
                                       f"impl/{name}/profile.txt declares {declared[0]!r}; "
                                       f"the contract promises {promise!r}{on}{also}"))
        elif same:
            entries.append(check_entry(ident, "pass", f"{row.what}: {got}"))
        else:
            entries.append(check_entry(ident, "fail", f"{row.what}: observed {got!r}, "
                                       f"promised {promise!r}{on} (not declared in "
                                       f"impl/{name}/profile.txt){also}"))
    return entries


def run_impl_vm(names: List[str], build: str, results: str, repo: str) -> List[Tuple[str, List[dict], dict]]:
    """Boot once, judge each implementation: [(folder, entries, extra)] per name."""
    impls = {i.name: i for i in read_registry()}
    top = runner_dir(results, "impl-vm", "").rstrip("/")
    # A stale result must never pass for a new run: this run's implementations start
    # afresh; the others keep their earlier results, which the report labels with their run.
    for name in names:
        shutil.rmtree(os.path.join(top, name), ignore_errors=True)
    plans, done = {}, {}
    for name in names:
        path = os.path.join(folder_of(results, name), PLAN)
        if name in impls and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                plans[name] = json.load(f)
        else:
            done[name] = [_no_plan(results, name)]
    guest = ["/usr/bin/python3", os.path.join(repo, "harness", "guest_impl.py"),
             "--results", top, "--build", build]
    for name in plans:
        guest += ["--impl", f"{name}={os.path.join(folder_of(results, name), PLAN)}"]
    run = boot(repo, build, top, [], guest, "guest-impl.json") if plans else None
    out = []
    for name in names:
        folder = os.path.join(top, name)
        os.makedirs(folder, exist_ok=True)
        if name in done:
            out.append((folder, done[name], {}))
            continue
        g = (run.guest.get("impls") or {}).get(name, {})
        entries = [check_entry(f"impl-vm/{name}/boot", "pass" if run.ok else "fail",
                               run.problem or f"guest ran in {run.seconds:.0f} s"),
                   check_entry(f"impl-vm/{name}/kernel-log", *kernel_log(run))]
        if g.get("problem"):
            entries.append(check_entry(f"impl-vm/{name}", "skip", g["problem"]))
            out.append((folder, entries, {}))
            continue
        profile = read_profile(impls[name])
        for case, plan in sorted(plans[name]["cases"].items()):
            entries += judge_case(name, profile, case, plan, (g.get("cases") or {}).get(case),
                                  folder)
        kernel = ((run.guest or {}).get("guest") or {}).get("kernel_release", "")
        entries += judge_contract(name, profile, g.get("contract") or {}, kernel)
        out.append((folder, entries, {"implementation": name, "contract": g.get("contract", {}),
                                      "guest": display_path(top), "kernel": kernel}))
    return out


def boot_and_judge(names: List[str], build: str, results: str, repo: str, seconds_since) -> int:
    """run_impl_vm, then one summary.json per implementation; how many entries in all."""
    total = 0
    for folder, entries, extra in run_impl_vm(names, build, results, repo):
        name = os.path.basename(folder)
        write_summary(folder, "impl-vm", f"make check-impl IMPL={name}", entries,
                      seconds_since(), extra)
        total += len(entries)
    return total
