# SPDX-License-Identifier: GPL-2.0
"""The outcomes the format allows where a producer's input cannot be written as asked
(a golden file's `allows` directive): each allowed outcome passes, anything else does not."""

import pytest

from harness.impl import registry
from harness.impl import run_impl
from harness.core.golden import compare, parse_lines

GOLDEN = ['{ "n": "P:step", "a": 1 }', '{ "n": "P:wide", "meta": { "level": 4 } }']
ALLOWS = {1: {"why": "no ';' in a name", "refused": True},
          2: {"why": "16-bit tag", "or": [[["add", "meta/tag", "0x1", "meta/level"]]]}}
IMPL = registry.Impl("x", "rust", "crates", "up/x", "fam", "-", "ehdecode", "demo")


def judge(o, state, words="", allows=ALLOWS, profile=None):
    entry = run_impl._declared_event(IMPL, profile or registry.Profile(), "c", o, (state, words),
                                     {"declared": [], "failed": []}, None, None, [],
                                     allows.get(o))
    return entry["status"] if entry else None


def test_a_refusal_the_format_allows_passes():
    assert judge(1, "failed", "write returned EINVAL") == "pass"
    assert judge(1, "refused", "reported written, never arrived") == "pass"


def test_a_panic_is_never_the_refusal():
    assert judge(1, "failed", "panicked: struct_field_count must not be 0") == "fail"


def test_refusal_not_allowed_fails():
    assert judge(2, "failed", "write returned E2BIG") == "fail"
    assert judge(1, "failed", "x", allows={}) == "fail"


def test_an_allowed_form_replaces_the_golden_line_it_matches():
    mine = {}
    written = [1, 2]
    decoded = ['{ "n": "P:step", "a": 1 }', '{ "n": "P:wide", "meta": { "level": 4, "tag": "0x1" } }']
    got = run_impl._allowed_chosen(GOLDEN, ALLOWS, written, {1: 0, 2: 1}, decoded, False, mine)
    assert got[1] != GOLDEN[1] and compare("\n".join(got), "\n".join(decoded)).ok
    assert mine == {"allowed": {"2": got[1]}}
    # Anything else keeps the golden line, so the case fails on it.
    other = decoded[:1] + ['{ "n": "P:wide", "meta": { "level": 4, "tag": "0x2" } }']
    got = run_impl._allowed_chosen(GOLDEN, ALLOWS, written, {1: 0, 2: 1}, other, False, {})
    assert got == GOLDEN and not compare("\n".join(got), "\n".join(other)).ok


def test_unordered_inputs_take_the_allowed_form_only_in_place_of_the_golden_one():
    decoded = ['{ "n": "P:wide", "meta": { "level": 4, "tag": "0x1" } }', GOLDEN[0]]
    got = run_impl._allowed_chosen(GOLDEN, ALLOWS, [1, 2], {}, decoded, True, {})
    assert compare('{"ehconf": {"order": "unordered"}}\n' + "\n".join(got),
                   "\n".join(decoded)).ok
    both = decoded + [GOLDEN[1]]  # the golden line is there: it stays expected
    assert run_impl._allowed_chosen(GOLDEN, ALLOWS, [1, 2], {}, both, True, {}) == GOLDEN


@pytest.mark.parametrize("bad, says", [
    ('{"#x": {"why": "w", "refused": true}}', "name one event"),
    ('{"#1": {"refused": true}}', "non-empty \\\"why\\\""),
    ('{"#1": {"why": "w"}}', "allows nothing"),
    ('{"#1": {"why": "w", "refused": false}}', "can only be true"),
    ('{"#1": {"why": "w", "or": [[["move", "a"]]]}}', "expected"),
    ('{"#1": {"why": "w", "or": []}}', "non-empty list"),
    ('{"#1": {"why": "w", "maybe": 1}}', "takes"),
])
def test_a_malformed_allows_is_an_error(bad, says):
    d = parse_lines('{"ehconf": {"allows": ' + bad + '}}\n' + GOLDEN[0], "g", True)
    assert any(says.replace("\\", "") in e for e in d.errors), d.errors


def test_allows_given_twice_is_an_error():
    line = '{"ehconf": {"allows": {"#1": {"why": "w", "refused": true}}}}\n'
    assert any("given twice" in e for e in parse_lines(line * 2 + GOLDEN[0], "g", True).errors)


def test_the_golden_files_allows_parse(tmp_path):
    """Every allows directive of the producers' golden files is read into ordinals."""
    got = run_impl.allowed_outcomes("impl/otel-logs/expected/limits.json")
    assert sorted(got) == [2, 4] and got[2]["refused"] is True and len(got[2]["or"]) == 1

