# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints-Rust's eventheader crate through its macros (define_provider!,
write_event!; impl/rust-macro/): what is its own. The build script's bad input, the
judgement of every case against golden/ and the generator's refusal of malformed
descriptions are test_impl_emitters.py's, for every implementation.

write_event! takes the schema at compile time, so the crate's build script
impl/rust-macro/build.rs generates Rust source from every descriptions/<case>.events and the
cases are compiled in. Here: a description the generator cannot take fails the build's
`generate` stage; the emitter refuses a description other than the one compiled in (its
items hashed), yet takes the runner's copy without the lacked events, numbered as the file
has them; the lines of the checkout profile.txt cites; the events the profile lacks are those
the generator finds write_event! cannot express; and Provider::register on a registered
provider panics. Without IMPL_SRC_RUST these skip with one line.

Run: IMPL_SRC_RUST=/path/to/LinuxTracepoints-Rust /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_rust_macro.py
"""

from __future__ import annotations

import json
import os

import pytest

from harness.core.ehdecode import decode

from harness.core.golden import golden_problem
from harness.core.common import REPO_ROOT
from impl_emitters import (BUILD_TIMEOUT, EVENTS_DIR, TIMEOUT, TYPES_TXT, build_script, by_name,
                           checkout, cited_line_problems, emit, judged, lacked_skip_problems)
from harness.impl.registry import parse_emitter_output, read_description, read_profile, without_events
from harness.core.processes import run
from harness.core.transports import REFERENCE

NAME = "rust-macro"
# Lines of the checkout cited below: (file:line, text on that line). The numbers are those
# of microsoft/LinuxTracepoints-Rust at bb466c10 (2025-12-03), as rust-dynamic's, checked in
# the checkout IMPL_SRC_RUST names.
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
# feature profile.txt lacks -> the line its reason cites. The last two no golden event
# needs (ehconf's own library refuses them).
LACKS_CITE = {"carray": CARRAY, "name-non-utf8": LITERAL, "fields>254": FIELDS_254,
              "struct-members>127": MEMBERS_127, "related-without-activity": RELATED_DROPPED}
# The generator's reason for an event write_event! cannot express: the feature, then the
# line responsible.
SKIP_REASONS = {f: (f + ":", LACKS_CITE[f][0]) for f in ("carray", "name-non-utf8", "fields>254")}


@pytest.fixture(scope="module")
def rust_macro(pytestconfig, tmp_path_factory):
    return judged(by_name(NAME), pytestconfig, tmp_path_factory)


# ---- the generator --------------------------------------------------------------------------

def test_a_description_the_generator_cannot_take_fails_the_generate_stage(tmp_path):
    """A description the generator (build.rs) cannot parse: one line naming rust-macro, the
    stage `generate` and the log, exit 1; the log has `file:line: reason`."""
    impl = by_name(NAME)
    src = checkout(impl)
    events = tmp_path / "events"
    events.mkdir()
    with open(TYPES_TXT, encoding="utf-8") as f:
        (events / "types.txt").write_text(f.read())
    (events / "bad.events").write_text("case bad\nprovider P\nregister\n"
                                       "event E level=4 keyword=0x1\n  u7 x 01\nend\n")
    out = tmp_path / "out"
    r = run([build_script(impl), os.path.abspath(src), str(out)], BUILD_TIMEOUT,
            merge_stderr=False, env={"EHCONF_EVENTS_DIR": str(events)})
    assert r.returncode == 1 and r.output == "", f"{r.how()}\n{r.output}"
    assert r.stderr.splitlines()[-1] == f"{NAME}: build: generate failed (log: {out}/cargo.log)"
    with open(out / "cargo.log", encoding="utf-8") as f:
        want = "bad.events:5: type 'u7': unknown field type (descriptions/types.txt lists them)"
        assert f"{out}/crate/events/{want}" in f.read()


# ---- the profile and the cited lines ----------------------------------------------------------

def test_cited_lines_are_in_the_checkout(rust_macro):
    problems = cited_line_problems(rust_macro.src, CITED)
    assert not problems, "\n".join(problems)


def test_profile_lacks_what_it_cites_and_declares_no_difference():
    profile = read_profile(by_name(NAME))
    assert not profile.differs, sorted(profile.differs)
    assert set(profile.lacks) == set(LACKS_CITE), sorted(set(profile.lacks) ^ set(LACKS_CITE))
    problems = [f"lacks {f} does not cite {where}" for f, (where, _) in LACKS_CITE.items()
                if where not in profile.lacks[f]]
    assert not problems, "\n".join(problems)


def test_lacked_events_are_those_write_event_cannot_express(rust_macro, tmp_path):
    problems = lacked_skip_problems(rust_macro, tmp_path, SKIP_REASONS)
    assert not problems, "\n".join(problems)


# ---- what the emitter takes -----------------------------------------------------------------

def _activity_text() -> str:
    with open(os.path.join(EVENTS_DIR, "activity.events"), encoding="utf-8") as f:
        return f.read()


def test_a_stale_description_is_refused(rust_macro, tmp_path):
    """A description whose text differs from the one compiled in (a value changed): one
    line `file:line: ...` naming the compiled-in case, exit 2, nothing written."""
    text = _activity_text()
    assert "  u32 step 02000000\n" in text
    path = tmp_path / "activity.events"
    path.write_text(text.replace("  u32 step 02000000\n", "  u32 step 09000000\n", 1))
    dat = tmp_path / "stale.dat"
    r = emit(rust_macro, str(path), str(dat))
    assert r.returncode == 2, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert r.output == "", r.output
    line = text.split("\n").index("  u32 step 02000000")  # the event's first line, from 1
    assert r.stderr.splitlines() == [
        f"{path}:{line}: differs from descriptions/activity.events as compiled in (item "
        f"hashes): rebuild the emitter (impl/rust-macro/build)"], r.stderr
    assert not dat.exists()


@pytest.mark.parametrize("text,line", [
    ("provider P\n", 1),
    ("case nosuchcase\nprovider P\n", 1),
    ("case activity\nprovider EhconfActivity\nregister\nevent X level=1 keyword=0x1\n", 4),
], ids=["no case line", "case not compiled in", "event without end"])
def test_a_description_it_cannot_take(rust_macro, tmp_path, text, line):
    path = tmp_path / "bad.events"
    path.write_text(text)
    r = emit(rust_macro, str(path), str(tmp_path / "bad.dat"))
    assert r.returncode == 2 and r.output == "", f"{r.how()}\n{r.output}\n{r.stderr}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: "), r.stderr


def test_left_out_events_are_numbered_as_the_file_has_them(rust_macro, tmp_path):
    """The runner's copy without some events (harness/impl/registry.py without_events) is not
    stale: the others are written, numbered 1.. in the file, and decode as golden."""
    desc = read_description(os.path.join(EVENTS_DIR, "activity.events"))
    path = tmp_path / "activity.events"
    path.write_text(without_events(desc, {2, 5}))
    dat = str(tmp_path / "sub.dat")
    r = emit(rust_macro, str(path), dat)
    assert r.returncode == 0, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert parse_emitter_output(r.output) == {n: ("written", "") for n in range(1, 9)}
    with open(os.path.join(REPO_ROOT, "golden", "activity.json"), encoding="utf-8") as f:
        golden = [ln for ln in f.read().split("\n") if ln.strip()]
    assert not any(ln.startswith('{"ehconf"') for ln in golden)  # events only: no directive
    expected = tmp_path / "expected.json"
    expected.write_text("\n".join(g for o, g in enumerate(golden, 1) if o not in (2, 5)) + "\n")
    d = decode(rust_macro.ehdecode, dat, TIMEOUT)
    assert d.ok, d.problem
    problem = golden_problem(d.text, str(expected), "activity", REFERENCE, dat)
    assert not problem, problem


def test_registering_a_registered_provider_panics(rust_macro, tmp_path):
    """Provider::register on a registered provider panics (the assert of
    tracepoint/src/native.rs:475), leaving its tracepoint busy (its writes return EBADF) and
    the provider's busy flag set: unregister then does nothing and returns 0, and the next
    register panics too (eventheader/src/provider.rs:144). So the emitter never calls it
    twice (the descriptions never ask it to)."""
    dat = str(tmp_path / "twice.dat")
    r = emit(rust_macro, "--register-twice", dat)
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
    d = decode(rust_macro.ehdecode, dat, TIMEOUT)
    assert d.ok, d.problem
    decoded = [json.loads(ln) for ln in d.text.split("\n") if ln.strip()]
    assert [(e["n"], e["seq"]) for e in decoded] == [("EhconfRustMacroTwice:Twice", 1)]
