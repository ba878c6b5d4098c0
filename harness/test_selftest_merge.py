# SPDX-License-Identifier: GPL-2.0
"""Unit tests of how test_vm.py merges the attempts of a kernel selftest binary: a test
that failed and then passed is a pass (reported as flaky), a test that failed every
attempt stays a failure, so a deterministic kernel regression is never hidden."""
import os

from test_vm import selftest_outcomes

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
