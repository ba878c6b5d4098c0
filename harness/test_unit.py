# SPDX-License-Identifier: GPL-2.0
"""The project's own unit tests (tests/<area>/test_*.c, KTAP via tests/ktap.h) as pytest items.

Every binary under $EHCONF_BUILD/tests/ runs once, at collection time (in parallel, with
a timeout), and each KTAP result line becomes its own item "<area>/<binary>/<test>", so
JUnit XML lists every unit test. Output of each binary is kept in
<results>/unit-<variant>/<area>/<binary>.log.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from results_plugin import display_path, safe_id, settings
from ktap import FAIL, SKIP, TODO, format_failure, item_names
from runner import run_ktap


def find_unit_binaries(build: str):
    root = os.path.join(build, "tests")
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.startswith("test_") and "." not in f and os.access(p, os.X_OK):
                found.append(p)
    return sorted(found)


class UnitItem:
    """What one pytest item checks: a KTAP result, or a problem found while collecting."""

    def __init__(self, ident, binary, result=None, problem=""):
        self.ident, self.binary, self.result, self.problem = ident, binary, result, problem


_cache = {}


def collect_unit_items(config):
    s = settings(config)
    if s.build in _cache:
        return _cache[s.build]
    binaries = find_unit_binaries(s.build)
    items = []
    if not binaries:
        items.append(UnitItem("no-unit-tests", os.path.join(s.build, "tests"),
                              problem=f"no unit-test binaries under {s.build}/tests "
                                      f"(build them with `make unit`)"))
        _cache[s.build] = items
        return items
    logdir = os.path.join(s.results, "unit-" + os.path.basename(s.build))

    def one(path):
        return path, run_ktap([path], s.timeout)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        runs = list(ex.map(one, binaries))
    for path, (r, rep) in runs:
        rel = os.path.relpath(path, os.path.join(s.build, "tests"))
        log = os.path.join(logdir, rel + ".log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        with open(log, "w") as f:
            f.write(r.output)
        for ident, res in item_names(rep.results, rel + "/"):
            items.append(UnitItem(safe_id(ident), display_path(path), result=res))
    _cache[s.build] = items
    return items


def pytest_generate_tests(metafunc):
    if "unit_item" in metafunc.fixturenames:
        items = collect_unit_items(metafunc.config)
        metafunc.parametrize("unit_item", items, ids=[i.ident for i in items])


def test_unit(unit_item):
    if unit_item.problem:
        pytest.fail(f"{unit_item.binary}: {unit_item.problem}", pytrace=False)
    r = unit_item.result
    if r.status == FAIL:
        pytest.fail(format_failure(unit_item.binary, unit_item.ident, r), pytrace=False)
    if r.status == SKIP:
        pytest.skip(r.reason or "skipped")
    if r.status == TODO:
        pytest.xfail(r.reason or "TODO")
