# SPDX-License-Identifier: GPL-2.0
"""Runs INSIDE the QEMU guest (started by harness/run_impl_vm.py through vm/run): the
implementations under test on the real kernel, under perf.

    python3 harness/guest_impl.py --results DIR --build build/gcc --impl NAME=PLAN.json ...

PLAN.json (written by the offline run, harness/run_impl.py) names the emitter and, per
case, the description it was given (the events the implementation lacks left out). For
each implementation, in DIR/NAME/:
  <case>.*        the emitter on the case's description, exactly as the cases run
                  (harness/guest_run.py capture_program: tracepoint names from a run under
                  the stand-in, ehregister, perf record, the live run, ehdecode); the
                  emitter's own lines in <case>.log
  contract.json   the rows of harness/contract_rows.py: each one fresh `emit --contract`
                  process driven through a pipe while perf or ftrace attach and detach
Everything lands in DIR/guest-impl.json, rewritten after every step so that a kernel crash
loses nothing that ran before. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import struct
import subprocess
import sys
import time

from cases import decode, fresh_capture
from common import NO_USER_EVENTS, one_line
from guest_run import (T_CASE, T_DECODE, UE_DATA, Recording, StepFailed, capture_program,
                       guest_info, log, save_summary)
from contract_rows import BY_NAME, EVENT, ROWS, SIZES, TRACEPOINT
from runner import run, start, stop
from standin import live_env, standin_env, standin_path

T_ANSWER = 30      # one answer of `emit --contract` (a 64 KB write under TCG included)
T_SETTLE = 3       # an enable bit the kernel sets or clears may land a moment later
FTRACE_ENABLE = f"/sys/kernel/tracing/events/user_events/{TRACEPOINT}/enable"
# The live runs talk to the real user_events: no stand-in, no capture backend.
LIVE_ENV = live_env()


class Crashed(Exception):
    """The emitter gave no answer: the message is the observation's last word."""


class Contract:
    """One `emit --contract` process: ask() writes a command, returns its answer line."""

    def __init__(self, emitter: str, log_path: str, env: dict):
        self.log = open(log_path, "ab")
        self.proc = start([emitter, "--contract"], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=self.log)
        self.buf = b""

    def ask(self, cmd: str, timeout: float = T_ANSWER) -> str:
        self.log.write(f"> {cmd}\n".encode())
        try:
            self.proc.stdin.write((cmd + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass  # it died: reading says how
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            r, _, _ = select.select([fd], [], [], max(0, left))
            chunk = os.read(fd, 4096) if r else b""
            if not chunk:
                self._crashed(cmd, timed_out=not r)
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        answer = line.decode(errors="replace").strip()
        self.log.write(f"< {answer}\n".encode())
        return answer.replace(" ", "-") if answer.startswith("error ") else answer

    def until(self, cmd: str, want: str) -> str:
        """ask(cmd) until it answers want or T_SETTLE passed: the last answer."""
        deadline = time.monotonic() + T_SETTLE
        while True:
            got = self.ask(cmd)
            if got == want or time.monotonic() > deadline:
                return got
            time.sleep(0.1)

    def _crashed(self, cmd: str, timed_out: bool):
        if timed_out:
            stop(self.proc, 5)
            raise Crashed(f"hang@{cmd}")
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stop(self.proc, 5)
            rc = self.proc.returncode
        what = f"signal{-rc}" if rc is not None and rc < 0 else f"exit{rc}"
        raise Crashed(f"crash:{what}@{cmd}")

    def close(self):
        try:
            self.proc.stdin.write(b"quit\n")
            self.proc.stdin.close()
        except OSError:
            pass
        stop(self.proc, 10)
        self.log.close()


class Perf:
    """perf recording the contract tracepoint (guest_run.Recording) while a row writes;
    mark(seq) stands for `sent` or `lost` until the recording is decoded."""

    def __init__(self, tag: str, build: str, out: str, tmp: str):
        self.build, self.res = build, {"steps": {}}
        self.rec = Recording(tag, [TRACEPOINT], os.path.join(build, "bin", "ehregister"),
                             out, tmp, self.res)
        self.seqs = []

    def start(self):
        self.rec.start()

    def mark(self, seq: int):
        self.seqs.append(seq)
        return ("mark", seq)

    def detach(self) -> set:
        """Stops perf; the seqs it recorded."""
        self.rec.stop()
        d = decode(os.path.join(self.build, "bin", "ehdecode"), self.rec.pdata, T_DECODE)
        got = set()
        for ln in d.text.splitlines():
            try:
                e = json.loads(ln)
            except ValueError:
                continue
            if isinstance(e, dict) and e.get("n") == EVENT and isinstance(e.get("seq"), int):
                got.add(e["seq"])
        return got

    def cleanup(self):
        self.rec.cleanup()


def resolve(words, got) -> str:
    return " ".join(("sent" if w[1] in got else "lost") if isinstance(w, tuple) else w
                    for w in words)


def pad_for(size: int, base: int) -> int:
    return max(0, size - base)


def run_row(row: str, emitter: str, env: dict, base: int, build: str, out: str, tmp: str):
    """One row in a fresh emitter: its observation (harness/contract_rows.py)."""
    c = Contract(emitter, os.path.join(out, "contract.log"), env)
    words, perf, got = [], None, set()
    c.log.write(f"--- row {row}\n".encode())
    try:
        words.append(c.ask("thread-register" if row == "thread" else "register"))
        if row == "no-consumer":
            words += [c.ask("enabled"), c.ask("write 1 0")]
        elif row == "ftrace":
            with open(FTRACE_ENABLE, "w") as f:
                f.write("1")
            words += [c.until("enabled", "1"), c.ask("write 2 0")]
            with open(FTRACE_ENABLE, "w") as f:
                f.write("0")
            words.append(c.until("enabled", "0"))
        else:
            perf = Perf(f"contract-{row}", build, out, tmp)
            perf.start()  # assigned first: a perf that fails to start still gets cleaned up
            if row == "perf":
                words += [c.until("enabled", "1"), c.ask("write 2 0"), perf.mark(2)]
                got = perf.detach()
                words.append(c.until("enabled", "0"))
            elif row == "reregister":
                words += [c.ask("unregister"), c.until("enabled", "0"), c.ask("register"),
                          c.until("enabled", "1"), c.ask("write 3 0"), perf.mark(3)]
            elif row == "fork":
                words += [c.ask("fork 4"), perf.mark(4)]
            elif row == "thread":
                words += [c.until("enabled", "1"), c.ask("write 5 0"), perf.mark(5)]
            elif row == "size":
                for seq, size in enumerate(SIZES, 10):
                    words += [c.ask(f"write {seq} {pad_for(size, base)}"), perf.mark(seq)]
            if row != "perf":
                got = perf.detach()
    except Crashed as e:
        words.append(str(e))
        if perf is not None and not got:
            try:
                got = perf.detach()
            except StepFailed:
                pass
    finally:
        if row == "ftrace" and os.path.exists(FTRACE_ENABLE):
            with open(FTRACE_ENABLE, "w") as f:
                f.write("0")  # a crash must not leave ftrace recording for the next row
        if perf is not None:
            perf.cleanup()
        c.close()
    return resolve(words, got)


def base_size(emitter: str, standin: str, out: str, tmp: str) -> int:
    """Bytes after the write index of the contract event with no padding, measured under
    the stand-in: the size row asks for exact sizes."""
    dat = os.path.join(tmp, "contract-size.dat")
    fresh_capture(dat)
    c = Contract(emitter, os.path.join(out, "contract.log"), standin_env(standin, dat))
    try:
        c.ask("register")
        c.ask("write 0 0")
    finally:
        c.close()
    with open(dat, "rb") as f:
        data = f.read()
    (size,) = struct.unpack_from("<I", data, 0)
    name_end = data.index(b"\0", 4)
    return size - (name_end + 1)


def contract(emitter: str, standin: str, build: str, out: str, tmp: str) -> dict:
    res = {}
    try:
        base = base_size(emitter, standin, out, tmp)
    except (Crashed, OSError, ValueError, struct.error) as e:
        base, res["problem"] = 0, f"the unpadded event's size could not be measured: {e}"
    res["base_size"] = base
    for row in ROWS:
        t0 = time.monotonic()
        try:
            seen = run_row(row.name, emitter, LIVE_ENV, base, build, out, tmp)
        except (StepFailed, OSError) as e:
            seen = f"not-run: {one_line(str(e))}"
        res[row.name] = {"observed": seen, "seconds": round(time.monotonic() - t0, 3)}
        log(f"contract {row.name}: {seen} (promised: {BY_NAME[row.name].promise})")
    return res


def live_emit(emitter: str, events: str, out: str, case: str, res: dict):
    r = run([emitter, events], T_CASE, env=LIVE_ENV, stdout_path=os.path.join(out, case + ".log"))
    res["steps"]["live"] = round(r.seconds, 3)
    res["log"], res["live_exit"] = case + ".log", r.returncode
    if r.timed_out or r.error:
        res["problem"] = f"the emitter's live run: {r.how()}"


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
            capture_program(case, [emitter, c["events"]],
                            standin_env(standin, os.path.join(tmp, case + ".dat")),
                            lambda: live_emit(emitter, c["events"], out, case, res),
                            build, res, out, tmp)
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
    mine["contract"] = contract(emitter, standin, build, out, tmp)
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
    summary = {"guest": guest_info(), "impls": {}, "complete": False, "running": ""}
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
