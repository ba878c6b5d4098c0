# SPDX-License-Identifier: GPL-2.0
"""ehconf's pytest plugin (loaded by the top-level conftest.py): the one collector that
turns the runners' result files into items, and the closing summary line.

pytest runs no program under test. The runners (harness/run.py, started by make unit,
check-offline, check-wine, check-vm) execute them and write
<results>/<runner folder>/summary.json (format: harness/results.py); this plugin reads
those files at collection time and harness/test_results.py judges one item each:
  "ktap" entries   every result line of the program's KTAP file (after its exit status
                   was applied) is an item <prefix><test>
  "golden" entries the decoded capture is compared with golden/<case>.json when the item
                   runs (harness/golden.py)
  "check" entries  the runner's own verdict
A runner whose summary.json is missing gives ONE failed item "<runner>/results" naming
the command that writes it; a summary that cannot be read fails the same way.

Options (each also settable by environment, so make targets stay short):
  --ehconf-build DIR     build variant folder (EHCONF_BUILD, default build/gcc)
  --ehconf-results DIR   where the runners wrote their results (EHCONF_RESULTS,
                         default <build>/../results)
  --ehconf-runner NAME   whose results become items (repeatable; EHCONF_RUNNERS, space
                         separated; default every runner: unit offline wine vm).
                         Items of wine and vm carry the marks wine and vm (pytest.ini),
                         so `-m "not vm"` deselects them.

Item ids are built from [A-Za-z0-9_.+/-#] only (see common.safe_id), so the JUnit XML
testcase names read like "test_results[unit/lib/test_encode/roundtrip]" or
"test_results[case/structs/global.depth_1]".
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Tuple

import pytest

from cases import golden_problem
from common import REPO_ROOT, display_path, safe_id
from ktap import FAIL, SKIP, TODO, finish, format_failure, item_names, parse
from results import RUNNERS, SUMMARY, read_summary, runner_command, runner_dir


@dataclass(frozen=True)
class Settings:
    repo: str
    build: str
    results: str
    runners: Tuple[str, ...]


def pytest_addoption(parser):
    g = parser.getgroup("ehconf")
    g.addoption("--ehconf-build", default=os.environ.get("EHCONF_BUILD", "build/gcc"),
                help="build variant folder (default: $EHCONF_BUILD or build/gcc)")
    g.addoption("--ehconf-results", default=os.environ.get("EHCONF_RESULTS", ""),
                help="results folder (default: $EHCONF_RESULTS or <build>/../results)")
    g.addoption("--ehconf-runner", action="append", default=[], choices=sorted(RUNNERS),
                help="runner whose results become items (repeatable; default: "
                     "$EHCONF_RUNNERS or all)")


def settings(config) -> Settings:
    """The harness settings, resolved to absolute paths (usable at collection time)."""
    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)
    build = absolute(config.getoption("--ehconf-build"))
    results = config.getoption("--ehconf-results") or os.path.join(os.path.dirname(build), "results")
    runners = (config.getoption("--ehconf-runner") or os.environ.get("EHCONF_RUNNERS", "").split()
               or list(RUNNERS))
    unknown = [r for r in runners if r not in RUNNERS]
    if unknown:
        raise pytest.UsageError(f"EHCONF_RUNNERS: unknown runner(s) {', '.join(unknown)} "
                                f"(known: {', '.join(RUNNERS)})")
    return Settings(repo=REPO_ROOT, build=build, results=absolute(results), runners=tuple(runners))


@dataclass
class ResultItem:
    """One item: what the runner recorded and everything the judge needs."""
    ident: str
    kind: str  # "check", "ktap" or "golden"
    runner: str
    folder: str = ""  # the runner's results folder
    status: str = ""  # check: pass, fail, skip, xfail
    message: str = ""
    label: str = ""  # ktap: the program, as a person would name it
    result: object = None  # ktap: the ktap.Result of this line
    entry: dict = field(default_factory=dict)  # golden: the entry


def items_of_entry(runner: str, folder: str, entry: dict) -> List[ResultItem]:
    kind = entry.get("kind")
    if kind == "check":
        return [ResultItem(safe_id(entry["id"]), "check", runner, folder,
                           status=entry.get("status", "fail"), message=entry.get("message", ""))]
    if kind == "golden":
        return [ResultItem(safe_id(entry["id"]), "golden", runner, folder, entry=entry)]
    if kind != "ktap":
        return [ResultItem(safe_id(f"{runner}/bad-entry"), "check", runner, folder, "fail",
                           f"{display_path(folder)}/{SUMMARY}: unknown entry kind {kind!r}")]
    prefix, label = entry["prefix"], entry.get("label", entry["prefix"])
    path = os.path.join(folder, entry["ktap"])
    if entry.get("error"):
        return [ResultItem(safe_id(prefix.rstrip("/")), "check", runner, folder, "fail",
                           f"{label}: {entry['error']}")]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        return [ResultItem(safe_id(prefix.rstrip("/")), "check", runner, folder, "fail",
                           f"{label}: its output {display_path(path)} cannot be read "
                           f"({e.strerror}): run `{runner_command(runner, '')}` again")]
    rep = finish(parse(text), entry.get("returncode"), bool(entry.get("timed_out")),
                 entry.get("timeout"), text)
    return [ResultItem(safe_id(ident), "ktap", runner, folder, label=label, result=res)
            for ident, res in item_names(rep.results, prefix)]


def collect_results(s: Settings) -> List[ResultItem]:
    """Every item of the selected runners, read from their result files (no program runs)."""
    variant = os.path.basename(s.build)
    items: List[ResultItem] = []
    for runner in s.runners:
        folder = runner_dir(s.results, runner, variant)
        try:
            data = read_summary(folder)
        except FileNotFoundError:
            items.append(ResultItem(f"{runner}/results", "check", runner, folder, "fail",
                                    f"no results: {display_path(folder)}/{SUMMARY} is missing; "
                                    f"run `{runner_command(runner, variant)}`"))
            continue
        except (OSError, ValueError) as e:
            items.append(ResultItem(f"{runner}/results", "check", runner, folder, "fail",
                                    f"unreadable results ({e}); run "
                                    f"`{runner_command(runner, variant)}` again"))
            continue
        for entry in data["entries"]:
            items += items_of_entry(runner, folder, entry)
    return items


def pytest_generate_tests(metafunc):
    if "ehconf_result" not in metafunc.fixturenames:
        return
    items = collect_results(settings(metafunc.config))
    metafunc.parametrize("ehconf_result", [
        pytest.param(i, id=i.ident, marks=[getattr(pytest.mark, m) for m in RUNNERS[i.runner].marks])
        for i in items])


def judge(it: ResultItem) -> None:
    """Pass, or pytest.fail/skip/xfail with the reason on its first line."""
    if it.kind == "check":
        if it.status == "fail":
            pytest.fail(it.message or f"{it.ident}: failed (the runner gave no reason)", pytrace=False)
        if it.status == "skip":
            pytest.skip(it.message or f"{it.ident}: skipped (the runner gave no reason)")
        if it.status == "xfail":
            pytest.xfail(it.message or f"{it.ident}: expected failure")
        if it.status != "pass":
            pytest.fail(f"{it.ident}: unknown status {it.status!r}", pytrace=False)
        return
    if it.kind == "ktap":
        r = it.result
        if r.status == FAIL:
            pytest.fail(format_failure(it.label, it.ident, r), pytrace=False)
        if r.status == SKIP:
            pytest.skip(r.reason or f"{it.label}: {it.ident}: SKIP without a reason")
        if r.status == TODO:
            pytest.xfail(r.reason or f"{it.label}: {it.ident}: TODO")
        return
    e = it.entry
    if e.get("problem"):
        pytest.fail(e["problem"], pytrace=False)
    decoded = os.path.join(it.folder, e["decoded"])
    try:
        with open(decoded, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as err:
        pytest.fail(f"{e['case']}: decoded capture {display_path(decoded)} cannot be read "
                    f"({err.strerror})", pytrace=False)
    problem = golden_problem(text, os.path.join(REPO_ROOT, e["golden"]), e["case"],
                             e["transport"], display_path(decoded))
    if problem:
        pytest.fail(problem, pytrace=False)


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
