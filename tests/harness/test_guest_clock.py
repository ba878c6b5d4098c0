# SPDX-License-Identifier: GPL-2.0
"""harness/vm/guest_run.py's recordings with perf's clock data (Documentation/decoders.md §1,
vm-clock/): `perf record -k CLOCK_MONOTONIC`, in file mode into the /tmp file and in pipe
mode (`-o -`) with perf's stdout into that file and its stderr into the log. No perf runs:
the process starts are recorded. Then the real recordings kept in tests/data/perf: their
clock data, ehdecode's wall-clock dates against perf script's, and run_vm's items on them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from harness.vm import guest_run as gr
from harness.core.common import REPO_ROOT
from harness.core.golden import compare
from harness.decoders.perf_samples import read_layout


class _Proc:
    returncode = None

    def poll(self):
        return None


def _started(tmp_path, monkeypatch, **kw):
    calls = []

    def start(argv, stdout=None, stderr=None, **_):
        calls.append((argv, getattr(stdout, "name", None), getattr(stderr, "name", stderr)))
        return _Proc()
    monkeypatch.setattr(gr, "start", start)
    monkeypatch.setattr(gr, "wait_ready", lambda p, t: "")
    monkeypatch.setattr(gr.Fifo, "wait_ack", lambda self, t, p: True)
    res = {"steps": {}}
    rec = gr.Recording("activity.clock", ["EhconfActivity_L4K1"], "ehregister",
                       str(tmp_path), str(tmp_path), res, **kw)
    rec.start()
    rec.fifo.close()
    return calls[1], res


def test_file_mode_with_the_clock(tmp_path, monkeypatch):
    (argv, out, err), res = _started(tmp_path, monkeypatch, perf_args=gr.PERF_CLOCK)
    assert argv[:2] == ["perf", "record"] and argv[argv.index("-o") + 1] == \
        str(tmp_path / "activity.clock.perf.data")
    assert argv[argv.index("-k") + 1] == "CLOCK_MONOTONIC"
    assert out == str(tmp_path / "activity.clock.perf.log")
    assert res["perf_command"].startswith("perf record")


def test_pipe_mode_writes_perfs_stdout_into_the_capture(tmp_path, monkeypatch):
    (argv, out, err), res = _started(tmp_path, monkeypatch, perf_args=gr.PERF_CLOCK, pipe=True)
    assert argv[argv.index("-o") + 1] == "-" and "-k" in argv
    assert out == str(tmp_path / "activity.clock.perf.data")
    assert err == str(tmp_path / "activity.clock.perf.log")
    assert res["perf_command"].endswith(f"> {tmp_path / 'activity.clock.perf.data'}")


def test_the_clock_modes_are_the_inputs_check_decoders_reads():
    from harness.decoders import inputs
    assert tuple(m for m, _ in gr.CLOCK_MODES) == inputs.VM_CLOCK_MODES
    assert [p for _, p in gr.CLOCK_MODES] == [False, True]


# ---- the real recordings kept in tests/data/perf ---------------------------------------

DATA = os.path.join(REPO_ROOT, "tests", "data", "perf")
EHDECODE = os.path.join(REPO_ROOT, "build", "gcc", "bin", "ehdecode")
MODES = (("file", False), ("pipe", True))


def _ehdecode(*args):
    if not os.access(EHDECODE, os.X_OK):
        pytest.skip(f"{EHDECODE} not built (make)")
    return subprocess.run([EHDECODE, *args], capture_output=True, timeout=60)


@pytest.mark.parametrize("mode,pipe", MODES)
def test_the_kept_recordings_carry_perfs_clock_data(mode, pipe):
    with open(os.path.join(DATA, f"activity-clock-{mode}-mode.perf.data"), "rb") as f:
        lay = read_layout(f.read())
    assert lay.pipe is pipe and lay.clock_offset is not None and len(lay.samples) == 10


@pytest.mark.parametrize("mode,pipe", MODES)
def test_ehdecode_prints_the_wall_clock_dates_perf_script_prints(mode, pipe):
    """ehdecode's meta.time of each event, a wall-clock date, is the time of day that perf
    6.1 itself printed from the same file (perf script -F tod, kept beside it), to the
    nanosecond; and ehdecode --golden gives golden/activity.json."""
    path = os.path.join(DATA, f"activity-clock-{mode}-mode.perf.data")
    r = _ehdecode(path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout.decode("utf-8-sig"))
    times = [e["meta"]["time"] for e in next(iter(doc.values()))]
    with open(path[:-len(".perf.data")] + ".perf-script.txt", encoding="utf-8") as f:
        tod = [m.group(1) + "T" + m.group(2) + "Z" for m in
               (re.search(r"(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{9}) ", ln) for ln in f) if m]
    assert len(tod) == 10 and times == tod, (times, tod)
    g = _ehdecode("--golden", path)
    with open(os.path.join(REPO_ROOT, "golden", "activity.json"), encoding="utf-8") as f:
        res = compare(f.read(), g.stdout.decode("utf-8", "surrogateescape"), "activity")
    assert g.returncode == 0 and res.ok, res.message


def test_run_vm_passes_a_real_recording_of_each_mode(tmp_path):
    """vm-clock/activity/<mode> on the kept recordings as the guest leaves them."""
    from harness.vm.run_vm import Paths, VmRun, clock_outcomes
    clock = {}
    for (mode, _), (tag, _) in zip(MODES, gr.CLOCK_MODES):
        shutil.copy(os.path.join(DATA, f"activity-clock-{mode}-mode.perf.data"),
                    tmp_path / f"activity.{tag}.perf.data")
        g = _ehdecode("--golden", str(tmp_path / f"activity.{tag}.perf.data"))
        (tmp_path / f"activity.{tag}.perf.json").write_bytes(g.stdout)
        clock[f"activity.{tag}"] = {"status": "ok", "problem": "", "ehdecode_exit": 0,
                                    "perf_data": f"activity.{tag}.perf.data",
                                    "decoded": f"activity.{tag}.perf.json"}
    run = VmRun(True, results=str(tmp_path), guest={"guest": {"user_events": True},
                                                     "clock": clock})
    out = clock_outcomes(Paths(REPO_ROOT, "", str(tmp_path)), run, ["activity"])
    assert [(o.ident, o.status) for o in out] == [("vm-clock/activity/clock", "pass"),
                                                  ("vm-clock/activity/clock-pipe", "pass")], \
        [o.message for o in out]
