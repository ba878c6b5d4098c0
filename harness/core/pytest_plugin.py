# SPDX-License-Identifier: GPL-2.0
"""ehconf's pytest plugin (loaded by the top-level conftest.py): the one collector that
turns the runners' result files into items, and the closing summary line.

pytest runs no program under test. The runners (harness/run.py, started by make unit,
check-offline, check-wine, check-vm) execute them and write
<results>/<runner folder>/summary.json (format: harness/core/results.py); this plugin reads
those files at collection time and harness/core/judge_items.py judges one item each. What
an item is and what its outcome is are harness/core/verdicts.py's (the reports render the
same outcomes); this file only hands them to pytest.

Options (each also settable by environment, so make targets stay short):
  --ehconf-build DIR     build variant folder (EHCONF_BUILD, default build/gcc)
  --ehconf-results DIR   where the runners wrote their results (EHCONF_RESULTS,
                         default <build>/../results)
  --ehconf-runner NAME   whose results become items (repeatable; EHCONF_RUNNERS, space
                         separated; default every runner: unit offline wine vm, and impl
                         impl-vm when --ehconf-impl is given).
  --ehconf-impl NAME     the implementation whose results the runners impl and impl-vm
                         hold (EHCONF_IMPL; a row of impl/implementations.txt).
                         Items of wine and vm carry the marks wine and vm (pytest.ini),
                         so `-m "not vm"` deselects them.

Item ids are built from [A-Za-z0-9_.+/-#] only (see common.safe_id). In the JUnit XML each
testcase is named for what it judges: its name is the item id ("unit/lib/test_encode/
roundtrip", "impl/otel-logs/limits/2"), its class "ehconf.<runner>" (pytest.ini's
junit_family xunit1 keeps them; pytest's own output still says test_results[<item id>]).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Tuple

import pytest

from harness.core.common import REPO_ROOT
from harness.core.results import RUNNERS, read_summary, run_facts, runner_dir
from harness.core.verdicts import ResultItem, collect_results, judged


@dataclass(frozen=True)
class Settings:
    repo: str
    build: str
    results: str
    runners: Tuple[str, ...]
    impl: str = ""  # the implementation of the runners impl and impl-vm


def pytest_addoption(parser):
    g = parser.getgroup("ehconf")
    g.addoption("--ehconf-build", default=os.environ.get("EHCONF_BUILD", "build/gcc"),
                help="build variant folder (default: $EHCONF_BUILD or build/gcc)")
    g.addoption("--ehconf-results", default=os.environ.get("EHCONF_RESULTS", ""),
                help="results folder (default: $EHCONF_RESULTS or <build>/../results)")
    g.addoption("--ehconf-runner", action="append", default=[], choices=sorted(RUNNERS),
                help="runner whose results become items (repeatable; default: "
                     "$EHCONF_RUNNERS or all)")
    g.addoption("--ehconf-impl", default=os.environ.get("EHCONF_IMPL", ""),
                help="the implementation of the runners impl and impl-vm ($EHCONF_IMPL)")


def settings(config) -> Settings:
    """The harness settings, resolved to absolute paths (usable at collection time)."""
    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)
    build = absolute(config.getoption("--ehconf-build"))
    results = config.getoption("--ehconf-results") or os.path.join(os.path.dirname(build), "results")
    impl = config.getoption("--ehconf-impl")
    runners = (config.getoption("--ehconf-runner") or os.environ.get("EHCONF_RUNNERS", "").split()
               or [r for r, info in RUNNERS.items()
                   if info.default and (impl or info.keyed_by != "impl")])
    unknown = [r for r in runners if r not in RUNNERS]
    if unknown:
        raise pytest.UsageError(f"EHCONF_RUNNERS: unknown runner(s) {', '.join(unknown)} "
                                f"(known: {', '.join(RUNNERS)})")
    if not impl and any(RUNNERS[r].keyed_by == "impl" for r in runners):
        raise pytest.UsageError("the runners impl and impl-vm need --ehconf-impl NAME")
    return Settings(repo=REPO_ROOT, build=build, results=absolute(results), runners=tuple(runners),
                    impl=impl)


def collect(s: Settings) -> List[ResultItem]:
    """Every item of the selected runners (harness/core/verdicts.py reads the files)."""
    items: List[ResultItem] = []
    for runner in s.runners:
        items += collect_results(s.results, (runner,), _key(s, runner))
    return items


def pytest_generate_tests(metafunc):
    if "ehconf_result" not in metafunc.fixturenames:
        return
    items = collect(settings(metafunc.config))
    metafunc.parametrize("ehconf_result", [
        pytest.param(i, id=i.ident, marks=[getattr(pytest.mark, m) for m in RUNNERS[i.runner].marks])
        for i in items])


def _key(s: Settings, runner: str) -> str:
    return s.impl if RUNNERS[runner].keyed_by == "impl" else os.path.basename(s.build)


@pytest.fixture(scope="session", autouse=True)
def ehconf_run_facts(request, record_testsuite_property):
    """Each selected runner's run (checkout, commit, finished, kernel...) as the JUnit
    file's testsuite properties "<runner>.<name>", so the reports need nothing else."""
    s = settings(request.config)
    for runner in s.runners:
        try:
            data = read_summary(runner_dir(s.results, runner, _key(s, runner)))
        except (OSError, ValueError):
            continue  # its items already say the results are missing
        for name, value in run_facts(data).items():
            record_testsuite_property(f"{runner}.{name}", value)


def judge(it: ResultItem, record_xml_attribute=None, record_property=None) -> None:
    """Pass, or pytest.fail/skip/xfail with the reason on its first line: the outcome
    harness/core/verdicts.py gives. With record_xml_attribute (pytest's fixture), the JUnit
    testcase is named for the item it judges; with record_property, the facts a report
    shows beside the verdict become the testcase's properties. The reports render the
    JUnit files (harness/reports/junit.py), so they say what pytest said."""
    if record_xml_attribute is not None:
        record_xml_attribute("name", it.ident)
        record_xml_attribute("classname", f"ehconf.{it.runner}")
    status, message, facts = judged(it)
    if record_property is not None:
        for name, value in sorted(facts.items()):
            record_property(name, str(value))
    if status == "fail":
        pytest.fail(message, pytrace=False)
    if status == "skip":
        pytest.skip(message)
    if status == "xfail":
        pytest.xfail(message)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The project-wide last line: `N passed, N failed, N skipped` (errors count as failed,
    xfail as skipped, xpass as passed)."""
    def count(*keys):
        n = 0
        for k in keys:
            for rep in terminalreporter.stats.get(k, []):
                if getattr(rep, "count_towards_summary", True):
                    n += 1
        return n
    passed = count("passed", "xpassed")
    failed = count("failed", "error")
    skipped = count("skipped", "xfailed")
    terminalreporter.write_line(f"{passed} passed, {failed} failed, {skipped} skipped")
