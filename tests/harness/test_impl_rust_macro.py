# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints-Rust's eventheader crate, through its macros (define_provider!,
write_event!), through ehconf's cases.

impl/rust-macro/build builds the emitter against the checkout named by IMPL_SRC_RUST
(Debian's cargo, offline, into a temporary folder). write_event! takes the schema at compile
time, so the emitter's build script impl/rust-macro/build.rs generates Rust source from every
impl/events/<case>.events (one define_provider! per provider, one write_event! per event
shape, the values as typed literals) and the cases are compiled in. Every description is
emitted under the user_events stand-in (impl/standin, LD_PRELOAD), the capture decoded by
`ehdecode --golden`, and each golden event judged by harness/golden.py's compare():

  reproduced   written, and decoded exactly as golden/<case>.json has it
  skipped      the generator found write_event! cannot express it (nothing written), with why
  different    write_event! returned an errno, panicked, or the event arrived otherwise

The results must be exactly SKIPS below (no difference is known), each skip with the line of
the checkout it comes from (test_cited_lines_are_in_the_checkout reads them back), and
impl/rust-macro/profile.txt (what `make check-impl` reads) must lack the same features.

The emitter runs only the descriptions it was built from: a description whose items (each
event block, each statement, hashed) differ from the compiled-in one is refused with one line
and exit 2; one with events left out (as the runner leaves out those a profile lacks) is
emitted with the file's numbering. And the crate's edge the steps depend on: Provider::register
on a registered provider panics (tracepoint/src/native.rs:475), leaving the provider unusable.

Without IMPL_SRC_RUST (or when it names no checkout of the crate), without the stand-in or
ehdecode, those tests are skipped with one line. The build script's refusal of a folder that
is not LinuxTracepoints-Rust is tested always (it needs no checkout).

Run: IMPL_SRC_RUST=/path/to/LinuxTracepoints-Rust /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_rust_macro.py
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import pytest

from cases import decode
from common import REPO_ROOT, display_path
from golden import compare
from impls import (Impl, description_path, parse_emitter_output, read_description,
                   read_profile, read_registry, without_events)
from runner import run
from transports import REFERENCE

VARIABLE = "IMPL_SRC_RUST"
NAME = "rust-macro"
BUILD = os.path.join(REPO_ROOT, "impl", NAME, "build")
EVENTS_DIR = os.path.join(REPO_ROOT, "impl", "events")
STANDIN = os.path.join("impl", "libuser_events_standin.so")
MARKER = os.path.join("eventheader", "Cargo.toml")
BUILD_TIMEOUT = 900.0  # cargo from scratch on 2 busy cores (about 20-30 s measured)
TIMEOUT = 120.0  # one case's emitter or decoder

# Lines of the checkout cited below: (file:line, text on that line). The numbers are those
# of the snapshot in ../shared/impls (the checkout rust-dynamic cites; it has no .git here).
CARRAY = ("eventheader_macros/src/event_generator.rs:407", "FieldEncoding::VArrayFlag")
LITERAL = ("eventheader_macros/src/parser.rs:112", "let lit_str = literal.to_string();")
FIELDS_254 = ("eventheader_macros/src/event_info.rs:353", "logical_fields_added == 254")
MEMBERS_127 = ("eventheader_macros/src/event_info.rs:349",
               "in_struct && logical_fields_added == STRUCT_FIELDS_MAX")
RELATED_DROPPED = ("eventheader/src/_internal.rs:151",
                   "None => debug_assert!(related_id.is_none())")
REGISTER_PANIC = ("tracepoint/src/native.rs:475", "assert!(")
PROVIDER_BUSY = ("eventheader/src/provider.rs:144",
                 'panic!("provider.register called simultaneously')
CITED = [CARRAY, LITERAL, FIELDS_254, MEMBERS_127, RELATED_DROPPED, REGISTER_PANIC,
         PROVIDER_BUSY]

# The golden events the generator skips: (case, ordinal) -> (the feature that begins the
# emitter's reason, the line responsible). No golden event is written differently.
_CARRAY_EVENTS = [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57,
                  60, 63, 66, 69, 72, 75, 78, 81, 111, 117, 124, 127, 131, 134, 137, 140, 141]
SKIPS: Dict[Tuple[str, int], Tuple[str, Tuple[str, str]]] = {
    **{("field_types", o): ("carray:", CARRAY) for o in _CARRAY_EVENTS},
    ("attributes", 35): ("name-non-utf8:", LITERAL),
    ("limits_127", 6): ("fields>254:", FIELDS_254),
}
DIFFERENCES: Dict[Tuple[str, int], str] = {}
# Features the profile lacks that no golden event needs (refusals of ehconf's own library).
LACKED_WITHOUT_GOLDEN = {"struct-members>127": MEMBERS_127,
                         "related-without-activity": RELATED_DROPPED}


@dataclass
class CaseResult:
    case: str
    events: int
    reproduced: List[int] = field(default_factory=list)
    skipped: Dict[int, str] = field(default_factory=dict)
    different: Dict[int, str] = field(default_factory=dict)  # ordinal (0: the case) -> what
    broken: str = ""


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


def _need(path: str, what: str) -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not there (make -j2 VARIANT=gcc all)")
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


def _emit(emit: str, path: str, standin: str, dat: str):
    if os.path.exists(dat):
        os.unlink(dat)
    env = {"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat, "EHCONF_CAPTURE": None,
           "EHCONF_CAPTURE_TL": None}
    return run([emit, path], TIMEOUT, env=env, merge_stderr=False)


def _golden(case: str) -> Tuple[List[str], List[str]]:
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8",
              errors="surrogateescape") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    # Only the order directive concerns the reference transport (as harness/run_impl.py).
    directives = [json.dumps({"ehconf": {"order": json.loads(ln)["ehconf"]["order"]}})
                  for ln in lines if ln.startswith('{"ehconf"') and '"order"' in ln]
    return directives, [ln for ln in lines if not ln.startswith('{"ehconf"')]


def judge_case(case: str, emit: str, standin: str, ehdecode: str, tmp: str) -> CaseResult:
    directives, golden = _golden(case)
    res = CaseResult(case, len(golden))
    path = description_path(case)
    if path is None or len(read_description(path).events) != len(golden):
        res.broken = f"impl/events/{case}.events is missing or does not match golden"
        return res
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
    for o, (state, why) in sorted(said.items()):
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
    if any('"unordered"' in ln for ln in directives) or len(decoded) != len(written):
        c = compare("\n".join(directives + [golden[o - 1] for o in written]),
                    "\n".join(decoded), case, REFERENCE)
        if c.ok:
            res.reproduced = written
        else:
            res.different[0] = c.message
        return res
    for o, line in zip(written, decoded):
        c = compare("\n".join(directives + [golden[o - 1]]), line, case, REFERENCE)
        if c.ok:
            res.reproduced.append(o)
        else:
            res.different[o] = c.message
    return res


@pytest.fixture(scope="module")
def results(emitter, standin, ehdecode, tmp_path_factory) -> Dict[str, CaseResult]:
    tmp = str(tmp_path_factory.mktemp(NAME + "-cases"))
    cases = sorted(f[:-len(".json")] for f in os.listdir(os.path.join(REPO_ROOT, "golden"))
                   if f.endswith(".json"))
    return {case: judge_case(case, emitter, standin, ehdecode, tmp) for case in cases}


def _short(text: str) -> str:
    return " | ".join(ln.strip() for ln in text.splitlines() if ln.strip())[:400]


# ---- the build script -----------------------------------------------------------------------

def test_build_usage():
    r = run([BUILD], 60, merge_stderr=False)
    assert r.returncode == 2 and r.stderr.startswith(f"usage: impl/{NAME}/build"), r.stderr


def test_build_refuses_a_folder_that_is_not_the_rust_repo(tmp_path):
    src = tmp_path / "not-rust"
    (src / "eventheader_dynamic").mkdir(parents=True)
    (src / "Cargo.toml").write_text("[workspace]\n")
    r = run([BUILD, str(src), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    assert r.stderr.splitlines() == [
        f"{NAME}: build: IMPL_SRC={src} is not microsoft/LinuxTracepoints-Rust (no "
        f"eventheader/Cargo.toml and eventheader_macros)"], r.stderr
    assert not (tmp_path / "out").exists(), "nothing is built for a wrong checkout"


def test_build_refuses_a_missing_folder(tmp_path):
    r = run([BUILD, str(tmp_path / "nowhere"), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"{NAME}: build: ") and "is not microsoft/LinuxTracepoints-Rust" \
        in r.stderr


def test_a_description_the_generator_cannot_take_fails_the_generate_stage(tmp_path):
    """A description the generator (build.rs) cannot parse: one line naming rust-macro, the
    stage `generate` and the log, exit 1; the log has `file:line: reason`."""
    src = _checkout()
    events = tmp_path / "events"
    events.mkdir()
    with open(os.path.join(EVENTS_DIR, "types.txt"), encoding="utf-8") as f:
        (events / "types.txt").write_text(f.read())
    (events / "bad.events").write_text("case bad\nprovider P\nregister\n"
                                       "event E level=4 keyword=0x1\n  u7 x 01\nend\n")
    out = tmp_path / "out"
    r = run([BUILD, os.path.abspath(src), str(out)], BUILD_TIMEOUT, merge_stderr=False,
            env={"EHCONF_EVENTS_DIR": str(events)})
    assert r.returncode == 1 and r.output == "", f"{r.how()}\n{r.output}"
    assert r.stderr.splitlines()[-1] == f"{NAME}: build: generate failed (log: {out}/cargo.log)"
    with open(out / "cargo.log", encoding="utf-8") as f:
        assert f"{out}/crate/events/bad.events:5: unknown type u7" in f.read()


# ---- the profile and the cited lines ----------------------------------------------------------

def test_cited_lines_are_in_the_checkout():
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


def test_profile_declares_the_same():
    """profile.txt (read by make check-impl) declares no difference, and lacks exactly the
    features of SKIPS plus those no golden event needs, each citing its line."""
    impl = next(i for i in read_registry() if i.name == NAME)
    assert isinstance(impl, Impl) and impl.checkout == "RUST" and impl.variable == VARIABLE
    profile = read_profile(impl)
    assert set(profile.differs) == set(DIFFERENCES), sorted(set(profile.differs))
    want = {prefix.rstrip(":"): where for prefix, (where, _) in SKIPS.values()}
    want.update({f: where for f, (where, _) in LACKED_WITHOUT_GOLDEN.items()})
    assert set(profile.lacks) == set(want), sorted(set(profile.lacks) ^ set(want))
    for feature, where in want.items():
        assert where in profile.lacks[feature], f"lacks {feature} does not cite {where}"


def test_skipped_events_need_the_feature_they_lack():
    """Each event of SKIPS has its feature in needs=, so make check-impl leaves out the same
    events, and no other golden event needs a lacked feature."""
    lacked = {prefix.rstrip(":") for prefix, _ in SKIPS.values()} | set(LACKED_WITHOUT_GOLDEN)
    problems = []
    for name in sorted(os.listdir(EVENTS_DIR)):
        if not name.endswith(".events"):
            continue
        case = name[:-len(".events")]
        for o, (_, _, needs) in enumerate(read_description(os.path.join(EVENTS_DIR, name))
                                          .events, 1):
            key = (case, o)
            if key in SKIPS and SKIPS[key][0].rstrip(":") not in needs:
                problems.append(f"{case} event {o}: needs={sorted(needs)}, no {SKIPS[key][0]}")
            elif key not in SKIPS and needs & lacked:
                problems.append(f"{case} event {o} needs {sorted(needs & lacked)}: not in SKIPS")
    assert not problems, "\n".join(problems)


# ---- the cases ------------------------------------------------------------------------------

def test_every_case_runs(results):
    broken = {c: r.broken for c, r in results.items() if r.broken}
    assert not broken, "\n".join(f"{c}: {why}" for c, why in broken.items())


def test_results_are_the_declared_ones(results, capsys):
    """Every golden event is reproduced, or skipped as SKIPS says; nothing differs."""
    with capsys.disabled():
        print(f"\n{NAME} (write_event!) per case: reproduced / skipped / different")
        for r in results.values():
            print(f"  {r.case}: {len(r.reproduced)} reproduced, {len(r.skipped)} skipped, "
                  f"{len(r.different)} different, of {r.events}")
    problems = []
    for c, r in results.items():
        if r.broken:
            continue
        if len(r.reproduced) + len(r.skipped) + len([o for o in r.different if o]) != r.events \
                and 0 not in r.different:
            problems.append(f"{c}: events unaccounted for")
        for o, what in sorted(r.different.items()):
            problems.append(f"{c} event {o or '(case)'} differs: {_short(what)}")
        for o, why in sorted(r.skipped.items()):
            if (c, o) not in SKIPS:
                problems.append(f"undeclared skip {c} event {o}: {why}")
            elif not why.startswith(SKIPS[(c, o)][0]) or SKIPS[(c, o)][1][0] not in why:
                problems.append(f"{c} event {o}: expected {SKIPS[(c, o)][0]} ... "
                                f"{SKIPS[(c, o)][1][0]}, got: {why}")
    seen = {(c, o) for c, r in results.items() for o in r.skipped}
    problems += [f"declared skip {c} event {o} not seen" for c, o in sorted(set(SKIPS) - seen)
                 if not results[c].broken]
    assert not problems, "\n".join(problems)


# ---- what the emitter takes -----------------------------------------------------------------

def _activity_text() -> str:
    with open(os.path.join(EVENTS_DIR, "activity.events"), encoding="utf-8") as f:
        return f.read()


def test_a_stale_description_is_refused(emitter, tmp_path):
    """A description whose text differs from the one compiled in (a value changed): one
    line `file:line: ...` naming the compiled-in case, exit 2, nothing written."""
    text = _activity_text()
    assert "  u32 step 02000000\n" in text
    path = tmp_path / "activity.events"
    path.write_text(text.replace("  u32 step 02000000\n", "  u32 step 09000000\n", 1))
    dat = tmp_path / "stale.dat"
    r = run([emitter, str(path)], TIMEOUT, merge_stderr=False,
            env={"EHCONF_STANDIN_CAPTURE": str(dat)})
    assert r.returncode == 2, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert r.output == "", r.output
    line = text.split("\n").index("  u32 step 02000000") - 1 + 1  # the event's first line
    assert r.stderr.splitlines() == [
        f"{path}:{line}: differs from impl/events/activity.events as compiled in (item "
        f"hashes): rebuild the emitter (impl/rust-macro/build)"], r.stderr
    assert not dat.exists()


@pytest.mark.parametrize("text,line", [
    ("provider P\n", 1),
    ("case nosuchcase\nprovider P\n", 1),
    ("case activity\nprovider EhconfActivity\nregister\nevent X level=1 keyword=0x1\n", 4),
], ids=["no case line", "case not compiled in", "event without end"])
def test_a_description_it_cannot_take(emitter, tmp_path, text, line):
    path = tmp_path / "bad.events"
    path.write_text(text)
    r = run([emitter, str(path)], TIMEOUT, merge_stderr=False)
    assert r.returncode == 2 and r.output == "", f"{r.how()}\n{r.output}\n{r.stderr}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: "), r.stderr


def test_left_out_events_are_numbered_as_the_file_has_them(emitter, standin, ehdecode,
                                                           tmp_path):
    """The runner's copy without some events (harness/impls.py without_events) is not
    stale: the others are written, numbered 1.. in the file, and decode as golden."""
    desc = read_description(os.path.join(EVENTS_DIR, "activity.events"))
    path = tmp_path / "activity.events"
    path.write_text(without_events(desc, {2, 5}))
    dat = str(tmp_path / "sub.dat")
    r = _emit(emitter, str(path), standin, dat)
    assert r.returncode == 0, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert parse_emitter_output(r.output) == {n: ("written", "") for n in range(1, 9)}
    directives, golden = _golden("activity")
    want = [g for o, g in enumerate(golden, 1) if o not in (2, 5)]
    d = decode(ehdecode, dat, TIMEOUT)
    assert d.ok, d.problem
    c = compare("\n".join(directives + want), d.text, "activity", REFERENCE)
    assert c.ok, c.message


def test_registering_a_registered_provider_panics(emitter, standin, ehdecode, tmp_path):
    """Provider::register on a registered provider panics (the assert of
    tracepoint/src/native.rs:475), leaving its tracepoint busy (its writes return EBADF) and
    the provider's busy flag set: unregister then does nothing and returns 0, and the next
    register panics too (eventheader/src/provider.rs:144). So the emitter never calls it
    twice (the descriptions never ask it to)."""
    dat = str(tmp_path / "twice.dat")
    if os.path.exists(dat):
        os.unlink(dat)
    r = run([emitter, "--register-twice"], TIMEOUT, merge_stderr=False,
            env={"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat})
    assert r.returncode == 0, r.how()
    assert r.output.splitlines() == [
        "register: returned 0",
        "write_event! seq 1: returned 0",
        "register again: panic: register of active tracepoint (already-registered or "
        f"being-unregistered) at {REGISTER_PANIC[0]}",
        "write_event! seq 2: returned 9",
        "unregister: returned 0",
        "write_event! seq 3: returned 9",
        "register after unregister: panic: provider.register called simultaneously with "
        f"another call to register or unregister. at {PROVIDER_BUSY[0]}",
    ], r.output
    d = decode(ehdecode, dat, TIMEOUT)
    assert d.ok, d.problem
    decoded = [json.loads(ln) for ln in d.text.split("\n") if ln.strip()]
    assert [(e["n"], e["seq"]) for e in decoded] == [("EhconfRustMacroTwice:Twice", 1)]
