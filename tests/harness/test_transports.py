# SPDX-License-Identifier: GPL-2.0
"""Tests of the transport registry (lib/eventheader/include/eh_transports.def) and of its
Python reader (harness/core/transports.py): the reader sees every row, C and Python read the
same rows, every row names a backend and golden name that exist, and a malformed row is
an error rather than a row silently left out."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from harness.core import golden
from harness.core import transports
from harness.core.common import REPO_ROOT
from harness.core.transports import DEF_FILE, TRANSPORTS, capture_env, parse

SRC = os.path.join(REPO_ROOT, "lib", "eventheader", "src")


def _def_text() -> str:
    with open(DEF_FILE, encoding="utf-8") as f:
        return f.read()


def test_reader_reads_every_row():
    rows = [line for line in _def_text().splitlines()
            if re.match(r"^\s*EH_(CAPTURE|LIVE)_TRANSPORT\(", line)]
    assert len(rows) == len(TRANSPORTS) >= 4
    assert [t.name for t in TRANSPORTS] == [re.search(r"\((\w+)", r).group(1) for r in rows]


C_DUMP = r'''
#include <stdio.h>
int main(void)
{
#define EH_CAPTURE_TRANSPORT(name, env, backend, reader, golden, tl, prefix) \
    printf("%s|%s|%s|%s|%s|%d|%s\n", #name, env, #backend, #reader, #golden, tl, prefix);
#define EH_LIVE_TRANSPORT(name, backend, reader, golden, tl) \
    printf("%s||%s|%s|%s|%d|\n", #name, #backend, #reader, #golden, tl);
#include "eh_transports.def"
    return 0;
}
'''


def test_c_and_python_read_the_same_rows(tmp_path):
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if not cc:
        pytest.fail("no C compiler (gcc) to read eh_transports.def as C does")
    src, exe = tmp_path / "dump.c", tmp_path / "dump"
    src.write_text(C_DUMP)
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", os.path.dirname(DEF_FILE),
                    "-o", str(exe), str(src)], check=True, timeout=60)
    out = subprocess.run([str(exe)], check=True, timeout=10, stdout=subprocess.PIPE,
                         text=True).stdout.splitlines()
    py = [f"{t.name}|{t.env}|{t.backend}|{t.reader}|{t.golden}|{int(t.tl)}|{t.prefix}"
          for t in TRANSPORTS]
    assert out == py


def _c_sources() -> str:
    text = ""
    for p in sorted(glob.glob(os.path.join(SRC, "*.[ch]"))):
        with open(p, encoding="utf-8") as f:
            text += f.read()
    return text


def test_every_backend_exists_and_capture_rows_can_be_opened_with_a_path():
    src = _c_sources()
    for t in TRANSPORTS:
        assert f'.name = "{t.backend}"' in src, f"{t.name}: no backend named {t.backend!r} in {SRC}"
        if not t.live:
            assert re.search(rf"int eh_backend_{t.backend}_open\(const char \*path,", src), \
                f"{t.name}: provider.c calls eh_backend_{t.backend}_open(path, &be): not defined"


def test_capture_variables_are_unique_and_live_rows_have_none():
    envs = [t.env for t in TRANSPORTS if not t.live]
    assert len(envs) == len(set(envs)) and all(e.startswith("EHCONF_") for e in envs)


def test_golden_names_come_from_the_registry():
    assert golden.TRANSPORTS == transports.golden_names()
    assert set(golden.TRANSPORTS) == {t.golden for t in TRANSPORTS} - {transports.REFERENCE}
    assert transports.REFERENCE == "offline"


def test_every_golden_directive_names_a_registry_transport():
    known = {t.golden for t in TRANSPORTS}
    for path in sorted(glob.glob(os.path.join(REPO_ROOT, "golden", "*.json"))):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            d = golden.parse_lines(f.read(), path, allow_directives=True)
        for k in d.directives:
            t = k[: -len("_max_payload")] if k.endswith("_max_payload") else k
            if k.endswith("_max_payload") or k in golden.TRANSPORTS:
                assert t in known, f"{path}: directive {k!r} names no transport of the registry"


def test_capture_env_sets_one_variable_and_removes_the_others():
    env = capture_env("capture", "/x.dat")
    assert env["EHCONF_CAPTURE"] == "/x.dat"
    assert all(v is None for k, v in env.items() if k != "EHCONF_CAPTURE")
    assert set(env) == {t.env for t in TRANSPORTS if not t.live}
    assert all(v is None for v in capture_env(None).values())


@pytest.mark.parametrize("row, why", [
    ("EH_CAPTURE_TRANSPORT(x, \"EHCONF_X\", capture, dat, offline, 0)", "takes 7 arguments"),
    ("EH_LIVE_TRANSPORT(x, user_events, perf, perf, 2)", "tl must be 0 or 1"),
    ("EH_CAPTURE_TRANSPORT(x, EHCONF_X, capture, dat, offline, 0, \"x-\")", "not a quoted variable"),
    ("EH_CAPTURE_TRANSPORT(x, \"EHCONF_X\", capture, dat, offline, 0, x-)", "prefix"),
    ("EH_LIVE_TRANSPORT(x-y, user_events, perf, perf, 0)", "not an identifier"),
    ("EH_TRANSPORT(x, user_events, perf, perf, 0)", "not a row"),
])
def test_a_malformed_row_is_an_error(row, why):
    with pytest.raises(ValueError, match=why):
        parse(_def_text() + row + "\n")


def test_a_name_used_twice_is_an_error():
    with pytest.raises(ValueError, match="used twice"):
        parse(_def_text() + "EH_LIVE_TRANSPORT(perf, user_events, perf, perf, 0)\n")


# The runners that run registry rows, each declaring EXERCISES (the rows it runs, computed
# from the registry where the runner loops over rows). A row none of them runs would be
# listed, documented and never tested.
RUNNERS = ("harness/kernel/run_offline.py", "harness/kernel/run_wine.py", "harness/vm/run_vm.py",
           "scripts/windows/compare_etl.py")


def _exercised() -> dict:
    out = {}
    for rel in RUNNERS:
        spec = importlib.util.spec_from_file_location(
            "exercises_" + os.path.basename(rel)[:-3], os.path.join(REPO_ROOT, rel))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # dataclasses look their module up there
        spec.loader.exec_module(mod)
        for name in mod.EXERCISES:
            out.setdefault(name, []).append(rel)
    return out


def unexercised(rows, exercised) -> list:
    return [t.name for t in rows if t.name not in exercised]


def test_every_row_is_exercised_by_a_runner():
    exercised = _exercised()
    assert not unexercised(TRANSPORTS, exercised), \
        "registry rows no runner runs (give one a runner, or remove the row)"
    assert set(exercised) <= {t.name for t in TRANSPORTS}, "a runner names a row that is gone"


def test_a_row_no_runner_runs_is_found():
    rows = parse(_def_text().replace(
        "#undef EH_CAPTURE_TRANSPORT", "EH_LIVE_TRANSPORT(lttng, lttng, ctf, lttng, 0)\n"
        "#undef EH_CAPTURE_TRANSPORT"))
    assert unexercised(rows, _exercised()) == ["lttng"]


def test_a_new_capture_row_is_run_offline_with_its_own_items(monkeypatch):
    rows = parse(_def_text().replace(
        "#undef EH_CAPTURE_TRANSPORT", 'EH_CAPTURE_TRANSPORT(ctfcapture, "EHCONF_CAPTURE_CTF", '
        'ctf, ctf, offline, 0, "ctf-")\n#undef EH_CAPTURE_TRANSPORT'))
    monkeypatch.setattr(transports, "TRANSPORTS", rows)
    from harness.kernel import run_offline
    importlib.reload(run_offline)
    try:
        assert "ctfcapture" in run_offline.EXERCISES
        assert run_offline.CAPTURES[0].name == "capture"  # the reference runs first
        t = transports.BY_NAME.get("ctfcapture") or next(r for r in rows if r.name == "ctfcapture")
        assert run_offline.capture_dir("/r", t, "gcc") == "/r/ctf-offline-gcc"
    finally:
        monkeypatch.undo()
        importlib.reload(run_offline)
