# SPDX-License-Identifier: GPL-2.0
"""harness/core/provenance.py: every expected event says where it comes from, and the reader
refuses every kind of bad provenance line.

  * every family of the registry (the cases and each producer's) has its provenance file,
    and every event of every golden file has exactly one line of its own;
  * a malformed line, an unknown kind, an input without golden file, an event the golden
    file does not have, a backwards range, two lines for one event, an event with no line,
    a misused `*` line, an empty text after `|`: each is an error naming the file and line;
  * an event's provenance is the weakest of its own line and the `*` lines;
  * the decoders' line counts the cases' events per document.
"""

from __future__ import annotations

import os

import pytest

from harness.core.common import REPO_ROOT
from harness.core.provenance import (CASES, KINDS, ProvenanceError, decoder_basis, families,
                        family_inputs, parse, read_family)

INPUTS = {"alpha": 3, "beta": 1}
GOOD = """# a comment
* all source src/x.rs:1 | the member order
alpha 1 doc README.md:3 | the first event
alpha 2-3 test src/lib.rs:10 (a_test)
beta all current src/y.rs:7 | what it does today
"""


def problems(text: str, inputs=INPUTS):
    with pytest.raises(ProvenanceError) as e:
        parse(text, "p.txt", inputs)
    return e.value.problems


def test_every_event_of_every_family_has_exactly_one_provenance():
    fams = families()
    assert CASES in fams and "tracing-etw" in fams and "otel-metrics" in fams, fams
    for fam in fams:
        f = read_family(fam)  # raises on any missing, extra or overlapping line
        inputs = family_inputs(fam)
        assert inputs, fam
        want = {(i, n) for i, total in inputs.items() for n in range(1, total + 1)}
        assert set(f.events) == want, fam
        assert sum(f.counts().values()) == len(want), fam
        assert all(f.kind_of(i, n) in KINDS for i, n in want)


def test_a_good_file_and_the_weakest_part():
    f = parse(GOOD, "p.txt", INPUTS)
    assert f.events[("alpha", 1)].kind == "doc"
    # its own line is documented, the shared part is source only: source
    assert f.kind_of("alpha", 1) == "source"
    assert f.kind_of("beta", 1) == "current"
    assert f.counts() == {"doc": 0, "test": 0, "source": 3, "current": 1}
    assert f.counts(own_only=True) == {"doc": 1, "test": 2, "source": 0, "current": 1}
    without_common = parse("\n".join(GOOD.splitlines()[2:]), "p.txt", INPUTS)
    assert without_common.kind_of("alpha", 2) == "test"


@pytest.mark.parametrize("bad, expect", [
    ("alpha 1 doc", "p.txt:1: expected `<input> <n|a-b|all> <kind> <where>"),
    ("alpha 1 maybe README.md:1", "p.txt:1: unknown kind 'maybe'"),
    ("gamma 1 doc README.md:1", "p.txt:1: 'gamma' has no golden file"),
    ("alpha 4 doc README.md:1", "p.txt:1: alpha event 4: the golden file has 3 events"),
    ("alpha 2-5 doc README.md:1", "p.txt:1: alpha event 5: the golden file has 3 events"),
    ("alpha 3-2 doc README.md:1", "p.txt:1: '3-2': events count from 1"),
    ("alpha 0 doc README.md:1", "p.txt:1: '0': events count from 1"),
    ("alpha one doc README.md:1", "p.txt:1: 'one' is not an event number"),
    ("alpha 1 doc README.md:1 | ", "p.txt:1: nothing after `|`"),
    ("* 1 doc README.md:1 | x", "p.txt:1: a `*` line is `* all <kind>"),
    ("* all doc README.md:1", "p.txt:1: a `*` line is `* all <kind>"),
])
def test_each_bad_line_is_an_error_naming_file_and_line(bad, expect):
    got = problems(bad + "\nalpha all doc README.md:1\nbeta 1 doc README.md:2\n")
    assert any(p.startswith(expect) for p in got), got


def test_two_lines_for_one_event_is_an_error_naming_both():
    got = problems("alpha 1-2 doc a.md:1\nbeta 1 doc a.md:2\nalpha 2-3 test t.rs:1\n")
    assert got == ["p.txt:3: alpha event 2 already has a provenance (line 1)"], got


def test_an_event_without_a_line_is_an_error_naming_file_and_events():
    got = problems("alpha 2 doc a.md:1\n")
    assert got == ["p.txt: alpha events 1, 3: no provenance line",
                   "p.txt: beta event 1: no provenance line"], got


def test_a_family_without_provenance_file_is_an_error(tmp_path):
    os.makedirs(tmp_path / "impl" / "fam" / "expected")
    os.makedirs(tmp_path / "impl" / "fam" / "inputs")
    (tmp_path / "impl" / "fam" / "expected" / "x.json").write_text('{ "n": "P:A", "meta": { } }\n')
    with pytest.raises(ProvenanceError) as e:
        read_family("fam", str(tmp_path))
    assert e.value.problems[0].startswith("impl/fam/inputs/provenance.txt: cannot read"), e.value
    (tmp_path / "impl" / "fam" / "inputs" / "provenance.txt").write_text("x 1 doc a.md:1\n")
    assert read_family("fam", str(tmp_path)).counts()["doc"] == 1


def test_directive_lines_are_not_events(tmp_path):
    os.makedirs(tmp_path / "impl" / "fam" / "expected")
    (tmp_path / "impl" / "fam" / "expected" / "x.json").write_text(
        '{"ehconf": {"order": "unordered"}}\n{ "n": "P:A" }\n{ "n": "P:B" }\n')
    assert family_inputs("fam", str(tmp_path)) == {"x": 2}


def test_the_decoders_line_counts_the_cases_per_document():
    line = decoder_basis()
    total = sum(family_inputs(CASES).values())
    cases = len(family_inputs(CASES))
    assert f"the {total} golden events of the {cases} cases are {total} documented" in line, line
    assert "Documentation/eventheader-wire.md" in line and "Documentation/decoder-json.md" in line
    assert os.path.exists(os.path.join(REPO_ROOT, "descriptions", "provenance.txt"))
