# SPDX-License-Identifier: GPL-2.0
"""Lint of scripts/kernel-mutants.txt (part of `make ci-lint`): the planted kernel
regressions of `make test-kernel-mutants` must stay meaningful while cases change.

- the recipes parse, and there are at least 12 mutants, each on a different row (per
  guest architecture: `arch:` names a row of vm/arches other than x86_64);
- every row is an ID of Documentation/kernel-behaviours.md;
- every `expect: <case>/<test>` names a TEST() that exists in cases/<case>.c and whose
  name carries that row's ID (the test meant to decide the row must be the one to fail);
- together the mutants reach every kernel_* case file (every area of the inventory);
- the driver's verdict logic: only a BAD run in which an expected test failed counts.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import sys

import pytest

from harness.core.common import REPO_ROOT

REPO = REPO_ROOT
SCRIPT = os.path.join(REPO, "scripts", "kernel-mutants.py")
DOC = os.path.join(REPO, "Documentation", "kernel-behaviours.md")
MIN_MUTANTS = 12


def load_driver():
    spec = importlib.util.spec_from_file_location("kernel_mutants", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


km = load_driver()
MUTANTS = km.parse_recipes(km.RECIPES)


def case_tests(case: str):
    with open(os.path.join(REPO, "cases", case + ".c"), encoding="utf-8") as f:
        return set(re.findall(r"^TEST\((\w+)\)", f.read(), re.M))


def inventory_ids():
    with open(DOC, encoding="utf-8") as f:
        return set(re.findall(r"^\|\s*(K\d\d)\s*\|", f.read(), re.M))


def test_enough_mutants_on_distinct_rows():
    # A row may have one mutant per guest architecture (K38: one on s390x, one on arm64).
    rows = [(m.row, m.arch) for m in MUTANTS]
    assert len(MUTANTS) >= MIN_MUTANTS, f"{len(MUTANTS)} mutants, need {MIN_MUTANTS}"
    assert len(set(rows)) == len(rows), f"rows used twice: {sorted(r for r in rows if rows.count(r) > 1)}"


def test_arch_names_a_guest_architecture():
    with open(os.path.join(REPO, "vm", "arches"), encoding="utf-8") as f:
        arches = {ln.split()[0] for ln in f if ln.strip() and not ln.startswith("#")}
    assert not [m.name for m in MUTANTS if m.arch and m.arch not in arches - {"x86_64"}]
    names = [m.name for m in MUTANTS]
    assert len(set(names)) == len(names)


def test_rows_are_inventory_ids():
    ids = inventory_ids()
    assert not [m.row for m in MUTANTS if m.row not in ids]


@pytest.mark.parametrize("m", MUTANTS, ids=[m.name for m in MUTANTS])
def test_expected_tests_exist_and_name_the_row(m):
    for want in m.expect:
        case, _, test = want.partition("/")
        assert os.path.exists(os.path.join(REPO, "cases", case + ".c")), f"{want}: no cases/{case}.c"
        assert test in case_tests(case), f"{want}: no TEST({test}) in cases/{case}.c"
        assert m.row in test.split("_"), f"{want}: the test name does not carry {m.row}"


def test_every_kernel_case_is_reached():
    cases = {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(REPO, "cases", "kernel_*.c"))}
    reached = {w.split("/")[0] for m in MUTANTS for w in m.expect}
    assert not cases - reached, f"no mutant is expected to fail {sorted(cases - reached)}"


def run(code, *failed):
    return {"code": code, "failed": list(failed)}


def test_caught_needs_bad_and_the_expected_test():
    m = km.Mutant("x", row="K29", what="w", edits=[("a", "b")],
                  expect=["kernel_write/K29_no_tracer"])
    hit = "vm/kernel_write/global.K29_no_tracer"
    assert km.caught(m, run(1, "vm/kernel-log", hit))
    assert not km.caught(m, run(0, hit))                     # GOOD is never caught
    assert not km.caught(m, run(125, hit))                   # nor SKIP
    assert not km.caught(m, run(1, "vm/kernel-log"))         # another failure alone
    assert not km.caught(m, run(1, "vm/kernel_lifetime/global.K29_no_tracer"))  # other case
    assert not km.caught(m, run(1, "vm/kernel_write/global.K29_no_tracer_x"))   # prefix only


def test_recipe_parser_rejects_incomplete_blocks(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text("mutant: a\nrow: K01\nwhat: w\nfrom: x\n")
    with pytest.raises(SystemExit):
        km.parse_recipes(str(p))
    p.write_text("# c\nmutant: a\nrow: K01\nwhat: w\nfrom: x\nto: y\nexpect: c/K01_t\n")
    (m,) = km.parse_recipes(str(p))
    assert (m.name, m.row, m.edits, m.expect) == ("a", "K01", [("x", "y")], ["c/K01_t"])


def test_apply_replaces_exactly_one_line_keeping_indentation(tmp_path):
    f = tmp_path / "kernel" / "trace"
    f.mkdir(parents=True)
    src = f / "trace_events_user.c"
    src.write_text("int f(void)\n{\n\t\treturn -EBADF;\n}\n")
    m = km.Mutant("m", row="K29", what="w", edits=[("return -EBADF;", "return 0;")], expect=[])
    km.apply(str(tmp_path), m)
    assert src.read_text() == "int f(void)\n{\n\t\treturn 0; /* ehconf mutant m */\n}\n"
    with pytest.raises(RuntimeError):
        km.apply(str(tmp_path), m)  # the line is gone: a stale recipe is an error
