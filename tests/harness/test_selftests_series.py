# SPDX-License-Identifier: GPL-2.0
"""Lint of kselftest-series/ (part of `make ci-lint`): the upstream selftests series and
ehconf's kernel cases must not drift apart.

- every test kselftest-series/rows.txt names exists as TEST_F() in its program's source,
  and every TEST_F() of the series is named there (a test without a row has no mutant
  that shows it can fail);
- every row of rows.txt is an ID of Documentation/kernel-behaviours.md;
- every mutant of scripts/kernel-mutants.txt (those of other architectures too: their
  guests run the series cross-built) has its row in rows.txt, either with the series'
  test that must catch it or declared out of scope with a reason;
- every program of kselftest-series/series has its source, and every source is in it.
"""

import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERIES = os.path.join(TOP, "kselftest-series")


def rows():
    named, out = {}, {}
    with open(os.path.join(SERIES, "rows.txt"), encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            if p[0] == "out":
                assert len(p) > 2, f"rows.txt: `{line.strip()}` gives no reason"
                out[p[1]] = " ".join(p[2:])
            else:
                assert len(p) == 2, f"rows.txt: `{line.strip()}` is not `<row> <program>/<fixture>.<test>`"
                named.setdefault(p[0], []).append(p[1])
    return named, out


def series_tests():
    found = set()
    for name in os.listdir(os.path.join(SERIES, "src")):
        if name.endswith("_test.c"):
            with open(os.path.join(SERIES, "src", name), encoding="utf-8") as f:
                for fx, t in re.findall(r"^TEST_F\((\w+), (\w+)\)", f.read(), re.M):
                    found.add(f"{name[:-2]}/{fx}.{t}")
    return found


def test_rows_name_existing_tests_and_every_test_has_a_row():
    named, _ = rows()
    listed = {t for ts in named.values() for t in ts}
    found = series_tests()
    assert listed - found == set(), f"rows.txt names tests that do not exist: {sorted(listed - found)}"
    assert found - listed == set(), f"tests without a row in rows.txt: {sorted(found - listed)}"


def test_rows_are_inventory_ids():
    named, out = rows()
    with open(os.path.join(TOP, "Documentation", "kernel-behaviours.md"), encoding="utf-8") as f:
        ids = set(re.findall(r"^\| (K\d\d) \|", f.read(), re.M))
    unknown = (set(named) | set(out)) - ids
    assert not unknown, f"rows.txt rows not in kernel-behaviours.md: {sorted(unknown)}"


def test_every_mutant_row_is_covered_or_declared_out():
    named, out = rows()
    blocks = open(os.path.join(TOP, "scripts", "kernel-mutants.txt"), encoding="utf-8").read().split("\nmutant:")
    missing = []
    for b in blocks[1:]:
        row = re.search(r"^row: (K\d\d)", b, re.M).group(1)
        if row not in named and row not in out:
            missing.append(row)
    assert not missing, f"mutant rows neither tested by the series nor declared out: {missing}"


def test_series_lists_every_source():
    listed = set()
    with open(os.path.join(SERIES, "series"), encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if p and not p[0].startswith("#"):
                assert os.path.exists(os.path.join(SERIES, "messages", p[0] + ".txt")), p[0]
                listed |= {x for x in p[1:] if not x.startswith("config:")}
    present = set(os.listdir(os.path.join(SERIES, "src")))
    assert listed == present, f"series vs src/: {sorted(listed ^ present)}"
