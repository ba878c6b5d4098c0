# SPDX-License-Identifier: GPL-2.0
"""Running test programs: one place for timeouts, output capture and process cleanup."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import Dict, List, Optional

from ktap import Report, finish, parse


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


def kill_session(sid: int) -> None:
    """SIGKILL every process of session sid. Killing the process group is not enough:
    kselftest_harness.h puts each test in its own process group (it signals -pid on
    timeout), and a survivor holding our pipe would block the read forever."""
    for _ in range(3):  # a dying parent may still fork once
        victims = []
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
            if len(fields) > 3 and fields[3] == str(sid):
                victims.append(int(entry))
        if not victims:
            return
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def run(argv: List[str], timeout: float, env: Optional[Dict[str, str]] = None,
        cwd: Optional[str] = None, merge_stderr: bool = True) -> Run:
    """Run argv with stderr merged into stdout (or apart, for programs whose stdout is
    data); kill its whole process group on timeout.

    The program gets its own session so that children it forks (kselftest runs each
    TEST in a child; cases fork writers) are killed with it and never outlive the run.
    """
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=full_env, cwd=cwd,
                                start_new_session=True)
    except OSError as e:
        return Run(argv, None, "", False, 0.0, timeout, error=f"cannot run {argv[0]}: {e}")
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_session(proc.pid)
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            # Something outside the session still holds the pipe: give up on the rest.
            proc.kill()
            out, err = b"", b""
    # surrogateescape: decoded JSON may legitimately hold invalid UTF-8 (see the decoder's
    # char32 rules); keep those bytes distinguishable instead of folding them into U+FFFD.
    text = out.decode("utf-8", errors="replace" if merge_stderr else "surrogateescape")
    etext = (err or b"").decode("utf-8", errors="replace")
    return Run(argv, proc.returncode, text, timed_out, time.monotonic() - start, timeout,
               stderr=etext)


def run_ktap(argv: List[str], timeout: float, env: Optional[Dict[str, str]] = None) -> (Run, Report):
    """Run a KTAP-printing program and return its run and finished report."""
    r = run(argv, timeout, env)
    if r.error:
        rep = parse("")
        return r, finish(rep, None, output=r.error)
    rep = finish(parse(r.output), r.returncode, r.timed_out, timeout, r.output)
    return r, rep
