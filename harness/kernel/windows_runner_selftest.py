# SPDX-License-Identifier: GPL-2.0
r"""What cases/windows/runner_selftest.c must report: the Windows case runner judged
against kselftest_harness.h.

runner_selftest.exe runs tests that fail on purpose (an EXPECT goes on, an ASSERT stops,
a crash, a hang, a skip with its reason...). RUNNER_EXPECTED says, for each, the verdict
and diagnostics kselftest_harness.h gives for the same code; check_one() and
check_all_listed() compare a parsed KTAP report with it. harness/kernel/run_wine.py uses them
under wine; on Windows, scripts/windows/check.ps1 runs this file as a program:

  python harness/kernel/windows_runner_selftest.py build\mingw\tests\windows\runner_selftest.exe

which runs the program (EHCONF_CASE_TIMEOUT=5), prints one line per test and exits 0
when every verdict is as expected, 1 otherwise. Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import List, Optional

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.ktap import FAIL, PASS, SKIP, Report, Result, finish, parse  # noqa: E402

RUNNER_TEST_TIMEOUT = "5"  # EHCONF_CASE_TIMEOUT for the selftest's hang_is_killed

# What kselftest_harness.h reports for the same test code (cases/windows/runner_selftest.c):
# verdict, text the test's diagnostics must contain, text they must not contain.
RUNNER_EXPECTED = {
    "passes": (PASS, [], []),
    "expect_fails_and_goes_on": (FAIL, ["Expected 1 (1) == 2 (2)",
                                        "marker: after the failed EXPECT"], []),
    "assert_stops_the_test": (FAIL, ["Expected 3 (3) == 4 (4)"],
                              ["marker: after the failed ASSERT"]),
    "handler_runs_only_on_failure": (FAIL, ["Expected 5 (5) == 6 (6)",
                                            "marker: handler of a failing check"],
                                     ["marker: handler of a passing check"]),
    "signed_values_print_signed": (FAIL, ["Expected (int64_t)-5 (-5) == (int64_t)3 (3)",
                                          "Expected UINT64_MAX (18446744073709551615) == "
                                          "(uint64_t)7 (7)"], []),
    "string_check_prints_both": (FAIL, ["Expected \"abc\" ('abc') == \"abd\" ('abd')"], []),
    "dangling_else_keeps_its_meaning": (PASS, [], []),
    "skip_with_reason": (SKIP, ["SKIP      reason 42"], ["marker: after SKIP"]),
    "crash_is_one_failure": (FAIL, ["by exception 0xc0000005"], []),
    "hang_is_killed": (FAIL, ["terminated by timeout"], []),
    "fresh_process_a": (PASS, [], []),
    "fresh_process_b": (PASS, [], []),
    "fork_returns_child_status": (PASS, [], []),
}


def check_one(name: str, res: Optional[Result]) -> List[str]:
    """Problems with one test's result ([] when it is as kselftest would report it)."""
    status, must, must_not = RUNNER_EXPECTED[name]
    if res is None:
        return [f"runner_selftest printed no result for {name}"]
    diag = "\n".join(res.diagnostics + [res.reason])
    problems = []
    if res.status != status:
        problems.append(f"verdict {res.status}, kselftest would give {status}")
    problems += [f"diagnostics lack {m!r}" for m in must if m not in diag]
    problems += [f"diagnostics contain {m!r}" for m in must_not if m in diag]
    if status == SKIP and res.reason != "reason 42":
        problems.append(f"skip reason {res.reason!r}, expected 'reason 42'")
    if problems:
        problems.append("diagnostics were:\n" + diag)
    return problems


def check_all_listed(rep: Report, returncode: Optional[int]) -> List[str]:
    """Problems with the run as a whole: every expected test once, the plan, exit 1."""
    names = [res.name.split(".", 1)[-1] for res in rep.results]
    problems = []
    if sorted(names) != sorted(RUNNER_EXPECTED):
        problems.append(f"tests {sorted(names)} != the expectations {sorted(RUNNER_EXPECTED)}")
    if rep.plan != len(RUNNER_EXPECTED):
        problems.append(f"plan 1..{rep.plan}, expected 1..{len(RUNNER_EXPECTED)}")
    if returncode != 1:
        problems.append(f"exit status {returncode}: a run with failures must exit 1")
    return problems


def results_by_name(rep: Report):
    return {res.name.split(".", 1)[-1]: res for res in rep.results}


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} RUNNER_SELFTEST_EXE", file=sys.stderr)
        return 2
    env = dict(os.environ, EHCONF_CASE_TIMEOUT=RUNNER_TEST_TIMEOUT)
    try:
        p = subprocess.run([argv[1]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, env=env, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"runner_selftest: cannot run {argv[1]}: {e}")
        return 1
    text = p.stdout.decode("utf-8", errors="replace")
    rep = finish(parse(text), p.returncode, False, 300, text)
    by_name = results_by_name(rep)
    bad = 0
    for name in RUNNER_EXPECTED:
        problems = check_one(name, by_name.get(name))
        print(f"{'FAIL' if problems else 'PASS'} runner/{name}"
              + (": " + "; ".join(problems) if problems else ""))
        bad += bool(problems)
    whole = check_all_listed(rep, p.returncode)
    print(f"{'FAIL' if whole else 'PASS'} runner/all-listed" + (": " + "; ".join(whole) if whole else ""))
    bad += bool(whole)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
