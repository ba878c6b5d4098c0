# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/reports/matrix_md.py: kernels side by side, every difference listed,
rendered from each column's JUnit file (written here in the form pytest gives it: items as
testcases, the VM run's tables as testsuite properties "vm.report.<name>").

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_matrix_report.py
"""

import json
from xml.sax.saxutils import quoteattr

from harness.reports import matrix_md as mr


def results(release, k07="pass", perf=8184, expected=8184):
    return {"guest": {"kernel_release": release,
                      "expectations": {"perf_max_payload": {"value": expected, "since": "6.4",
                                                            "reason": "r"}}},
            "limits": {"perf": perf, "ftrace": 4064},
            "items": [{"ident": "vm/kernel_enable/global.K07_x", "status": k07},
                      {"ident": "vm/boot", "status": "pass"}]}


OUTCOME = {"pass": "", "fail": '<failure message="broken">broken</failure>',
           "skip": '<skipped type="pytest.skip" message="why">x: why</skipped>'}


def write(tmp_path, name, data):
    """One column's JUnit file, as pytest writes it for the vm runner."""
    props = "".join(f"<property name={quoteattr('vm.report.' + k)} value={quoteattr(json.dumps(v))}/>"
                    for k, v in data.items() if k != "items")
    cases = "".join(f'<testcase classname="ehconf.vm" name={quoteattr(i["ident"])}>'
                    f'{OUTCOME[i["status"]]}</testcase>' for i in data["items"])
    p = tmp_path / f"matrix-{name}.xml"
    p.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="pytest">'
                 f"<properties>{props}</properties>{cases}</testsuite></testsuites>")
    return f"{name}={p}"


def test_same_results_show_no_difference(tmp_path):
    out = tmp_path / "m.md"
    rc = mr.main(["x", str(out), write(tmp_path, "6.12", results("6.12.117")),
                  write(tmp_path, "7.2", results("7.2.13"))])
    text = out.read_text()
    assert rc == 0
    assert "## Differences between kernels (0)" in text
    assert "`6.12.117`" in text and "`7.2.13`" in text


def test_every_kind_of_difference_is_listed_and_bold(tmp_path):
    out = tmp_path / "m.md"
    mr.main(["x", str(out), write(tmp_path, "6.12", results("6.12.117")),
             write(tmp_path, "7.3", results("7.3.4", k07="fail", perf=8000))])
    text = out.read_text()
    assert "## Differences between kernels (3)" in text
    assert "- K07: 6.12 pass, 7.3 **FAIL**" in text
    assert "- limit perf: 6.12 8184 (expected 8184), 7.3 8000 (expected 8184)" in text
    assert "`vm/kernel_enable/global.K07_x`: 6.12 pass, 7.3 **FAIL**" in text
    k08 = next(ln for ln in text.splitlines() if ln.startswith("| K08 "))
    assert k08.endswith("| not run | not run |"), k08  # same: not bold, not listed


def test_a_kernel_without_results_fails_but_is_not_a_difference_per_row(tmp_path):
    out = tmp_path / "m.md"
    rc = mr.main(["x", str(out), write(tmp_path, "6.12", results("6.12.117")),
                  f"7.2={tmp_path}/missing.xml"])
    text = out.read_text()
    assert rc == 1
    assert "## Differences between kernels (0)" in text
    assert "no results" in text


def test_architectures_stand_side_by_side(tmp_path):
    out = tmp_path / "m.md"
    s390x = dict(results("6.12.117"), vm={"kernel_arch": "s390x"})
    rc = mr.main(["x", str(out), write(tmp_path, "6.12", results("6.12.117")),
                  write(tmp_path, "6.12-s390x", s390x)])
    text = out.read_text()
    assert rc == 0
    assert "| | 6.12 | 6.12-s390x |" in text
    assert "| architecture | x86_64 | s390x |" in text  # no kernel_arch: x86_64's results
    assert "## Differences between kernels (0)" in text


def test_an_item_of_one_architecture_is_no_difference_but_one_missing_on_its_own_is(tmp_path):
    tmp = tmp_path
    out = tmp / "m.md"
    x86 = results("6.12.117")
    x86["items"].append({"ident": "kselftest-install/run", "status": "pass"})
    s390x = dict(results("6.12.117"), vm={"kernel_arch": "s390x"})
    mr.main(["x", str(out), write(tmp, "6.12", x86), write(tmp, "6.12-s390x", s390x)])
    assert "## Differences between kernels (0)" in out.read_text()
    mr.main(["x", str(out), write(tmp, "6.12", x86), write(tmp, "7.2", results("7.2.13"))])
    assert "`kselftest-install/run`: 6.12 pass, 7.2 absent" in out.read_text()
