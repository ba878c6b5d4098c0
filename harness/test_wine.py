# SPDX-License-Identifier: GPL-2.0
"""The Windows build (mingw-w64, build/mingw) run under wine: what Linux can check of it.

Wine 8's ETW is a stub (EventRegister succeeds, EventWriteTransfer returns 0 and keeps
nothing, OpenTraceW fails), so no ETW capture happens here. What does run is the Windows
build itself -- the Windows ABI, msvcrt, winpthreads, the case runner and the library's
TraceLogging encoding -- and its output is checked, not just its exit status:

  wine-runner/<test>    cases/windows/runner_selftest.exe: each test of the case runner
                        has the verdict and diagnostics kselftest_harness.h would give
                        (failures on purpose: EXPECT goes on, ASSERT stops, crash, hang...)
  wine-unit/<bin>/<t>   tests/tl/test_tl_*.exe: the TraceLogging unit tests, and
                        tests/windows/test_*.exe: etwcapture's EVENT_RECORD decoding fed
                        with records built by hand (wine delivers none), KTAP
  wine-case/<case>/<t>  the case with EHCONF_CAPTURE_TL: its own ASSERT/EXPECTs, KTAP
  wine-golden/<case>    that .tlcap, decoded by Linux's ehdecode, equals golden/<case>.json
                        compared as transport "etw" (as tl-golden/ in test_offline.py)
  wine-etw/<case>       the case on the ETW backend, every event forced on
                        (EHCONF_ETW_ALWAYS_ENABLED=1): EventRegister, EventSetInformation
                        and EventWriteTransfer are called for every write; all tests pass
  wine-etwcapture       etwcapture.exe starts its session, runs a program and stops at
                        OpenTraceW, which wine lacks, with its "cannot read" exit status 2

Artifacts in <results>/wine/. Needs wine (`make deps`) and `make VARIANT=mingw
windows-build`; without the cross compiler everything is one SKIP with the reason.
"""

from __future__ import annotations

import glob
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from cases import declares_no_golden, golden_problem
from results_plugin import display_path, safe_id, settings
from ktap import FAIL, SKIP, format_failure, item_names
from runner import run, run_ktap
from runner_selftest import (RUNNER_EXPECTED, RUNNER_TEST_TIMEOUT, check_all_listed,
                             check_one)

MINGW_CC = "x86_64-w64-mingw32-gcc"
WINE = os.environ.get("WINE", "wine")
# First use of a wine prefix creates it (10-40 s); later programs start in about 0.3 s.
WINE_FIRST_TIMEOUT = 180
# A whole program under wine (every test a new wine process, 0.3 s or more each, two
# programs at once): more than the harness default of 20 s, still a bound on a hang.
WINE_PROGRAM_TIMEOUT_MIN = 120

class WineItem:
    def __init__(self, ident, kind, **kw):
        self.ident, self.kind = ident, kind
        self.__dict__.update(kw)


def wine_path(path: str) -> str:
    """The Windows name wine gives a Linux path (drive Z: is the Linux root)."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def _wine_env(prefix: str, extra=None):
    env = {"WINEPREFIX": prefix, "WINEDEBUG": "-all", "EHCONF_CAPTURE": "",
           "EHCONF_CAPTURE_TL": "", "EHCONF_ETW_ALWAYS_ENABLED": ""}
    env.update(extra or {})
    return env


def _why_not(mingw_build: str):
    """(skip reason, problem) when nothing can run, else (None, None)."""
    if not glob.glob(os.path.join(mingw_build, "cases", "*.exe")):
        if not shutil.which(MINGW_CC):
            return f"{MINGW_CC} not installed (make deps): no Windows build to run", None
        return None, (f"no Windows case binaries in {display_path(mingw_build)}/cases "
                      f"(run `make VARIANT=mingw windows-build`)")
    if not shutil.which(WINE):
        return None, f"{WINE} not installed (make deps): the Windows build cannot run here"
    return None, None


_cache = {}


def collect_wine_items(config):
    s = settings(config)
    if s.build in _cache:
        return _cache[s.build]
    mingw = os.path.abspath(os.environ.get("EHCONF_MINGW_BUILD") or
                            os.path.join(os.path.dirname(s.build), "mingw"))
    out = os.path.join(s.results, "wine")
    items = []
    skip, problem = _why_not(mingw)
    if skip or problem:
        items.append(WineItem("wine", "skip" if skip else "problem", why=skip or problem))
        _cache[s.build] = items
        return items
    os.makedirs(out, exist_ok=True)
    limit = max(s.timeout, WINE_PROGRAM_TIMEOUT_MIN)
    prefix = os.path.join(mingw, "wineprefix")
    ehdecode = os.path.join(s.build, "bin", "ehdecode")
    selftest = os.path.join(mingw, "tests", "windows", "runner_selftest.exe")
    cases = sorted(glob.glob(os.path.join(mingw, "cases", "*.exe")))
    units = sorted(glob.glob(os.path.join(mingw, "tests", "tl", "test_tl_*.exe")) +
                   glob.glob(os.path.join(mingw, "tests", "windows", "test_*.exe")))
    etwcapture = os.path.join(mingw, "bin", "etwcapture.exe")

    # Create the prefix once, before anything runs in parallel or against a timeout.
    warm = run([WINE, selftest, "-l"], WINE_FIRST_TIMEOUT, env=_wine_env(prefix))

    def keep(name, r):
        with open(os.path.join(out, name + ".log"), "w") as f:
            f.write(r.output or r.error or "")

    def runner_selftest():
        r, rep = run_ktap([WINE, selftest], limit,
                          env=_wine_env(prefix, {"EHCONF_CASE_TIMEOUT": RUNNER_TEST_TIMEOUT}))
        keep("runner_selftest", r)
        return r, rep

    def unit(path):
        r, rep = run_ktap([WINE, path], limit, env=_wine_env(prefix))
        keep(os.path.basename(path)[:-4], r)
        return path, r, rep

    def case(path):
        name = os.path.basename(path)[:-4]
        tlcap = os.path.join(out, name + ".tlcap")
        if os.path.exists(tlcap):
            os.unlink(tlcap)  # the backend appends: stale events must not count
        r, rep = run_ktap([WINE, path], limit,
                          env=_wine_env(prefix, {"EHCONF_CAPTURE_TL": wine_path(tlcap)}))
        keep(name, r)
        e = run_ktap([WINE, path], limit,
                     env=_wine_env(prefix, {"EHCONF_ETW_ALWAYS_ENABLED": "1"}))
        keep(name + ".etw", e[0])
        return path, name, tlcap, r, rep, e

    with ThreadPoolExecutor(max_workers=2) as ex:
        selftest_run = ex.submit(runner_selftest)
        unit_runs = list(ex.map(unit, units))
        case_runs = list(ex.map(case, cases))
        selftest_run = selftest_run.result()

    items.append(WineItem("wine-prefix", "warm", run=warm))
    r, rep = selftest_run
    by_name = {res.name.split(".", 1)[-1]: res for res in rep.results}
    for name, expected in RUNNER_EXPECTED.items():
        items.append(WineItem(safe_id(f"wine-runner/{name}"), "runner", name=name,
                              expected=expected, result=by_name.get(name), run=r))
    items.append(WineItem("wine-runner/all-listed", "runner-all", report=rep, run=r))
    for path, r, rep in unit_runs:
        binary = os.path.basename(path)[:-4]
        for ident, res in item_names(rep.results, f"wine-unit/{binary}/"):
            items.append(WineItem(safe_id(ident), "ktap", binary=display_path(path), result=res))
    for path, name, tlcap, r, rep, (er, erep) in case_runs:
        for ident, res in item_names(rep.results, f"wine-case/{name}/"):
            items.append(WineItem(safe_id(ident), "ktap", binary=display_path(path), result=res))
        if not declares_no_golden(s.repo, name):
            items.append(WineItem(safe_id(f"wine-golden/{name}"), "golden", case=name,
                                  tlcap=tlcap, run=r, ehdecode=ehdecode, timeout=s.timeout,
                                  golden=os.path.join(s.repo, "golden", name + ".json"),
                                  decoded=os.path.join(out, name + ".json")))
        items.append(WineItem(safe_id(f"wine-etw/{name}"), "etw", case=name, run=er,
                              report=erep, log=os.path.join(out, name + ".etw.log")))
    items.append(WineItem("wine-etwcapture", "etwcapture", etwcapture=etwcapture,
                          program=units[0] if units else selftest, prefix=prefix,
                          timeout=limit, log=os.path.join(out, "etwcapture.log")))
    _cache[s.build] = items
    return items


def pytest_generate_tests(metafunc):
    if "wine_item" in metafunc.fixturenames:
        items = collect_wine_items(metafunc.config)
        metafunc.parametrize("wine_item", items, ids=[i.ident for i in items])


def _check_warm(it):
    r = it.run
    if r.error or r.timed_out or r.returncode != 0:
        how = r.error or ("timed out" if r.timed_out else f"exit status {r.returncode}")
        pytest.fail(f"wine could not start the Windows build ({how}):\n{r.output[-2000:]}",
                    pytrace=False)


def _check_runner(it):
    problems = check_one(it.name, it.result)
    if problems:
        pytest.fail(f"case runner, test {it.name}: " + "; ".join(problems) +
                    ("" if it.result else "\n" + it.run.output[-3000:]), pytrace=False)


def _check_runner_all(it):
    problems = check_all_listed(it.report, it.run.returncode)
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)


def _check_ktap(it):
    r = it.result
    if r.status == FAIL:
        pytest.fail(format_failure(it.binary + " (under wine)", it.ident, r), pytrace=False)
    if r.status == SKIP:
        pytest.skip(r.reason or "skipped")


def _check_golden(it):
    r = it.run
    if r.error or r.timed_out or r.returncode != 0:
        how = r.error or ("timed out" if r.timed_out else f"exit status {r.returncode}")
        pytest.fail(f"{it.case}.exe failed under wine: {how}", pytrace=False)
    problem = golden_problem(it.ehdecode, it.tlcap, it.decoded, it.golden, it.case, "etw",
                             it.timeout)
    if problem:
        pytest.fail(problem, pytrace=False)


def _check_etw(it):
    r, rep = it.run, it.report
    failed = [res.name for res in rep.results if res.status == FAIL]
    if r.error or r.timed_out or r.returncode != 0 or failed or not rep.results:
        how = r.error or ("timed out" if r.timed_out else f"exit status {r.returncode}")
        pytest.fail(f"{it.case}.exe on the ETW backend (EHCONF_ETW_ALWAYS_ENABLED=1): {how}; "
                    f"failed: {', '.join(failed) or 'none'}; see {display_path(it.log)}",
                    pytrace=False)


def _check_etwcapture(it):
    env = _wine_env(it.prefix)
    h = run([WINE, it.etwcapture, "--help"], it.timeout, env=env)
    c = run([WINE, it.etwcapture, "-p", "EhconfTlTest", "--", it.program], it.timeout, env=env)
    with open(it.log, "w") as f:
        f.write(h.output + "\n----\n" + c.output)
    if h.returncode != 0:
        pytest.fail(f"etwcapture --help: exit status {h.returncode}", pytrace=False)
    # 2 = the trace could not be read: wine has no ETW consumer (OpenTraceW fails).
    # 0 would mean a real ETW under wine; anything else is a crash or a hang.
    if c.timed_out or c.returncode not in (0, 2):
        pytest.fail(f"etwcapture under wine: exit status {c.returncode} "
                    f"(expected 2, OpenTraceW unsupported); see {display_path(it.log)}",
                    pytrace=False)


def test_wine(wine_item):
    it = wine_item
    if it.kind == "skip":
        pytest.skip(it.why)
    if it.kind == "problem":
        pytest.fail(it.why, pytrace=False)
    {"warm": _check_warm, "runner": _check_runner, "runner-all": _check_runner_all,
     "ktap": _check_ktap, "golden": _check_golden, "etw": _check_etw,
     "etwcapture": _check_etwcapture}[it.kind](it)
