# SPDX-License-Identifier: GPL-2.0
"""Self-lint of the kernel cases against Documentation/kernel-behaviours.md (make ci-lint),
and unit tests of harness/kernel/inventory.py.

  * the document parses and has the rows K01..K55, each once;
  * every test of cases/kernel_*.c starts its name with IDs, and each of them is a row;
  * every row is decided by a test in each case file its `case` column names, or is
    listed under "Rows not asserted on every run" with the reason;
  * inventory.py's mapping of items to rows (fail, skip, several IDs in one name).

Only the sources are read: nothing is built or run, so this stays fast.
"""

from __future__ import annotations

import glob
import os
import re
from typing import Dict, List

import pytest

from harness.core.common import REPO_ROOT
from harness.kernel.inventory import DOC, case_test_name, combine, ids_of, load, parse, rows_with_results
from harness.reports.report_md import fmt

EXPECTED_IDS = [f"K{n:02d}" for n in range(1, 56)]
# TEST(name), TEST_SIGNAL(name, sig), TEST_F(fixture, name), TEST_F_TIMEOUT(...) at a line start
_TEST_RE = re.compile(r"^\s*TEST(?:_SIGNAL)?\(\s*(\w+)|^\s*TEST_F\w*\(\s*\w+\s*,\s*(\w+)", re.M)


def kernel_case_tests() -> Dict[str, List[str]]:
    """{case name: [test names]} of every cases/kernel_*.c."""
    out = {}
    for path in sorted(glob.glob(os.path.join(REPO_ROOT, "cases", "kernel_*.c"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            out[os.path.basename(path)[:-2]] = [a or b for a, b in _TEST_RE.findall(f.read())]
    return out


ROWS, REASONS = load(REPO_ROOT)
CASE_TESTS = kernel_case_tests()


# (a) the document itself

def test_document_has_k01_to_k55_each_once():
    ids = [r.id for r in ROWS]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"{DOC}: rows listed twice: {dup}"
    assert sorted(ids) == EXPECTED_IDS, (
        f"{DOC}: missing {sorted(set(EXPECTED_IDS) - set(ids))}, "
        f"unknown {sorted(set(ids) - set(EXPECTED_IDS))}")


def test_every_row_is_filled_in():
    for r in ROWS:
        assert r.behaviour and r.since and r.area, f"{DOC}: {r.id} has an empty cell or no area"
        assert r.cases and all(re.fullmatch(r"kernel_[a-z0-9_]+", c) for c in r.cases), \
            f"{DOC}: {r.id}: case column {r.case!r} is not a list of kernel_* case names"


def test_not_asserted_rows_exist_and_say_why():
    assert REASONS, f"{DOC}: no bullets under 'Rows not asserted on every run'"
    for i, why in REASONS.items():
        assert i in EXPECTED_IDS, f"{DOC}: 'Rows not asserted on every run' names unknown {i}"
        assert len(why.split()) >= 5, f"{DOC}: {i} is listed as not asserted without a reason"


# (b) every kernel test names rows that exist

@pytest.mark.parametrize("case", sorted(CASE_TESTS))
def test_kernel_case_tests_name_their_rows(case):
    known = set(r.id for r in ROWS)
    problems = []
    for t in CASE_TESTS[case]:
        ids = ids_of(t)
        if not ids:
            problems.append(f"{t}: does not start with the IDs it asserts (e.g. K13_...)")
        elif set(ids) - known:
            problems.append(f"{t}: {sorted(set(ids) - known)} not in {DOC}")
    assert not problems, f"cases/{case}.c:\n  " + "\n  ".join(problems)


# (c) every row is decided where the document says

@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_row_is_decided_by_its_case(row):
    if row.id in REASONS:
        return  # not asserted on every run; the reason is checked above
    missing = [c for c in row.cases
               if not any(row.id in ids_of(t) for t in CASE_TESTS.get(c, []))]
    assert not missing, (
        f"{row.id} ({row.behaviour[:60]}...): no test named {row.id}_... in "
        + ", ".join(f"cases/{c}.c" + ("" if c in CASE_TESTS else " (no such file)") for c in missing))


# (d) inventory.py on synthetic items

def it(ident, status):
    return {"ident": ident, "status": status, "case": ident.split("/")[1], "group": "vm"}


DOC_TEXT = """\
## Registration
| ID | behaviour | since | case |
|---|---|---|---|
| K01 | size is checked | 6.4 | kernel_registration |
| K02 | flags are checked | 6.4 | kernel_registration |
| K03 | persist | 6.7 | kernel_registration, kernel_tracefs |

## Enable
| ID | behaviour | since | case |
|---|---|---|---|
| K04 | aligned bit | 6.6 | kernel_enable |

## Rows not asserted on every run

- K04: only on arm64,
  riscv or big-endian
"""


def results(items):
    rows, reasons = parse(DOC_TEXT)
    return {r["id"]: r for r in rows_with_results(rows, reasons, items)}


def test_parse_reads_tables_areas_and_wrapped_reasons():
    rows, reasons = parse(DOC_TEXT)
    assert [(r.id, r.area, r.cases) for r in rows] == [
        ("K01", "Registration", ["kernel_registration"]),
        ("K02", "Registration", ["kernel_registration"]),
        ("K03", "Registration", ["kernel_registration", "kernel_tracefs"]),
        ("K04", "Enable", ["kernel_enable"])]
    assert reasons == {"K04": "only on arm64, riscv or big-endian"}


def test_parse_refuses_a_malformed_row():
    with pytest.raises(ValueError, match=":4:"):
        parse("## A\n| ID | behaviour | since | case |\n|---|---|---|---|\n| K01 | two cells |\n")


def test_test_names_and_ids():
    assert case_test_name("vm/kernel_write/global.K29_no_tracer#2") == "K29_no_tracer"
    assert case_test_name("vm/kernel_write/K29_x") == "K29_x"
    assert ids_of("K10_K11_same_format_shares_the_event") == ["K10", "K11"]
    assert ids_of("persist_delete_after_unregister") == []
    assert ids_of("K1_short") == [] and ids_of("K13") == ["K13"]


def test_a_failing_test_fails_its_row_and_passing_ones_pass_theirs():
    r = results([it("vm/kernel_registration/global.K01_size_too_small", "pass"),
                 it("vm/kernel_registration/global.K01_size_too_large", "fail"),
                 it("vm/kernel_registration/global.K02_unknown_flags", "pass")])
    assert r["K01"]["result"] == "fail"
    assert r["K02"]["result"] == "pass"
    assert [t["name"] for t in r["K01"]["tests"]] == [
        "kernel_registration/K01_size_too_small", "kernel_registration/K01_size_too_large"]


def test_skipped_rows_skip_and_absent_rows_are_not_run():
    r = results([it("vm/kernel_registration/global.K01_size", "skip"),
                 it("vm/kernel_registration/global.K02_flags", "pass"),
                 it("vm/kernel_registration/global.K02_flags_root_only", "skip")])
    assert r["K01"]["result"] == "skip"
    assert r["K02"]["result"] == "skip"  # not every test of it ran
    assert r["K03"]["result"] == "not run" and r["K03"]["tests"] == []


def test_a_name_with_several_ids_counts_for_each():
    r = results([it("vm/kernel_registration/global.K01_K02_K03_all_at_once", "fail"),
                 it("vm/kernel_enable/global.K04_aligned", "xfail")])
    assert {i: r[i]["result"] for i in r} == {"K01": "fail", "K02": "fail", "K03": "fail",
                                              "K04": "xfail"}
    assert r["K04"]["reason"] == "only on arm64, riscv or big-endian"


def test_a_case_without_test_lines_decides_the_rows_it_owns():
    # a kernel without CONFIG_USER_EVENTS: the whole case is one skipped item
    r = results([it("vm/kernel_registration", "skip"), it("vm/boot", "pass"),
                 it("vm/kernel_enable/global.K04_aligned", "pass")])
    assert r["K01"]["result"] == "skip" and r["K03"]["tests"][0]["name"] == "kernel_registration"
    assert r["K04"]["result"] == "pass"


def test_combine_order():
    assert combine([]) == "not run"
    assert combine(["pass", "xfail", "fail"]) == "fail"
    assert combine(["pass", "xfail"]) == "xfail"
    assert combine(["pass", "pass"]) == "pass"


def test_report_prints_the_rows_and_the_count():
    rows, reasons = parse(DOC_TEXT)
    inv = rows_with_results(rows, reasons, [
        it("vm/kernel_registration/global.K01_size", "pass"),
        it("vm/kernel_registration/global.K02_flags", "fail"),
        it("vm/kernel_enable/global.K04_aligned", "pass")])
    text = fmt({"items": [], "inventory": inv})
    assert "## Kernel behaviours (Documentation/kernel-behaviours.md)" in text
    assert "**1 of 4 rows asserted and passed**; K04 passed within the limits given below" in text
    assert "| K02 | flags are checked | **FAIL** | kernel_registration/K02_flags (**FAIL**) |" in text
    assert "- K04 (pass): only on arm64, riscv or big-endian" in text
