# SPDX-License-Identifier: GPL-2.0
"""ehconf's pytest plugin (loaded by the top-level conftest.py): options, fixtures and
the final summary line.

Options (each also settable by environment, so make targets stay short):
  --ehconf-build DIR     build variant folder (EHCONF_BUILD, default build/gcc)
  --ehconf-results DIR   where captures, decoded JSON and logs go (EHCONF_RESULTS,
                         default <build>/../results)
  --ehconf-timeout S     seconds one test program may run (EHCONF_TIMEOUT, default 20)

Item ids are built from [A-Za-z0-9_.+/-#] only (see safe_id), so the JUnit XML testcase
names read like "test_unit[lib/test_encode/roundtrip]" or
"test_offline[case/structs/global.depth_1]".
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from common import REPO_ROOT, display_path, safe_id  # noqa: F401 (re-exported)


@dataclass(frozen=True)
class Settings:
    repo: str
    build: str
    results: str
    timeout: float


def pytest_addoption(parser):
    g = parser.getgroup("ehconf")
    g.addoption("--ehconf-build", default=os.environ.get("EHCONF_BUILD", "build/gcc"),
                help="build variant folder (default: $EHCONF_BUILD or build/gcc)")
    g.addoption("--ehconf-results", default=os.environ.get("EHCONF_RESULTS", ""),
                help="results folder (default: $EHCONF_RESULTS or <build>/../results)")
    g.addoption("--ehconf-timeout", type=float,
                default=float(os.environ.get("EHCONF_TIMEOUT", "20")),
                help="seconds one test program may run (default: $EHCONF_TIMEOUT or 20)")


def settings(config) -> Settings:
    """The harness settings, resolved to absolute paths (usable at collection time)."""
    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)
    build = absolute(config.getoption("--ehconf-build"))
    results = config.getoption("--ehconf-results") or os.path.join(os.path.dirname(build), "results")
    return Settings(repo=REPO_ROOT, build=build, results=absolute(results),
                    timeout=config.getoption("--ehconf-timeout"))


@pytest.fixture(scope="session")
def ehconf(request) -> Settings:
    return settings(request.config)


@pytest.fixture(scope="session")
def build_dir(ehconf) -> str:
    return ehconf.build


@pytest.fixture(scope="session")
def results_dir(ehconf) -> str:
    os.makedirs(ehconf.results, exist_ok=True)
    return ehconf.results


@pytest.fixture(scope="session")
def program_timeout(ehconf) -> float:
    return ehconf.timeout


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
