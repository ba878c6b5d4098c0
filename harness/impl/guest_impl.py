# SPDX-License-Identifier: GPL-2.0
"""Runs INSIDE the QEMU guest (started by harness/impl/run_impl_vm.py through vm/run): the
implementations under test on the real kernel, under perf.

    python3 harness/impl/guest_impl.py --results DIR --build build/gcc --impl NAME=PLAN.json ...

PLAN.json (written by the offline run, harness/impl/run_impl.py) names the emitter and, per
case, the description it was given (the events the implementation lacks left out). For
each implementation, in DIR/NAME/:
  <case>.*        the emitter on the case's description, exactly as the cases run
                  (harness/vm/guest_run.py capture_program: tracepoint names from a run under
                  the stand-in, ehregister, perf record, the live run, ehdecode); the
                  emitter's own lines in <case>.log. Where the plan names the case's
                  expected tracepoints (harness/impl/run_impl_vm.py expected_tracepoints), perf
                  attaches to those instead of the names the emitter reported, which are
                  kept as "reported_tracepoints": an event under another name is lost
  contract.json   the rows of harness/impl/contract_rows.py, each run by harness/impl/contract_run.py
                  in a fresh `emit --contract` process
Everything lands in DIR/guest-impl.json, rewritten after every step so that a kernel crash
loses nothing that ran before. Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import struct
import sys
import time

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.vm import guest_run  # noqa: E402
from harness.core.common import NO_USER_EVENTS, one_line  # noqa: E402
from harness.impl.contract_rows import ROWS, TRACEPOINT, promise_for  # noqa: E402
from harness.impl.contract_run import Crashed, base_size, run_row  # noqa: E402
from harness.kernel.expectations import for_kernel  # noqa: E402
from harness.vm.guest_run import (T_CASE, UE_DATA, StepFailed, capture_program,  # noqa: E402
                                   compared_in_order, guest_info, log, save_summary)
from harness.core.processes import run  # noqa: E402
from harness.core.standin import live_env, standin_env, standin_path  # noqa: E402

# The live runs talk to the real user_events: no stand-in, no capture backend.
LIVE_ENV = live_env()


def contract(emitter: str, standin: str, build: str, out: str, tmp: str, plan: dict) -> dict:
    res = {}
    try:
        base, name = base_size(emitter, standin, out, tmp)
    except (Crashed, OSError, ValueError, struct.error) as e:
        base, name = 0, TRACEPOINT
        res["problem"] = f"the unpadded event's size could not be measured: {e}"
    res["base_size"] = base
    # Its whole definition where the producer is not EventHeader (plan.json, from the
    # registry's decoder).
    tracepoint = (plan.get("definitions") or {}).get(name, name)
    res["tracepoint"] = tracepoint
    expectations = {w: e.value for w, e in for_kernel(os.uname().release).items()}
    for row in ROWS:
        t0 = time.monotonic()
        try:
            seen = run_row(row, emitter, LIVE_ENV, base, build, out, tmp, expectations,
                           tracepoint, plan.get("decoder", ""))
        except (StepFailed, OSError) as e:
            seen = f"not-run: {one_line(str(e))}"
        res[row.name] = {"observed": seen, "seconds": round(time.monotonic() - t0, 3)}
        log(f"contract {row.name}: {seen} (promised: {promise_for(row, expectations)})")
    return res


def live_emit(emitter: str, events: str, out: str, case: str, res: dict):
    r = run([emitter, events], T_CASE, env=LIVE_ENV, stdout_path=os.path.join(out, case + ".log"))
    res["steps"]["live"] = round(r.seconds, 3)
    res["log"], res["live_exit"] = case + ".log", r.returncode
    if r.timed_out or r.error:
        res["problem"] = f"the emitter's live run: {r.how()}"


@contextlib.contextmanager
def attached_to(expected, res: dict):
    """capture_program reads the names to register and record from the offline run's
    capture (guest_run.tracepoint_names); with expected names (a list), those are taken
    instead and the emitter's own kept as res["reported_tracepoints"]."""
    own = guest_run.tracepoint_names
    if expected is None:
        yield
        return

    def names(dat):
        res["reported_tracepoints"] = own(dat)
        return list(expected)
    guest_run.tracepoint_names = names
    try:
        yield
    finally:
        guest_run.tracepoint_names = own


def one_impl(name: str, plan: dict, build: str, out: str, tmp: str, summary: dict, save):
    standin = standin_path(build)
    emitter = plan["emitter"]
    mine = summary["impls"].setdefault(name, {"cases": {}, "contract": {}})
    for case, c in sorted(plan["cases"].items()):
        res = {"steps": {}, "status": "ok", "problem": ""}
        summary["running"] = f"{name} {case}"
        save()
        t0 = time.monotonic()
        try:
            with attached_to(c.get("tracepoints"), res):
                capture_program(case, [emitter, c["events"]],
                                standin_env(standin, os.path.join(tmp, case + ".dat")),
                                lambda: live_emit(emitter, c["events"], out, case, res),
                                build, res, out, tmp, plan.get("definitions"),
                                one_cpu=compared_in_order(c["golden"]))
        except StepFailed as e:
            res["status"], res["problem"] = "failed", str(e)
        except Exception as e:  # a bug here must not lose the other cases
            res["status"], res["problem"] = "failed", f"guest_impl error: {type(e).__name__}: {e}"
        res["seconds"] = round(time.monotonic() - t0, 3)
        mine["cases"][case] = res
        log(f"{name} {case}: {res['status']} in {res['seconds']:.1f} s"
            + (f": {res['problem']}" if res["problem"] else ""))
    summary["running"] = f"{name} contract rows"
    save()
    mine["contract"] = contract(emitter, standin, build, out, tmp, plan)
    save()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--impl", action="append", default=[], help="NAME=PLAN.json")
    args = ap.parse_args(argv)
    out = os.path.abspath(args.results)
    build = os.path.abspath(args.build)
    tmp = "/tmp/ehconf-guest-impl"
    os.makedirs(tmp, exist_ok=True)
    os.makedirs(out, exist_ok=True)
    # The machine too: the host judges the contract rows by the expectations of the guest's
    # architecture (cases/kernel-expectations.txt's since@machine rows).
    summary = {"guest": dict(guest_info(), machine=os.uname().machine), "impls": {},
               "complete": False, "running": ""}
    save = lambda: save_summary(out, summary, "guest-impl.json")  # noqa: E731
    for spec in args.impl:
        name, _, plan_path = spec.partition("=")
        idir = os.path.join(out, name)
        os.makedirs(idir, exist_ok=True)
        if not os.path.exists(UE_DATA):
            summary["impls"][name] = {"problem": NO_USER_EVENTS}
            continue
        with open(plan_path, encoding="utf-8") as f:
            plan = json.load(f)
        one_impl(name, plan, build, idir, tmp, summary, save)
    summary["complete"], summary["running"] = True, ""
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
