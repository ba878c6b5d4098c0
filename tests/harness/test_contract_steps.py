# SPDX-License-Identifier: GPL-2.0
"""The contract rows are data (harness/impl/contract_rows.py) run by one interpreter
(harness/impl/contract_run.py):
  * every row's steps are steps the interpreter knows, with protocol commands, and a
    broken row is found;
  * the interpreter runs a row against a real emitter under the user_events stand-in
    (rows without perf or ftrace: the stand-in has neither), and its observation is what
    the promise says where the stand-in models the kernel (no tracer: `ok 0 9`);
  * adding a row is adding it to ROWS: on a scratch copy of harness/ and impl/, a new row
    is run, judged and reported with no other edit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from harness.core.common import REPO_ROOT
from harness.impl.contract_rows import BY_NAME, ROWS, Row, step_problems
from impl_emitters import ehconf_build, need, standin_of
from harness.core.standin import standin_env


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_row_is_steps_the_interpreter_knows(row):
    assert step_problems(row) == []


def test_a_broken_row_is_found():
    bad = Row("bad", "K0", "x", ("ask register", "mark 3", "perf detach", "dance"), "ok")
    problems = step_problems(bad)
    assert len(problems) == 4, problems


def emitter(pytestconfig):
    return need(os.path.join(ehconf_build(pytestconfig), "impl", "ehconf", "emit"),
                "the reference emitter")


def test_the_interpreter_runs_a_row_under_the_stand_in(pytestconfig, tmp_path):
    from harness.impl.contract_run import run_row
    build = ehconf_build(pytestconfig)
    env = standin_env(standin_of(build), str(tmp_path / "c.dat"), listening=False)
    row = BY_NAME["no-consumer"]
    got = run_row(row, emitter(pytestconfig), env, 0, build, str(tmp_path), str(tmp_path))
    assert got == row.promise
    # ... and with a listener, the same steps see the enable bit and the write go through
    env = standin_env(standin_of(build), str(tmp_path / "d.dat"), listening=True)
    assert run_row(row, emitter(pytestconfig), env, 0, build, str(tmp_path),
                   str(tmp_path)) == "ok 1 0"


NEW_ROW = '''
ROWS = ROWS + (Row("unregister-twice", "K22", "register; unregister; unregister; enabled",
                   ("ask register", "ask unregister", "ask unregister", "ask enabled"),
                   "ok ok ok 0"),)
BY_NAME = {r.name: r for r in ROWS}
'''

SCRIPT = '''
import json, os, sys
sys.path.insert(0, sys.argv[1])
from harness.impl.contract_rows import ROWS, BY_NAME
from harness.impl.contract_run import run_row
from harness.impl.registry import Profile
from harness.impl.run_impl_vm import judge_contract
from harness.core.standin import standin_env
emitter, standin, build, tmp = sys.argv[2:6]
row = BY_NAME["unregister-twice"]
got = run_row(row, emitter, standin_env(standin, os.path.join(tmp, "x.dat")), 0, build, tmp, tmp)
verdicts = judge_contract("ehconf", Profile(), {row.name: {"observed": got}}, "6.12.117")
print(json.dumps({"rows": [r.name for r in ROWS], "got": got,
                  "verdict": [v for v in verdicts if v["id"].endswith("/unregister-twice")]}))
'''


def test_adding_a_row_is_one_row_on_a_scratch_copy(pytestconfig, tmp_path):
    copy = tmp_path / "repo"
    for d in ("harness", "impl", "cases", "lib/eventheader/include"):
        shutil.copytree(os.path.join(REPO_ROOT, d), copy / d)
    with open(copy / "harness" / "impl" / "contract_rows.py", "a", encoding="utf-8") as f:
        f.write(NEW_ROW)
    build = ehconf_build(pytestconfig)
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(copy), emitter(pytestconfig),
                        standin_of(build), build, str(tmp_path)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    import json
    out = json.loads(p.stdout.splitlines()[-1])
    assert out["rows"][-1] == "unregister-twice"
    # ehconf's library makes a second unregister a no-op (ok), and then reports disabled.
    assert out["got"] == "ok ok ok 0", out
    [v] = out["verdict"]
    assert v["status"] == "pass", v
