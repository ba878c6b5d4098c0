# SPDX-License-Identifier: GPL-2.0
"""Runs INSIDE the QEMU guest (started by harness/vm/run_vm.py through vm/run): every
conformance case under perf, the kernel's own user_events selftests, and a JSON summary.

    python3 harness/vm/guest_run.py --results DIR [--build build/gcc] [--case NAME]...
                                 [--selftests DIR] [--deadline SECONDS] [--bench]

Per case (each step has a timeout; a failing step records a one-line reason and the
run moves on to the next case):
  1. offline   the case with EHCONF_CAPTURE=/tmp/... : its capture records name the
               tracepoints it writes (record = u32 size, tracepoint name + NUL, event)
  2. register  `ehregister --hold N NAME...` in the background until it prints "ready"
               (perf can only open a user_events tracepoint that already exists)
  3. perf      `perf record -a -e user_events:NAME... -D -1 --control fifo:CTL,ACK
               -o /tmp/<case>.perf.data -- sleep N`, then "enable" and wait for "ack":
               the enable bit flips when perf OPENS the event, before collection is on,
               so a case started earlier would lose its first events
  4. live      the case with the real user_events (EHCONF_CAPTURE unset): its KTAP
  5. stop      "disable" + ack, then "stop" (SIGINT, SIGKILL as fallbacks); perf.data
               is written to the guest's /tmp (perf cannot mmap a file on 9p), then copied
  6. decode    `ehdecode --golden <case>.perf.data` -> <case>.perf.json
The cases of CLOCK_CASES are recorded twice more after all cases, with perf's clock data
(`perf record -k CLOCK_MONOTONIC`: the CLOCKID and CLOCK_DATA features, so decoders print
wall-clock dates): <case>.clock.perf.data in file mode and <case>.clock-pipe.perf.data in
pipe mode (`-o -`, perf's stdout into the file); guest-results.json's "clock" has their
steps. make check-decoders reads them as vm-clock/<case> and vm-clock-pipe/<case>.
A case whose source says "ehconf-no-golden" (the kernel_* cases) writes no events to compare:
only step 4. Without /sys/kernel/tracing/user_events_data nothing runs and every case
is recorded as skipped with the reason "kernel lacks CONFIG_USER_EVENTS".

Results in DIR: guest-results.json (read by harness/vm/run_vm.py and harness/reports/report_md.py),
<case>.ktap, <case>.offline.log, <case>.perf.data, <case>.perf.json, <case>.perf.log,
<case>.ehdecode.log, selftests/<name>.ktap. Standard library only (runs under the
guest's python3, which is the host's, read-only over 9p).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from typing import Dict, Optional

TRACING = "/sys/kernel/tracing"
UE_DATA = TRACING + "/user_events_data"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
# The steps the host's runners take too (harness/kernel/case_capture.py, harness/core/ehdecode.py):
# finding the cases, their kind, a fresh capture file, the decoder.
from harness.kernel.case_capture import KTAP_ONLY, case_kind, find_cases, fresh_capture  # noqa: E402
from harness.core.ehdecode import decode  # noqa: E402
from harness.core.common import NO_USER_EVENTS, SELFTESTS, one_line  # noqa: E402
# The one process runner of the harness (harness/core/processes.py), as on the host: every program
# in a session of its own, every wait bounded, a timeout kills the whole session.
from harness.core.processes import run, start, stop  # noqa: E402
from harness.core.transports import capture_env  # noqa: E402  (the transport registry)
from harness.kernel import expectations  # noqa: E402  (cases/kernel-expectations.txt)
from harness.core.golden import parse_lines  # noqa: E402

# Step timeouts in seconds (TCG is slow: generous, but every wait is bounded).
T_CASE = 120          # one case binary (offline or live)
T_REGISTER = 20       # ehregister prints "ready"
T_PERF_START = 60     # perf opened its events and acknowledged "enable"
T_ACK = 20            # any later ack
T_PERF_EXIT = 60      # perf writes perf.data (reads tracefs formats) and exits
T_DECODE = 60
T_SELFTEST = 90       # the selftests' own settings file says timeout=90
SELFTEST_ATTEMPTS = 3  # a failing selftest binary runs again (see run_selftests)
HOLD = 900            # ehregister / sleep lifetime: outlives every step above
# Recorded again with perf's clock data, in file and pipe mode: (tag suffix, pipe mode)
CLOCK_CASES = ("activity",)
CLOCK_MODES = (("clock", False), ("clock-pipe", True))
PERF_CLOCK = ["-k", "CLOCK_MONOTONIC"]  # perf record -k: CLOCKID + CLOCK_DATA features


def log(msg: str) -> None:
    print(f"guest: {msg}", flush=True)


class StepFailed(Exception):
    """A step of one case failed: the message is the one-line reason."""


def compared_in_order(golden: str) -> bool:
    """Whether the golden file (relative to the checkout) compares events in order: then the
    live run stays on one CPU (see on_one_cpu). Unreadable or undecided: in order."""
    try:
        with open(os.path.join(REPO, golden), encoding="utf-8") as f:
            data = parse_lines(f.read(), golden, allow_directives=True)
    except (OSError, ValueError):
        return True
    return data.directives.get("order", "ordered") != "unordered"


@contextlib.contextmanager
def on_one_cpu(enabled: bool = True):
    """Runs what the block starts on one CPU (children inherit the affinity). perf reads
    one ring buffer per CPU and writes a FINISHED_ROUND after each pass over them; decoders
    sort only within a round, as perf-decode does. A program that migrates can write its
    first event to a buffer that one pass read just before the event arrived and its later
    events to one read just after: the first then lands a round late, after the others.
    On one CPU every event shares one buffer, which perf reads in write order. Cases
    compared in any order (threads) keep every CPU."""
    if not enabled or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def save_summary(out: str, summary: dict, name: str = "guest-results.json") -> None:
    """guest-results.json (or name), rewritten after every step (write + rename, so the host never
    reads half a file): if the kernel dies, what ran before is still reported."""
    path = os.path.join(out, name)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)


def tracepoint_names(dat_path: str):
    """Tracepoint names of a capture file, in first-use order."""
    names = []
    with open(dat_path, "rb") as f:
        data = f.read()
    off = 0
    while off + 4 <= len(data):
        (size,) = struct.unpack_from("<I", data, off)
        if size < 5 or off + size > len(data):
            raise StepFailed(f"{dat_path}:{off}: bad record size {size}")
        end = data.find(b"\0", off + 4, off + size)
        if end < 0:
            raise StepFailed(f"{dat_path}:{off}: record without a NUL-terminated name")
        name = data[off + 4:end].decode("ascii", errors="replace")
        if name not in names:
            names.append(name)
        off += size
    return names


class Fifo:
    """perf's control and ack FIFOs. Both are opened O_RDWR here: opening never blocks
    (perf's own open of each side then succeeds at once), and reads never see EOF."""

    def __init__(self, ctl: str, ack: str):
        for p in (ctl, ack):
            if os.path.exists(p):
                os.unlink(p)
            os.mkfifo(p, 0o600)
        self.ctl = os.open(ctl, os.O_RDWR | os.O_NONBLOCK)
        self.ack = os.open(ack, os.O_RDWR | os.O_NONBLOCK)

    def command(self, cmd: str, timeout: float, perf) -> None:
        os.write(self.ctl, (cmd + "\n").encode())
        if not self.wait_ack(timeout, perf):
            raise StepFailed(f"perf did not acknowledge '{cmd}' within {timeout:g} s")

    def wait_ack(self, timeout: float, perf) -> bool:
        deadline = time.monotonic() + timeout
        buf = b""
        while time.monotonic() < deadline:
            if perf is not None and perf.poll() is not None:
                return False
            r, _, _ = select.select([self.ack], [], [], 0.2)
            if r:
                try:
                    buf += os.read(self.ack, 64)
                except BlockingIOError:
                    continue
                if b"ack" in buf:
                    return True
        return False

    def close(self):
        for fd in (self.ctl, self.ack):
            try:
                os.close(fd)
            except OSError:
                pass


def wait_ready(p, timeout: float) -> str:
    """Waits for the "ready" line of ehregister; returns "" or a reason."""
    deadline = time.monotonic() + timeout
    buf = b""
    fd = p.stdout.fileno()
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
            if b"ready\n" in buf:
                return ""
        elif p.poll() is not None:
            break
    try:
        p.wait(timeout=2)  # EOF: it is exiting; collect the status
    except subprocess.TimeoutExpired:
        pass
    if p.poll() is not None:
        return f"ehregister exited with {p.returncode}: {one_line(buf.decode(errors='replace'))}"
    return f"ehregister printed no 'ready' within {timeout:g} s"


class Recording:
    """ehregister holding the tracepoints + `perf record -a` on them, events enabled only
    once perf acknowledged "enable" (the enable bit flips when perf OPENS the events)."""

    def __init__(self, tag, names, ehregister, out, tmp, res, perf_args=(), pipe=False):
        """perf_args: more options of perf record (PERF_CLOCK); pipe: perf's pipe mode
        (`-o -`, its stdout into the same /tmp file, its stderr into the log)."""
        self.tag, self.names, self.ehregister, self.out, self.tmp = tag, names, ehregister, out, tmp
        self.res, self.steps = res, res["steps"]
        self.perf_args, self.pipe = list(perf_args), pipe
        self.reg = self.perf = self.fifo = None
        self.pdata = os.path.join(tmp, tag + ".perf.data")
        self.plog_path = os.path.join(out, tag + ".perf.log")

    def start(self):
        t0 = time.monotonic()
        try:
            self.reg = start([self.ehregister, "--hold", str(HOLD)] + self.names)
        except OSError as e:
            raise StepFailed(f"cannot run {self.ehregister}: {e}")
        why = wait_ready(self.reg, T_REGISTER)
        self.steps["register"] = round(time.monotonic() - t0, 3)
        if why:
            raise StepFailed(why)

        t0 = time.monotonic()
        ctl, ack = (os.path.join(self.tmp, self.tag + x) for x in (".ctl", ".ack"))
        self.fifo = Fifo(ctl, ack)
        # -m: 8 MiB per CPU, so a burst of small events (concurrency: 8 threads x 1000)
        # is not lost while perf, slowed down by TCG, drains the ring; -B -N: no build-id
        # pass over perf.data at exit (tracepoint samples need none).
        argv = ["perf", "record", "-a", "-m", "8M", "-B", "-N", "-o",
                "-" if self.pipe else self.pdata, "-D", "-1", "--control", f"fifo:{ctl},{ack}"]
        argv += self.perf_args
        for n in self.names:
            # A full definition ("name fields", a producer that is not EventHeader) is
            # registered as it is; perf opens the event by its name.
            argv += ["-e", f"user_events:{n.split()[0]}"]
        argv += ["--", "sleep", str(HOLD)]
        self.res["perf_command"] = " ".join(argv) + (f" > {self.pdata}" if self.pipe else "")
        with open(self.plog_path, "wb") as plog:
            try:
                if self.pipe:
                    with open(self.pdata, "wb") as pout:
                        self.perf = start(argv, stdout=pout, stderr=plog)
                else:
                    self.perf = start(argv, stdout=plog)
            except OSError as e:
                raise StepFailed(f"cannot run perf: {e}")
        os.write(self.fifo.ctl, b"enable\n")
        if not self.fifo.wait_ack(T_PERF_START, self.perf):
            state = (f"exited with {self.perf.returncode}" if self.perf.poll() is not None
                     else f"no ack within {T_PERF_START} s")
            with open(self.plog_path, encoding="utf-8", errors="replace") as f:
                raise StepFailed(f"perf record did not start ({state}): {one_line(f.read())}")
        self.steps["perf_start"] = round(time.monotonic() - t0, 3)

    def stop(self):
        """"disable" + ack, then "stop" (SIGINT if perf ignores it)."""
        t0 = time.monotonic()
        try:
            self.fifo.command("disable", T_ACK, self.perf)
        except StepFailed as e:
            self.res.setdefault("notes", []).append(str(e))
        os.write(self.fifo.ctl, b"stop\n")
        try:
            self.perf.wait(timeout=T_PERF_EXIT)
        except subprocess.TimeoutExpired:
            self.res.setdefault("notes", []).append("perf ignored 'stop': SIGINT")
            stop(self.perf, T_PERF_EXIT, signal.SIGINT)
        self.steps["perf_stop"] = round(time.monotonic() - t0, 3)
        self.res["perf_exit"] = self.perf.returncode  # None: perf did not end even on SIGKILL

    def cleanup(self):
        if self.fifo:
            self.fifo.close()
        stop(self.perf, 10, signal.SIGINT)
        stop(self.reg, 10)


def live(binary: str, out: str, case: str, res: dict) -> None:
    """Step 4: the case on the real user_events, its KTAP straight into <case>.ktap."""
    r = run([binary], T_CASE, env=capture_env(None),
            stdout_path=os.path.join(out, case + ".ktap"))
    res["steps"]["live"] = round(r.seconds, 3)
    res["ktap"] = case + ".ktap"
    res["live_exit"] = r.returncode
    if r.timed_out:
        res["live_timed_out"] = True
    if r.error:
        res["problem"] = r.error


def capture_case(case: str, binary: str, args, res: dict, out: str, tmp: str) -> None:
    """Steps 1-6 for one case; fills res. Raises StepFailed with the reason."""
    capture_program(case, [binary], capture_env("capture", os.path.join(tmp, case + ".dat")),
                    lambda: live(binary, out, case, res), args.build, res, out, tmp,
                    one_cpu=compared_in_order(f"golden/{case}.json"))


def capture_program(tag: str, argv, offline_env: dict, run_live, build: str, res: dict,
                    out: str, tmp: str, definitions: Optional[Dict[str, str]] = None,
                    perf_args=(), pipe: bool = False, one_cpu: bool = True) -> None:
    """Steps 1-6 for any program that writes user_events: argv under offline_env writes
    the capture file <tmp>/<tag>.dat (its tracepoint names), then run_live() runs it on
    the real user_events while perf records; <tag>.perf.data and <tag>.perf.json in out.
    The names are registered as EventHeader tracepoints, but those definitions gives in
    full ("name fields": the program registers them so, and the kernel takes a second
    registration only with the same fields). perf_args and pipe: Recording's. one_cpu:
    run_live() on one CPU (on_one_cpu; off only for goldens compared in any order). Fills
    res; raises StepFailed with the reason."""
    steps = res["steps"]
    bindir = os.path.join(build, "bin")
    ehregister = os.path.join(bindir, "ehregister")
    ehdecode = os.path.join(bindir, "ehdecode")

    # 1. offline: learn the tracepoint names
    dat = os.path.join(tmp, tag + ".dat")
    fresh_capture(dat)
    r = run(argv, T_CASE, env=offline_env, stdout_path=os.path.join(out, tag + ".offline.log"))
    steps["offline"] = round(r.seconds, 3)
    if r.timed_out or r.error:
        raise StepFailed(f"offline run: {r.how()}")
    if not os.path.exists(dat) or os.path.getsize(dat) == 0:
        raise StepFailed(f"offline run (exit {r.returncode}) wrote no capture record, so its "
                         f"tracepoint names are unknown")
    names = tracepoint_names(dat)
    res["tracepoints"] = names
    log(f"{tag}: {len(names)} tracepoint(s): {' '.join(names)}")

    rec = Recording(tag, [(definitions or {}).get(n, n) for n in names], ehregister, out, tmp,
                    res, perf_args, pipe)
    try:
        rec.start()  # 2. pre-register, 3. perf with events enabled and acknowledged
        with on_one_cpu(one_cpu):
            run_live()  # 4. the program on the real user_events
        rec.stop()  # 5. perf.data is written to /tmp, then copied out
        pdata, plog_path = rec.pdata, rec.plog_path
        if not os.path.exists(pdata) or os.path.getsize(pdata) == 0:
            with open(plog_path, encoding="utf-8", errors="replace") as f:
                raise StepFailed(f"perf wrote no {pdata} (exit {rec.perf.returncode}): "
                                 f"{one_line(f.read())}")
        shutil.copyfile(pdata, os.path.join(out, tag + ".perf.data"))
        res["perf_data"] = tag + ".perf.data"
        res["perf_data_bytes"] = os.path.getsize(pdata)
    finally:
        rec.cleanup()

    # 6. decode
    t0 = time.monotonic()
    decoded = os.path.join(out, tag + ".perf.json")
    d = decode(ehdecode, pdata, T_DECODE)
    with open(decoded, "w", encoding="utf-8", errors="surrogateescape") as fo:
        fo.write(d.text)
    with open(os.path.join(out, tag + ".ehdecode.log"), "w", encoding="utf-8",
              errors="replace") as fe:
        fe.write(d.stderr)
    if d.exit is None:
        raise StepFailed(one_line(d.problem))
    steps["decode"] = round(time.monotonic() - t0, 3)
    res["decoded"] = tag + ".perf.json"
    res["ehdecode_exit"] = d.exit
    if d.exit != 0:
        res["ehdecode_problem"] = one_line(d.stderr)


def run_case(case: str, kind: str, args, out: str, tmp: str) -> dict:
    binary = os.path.join(args.build, "cases", case)
    res = {"case": case, "steps": {}, "status": "ok", "problem": ""}
    t0 = time.monotonic()
    try:
        if not os.access(binary, os.X_OK):
            raise StepFailed(f"case binary {binary} not built")
        res["kind"] = kind
        if kind == KTAP_ONLY:
            live(binary, out, case, res)
        else:
            capture_case(case, binary, args, res, out, tmp)
    except StepFailed as e:
        res["status"] = "failed"
        res["problem"] = str(e)
    except Exception as e:  # a bug here must not lose the other cases
        res["status"] = "failed"
        res["problem"] = f"guest_run error: {type(e).__name__}: {e}"
    res["seconds"] = round(time.monotonic() - t0, 3)
    log(f"{case}: {res['status']} in {res['seconds']:.1f} s"
        + (f": {res['problem']}" if res["problem"] else ""))
    return res


def run_clock(case: str, mode: str, pipe: bool, args, out: str, tmp: str) -> dict:
    """The case once more under `perf record -k CLOCK_MONOTONIC` (pipe mode: `-o -`):
    steps 1-6 as for the case, as <case>.<mode>.perf.data (KTAP <case>.<mode>.ktap)."""
    tag = f"{case}.{mode}"
    binary = os.path.join(args.build, "cases", case)
    res = {"case": case, "mode": mode, "pipe": pipe, "steps": {}, "status": "ok", "problem": ""}
    t0 = time.monotonic()
    try:
        capture_program(tag, [binary], capture_env("capture", os.path.join(tmp, tag + ".dat")),
                        lambda: live(binary, out, tag, res), args.build, res, out, tmp,
                        perf_args=PERF_CLOCK, pipe=pipe,
                        one_cpu=compared_in_order(f"golden/{case}.json"))
        if res.get("live_exit") != 0:
            raise StepFailed(f"{case} exited with {res.get('live_exit')} on the kernel")
    except StepFailed as e:
        res["status"], res["problem"] = "failed", str(e)
    except Exception as e:  # a bug here must not lose the rest of the run
        res["status"], res["problem"] = "failed", f"guest_run error: {type(e).__name__}: {e}"
    res["seconds"] = round(time.monotonic() - t0, 3)
    log(f"{tag}: {res['status']} in {res['seconds']:.1f} s"
        + (f": {res['problem']}" if res["problem"] else ""))
    return res


def run_selftests(sdir: str, out: str, deadline: float) -> dict:
    results = {}
    os.makedirs(os.path.join(out, "selftests"), exist_ok=True)
    for name in SELFTESTS:
        exe = os.path.join(sdir, name)
        r = {"ktap": f"selftests/{name}.ktap"}
        if not os.access(exe, os.X_OK):
            r.update(status="failed", problem=f"{exe} not found (vm/build-kernel builds it)")
        elif time.monotonic() + 10 > deadline:
            r.update(status="failed", problem="guest time budget exhausted before it ran")
        else:
            # The kernel's selftests race the asynchronous release of user events under
            # TCG (see KNOWN_KSELFTEST_FAILURES in run_vm.py), so a failing binary runs
            # again, up to SELFTEST_ATTEMPTS times; every attempt's KTAP is kept and the
            # host counts a test as passed only if some attempt passed it. A deterministic
            # kernel regression fails every attempt.
            r["attempts"] = []
            for attempt in range(1, SELFTEST_ATTEMPTS + 1):
                ktap = r["ktap"] if attempt == 1 else f"selftests/{name}.{attempt}.ktap"
                limit = max(1.0, min(T_SELFTEST, deadline - time.monotonic()))
                p = run([exe], limit, stdout_path=os.path.join(out, ktap))
                rc, secs, to = p.returncode, p.seconds, p.timed_out
                r["attempts"].append({"ktap": ktap, "exit": rc, "seconds": round(secs, 3),
                                      "timed_out": to})
                if p.error:
                    r["attempts"][-1]["error"] = p.error
                log(f"selftest {name} (attempt {attempt}): exit {rc} in {secs:.1f} s"
                    + (" (timed out)" if to else ""))
                if rc == 0 or to or time.monotonic() + 10 > deadline:
                    break
            first = r["attempts"][0]
            r.update(status="ran", exit=first["exit"], seconds=first["seconds"],
                     timed_out=first["timed_out"])
        results[name] = r
    return results


KSELFTEST_COLLECTION = "ehconf_user_events"  # cases/kselftest.mk's target
T_KSELFTEST_INSTALL = 900  # the collection's six programs, each under its 300 s setting


def run_kselftest_install(tree: str, out: str, deadline: float) -> dict:
    """The second pass (issue 22): the installed kselftest tree (make kselftest-install) run
    by the kernel's own run_kselftest.sh, as LKFT runs it, with none of this runner's
    environment: the cases pick their expectations by uname -r themselves. Its output goes
    through a pipe: the 6.12 runner writes /dev/stdout twice, and a file opened with
    truncation would let the second write overwrite the first."""
    ktap = "kselftest-install.ktap"
    runner = os.path.join(tree, "run_kselftest.sh")
    if not os.access(runner, os.X_OK):
        return {"status": "failed", "problem": f"{runner} not found (make kselftest-install)"}
    env = {k: None for k in os.environ if k.startswith(("EHCONF_EXPECT_", "EHCONF_CAPTURE"))}
    limit = max(10.0, min(T_KSELFTEST_INSTALL, deadline - time.monotonic()))
    r = run(["/bin/sh", "-c", f'"$0" -c {KSELFTEST_COLLECTION} 2>&1 | cat', runner], limit,
            env=env, stdout_path=os.path.join(out, ktap))
    log(f"kselftest-install: run_kselftest.sh exit {r.returncode} in {r.seconds:.1f} s"
        + (" (timed out)" if r.timed_out else ""))
    return {"status": "ran", "ktap": ktap, "exit": r.returncode, "seconds": round(r.seconds, 3),
            "timed_out": r.timed_out, "problem": r.error}


def run_bench(args, out: str, tmp: str) -> dict:
    """`make bench-vm`: harness/bench_vm (built as <build>/bench/bench_vm) while perf records
    its tracepoint; returns its figures (stdout lines) or the reason it could not run."""
    res = {"steps": {}, "status": "ok", "problem": ""}
    exe = os.path.join(args.build, "bench", "bench_vm")
    rec = Recording("bench_vm", ["EhconfBench_L5K1"], os.path.join(args.build, "bin", "ehregister"),
                    out, tmp, res)
    try:
        if not os.path.exists(UE_DATA):
            raise StepFailed(NO_USER_EVENTS)
        if not os.access(exe, os.X_OK):
            raise StepFailed(f"{exe} not built (make bench-vm builds it)")
        rec.start()
        b = run([exe], T_CASE)
        res["steps"]["bench"] = round(b.seconds, 3)
        res["figures"] = [x for x in b.output.splitlines() if x.startswith("bench_vm:")]
        if b.how():
            raise StepFailed(f"bench_vm: {b.how()}: {one_line(b.output)}")
        rec.stop()
        res["perf_data_bytes"] = os.path.getsize(rec.pdata) if os.path.exists(rec.pdata) else 0
    except StepFailed as e:
        res["status"], res["problem"] = "failed", str(e)
    finally:
        rec.cleanup()
    for line in res.get("figures", []):
        log(line)
    if res["problem"]:
        log(f"bench: {res['problem']}")
    return res


def guest_info() -> dict:
    info = {"kernel_release": os.uname().release, "user_events": os.path.exists(UE_DATA)}
    p = run(["perf", "--version"], 20)
    info["perf_version"] = (p.output.strip() if not p.how()
                            else f"perf --version failed ({p.how()}): {one_line(p.output)}")
    info["cpus"] = os.cpu_count()
    return info


def crash_kernel(out: str, summary: dict, case: str) -> None:
    """The harness's own test of a kernel crash (harness/vm/run_vm.py): after `case` the
    kernel panics on purpose (sysrq c), so the run must end at once and still report it."""
    summary["running"] = f"the planted crash after {case} (EHCONF_TEST_CRASH_AFTER)"
    save_summary(out, summary)
    log(f"crashing the kernel on purpose after {case}")
    with open("/proc/sysrq-trigger", "w") as f:
        f.write("c")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True, help="writable results dir (the 9p share)")
    ap.add_argument("--build", default="build/gcc", help="build variant dir (cases/, bin/)")
    ap.add_argument("--case", action="append", default=[], help="case name (default: all built)")
    ap.add_argument("--selftests", default="", help="dir with the kernel's user_events selftests")
    ap.add_argument("--kselftest-install", default="",
                    help="an installed kselftest tree (make kselftest-install): run it after "
                         "the selftests with its own run_kselftest.sh")
    ap.add_argument("--bench", action="store_true",
                    help="only run harness/bench_vm under perf (make bench-vm)")
    ap.add_argument("--deadline", type=float, default=600,
                    help="seconds this whole run may take; later work is skipped with a reason")
    args = ap.parse_args(argv)
    t_start = time.monotonic()
    deadline = t_start + args.deadline
    out = os.path.abspath(args.results)
    args.build = os.path.abspath(args.build)
    tmp = "/tmp/ehconf-guest"
    os.makedirs(tmp, exist_ok=True)
    os.makedirs(out, exist_ok=True)

    cases = args.case
    if args.bench:
        summary = {"guest": guest_info(), "bench": run_bench(args, out, tmp)}
        with open(os.path.join(out, "bench-results.json"), "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
        return 0 if summary["bench"]["status"] == "ok" else 1
    if not cases:
        cases = [os.path.basename(p) for p in find_cases(args.build)]
    info = guest_info()
    # What the kernel cases expect of this kernel version: the cases inherit the values
    # as EHCONF_EXPECT_*, and the report shows which row (version, reason) chose each.
    try:
        expect = expectations.for_kernel(info["kernel_release"])
        os.environ.update(expectations.environment(expect))
        info["expectations"] = {w: {"value": e.value, "reason": e.reason,
                                    "since": e.since + (f"@{e.arch}" if e.arch else "")}
                                for w, e in expect.items()}
    except (OSError, ValueError) as e:
        info["expectations_problem"] = str(e)
        log(f"expectations: {e}")
    # "complete" becomes true only at the very end; "running" names the step in progress.
    summary = {"guest": info, "cases": {}, "clock": {}, "selftests": {}, "build": args.build,
               "complete": False, "running": ""}
    log(f"kernel {info['kernel_release']}, user_events {'present' if info['user_events'] else 'ABSENT'}, "
        f"{info['perf_version']}, {len(cases)} case(s)")

    for case in cases:
        kind = case_kind(REPO, case)
        if not info["user_events"]:
            summary["cases"][case] = {"case": case, "status": "skipped", "problem": NO_USER_EVENTS,
                                      "kind": kind, "steps": {}}
            continue
        if time.monotonic() > deadline:
            summary["cases"][case] = {"case": case, "status": "failed", "steps": {},
                                      "problem": "guest time budget exhausted before it ran"}
            continue
        log(f"{case}: start")
        summary["running"] = case
        summary["cases"][case] = {"case": case, "status": "running", "steps": {},
                                  "problem": "", "ktap": case + ".ktap", "kind": kind}
        save_summary(out, summary)
        summary["cases"][case] = run_case(case, kind, args, out, tmp)
        summary["running"] = ""
        save_summary(out, summary)
        if os.environ.get("EHCONF_TEST_CRASH_AFTER") == case:
            crash_kernel(out, summary, case)
    for case in [c for c in CLOCK_CASES if c in cases and info["user_events"]]:
        for mode, pipe in CLOCK_MODES:
            tag = f"{case}.{mode}"
            if time.monotonic() > deadline:
                summary["clock"][tag] = {"case": case, "mode": mode, "status": "failed",
                                         "steps": {}, "problem": "guest time budget exhausted "
                                                                 "before it ran"}
                continue
            summary["running"] = f"{tag} (perf record {' '.join(PERF_CLOCK)})"
            save_summary(out, summary)
            summary["clock"][tag] = run_clock(case, mode, pipe, args, out, tmp)
            summary["running"] = ""
            save_summary(out, summary)
    if args.selftests:
        summary["running"] = "the kernel's user_events selftests"
        save_summary(out, summary)
        if info["user_events"]:
            summary["selftests"] = run_selftests(args.selftests, out, deadline)
        else:
            summary["selftests"] = {n: {"status": "skipped", "problem": NO_USER_EVENTS}
                                    for n in SELFTESTS}
    if args.kselftest_install and info["user_events"]:
        summary["running"] = "the installed kselftest tree (run_kselftest.sh)"
        save_summary(out, summary)
        summary["kselftest_install"] = run_kselftest_install(args.kselftest_install, out, deadline)
    summary["seconds"] = round(time.monotonic() - t_start, 3)
    summary["complete"], summary["running"] = True, ""
    save_summary(out, summary)
    failed = sum(1 for r in summary["cases"].values() if r["status"] == "failed")
    skipped = sum(1 for r in summary["cases"].values() if r["status"] == "skipped")
    log(f"done in {summary['seconds']:.1f} s: {len(cases) - failed - skipped} cases ran through, "
        f"{failed} failed, {skipped} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
