# SPDX-License-Identifier: GPL-2.0
"""scripts/selftests-series-mutants.py's verdicts from what a boot left: a TAP file that
ends inside a test (the kernel died in it, as arm64's alignment-fault Oops does under
K38's unaligned-set-bit mutant) counts as that test failing, and only that test; where a
mutant of another architecture finds its installs."""

import argparse
import importlib.util
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
_spec = importlib.util.spec_from_file_location(
    "selftests_series_mutants", os.path.join(TOP, "scripts", "selftests-series-mutants.py"))
mut = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mut)

HEAD = """TAP version 13
1..2
# timeout set to 90
# selftests: user_events: reg_test
# TAP version 13
# 1..1
# #  RUN           reg.struct_size ...
# #            OK  reg.struct_size
# ok 1 reg.struct_size
ok 1 selftests: user_events: reg_test
# timeout set to 90
# selftests: user_events: enable_test
# TAP version 13
# 1..2
# #  RUN           enable.ftrace_sets_and_clears_the_bit ...
# #            OK  enable.ftrace_sets_and_clears_the_bit
# ok 1 enable.ftrace_sets_and_clears_the_bit
# #  RUN           enable.u32_word_in_either_half_of_a_long ...
"""
REST = """# #            OK  enable.u32_word_in_either_half_of_a_long
# ok 2 enable.u32_word_in_either_half_of_a_long
ok 2 selftests: user_events: enable_test
"""
K38 = "enable_test/enable.u32_word_in_either_half_of_a_long"


def _boot(tmp_path, patched, unpatched=HEAD + REST, finding=None):
    res = tmp_path / "vm"
    res.mkdir()
    (res / "unpatched.1.tap").write_text(unpatched)
    (res / "patched.1.tap").write_text(patched)
    (res / "vm.json").write_text(json.dumps({"findings": [{"line": finding}] if finding else []}))
    return str(res)


def _judged(res, row="K38"):
    r = {"m": argparse.Namespace(name="unaligned-set-bit", row=row), "died_in": ""}
    mut.judge(r, res, {"K38": [K38], "K01": ["reg_test/reg.struct_size"]}, {})
    return r


def test_a_complete_file_has_no_interrupted_test(tmp_path):
    p = tmp_path / "t.tap"
    p.write_text(HEAD + REST)
    r = mut.tap_summary.parse(str(p))
    assert r["interrupted"] is None and K38 in r["passed"]


def test_a_file_that_ends_inside_a_test_names_it(tmp_path):
    p = tmp_path / "t.tap"
    p.write_text(HEAD)
    r = mut.tap_summary.parse(str(p))
    assert r["interrupted"] == K38 and K38 not in r["passed"] + r["failed"]


def test_the_kernel_dying_in_the_rows_test_is_caught(tmp_path):
    oops = "Unable to handle kernel paging request at virtual address ffff0000c1b2e004"
    r = _judged(_boot(tmp_path, HEAD, finding=oops))
    assert r["patched"] == "caught" and r["unpatched"] == "missed"
    assert r["died_in"].startswith(f"patched: {K38}") and oops in r["died_in"]


def test_the_kernel_dying_in_another_test_does_not_catch_the_row(tmp_path):
    r = _judged(_boot(tmp_path, HEAD), row="K01")
    assert r["patched"] == "MISSED"


def test_a_passing_boot_misses(tmp_path):
    r = _judged(_boot(tmp_path, HEAD + REST))
    assert r["patched"] == "MISSED" and r["died_in"] == ""


def test_another_architecture_has_its_own_installs():
    assert mut.install_of("/o", "x86_64") == "/o/install/6.12"
    assert mut.install_of("/o", "arm64") == "/o/install/6.12-arm64"


CUT_IN_PROGRAM = """TAP version 13
1..4
# timeout set to 90
# selftests: user_events: ftrace_test
"""


def test_a_file_cut_before_any_test_names_the_program(tmp_path):
    p = tmp_path / "t.tap"
    p.write_text(CUT_IN_PROGRAM)
    assert mut.tap_summary.parse(str(p))["interrupted"] == "ftrace_test"


def test_the_kernel_dying_in_an_unpatched_program_is_caught_there(tmp_path):
    """arm64's unaligned-set-bit: the unpatched ftrace_test dies before its first line; the
    patched tests ran in a boot of their own (vm-patched.json), which died in K38's test."""
    res = _boot(tmp_path, HEAD, unpatched=CUT_IN_PROGRAM)
    (tmp_path / "vm" / "vm-unpatched.json").write_text(json.dumps({"findings": [{"line": "Oops A"}]}))
    (tmp_path / "vm" / "vm-patched.json").write_text(json.dumps({"findings": [{"line": "Oops B"}]}))
    r = _judged(res)
    assert r["unpatched"] == "caught" and r["patched"] == "caught"
    assert r["died_in"] == f"unpatched: ftrace_test (Oops A); patched: {K38} (Oops B)"


ALONE = """TAP version 13
1..1
# selftests: user_events: enable_test
# TAP version 13
# 1..1
# #  RUN           enable.u32_word_in_either_half_of_a_long ...
"""


def test_a_row_test_the_patched_run_never_reached_is_judged_by_its_run_alone(tmp_path):
    """The patched tree died in the upstream ftrace_test before enable_test: that alone
    misses the row; its test run alone (alone-0.1.tap) dying in it catches it."""
    res = _boot(tmp_path, CUT_IN_PROGRAM, unpatched=CUT_IN_PROGRAM)
    assert mut.unreached(res, [K38]) == [K38]
    assert _judged(res)["patched"] == "MISSED"
    (tmp_path / "vm" / "alone-0.1.tap").write_text(ALONE)
    r = _judged(res)
    assert r["patched"] == "caught" and f"alone: {K38}" in r["died_in"]
    (tmp_path / "vm" / "alone-0.1.tap").write_text(ALONE + REST.replace(
        "ok 2 selftests", "ok 1 selftests"))
    assert _judged(res)["patched"] == "MISSED"  # it ran to the end and passed
