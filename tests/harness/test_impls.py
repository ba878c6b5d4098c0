# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/impl/registry.py: the implementation registry, profiles, the block structure of
case descriptions and the emitter's per-event lines, which run_impl.py relies on to map
what an implementation wrote back to golden events."""

from __future__ import annotations

import json
import os

import pytest

from harness.core.common import REPO_ROOT

from harness.impl import registry
from harness.impl.registry import (parse_emitter_output, read_description, read_profile, read_registry,
                   without_events)

DESC = """case demo
needs threads
provider P
register
event A level=4 keyword=0x1
  u8 x 01
  struct s
    u8 y 02
  end
end
threads
  thread
    event B level=4 keyword=0x1 needs=fields>99
      struct_slice pts 1
        element
          i16 x 0100
        end
      end
    end
  end
end
fork
  event C level=5 keyword=0x2
  end
end
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_registry_rows_are_what_check_impl_runs():
    rows = read_registry()
    names = [r.name for r in rows]
    assert names[0] == "ehconf" and len(set(names)) == len(names)
    for r in rows:
        assert r.language in ("c", "c++", "rust"), r
        if r.checkout != "-":
            assert os.access(os.path.join(r.folder, "build"), os.X_OK), \
                f"impl/{r.name}/build is missing: a registry row needs its build script"
        assert r.parser in ("emit", "gen", "build.rs", "-"), r
        # the case descriptions need a parser; a family's inputs have their own files
        assert (r.inputs == "cases") == (r.parser != "-"), r
        if r.inputs != "cases":
            assert r.inputs == registry.OWN, r
            assert os.path.isdir(os.path.join(REPO_ROOT, "impl", r.name, "inputs")), r
            assert os.path.isdir(os.path.join(REPO_ROOT, "impl", r.name, "expected")), r


def test_registry_row_with_a_missing_column_is_an_error(tmp_path):
    with pytest.raises(ValueError, match=":2: a row needs"):
        read_registry(write(tmp_path, "r.txt", "# x\nname c -\n"))


def test_description_events_are_numbered_in_file_order_with_their_needs(tmp_path):
    d = read_description(write(tmp_path, "demo.events", DESC))
    assert d.problems == []
    assert len(d.events) == 3
    assert [n for _, _, n in d.events] == [{"threads"}, {"threads", "fields>99"}, {"threads"}]
    first, last, _ = d.events[1]
    assert d.lines[first].strip().startswith("event B") and d.lines[last].strip() == "end"


def test_leaving_out_an_event_keeps_every_block_balanced(tmp_path):
    d = read_description(write(tmp_path, "demo.events", DESC))
    text = without_events(d, {2})
    assert "event B" not in text and "event A" in text and "event C" in text
    again = read_description(write(tmp_path, "again.events", text))
    assert again.problems == [] and len(again.events) == 2


def test_unbalanced_descriptions_are_reported_with_the_line(tmp_path):
    d = read_description(write(tmp_path, "bad.events", "event A level=4 keyword=0x1\nend\nend\n"))
    assert any(":3: `end` without a block" in p for p in d.problems)
    d = read_description(write(tmp_path, "open.events", "event A level=4 keyword=0x1\n"))
    assert any("without `end`" in p for p in d.problems)


def test_emitter_lines_and_noise(tmp_path):
    got = parse_emitter_output("progress...\nevent 1 written\nevent 2 skipped no carray\n"
                               "event 3 failed EventBuilder::write returned ERANGE\n"
                               "emit: 1 written, 1 skipped, 1 failed\n")
    assert got == {1: ("written", ""), 2: ("skipped", "no carray"),
                   3: ("failed", "EventBuilder::write returned ERANGE")}


def test_profile_lacks_refuses_and_differs(tmp_path, monkeypatch):
    """Each declaration states what it lets through: a `differs` line its patch of the
    golden line (indented lines), a `refuses` line how the refusal shows, `differs ... all`
    its observed sequence file; a declaration without its observation is an error."""
    folder = tmp_path / "impl" / "x"
    (folder / "observed").mkdir(parents=True)
    (folder / "observed" / "spans.json").write_text('{ "n": "p:e" }\n')
    (folder / "profile.txt").write_text(
        "# comment\nlacks carray no constant-length arrays in this API\n"
        "refuses size_64k 12 65,535 bytes: ERANGE (source.h:42)\n"
        '    ["failed", "write returned 34"]\n'
        "differs size_64k 13 the tag is written big-endian (source.h:50)\n"
        '    ["set", "meta/tag", "0x3412"]\n'
        '\t["drop", "size"]\n'
        "differs spans all a start and a stop per enter (span.rs:7)\n")
    impl = registry.Impl("x", "c", "X", "up/x", "cases", "emit", "ehdecode", "demo")
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    p = read_profile(impl)
    assert p.lacks == {"carray": "no constant-length arrays in this API"}
    assert p.refuses == {("size_64k", 12): "65,535 bytes: ERANGE (source.h:42)"}
    assert p.refused_as == {("size_64k", 12): ["failed", "write returned 34"]}
    assert p.differs == {("size_64k", 13): "the tag is written big-endian (source.h:50)",
                         ("spans", 0): "a start and a stop per enter (span.rs:7)"}
    assert p.observed[("size_64k", 13)] == [["set", "meta/tag", "0x3412"], ["drop", "size"]]
    assert p.observed[("spans", 0)] == str(folder / "observed" / "spans.json")
    for bad, says in (("differs size_64k twelve why\n", "profile.txt:1"),
                      ("refuses size_64k all why\n", "profile.txt:1"),
                      ("differs size_64k 13 why\n", "states no observation"),
                      ("refuses size_64k 12 why\n", "states no observation"),
                      ("differs other all why\n", "no observed sequence"),
                      ('    ["drop", "size"]\n', "profile.txt:1: an indented line"),
                      ('differs size_64k 13 why\n    ["move", "size"]\n', "profile.txt:2"),
                      ('differs size_64k 13 why\n    ["set", "size"]\n', "profile.txt:2"),
                      ('differs spans all why\n    ["drop", "size"]\n', "profile.txt:2"),
                      ('refuses size_64k 12 why\n    ["lost", "x"]\n', "profile.txt:2")):
        (folder / "profile.txt").write_text(bad)
        with pytest.raises(ValueError, match=says):
            read_profile(impl)


def test_profile_contract_rows(tmp_path, monkeypatch):
    """`contract <row> <observation> | <reason>`: the observation is every word up to ` | `
    (spaces normalised), the reason the rest; without ` | ` the line is an error."""
    folder = tmp_path / "impl" / "x"
    folder.mkdir(parents=True)
    impl = registry.Impl("x", "c", "X", "up/x", "cases", "emit", "ehdecode", "demo")
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    (folder / "profile.txt").write_text(
        "contract size ok 0 sent  0 lost 34 lost | ERANGE at 65,535 (x.h:8)\n")
    assert read_profile(impl).contract == {"size": ("ok 0 sent 0 lost 34 lost",
                                                    "ERANGE at 65,535 (x.h:8)")}
    (folder / "profile.txt").write_text("contract size ok 0 sent no reason\n")
    with pytest.raises(ValueError, match="profile.txt:1"):
        read_profile(impl)


def test_profile_alters_is_undone_and_counted(tmp_path, monkeypatch):
    """`alters <label> <path>[,<path>] <regex> => <replacement> | <reason>`: at the named
    fields only, a value the regex matches whole is undone, and each field it changed is
    counted (a time in another format, undone, must leave the rest of the event to be
    judged); the same text elsewhere in the event stays; a bad regex is an error naming the
    line."""
    folder = tmp_path / "impl" / "x"
    folder.mkdir(parents=True)
    impl = registry.Impl("x", "rust", "crates", "up/x", "fam", "-", "ehdecode", "demo")
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    (folder / "profile.txt").write_text(
        'alters utc-offset PartA/time,PartB/startTime (.*)\\+00:00 => \\1Z | +00:00 '
        'for Z (exporter.rs:16)\n')
    p = read_profile(impl)
    assert list(p.alters) == ["utc-offset"]
    assert p.alters["utc-offset"].why == "+00:00 for Z (exporter.rs:16)"
    assert p.alters["utc-offset"].paths == ("PartA/time", "PartB/startTime")
    lines, seen = registry.undo_alters(p, [
        '{ "PartA": { "time": "2023-11-14T22:13:20+00:00" }, "PartB": { "startTime": '
        '"2023-11-14T22:13:19.5+00:00" }, "PartC": { "time": "1+00:00" } }',
        '{ "PartA": { "time": "2023-11-14T22:13:20Z" }, "x": "+00:00" }',
        'not json'])
    assert [json.loads(x) for x in lines[:2]] == [
        {"PartA": {"time": "2023-11-14T22:13:20Z"}, "PartB": {"startTime": "2023-11-14T22:13:19.5Z"},
         "PartC": {"time": "1+00:00"}},
        {"PartA": {"time": "2023-11-14T22:13:20Z"}, "x": "+00:00"}]
    assert lines[2] == "not json"
    assert seen == {"utc-offset": 2}
    (folder / "profile.txt").write_text("alters bad PartA/time ([a-z => x | why\n")
    with pytest.raises(ValueError, match="profile.txt:1: alters bad"):
        read_profile(impl)


def test_an_alteration_never_seen_fails(tmp_path):
    """The item of an `alters` declaration: xfail with the count when it was undone
    somewhere, fail when no decoded event showed it (fixed, or a new behaviour)."""
    import re
    from harness.impl.run_impl import alters_entries
    p = registry.Profile(alters={"utc-offset": registry.Alteration(
        ("PartA/time",), re.compile(r"\+00:00"), "Z", "why")})
    seen = alters_entries("impl/x", p, {"utc-offset": 3})
    assert [(e["id"], e["status"]) for e in seen] == [("impl/x/alters/utc-offset", "xfail")]
    assert "3 field(s) of the decoded events (PartA/time)" in seen[0]["message"]
    gone = alters_entries("impl-vm/x", p, {})
    assert gone[0]["status"] == "fail" and "not seen" in gone[0]["message"]
    assert "impl/x/profile.txt" in gone[0]["message"]


def test_profile_loses(tmp_path, monkeypatch):
    """`loses <input> <ordinal> <reason>`: reported written, expected never to arrive."""
    folder = tmp_path / "impl" / "x"
    folder.mkdir(parents=True)
    impl = registry.Impl("x", "rust", "crates", "up/x", "fam", "-", "ehdecode", "demo")
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    (folder / "profile.txt").write_text("loses limits 4 a poisoned mutex (p.rs:34)\n")
    assert read_profile(impl).loses == {("limits", 4): "a poisoned mutex (p.rs:34)"}
    (folder / "profile.txt").write_text("loses limits all why\n")
    with pytest.raises(ValueError, match="profile.txt:1"):
        read_profile(impl)


def test_unordered_input_with_declared_events(tmp_path):
    """An unordered input: each declared event must be one of the decoded events no
    undeclared golden event matches, written exactly as its patch says; a leftover written
    otherwise, one more difference anywhere, or the golden line itself fails."""
    from harness.impl.run_impl import _unordered_declared
    impl = registry.Impl("x", "rust", "crates", "up/x", "fam", "-", "ehdecode", "demo")
    p = registry.Profile(differs={("c", 2): "why (x.rs:1)"},
                      observed={("c", 2): [["set", "v", impls_num("-2")]]})
    golden = ['{ "n": "a", "v": 1 }', '{ "n": "b", "v": 2 }', '{ "n": "c", "v": 3 }']
    d = ['{"ehconf": {"order": "unordered", "why": "w"}}']

    def run(decoded):
        c = {"declared": []}
        mine = {}
        got = _unordered_declared(impl, p, "c", "impl/x/c", golden, [1, 2, 3], [2], decoded,
                                  d, c, mine, str(tmp_path))
        return {e["id"]: e.get("status", e["kind"]) for e in got}, mine
    got, mine = run(['{ "n": "c", "v": 3 }', '{ "n": "b", "v": -2 }', '{ "n": "a", "v": 1 }'])
    assert got == {"impl/x/c/2": "xfail", "impl/x/c": "golden"}
    assert mine["declared_unordered"] == ['{ "n": "b", "v": -2 }']
    with open(tmp_path / "c.json") as f:
        assert sorted(f.read().split("\n")[:2]) == ['{ "n": "a", "v": 1 }', '{ "n": "c", "v": 3 }']
    got, _ = run(['{ "n": "c", "v": 4 }', '{ "n": "b", "v": -2 }', '{ "n": "a", "v": 1 }'])
    assert got["impl/x/c/2"] == "xfail" and got["impl/x/c"] == "golden"  # c's item fails
    got, _ = run(['{ "n": "c", "v": 3 }', '{ "n": "b", "v": 2 }', '{ "n": "a", "v": 1 }'])
    assert got["impl/x/c/2"] == "fail"  # the declared difference is gone
    got, _ = run(['{ "n": "c", "v": 3 }', '{ "n": "b", "v": -3 }', '{ "n": "a", "v": 1 }'])
    assert got["impl/x/c/2"] == "fail"  # different, but not as declared
    got, _ = run(['{ "n": "c", "v": 3 }', '{ "n": "b", "v": -2, "w": 0 }',
                  '{ "n": "a", "v": 1 }'])
    assert got["impl/x/c/2"] == "fail"  # the declared change and one more


def impls_num(text):
    from harness.core.golden import Num
    return Num(text)


def test_the_runs_table_names_the_source_really_built(monkeypatch, tmp_path):
    """A crate-registry producer built from a patched source names that source, not the
    published crate."""
    from harness.impl.run_impl import built_from
    row = registry.Impl("p", "rust", "crates", "up/p", "own", "-", "ehdecode", "demo", "p-crate@1.2.3")
    monkeypatch.delenv("IMPL_SRC_crates", raising=False)
    assert built_from(row) == "the Rust crate registry: p-crate@1.2.3 (impl/p/Cargo.lock)"
    monkeypatch.setenv("IMPL_SRC_crates", str(tmp_path))
    assert built_from(row) == str(tmp_path)
