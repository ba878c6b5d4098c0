# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/bisect-verdict.py: how one VM run becomes git bisect's
0 (good), 1 (bad) or 125 (skip). The inputs are hand-written vm-results.json files in
the shape harness/vm/run_vm.py writes (items with ident/status/message/group/case)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess

import pytest

from harness.core.common import REPO_ROOT

REPO = REPO_ROOT
SCRIPT = os.path.join(REPO, "scripts", "bisect-verdict.py")

_spec = importlib.util.spec_from_file_location("bisect_verdict", SCRIPT)
bv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bv)

BEGAN = "[    1.0] boot\nEHCONF-INIT: start uptime=1.0\nEHCONF-GUEST: begin uptime=1.2\n"
NOT_BEGAN = "[    1.0] boot\n[    2.0] Kernel panic - not syncing: VFS\n"


def item(ident, status, group="vm", case="", message=""):
    return {"ident": ident, "status": status, "group": group, "case": case, "message": message}


def healthy(*extra):
    """A run where the boot, the kernel log and two kernel_limits tests passed."""
    return [item("vm/boot", "pass"), item("vm/kernel-log", "pass"),
            item("vm/kernel_limits/write_no_listener", "pass", case="kernel_limits"),
            item("vm/kernel_limits/enable_bit_raw", "pass", case="kernel_limits"),
            item("vm-limits/perf", "pass", group="vm-limits"),
            item("vm/structs/global.depth_1", "pass", case="structs"),
            item("vm-golden/structs", "pass", group="vm-golden", case="structs"),
            item("kselftest/abi_test/enablement", "pass", group="kselftest", case="abi_test"),
            *extra]


def write_run(tmp_path, items=None, problem="", user_events=True, console=BEGAN):
    os.makedirs(tmp_path / "vm", exist_ok=True)
    (tmp_path / "vm" / "console.log").write_text(console)
    report = {"problem": problem, "guest": {"user_events": user_events}, "items": items or []}
    (tmp_path / "vm-results.json").write_text(json.dumps(report))
    return str(tmp_path)


def test_all_pass_is_good(tmp_path):
    code, why = bv.verdict(write_run(tmp_path, healthy()), ["kernel_limits"])
    assert code == 0
    # write_no_listener, enable_bit_raw and vm-limits/perf: 3 tested items
    assert why.startswith("3 item(s) passed")


def test_failed_test_of_selected_case_is_bad_and_named(tmp_path):
    items = healthy()
    items[2] = item("vm/kernel_limits/write_no_listener", "fail", case="kernel_limits",
                    message="kernel_limits: write_no_listener: FAILED\nExpected EBADF (9) == 0")
    code, why = bv.verdict(write_run(tmp_path, items), ["kernel_limits"])
    assert code == 1
    assert why.startswith("vm/kernel_limits/write_no_listener failed -- ")
    assert "Expected EBADF (9) == 0" in why
    assert "\n" not in why


def test_failure_in_unselected_case_does_not_count(tmp_path):
    items = healthy(item("vm/structs/global.depth_2", "fail", case="structs"),
                    item("kselftest/abi_test/bits", "fail", group="kselftest", case="abi_test"))
    code, _ = bv.verdict(write_run(tmp_path, items), ["kernel_limits"])
    assert code == 0


def test_kselftest_selected_by_name(tmp_path):
    items = healthy(item("kselftest/abi_test/bits", "fail", group="kselftest", case="abi_test"))
    assert bv.verdict(write_run(tmp_path, items), ["kselftest"])[0] == 1
    assert bv.verdict(write_run(tmp_path, items), ["kselftest/abi_test"])[0] == 1
    # perf_test produced no items here: nothing was tested, so the commit is skipped
    assert bv.verdict(write_run(tmp_path, items), ["kselftest/perf_test"])[0] == 125
    assert bv.verdict(write_run(tmp_path, items), ["kernel_limits"])[0] == 0


def test_golden_failure_is_bad(tmp_path):
    items = healthy()
    items[6] = item("vm-golden/structs", "fail", group="vm-golden", case="structs", message="diff")
    code, why = bv.verdict(write_run(tmp_path, items), ["structs"])
    assert code == 1 and why.startswith("vm-golden/structs failed")


def test_limits_count_only_with_kernel_limits(tmp_path):
    items = healthy()
    items[4] = item("vm-limits/perf", "fail", group="vm-limits", message="8184 vs 4000")
    assert bv.verdict(write_run(tmp_path, items), ["kernel_limits"])[0] == 1
    assert bv.verdict(write_run(tmp_path, items), ["structs"])[0] == 0


def test_kernel_warning_is_bad_unless_ignored(tmp_path):
    items = healthy()
    items[1] = item("vm/kernel-log", "fail", message="kernel log findings:\n  WARNING: at x")
    d = write_run(tmp_path, items)
    assert bv.verdict(d, ["kernel_limits"])[0] == 1
    assert bv.verdict(d, ["kernel_limits"], ignore_kernel_log=True)[0] == 0


def test_boot_failure_before_the_command_is_skip(tmp_path):
    d = write_run(tmp_path, [], problem="vm/run: guest ended without finishing (panic?), "
                  "no guest-results.json: Kernel panic", console=NOT_BEGAN)
    code, why = bv.verdict(d, ["kernel_limits"])
    assert code == 125 and why.startswith("boot failed before the test command ran")


def test_timeout_before_the_command_is_skip_after_it_is_bad(tmp_path):
    problem = "vm/run: guest timed out, no guest-results.json: vm: TIMEOUT"
    assert bv.verdict(write_run(tmp_path, [], problem=problem, console=NOT_BEGAN),
                      ["kernel_limits"])[0] == 125
    code, why = bv.verdict(write_run(tmp_path, [], problem=problem, console=BEGAN), ["kernel_limits"])
    assert code == 1 and why.startswith("guest started the cases but did not finish")


def test_no_user_events_is_skip(tmp_path):
    items = [item("vm/boot", "pass"), item("vm/kernel-log", "pass"),
             item("vm/kernel_limits", "skip", case="kernel_limits", message="kernel lacks CONFIG_USER_EVENTS")]
    code, why = bv.verdict(write_run(tmp_path, items, user_events=False), ["kernel_limits"])
    assert (code, why) == (125, "kernel lacks CONFIG_USER_EVENTS")


def test_everything_skipped_is_skip(tmp_path):
    items = [item("vm/boot", "pass"), item("vm/kernel-log", "pass"),
             item("vm/kernel_limits/write_no_listener", "skip", case="kernel_limits", message="no perf")]
    code, why = bv.verdict(write_run(tmp_path, items), ["kernel_limits"])
    assert code == 125 and "no perf" in why


def test_selected_case_without_items_is_bad(tmp_path):
    code, why = bv.verdict(write_run(tmp_path, healthy()), ["kernel_limits", "lifecycle"])
    assert code == 1 and why == "lifecycle produced no result"


def test_missing_results_is_skip(tmp_path):
    assert bv.verdict(str(tmp_path), ["kernel_limits"])[0] == 125


def test_many_failures_are_summarised(tmp_path):
    items = healthy(*[item(f"vm/kernel_limits/t{i}", "fail", case="kernel_limits") for i in range(5)])
    code, why = bv.verdict(write_run(tmp_path, items), ["kernel_limits"])
    assert code == 1
    assert why.startswith("vm/kernel_limits/t0 failed, vm/kernel_limits/t1 failed, vm/kernel_limits/t2 failed (+2 more)")


@pytest.mark.parametrize("status,code,label", [("pass", 0, "GOOD"), ("fail", 1, "BAD")])
def test_command_line_prints_one_line_and_exits_with_the_code(tmp_path, status, code, label):
    items = healthy()
    items[2] = item("vm/kernel_limits/write_no_listener", status, case="kernel_limits")
    d = write_run(tmp_path, items)
    p = subprocess.run(["/usr/bin/python3", SCRIPT, "--results", d, "--case", "kernel_limits"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == code
    assert p.stdout.count("\n") == 1 and p.stdout.startswith(label + ": ")


def kernel_limits_run(write_status):
    """kernel_limits as 6.12 ran it once: ftrace_max_payload, the limits and the kernel log
    failed for reasons unrelated to write_no_listener."""
    return [item("vm/boot", "pass"),
            item("vm/kernel-log", "fail", message="WARNING: at kernel/trace/trace_event_perf.c"),
            item("vm/kernel_limits/global.write_no_listener", write_status, case="kernel_limits",
                 message="Expected EBADF (9) == ue_writev(...) (0)"),
            item("vm/kernel_limits/global.ftrace_max_payload", "fail", case="kernel_limits"),
            item("vm-limits/ftrace", "fail", group="vm-limits")]


@pytest.mark.parametrize("sel", ["kernel_limits/write_no_listener", "kernel_limits/global.write_no_listener"])
def test_case_slash_test_judges_only_that_test(tmp_path, sel):
    code, why = bv.verdict(write_run(tmp_path, kernel_limits_run("pass")), [sel])
    assert (code, why) == (0, f"1 item(s) passed ({sel})")
    code, why = bv.verdict(write_run(tmp_path, kernel_limits_run("fail")), [sel])
    assert code == 1
    assert why.startswith("vm/kernel_limits/global.write_no_listener failed -- Expected EBADF")


def test_whole_case_still_judges_everything(tmp_path):
    code, why = bv.verdict(write_run(tmp_path, kernel_limits_run("pass")), ["kernel_limits"])
    assert code == 1
    assert why.startswith("vm/kernel-log failed, vm/kernel_limits/global.ftrace_max_payload failed, "
                          "vm-limits/ftrace failed")


def test_selected_test_without_result_is_bad(tmp_path):
    code, why = bv.verdict(write_run(tmp_path, kernel_limits_run("pass")), ["kernel_limits/no_such_test"])
    assert (code, why) == (1, "kernel_limits/no_such_test produced no result")


def test_test_name_prefix_is_not_a_match(tmp_path):
    # "write_no" must not select "write_no_listener"
    code, _ = bv.verdict(write_run(tmp_path, kernel_limits_run("fail")), ["kernel_limits/write_no"])
    assert code == 1  # no result for write_no: lost, not the failing test
    assert bv.verdict(write_run(tmp_path, kernel_limits_run("fail")), ["kernel_limits/write_no"])[1] == \
        "kernel_limits/write_no produced no result"
