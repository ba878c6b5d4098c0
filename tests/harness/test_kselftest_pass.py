# SPDX-License-Identifier: GPL-2.0
"""harness/kernel/kselftest_pass.py: the installed collection run by run_kselftest.sh must report
each test as ehconf's own runner did on the same boot. Equal statuses pass; a test that
differs, is missing on either side, or a program run_kselftest.sh never ran, fails with
both sides named."""

from __future__ import annotations

from harness.kernel.kselftest_pass import blocks, compare

RUN = """TAP version 13
1..1
# selftests: ehconf_user_events: kernel_write
# TAP version 13
# 1..3
# # Starting 3 tests from 1 test cases.
# ok 1 global.K29_write_without_tracer_is_ebadf
# not ok 2 global.K30_unregistered_index_is_enoent
# ok 3 global.K31_needs_perf # SKIP no perf_event_open permission
# # FAILED: 1 / 3 tests passed.
ok 1 selftests: ehconf_user_events: kernel_write
"""
OWN = {"vm/kernel_write/global.K29_write_without_tracer_is_ebadf": "pass",
       "vm/kernel_write/global.K30_unregistered_index_is_enoent": "pass",
       "vm/kernel_write/global.K31_needs_perf": "skip"}


def by_id(items):
    return {i: (st, msg) for i, st, msg, _ in items}


def test_blocks_unwrap_the_programs_own_ktap():
    inner, verdict = blocks(RUN)["kernel_write"]
    assert inner.startswith("TAP version 13\n1..3\n") and "ok 1 selftests" in verdict


def test_equal_statuses_pass_and_a_difference_fails_naming_both():
    got = by_id(compare(RUN, OWN, ["kernel_write"]))
    p = "kselftest-install/kernel_write/global."
    assert got[p + "K29_write_without_tracer_is_ebadf"][0] == "pass"
    assert got[p + "K31_needs_perf"][0] == "pass"  # skipped in both
    st, msg = got[p + "K30_unregistered_index_is_enoent"]
    assert st == "fail" and "run_kselftest.sh: fail" in msg and "ehconf's runner: pass" in msg


def test_a_test_only_one_side_reports_fails():
    own = dict(OWN, **{"vm/kernel_write/global.K35_extra": "pass"})
    st, msg = by_id(compare(RUN, own, ["kernel_write"]))[
        "kselftest-install/kernel_write/global.K35_extra"]
    assert st == "fail" and "not reported" in msg


def test_a_program_never_run_fails():
    [(ident, st, msg, _)] = compare(RUN, OWN, ["kernel_enable"])
    assert (ident, st) == ("kselftest-install/kernel_enable", "fail") and "kernel_enable" in msg
