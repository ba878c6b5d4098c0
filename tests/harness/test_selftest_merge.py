# SPDX-License-Identifier: GPL-2.0
"""Unit tests of how run_vm.py merges the attempts of a kernel selftest binary: a test
that failed and then passed is a pass (reported as flaky), a test that failed every
attempt stays a failure, so a deterministic kernel regression is never hidden."""
import os

from harness.vm.run_vm import selftest_outcomes
from harness.core.common import REPO_ROOT

KTAP_FAIL = "TAP version 13\n1..2\nok 1 user.a\nnot ok 2 user.b\n"
KTAP_PASS = "TAP version 13\n1..2\nok 1 user.a\nok 2 user.b\n"


def _write(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return name


def _by_ident(outcomes):
    return {o.ident: o for o in outcomes}


def test_failed_then_passed_is_a_flaky_pass(tmp_path):
    r = {"ktap": "x.ktap", "attempts": [
        {"ktap": _write(tmp_path, "x.ktap", KTAP_FAIL), "exit": 1, "timed_out": False},
        {"ktap": _write(tmp_path, "x.2.ktap", KTAP_PASS), "exit": 0, "timed_out": False}]}
    got = _by_ident(selftest_outcomes("abi_test", str(tmp_path), r))
    assert got["kselftest/abi_test/user.a"].status == "pass"
    b = got["kselftest/abi_test/user.b"]
    assert b.status == "pass"
    assert b.message.startswith("flaky: failed 1 of 2 attempts")


def test_failing_every_attempt_stays_failed(tmp_path):
    r = {"ktap": "x.ktap", "attempts": [
        {"ktap": _write(tmp_path, "x.ktap", KTAP_FAIL), "exit": 1, "timed_out": False},
        {"ktap": _write(tmp_path, "x.2.ktap", KTAP_FAIL), "exit": 1, "timed_out": False},
        {"ktap": _write(tmp_path, "x.3.ktap", KTAP_FAIL), "exit": 1, "timed_out": False}]}
    got = _by_ident(selftest_outcomes("abi_test", str(tmp_path), r))
    assert got["kselftest/abi_test/user.b"].status == "fail"
    assert got["kselftest/abi_test/user.a"].status == "pass"


def test_single_attempt_without_attempt_list(tmp_path):
    r = {"ktap": _write(tmp_path, "x.ktap", KTAP_FAIL), "exit": 1, "timed_out": False}
    got = _by_ident(selftest_outcomes("dyn_test", str(tmp_path), r))
    assert got["kselftest/dyn_test/user.b"].status == "fail"
    assert os.path.exists(tmp_path / "x.ktap")


# --- known selftest failures are excused only by ehconf's own covering tests ----------

def _known_failure():
    from harness.vm.run_vm import KNOWN_KSELFTEST_FAILURES, Outcome
    ident = "kselftest/perf_test/user.perf_empty_events"
    _, covering = KNOWN_KSELFTEST_FAILURES[ident]
    return Outcome(ident, "fail", "not ok 3 user.perf_empty_events", "kselftest"), covering


def test_known_failure_is_xfail_when_the_covering_tests_passed():
    from harness.vm.run_vm import excuse_known_failures
    o, covering = _known_failure()
    excuse_known_failures([o], {c: "pass" for c in covering})
    assert o.status == "xfail" and covering[0] in o.message


def test_known_failure_stays_a_failure_when_a_covering_test_failed_or_is_missing():
    from harness.vm.run_vm import excuse_known_failures
    for own in ({c: "fail" for c in _known_failure()[1]}, {}):
        o, covering = _known_failure()
        excuse_known_failures([o], own)
        assert o.status == "fail" and "not excused" in o.message and covering[0] in o.message


def test_every_known_failure_names_covering_tests_that_exist():
    import re
    from harness.vm.run_vm import KNOWN_KSELFTEST_FAILURES
    repo = REPO_ROOT
    for ident, (reason, covering) in KNOWN_KSELFTEST_FAILURES.items():
        assert reason and covering, ident
        for c in covering:
            _, case, test = c.split("/")
            with open(os.path.join(repo, "cases", case + ".c"), encoding="utf-8") as f:
                names = re.findall(r"^TEST\((\w+)\)", f.read(), re.M)
            assert test.split(".")[-1] in names, f"{ident}: {c} is not a test of cases/{case}.c"
