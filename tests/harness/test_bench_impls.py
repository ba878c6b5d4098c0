# SPDX-License-Identifier: GPL-2.0
"""make bench-impls (harness/impl/bench.py, harness/impl/bench_figures.py) measures what it
claims: the workloads table, the `bench` line, the stand-in's count file and callgrind's
totals parse as their producers write them; the figures are the arithmetic they say; and
`emit --bench N` under the stand-in's count mode writes exactly N events of the workload's
size (none when nobody listens), as does replay_writev, the raw baseline.

The emitters built against a checkout are tested when make bench-impls has built them
(build/results/bench-impls/build/<name>/); ehconf's, the stand-in and replay_writev need
`make`; the callgrind test needs valgrind (make deps). Each is skipped with the reason.

Run: /usr/bin/python3 -m pytest -q tests/harness/test_bench_impls.py
"""

from __future__ import annotations

import glob
import os
import shutil

import pytest

from harness.impl import bench_figures
from harness.impl import bench
from harness.impl.bench_figures import (Workload, WORKLOADS_DIR, callgrind_inside, callgrind_total,
                           for_family, median_figure,
                           parse_bench, parse_counts, per_event, ratio, read_workloads, record_size,
                           spread)
from harness.core.common import REPO_ROOT
from harness.impl.registry import read_registry
from harness.core.processes import run
from impl_emitters import ehconf_build, need
from harness.core.standin import count_env, standin_env, standin_path

TIMEOUT = 120.0


@pytest.fixture(scope="module")
def build(pytestconfig):
    return ehconf_build(pytestconfig)


# ---- parsing and arithmetic, on hand-made inputs ------------------------------------------

def test_workloads_file_names_existing_descriptions():
    ws = read_workloads()
    assert {w.name for w in ws} >= {"disabled", "five", "kilo"}
    for w in ws:
        assert w.inputs_for("cases"), f"{w.name}: {w.description} is not in {WORKLOADS_DIR}"
    assert [w.listening for w in ws if w.name == "disabled"] == [False]


def test_a_family_takes_its_own_counts(tmp_path, monkeypatch):
    ws = read_workloads()
    # cases and a family without counts.txt run workloads.txt's counts.
    assert for_family(ws, "cases") == ws and for_family(ws, "tracing-etw") == ws
    metrics = {w.name: w for w in for_family(ws, "otel-metrics")}
    base = {w.name: w for w in ws}
    assert set(metrics) == set(base)
    for name, w in metrics.items():
        assert w.count < base[name].count, name  # a collection per repetition: fewer of them
        assert (w.description, w.listening) == (base[name].description, base[name].listening)
        assert w.processes > 1, name  # a reader thread: the median of several processes
    assert all(w.processes == 1 for w in ws)
    # A family's file may name only some rows; the others keep workloads.txt's.
    trace = {w.name: w for w in for_family(ws, "otel-trace")}
    assert trace["five"] == base["five"] and trace["disabled"].count < base["disabled"].count
    assert trace["disabled"].processes == 1  # left out: one
    fam = tmp_path / "fam" / "bench"
    fam.mkdir(parents=True)
    monkeypatch.setattr(bench_figures, "FAMILIES_DIR", str(tmp_path))
    (fam / "counts.txt").write_text("five 10 1,2 3\n")
    assert {w.name: w.processes for w in for_family(ws, "fam")}["five"] == 3
    for text, why in (("five 10\n", "want"), ("nine 10 1,2\n", "no workload 'nine'"),
                      ("five 10 2,1\n", "c1 < c2"), ("five 0 1,2\n", "positive"),
                      ("five 10 1,2 0\n", "processes must be 1 to"),
                      ("five 10 1,2 10\n", "processes must be 1 to"),
                      ("five 10 1,2 3 4\n", "want")):
        (fam / "counts.txt").write_text("# comment\n" + text)
        with pytest.raises(ValueError, match=rf"counts.txt:2: .*{why}"):
            for_family(ws, "fam")


@pytest.mark.parametrize("line,why", [
    ("five five.events 2 100 1,2", "listening"),
    ("five five.events 1 100 2,1", "c1 < c2"),
    ("five five.events 1 100", "want"),
    ("five five.events 1 x 1,2", "invalid literal"),
])
def test_workloads_file_errors_name_the_line(tmp_path, line, why):
    p = tmp_path / "w.txt"
    p.write_text("# comment\n" + line + "\n")
    with pytest.raises(ValueError, match=rf"w.txt:2: .*{why}"):
        read_workloads(str(p))


def test_bench_line():
    out = "noise\nbench 2 1000 123456 3\nbench 1 5 10 0 extra\n"
    (t,) = parse_bench(out)
    assert (t.ordinal, t.count, t.ns, t.failed) == (2, 1000, 123456, 3)
    assert t.per_event == pytest.approx(123.456)


def test_count_file_sums_processes_and_refuses_junk():
    assert parse_counts("pid 1 events 10 bytes 1000\npid 2 events 5 bytes 50\n") == (15, 1050)
    assert parse_counts("") == (0, 0)
    with pytest.raises(ValueError, match="line 2"):
        parse_counts("pid 1 events 10 bytes 1000\nevents 5\n")


def test_callgrind_totals():
    text = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfl=a.c\nfn=f\n1 5\nsummary: 777\ntotals: 777\n"
    assert callgrind_total(text) == 777
    assert callgrind_total(text.replace("totals: 777\n", "")) == 777
    with pytest.raises(ValueError, match="not Ir"):
        callgrind_total(text.replace("events: Ir", "events: Dr Ir"))
    with pytest.raises(ValueError, match="no totals"):
        callgrind_total("events: Ir\n")


def test_per_event_is_the_difference_over_the_difference():
    # 10 events in 1,000 + 10 x 7 instructions, 30 in 1,000 + 30 x 7: 7 each, start-up gone.
    assert per_event((1070, 1210), (10, 30)) == 7
    with pytest.raises(ValueError):
        per_event((1, 2), (30, 10))


def test_median_figure_is_the_middle_process():
    # Five processes' figures, one fallen into an unusual heap layout: the median is the
    # middle one whatever the order, where the mean would move by a fifth of the outlier.
    assert median_figure([12_532.3, 12_790.0, 12_457.3, 12_601.3, 12_500.4]) == 12_532.3
    assert median_figure([7.0]) == 7.0  # one process: its own figure, as every other row
    assert median_figure([10.0, 12.0]) == 11.0
    with pytest.raises(ValueError):
        median_figure([])


def _cg_file(total, handoff=0):
    """A callgrind.out of `total` instructions, `handoff` of them in a call from main into
    std's channel (which itself calls into parking: counted once, with the channel's)."""
    inner = handoff // 2
    return ("version: 1\ncreator: callgrind-3.19.0\npositions: line\nevents: Ir\n"
            f"fl=(1) main.rs\nfn=(1) emit::main\n3 {total - handoff}\n"
            "cfl=(2) mpmc.rs\ncfn=(2) std::sync::mpmc::list::Channel<T>::recv\n"
            f"calls=1 40\n4 {handoff}\n"
            f"fl=(2)\nfn=(2)\n+36 {handoff - inner}\n"
            "cfn=(3) <std::thread::thread::Thread>::park\n"
            f"calls=1 7\n+1 {inner}\n"
            f"fn=(3)\n7 {inner}\n"
            f"totals: {total}\n")


def test_callgrind_inside_counts_the_handoff_once():
    text = _cg_file(10_000, 600)
    assert callgrind_total(text) == 10_000
    assert callgrind_inside(text) == 600  # the channel's call, parking inside it not again
    assert callgrind_inside(text, ("*Thread>::park",)) == 300
    assert callgrind_inside(text, ("nothing*",)) == 0
    assert callgrind_inside(_cg_file(10_000)) == 0  # a single-threaded emitter: no call
    # Two position columns (--dump-instr=yes): the cost is the column after them.
    two = text.replace("positions: line", "positions: instr line").replace(
        "calls=1 40\n4 600", "calls=1 0x40 40\n0x10 4 600")
    assert callgrind_inside(two) == 600
    with pytest.raises(ValueError, match="not Ir"):
        callgrind_inside(text.replace("events: Ir", "events: Dr Ir"))


def _fake_callgrind(bench, totals_of, handoff_of=lambda n, k: 0):
    """Bench._counted without valgrind: writes a callgrind file whose total is
    totals_of(count, call number), handoff_of(...) of it in std's channel, and has the
    stand-in count what the workload writes."""
    calls = []

    def counted(argv, listening, what, valgrind=None):
        n = int(argv[-2])
        calls.append((n, os.path.basename(valgrind)))
        with open(valgrind, "w") as f:
            f.write(_cg_file(totals_of(n, len(calls)), handoff_of(n, len(calls))))
        return None, ((n, n * 109) if listening else (0, 0)), ""
    bench._counted = counted
    return calls


def test_instructions_are_the_median_of_the_processes_each_time(tmp_path):
    b = bench.Bench(str(tmp_path), str(tmp_path), 1, True)
    w = Workload("disabled", "five.events", False, 10, (100, 1100), processes=3)
    # Start-up 5,000 instructions; the processes' own per-event costs, in call order: pass 1
    # 10, 30, 11; pass 2 12, 9, 50. Each process's pair: count 100, then count 1,100.
    own = [10, 30, 11, 12, 9, 50]
    # Of each, in the hand-off (std's channel, parking): 0, 20, 1, 4, 0, 44.
    wait = [0, 20, 1, 4, 0, 44]
    calls = _fake_callgrind(b, lambda n, k: 5000 + n * own[(k - 1) // 2],
                            lambda n, k: 300 + n * wait[(k - 1) // 2])
    res = b.instructions(lambda n: ["emit", "--bench", str(n), "f"], "x-disabled", w, 105, False)
    assert res["processes"] == [[10.0, 30.0, 11.0], [12.0, 9.0, 50.0]]
    assert res["runs"] == [11.0, 12.0]
    assert res["spread_pct"] == pytest.approx(100 / 11)
    steady = res["without_handoff"]
    assert steady["processes"] == [[10.0, 10.0, 10.0], [8.0, 9.0, 6.0]]
    assert steady["runs"] == [10.0, 8.0] and steady["spread_pct"] == pytest.approx(20.0)
    assert [c[1] for c in calls[:3]] == ["x-disabled-1-100-p1.out", "x-disabled-1-1100-p1.out",
                                         "x-disabled-1-100-p2.out"]
    assert len(calls) == 12
    # The table shows each repetition's median and the range of its processes.
    doc = {"implementations": {"x": {"workloads": {"disabled": {"instructions": res}}}}}
    rows = bench.reproducibility(doc)
    assert rows[2] == (
        "| x | disabled | 11.0 (median of 3: 10.0-30.0) | 12.0 (median of 3: 9.0-50.0) | 9.091% |")
    assert rows[3] == ("| x | disabled without hand-offs | 10.0 (median of 3: 10.0-10.0) | "
                       "8.0 (median of 3: 6.0-9.0) | 20.000% |")
    assert "Without hand-offs" in rows[-1]
    assert bench.cell(dict(ns=1.0, instructions=res), False) == \
        "1.0 ns; 11 instr (10 without hand-offs)"
    # One process (every workloads.txt row; the raw writev always): the files and the figure
    # as before, no "processes".
    b = bench.Bench(str(tmp_path), str(tmp_path), 1, True)
    calls = _fake_callgrind(b, lambda n, k: 5000 + n * 7)
    one = b.instructions(lambda n: ["emit", "--bench", str(n), "f"], "x-five-raw", w, 105, True)
    assert one == {"runs": [7.0, 7.0], "spread_pct": 0.0,
                   "without_handoff": {"runs": [7.0, 7.0], "spread_pct": 0.0}}
    # Nothing in a hand-off: no second figure in the tables.
    doc = {"implementations": {"x": {"workloads": {"five": {"instructions": one}}}}}
    assert len(bench.reproducibility(doc)) == 3
    assert bench.cell(dict(ns=1.0, instructions=one), False) == "1.0 ns; 7 instr"
    assert [c[1] for c in calls] == ["x-five-raw-1-100.out", "x-five-raw-1-1100.out",
                                     "x-five-raw-2-100.out", "x-five-raw-2-1100.out"]


def test_ratio_and_spread():
    assert ratio(110.0, 100.0) == pytest.approx(1.10)
    assert ratio(None, 100.0) is None and ratio(5.0, 0.0) is None and ratio(5.0, None) is None
    assert spread(200.0, 202.0) == pytest.approx(1.0)
    assert spread(None, 1.0) is None


def test_record_size():
    dat = (4 + 3 + 3).to_bytes(4, "little") + b"Tp\0abc" + b"more"
    assert record_size(dat) == ("Tp", 3)
    for bad in (b"", (100).to_bytes(4, "little") + b"x", (8).to_bytes(4, "little") + b"\0abc"):
        with pytest.raises(ValueError):
            record_size(bad)


def test_count_check_catches_one_event_too_few(tmp_path):
    b = bench.Bench(str(tmp_path), str(tmp_path), 1, False)
    w = Workload("five", "five.events", True, 10, (1, 2))
    assert b._check((10, 10 * (4 + 105)), w, 10, 105) == ""
    assert "counted 9 events" in b._check((9, 9 * (4 + 105)), w, 10, 105)
    assert "counted 10 events, 540 bytes" in b._check((10, 540), w, 10, 105)
    # An event whose size varies by a few bytes (a time as text) passes on average.
    assert b._check((10, 10 * (4 + 105) + 7), w, 10, 105) == ""
    off = Workload("disabled", "five.events", False, 10, (1, 2))
    assert b._check((0, 0), off, 10, 105) == ""
    assert "counted 1 events" in b._check((1, 109), off, 10, 105)


def test_table_says_not_measured():
    doc = {"workloads": [{"name": "disabled", "listening": False}, {"name": "five", "listening": True}],
           "implementations": {
               "a": {"status": "measured", "workloads": {
                   "disabled": {"ns": 0.5, "instructions": {"runs": [7.0, 7.0], "spread_pct": 0.0}},
                   "five": {"ns": 1100.0, "raw_ns": 1000.0, "ratio": 1.1,
                            "instructions": {"runs": [2000.0, 2000.0], "spread_pct": 0.0},
                            "raw_instructions": {"runs": [300.0, 300.0], "spread_pct": 0.0}}}},
               "b": {"status": "not measured", "why": "no checkout"}}}
    rows = bench.table(doc)
    assert rows[2] == "| a | 0.5 ns; 7 instr | 1,100.0 ns (1.10x raw 1,000 ns); 2,000 instr (raw 300) |"
    assert rows[3].startswith("| b | not measured: no checkout |")


def test_ranks_order_each_workload_by_instructions():
    def res(ins, cpu=None):
        r = {"ns": 1.0, "instructions": {"runs": [ins, ins], "spread_pct": 0.0}}
        if cpu is not None:
            r["cpu_ratio"] = cpu
        return r
    doc = {"workloads": [{"name": "disabled", "listening": False}, {"name": "five", "listening": True}],
           "implementations": {
               "a": {"status": "measured", "workloads": {"disabled": res(7.0), "five": res(900.0, 1.5)}},
               "b": {"status": "measured", "workloads": {"disabled": res(14.0), "five": res(444.0, 1.08)}},
               "c": {"status": "measured", "workloads": {"disabled": res(7.0), "five": {"ns": 1.0}}},
               "d": {"status": "not measured", "why": "no checkout"}}}
    rows = bench.ranks(doc)
    assert rows[0] == "| implementation | rank, disabled | rank, five |"
    assert rows[2] == "| a | 1 of 3 (7 instr) | 2 of 2 (900 instr, CPU 1.50x raw) |"
    assert rows[3] == "| b | 3 of 3 (14 instr) | 1 of 2 (444 instr, CPU 1.08x raw) |"
    assert rows[4] == "| c | 1 of 3 (7 instr) | - |"
    assert len(rows) == 5  # d, not measured, has no rank


# ---- the emitters' --bench mode under the stand-in's count mode ---------------------------

def _emitters(build):
    """(name, emitter, family) of every built emitter: ehconf's, and those make bench-impls
    built into build/results/bench-impls/build/."""
    out = []
    for impl in read_registry():
        if impl.checkout == "-":
            path = os.path.join(build, "impl", impl.name, "emit")
        else:
            found = glob.glob(os.path.join(REPO_ROOT, "build", "results", "bench-impls", "build",
                                           impl.name, "**", "emit"), recursive=True)
            found = [p for p in found if os.path.isfile(p) and os.access(p, os.X_OK)]
            path = found[0] if found else ""
        out.append((impl.name, path, impl.family))
    return out


def _emitter(build, name):
    ((_, emitter, family),) = [e for e in _emitters(build) if e[0] == name]
    if not emitter:
        pytest.skip(f"{name}: no emitter built for the bench (make bench-impls builds it)")
    return emitter, family


@pytest.mark.parametrize("name", [i.name for i in read_registry()])
@pytest.mark.parametrize("workload", ["five.events", "kilo.events"])
@pytest.mark.parametrize("listening", [True, False], ids=["listening", "nobody"])
def test_bench_mode_writes_exactly_count_events(build, tmp_path, name, workload, listening):
    """emit --bench N writes N events (otel-metrics: N data points, one collection of one
    attribute set per repetition), none when nobody listens."""
    standin = need(standin_path(build), "the stand-in")
    emitter, family = _emitter(build, name)
    path = Workload("w", workload, True, 1, (1, 2)).inputs_for(family)
    if not path:
        pytest.skip(f"{name}: no bench workload {workload} for inputs {family}")
    dat = str(tmp_path / "one.dat")
    r = run([emitter, "--bench", "1", path], TIMEOUT, standin_env(standin, dat), merge_stderr=False)
    assert parse_bench(r.output), f"{name}: emit --bench printed no bench line: {r.how()} {r.stderr}"
    _, size = record_size(open(dat, "rb").read())
    counts = str(tmp_path / "counts.txt")
    n = 1237
    r = run([emitter, "--bench", str(n), path], TIMEOUT, count_env(standin, counts, listening),
            merge_stderr=False)
    (t,) = parse_bench(r.output)
    assert t.count == n
    want = (n, n * (4 + size)) if listening else (0, 0)
    events, size_total = parse_counts(open(counts).read())
    assert events == want[0], name
    # Exactly the captured size n times, or on average within the slack for an event that
    # holds a time as text (OpenTelemetry's logs exporter).
    assert abs(size_total - want[1]) <= bench.SIZE_SLACK * want[1], (name, size_total, want)


def test_otel_metrics_bench_writes_one_data_point_per_collection(build, tmp_path):
    """otel-metrics' event is a data point: each repetition of its five workload is one
    collection holding one data point, the five values its attributes (scripts/otlp-decode.py
    reads the capture); a collection of two attribute sets writes two events per repetition,
    and make bench-impls' count check refuses that run against the workload."""
    import json
    standin = need(standin_path(build), "the stand-in")
    emitter, _ = _emitter(build, "otel-metrics")
    decode = os.path.join(REPO_ROOT, "scripts", "otlp-decode.py")
    dat = str(tmp_path / "three.dat")
    r = run([emitter, "--bench", "3", os.path.join(REPO_ROOT, "impl", "otel-metrics", "bench", "five.inputs")],
            TIMEOUT, standin_env(standin, dat), merge_stderr=False)
    assert [t.count for t in parse_bench(r.output)] == [3], r.stderr
    r = run(["/usr/bin/python3", decode, dat], TIMEOUT)
    assert not r.how(), r.output
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert len(lines) == 3
    for line in lines:
        ((rm,),) = [line["buffer"]["resourceMetrics"]]
        ((metric,),) = [m["metrics"] for m in rm["scopeMetrics"]]
        (point,) = metric["sum"]["dataPoints"]
        assert metric["name"] == "Five" and point["asInt"] == "1"
        assert {a["key"]: a["value"] for a in point["attributes"]} == {
            "u32": {"intValue": "7"}, "u64": {"intValue": "72623859790382856"},
            "str16": {"stringValue": "benchmark-messag"}, "f64": {"doubleValue": 1.5},
            "guid": {"stringValue": "01020304-0506-0708-090a-0b0c0d0e0f10"}}
    # Two attribute sets in one collection: two data points, two events per repetition.
    two = tmp_path / "two.inputs"
    two.write_text("inputs two\ninstrument c u64_counter Two\nrecord c 1 a=int:1\n"
                   "record c 1 a=int:2\ncollect writes=2\n")
    one = str(tmp_path / "one.dat")
    run([emitter, "--bench", "1", str(two)], TIMEOUT, standin_env(standin, one))
    _, size = record_size(open(one, "rb").read())
    counts = str(tmp_path / "counts.txt")
    r = run([emitter, "--bench", "50", str(two)], TIMEOUT, count_env(standin, counts),
            merge_stderr=False)
    counted = parse_counts(open(counts).read())
    assert counted[0] == 100, counted
    b = bench.Bench(str(tmp_path), str(tmp_path), 1, False)
    w = Workload("five", "five.events", True, 50, (1, 2))
    assert "counted 100 events" in b._check(counted, w, 50, size)


def test_replay_writes_the_captured_bytes(build, tmp_path):
    standin = need(standin_path(build), "the stand-in")
    emitter = need(os.path.join(build, "impl", "ehconf", "emit"), "ehconf's emitter")
    replay = need(os.path.join(build, "bench", "replay_writev"), "replay_writev")
    dat = str(tmp_path / "one.dat")
    path = os.path.join(WORKLOADS_DIR, "kilo.events")
    run([emitter, "--bench", "1", path], TIMEOUT, standin_env(standin, dat))
    name, size = record_size(open(dat, "rb").read())
    assert name == "EhconfBench_L5K1" and size > 1000
    counts = str(tmp_path / "counts.txt")
    r = run([replay, "999", dat], TIMEOUT, count_env(standin, counts), merge_stderr=False)
    assert [(t.count, t.failed) for t in parse_bench(r.output)] == [(999, 0)]
    assert parse_counts(open(counts).read()) == (999, 999 * (4 + size))
    # What it wrote is what it read: the stand-in's capture of a replay is the same record.
    again = str(tmp_path / "again.dat")
    run([replay, "1", dat], TIMEOUT, standin_env(standin, again))
    assert open(again, "rb").read() == open(dat, "rb").read()


def test_callgrind_figure_repeats_exactly(build, tmp_path):
    if not shutil.which("valgrind"):
        pytest.skip("valgrind is not installed (make deps)")
    standin = need(standin_path(build), "the stand-in")
    emitter = need(os.path.join(build, "impl", "ehconf", "emit"), "ehconf's emitter")
    path = os.path.join(WORKLOADS_DIR, "five.events")
    figures = []
    for rep in (1, 2):
        totals = []
        for n in (200, 400):
            out = str(tmp_path / f"cg-{rep}-{n}.out")
            r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, emitter,
                     "--bench", str(n), path], TIMEOUT, count_env(standin, str(tmp_path / "c.txt")))
            assert not r.how(), r.output[-2000:]
            totals.append(callgrind_total(open(out).read()))
        figures.append(per_event((totals[0], totals[1]), (200, 400)))
    assert figures[0] > 100, figures  # an event is more than the loop around it
    assert spread(*figures) < 1.0, figures


def test_impls_md_cost_column():
    from harness.impl.bench_figures import cost_cell
    assert cost_cell(None, "ehconf") == "not measured"
    doc = {"when": "T", "implementations": {
        "a": {"status": "measured", "workloads": {
            "five": {"ns": 1100.0, "ratio": 1.1, "instructions": {"runs": [2000.0, 2000.0]}},
            "disabled": {"ns": 0.5, "instructions": {"runs": [7.0, 7.0]}}}},
        "b": {"status": "not measured", "why": "no checkout"}}}
    assert cost_cell(doc, "a") == "five: 1,100.0 ns (1.10x raw writev), 2,000 instr; disabled: 0.5 ns, 7 instr (T)"
    assert cost_cell(doc, "b") == "not measured: no checkout"
    disabled = doc["implementations"]["a"]["workloads"]["disabled"]["instructions"]
    disabled["processes"] = [[7.0] * 3] * 2
    assert cost_cell(doc, "a").endswith("disabled: 0.5 ns, 7 instr (median of 3 processes) (T)")
    disabled["without_handoff"] = {"runs": [7.0, 7.0]}
    assert cost_cell(doc, "a").endswith("disabled: 0.5 ns, 7 instr (median of 3 processes) (T)")
    disabled["without_handoff"] = {"runs": [5.0, 5.0]}
    assert cost_cell(doc, "a").endswith(
        "disabled: 0.5 ns, 7 instr (5 without thread hand-offs) (median of 3 processes) (T)")
    assert cost_cell(doc, "c") == "not measured"


def test_run_measured_reports_the_childs_own_peak(build):
    """bench-decoders' peak RSS comes from run_measured, a small C parent: a program forked
    from Python would report the interpreter's memory as its own."""
    from harness.decoders.bench import parse_measured, timed
    measure = need(os.path.join(build, "bench", "run_measured"), "run_measured")
    r = timed(measure, ["true"])
    assert r["status"] == 0 and 0 < r["rss_mb"] < 8, r
    assert timed(measure, ["false"])["status"] == 1
    assert parse_measured("wall 1.5 cpu 1.25 maxrss_kb 2048 status 0") == \
        {"wall": 1.5, "cpu": 1.25, "rss_mb": 2.0, "status": 0}
    with pytest.raises(ValueError):
        parse_measured("wall 1.5")
