# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/reports/summary.py: the totals of make check's closing line."""
from harness.reports.summary import main

SUITE = ('<?xml version="1.0"?><testsuites><testsuite name="pytest" errors="{e}" '
         'failures="{f}" skipped="{s}" tests="{t}"></testsuite></testsuites>')


def _xml(tmp_path, name, t, f=0, e=0, s=0):
    p = tmp_path / name
    p.write_text(SUITE.format(t=t, f=f, e=e, s=s))
    return str(p)


def test_adds_up_every_file(tmp_path, capsys):
    a = _xml(tmp_path, "a.xml", t=10, s=2)
    b = _xml(tmp_path, "b.xml", t=5, f=1, e=1)
    assert main([a, b]) == 1
    assert capsys.readouterr().out.strip().endswith("check: 11 passed, 2 failed, 2 skipped")


def test_all_green(tmp_path, capsys):
    assert main([_xml(tmp_path, "a.xml", t=3, s=1)]) == 0
    assert "check: 2 passed, 0 failed, 1 skipped" in capsys.readouterr().out


def test_missing_file_is_a_failure(tmp_path, capsys):
    assert main([_xml(tmp_path, "a.xml", t=3), str(tmp_path / "vm.xml")]) == 1
    out = capsys.readouterr().out
    assert "vm.xml: no results" in out
    assert "check: 3 passed, 1 failed, 0 skipped" in out
