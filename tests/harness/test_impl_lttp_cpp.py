# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints' C++ builder (EventHeaderDynamic.h) through ehconf's cases.

impl/lttp-cpp/build builds the emitter impl/lttp-cpp/emit.cpp against the checkout named
by IMPL_SRC_LTTP (into a temporary folder); every case description impl/events/<case>.events
is emitted under the user_events stand-in (impl/standin, LD_PRELOAD), the capture decoded
by `ehdecode --golden`, and each golden event judged by harness/golden.py's compare():

  reproduced   written, and decoded exactly as golden/<case>.json has it
  skipped      the emitter said the API cannot express it (nothing written), with why
  different    the API refused it (EventBuilder::Write returned an errno), or it arrived
               other than golden says

A difference is a result of the implementation, not a failure of this test: they are
collected into one dict, printed, and must be exactly DIFFERENCES below (each with what
shows in the comparison, the reason and the line of the checkout responsible); the skips
likewise must be exactly SKIPS. A new difference, or a declared one that went away, fails.

Without IMPL_SRC_LTTP, the stand-in, ehdecode or impl/events, those tests are skipped with
one line. The build script's refusal of a folder that is not LinuxTracepoints is tested
always (it needs no checkout).

Run: IMPL_SRC_LTTP=/path/to/LinuxTracepoints /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_lttp_cpp.py
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import pytest

from cases import decode
from common import REPO_ROOT, display_path
from golden import compare
from impls import (description_path, parse_emitter_output, read_description, read_profile,
                   read_registry)
from runner import run
from transports import REFERENCE

VARIABLE = "IMPL_SRC_LTTP"
BUILD = os.path.join(REPO_ROOT, "impl", "lttp-cpp", "build")
EVENTS_DIR = os.path.join(REPO_ROOT, "impl", "events")
TYPES_TXT = os.path.join(EVENTS_DIR, "types.txt")
STANDIN = os.path.join("impl", "libuser_events_standin.so")
BUILD_TIMEOUT = 900.0  # cmake from scratch and one C++ file on 2 busy cores
TIMEOUT = 120.0  # one case's emitter or decoder; each takes well under a second
HEADER = "libeventheader-tracepoint/include/eventheader/EventHeaderDynamic.h"

# The differences this implementation shows, (case, event ordinal in the description) ->
# (text that must appear in what differs, the reason, the source line responsible).
# Line numbers are those of LinuxTracepoints 9ff8fe86 (2025-03-17), the snapshot the suite
# was measured with. impl/lttp-cpp/profile.txt declares the same for make check-impl.
ERANGE = ("EventBuilder::Write returned ERANGE",
          "the builder refuses an event whose metadata + data exceed 65535 - (52 + 16) = "
          "65467 bytes, i.e. a payload above 65479 bytes after the write index (measured: "
          "65479 written, 65480 ERANGE); EventHeader and user_events allow 65535, and ehconf's "
          "library writes these events",
          f"{HEADER}:802-804 `else if (m_meta.size() + m_data.size() > 65535 - (52 + 16))` "
          f"`return 34; // ERANGE`")
DIFFERENCES: Dict[Tuple[str, int], Tuple[str, str, str]] = {
    ("field_types", 92): ERANGE,  # str8.maxlen, 65535 payload bytes
    ("field_types", 93): ERANGE,  # str16.maxlen, 65534 (its description needs nothing)
    ("field_types", 94): ERANGE,  # str32.maxlen, 65532 (likewise)
    ("size_64k", 26): ERANGE,  # Size 65535
    ("size_64k", 27): ERANGE,  # DynSize 65535
}

# The events the emitter skips because the API cannot express them,
# (case, ordinal) -> (text that must appear in the emitter's reason, source line).
CARRAY = ("constant-length array",
          f"{HEADER}:1084 AddValueRange writes `ValueEncoding | event_field_encoding_varray_flag` "
          f"(the other *Range calls likewise: 1194, 1300, 1397); 1426 and 1449 RawAddMetaScalar / "
          f"RawAddMetaVcount `assert(encoding == (encoding & event_field_encoding_value_mask))`: "
          f"no call writes event_field_encoding_carray_flag or the element count it puts in "
          f"the metadata")
SKIPS: Dict[Tuple[str, int], Tuple[str, str]] = {
    ("field_types", o): CARRAY  # every T_array event, and tag_format's u16_array
    for o in list(range(3, 82, 3)) + [111, 117, 124, 127, 131, 134, 137, 140, 141]
}


@dataclass
class CaseResult:
    case: str
    events: int  # golden events
    reproduced: List[int] = field(default_factory=list)
    skipped: Dict[int, str] = field(default_factory=dict)
    different: Dict[int, str] = field(default_factory=dict)  # ordinal (0: the case) -> what
    names: Dict[int, str] = field(default_factory=dict)  # ordinal -> golden "n"
    broken: str = ""  # the run itself went wrong (not a result: a test failure)


@pytest.fixture(scope="module")
def build_dir(pytestconfig):
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    return b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)


def _checkout() -> str:
    src = os.environ.get(VARIABLE, "")
    if not src:
        pytest.skip(f"{VARIABLE} is not set: no checkout of microsoft/LinuxTracepoints to build "
                    f"the emitter against ({VARIABLE}=<path> to run these)")
    return src


@pytest.fixture(scope="module")
def emitter(build_dir, tmp_path_factory) -> str:
    src = _checkout()
    out = str(tmp_path_factory.mktemp("lttp-cpp"))
    r = run([BUILD, os.path.abspath(src), out], BUILD_TIMEOUT, merge_stderr=False)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    assert r.returncode == 0 and os.access(last, os.X_OK), (
        f"impl/lttp-cpp/build {src}: {r.how() or 'no emitter path printed'}\n{r.stderr[-3000:]}")
    times = dict(re.findall(r"^lttp-cpp: (\w+): done in (\d+) s$", r.stderr, re.M))
    print(f"\nlttp-cpp: built in {r.seconds:.1f} s (configure {times.get('configure', '?')} s, "
          f"library {times.get('library', '?')} s, emitter {times.get('emitter', '?')} s)")
    return last


def _need(path: str, what: str, hint: str = "make -j2 VARIANT=gcc all") -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not there ({hint})")
    return path


def _cases() -> List[str]:
    return sorted(f[:-len(".json")] for f in os.listdir(os.path.join(REPO_ROOT, "golden"))
                  if f.endswith(".json"))


def _golden(case: str) -> Tuple[List[str], List[str]]:
    """(directive lines, event lines) of golden/<case>.json."""
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8",
              errors="surrogateescape") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    directives = [ln for ln in lines if ln.startswith('{"ehconf"')]
    return directives, [ln for ln in lines if not ln.startswith('{"ehconf"')]


def _order_only(directives: List[str]) -> List[str]:
    """The directives that still hold for a subset of the golden events: the order. The
    transports' declarations name events that a subset may lack (compare() rejects a
    declaration for an event it cannot find) and concern other transports anyway."""
    kept = []
    for line in directives:
        d = json.loads(line)["ehconf"]
        if "order" in d:
            kept.append(json.dumps({"ehconf": {"order": d["order"], "why": d.get("why", "")}}))
    return kept


def _name(line: str) -> str:
    try:
        return str(json.loads(line).get("n", "?"))
    except ValueError:
        return "?"


def judge_case(case: str, emit: str, standin: str, ehdecode: str, tmp: str) -> CaseResult:
    directives, golden = _golden(case)
    res = CaseResult(case, len(golden))
    path = description_path(case)
    if path is None:
        res.broken = f"no description impl/events/{case}.events"
        return res
    desc = read_description(path)
    if desc.problems or len(desc.events) != len(golden):
        res.broken = "; ".join(desc.problems) or (f"impl/events/{case}.events has "
                                                  f"{len(desc.events)} events, golden "
                                                  f"{len(golden)}")
        return res
    res.names = {o: _name(golden[o - 1]) for o in range(1, len(golden) + 1)}
    dat = os.path.join(tmp, case + ".dat")
    if os.path.exists(dat):
        os.unlink(dat)
    env = {"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat, "EHCONF_CAPTURE": None,
           "EHCONF_CAPTURE_TL": None}
    r = run([emit, path], TIMEOUT, env=env, merge_stderr=False)
    said = parse_emitter_output(r.output)
    if r.how() and r.returncode != 1 or sorted(said) != list(range(1, len(golden) + 1)):
        res.broken = (f"emit {display_path(path)}: {r.how() or 'exit status 0'}, {len(said)} of "
                      f"{len(golden)} events reported\n{r.output[-2000:]}\n{r.stderr[-2000:]}")
        return res
    written = []
    for o in sorted(said):
        state, why = said[o]
        if state == "written":
            written.append(o)
        elif state == "skipped":
            res.skipped[o] = why
        else:
            res.different[o] = f"not written: {why}"
    if not written:
        return res
    d = decode(ehdecode, dat, TIMEOUT)
    if not d.ok:
        res.different[0] = f"the capture does not decode: {d.problem}"
        return res
    decoded = [ln for ln in d.text.split("\n") if ln.strip()]
    subset = "\n".join(_order_only(directives) + [golden[o - 1] for o in written])
    unordered = any('"unordered"' in ln for ln in directives)
    if unordered or len(decoded) != len(written):
        # No event-by-event alignment: the written events as one comparison.
        c = compare(subset, "\n".join(decoded), case, REFERENCE)
        if c.ok:
            res.reproduced = written
        else:
            res.different[0] = c.message
        return res
    for o, line in zip(written, decoded):
        c = compare(golden[o - 1], line, case, REFERENCE)
        if c.ok:
            res.reproduced.append(o)
        else:
            res.different[o] = c.message
    return res


@pytest.fixture(scope="module")
def results(emitter, build_dir, tmp_path_factory) -> Dict[str, CaseResult]:
    standin = _need(os.path.join(build_dir, STANDIN), "the stand-in")
    ehdecode = _need(os.path.join(build_dir, "bin", "ehdecode"), "the decoder")
    _need(EVENTS_DIR, "the case descriptions", "Documentation/case-descriptions.md")
    tmp = str(tmp_path_factory.mktemp("lttp-cpp-cases"))
    return {case: judge_case(case, emitter, standin, ehdecode, tmp) for case in _cases()}


def _short(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[:4])[:400]


def _table(results: Dict[str, CaseResult]) -> str:
    out = ["lttp-cpp (EventHeaderDynamic.h) per case: reproduced / skipped / different "
           "of the golden events"]
    for r in results.values():
        if r.broken:
            out.append(f"  {r.case}: NOT RUN: {r.broken.splitlines()[0]}")
            continue
        out.append(f"  {r.case}: {len(r.reproduced)} reproduced, {len(r.skipped)} skipped, "
                   f"{len(r.different)} different, of {r.events}")
        reasons: Dict[str, List[int]] = {}
        for o, why in sorted(r.skipped.items()):
            reasons.setdefault(re.sub(r": field \S+$", "", why), []).append(o)
        for why, ordinals in reasons.items():
            out.append(f"    skipped   {len(ordinals)} (events {', '.join(map(str, ordinals))}): "
                       f"{why}")
        for o, what in sorted(r.different.items()):
            out.append(f"    different {o or 'case'} {r.names.get(o, '')}: {_short(what)}")
    return "\n".join(out)


def test_build_refuses_a_folder_that_is_not_linuxtracepoints(tmp_path):
    src = tmp_path / "not-lttp"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("project(other)\n")
    r = run([BUILD, str(src), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    assert r.stderr.splitlines() == [
        f"lttp-cpp: build: IMPL_SRC={src} is not microsoft/LinuxTracepoints (no {HEADER})"], \
        r.stderr
    assert not (tmp_path / "out").exists(), "nothing is built for a wrong checkout"


def test_build_failure_is_one_line_naming_the_stage(tmp_path):
    """A tree that looks like LinuxTracepoints but does not configure: one line naming
    lttp-cpp, the stage and its log, exit 1."""
    src = tmp_path / "broken"
    (src / os.path.dirname(HEADER)).mkdir(parents=True)
    (src / HEADER).write_text("#error not really\n")
    (src / "libtracepoint" / "include").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text('message(FATAL_ERROR "broken on purpose")\n')
    out = tmp_path / "out"
    r = run([BUILD, str(src), str(out)], 120, merge_stderr=False)
    assert r.returncode == 1 and r.output == "", r.how()
    lines = [ln for ln in r.stderr.splitlines() if "failed" in ln]
    assert lines == [f"lttp-cpp: build: configure failed (log: {out}/configure.log)"], r.stderr
    assert r.stderr.splitlines()[-1] == lines[0]
    with open(out / "configure.log", encoding="utf-8") as f:
        assert "broken on purpose" in f.read()


def test_build_refuses_a_missing_folder(tmp_path):
    r = run([BUILD, str(tmp_path / "nowhere"), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "is not microsoft/LinuxTracepoints" in r.stderr


def test_build_usage():
    r = run([BUILD], 60, merge_stderr=False)
    assert r.returncode == 2 and r.stderr.startswith("usage: impl/lttp-cpp/build"), r.stderr


def _wire_numbers(section: str) -> Dict[str, int]:
    """name -> value of a table of Documentation/eventheader-wire.md (### Encodings or
    ### Formats)."""
    with open(os.path.join(REPO_ROOT, "Documentation", "eventheader-wire.md"),
              encoding="utf-8") as f:
        text = f.read()
    part = text[text.index(section):]
    part = part[:part.find("\n#", 1)]
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"^\| (\d+) \| (\w+) \|", part, re.M)}


def test_type_table_matches_types_txt(emitter):
    """Every name of impl/events/types.txt has the same encoding and format in the
    emitter's table (emit --types), and the emitter knows no name the table lacks."""
    _need(TYPES_TXT, "the type table", "Documentation/case-descriptions.md")
    encodings = _wire_numbers("### Encodings")
    encodings["value_ptr"] = encodings["value64"]  # the emitter is built for x86_64
    formats = _wire_numbers("### Formats")
    want = {}
    with open(TYPES_TXT, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            want[words[0]] = (encodings[words[1]], formats[words[2]])
    r = run([emitter, "--types"], TIMEOUT, merge_stderr=False)
    assert r.returncode == 0, r.how()
    have = {w[0]: (int(w[1], 16), int(w[2], 16))
            for w in (ln.split() for ln in r.output.splitlines()) if w}
    problems = [f"{n}: types.txt {want[n]}, emitter {have[n]}"
                for n in sorted(set(want) & set(have)) if want[n] != have[n]]
    problems += [f"{n}: in types.txt, not in the emitter" for n in sorted(set(want) - set(have))]
    problems += [f"{n}: in the emitter, not in types.txt" for n in sorted(set(have) - set(want))]
    assert len(want) > 50 and not problems, "\n".join(problems)


MALFORMED = {
    "no case line": ("provider P\n", 1),
    "unknown statement": ("case c\nprovider P\nregister\nfrobnicate\n", 4),
    "event without end": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u8 a 01\n", 4),
    "odd hex": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u8 a 012\nend\n", 5),
    "wrong size": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u32 a 01\nend\n", 5),
    "unknown type": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u7 a 01\nend\n", 5),
    "bad escape": ("case c\nprovider P%4\nregister\n", 2),
    "level too big": ("case c\nprovider P\nregister\nevent E level=256 keyword=0x1\nend\n", 4),
    "no keyword": ("case c\nprovider P\nregister\nevent E level=1\nend\n", 4),
    "end without block": ("case c\nprovider P\nend\n", 3),
    "element count": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                      " struct_slice s 2\n  element\n   u8 a 01\n  end\n end\nend\n", 5),
    "event before provider": ("case c\nevent E level=1 keyword=0x1\nend\n", 2),
    "NUL in a name": ("case c\nprovider P\nregister\nevent E%00 level=1 keyword=0x1\nend\n", 4),
    "parent outside fork": ("case c\nprovider P\nthreads\nthread\nparent\n", 5),
    "0 unit in a cstr16": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                           " cstr16 s 41000000\nend\n", 5),
    "deep nesting": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                     + " struct s\n" * 100000, 203),
}


@pytest.mark.parametrize("what", sorted(MALFORMED))
def test_malformed_description(emitter, tmp_path, what):
    """A description the emitter cannot parse: `file:line: reason` on stderr, exit 2,
    nothing written, never a crash."""
    text, line = MALFORMED[what]
    path = tmp_path / "bad.events"
    path.write_text(text)
    dat = tmp_path / "bad.dat"
    r = run([emitter, str(path)], TIMEOUT, merge_stderr=False,
            env={"EHCONF_STANDIN_CAPTURE": str(dat)})
    assert r.returncode == 2, f"{what}: {r.how()}\n{r.output}\n{r.stderr}"
    assert r.output == "", r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: "), r.stderr
    assert not dat.exists()


def test_every_case_runs(results):
    """The emitter ran every case to the end and reported each of its events."""
    broken = {c: r.broken for c, r in results.items() if r.broken}
    assert not broken, "\n".join(f"{c}: {why}" for c, why in broken.items())


def test_every_golden_event_is_accounted_for(results):
    for r in results.values():
        if r.broken:
            continue
        counted = len(r.reproduced) + len(r.skipped) + len([o for o in r.different if o])
        assert counted == r.events or 0 in r.different, f"{r.case}: {counted} of {r.events}"


def test_differences_are_the_declared_ones(results, capsys):
    """The differences (printed) must be exactly DIFFERENCES, each showing its text."""
    with capsys.disabled():
        print("\n" + _table(results))
    seen = {(c, o): what for c, r in results.items() for o, what in r.different.items()}
    problems = []
    for key, what in sorted(seen.items()):
        if key not in DIFFERENCES:
            problems.append(f"undeclared difference {key[0]} event {key[1] or '(case)'}: "
                            f"{_short(what)}")
        elif DIFFERENCES[key][0] not in what:
            problems.append(f"{key[0]} event {key[1]}: expected {DIFFERENCES[key][0]!r} in "
                            f"what differs, got: {_short(what)}")
    for key in sorted(set(DIFFERENCES) - set(seen)):
        problems.append(f"declared difference {key[0]} event {key[1]} not seen: it now "
                        f"matches golden or is skipped; remove it from DIFFERENCES")
    assert not problems, "\n".join(problems)


def test_skips_are_the_declared_ones(results):
    seen = {(c, o): why for c, r in results.items() for o, why in r.skipped.items()}
    problems = []
    for key, why in sorted(seen.items()):
        if key not in SKIPS:
            problems.append(f"undeclared skip {key[0]} event {key[1]}: {why}")
        elif SKIPS[key][0] not in why:
            problems.append(f"{key[0]} event {key[1]}: expected {SKIPS[key][0]!r} in the "
                            f"reason, got: {why}")
    for key in sorted(set(SKIPS) - set(seen)):
        problems.append(f"declared skip {key[0]} event {key[1]} not seen: remove it from SKIPS")
    assert not problems, "\n".join(problems)


def test_profile_declares_the_same():
    """impl/lttp-cpp/profile.txt (what make check-impl reads) declares exactly these
    differences, and lacks exactly the features of the skipped events."""
    _need(EVENTS_DIR, "the case descriptions", "Documentation/case-descriptions.md")
    impl = [i for i in read_registry() if i.name == "lttp-cpp"]
    assert impl, "impl/implementations.txt has no lttp-cpp row"
    profile = read_profile(impl[0])
    assert set(profile.differs) == set(DIFFERENCES)
    lacked = set()
    for case in _cases():
        path = description_path(case)
        if path:
            events = read_description(path).events
            lacked |= {(case, o) for o, (_, _, needs) in enumerate(events, 1)
                       if needs & set(profile.lacks)}
    assert lacked == set(SKIPS), (f"lacked but not in SKIPS: {sorted(lacked - set(SKIPS))}; "
                                  f"in SKIPS but not lacked: {sorted(set(SKIPS) - lacked)}")


def _emit_text(emitter: str, build_dir: str, tmp_path, text: str) -> Tuple[str, List[dict]]:
    """Emit a description given as text under the stand-in: (its stdout, decoded events)."""
    standin = _need(os.path.join(build_dir, STANDIN), "the stand-in")
    ehdecode = _need(os.path.join(build_dir, "bin", "ehdecode"), "the decoder")
    path, dat = tmp_path / "t.events", tmp_path / "t.dat"
    path.write_text(text)
    r = run([emitter, str(path)], TIMEOUT, merge_stderr=False,
            env={"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": str(dat)})
    assert r.returncode in (0, 1), f"{r.how()}\n{r.output}\n{r.stderr}"
    d = decode(ehdecode, str(dat), TIMEOUT)
    assert d.ok, d.problem
    return r.output, [json.loads(ln) for ln in d.text.splitlines() if ln.strip()]


def test_size_limit_is_65479_payload_bytes(emitter, build_dir, tmp_path):
    """Where ERANGE starts (DIFFERENCES' reason): a u8 slice sized so that the payload
    after the write index is 65479 bytes (8 header + 4 metadata extension + 5 metadata
    + 2 count + 65460) is written, one byte more is refused."""
    text = "case size\nprovider P\nregister\n" + "".join(
        f"event E level=4 keyword=0x1\n u8_slice f {','.join(['00'] * n)}\nend\n"
        for n in (65460, 65461))
    out, events = _emit_text(emitter, build_dir, tmp_path, text)
    assert "event 1 written" in out and "event 2 failed EventBuilder::Write returned ERANGE" \
        in out, out
    assert len(events) == 1 and len(events[0]["f"]) == 65460


def test_related_without_activity_is_dropped(emitter, build_dir, tmp_path):
    """No case has it (the C cases always pair related= with activity=), so this records the
    behaviour by hand: EventBuilder::Write(set, nullptr, related) returns 0 and writes the
    event without its related activity id. The header requires relatedId == nullptr when
    activityId is (EventHeaderDynamic.h:797, an assert only), and eventheader_write adds the
    activity extension only when pActivityId != NULL, asserting the rest
    (libeventheader-tracepoint/src/eventheader-tracepoint.c:146-149): a release build
    drops the id silently."""
    text = ("case related\nprovider P\nregister\n"
            "event E level=4 keyword=0x1 related=0102030405060708090a0b0c0d0e0f10\nend\n")
    out, events = _emit_text(emitter, build_dir, tmp_path, text)
    assert "event 1 written" in out, out
    assert len(events) == 1 and "relatedActivity" not in events[0]["meta"], events
