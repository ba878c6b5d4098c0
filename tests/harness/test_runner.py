# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/core/processes.py, the one process runner of the host and the guest: every
wait is bounded, a timeout kills every process of the program's session (also those in
a process group of their own, as kselftest_harness.h makes them) and is reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from harness.core.ktap import FAIL
from harness.core.processes import run, run_ktap, session_members, start, stop


def test_output_and_exit_status():
    r = run(["sh", "-c", "echo out; echo err >&2; exit 3"], 10)
    assert (r.returncode, r.timed_out, r.error) == (3, False, "")
    assert "out" in r.output and "err" in r.output
    assert r.how() == "exit status 3"


def test_timeout_kills_the_whole_session_even_other_process_groups(tmp_path):
    pidfile = tmp_path / "pid"
    # The grandchild moves to a process group of its own and keeps our pipe open.
    script = (f"python3 -c 'import os,time; os.setpgid(0,0); "
              f"open(\"{pidfile}\",\"w\").write(str(os.getpid())); time.sleep(100)' & sleep 100")
    t0 = time.monotonic()
    r = run(["sh", "-c", script], 5.0)  # python3 starts within 5 s even on a busy machine
    assert r.timed_out and time.monotonic() - t0 < 20
    assert r.how() == "timed out after 5 s"
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{pid}") or "Z" in open(f"/proc/{pid}/stat").read().split()[2]


def test_stdout_path_keeps_output_on_disk(tmp_path):
    log = tmp_path / "out.ktap"
    r = run(["sh", "-c", "echo 'KTAP version 1'; echo 1..1; echo ok 1 a"], 10, stdout_path=str(log))
    assert log.read_text() == r.output and "ok 1 a" in r.output


def test_env_none_removes_a_variable():
    os.environ["EHCONF_RUNNER_TEST"] = "set"
    try:
        r = run(["sh", "-c", 'echo "[${EHCONF_RUNNER_TEST-unset}]"'], 10, env={"EHCONF_RUNNER_TEST": None})
    finally:
        del os.environ["EHCONF_RUNNER_TEST"]
    assert r.output.strip() == "[unset]"


def test_cannot_start_is_an_error_not_an_exception():
    r = run(["/nonexistent/program"], 10)
    assert r.returncode is None and "cannot run /nonexistent/program" in r.error
    _, rep = run_ktap(["/nonexistent/program"], 10)
    assert [x.status for x in rep.results] == [FAIL]


def test_timeout_of_a_ktap_program_fails_the_tests_that_did_not_report():
    _, rep = run_ktap(["sh", "-c", "echo 'KTAP version 1'; echo 1..2; echo ok 1 a; sleep 100"], 1.0)
    assert [x.status for x in rep.results] == ["pass", FAIL]
    assert "timed out after 1 s" in rep.results[1].reason


def test_stop_escalates_to_sigkill_within_its_timeout():
    p = start(["sh", "-c", "trap '' TERM; sleep 100"])
    time.sleep(0.3)
    t0 = time.monotonic()
    assert stop(p, 1.0) is False  # TERM ignored: killed
    assert time.monotonic() - t0 < 15
    assert p.returncode == -signal.SIGKILL
    assert session_members(p.pid) == []


def test_stop_sends_the_first_signal_to_the_session():
    # The child sets SIGINT's default action itself: started from a background job of a
    # non-interactive shell (nohup ... &), the whole run inherits SIGINT ignored, and a
    # plain `sleep` would then survive the signal and be killed (-9) instead.
    p = start([sys.executable, "-c", "import signal, time; "
               "signal.signal(signal.SIGINT, signal.SIG_DFL); print('ready', flush=True); "
               "time.sleep(100)"], stdout=subprocess.PIPE)
    assert p.stdout.readline() == b"ready\n"
    assert stop(p, 10, signal.SIGINT) is True and p.returncode == -signal.SIGINT


def test_unit_runner_records_every_binary_with_its_timeout(tmp_path):
    from harness.kernel.run_unit import run_unit
    build = tmp_path / "fake"
    tests = build / "tests" / "lib"
    tests.mkdir(parents=True)
    for name, body in (("test_ok", "echo 'KTAP version 1'; echo 1..1; echo ok 1 a"),
                       ("test_hang", "echo 'KTAP version 1'; echo 1..1; sleep 100")):
        (tests / name).write_text("#!/bin/sh\n" + body + "\n")
        (tests / name).chmod(0o755)
    folder, entries = run_unit(str(build), str(tmp_path / "results"), 1.0)
    assert folder == str(tmp_path / "results" / "unit-fake")
    by = {e["prefix"]: e for e in entries}
    assert by["unit/lib/test_ok/"]["returncode"] == 0
    assert by["unit/lib/test_hang/"]["timed_out"] is True
    assert (tmp_path / "results" / "unit-fake" / "lib" / "test_ok.ktap").read_text().endswith("ok 1 a\n")
