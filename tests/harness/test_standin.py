# SPDX-License-Identifier: GPL-2.0
"""The user_events stand-in (tools/standin/user_events_standin.c) on ehconf's own library.

Every case with a golden file runs on libeventheader's real user_events backend (no
EHCONF_CAPTURE, no EHCONF_CAPTURE_TL), with the stand-in preloaded and
EHCONF_STANDIN_CAPTURE naming a .dat file; the case's own checks must pass, and the file,
decoded by `ehdecode --golden`, must equal golden/<case>.json as the offline run's judge
compares it (decoding.decode_to and golden.golden_problem, transport "offline": the stand-in
delivers every event, like the capture backend). Then the stand-in's C unit test
(tests/standin/test_standin.c: errors, unregister, pass-through, split writes) runs.

Builds nothing: without the stand-in, the case binaries or ehdecode in the build folder
(--ehconf-build, default build/gcc) each test is skipped with the reason.

Run: /usr/bin/python3 -m pytest -q tests/harness/test_standin.py
"""

from __future__ import annotations

import glob
import os

import pytest

from harness.core.ehdecode import decode_to

from harness.core.golden import golden_problem
from harness.core.common import REPO_ROOT, display_path
from harness.core.ktap import FAIL, PASS, format_failure, item_names
from harness.core.processes import run_ktap
from harness.core.standin import SO
from harness.core.transports import REFERENCE, capture_env

TIMEOUT = 120.0  # a hang guard; each case takes well under a second
STANDIN = SO
GOLDEN_CASES = sorted(os.path.basename(p)[:-len(".json")]
                      for p in glob.glob(os.path.join(REPO_ROOT, "golden", "*.json")))


@pytest.fixture(scope="module")
def build(pytestconfig):
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    return b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)


def need(path: str, what: str) -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not built (make -j2 VARIANT=gcc all)")
    return path


def ktap_failures(label: str, rep) -> str:
    """The failed results of a KTAP report, as the judge prints them ("" if none)."""
    return "\n".join(format_failure(label, ident, r) for ident, r in item_names(rep.results)
                     if r.status == FAIL)


def test_there_are_golden_cases():
    assert GOLDEN_CASES, "no golden/*.json: nothing would be checked through the stand-in"


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_case_through_standin_matches_golden(case, build, tmp_path):
    standin = need(os.path.join(build, STANDIN), "the stand-in")
    binary = need(os.path.join(build, "cases", case), "the case")
    ehdecode = need(os.path.join(build, "bin", "ehdecode"), "the decoder")
    dat = str(tmp_path / f"{case}.dat")
    log = str(tmp_path / f"{case}.log")
    # No capture variable: the library picks user_events, and the stand-in takes its
    # open of /sys/kernel/tracing/user_events_data, its ioctls and its writev.
    env = capture_env(None)
    env.update({"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat})
    r, rep = run_ktap([binary], TIMEOUT, env=env, stdout_path=log)
    failed = ktap_failures(display_path(binary), rep)
    assert not failed, f"{case} failed its own checks under the stand-in:\n{failed}\n{r.how()}"
    assert r.returncode == 0, f"{case}: {r.how()}"
    decoded = str(tmp_path / f"{case}.json")
    problem = decode_to(ehdecode, dat, decoded, TIMEOUT)
    assert not problem, problem
    with open(decoded, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    problem = golden_problem(text, os.path.join(REPO_ROOT, "golden", case + ".json"), case,
                             REFERENCE, decoded)
    assert not problem, problem


def test_standin_unit(build):
    need(os.path.join(build, STANDIN), "the stand-in")
    binary = need(os.path.join(build, "tests", "standin", "test_standin"), "the unit test")
    r, rep = run_ktap([binary], TIMEOUT, env={"EHCONF_STANDIN_SO": None})
    failed = ktap_failures(display_path(binary), rep)
    assert not failed, failed + "\n" + r.output[-4000:]
    results = [res for _, res in item_names(rep.results)]
    # Every test ran and passed: a skip here would mean the preload did not happen.
    assert results and all(res.status == PASS for res in results), r.output[-4000:]
    assert len(results) == rep.plan, r.output[-4000:]
