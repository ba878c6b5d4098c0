# SPDX-License-Identifier: GPL-2.0
"""Runner `wine` (make check-wine): the Windows build (mingw-w64, build/mingw) under wine.

Wine 8's ETW is a stub (EventRegister succeeds, EventWriteTransfer returns 0 and keeps
nothing, OpenTraceW fails), so no ETW capture happens here. What does run is the Windows
build itself -- the Windows ABI, msvcrt, winpthreads, the case runner and the library's
TraceLogging encoding -- and its output is checked, not just its exit status:

  wine-prefix           wine could start the Windows build (creates the prefix once)
  wine-runner/<test>    cases/windows/runner_selftest.exe: each test of the case runner
                        has the verdict and diagnostics kselftest_harness.h would give
                        (failures on purpose: EXPECT goes on, ASSERT stops, crash, hang...)
  wine-unit/<bin>/<t>   tests/tl/test_tl_*.exe: the TraceLogging unit tests, and
                        tests/windows/test_*.exe: etwcapture's EVENT_RECORD decoding fed
                        with records built by hand (wine delivers none), KTAP
  wine-case/<case>/<t>  the case with EHCONF_CAPTURE_TL: its own ASSERT/EXPECTs, KTAP
  wine-golden/<case>    that .tlcap, decoded by Linux's ehdecode, against golden/<case>.json
                        compared as transport "etw" (as tl-golden/ of the offline runner)
  wine-etw/<case>       the case on the ETW backend, every event forced on
                        (EHCONF_ETW_ALWAYS_ENABLED=1): EventRegister, EventSetInformation
                        and EventWriteTransfer are called for every write; all tests pass
  wine-etwcapture       etwcapture.exe starts its session, runs a program and stops at
                        OpenTraceW, which wine lacks, with its "cannot read" exit status 2

Writes <results>/wine/. Needs wine (`make deps`) and `make VARIANT=mingw windows-build`;
without the cross compiler everything is one skip with the reason.
"""

from __future__ import annotations

import glob
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from harness.kernel.case_capture import declares_no_golden

from harness.core.ehdecode import decode_to
from harness.core.common import display_path, safe_id
from harness.core.ktap import FAIL
from harness.core.results import check_entry, golden_entry, ktap_entry, runner_dir
from harness.core.processes import run, run_ktap
from harness.core.transports import capture_env, get
from harness.kernel.windows_runner_selftest import (RUNNER_EXPECTED, RUNNER_TEST_TIMEOUT, check_all_listed,
                             check_one)

# The registry row this runner runs (tests/harness/test_transports.py): the cases built
# for Windows write TraceLogging captures under wine.
EXERCISES = ("tlcapture",)

MINGW_CC = "x86_64-w64-mingw32-gcc"
WINE = os.environ.get("WINE", "wine")
# Every wine process runs with Linux address-space randomisation off (setarch -R; the
# personality is inherited, so the processes the case runner creates get it too). Why:
# Debian 12's wine64 has no preloader to reserve Windows' fixed ranges before anything
# else is mapped, and wine64 is a non-PIE program at 0x7d000000 whose brk heap the kernel
# starts anywhere in the 1 GiB above it. When the heap lands in or just below
# 0x7ff00000-0x7fff0000, the new process cannot map KUSER_SHARED_DATA at 0x7ffe0000
# ("err:virtual:virtual_alloc_first_teb wine: failed to map the shared user data:
# c0000018") and dies before it starts; the parent's CreateProcess then fails with
# ERROR_INTERNAL_ERROR (1359). About 1 process start in 400 did so here, whatever the
# load (Documentation/tracelogging.md, section 8). Without randomisation the heap starts
# right after wine64's data, at 0x7d005000, every time.
WINE_CMD = ["setarch", os.uname().machine, "-R", WINE]
# What wine says when that happens, and its debug channel: kept visible in the logs (the
# rest of wine's debug output is off) so the failure would name its cause if it came back.
SHARED_DATA_FAILURE = "failed to map the shared user data"
WINEDEBUG = "-all,err+virtual"
# First use of a wine prefix creates it (10-40 s); later programs start in about 0.3 s.
WINE_FIRST_TIMEOUT = 180
# A whole program under wine (every test a new wine process, 0.3 s or more each, two
# programs at once): more than the harness default of 20 s, still a bound on a hang.
WINE_PROGRAM_TIMEOUT_MIN = 120


def wine_path(path: str) -> str:
    """The Windows name wine gives a Linux path (drive Z: is the Linux root)."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def _wine_env(prefix: str, extra=None):
    env = {"WINEPREFIX": prefix, "WINEDEBUG": WINEDEBUG, "EHCONF_ETW_ALWAYS_ENABLED": ""}
    env.update(capture_env(None))  # the ETW backend, unless extra names a capture
    env.update(extra or {})
    return env


def _named_cause(log: str) -> str:
    """The known wine start-up failure, named, when the log shows it (see WINE_CMD)."""
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    if SHARED_DATA_FAILURE in text:
        return ("; wine: a process could not map KUSER_SHARED_DATA (address-space collision, "
                "see WINE_CMD in harness/kernel/run_wine.py)")
    return ""


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


def _runner_selftest_entries(r, rep):
    entries = []
    by_name = {res.name.split(".", 1)[-1]: res for res in rep.results}
    for name, expected in RUNNER_EXPECTED.items():
        problems = check_one(name, by_name.get(name))
        msg = ("case runner, test " + name + ": " + "; ".join(problems) +
               ("" if by_name.get(name) else "\n" + r.output[-3000:])) if problems else ""
        entries.append(check_entry(safe_id(f"wine-runner/{name}"),
                                   "fail" if problems else "pass", msg))
    problems = check_all_listed(rep, r.returncode)
    entries.append(check_entry("wine-runner/all-listed", "fail" if problems else "pass",
                               "; ".join(problems)))
    return entries


def _etwcapture_entry(etwcapture, program, prefix, timeout, log):
    env = _wine_env(prefix)
    h = run([*WINE_CMD, etwcapture, "--help"], timeout, env=env)
    c = run([*WINE_CMD, etwcapture, "-p", "EhconfTlTest", "--", program], timeout, env=env)
    with open(log, "w") as f:
        f.write(h.output + "\n----\n" + c.output)
    if h.how():
        return check_entry("wine-etwcapture", "fail", f"etwcapture --help: {h.how()}")
    # 2 = the trace could not be read: wine has no ETW consumer (OpenTraceW fails).
    # 0 would mean a real ETW under wine; anything else is a crash or a hang.
    if c.timed_out or c.error or c.returncode not in (0, 2):
        return check_entry("wine-etwcapture", "fail",
                           f"etwcapture under wine: {c.how()} (expected exit status 2, "
                           f"OpenTraceW unsupported); see {display_path(log)}")
    return check_entry("wine-etwcapture", "pass", f"exit status {c.returncode}")


def run_wine(build: str, mingw: str, results: str, timeout: float, repo: str):
    out = runner_dir(results, "wine", os.path.basename(build))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    skip, problem = _why_not(mingw)
    if skip or problem:
        return out, [check_entry("wine", "skip" if skip else "fail", skip or problem)]
    limit = max(timeout, WINE_PROGRAM_TIMEOUT_MIN)
    prefix = os.path.join(mingw, "wineprefix")
    ehdecode = os.path.join(build, "bin", "ehdecode")
    selftest = os.path.join(mingw, "tests", "windows", "runner_selftest.exe")
    cases = sorted(glob.glob(os.path.join(mingw, "cases", "*.exe")))
    units = sorted(glob.glob(os.path.join(mingw, "tests", "tl", "test_tl_*.exe")) +
                   glob.glob(os.path.join(mingw, "tests", "windows", "test_*.exe")))
    etwcapture = os.path.join(mingw, "bin", "etwcapture.exe")
    entries = []

    # Create the prefix once, before anything runs in parallel or against a timeout.
    warm = run([*WINE_CMD, selftest, "-l"], WINE_FIRST_TIMEOUT, env=_wine_env(prefix))
    if warm.how():
        entries.append(check_entry("wine-prefix", "fail",
                                   f"wine could not start the Windows build ({warm.how()}):\n"
                                   f"{warm.output[-2000:]}"))
    else:
        entries.append(check_entry("wine-prefix", "pass"))

    def runner_selftest():
        return run_ktap([*WINE_CMD, selftest], limit, stdout_path=os.path.join(out, "runner_selftest.log"),
                        env=_wine_env(prefix, {"EHCONF_CASE_TIMEOUT": RUNNER_TEST_TIMEOUT}))

    def unit(path):
        name = os.path.basename(path)[:-4]
        r = run([*WINE_CMD, path], limit, env=_wine_env(prefix),
                stdout_path=os.path.join(out, name + ".log"))
        return ktap_entry(f"wine-unit/{name}/", name + ".log",
                          display_path(path) + " (under wine)", r, limit)

    def case(path):
        name = os.path.basename(path)[:-4]
        tlcap = os.path.join(out, name + ".tlcap")
        if os.path.exists(tlcap):
            os.unlink(tlcap)  # the backend appends: stale events must not count
        r = run([*WINE_CMD, path], limit, stdout_path=os.path.join(out, name + ".log"),
                env=_wine_env(prefix, capture_env("tlcapture", wine_path(tlcap))))
        got = [ktap_entry(f"wine-case/{name}/", name + ".log",
                          display_path(path) + " (under wine)", r, limit)]
        if not declares_no_golden(repo, name):
            problem = (f"{name}.exe failed under wine: {r.how()}" if r.how() else
                       decode_to(ehdecode, tlcap, os.path.join(out, name + ".json"), timeout))
            got.append(golden_entry(safe_id(f"wine-golden/{name}"), name, get("tlcapture").golden,
                                    name + ".json", os.path.join("golden", name + ".json"),
                                    problem))
        elog = os.path.join(out, name + ".etw.log")
        er, erep = run_ktap([*WINE_CMD, path], limit, stdout_path=elog,
                            env=_wine_env(prefix, {"EHCONF_ETW_ALWAYS_ENABLED": "1"}))
        failed = [res.name for res in erep.results if res.status == FAIL]
        if er.how() or failed or not erep.results:
            got.append(check_entry(safe_id(f"wine-etw/{name}"), "fail",
                                   f"{name}.exe on the ETW backend (EHCONF_ETW_ALWAYS_ENABLED=1): "
                                   f"{er.how() or 'exit status 0'}; failed: "
                                   f"{', '.join(failed) or 'none'}{_named_cause(elog)}; see {display_path(elog)}"))
        else:
            got.append(check_entry(safe_id(f"wine-etw/{name}"), "pass"))
        return got

    with ThreadPoolExecutor(max_workers=2) as ex:
        selftest_run = ex.submit(runner_selftest)
        unit_entries = list(ex.map(unit, units))
        case_entries = list(ex.map(case, cases))
        selftest_run = selftest_run.result()
    entries += _runner_selftest_entries(*selftest_run)
    entries += unit_entries
    for got in case_entries:
        entries += got
    entries.append(_etwcapture_entry(etwcapture, units[0] if units else selftest, prefix,
                                     limit, os.path.join(out, "etwcapture.log")))
    return out, entries
