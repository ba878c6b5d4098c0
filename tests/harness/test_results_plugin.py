# SPDX-License-Identifier: GPL-2.0
"""Tests of run-then-judge: the runners write result files, pytest only reads them.

Each test runs a real pytest (a subprocess, in the checkout so pytest.ini and the plugin
apply) against result files made here, and reads the JUnit XML it writes:
  * a failing KTAP line in a result file is a failed item, a crash fails the tests that
    never reported, a passing line passes;
  * a missing summary.json is ONE failed item whose reason names the runner command;
  * a golden entry is judged when the item runs (a wrong decoded event fails);
  * `pytest --collect-only` starts no program: fake test programs that would leave a
    sentinel file stay unrun, and no results folder appears.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from harness.core.common import REPO_ROOT
from harness.core.results import check_entry, golden_entry, write_summary

PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]


def pytest_in_checkout(args, env=None, timeout=120):
    full = dict(os.environ)
    for k in ("EHCONF_BUILD", "EHCONF_RESULTS", "EHCONF_RUNNERS", "PYTEST_ADDOPTS"):
        full.pop(k, None)
    full.update(env or {})
    return subprocess.run(PYTEST + args, cwd=REPO_ROOT, env=full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def junit_cases(path):
    """{item id: (outcome, message)} of a JUnit XML file."""
    out = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        name = tc.get("name")
        ident = name[name.index("[") + 1:-1] if "[" in name else name
        outcome, msg = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = tc.find(tag)
            if el is not None:
                outcome, msg = tag, el.get("message", "")
                break
        out[ident] = (outcome, msg)
    return out


def judge_runner(tmp_path, runner, variant="fake"):
    xml = tmp_path / "out.xml"
    p = pytest_in_checkout(["harness/core/judge_items.py", "--ehconf-build", str(tmp_path / variant),
                            "--ehconf-results", str(tmp_path / "results"),
                            "--ehconf-runner", runner, f"--junitxml={xml}"])
    assert xml.exists(), p.stdout
    return p, junit_cases(xml)


class FakeRun:
    def __init__(self, returncode=0, timed_out=False, error=""):
        self.returncode, self.timed_out, self.error, self.seconds = returncode, timed_out, error, 0.1


def write_ktap(tmp_path, name, text, run, runner="unit", folder="unit-fake"):
    from harness.core.results import ktap_entry
    d = tmp_path / "results" / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / (name + ".ktap")).write_text(text)
    return ktap_entry(f"unit/{name}/", name + ".ktap", f"fake/{name}", run, 5)


def test_failing_ktap_line_is_a_failed_item(tmp_path):
    e = write_ktap(tmp_path, "prog", "KTAP version 1\n1..2\nok 1 good\n# boom at x.c:3\n"
                   "not ok 2 bad\n", FakeRun(returncode=1))
    write_summary(str(tmp_path / "results" / "unit-fake"), "unit", "make unit", [e], 0.1)
    p, cases = judge_runner(tmp_path, "unit")
    assert p.returncode == 1, p.stdout
    assert cases["unit/prog/good"][0] == "passed"
    outcome, msg = cases["unit/prog/bad"]
    assert outcome == "failure" and "fake/prog: unit/prog/bad: FAILED" in msg, cases
    assert "1 passed, 1 failed, 0 skipped" in p.stdout


def test_crash_fails_the_tests_that_never_reported(tmp_path):
    e = write_ktap(tmp_path, "prog", "KTAP version 1\n1..3\nok 1 first\n", FakeRun(returncode=-11))
    write_summary(str(tmp_path / "results" / "unit-fake"), "unit", "make unit", [e], 0.1)
    _, cases = judge_runner(tmp_path, "unit")
    assert cases["unit/prog/first"][0] == "passed"
    for k in ("unit/prog/test_2", "unit/prog/test_3"):
        assert cases[k][0] == "failure" and "signal 11" in cases[k][1], cases


def test_timeout_recorded_by_the_runner_is_a_failure_with_its_reason(tmp_path):
    e = write_ktap(tmp_path, "prog", "KTAP version 1\n1..1\n", FakeRun(returncode=-9, timed_out=True))
    write_summary(str(tmp_path / "results" / "unit-fake"), "unit", "make unit", [e], 0.1)
    _, cases = judge_runner(tmp_path, "unit")
    assert cases["unit/prog/test_1"][0] == "failure"
    assert "timed out after 5 s" in cases["unit/prog/test_1"][1].splitlines()[0]


def test_missing_summary_is_one_failed_item_naming_the_command(tmp_path):
    p, cases = judge_runner(tmp_path, "offline")
    assert p.returncode == 1
    assert list(cases) == ["offline/results"], cases
    outcome, msg = cases["offline/results"]
    assert outcome == "failure"
    assert "summary.json is missing" in msg and "make check-offline VARIANT=fake" in msg
    assert "\n" not in msg.strip()


def test_missing_ktap_file_is_a_failed_item(tmp_path):
    e = write_ktap(tmp_path, "prog", "", FakeRun())
    os.unlink(tmp_path / "results" / "unit-fake" / "prog.ktap")
    write_summary(str(tmp_path / "results" / "unit-fake"), "unit", "make unit", [e], 0.1)
    _, cases = judge_runner(tmp_path, "unit")
    assert cases["unit/prog"][0] == "failure" and "cannot be read" in cases["unit/prog"][1]


def test_checks_and_golden_entries_are_judged(tmp_path):
    folder = tmp_path / "results" / "offline-fake"
    folder.mkdir(parents=True)
    with open(os.path.join(REPO_ROOT, "golden", "activity.json"), encoding="utf-8") as f:
        good = f.read()
    lines = [x for x in good.splitlines() if not x.startswith('{"ehconf"')]
    (folder / "good.json").write_text("\n".join(lines) + "\n")
    (folder / "bad.json").write_text("\n".join(lines[:-1]) + "\n")
    entries = [golden_entry("golden/good", "activity", "offline", "good.json", "golden/activity.json"),
               golden_entry("golden/bad", "activity", "offline", "bad.json", "golden/activity.json"),
               golden_entry("golden/broken", "activity", "offline", "none.json",
                            "golden/activity.json", problem="activity: ehdecode --golden: exit status 1"),
               check_entry("lint/x", "pass"), check_entry("lint/y", "fail", "y.c:3: no ';'"),
               check_entry("golden/z", "skip", "KTAP only")]
    write_summary(str(folder), "offline", "make check-offline", entries, 0.1)
    _, cases = judge_runner(tmp_path, "offline")
    assert cases["golden/good"][0] == "passed", cases["golden/good"]
    assert cases["golden/bad"][0] == "failure" and "activity [offline]" in cases["golden/bad"][1]
    assert cases["golden/broken"] == ("failure", "activity: ehdecode --golden: exit status 1")
    assert cases["lint/x"][0] == "passed"
    assert cases["lint/y"] == ("failure", "y.c:3: no ';'")
    assert cases["golden/z"][0] == "skipped" and "KTAP only" in cases["golden/z"][1]


def test_vm_and_wine_items_carry_their_marks(tmp_path):
    for runner, folder in (("vm", "vm"), ("wine", "wine")):
        write_summary(str(tmp_path / "results" / folder), runner, "make x",
                      [check_entry(f"{runner}/one", "pass")], 0.1)
    p = pytest_in_checkout(["harness/core/judge_items.py", "--ehconf-build", str(tmp_path / "fake"),
                            "--ehconf-results", str(tmp_path / "results"), "-m", "not vm",
                            "--ehconf-runner", "vm", "--ehconf-runner", "wine"])
    assert "1 passed, 0 failed, 0 skipped" in p.stdout and "1 deselected" in p.stdout, p.stdout


def _fake_program(path, sentinel):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran >> {sentinel}\necho 'KTAP version 1'\necho 1..0\n")
    path.chmod(0o755)


def test_collect_only_runs_no_program(tmp_path):
    """Fake unit tests, cases, wine, qemu and kernel builder that would write a sentinel:
    after a bare `pytest --collect-only` (pytest.ini's testpaths) none of them ran and no
    results folder exists."""
    sentinel = tmp_path / "sentinel"
    build = tmp_path / "build" / "gcc"
    for p in (build / "tests" / "lib" / "test_fake", build / "cases" / "fake",
              build / "bin" / "ehdecode", tmp_path / "bin" / "wine",
              tmp_path / "bin" / "qemu-system-x86_64", tmp_path / "bin" / "perf"):
        _fake_program(p, sentinel)
    results = tmp_path / "build" / "results"
    env = {"PATH": f"{tmp_path / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
           "EHCONF_BUILD": str(build), "KERNEL": str(tmp_path / "bin" / "perf")}
    p = pytest_in_checkout(["--collect-only", "-q"], env=env)
    assert p.returncode == 0, p.stdout
    assert not sentinel.exists(), f"collection ran: {sentinel.read_text()}"
    assert not results.exists(), sorted(os.listdir(results))
    # every runner is an item (failing: no results), and the self-tests are collected
    for runner in ("unit", "offline", "wine", "vm"):
        assert f"test_results[{runner}/results]" in p.stdout, p.stdout[-3000:]
    assert "tests/harness/test_ktap.py::" in p.stdout


def test_summary_is_written_atomically_and_read_back(tmp_path):
    path = write_summary(str(tmp_path), "unit", "make unit", [check_entry("a", "pass")], 1.0)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert data["entries"] == [{"kind": "check", "id": "a", "status": "pass", "message": ""}]
    assert not os.path.exists(path + ".tmp")
    with pytest.raises(AssertionError):
        check_entry("b", "passed")
