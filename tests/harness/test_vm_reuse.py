# SPDX-License-Identifier: GPL-2.0
"""harness/vm/reuse.py: make check's VM run stands only while nothing it reads changed
since a run that passed."""

from __future__ import annotations

import os

from harness.vm import reuse

PASS = ('<testsuites><testsuite name="pytest"><testcase classname="ehconf.vm" name="vm/boot"/>'
        '</testsuite></testsuites>')
FAIL = ('<testsuites><testsuite name="pytest"><testcase classname="ehconf.vm" name="vm/boot">'
        '<failure message="no">no</failure></testcase></testsuite></testsuites>')


def prepare(tmp_path):
    build, results = tmp_path / "gcc", tmp_path / "results"
    (build / "cases").mkdir(parents=True)
    (build / "cases" / "structs").write_bytes(b"\x7fELF one")
    (results / "vm").mkdir(parents=True)
    (results / "vm" / "summary.json").write_text("{}")
    kernel = tmp_path / "bzImage"
    kernel.write_bytes(b"kernel")
    return ["--build", str(build), "--results", str(results), "--kernel", str(kernel)], build


def record(tmp_path, args, junit):
    x = tmp_path / "vm.xml"
    x.write_text(junit)
    return reuse.main(["record", *args, "--junit", str(x)])


def test_a_passing_run_stands_until_a_program_of_the_guest_changes(tmp_path, capsys):
    args, build = prepare(tmp_path)
    assert reuse.main(["check", *args]) == 1  # nothing recorded: boot
    record(tmp_path, args, PASS)
    assert reuse.main(["check", *args]) == 0
    assert "its results stand" in capsys.readouterr().out
    (build / "cases" / "structs").write_bytes(b"\x7fELF two")
    assert reuse.main(["check", *args]) == 1


def test_a_setting_or_another_kernel_boots_again(tmp_path, monkeypatch):
    args, _ = prepare(tmp_path)
    record(tmp_path, args, PASS)
    monkeypatch.setenv("KASAN", "1")
    assert reuse.main(["check", *args]) == 1
    monkeypatch.delenv("KASAN")
    assert reuse.main(["check", *args]) == 0
    other = args[:-1] + [str(tmp_path / "other-bzImage")]
    assert reuse.main(["check", *other]) == 1


def test_a_failing_run_is_never_reused(tmp_path):
    args, _ = prepare(tmp_path)
    record(tmp_path, args, PASS)
    record(tmp_path, args, FAIL)
    assert not os.path.exists(tmp_path / "results" / "vm" / reuse.STAMP)
    assert reuse.main(["check", *args]) == 1


def test_another_run_into_the_same_folder_is_never_taken_for_the_recorded_one(tmp_path):
    """make check-vm KASAN=1 writes its summary.json where make check's was."""
    args, _ = prepare(tmp_path)
    record(tmp_path, args, PASS)
    (tmp_path / "results" / "vm" / "summary.json").write_text('{"kasan": 1}')
    assert reuse.main(["check", *args]) == 1
