# SPDX-License-Identifier: GPL-2.0
"""Unit tests of harness/core/golden.py: the comparison must FAIL whenever the data differ.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_golden.py
"""

from harness.core.golden import compare, expected_events, flatten, parse_lines, sorted_for_golden, Obj
from harness.core.common import REPO_ROOT

E1 = '{ "n": "P:A", "x": 1, "s": "hi", "st": { "a": [ 1, 2 ], "b": { } }, "meta": { "level": 5 } }'
E2 = '{ "n": "P:B", "y": -7, "meta": { "level": 4, "keyword": "0x1" } }'
E3 = '{ "n": "P:C", "f": 1, "f": 2, "meta": { } }'
GOLDEN = "\n".join([E1, E2, E3]) + "\n"


def lines(*evs):
    return "\n".join(evs) + "\n"


def test_identical_passes():
    r = compare(GOLDEN, GOLDEN, "c")
    assert r.ok, r.message


def test_whitespace_form_does_not_matter_but_values_do():
    compact = E1.replace(" ", "").replace('"hi"', '"hi"')
    assert compare(lines(E1), lines(compact), "c").ok


def test_changed_value_fails_and_names_the_path():
    changed = E1.replace('"a": [ 1, 2 ]', '"a": [ 1, 3 ]')
    r = compare(GOLDEN, lines(changed, E2, E3), "c")
    assert not r.ok
    assert "event #0" in r.message and "n=P:A" in r.message
    assert "changed  st/a/[1]: 2 -> 3" in r.message
    assert "x:" not in r.message  # only the differing field is listed


def test_number_forms_are_distinct():
    for other in ('"x": 1.0', '"x": true', '"x": "1"', '"x": 01e0'):
        changed = E1.replace('"x": 1', other)
        try:
            r = compare(lines(E1), lines(changed), "c")
        except ValueError:
            continue
        assert not r.ok, other


def test_missing_event_fails():
    r = compare(GOLDEN, lines(E1, E3), "c")
    assert not r.ok
    assert "1 missing" in r.message and "MISSING event #1" in r.message and "n=P:B" in r.message


def test_extra_event_fails():
    r = compare(GOLDEN, lines(E1, E2, E2, E3), "c")
    assert not r.ok
    assert "1 extra" in r.message and "EXTRA capture event" in r.message


def test_empty_capture_fails():
    for empty in ("", "\n\n"):
        r = compare(GOLDEN, empty, "c")
        assert not r.ok and "no events" in r.message


def test_empty_golden_fails():
    assert not compare("", GOLDEN, "c").ok
    assert not compare('{"ehconf": {"order": "unordered"}}\n', GOLDEN, "c").ok


def test_unparsable_line_fails():
    assert not compare(GOLDEN, GOLDEN + "{not json\n", "c").ok
    assert not compare(GOLDEN + "]\n", GOLDEN, "c").ok


def test_duplicate_names_are_kept():
    fl = flatten(parse_lines(E3, "t", False).events[0].value)
    assert ("f", "1") in fl and ("f#2", "2") in fl
    dropped_dup = E3.replace('"f": 1, "f": 2', '"f": 2')
    assert not compare(lines(E3), lines(dropped_dup), "c").ok
    swapped = E3.replace('"f": 1, "f": 2', '"f": 2, "f": 1')
    assert not compare(lines(E3), lines(swapped), "c").ok


def test_member_order_matters():
    reordered = '{ "n": "P:B", "meta": { "level": 4, "keyword": "0x1" }, "y": -7 }'
    r = compare(lines(E2), lines(reordered), "c")
    assert not r.ok and "member order differs" in r.message


def test_event_order_matters_unless_unordered():
    shuffled = lines(E3, E1, E2)
    assert not compare(GOLDEN, shuffled, "c").ok
    un = '{"ehconf": {"order": "unordered", "why": "threads"}}\n' + GOLDEN
    assert compare(un, shuffled, "c").ok


def test_unordered_still_counts_every_event():
    un = '{"ehconf": {"order": "unordered"}}\n' + GOLDEN
    assert not compare(un, lines(E1, E2, E3, E1), "c").ok  # duplicate
    assert not compare(un, lines(E1, E3), "c").ok  # missing
    changed = E2.replace("-7", "-8")
    r = compare(un, lines(E3, changed, E1), "c")
    assert not r.ok and "changed  y: -7 -> -8" in r.message


def test_unknown_directive_is_an_error():
    assert not compare('{"ehconf": {"odrer": "unordered"}}\n' + GOLDEN, GOLDEN, "c").ok
    assert not compare('{"ehconf": {"order": "any"}}\n' + GOLDEN, GOLDEN, "c").ok
    assert not compare(GOLDEN + '{"ehconf": {"order": "unordered"}}\n', GOLDEN, "c").ok


def test_capture_cannot_carry_directives():
    un = '{"ehconf": {"order": "unordered"}}\n'
    assert not compare(GOLDEN, un + GOLDEN, "c").ok


SIZED = [f'{{ "n": "P:S", "size": {s}, "meta": {{ }} }}' for s in (16, 8184, 8185, 65535)]


def test_perf_hook_drops_only_declared_sizes():
    g = '{"ehconf": {"perf_max_payload": 8184, "why": "perf buffer"}}\n' + lines(*SIZED)
    keep, drop = expected_events(parse_lines(g, "g", True), "perf")
    assert [e.field("size") for e in keep] == ["16", "8184"]
    assert [e.field("size") for e in drop] == ["8185", "65535"]
    # offline: nothing is dropped, every event must be there
    assert compare(g, lines(*SIZED), "c").ok
    assert not compare(g, lines(*SIZED[:2]), "c").ok
    # perf: the big ones must be absent, the small ones present
    assert compare(g, lines(*SIZED[:2]), "c", transport="perf").ok
    assert not compare(g, lines(*SIZED), "c", transport="perf").ok
    assert not compare(g, lines(SIZED[0]), "c", transport="perf").ok


def test_long_string_change_is_shown_at_the_difference():
    a = '{ "n": "P:L", "b": "%s" }' % ("ab " * 100)
    b = a[:200] + "X" + a[201:]
    r = compare(lines(a), lines(b), "c")
    assert not r.ok and "differs at character" in r.message


def test_sorted_for_golden_keeps_directives_and_sorts_unordered():
    old = '{"ehconf": {"order": "unordered"}}\n' + GOLDEN
    out = sorted_for_golden(lines(E3, E1, E2), old).splitlines()
    assert out[0] == '{"ehconf": {"order": "unordered"}}'
    assert out[1:] == sorted([E1, E2, E3])
    assert sorted_for_golden(lines(E3, E1), GOLDEN).splitlines() == [E3, E1]


def test_obj_keeps_pairs():
    v = parse_lines(E3, "t", False).events[0].value
    assert isinstance(v, Obj) and [k for k, _ in v] == ["n", "f", "f", "meta"]


# Declared transport differences. Worked out by hand: EN is the golden event, EN_ETW the
# same event as ETW delivers it (errno 2 loses its name "ENOENT"; the array element too).
EN = '{ "n": "P:E", "e": "ENOENT(2)", "a": [ "ENOENT(2)", "ERRNO(0)" ], "k": 5 }'
EN_ETW = '{ "n": "P:E", "e": 2, "a": [ 2, "ERRNO(0)" ], "k": 5 }'
DECL = ('{"ehconf": {"etw": {"P:E": {"why": "errno-lost: no errno type", '
        '"fields": {"e": 2, "a/[0]": 2}}}}}\n')


def test_declared_difference_passes_only_for_its_transport():
    g = DECL + lines(E1, EN, E2)
    r = compare(g, lines(E1, EN_ETW, E2), "c", transport="etw")
    assert r.ok, r.message
    assert "1 with declared etw differences" in r.message
    for other in ("offline", "perf", "ftrace"):
        r = compare(g, lines(E1, EN_ETW, E2), "c", transport=other)
        assert not r.ok and "changed  e: \"ENOENT(2)\" -> 2" in r.message, other
        assert compare(g, lines(E1, EN, E2), "c", transport=other).ok, other
    # under etw the golden value itself is now wrong: the declared value must be there
    assert not compare(g, lines(E1, EN, E2), "c", transport="etw").ok


def test_declared_difference_allows_only_the_declared_value_and_fields():
    g = DECL + lines(E1, EN)
    wrong_value = EN_ETW.replace('"e": 2', '"e": 3')
    r = compare(g, lines(E1, wrong_value), "c", transport="etw")
    assert not r.ok and "changed  e: 2 -> 3" in r.message
    undeclared_field = EN_ETW.replace('"ERRNO(0)"', '0')  # a/[1] was not declared
    r = compare(g, lines(E1, undeclared_field), "c", transport="etw")
    assert not r.ok and "a/[1]" in r.message
    other_field = EN_ETW.replace('"k": 5', '"k": 6')
    assert not compare(g, lines(E1, other_field), "c", transport="etw").ok


def test_declared_difference_does_not_cover_other_events():
    # E1 has no declaration: the same kind of change there fails under etw
    g = DECL + lines(E1, EN)
    e1_changed = E1.replace('"x": 1', '"x": 2')
    r = compare(g, lines(e1_changed, EN_ETW), "c", transport="etw")
    assert not r.ok and "n=P:A" in r.message and "changed  x: 1 -> 2" in r.message
    # a declaration for P:E whose path another event also has changes nothing there
    g2 = ('{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {"x": 9, "e": 2}}}}}\n'
          + lines(E1, EN))
    assert not compare(g2, lines(E1, EN_ETW), "c", transport="etw").ok  # P:E has no x


DROP = '{"ehconf": {"etw": {"P:E": {"why": "size-limit: over 64 KB", "dropped": true}}}}\n'


def test_declared_drop_removes_only_that_event_on_that_transport():
    g = DROP + lines(E1, EN, E2)
    r = compare(g, lines(E1, E2), "c", transport="etw")
    assert r.ok and "+1 declared dropped by etw" in r.message, r.message
    # delivered anyway: an extra event under etw
    r = compare(g, lines(E1, EN, E2), "c", transport="etw")
    assert not r.ok and "EXTRA" in r.message, r.message
    # other events are still required
    assert not compare(g, lines(E1), "c", transport="etw").ok
    # other transports still need it
    for other in ("offline", "perf", "ftrace"):
        assert compare(g, lines(E1, EN, E2), "c", transport=other).ok, other
        assert not compare(g, lines(E1, E2), "c", transport=other).ok, other


def test_a_declaration_by_position_names_one_event_of_a_shared_n():
    """"#k": the file's k-th event only, where the events share one "n" (a producer's log
    records): the others stay required on that transport; a position past the end is an
    error."""
    same = [E1, E1.replace('"x": 1', '"x": 5'), E1.replace('"x": 1', '"x": 6')]
    assert len(set(same)) == 3
    g = '{"ehconf": {"perf": {"#2": {"why": "size-limit: 8 KB", "dropped": true}}}}\n' + lines(*same)
    r = compare(g, lines(same[0], same[2]), "c", transport="perf")
    assert r.ok and "+1 declared dropped by perf" in r.message, r.message
    assert not compare(g, lines(same[0], same[1]), "c", transport="perf").ok
    assert compare(g, lines(*same), "c", transport="offline").ok
    past = '{"ehconf": {"perf": {"#4": {"why": "w", "dropped": true}}}}\n' + lines(*same)
    assert not compare(past, lines(*same), "c", transport="offline").ok


def test_bad_declarations_are_errors():
    bad = [
        '{"ehconf": {"etw": {"P:E": {"fields": {"e": 2}}}}}',  # no why
        '{"ehconf": {"etw": {"P:E": {"why": "", "fields": {"e": 2}}}}}',  # empty why
        '{"ehconf": {"etw": {"P:E": {"why": "w"}}}}',  # no fields
        '{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {}}}}}',
        '{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {"e": 2}, "fiels": 1}}}}',
        '{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {"e": 2, "e": 3}}}}}',
        '{"ehconf": {"etw": {"P:Z": {"why": "w", "fields": {"e": 2}}}}}',  # no such event
        '{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {"zz": 2}}}}}',  # no such path
        '{"ehconf": {"etw": {"P:E": {"why": "w", "fields": {"e": "ENOENT(2)"}}}}}',  # same
        '{"ehconf": {"etw": []}}',
        '{"ehconf": {"wte": {"P:E": {"why": "w", "fields": {"e": 2}}}}}',  # unknown key
        '{"ehconf": {"offline": {"P:E": {"why": "w", "fields": {"e": 2}}}}}',
        '{"ehconf": {"etw": {"P:E": {"why": "w", "dropped": false}}}}',
        '{"ehconf": {"etw": {"P:E": {"why": "w", "dropped": 1}}}}',
        '{"ehconf": {"etw": {"P:E": {"why": "w", "dropped": true, "fields": {"e": 2}}}}}',
        '{"ehconf": {"etw": {"P:E": {"dropped": true}}}}',  # no why
        '{"ehconf": {"etw": {"P:Z": {"why": "w", "dropped": true}}}}',  # no such event
    ]
    for d in bad:
        for t in ("etw", "offline"):
            r = compare(d + "\n" + lines(EN), lines(EN_ETW), "c", transport=t)
            assert not r.ok, (d, t)
            r = compare(d + "\n" + lines(EN), lines(EN), "c", transport=t)
            assert not r.ok, (d, t)  # a wrong declaration fails every transport


def _tl_difference_names(src: str):
    """Row names of the DIFFERENCES BY DESIGN table in lib/decode/src/tl_json.c."""
    import re
    head = src.index("DIFFERENCES BY DESIGN")
    table = src[head:src.index("No JSON difference", head)]
    return {m.group(1) for m in re.finditer(r"^ \* \| ([a-z][a-z0-9-]+)\s+\|", table, re.M)}


def test_every_etw_declaration_names_a_tl_json_difference():
    """A declared etw difference must be one lib/decode/src/tl_json.c documents: its "why"
    starts with a row name of that table (an undocumented one is a decoder bug to fix)."""
    import glob
    import os
    repo = REPO_ROOT
    with open(os.path.join(repo, "lib", "decode", "src", "tl_json.c"), encoding="utf-8") as f:
        names = _tl_difference_names(f.read())
    assert {"errno-lost", "time-range", "utf-bom-lost", "fixed-format-string"} <= names, names
    seen = 0
    for path in sorted(glob.glob(os.path.join(repo, "golden", "*.json"))):
        with open(path, encoding="utf-8") as f:
            g = parse_lines(f.read(), path, True)
        assert not g.errors, g.errors
        for n, ev in g.directives.get("etw") or []:
            why = dict(ev)["why"]
            if dict(ev).get("dropped") is True:
                # not a decoder difference: the library refuses the event (E2BIG)
                assert why.startswith("size-limit: ") and "EH_TL_EVENT_MAX" in why, \
                    f"{path}: etw {n}: a dropped event's why must say size-limit: and " \
                    f"name EH_TL_EVENT_MAX (lib/eventheader/internal/tl_encode.h)"
                continue
            assert why.split(" ")[0] in names, f"{path}: etw {n}: why {why[:40]!r}... " \
                f"does not start with one of tl_json.c's differences {sorted(names)}"
            seen += 1
    assert seen > 0, "no golden file declares an etw difference (field_types does)"
