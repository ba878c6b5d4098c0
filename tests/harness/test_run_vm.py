# SPDX-License-Identifier: GPL-2.0
"""Tests of the vm runner (harness/run_vm.py) that need no QEMU: without cases or a kernel
it boots nothing and every outcome fails with its one-line reason; the results it
writes (vm-results.json, summary entries) have the shape report.py and the plugin read."""

from __future__ import annotations

import json

from common import REPO_ROOT
from run_vm import boot, run_vm


def test_without_case_binaries_nothing_boots_and_the_outcomes_say_why(tmp_path):
    folder, entries = run_vm(str(tmp_path / "build"), str(tmp_path / "results"), REPO_ROOT, [])
    by = {e["id"]: e for e in entries}
    assert by["vm/boot"]["status"] == "fail"
    assert "no case binaries" in by["vm/boot"]["message"]
    assert "vm/crash-ends-the-run" not in by  # no second boot either
    assert all(e["kind"] == "check" and "\n" not in e["message"].strip()
               for e in entries if e["status"] == "fail" and e["id"].startswith("kselftest/"))
    data = json.loads((tmp_path / "results" / "vm-results.json").read_text())
    assert data["problem"].startswith("no case binaries") and data["items"]
    assert folder == str(tmp_path / "results" / "vm")


def test_a_kernel_that_is_not_a_file_is_the_boot_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNEL", str(tmp_path / "no-such-bzImage"))
    run = boot(REPO_ROOT, str(tmp_path / "build"), str(tmp_path / "results"), ["activity"])
    assert not run.ok and run.problem == f"KERNEL={tmp_path / 'no-such-bzImage'} is not a file"
