# SPDX-License-Identifier: GPL-2.0
"""The harness of make check-decoders (Documentation/decoders.md), piece by piece: the
registry and its builds, the strict reading of a decoder's document and the normalization
(§2, §3), the pairing of events (§4), the record positions of perf.data
(harness/decoders/perf_samples.py), the damaged set (§1), the robustness items (§5), the profile,
and decoders.md rendered from the same items as the JUnit files. No decoder is built here;
the one test that runs the runner uses small scripts as decoders."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import textwrap

import pytest

from harness.decoders import compare as dc
from harness.decoders import inputs as di
from harness.decoders import run_decoders as rd
from harness.core.common import REPO_ROOT
from harness.decoders.registry import Decoder, Profile, read_registry
from harness.decoders.perf_samples import read_layout
from harness.reports.items import read_section
from harness.reports.junit import read
from harness.core.results import read_summary

DATA = os.path.join(REPO_ROOT, "tests", "data", "perf")
BOM = b"\xef\xbb\xbf"


def doc(*events: str, name: str = "x.perf.data") -> bytes:
    body = ",\n".join("  " + e for e in events)
    return BOM + f'{{\n"{name}": [\n{body} ]\n}}\n'.encode()


# ---- the registry ----------------------------------------------------------------------

def test_registry_has_the_reference_first_and_a_build_per_other_decoder():
    rows = read_registry()
    assert [d.name for d in rows if d.reference] == ["ehdecode"]
    for d in rows:
        assert set(d.reads) <= {"perf", "pipe", "dat", "tlcap", "etl"}, d
        if not d.reference:
            assert d.variable.startswith("IMPL_SRC_"), d
            assert os.access(os.path.join(d.folder, "build"), os.X_OK), d.name


def test_a_decoder_without_its_checkout_is_one_skip_naming_the_variable(tmp_path):
    from harness.decoders import registry
    d = next(x for x in read_registry() if not x.reference)
    b = registry.build(d, str(tmp_path), str(tmp_path), env={})
    assert (b.status, b.path) == ("skip", "")
    assert d.variable in b.message


def test_a_build_that_fails_is_one_line_naming_the_stage(tmp_path):
    from harness.decoders import registry
    d = next(x for x in read_registry() if x.name == "perf-decode")
    b = registry.build(d, str(tmp_path), str(tmp_path / "out"),
                       env={d.variable: str(tmp_path)})  # not a LinuxTracepoints checkout
    assert b.status == "fail" and "is not microsoft/LinuxTracepoints" in b.message


# ---- §2 the document, §3 the normalization ----------------------------------------------

def test_a_valid_document_is_read_with_its_events_and_non_samples_left_out():
    d = dc.read_document(doc('{ "n": "P:E", "v": 1, "meta": { "time": 1.5, "pid": 2, "tid": 3 } }',
                             '{ "NonSample": "Mmap", "size": 48 }'))
    assert d.problem == "" and len(d.events) == 1
    e = d.events[0]
    assert (e.name, str(e.time), e.fields, e.meta["tid"]) == ("P:E", "1.5", [("n", "P:E"), ("v", 1)], 3)


@pytest.mark.parametrize("bad", [
    '{ "n": "P:E"q", "meta": { } }',  # an unescaped quote
    '{ "n": "P:E", "s": "a\x00b", "meta": { } }',  # a raw control character
    '',  # an empty array element (" ,")
    '{ "n": "P:E", "f": NaN, "meta": { } }',  # not a JSON number
    '{ "n": "P:E", "L1": {, "meta": { } }',  # an object left open
])
def test_what_is_not_json_is_a_problem_and_the_other_lines_still_count(bad):
    d = dc.read_document(doc('{ "n": "P:Ok", "meta": { } }', bad, '{ "n": "P:Ok2", "meta": { } }'))
    assert d.problem.startswith("invalid JSON"), d.problem
    assert [e.name for e in d.events] == ["P:Ok", "P:Ok2"]


def test_invalid_utf8_is_found_where_it_is():
    raw = BOM + b'{\n"f": [\n  { "n": "P:E", "s": "\xed\xa0\x80", "meta": { } } ]\n}\n'
    d = dc.read_document(raw)
    at = raw.index(bytes([0xed]))
    assert d.problem.startswith(f"invalid UTF-8 at byte {at}")
    assert [e.name for e in d.events] == ["P:E"]  # read line by line


def test_normalization_rules():
    n = dc._normalize
    assert n(dc._loads("1")) == n(dc._loads("1.000000000")) == n(dc._loads("1E+0"))
    assert n("00 01 7F") == n("00 01 7f")
    assert n("2023-11-14T22:13:20Z") == n("2023-11-14T22:13:20")
    assert n("NaN") == n("-nan") == n("nan") and n("-inf") == n("-Infinity") != n("inf")
    assert n("hello") == "hello" and n("7F") == "7f"  # any string of that shape, both sides


def test_meta_without_tid_means_tid_is_pid():
    a = dc.read_document(doc('{ "n": "P:E", "meta": { "pid": 5, "tid": 5 } }')).events
    b = dc.read_document(doc('{ "n": "P:E", "meta": { "pid": 5 } }')).events
    c = dc.read_document(doc('{ "n": "P:E", "meta": { "pid": 5, "tid": 6 } }')).events
    assert not dc.compare(a, b).meta
    assert dc.compare(a, c).meta == {"tid": 1}


# ---- §4 the comparison ------------------------------------------------------------------

def test_events_pair_by_name_and_time_and_differences_name_the_first_member():
    ref = dc.read_document(doc('{ "n": "P:A", "v": 1, "meta": { "time": 1.0 } }',
                               '{ "n": "P:A", "v": 2, "meta": { "time": 1.0 } }',
                               '{ "n": "P:B", "v": 3, "w": 4, "meta": { "time": 2.0 } }',
                               '{ "n": "P:C", "meta": { "time": 3.0 } }')).events
    got = dc.read_document(doc('{ "n": "P:B", "v": 3, "w": 5, "meta": { "time": 2 } }',
                               '{ "n": "P:A", "v": 1, "meta": { "time": 1 } }',
                               '{ "n": "P:A", "v": 2, "meta": { "time": 1 } }',
                               '{ "n": "P:D", "meta": { "time": 4 } }')).events
    c = dc.compare(ref, got)
    kinds = sorted((d.kind, (d.reference or d.decoder).name) for d in c.differences)
    assert kinds == [("differs", "P:B"), ("extra", "P:D"), ("missing", "P:C")]
    what = next(d.what for d in c.differences if d.kind == "differs")
    assert what == 'member 3: reference "w": 4; decoder "w": 5'
    assert c.matched == 3


def test_duplicate_member_names_and_order_are_kept():
    a = dc.read_document(doc('{ "n": "P:E", "s": 1, "s": 2, "meta": { } }')).events
    b = dc.read_document(doc('{ "n": "P:E", "s": 2, "s": 1, "meta": { } }')).events
    assert dc.compare(a, b).differences[0].kind == "differs"


# ---- perf.data record positions ------------------------------------------------------------

def test_perf_samples_of_a_file_and_a_pipe_mode_capture():
    with open(os.path.join(DATA, "hello-file-mode.perf.data"), "rb") as f:
        lay = read_layout(f.read())
    assert not lay.pipe and lay.problem == "" and len(lay.samples) == 69
    with open(os.path.join(DATA, "hello-pipe-mode.perf.data"), "rb") as f:
        data = f.read()
    lay = read_layout(data)
    assert lay.pipe and lay.problem == "" and len(lay.samples) == 5
    s = lay.samples[0]
    assert s.raw[8] == 0x07 and s.time == 5444584671  # perf-script.txt: 5.444584671
    assert all(a.end <= b.offset for a, b in zip(lay.samples, lay.samples[1:]))
    cut = read_layout(data[:lay.samples[2].offset + 10])
    assert len(cut.samples) == 2 and "does not fit" in cut.problem
    with pytest.raises(ValueError):
        read_layout(b"not perf data at all")


# ---- §1 the damaged set ----------------------------------------------------------------

def test_damage_is_seeded_and_recorded(tmp_path):
    src = di.Capture("vm/hello", os.path.join(DATA, "hello-file-mode.perf.data"))
    os.makedirs(tmp_path / "a")
    os.makedirs(tmp_path / "b")
    a = di.mutated(src, str(tmp_path / "a"), 1)
    b = di.mutated(src, str(tmp_path / "b"), 1)
    assert [open(x.path, "rb").read() for x in a] == [open(x.path, "rb").read() for x in b]
    orig = open(src.path, "rb").read()
    for m in a:
        data = open(m.path, "rb").read()
        changed = [i for i in range(len(orig)) if orig[i] != data[i]]
        assert changed and (changed[0], changed[-1]) == (m.damage, m.damage_last)
        assert m.source == "vm/hello"
    t = di.truncated(src, str(tmp_path / "a"), 1)
    assert all(os.path.getsize(x.path) == x.damage for x in t)


def test_a_fuzz_eventheader_input_becomes_a_dat_record():
    event = bytes([0x03, 0x07, 0, 0, 0, 0, 0, 0, 0x05, 0xaa])  # control, header level 5, 1 byte
    rec = di.event_as_dat(event)
    name = b"Fuzz_Prov_L5K1f\0"
    assert rec == struct.pack("<I", 4 + len(name) + 9) + name + event[1:]


# ---- §5 robustness, and the profile ------------------------------------------------------

def out(events=(), problem="", crashed="", timed_out=False):
    d = dc.Document([dc.Event(n, t, [], {}) for n, t in events], problem)
    return rd.Output("", crashed, timed_out, d, "", 0.0)


def test_lost_counts_only_events_wholly_before_the_damage(tmp_path):
    path = os.path.join(DATA, "hello-pipe-mode.perf.data")
    lay = read_layout(open(path, "rb").read())
    times = [dc.Decimal(s.time) / 1000000000 for s in lay.samples]
    own = out([("P:Hello", t) for t in times])
    cut = di.Capture("damaged/truncated/x", path, lay.samples[3].offset + 4,
                     lay.samples[3].offset + 4, "data/p")
    assert rd.lost_events(own, path, cut, out([("P:Hello", t) for t in times[:3]]).doc) == []
    lost = rd.lost_events(own, path, cut, out([("P:Hello", t) for t in times[:1]]).doc)
    assert len(lost) == 2 and lost[0].startswith("P:Hello at ")
    # damage before the records: nothing can be asked for
    early = di.Capture("damaged/mutated/x", path, 20, 20, "data/p")
    assert rd.lost_events(own, path, early, out().doc) == []


def test_robust_items_count_per_check_and_leave_inherited_json_to_its_capture():
    d = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    j = rd.Judged()
    caps = [di.Capture(f"damaged/mutated/a-m{i}", f"/x/{i}", None, None, "vm/a") for i in range(4)]
    runs = [(caps[0], out(crashed="killed by signal 11")), (caps[1], out(timed_out=True)),
            (caps[2], out(problem="invalid JSON: x")), (caps[3], out())]
    rd.robust_items(j, d, runs, {"vm/a": out()}, {"vm/a": "/x"})
    got = {e["id"].rsplit("/", 1)[1]: e["status"] for e in j.entries}
    assert got == {"crash": "fail", "hang": "fail", "json": "fail", "lost": "pass"}
    j = rd.Judged()
    rd.robust_items(j, d, runs[2:3], {"vm/a": out(problem="invalid JSON: y")}, {"vm/a": "/x"})
    assert {e["id"].rsplit("/", 1)[1]: e["status"] for e in j.entries}["json"] == "pass"
    # the counts decoders.md shows ride on the items themselves (their JUnit properties)
    assert {e["id"].rsplit("/", 1)[1]: e["facts"] for e in j.entries}["json"] == \
        {"count": 0, "inputs": 1}


def test_profile_declares_the_first_match_and_a_stale_pattern_fails(monkeypatch):
    d = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    monkeypatch.setattr(rd, "read_profile", lambda _: Profile({
        "offline-pipe/*/json": "pipe reason", "*/structs/json": "depth reason",
        "*/attributes/json": "fixed upstream", "vm/limits_127/*": "any item"}))
    entries = [{"kind": "check", "id": f"decoder/demo/{i}", "status": s, "message": "m"}
               for i, s in (("offline-pipe/structs/json", "fail"), ("vm/structs/json", "fail"),
                            ("vm/attributes/json", "pass"), ("vm/limits_127/run", "fail"),
                            ("vm/limits_127/events", "fail"))]
    got = {e["id"]: (e["status"], e["message"]) for e in rd.apply_profile(d, entries)}
    assert got["decoder/demo/offline-pipe/structs/json"][1].startswith("declared: pipe reason")
    assert got["decoder/demo/vm/structs/json"][0] == "xfail"
    assert got["decoder/demo/vm/attributes/json"][0] == "pass"
    assert got["decoder/demo/vm/limits_127/run"][0] == "xfail"
    # an events item is judged against an observation file, never declared by a pattern
    assert got["decoder/demo/vm/limits_127/events"][0] == "fail"
    stale = [k for k in got if "/profile/" in k]
    assert stale == ["decoder/demo/profile/any/attributes/json"]
    assert got[stale[0]][0] == "fail"


def test_an_optional_pattern_declares_when_it_shows_and_is_no_failure_when_not(monkeypatch):
    """`?pattern`: a failure this run's damaged inputs may or may not provoke."""
    d = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    monkeypatch.setattr(rd, "read_profile", lambda _: Profile({"?damaged/mutated/json": "may"}))
    failing = [{"kind": "check", "id": "decoder/demo/damaged/mutated/json", "status": "fail",
                "message": "m"}]
    got = rd.apply_profile(d, failing)
    assert [(e["id"], e["status"]) for e in got] == [("decoder/demo/damaged/mutated/json", "xfail")]
    passing = [{"kind": "check", "id": "decoder/demo/damaged/mutated/json", "status": "pass",
                "message": ""}]
    assert [e["status"] for e in rd.apply_profile(d, passing)] == ["pass"]


def test_every_declaration_names_its_upstream_source_line():
    from harness.decoders.declared import read_observation
    from harness.decoders.registry import is_events_pattern, read_profile
    for d in read_registry():
        prof = read_profile(d)
        for pattern, why in prof.declared.items():
            assert re.search(r"\.(rs|cpp|h):\d+", why), (d.name, pattern)
            # an events pattern names its observation file, whose every entry has its own
            # reason and line (read_observation refuses one without)
            assert is_events_pattern(pattern) == (pattern in prof.observed), pattern
            if pattern in prof.observed:
                assert read_observation(prof.observed[pattern]), pattern
        used = {os.path.basename(p) for p in prof.observed.values()}
        here = set(os.listdir(os.path.join(d.folder, "observed"))) \
            if os.path.isdir(os.path.join(d.folder, "observed")) else set()
        assert here == used, (d.name, "observation files no profile line names", here - used)


# ---- the planted faults (make test-decoder-mutants) -------------------------------------

def load_mutants():
    spec = importlib.util.spec_from_file_location(
        "decoder_mutants", os.path.join(REPO_ROOT, "scripts", "decoder-mutants.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CHECK = re.compile(r"^(?:(?:vm|offline|offline-pipe|data)/[\w.-]+/(?:run|json|events|meta)|"
                   r"damaged/(?:mutated|truncated|fuzz_perf|fuzz_eventheader)/"
                   r"(?:crash|hang|json|lost))$")


def test_mutant_recipes_name_a_decoder_an_item_and_every_check():
    dm = load_mutants()
    mutants = dm.parse_recipes()
    names = {d.name: d for d in read_registry()}
    seen = set()
    for m in mutants:
        assert m.decoder in names, m.name
        for e in m.expect:
            assert CHECK.match(e), (m.name, e)
            seen.add(e.rsplit("/", 1)[1] if not e.startswith("damaged/") else "damaged/"
                     + e.rsplit("/", 1)[1])
            assert fnmatch.fnmatchcase(e.rsplit("/", 1)[0], m.inputs) or \
                e.startswith("damaged/") and m.inputs.startswith(e.rsplit("/", 1)[0]), m.name
        d = names[m.decoder]
        src = REPO_ROOT if d.reference else os.environ.get(d.variable, "")
        if src:  # each `from` line is in the source exactly once
            with open(os.path.join(src, m.file), encoding="utf-8") as f:
                lines = [x.split() for x in f.read().split("\n")]
            for old, _ in m.edits:
                assert lines.count(old.split()) == 1, (m.name, old)
    # every check of Documentation/decoders.md §4 and §5 is shown able to fail once
    assert {"run", "json", "events", "meta", "damaged/crash", "damaged/hang",
            "damaged/lost"} <= seen, seen
    # and a fault inside a declared difference, judged with the profile, at least once
    assert any(m.profile == "yes" for m in mutants)


def test_a_mutants_profile_key_is_yes_or_absent(tmp_path):
    dm = load_mutants()
    bad = tmp_path / "m.txt"
    bad.write_text("mutant: x\ndecoder: ehdecode\nwhat: w\nfile: f\nfrom: a\nto: b\n"
                   "inputs: data/x\nprofile: maybe\nexpect: data/x/events\n")
    with pytest.raises(SystemExit, match="profile: yes"):
        dm.parse_recipes(str(bad))


# ---- the runner and the report, end to end with scripts as decoders ---------------------

FAKE = textwrap.dedent('''\
    #!{py}
    import sys
    # prints the reference document, then what the variant asks for
    path = sys.argv[1]
    name = "{name}"
    ev = ['{{ "n": "S:E", "v": 1, "meta": {{ "time": 1.000000001, "pid": 1, "tid": 1 }} }}',
          '{{ "n": "S:F", "v": 2, "meta": {{ "time": 1.000000002, "pid": 1, "tid": 1 }} }}']
    if name == "bad":
        ev[1] = '{{ "n": "S:F", "v": 3, "meta": {{ "time": 1.000000002, "pid": 1 }} }}'
        ev.append(" ,")
    sys.stdout.write('\\ufeff{{\\n"' + path + '": [\\n' + ",\\n".join(ev) + " ]\\n}}\\n")
''')


def test_the_runner_judges_scripts_and_the_report_is_the_junit_file(tmp_path):
    """harness/decoders/run_decoders.py with --use: the reference and one decoder (scripts), on the
    repository's real captures only (--inputs data/*); then pytest's JUnit file and
    decoders.md from the same summary."""
    results = tmp_path / "results"
    for name in ("good", "bad"):
        p = tmp_path / name
        p.write_text(FAKE.format(py=sys.executable, name=name))
        p.chmod(0o755)
    build = tmp_path / "gcc"
    (build / "bin").mkdir(parents=True)
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    r = subprocess.run([sys.executable, "harness/decoders/run_decoders.py", "--build", str(build),
                        "--results", str(results), "--decoder", "perf-decode",
                        "--use", f"ehdecode={tmp_path / 'good'}",
                        "--use", f"perf-decode={tmp_path / 'bad'}",
                        "--inputs", "data/hello-file-mode", "--no-profile"],
                       cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    entries = {e["id"]: e for e in read_summary(str(results / "decoders" / "perf-decode"))["entries"]}
    base = "decoder/perf-decode/data/hello-file-mode"
    assert entries[f"{base}/run"]["status"] == "pass"
    assert entries[f"{base}/json"]["status"] == "fail"
    assert entries[f"{base}/events"]["status"] == "fail"
    assert "member 2: reference \"v\": 2; decoder \"v\": 3" in entries[f"{base}/events"]["message"]
    assert entries[f"{base}/meta"]["status"] == "pass"  # tid = pid when left out
    assert entries["decoder/perf-decode/inputs"]["status"] == "fail"  # no vm/, offline captures
    xml = tmp_path / "decoder-perf-decode.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "harness/core/judge_items.py", "--ehconf-impl", "perf-decode", "--ehconf-results",
                    str(results), "--ehconf-runner", "decoder", f"--junitxml={xml}"],
                   cwd=REPO_ROOT, env=env, capture_output=True, timeout=300)
    md = tmp_path / "decoders.md"
    subprocess.run([sys.executable, "harness/reports/decoders_md.py", str(tmp_path / "decoder"), str(md)],
                   cwd=REPO_ROOT, env=env, check=True, capture_output=True, timeout=300)
    text = md.read_text()
    assert "**perf-decode: data/hello-file-mode/json** (FAILED)" in text
    assert read_section(text)["perf-decode"][f"{base}/events"] == "fail"
    assert read_section(text)["perf-decode"] == \
        {i.ident: i.outcome for i in read(str(xml)).items}  # rendered from the JUnit file
    json.dumps(entries)  # the summary stays plain JSON


def test_a_decoder_runs_only_on_the_formats_its_row_reads(tmp_path, monkeypatch):
    """decoders/decoders.txt's reads column drives the inputs: a decoder reading perf's
    file mode only gets no pipe-mode capture (tests/data/perf has one of each)."""
    for name in ("good", "bad"):
        p = tmp_path / name
        p.write_text(FAKE.format(py=sys.executable, name="good"))
        p.chmod(0o755)
    rows = [Decoder("ehdecode", "c", "-", "-", ("perf", "pipe"), "reference"),
            Decoder("fileonly", "c", "X", "up", ("perf",), "reads file mode only")]
    monkeypatch.setattr(rd, "read_registry", lambda: rows)
    (tmp_path / "gcc" / "bin").mkdir(parents=True)
    rd.main(["--build", str(tmp_path / "gcc"), "--results", str(tmp_path / "results"),
             "--decoder", "fileonly", "--use", f"ehdecode={tmp_path / 'good'}",
             "--use", f"fileonly={tmp_path / 'bad'}", "--inputs", "data/hello-*", "--no-profile"])
    ids = {e["id"] for e in read_summary(str(tmp_path / "results" / "decoders" / "fileonly"))["entries"]}
    assert "decoder/fileonly/data/hello-file-mode/events" in ids
    assert not any("hello-pipe-mode" in i for i in ids)


# ---- perf's clock data: wall-clock times -------------------------------------------------

def test_wall_clock_times_are_seconds_and_a_shorter_fraction_still_pairs():
    import calendar
    assert dc.wall_seconds("2024-01-01T00:00:00.000000000Z") == calendar.timegm((2024, 1, 1, 0, 0, 0))
    assert dc.wall_seconds("2000-02-29T12:00:01.5Z") == \
        calendar.timegm((2000, 2, 29, 12, 0, 1)) + dc.Decimal("0.5")
    assert dc.wall_seconds("not a time") is None
    ref = dc.read_document(doc('{ "n": "P:A", "meta": { "time": "2026-11-28T22:19:30.123456789Z" } }')).events
    got = dc.read_document(doc('{ "n": "P:A", "meta": { "time": "2026-11-28T22:19:30.1234567Z" } }')).events
    c = dc.compare(ref, got)
    assert not c.differences and c.meta == {"time": 1}  # paired; the cut digits are meta's


def test_perf_samples_reads_the_clock_data_of_both_modes(tmp_path):
    """mkperfdata --clock writes CLOCK_DATA as perf record -k does: a feature section in
    file mode, a HEADER_FEATURE record in pipe mode (built here from a file-mode copy's
    bytes, so no tool runs)."""
    e = "<"
    clock = struct.pack(e + "IIQQ", 1, 1, 1704067199000000000, 0)
    pipe = (b"PERFILE2" + struct.pack(e + "Q", 16)
            + struct.pack(e + "IHHQ", 80, 0, 16 + len(clock), 29) + clock)
    lay = read_layout(pipe)
    assert lay.pipe and lay.clock_offset == 1704067199000000000
    assert lay.wall(1000000000) == 1704067200000000000
    with open(os.path.join(DATA, "hello-file-mode.perf.data"), "rb") as f:
        assert read_layout(f.read()).clock_offset is None


# ---- decoders.md: what the expectations rest on ----------------------------------------

def _basis_section(text: str) -> str:
    assert "## Where the expectations come from" in text, "decoders.md has no basis section"
    return text.split("## Where the expectations come from", 1)[1].split("\n## ", 1)[0]


def test_decoders_md_says_what_the_expectations_rest_on(tmp_path):
    """decoders.md carries harness/core/provenance.py's decoder_basis() line, with the counts of
    descriptions/provenance.txt (counted here from the file itself, not through the
    function); a tree whose provenance file changes a case's kind changes the line, and an
    unreadable file is said in bold, not dropped."""
    from harness.reports import decoders_md
    from harness.core.provenance import CASES, family_inputs
    sec = _basis_section(decoders_md.report(str(tmp_path / "none")))
    per_case = family_inputs(CASES)
    total = sum(per_case.values())
    kinds = {}
    with open(os.path.join(REPO_ROOT, "descriptions", "provenance.txt"), encoding="utf-8") as f:
        for ln in f:
            w = ln.split()
            if w and not w[0].startswith("#"):
                assert w[1] == "all", ln  # every case is one line today
                kinds[w[2]] = kinds.get(w[2], 0) + per_case[w[0]]
    assert (f"the {total} golden events of the {len(per_case)} cases are "
            f"{kinds.get('doc', 0)} documented") in sec, sec
    assert (f"{kinds.get('test', 0)} from an upstream test, "
            f"{kinds.get('source', 0) + kinds.get('current', 0)} source only") in sec, sec
    assert f"{total} on Documentation/eventheader-wire.md" in sec, sec

    # a copy of the tree in which the structs case rests on the source only
    root = tmp_path / "tree"
    (root / "golden").mkdir(parents=True)
    (root / "descriptions").mkdir()
    for name in per_case:
        (root / "golden" / f"{name}.json").write_bytes(
            open(os.path.join(REPO_ROOT, "golden", f"{name}.json"), "rb").read())
    text = open(os.path.join(REPO_ROOT, "descriptions", "provenance.txt"), encoding="utf-8").read()
    changed = re.sub(r"(?m)^structs all doc ", "structs all source cases/structs.c ", text)
    assert changed != text
    (root / "descriptions" / "provenance.txt").write_text(changed)
    sec = _basis_section(decoders_md.report(str(tmp_path / "none"), root=str(root)))
    n = per_case["structs"]
    assert f"are {total - n} documented" in sec and f"{n} source only" in sec, sec
    (root / "descriptions" / "provenance.txt").write_text(changed.replace(" all ", " 1-0 ", 1))
    sec = _basis_section(decoders_md.report(str(tmp_path / "none"), root=str(root)))
    assert "**provenance unreadable: descriptions/provenance.txt:" in sec, sec


def test_the_vm_clock_recordings_are_inputs_of_their_own(tmp_path):
    """<case>.clock.perf.data and <case>.clock-pipe.perf.data of the VM run (guest_run.py's
    perf record -k CLOCK_MONOTONIC) are vm-clock/<case> and vm-clock-pipe/<case>, never
    vm/<case>.clock; a VM run without them is a problem naming the command."""
    vm = tmp_path / "results" / "vm"
    vm.mkdir(parents=True)
    for name in ("activity", "activity.clock", "activity.clock-pipe", "activity.host"):
        (vm / f"{name}.perf.data").write_bytes(b"PERFILE2")
    caps, problems = di.captures(str(tmp_path / "results"), "gcc", "/nonexistent",
                                 str(tmp_path / "out"))
    ids = [c.ident for c in caps if not c.ident.startswith("data/")]
    assert ids == ["vm/activity", "vm-clock/activity", "vm-clock-pipe/activity"], ids
    assert not any("clock.perf.data" in p for p in problems), problems
    for name in ("activity.clock", "activity.clock-pipe"):
        (vm / f"{name}.perf.data").unlink()
    caps, problems = di.captures(str(tmp_path / "results"), "gcc", "/nonexistent",
                                 str(tmp_path / "out"))
    assert [c.ident for c in caps if c.ident.startswith("vm")] == ["vm/activity"]
    assert any("*.clock.perf.data" in p and "make check-vm" in p for p in problems), problems
