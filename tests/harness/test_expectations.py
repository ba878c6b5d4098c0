# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/expectations.py and of cases/kernel-expectations.txt itself.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_expectations.py
"""

import re

import pytest

import expectations as ex

TABLE = """# comment
perf_max_payload   6.4   8184  one
perf_max_payload   7.3   8000  a planted later row
ftrace_max_payload 6.4   4064  two
"""


def test_a_row_holds_from_its_version_until_a_later_row():
    rows = ex.parse(TABLE, "t")
    assert ex.for_kernel("6.12.117-ehconf", rows)["perf_max_payload"].value == 8184
    assert ex.for_kernel("7.2.13", rows)["perf_max_payload"].value == 8184
    assert ex.for_kernel("7.3.4", rows)["perf_max_payload"].value == 8000
    assert ex.for_kernel("7.10", rows)["perf_max_payload"].value == 8000
    # Numeric, not text, comparison: 6.12 is after 6.4, 6.3 before it.
    assert ex.for_kernel("6.3.1", rows) == {}
    assert ex.for_kernel("7.3.4", rows)["ftrace_max_payload"].since == "6.4"


def test_environment_names_the_cases_read():
    env = ex.environment(ex.for_kernel("7.2", ex.parse(TABLE, "t")))
    assert env == {"EHCONF_EXPECT_PERF_MAX_PAYLOAD": "8184", "EHCONF_EXPECT_FTRACE_MAX_PAYLOAD": "4064"}


@pytest.mark.parametrize("bad", ["perf_max_payload 6 8184 no minor version",
                                 "perf_max_payload 6.4 lots reason",
                                 "perf_max_payload 6.4 8184",
                                 "perf_max_payload 6.4 8184 a\nperf_max_payload 6.4 1 twice"])
def test_a_malformed_table_is_an_error_not_a_dropped_row(bad):
    with pytest.raises(ValueError, match=r"t:\d+:"):
        ex.parse(bad, "t")


def test_the_repository_table_parses_and_every_name_reaches_a_case():
    """Every expectation is read by some case as EHCONF_EXPECT_<NAME>, and covers 6.12."""
    import os
    rows = ex.load()
    assert rows
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sources = ""
    for f in sorted(os.listdir(os.path.join(here, "cases"))):
        if f.endswith(".c"):
            with open(os.path.join(here, "cases", f), encoding="utf-8") as fh:
                sources += fh.read()
    for what, _since, _e in rows:
        assert re.search(rf'"EHCONF_EXPECT_{what.upper()}"', sources), f"no case reads {what}"
    assert set(ex.for_kernel("6.12")) == {w for w, _s, _e in rows}
