# SPDX-License-Identifier: GPL-2.0
"""Tests of the vm runner (harness/vm/run_vm.py) that need no QEMU: without cases or a kernel
it boots nothing and every outcome fails with its one-line reason; the results it
writes (vm-results.json, summary entries and report_md.py's tables) have the shape
the plugin and the reports read."""

from __future__ import annotations

import json

from harness.core.common import REPO_ROOT
from harness.vm.run_vm import boot, run_vm


def test_without_case_binaries_nothing_boots_and_the_outcomes_say_why(tmp_path):
    folder, entries, extra = run_vm(str(tmp_path / "build"), str(tmp_path / "results"),
                                    REPO_ROOT, [])
    by = {e["id"]: e for e in entries}
    assert by["vm/boot"]["status"] == "fail"
    assert "no case binaries" in by["vm/boot"]["message"]
    assert "vm/crash-ends-the-run" not in by  # no second boot either
    assert all(e["kind"] == "check" and "\n" not in e["message"].strip()
               for e in entries if e["status"] == "fail" and e["id"].startswith("kselftest/"))
    data = json.loads((tmp_path / "results" / "vm-results.json").read_text())
    assert data["problem"].startswith("no case binaries") and data["items"]
    assert folder == str(tmp_path / "results" / "vm")
    # report.md's tables travel in the summary (then the JUnit file), the items do not
    assert extra["report"]["problem"] == data["problem"] and "items" not in extra["report"]


def test_a_kernel_that_is_not_a_file_is_the_boot_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNEL", str(tmp_path / "no-such-bzImage"))
    run = boot(REPO_ROOT, str(tmp_path / "build"), str(tmp_path / "results"), ["activity"])
    assert not run.ok and run.problem == f"KERNEL={tmp_path / 'no-such-bzImage'} is not a file"


def _clock_run(tmp_path, entries):
    import shutil
    from harness.vm.run_vm import VmRun
    res = tmp_path / "vm"
    res.mkdir(exist_ok=True)
    data = f"{REPO_ROOT}/tests/data/perf"
    for name, src in (("activity.clock", "hello-file-mode"), ("activity.clock-pipe", "hello-pipe-mode")):
        shutil.copy(f"{data}/{src}.perf.data", res / f"{name}.perf.data")
    golden = open(f"{REPO_ROOT}/golden/activity.json", encoding="utf-8").read()
    (res / "activity.json").write_text(golden)
    return VmRun(True, results=str(res), guest={"guest": {"user_events": True},
                                                "clock": entries})


def test_the_clock_recordings_must_be_there_carry_clock_data_and_decode_as_golden(tmp_path):
    """vm-clock/<case>/<mode>: guest_run.py's perf record -k recordings, held to golden and
    to perf's clock data (here hello captures without it: both fail, each saying why)."""
    from harness.vm.run_vm import Paths, clock_outcomes
    s = Paths(REPO_ROOT, str(tmp_path / "build"), str(tmp_path))
    ok = {"status": "ok", "problem": "", "decoded": "activity.json", "ehdecode_exit": 0}
    run = _clock_run(tmp_path, {
        "activity.clock": dict(ok, perf_data="activity.clock.perf.data"),
        "activity.clock-pipe": dict(ok, perf_data="activity.clock.perf.data")})
    by = {o.ident: o for o in clock_outcomes(s, run, ["activity", "structs"])}
    assert set(by) == {"vm-clock/activity/clock", "vm-clock/activity/clock-pipe"}
    assert by["vm-clock/activity/clock"].status == "fail"
    assert by["vm-clock/activity/clock"].message == "activity.clock.perf.data carries no CLOCK_DATA"
    assert "in perf's file mode" in by["vm-clock/activity/clock-pipe"].message
    run = _clock_run(tmp_path, {})
    by = {o.ident: o for o in clock_outcomes(s, run, ["activity"])}
    assert all(o.status == "fail" and "did not record" in o.message for o in by.values()), by
    assert clock_outcomes(s, run, ["structs"]) == []
