# SPDX-License-Identifier: GPL-2.0
"""Running programs: one place for timeouts, output capture and process cleanup.

Used by the runners on the host (harness/run.py) and in the QEMU guest
(harness/vm/guest_run.py). Every wait has a timeout: a program that does not end in time is
killed with every process of its session and reported as timed out. Standard library
only (the guest runs the host's python3 over 9p).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional

from harness.core.ktap import Report, finish, parse

# After a kill, how long the pipes and the exit status may take to arrive.
REAP_TIMEOUT = 10.0


@dataclass
class Run:
    argv: List[str]
    returncode: Optional[int]  # negative = killed by that signal; None = could not start
    output: str  # stdout and stderr merged in order (kselftest logs to stderr)
    timed_out: bool
    seconds: float
    timeout: float
    error: str = ""  # why the program could not be started
    stderr: str = ""  # only when run(..., merge_stderr=False)

    def how(self) -> str:
        """One line: how the run ended ("" for exit status 0)."""
        if self.error:
            return self.error
        if self.timed_out:
            return f"timed out after {self.timeout:g} s"
        if self.returncode:
            return f"exit status {self.returncode}"
        return ""


def session_members(sid: int) -> List[int]:
    """Every live process whose session id is sid (read from /proc; zombies are dead
    already and wait for their parent, so they are left out)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        # fields after "(comm)": state ppid pgrp session ...
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[3] == str(sid) and fields[0] != "Z":
            found.append(int(entry))
    return found


def kill_session(sid: int, sig: int = signal.SIGKILL) -> None:
    """Send sig to every process of session sid. Killing the process group is not enough:
    kselftest_harness.h puts each test in its own process group (it signals -pid on
    timeout), and a survivor holding our pipe would block the read forever."""
    for _ in range(3 if sig == signal.SIGKILL else 1):  # a dying parent may still fork once
        victims = session_members(sid)
        if not victims:
            return
        for pid in victims:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if sig == signal.SIGKILL:
            time.sleep(0.05)


def _environment(env: Optional[Dict[str, Optional[str]]]) -> Dict[str, str]:
    """os.environ updated by env; a value None removes that variable."""
    full = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return full


def start(argv: List[str], env: Optional[Dict[str, Optional[str]]] = None,
          cwd: Optional[str] = None, stdout=subprocess.PIPE,
          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    """Start argv in a session of its own (so stop() reaches every process it forks).
    Raises OSError when it cannot be started."""
    return subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=stdin,
                            env=_environment(env), cwd=cwd, start_new_session=True)


def stop(proc: Optional[subprocess.Popen], timeout: float,
         first: int = signal.SIGTERM) -> bool:
    """Ask a started process to end (first signal to its session), wait up to timeout,
    then SIGKILL the whole session and wait REAP_TIMEOUT more. True if it ended
    on the first signal (or had ended already)."""
    if proc is None or proc.poll() is not None:
        return True
    kill_session(proc.pid, first)
    try:
        proc.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        pass
    kill_session(proc.pid)
    try:
        proc.wait(timeout=REAP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pass  # unkillable (D state): its status stays unknown, never a hang here
    return False


def run(argv: List[str], timeout: float, env: Optional[Dict[str, Optional[str]]] = None,
        cwd: Optional[str] = None, merge_stderr: bool = True,
        stdout_path: Optional[str] = None, input_text: Optional[str] = None) -> Run:
    """Run argv with stderr merged into stdout (or apart, for programs whose stdout is
    data); kill its whole session on timeout.

    The program gets its own session so that children it forks (kselftest runs each
    TEST in a child; cases fork writers) are killed with it and never outlive the run.
    With stdout_path the output goes straight into that file as it is printed (what a
    program said before the machine died stays on disk), and is read back afterwards.
    env values None remove a variable. input_text, when given, is the program's stdin.
    """
    t0 = time.monotonic()
    sink = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    try:
        try:
            proc = start(argv, env, cwd, stdout=sink,
                         stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                         stdin=subprocess.DEVNULL if input_text is None else subprocess.PIPE)
        except OSError as e:
            return Run(argv, None, "", False, 0.0, timeout, error=f"cannot run {argv[0]}: {e}")
        timed_out = False
        try:
            out, err = proc.communicate(None if input_text is None else input_text.encode(),
                                        timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_session(proc.pid)
            try:
                out, err = proc.communicate(timeout=REAP_TIMEOUT)
            except subprocess.TimeoutExpired:
                # Something outside the session still holds the pipe: give up on the rest.
                proc.kill()
                out, err = b"", b""
                try:
                    proc.wait(timeout=REAP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass
    finally:
        if stdout_path:
            sink.close()
    if stdout_path:
        with open(stdout_path, "rb") as f:
            out = f.read()
    # surrogateescape: decoded JSON may legitimately hold invalid UTF-8 (see the decoder's
    # char32 rules); keep those bytes distinguishable instead of folding them into U+FFFD.
    text = (out or b"").decode("utf-8", errors="replace" if merge_stderr else "surrogateescape")
    etext = (err or b"").decode("utf-8", errors="replace")
    return Run(argv, proc.returncode, text, timed_out, time.monotonic() - t0, timeout,
               stderr=etext)


def run_ktap(argv: List[str], timeout: float, env: Optional[Dict[str, Optional[str]]] = None,
             stdout_path: Optional[str] = None) -> (Run, Report):
    """Run a KTAP-printing program and return its run and finished report."""
    r = run(argv, timeout, env, stdout_path=stdout_path)
    if r.error:
        rep = parse("")
        return r, finish(rep, None, output=r.error)
    rep = finish(parse(r.output), r.returncode, r.timed_out, timeout, r.output)
    return r, rep
