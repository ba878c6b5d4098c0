# SPDX-License-Identifier: GPL-2.0
"""The contract rows' interpreter: one `emit --contract` process, driven through a pipe by
a row's steps (harness/impl/contract_rows.py: the rows and their steps are data, STEPS says what
each step does), while perf or ftrace attach and detach. harness/impl/guest_impl.py runs every
row in the guest on the real kernel; the tests run rows without perf or ftrace under the
user_events stand-in. Standard library only.
"""

from __future__ import annotations

import json
import os
import select
import struct
import subprocess
import time
from typing import Dict, List, Optional, Tuple

from harness.kernel.case_capture import fresh_capture

from harness.core.ehdecode import decode
from harness.impl.contract_rows import TRACEPOINT, Row
from harness.vm.guest_run import T_DECODE, Recording, StepFailed
from harness.core.processes import run, start, stop
from harness.core.standin import standin_env

T_ANSWER = 30      # one answer of `emit --contract` (a 64 KB write under TCG included)
T_SETTLE = 3       # an enable bit the kernel sets or clears may land a moment later
FTRACE_ENABLE = "/sys/kernel/tracing/events/user_events/{}/enable"


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


def seqs_in(event) -> List[int]:
    """The contract's `seq` wherever a producer puts it: a member `seq` at any depth (the
    event's own field, or inside Common Schema's PartC), or an OTLP attribute
    {"key": "seq", "value": {"intValue": "<n>"}} (OpenTelemetry's metrics)."""
    found = []
    if isinstance(event, dict):
        if event.get("key") == "seq" and isinstance(event.get("value"), dict):
            v = event["value"].get("intValue")
            if isinstance(v, str) and v.isdigit():
                found.append(int(v))
        for k, v in event.items():
            if k == "seq" and isinstance(v, int) and not isinstance(v, bool):
                found.append(v)
            else:
                found += seqs_in(v)
    elif isinstance(event, list):
        for v in event:
            found += seqs_in(v)
    return found


class Perf:
    """perf recording the contract tracepoint (guest_run.Recording) while a row writes;
    mark(seq) stands for `sent` or `lost` until the recording is decoded. tracepoint: its
    name, or its whole definition for a producer that is not EventHeader, whose decoder
    script (the registry's decoder column) then reads what ehdecode printed."""

    def __init__(self, tag: str, build: str, out: str, tmp: str, tracepoint: str = TRACEPOINT,
                 decoder: str = ""):
        self.build, self.res, self.decoder = build, {"steps": {}}, decoder
        self.rec = Recording(tag, [tracepoint], os.path.join(build, "bin", "ehregister"),
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
        text = d.text
        if self.decoder:
            # The recording holds the contract tracepoint only: every event is the row's.
            raw = self.rec.pdata + ".json"
            with open(raw, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            r = run([self.decoder, "--from-ehdecode", raw], T_DECODE, merge_stderr=False)
            text = r.output
        got = set()
        for ln in text.splitlines():
            try:
                got.update(seqs_in(json.loads(ln)))
            except ValueError:
                continue
        return got

    def cleanup(self):
        self.rec.cleanup()


def resolve(words, got) -> str:
    return " ".join(("sent" if w[1] in got else "lost") if isinstance(w, tuple) else w
                    for w in words)


def padded(command: str, base: int, expectations: Dict[str, int]) -> str:
    """`write <seq> pad=<size>` as the emitter takes it: the padding that makes the event
    <size> bytes after the write index. <size> is a number or a kernel expectation, +N."""
    words = command.split()
    if len(words) != 3 or not words[2].startswith("pad="):
        return command
    name, _, plus = words[2][4:].partition("+")
    size = int(name) if name.isdigit() else expectations[name]
    size += int(plus or 0)
    return f"{words[0]} {words[1]} {max(0, size - base)}"


def _ftrace(tracepoint: str, value: str) -> None:
    with open(FTRACE_ENABLE.format(tracepoint.split()[0]), "w") as f:
        f.write(value)


def run_row(row: Row, emitter: str, env: dict, base: int, build: str, out: str, tmp: str,
            expectations: Optional[Dict[str, int]] = None, tracepoint: str = TRACEPOINT,
            decoder: str = "") -> str:
    """One row in a fresh emitter: its observation (harness/impl/contract_rows.py). tracepoint
    and decoder: the emitter's contract event (Perf)."""
    c = Contract(emitter, os.path.join(out, "contract.log"), env)
    words: List[object] = []
    perf, got, ftrace_on = None, set(), False
    c.log.write(f"--- row {row.name}\n".encode())
    try:
        for step in row.steps:
            verb, _, rest = step.partition(" ")
            if verb == "ask":
                words.append(c.ask(padded(rest, base, expectations or {})))
            elif verb == "until":
                command, _, want = rest.rpartition(" ")
                words.append(c.until(command, want))
            elif verb == "mark":
                words.append(("mark", int(rest)))
            elif step == "perf attach":
                perf = Perf(f"contract-{row.name}", build, out, tmp, tracepoint, decoder)
                perf.start()  # assigned first: a perf that fails to start still gets cleaned up
            elif step == "perf detach":
                got, perf_done = perf.detach(), perf
                perf_done.cleanup()
                perf = None
            elif step in ("ftrace on", "ftrace off"):
                ftrace_on = step == "ftrace on"
                _ftrace(tracepoint, "1" if ftrace_on else "0")
            else:
                raise ValueError(f"contract row {row.name}: unknown step {step!r}")
        if perf is not None:
            got = perf.detach()
    except Crashed as e:
        words.append(str(e))
        if perf is not None and not got:
            try:
                got = perf.detach()
            except StepFailed:
                pass
    finally:
        if ftrace_on and os.path.exists(FTRACE_ENABLE.format(tracepoint.split()[0])):
            _ftrace(tracepoint, "0")  # a crash must not leave ftrace recording for the next row
        if perf is not None:
            perf.cleanup()
        c.close()
    return resolve(words, got)


def base_size(emitter: str, standin: str, out: str, tmp: str) -> Tuple[int, str]:
    """Bytes after the write index of the contract event with no padding, and the name of
    the tracepoint it was written to, measured under the stand-in: the size row asks for
    exact sizes, and perf and ftrace must follow the tracepoint the emitter writes (an
    OpenTelemetry exporter chooses its own)."""
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
    return size - (name_end + 1), data[4:name_end].decode("ascii", errors="replace")


