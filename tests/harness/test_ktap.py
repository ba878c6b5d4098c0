# SPDX-License-Identifier: GPL-2.0
"""Unit tests of harness/core/ktap.py with the shapes both of our producers print.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_ktap.py
"""

from harness.core.ktap import FAIL, PASS, SKIP, TODO, finish, format_failure, item_names, parse

KSELFTEST = """TAP version 13
1..5
# Starting 5 tests from 2 test cases.
#  RUN           global.one ...
#            OK  global.one
ok 1 global.one
#  RUN           global.bad ...
# t.c:8:bad:Expected 1 (1) == 2 (2)
# bad: Test failed
#          FAIL  global.bad
not ok 2 global.bad
#  RUN           global.skip ...
#      SKIP      why not
#            OK  global.skip
ok 3 global.skip # SKIP why not
ok 4 # XFAIL expected to fail
not ok 5 # error setup broke
# FAILED: 3 / 5 tests passed.
# Totals: pass:2 fail:2 xfail:0 xpass:0 skip:1 error:0
"""


def test_kselftest_output():
    rep = finish(parse(KSELFTEST), 1)
    assert rep.version == "TAP 13" and rep.plan == 5
    got = [(r.number, r.name, r.status) for r in rep.results]
    assert got == [(1, "global.one", PASS), (2, "global.bad", FAIL), (3, "global.skip", SKIP),
                   (4, "expected to fail", PASS), (5, "setup broke", FAIL)]
    bad = rep.results[1]
    assert "# t.c:8:bad:Expected 1 (1) == 2 (2)" in bad.diagnostics
    assert not any("global.one" in d for d in bad.diagnostics if "OK" in d)
    assert rep.results[2].reason == "why not"
    assert rep.trailing[-1].startswith("# Totals")
    msg = format_failure("build/gcc/cases/x", "case/x/global.bad", bad)
    assert "build/gcc/cases/x" in msg and "global.bad" in msg and "Expected 1 (1) == 2" in msg


KTAP_NESTED = """KTAP version 1
1..2
    KTAP version 1
    # Subtest: parent
    1..3
    ok 1 a
    # detail of b
    not ok 2 b
    ok 3 c # SKIP no device
ok 1 parent
not ok 2 other # TODO not written yet
"""


def test_nested_subtests_and_todo():
    rep = finish(parse(KTAP_NESTED), 0)
    assert rep.version == "KTAP 1" and rep.plan == 2
    parent = rep.results[0]
    assert parent.name == "parent" and parent.status == PASS
    assert [(s.name, s.status) for s in parent.subtests] == [("a", PASS), ("b", FAIL), ("c", SKIP)]
    assert parent.subtests[1].diagnostics == ["# detail of b"]
    assert rep.results[1].status == TODO
    ids = [i for i, _ in item_names(rep.results, "bin/")]
    assert ids == ["bin/parent/a", "bin/parent/b", "bin/parent/c", "bin/parent", "bin/other"]


def test_tap14_two_space_subtests():
    text = "TAP version 13\n1..1\n  1..2\n  ok 1 x\n  not ok 2 y\nnot ok 1 group\n"
    rep = finish(parse(text), 1)
    assert [s.name for s in rep.results[0].subtests] == ["x", "y"]
    assert rep.results[0].status == FAIL


def test_crash_marks_the_rest_failed():
    text = "KTAP version 1\n1..4\nok 1 a\nok 2 b\n# about to crash\n"
    rep = finish(parse(text), -11)
    assert [r.status for r in rep.results] == [PASS, PASS, FAIL, FAIL]
    assert rep.results[2].reason == "exited with signal 11 (SIGSEGV) after test 2"
    assert rep.results[2].diagnostics == ["# about to crash"]
    assert [r.name for r in rep.results[2:]] == ["test_3", "test_4"]
    rep = finish(parse(text), 3)
    assert rep.results[3].reason == "exited with status 3 after test 2"


def test_timeout_is_reported():
    rep = finish(parse("KTAP version 1\n1..2\nok 1 a\n"), -9, timed_out=True, timeout=20)
    assert rep.results[1].status == FAIL and "timed out after 20 s after test 1" in rep.results[1].reason


def test_no_output_and_nonzero_exit_is_one_failure():
    rep = finish(parse("Segmentation fault\n"), -11, output="Segmentation fault\n")
    assert len(rep.results) == 1 and rep.results[0].status == FAIL
    assert "signal 11" in rep.results[0].reason and "without KTAP output" in rep.results[0].reason
    assert rep.results[0].diagnostics == ["Segmentation fault"]


def test_no_output_and_zero_exit_is_a_failure_too():
    rep = finish(parse(""), 0)
    assert [r.status for r in rep.results] == [FAIL]


def test_nonzero_exit_with_all_passing_fails():
    rep = finish(parse("KTAP version 1\n1..1\nok 1 a\n==1==ERROR: AddressSanitizer: leak\n"), 23)
    assert [r.status for r in rep.results] == [PASS, FAIL]
    assert "status 23 although every test passed" in rep.results[1].reason
    assert "AddressSanitizer" in rep.results[1].diagnostics[0]


def test_missing_results_with_clean_exit_fail():
    rep = finish(parse("KTAP version 1\n1..3\nok 1 a\n"), 0)
    assert [r.status for r in rep.results] == [PASS, FAIL, FAIL]
    assert "missing from the output" in rep.results[1].reason


def test_too_many_results_or_no_plan_fail():
    rep = finish(parse("KTAP version 1\n1..1\nok 1 a\nok 2 b\n"), 0)
    assert rep.results[-1].status == FAIL and "plan" in rep.results[-1].reason
    rep = finish(parse("KTAP version 1\nok 1 a\n"), 0)
    assert rep.results[-1].status == FAIL and "no plan" in rep.results[-1].reason


def test_whole_program_skip():
    rep = finish(parse("TAP version 13\n1..0 # SKIP no user_events\n"), 0)
    assert [(r.status, r.reason) for r in rep.results] == [(SKIP, "SKIP no user_events")]


def test_exit_4_when_every_test_skipped_is_kselftests_skip():
    """The kernel cases exit with KSFT_SKIP (4) when every test skipped (run_kselftest.sh
    then says "# SKIP"); that is normal, but 4 with a passing test is not."""
    skipped = "TAP version 13\n1..2\nok 1 global.a # SKIP no user_events\nok 2 global.b # SKIP no\n"
    rep = finish(parse(skipped), 4)
    assert [r.status for r in rep.results] == [SKIP, SKIP]
    one_passed = "TAP version 13\n1..2\nok 1 global.a # SKIP no user_events\nok 2 global.b\n"
    rep = finish(parse(one_passed), 4)
    assert [r.status for r in rep.results] == [SKIP, PASS, FAIL]
    assert "exited with status 4" in rep.results[-1].reason
    rep = finish(parse(skipped), 4, timed_out=True, timeout=5)
    assert rep.results[-1].status == FAIL


def test_unit_header_output():
    text = ("KTAP version 1\n1..3\nok 1 roundtrip\n# t.c:9: x == 1, want y == 2\n"
            "not ok 2 sizes\nok 3 big # SKIP too slow\n# 1 passed, 1 failed, 1 skipped\n")
    rep = finish(parse(text), 1)
    assert [(r.name, r.status) for r in rep.results] == [("roundtrip", PASS), ("sizes", FAIL),
                                                         ("big", SKIP)]
    assert rep.results[1].diagnostics == ["# t.c:9: x == 1, want y == 2"]


def test_duplicate_names_get_unique_ids():
    rep = finish(parse("KTAP version 1\n1..2\nok 1 a\nok 2 a\n"), 0)
    assert [i for i, _ in item_names(rep.results)] == ["a", "a#2"]


def test_kselftest_timeout_names_the_running_test():
    text = ("TAP version 13\n1..3\n#  RUN           global.quick ...\nok 1 global.quick\n"
            "#  RUN           global.hangs ...\n")
    rep = finish(parse(text), -9, timed_out=True, timeout=3)
    assert [(r.name, r.status) for r in rep.results] == [
        ("global.quick", PASS), ("global.hangs", FAIL), ("test_3", FAIL)]
    assert rep.results[1].reason == "timed out after 3 s after test 1"
