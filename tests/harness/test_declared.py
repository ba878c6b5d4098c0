# SPDX-License-Identifier: GPL-2.0
"""harness/impl/declared.py: a declared difference lets through what it states and nothing else."""

import pytest

from harness.impl.declared import (DeclarationError, apply, expected_line, judge_event, judge_sequence,
                      op_text, parse_op, patch_of, perturbations, unflatten)
from harness.core.golden import _loads, canonical, flatten

GOLDEN = ('{ "n": "P:E", "level": 4, "fields": { "a": 1, "b": "x", "b": "y" }, '
          '"arr": [ 1, 2 ], "meta": { "tag": "0x1" } }')


def ops(*lines):
    return [parse_op(x) for x in lines]


def test_unflatten_inverts_flatten():
    for text in (GOLDEN, '{ "e": {}, "l": [], "n": [ { "a": [ [ 1 ] ] } ] }',
                 '{ "a~/#": 1, "a~/#": 2 }'):
        v = _loads(text)
        assert canonical(unflatten(flatten(v))) == canonical(v)


def test_an_event_written_as_declared_is_expected_failure():
    got = GOLDEN.replace('"level": 4', '"level": 5').replace(', "arr": [ 1, 2 ]', '')
    decl = ops('["set", "level", 5]', '["drop", "arr/[0]"]', '["drop", "arr/[1]"]')
    assert judge_event(GOLDEN, got, decl)[0] == "xfail"
    assert canonical(_loads(expected_line(GOLDEN, decl))) == canonical(_loads(got))


def test_the_golden_line_means_fixed():
    status, why = judge_event(GOLDEN, GOLDEN, ops('["set", "level", 5]'))
    assert status == "fail" and why.startswith("fixed:")


def test_anything_else_fails_and_prints_what_was_seen():
    decl = ops('["set", "level", 5]')
    for got in (GOLDEN.replace('"level": 4', '"level": 6'),  # the declared leaf otherwise
                GOLDEN.replace('"level": 4', '"level": 5').replace('"0x1"', '"0x2"'),  # more
                GOLDEN.replace('"level": 4', '"level": 5').replace('"a": 1, ', '')):
        status, why = judge_event(GOLDEN, got, decl)
        assert status == "fail" and "written otherwise than declared" in why, why
        # The message carries the patch of what was written, which fits that event.
        printed = [parse_op(x.strip()) for x in why.split("review before declaring it):\n")[1]
                   .splitlines()]
        assert judge_event(GOLDEN, got, printed)[0] == "xfail"


def test_added_leaves_keep_their_place():
    got = GOLDEN.replace('"a": 1, ', '"a": 1, "new": true, ')
    printed = patch_of(_loads(GOLDEN), _loads(got))
    assert [op_text(x) for x in printed] == ['["add", "fields/new", true, "fields/a"]']
    assert judge_event(GOLDEN, got, printed)[0] == "xfail"
    moved = GOLDEN.replace('"a": 1, ', '').replace('"b": "y" }', '"b": "y", "new": true, '
                                                              '"a": 1 }')
    assert judge_event(GOLDEN, moved, printed)[0] == "fail"


def test_moved_leaves_are_declared_whole():
    got = GOLDEN.replace('"n": "P:E", "level": 4', '"level": 4, "n": "P:E"')
    printed = patch_of(_loads(GOLDEN), _loads(got))
    assert printed[0][0] == "event" and len(printed) == 1
    assert judge_event(GOLDEN, got, printed)[0] == "xfail"
    assert judge_event(GOLDEN, got.replace('"0x1"', '"0x3"'), printed)[0] == "fail"


@pytest.mark.parametrize("bad, says", [
    ('["set", "nope", 1]', "no such leaf"),
    ('["set", "level", 4]', "golden value itself"),
    ('["drop", "fields/c"]', "no such leaf"),
    ('["add", "level", 1, null]', "already has"),
    ('["add", "z", 1, "nope"]', "no such leaf before it"),
])
def test_a_declaration_that_does_not_fit_fails(bad, says):
    with pytest.raises(DeclarationError, match=says):
        apply(_loads(GOLDEN), ops(bad))
    assert judge_event(GOLDEN, GOLDEN.replace("4", "7"), ops(bad))[0] == "fail"


@pytest.mark.parametrize("bad", ['{"set": 1}', '["move", "a"]', '["set", "a"]',
                                 '["set", 1, 2]', '["add", "a", 1, 2]', '["set", "a", [1]]',
                                 '["event", [1]]', 'not json'])
def test_a_malformed_operation_is_refused(bad):
    with pytest.raises(DeclarationError):
        parse_op(bad)


def test_perturbing_outside_the_declaration_fails():
    decl = ops('["set", "n", "P:F"]')
    got = expected_line(GOLDEN, decl)
    changes = perturbations(got, ["n"])
    assert [p for _, p in changes] == ["level", "fields/a", "fields/b", "fields/b#2", "arr/[0]",
                                       "arr/[1]", "meta/tag"]
    assert all(judge_event(GOLDEN, c, decl)[0] == "fail" for c, _ in changes)
    assert judge_event(GOLDEN, got, decl)[0] == "xfail"
    # An event whose every leaf is declared: the declared values are changed instead.
    assert [p for _, p in perturbations('{ "n": 1 }', ["n"])] == ["n"]


def test_a_declared_sequence():
    golden = ['{ "n": "a" }', '{ "n": "b" }']
    seen = ['{ "n": "a" }', '{ "n": "a" }', '{ "n": "b" }']
    text = "\n".join(seen)
    assert judge_sequence([], golden, seen, text, "c")[0] == "xfail"
    assert judge_sequence([], golden, golden, text, "c")[1].startswith("fixed:")
    status, why = judge_sequence([], golden, ['{ "n": "a" }', '{ "n": "b" }', '{ "n": "b" }'],
                                 text, "c")
    assert status == "fail" and "otherwise than the declared sequence" in why
    # The input's own order rule: an unordered input's sequence in another order passes,
    # an ordered one's does not.
    unordered = ['{"ehconf": {"order": "unordered", "why": "threads"}}']
    shuffled = seen[::-1]
    assert judge_sequence(unordered, golden, shuffled, text, "c")[0] == "xfail"
    assert judge_sequence([], golden, shuffled, text, "c")[0] == "fail"


def test_observed_patch_prints_the_declaration_a_run_shows(tmp_path, capsys):
    """harness/impl/observed_patch.py on a run's plan prints, for a declared event, the patch its
    decoded event is of the golden line: here the observation otel-metrics' profile states,
    given back as what was decoded."""
    import json
    from harness.impl import observed_patch
    from harness.impl.registry import read_profile, read_registry
    from harness.impl.run_impl import golden_parts
    impl = {i.name: i for i in read_registry()}["otel-metrics"]
    ops = read_profile(impl).observed[("counters", 5)]
    golden_path = "impl/otel-metrics/expected/counters.json"
    _, golden = golden_parts(golden_path)
    folder = tmp_path / "impl-otel-metrics"
    folder.mkdir()
    (folder / "plan.json").write_text(json.dumps({"implementation": "otel-metrics", "cases": {
        "counters": {"golden": golden_path, "kept": [1, 2, 3, 4, 5, 6],
                     "declared_unordered": [expected_line(golden[4], ops)]}}}))
    observed_patch.show(str(folder), ["counters"])
    printed = capsys.readouterr().out.split("differs counters 5 ...\n")[1].splitlines()
    assert [parse_op(x.strip()) for x in printed if x.startswith("    ")] == ops
