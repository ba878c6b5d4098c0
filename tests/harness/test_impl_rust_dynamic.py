# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints-Rust's eventheader_dynamic crate through ehconf's cases.

impl/rust-dynamic/build builds the emitter impl/rust-dynamic/src/main.rs against the checkout
named by IMPL_SRC_RUST (Debian's cargo, offline, into a temporary folder); every case
description impl/events/<case>.events is emitted under the user_events stand-in
(impl/standin, LD_PRELOAD), the capture decoded by `ehdecode --golden`, and each golden event
judged by harness/golden.py's compare() (transport "offline": the stand-in drops nothing):

  reproduced   written, and decoded exactly as golden/<case>.json has it
  skipped      the emitter said the crate cannot express it (nothing written), with why
  different    the crate refused it (EventBuilder::write returned an errno, or panicked),
               or it arrived other than golden says

A difference is a result of the crate, never hidden: the results are printed per case and
must be exactly DIFFERENCES and SKIPS below, each with its reason and the line of the
checkout it comes from (which test_cited_lines_are_in_the_checkout reads back), and
impl/rust-dynamic/profile.txt (what `make check-impl` reads) must declare the same. A new
difference, or a declared one that went away, fails.

Beyond the golden cases, small descriptions written here pin what the crate does at its
edges: add_struct with 128 members panics (caught and reported), 129 members are silently
cut to 1, a provider registered twice does not panic in this crate, a provider name of 234
bytes or more panics in Provider::new.

Without IMPL_SRC_RUST (or when it names no checkout of the crate), without the stand-in,
ehdecode or impl/events, those tests are skipped with one line. The build script's refusal
of a folder that is not LinuxTracepoints-Rust is tested always (it needs no checkout).

Run: IMPL_SRC_RUST=/path/to/LinuxTracepoints-Rust /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_rust_dynamic.py
"""

from __future__ import annotations

import glob
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import pytest

from cases import decode
from common import REPO_ROOT, display_path
from golden import TRANSPORTS, compare
from impls import (Impl, description_path, parse_emitter_output, read_description,
                   read_profile, read_registry)
from runner import run
from transports import REFERENCE

VARIABLE = "IMPL_SRC_RUST"
NAME = "rust-dynamic"
BUILD = os.path.join(REPO_ROOT, "impl", NAME, "build")
EVENTS_DIR = os.path.join(REPO_ROOT, "impl", "events")
TYPES_TXT = os.path.join(EVENTS_DIR, "types.txt")
STANDIN = os.path.join("impl", "libuser_events_standin.so")
MARKER = os.path.join("eventheader_dynamic", "Cargo.toml")
BUILD_TIMEOUT = 900.0  # cargo from scratch on 2 busy cores (about 15 s measured)
TIMEOUT = 120.0  # one case's emitter or decoder; the 8,006 events of concurrency take < 1 s

# Lines of the checkout cited below: (file:line, text on that line). The numbers are those
# of the snapshot in ../shared/impls (commit bb466c10, 2025-12-03).
ERANGE = ("eventheader_dynamic/src/builder.rs:240", "65535 - (52 + 16)")
CARRAY = ("eventheader_dynamic/src/builder.rs:870", "FieldEncoding::VArrayFlag")
RESET_STR = ("eventheader_dynamic/src/builder.rs:194", "pub fn reset(&mut self, name: &str")
NEW_STR = ("eventheader_dynamic/src/provider.rs:56", "pub fn new(name: &str")
STRUCT_MASK = ("eventheader_dynamic/src/builder.rs:325",
               "struct_field_count & FieldFormat::ValueMask")
STRUCT_PANIC = ("eventheader_dynamic/src/builder.rs:330", "assert!(masked_field_count != 0")
NAME_PANIC = ("eventheader_dynamic/src/provider.rs:58", "assert!(")
NAMES_MAX = ("eventheader_dynamic/src/provider.rs:57", '"_LffKffffffffffffffffG".len()')
SET_REUSED = ("eventheader_dynamic/src/provider.rs:136", "Some(set_pin_arc) => set_pin_arc.clone()")
STATIC_REGISTER_PANIC = ("tracepoint/src/native.rs:475", "assert!(")
RELATED_DROPPED = ("eventheader/src/_internal.rs:151",
                   "None => debug_assert!(related_id.is_none())")
CITED = [ERANGE, CARRAY, RESET_STR, NEW_STR, STRUCT_MASK, STRUCT_PANIC, NAME_PANIC, NAMES_MAX,
         SET_REUSED, STATIC_REGISTER_PANIC, RELATED_DROPPED]

# The golden events the crate does not reproduce, (case, event ordinal in the description)
# -> (text that must appear in what differs, the reason, the line responsible).
_RANGE_WHY = ("EventBuilder::write returns ERANGE, writing nothing, when metadata + data "
              "exceed 65535 - (52 + 16) = 65,467 bytes: it reserves the largest headers "
              "(68 bytes) whatever the event has, so events from about 65,480 bytes on are "
              "refused although the kernel and ehconf's library take them up to 65,535")
DIFFERENCES: Dict[Tuple[str, int], Tuple[str, str, Tuple[str, str]]] = {
    ("field_types", 92): ("write returned ERANGE (34)", "str8.maxlen: " + _RANGE_WHY, ERANGE),
    ("field_types", 93): ("write returned ERANGE (34)", "str16.maxlen (65,534 bytes, no "
                          "size>65534): " + _RANGE_WHY, ERANGE),
    ("field_types", 94): ("write returned ERANGE (34)", "str32.maxlen (65,532 bytes, no "
                          "size>65534): " + _RANGE_WHY, ERANGE),
    ("size_64k", 26): ("write returned ERANGE (34)", "Size 65535: " + _RANGE_WHY, ERANGE),
    ("size_64k", 27): ("write returned ERANGE (34)", "DynSize 65535: " + _RANGE_WHY, ERANGE),
}

# The events the emitter skips because the crate cannot express them: (case, ordinal) ->
# (text that must begin the emitter's reason: the feature, the line responsible).
_CARRAY_EVENTS = [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57,
                  60, 63, 66, 69, 72, 75, 78, 81, 111, 117, 124, 127, 131, 134, 137, 140, 141]
SKIPS: Dict[Tuple[str, int], Tuple[str, Tuple[str, str]]] = {
    **{("field_types", o): ("carray:", CARRAY) for o in _CARRAY_EVENTS},
    ("attributes", 35): ("name-non-utf8:", RESET_STR),
}


@dataclass
class CaseResult:
    case: str
    events: int  # golden events
    reproduced: List[int] = field(default_factory=list)
    skipped: Dict[int, str] = field(default_factory=dict)
    different: Dict[int, str] = field(default_factory=dict)  # ordinal (0: the case) -> what
    names: Dict[int, str] = field(default_factory=dict)  # ordinal -> golden "n"
    broken: str = ""  # the run itself went wrong (a test failure, not a result)


# ---- what the tests need --------------------------------------------------------------------

@pytest.fixture(scope="module")
def build_dir(pytestconfig):
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    return b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)


def _checkout() -> str:
    src = os.environ.get(VARIABLE, "")
    if not src:
        pytest.skip(f"{VARIABLE} is not set: no checkout of microsoft/LinuxTracepoints-Rust "
                    f"to build the emitter against ({VARIABLE}=<path> to run these)")
    if not os.path.isfile(os.path.join(src, MARKER)):
        pytest.skip(f"{VARIABLE}={src} is not microsoft/LinuxTracepoints-Rust (no {MARKER})")
    return src


def _need(path: str, what: str, hint: str = "make -j2 VARIANT=gcc all") -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not there ({hint})")
    return path


@pytest.fixture(scope="module")
def emitter(tmp_path_factory) -> str:
    src = _checkout()
    out = str(tmp_path_factory.mktemp(NAME))
    r = run([BUILD, os.path.abspath(src), out], BUILD_TIMEOUT, merge_stderr=False)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    assert r.returncode == 0 and os.access(last, os.X_OK), (
        f"impl/{NAME}/build {src}: {r.how() or 'no emitter path printed'}\n{r.stderr[-3000:]}")
    print(f"\n{NAME}: built in {r.seconds:.1f} s from a clean folder")
    return last


@pytest.fixture(scope="module")
def standin(build_dir) -> str:
    return _need(os.path.join(build_dir, STANDIN), "the stand-in")


@pytest.fixture(scope="module")
def ehdecode(build_dir) -> str:
    return _need(os.path.join(build_dir, "bin", "ehdecode"), "the decoder")


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


def _name(line: str) -> str:
    try:
        return str(json.loads(line).get("n", "?"))
    except ValueError:
        return "?"


def _for_subset(directives: List[str], names: set) -> List[str]:
    """The directives for a subset of the golden events: the transports' declared
    differences kept only for events of the subset (compare() rejects a declaration whose
    event it cannot find, and they concern other transports); everything else as it is."""
    kept = []
    for line in directives:
        d = json.loads(line)["ehconf"]
        for t in [k for k in d if k in TRANSPORTS]:
            d[t] = {n: v for n, v in d[t].items() if n in names}
            if not d[t]:
                del d[t]
        kept.append(json.dumps({"ehconf": d}))
    return kept


def _emit(emit: str, path: str, standin: str, dat: str):
    if os.path.exists(dat):
        os.unlink(dat)
    env = {"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat, "EHCONF_CAPTURE": None,
           "EHCONF_CAPTURE_TL": None}
    return run([emit, path], TIMEOUT, env=env, merge_stderr=False)


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
    r = _emit(emit, path, standin, dat)
    with open(os.path.join(tmp, case + ".log"), "w", encoding="utf-8") as f:
        f.write(r.output + "\n--- stderr ---\n" + r.stderr)
    said = parse_emitter_output(r.output)
    if (r.how() and r.returncode != 1) or sorted(said) != list(range(1, len(golden) + 1)):
        res.broken = (f"emit {display_path(path)}: {r.how() or 'exit status 0'}, {len(said)} of "
                      f"{len(golden)} events reported (log: {tmp}/{case}.log)")
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
    unordered = any('"unordered"' in ln for ln in directives)
    if unordered or len(decoded) != len(written):
        # No event-by-event alignment: the written events in one comparison.
        want = [golden[o - 1] for o in written]
        c = compare("\n".join(_for_subset(directives, {_name(w) for w in want}) + want),
                    "\n".join(decoded), case, REFERENCE)
        if c.ok:
            res.reproduced = written
        else:
            res.different[0] = c.message
        return res
    for o, line in zip(written, decoded):
        want = golden[o - 1]
        c = compare("\n".join(_for_subset(directives, {_name(want)}) + [want]), line, case,
                    REFERENCE)
        if c.ok:
            res.reproduced.append(o)
        else:
            res.different[o] = c.message
    return res


@pytest.fixture(scope="module")
def results(emitter, standin, ehdecode, tmp_path_factory) -> Dict[str, CaseResult]:
    _need(EVENTS_DIR, "the case descriptions", "Documentation/case-descriptions.md")
    tmp = str(tmp_path_factory.mktemp(NAME + "-cases"))
    return {case: judge_case(case, emitter, standin, ehdecode, tmp) for case in _cases()}


def _short(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[:4])[:400]


def _table(results: Dict[str, CaseResult]) -> str:
    out = [f"{NAME} (eventheader_dynamic) per case: reproduced / skipped / different of the "
           f"golden events"]
    for r in results.values():
        if r.broken:
            out.append(f"  {r.case}: NOT RUN: {r.broken.splitlines()[0]}")
            continue
        out.append(f"  {r.case}: {len(r.reproduced)} reproduced, {len(r.skipped)} skipped, "
                   f"{len(r.different)} different, of {r.events}")
        for o, why in sorted(r.skipped.items()):
            out.append(f"    skipped   {o} {r.names.get(o, '')}: {why}")
        for o, what in sorted(r.different.items()):
            out.append(f"    different {o or 'case'} {r.names.get(o, '')}: {_short(what)}")
    return "\n".join(out)


# ---- the build script -----------------------------------------------------------------------

def test_build_refuses_a_folder_that_is_not_the_rust_repo(tmp_path):
    src = tmp_path / "not-rust"
    (src / "eventheader").mkdir(parents=True)
    (src / "Cargo.toml").write_text("[workspace]\n")
    r = run([BUILD, str(src), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    assert r.stderr.splitlines() == [
        f"rust-dynamic: build: IMPL_SRC={src} is not microsoft/LinuxTracepoints-Rust "
        f"(no eventheader_dynamic/Cargo.toml)"], r.stderr
    assert not (tmp_path / "out").exists(), "nothing is built for a wrong checkout"


def test_build_refuses_a_missing_folder(tmp_path):
    r = run([BUILD, str(tmp_path / "nowhere"), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "is not microsoft/LinuxTracepoints-Rust" in r.stderr


def test_build_usage():
    r = run([BUILD], 60, merge_stderr=False)
    assert r.returncode == 2 and r.stderr.startswith(f"usage: impl/{NAME}/build"), r.stderr


def test_build_failure_is_one_line_naming_the_stage_and_log(tmp_path):
    """A checkout whose crate does not compile: one line naming rust-dynamic, the stage and
    the log, exit 1, and the log holds cargo's message. Needs cargo, not a real checkout."""
    if not (os.access("/usr/bin/cargo", os.X_OK)
            and glob.glob("/usr/share/cargo/registry/libc-0.2.*")):
        pytest.skip("/usr/bin/cargo or Debian's libc crate is not installed (make deps: cargo-web, "
                    "librust-libc-dev)")
    src = tmp_path / "broken"
    (src / "eventheader_dynamic" / "src").mkdir(parents=True)
    (src / "eventheader_dynamic" / "Cargo.toml").write_text(
        '[package]\nname = "eventheader_dynamic"\nversion = "0.5.0"\nedition = "2021"\n')
    (src / "eventheader_dynamic" / "src" / "lib.rs").write_text("this is not rust\n")
    (src / "eventheader_dynamic" / "src" / "builder.rs").write_text("\n")
    out = tmp_path / "out"
    r = run([BUILD, str(src), str(out)], BUILD_TIMEOUT, merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    last = r.stderr.splitlines()[-1]
    assert last == f"rust-dynamic: build: cargo failed (log: {out}/cargo.log)", r.stderr
    with open(out / "cargo.log", encoding="utf-8") as f:
        assert "error" in f.read()


# ---- the cited lines ------------------------------------------------------------------------

def test_cited_lines_are_in_the_checkout():
    """Every line DIFFERENCES, SKIPS and the edge tests name holds the cited text in the
    checkout: a newer snapshot that moves or changes them fails here first."""
    src = _checkout()
    problems = []
    for where, text in CITED:
        path, line = where.rsplit(":", 1)
        with open(os.path.join(src, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        got = lines[int(line) - 1] if int(line) <= len(lines) else ""
        if text not in got:
            problems.append(f"{where}: expected {text!r}, found {got.strip()!r}")
    assert not problems, "\n".join(problems)


def test_profile_declares_the_same_differences():
    """impl/rust-dynamic/profile.txt (read by make check-impl) declares exactly the events
    of DIFFERENCES, citing the same line, and lacks exactly the features SKIPS name."""
    impl = next(i for i in read_registry() if i.name == NAME)
    assert isinstance(impl, Impl) and impl.checkout == "RUST" and impl.variable == VARIABLE
    profile = read_profile(impl)
    assert set(profile.differs) == set(DIFFERENCES), sorted(set(profile.differs) ^
                                                           set(DIFFERENCES))
    for key, why in profile.differs.items():
        assert DIFFERENCES[key][2][0] in why, f"{key}: profile.txt does not cite " \
                                              f"{DIFFERENCES[key][2][0]}: {why}"
    skipped_features = {prefix.rstrip(":") for prefix, _ in SKIPS.values()}
    assert skipped_features <= set(profile.lacks), skipped_features - set(profile.lacks)
    for prefix, (where, _) in SKIPS.values():
        assert where in profile.lacks[prefix.rstrip(":")], f"lacks {prefix} does not cite {where}"


def test_skipped_events_need_the_feature_they_lack():
    """Each event of SKIPS has that feature in its description's needs=, so make check-impl
    (which leaves out the events needing a lacked feature) leaves out the same events."""
    _need(EVENTS_DIR, "the case descriptions", "Documentation/case-descriptions.md")
    problems = []
    needing: Dict[Tuple[str, int], set] = {}
    for case in {c for c, _ in SKIPS}:
        path = description_path(case)
        assert path, f"no impl/events/{case}.events"
        for o, (_, _, needs) in enumerate(read_description(path).events, 1):
            needing[(case, o)] = needs
    lacked = {prefix.rstrip(":") for prefix, _ in SKIPS.values()}
    for key, (prefix, _) in SKIPS.items():
        if prefix.rstrip(":") not in needing.get(key, set()):
            problems.append(f"{key[0]} event {key[1]}: needs={sorted(needing.get(key, []))}, "
                            f"no {prefix.rstrip(':')}")
    for key, needs in needing.items():
        if needs & lacked and key not in SKIPS:
            problems.append(f"{key[0]} event {key[1]} needs {sorted(needs & lacked)}: not in SKIPS")
    assert not problems, "\n".join(problems)


# ---- the cases ------------------------------------------------------------------------------

def test_type_table_is_types_txt(emitter):
    """The emitter's table (compiled in from impl/events/types.txt) gives each name the
    encoding and format of Documentation/eventheader-wire.md's numbers (x86_64: value_ptr
    is value64)."""
    _need(TYPES_TXT, "the type table", "Documentation/case-descriptions.md")
    with open(os.path.join(REPO_ROOT, "Documentation", "eventheader-wire.md"),
              encoding="utf-8") as f:
        wire = f.read()
    numbers = {m.group(2): int(m.group(1))
               for m in re.finditer(r"^\| (\d+) \| (\w+) \|", wire, re.M)}
    numbers["value_ptr"] = numbers["value64"]
    want = {}
    with open(TYPES_TXT, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                want[w[0]] = (numbers[w[1]], numbers[w[2]])
    r = run([emitter, "--types"], TIMEOUT, merge_stderr=False)
    assert r.returncode == 0, r.how()
    have = {w[0]: (int(w[1], 16), int(w[2], 16))
            for w in (ln.split() for ln in r.output.splitlines()) if w}
    assert len(want) > 50 and have == want, sorted(set(have.items()) ^ set(want.items()))


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
    """The differences (printed with the whole table) must be exactly DIFFERENCES."""
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
                        f"matches golden or is skipped; remove it from DIFFERENCES and "
                        f"impl/{NAME}/profile.txt")
    assert not problems, "\n".join(problems)


def test_skips_are_the_declared_ones(results):
    seen = {(c, o): why for c, r in results.items() for o, why in r.skipped.items()}
    problems = []
    for key, why in sorted(seen.items()):
        if key not in SKIPS:
            problems.append(f"undeclared skip {key[0]} event {key[1]}: {why}")
        elif not why.startswith(SKIPS[key][0]):
            problems.append(f"{key[0]} event {key[1]}: expected the reason to begin with "
                            f"{SKIPS[key][0]!r}, got: {why}")
    for key in sorted(set(SKIPS) - set(seen)):
        problems.append(f"declared skip {key[0]} event {key[1]} not seen: remove it from SKIPS")
    assert not problems, "\n".join(problems)


# ---- the crate's edges, on descriptions written here ----------------------------------------

def _struct(name: str, members: int, indent: str = "  ") -> str:
    return (f"{indent}struct {name}\n"
            + "".join(f"{indent}  u8 f{i} {i % 256:02x}\n" for i in range(members))
            + f"{indent}end\n")


def _run_edge(emitter, standin, ehdecode, tmp_path, text):
    """(per-event lines, decoded events) of a description written here."""
    path = tmp_path / "edge.events"
    path.write_text(text)
    dat = str(tmp_path / "edge.dat")
    r = _emit(emitter, str(path), standin, dat)
    assert r.returncode in (0, 1) and not r.timed_out, f"{r.how()}\n{r.output}\n{r.stderr}"
    said = parse_emitter_output(r.output)
    d = decode(ehdecode, dat, TIMEOUT) if os.path.exists(dat) else None
    assert d is None or d.ok, d.problem
    decoded = [json.loads(ln) for ln in (d.text if d else "").split("\n") if ln.strip()]
    return said, decoded, r


def test_struct_of_128_members_panics_and_the_emitter_goes_on(emitter, standin, ehdecode,
                                                              tmp_path):
    """add_struct(name, 128, tag): 128 & 0x7F is 0, and the assert of builder.rs:330 panics
    ("struct_field_count must not be 0"; the debug_assert_eq naming the real limit is off in
    release). The emitter catches it (catch_unwind), reports the panic with its place, and
    the next event is written."""
    text = ("case edge\nprovider EhconfRustEdge\nregister\n"
            "event W127 level=4 keyword=0x1\n" + _struct("s", 127) + "end\n"
            "event W128 level=4 keyword=0x1\n" + _struct("s", 128) + "end\n"
            "event After level=4 keyword=0x1\n  u8 ok 01\nend\n")
    said, decoded, _ = _run_edge(emitter, standin, ehdecode, tmp_path, text)
    assert said[1] == ("written", "") and said[3] == ("written", ""), said
    state, why = said[2]
    assert state == "failed" and why.startswith("panic: struct_field_count must not be 0"), why
    assert why.endswith(f" at {STRUCT_PANIC[0]}"), why
    assert [e["n"] for e in decoded] == ["EhconfRustEdge:W127", "EhconfRustEdge:After"]


def test_struct_of_129_members_is_silently_cut_to_1(emitter, standin, ehdecode, tmp_path):
    """add_struct(name, 129, tag): 129 & 0x7F is 1 (builder.rs:325), no panic and no error:
    the event is written with a struct of one member, the other 128 become top-level fields.
    A user's release build writes it so; ehconf's library refuses it with EINVAL."""
    text = ("case edge\nprovider EhconfRustEdge\nregister\n"
            "event W129 level=4 keyword=0x1\n" + _struct("s", 129) + "end\n")
    said, decoded, _ = _run_edge(emitter, standin, ehdecode, tmp_path, text)
    assert said == {1: ("written", "")}, said
    assert len(decoded) == 1 and decoded[0]["s"] == {"f0": 0}, decoded
    assert decoded[0]["f1"] == 1 and decoded[0]["f128"] == 128, decoded


def test_registering_twice_does_not_panic_in_this_crate(emitter, standin, ehdecode, tmp_path):
    """eventheader_dynamic has no provider registration of its own: register_set returns the
    already registered set (provider.rs:136), so `register` twice, or the same level and
    keyword again, never reaches the "register of active tracepoint" assert of
    tracepoint/src/native.rs:475 (which the eventheader crate's static Provider::register
    hits when called twice). After unregister, register_set registers a new tracepoint."""
    ev = "event E level=4 keyword=0x1\n  u8 seq {:02x}\nend\n"
    text = ("case edge\nprovider EhconfRustEdge\nregister\nregister\n" + ev.format(1)
            + "register\n" + ev.format(2) + "unregister\n" + ev.format(3)
            + "register\n" + ev.format(4) + "unregister\nunregister\n")
    said, decoded, _ = _run_edge(emitter, standin, ehdecode, tmp_path, text)
    assert said[1] == said[2] == said[4] == ("written", ""), said
    assert said[3] == ("failed", "write returned EBADF (9)"), said  # an unregistered set
    assert [(e["n"], e["seq"]) for e in decoded] == [("EhconfRustEdge:E", 1),
                                                    ("EhconfRustEdge:E", 2),
                                                    ("EhconfRustEdge:E", 4)], decoded


def test_long_provider_name_panics_in_provider_new(emitter, standin, ehdecode, tmp_path):
    """Provider::new asserts name.len() + group_name.len() < 234 (provider.rs:57-58: the
    tracepoint name's 256 minus the longest "_L..K..G" suffix); the panic is caught and every
    event of that provider fails with it. A name of 233 bytes is taken."""
    ok, long = "P" * 233, "P" * 234
    text = (f"case edge\nprovider {ok}\nregister\nevent A level=4 keyword=0x1\nend\n"
            f"provider {long}\nregister\nevent B level=4 keyword=0x1\nend\n")
    said, decoded, _ = _run_edge(emitter, standin, ehdecode, tmp_path, text)
    assert said[1] == ("written", ""), said
    state, why = said[2]
    assert state == "failed" and why.startswith("Provider::new: panic: provider name.len() + "
                                                "group_name.len() must be less than 234"), why
    assert why.endswith(f" at {NAME_PANIC[0]}"), why
    assert [e["n"] for e in decoded] == [f"{ok}:A"]


def test_activity_ids_and_attributes_travel(emitter, standin, ehdecode, tmp_path):
    """One event with every header attribute and both activity ids, through write(); a
    related id without an activity id is skipped: write() would drop it
    (eventheader/src/_internal.rs:151 only debug_asserts)."""
    text = ("case edge\nprovider EhconfRustEdge group=g1\nregister\n"
            "event All level=2 keyword=0x85 opcode=1 tag=0xbeef id=7 version=2 activity="
            + "11" * 16 + " related=" + "22" * 16 + "\n  u16 x 2c01 tag=0x12\nend\n"
            "event Orphan level=4 keyword=0x1 related=" + "22" * 16 + "\nend\n")
    said, decoded, _ = _run_edge(emitter, standin, ehdecode, tmp_path, text)
    assert said[1] == ("written", "") and len(decoded) == 1, said
    assert said[2][0] == "skipped" and said[2][1].startswith("related-without-activity:"), said
    meta = decoded[0]["meta"]
    assert decoded[0]["n"] == "EhconfRustEdge:All" and decoded[0]["x;tag=0x12"] == 300
    assert (meta["id"], meta["version"], meta["level"], meta["keyword"], meta["opcode"],
            meta["tag"]) == (7, 2, 2, "0x85", 1, "0xBEEF"), meta
    assert meta["activity"] == "11111111-1111-1111-1111-111111111111"
    assert meta["relatedActivity"] == "22222222-2222-2222-2222-222222222222"


MALFORMED = {
    "no case line": ("provider P\n", 1),
    "unknown statement": ("case c\nprovider P\nregister\nfrobnicate\n", 4),
    "event without end": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u8 a 01\n",
                          5),
    "odd hex": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u8 a 012\nend\n", 5),
    "wrong size": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u32 a 01\nend\n",
                   5),
    "unknown type": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u7 a 01\nend\n",
                     5),
    "bad escape": ("case c\nprovider P%4\nregister\n", 2),
    "level too big": ("case c\nprovider P\nregister\nevent E level=256 keyword=0x1\nend\n", 4),
    "no keyword": ("case c\nprovider P\nregister\nevent E level=1\nend\n", 4),
    "end without block": ("case c\nprovider P\nend\n", 3),
    "element count": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                      " struct_slice s 2\n  element\n   u8 a 01\n  end\n end\nend\n", 9),
    "event before provider": ("case c\nevent E level=1 keyword=0x1\nend\n", 2),
    "register before provider": ("case c\nregister\n", 2),
    "NUL in a name": ("case c\nprovider P\nregister\nevent E%00 level=1 keyword=0x1\nend\n", 4),
    "parent outside fork": ("case c\nprovider P\nthreads\nthread\nparent\n", 5),
    "0 unit in a cstr16": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                           " cstr16 s 41000000\nend\n", 5),
    "array of strings": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                         " str8_slice s 41,42\nend\n", 5),
    "deep nesting": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                     + " struct s\n" * 100000, 1029),
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
