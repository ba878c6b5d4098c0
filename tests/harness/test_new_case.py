# SPDX-License-Identifier: GPL-2.0
"""`make new-case` (scripts/new-case.sh): the case and the golden skeleton it writes agree
as written. In a scratch folder: the new case is compiled exactly as cases/build.mk
compiles a case, run with EHCONF_CAPTURE, decoded by ehdecode --golden and compared with
its golden skeleton by the harness's judge; a bad or taken name is refused."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest

from harness.core.common import REPO_ROOT
from harness.core.golden import compare
from harness.core.processes import run

SCRIPT = os.path.join(REPO_ROOT, "scripts", "new-case.sh")
BUILD = os.path.join(REPO_ROOT, "build", "gcc")


def make_var(name: str) -> str:
    """A variable of the build as make sees it (gcc variant)."""
    out = subprocess.run(["make", "-s", "--no-print-directory", "VARIANT=gcc",
                          f"print-{name}"], cwd=REPO_ROOT, capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def test_the_new_case_passes_against_its_skeleton(tmp_path):
    lib = os.path.join(BUILD, "lib", "libeventheader.a")
    ehdecode = os.path.join(BUILD, "bin", "ehdecode")
    kselftest = os.path.join(REPO_ROOT, "build", "kselftest")
    for need in (lib, ehdecode, kselftest):
        if not os.path.exists(need):
            pytest.skip(f"{need} is not built (make -j2 VARIANT=gcc all)")
    r = run([SCRIPT, "my_probe", str(tmp_path)], 30)
    assert r.returncode == 0, r.output
    src = tmp_path / "cases" / "my_probe.c"
    exe, dat = tmp_path / "my_probe", tmp_path / "my_probe.dat"
    flags = shlex.split(make_var("CASE_CFLAGS")) or pytest.skip("make print-CASE_CFLAGS failed")
    cc = subprocess.run(["gcc", *flags, "-I" + os.path.join(REPO_ROOT, "cases"), "-o", str(exe),
                         str(src), lib, "-lpthread", "-lm"], cwd=REPO_ROOT, capture_output=True,
                        text=True)
    assert cc.returncode == 0, cc.stderr
    c = run([str(exe)], 30, env={"EHCONF_CAPTURE": str(dat), "EHCONF_CAPTURE_TL": None})
    assert c.returncode == 0, c.output
    d = run([ehdecode, "--golden", str(dat)], 30, merge_stderr=False)
    golden = (tmp_path / "golden" / "my_probe.json").read_text()
    res = compare(golden, d.output, "my_probe")
    assert res.ok, res.message


@pytest.mark.parametrize("name, why", [("MyCase", "lower case"), ("kernel_x", "kernel_*"),
                                       ("", "lower case"), ("a-b", "lower case")])
def test_a_bad_name_is_refused(name, why, tmp_path):
    r = run([SCRIPT, name, str(tmp_path)], 30)
    assert r.returncode == 2 and why in r.output and not os.listdir(tmp_path)


def test_a_taken_name_is_refused(tmp_path):
    assert run([SCRIPT, "dup", str(tmp_path)], 30).returncode == 0
    r = run([SCRIPT, "dup", str(tmp_path)], 30)
    assert r.returncode == 1 and "exists" in r.output
