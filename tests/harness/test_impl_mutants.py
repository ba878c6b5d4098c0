# SPDX-License-Identifier: GPL-2.0
"""Lint of impl/*/mutants.txt (the planted bugs of `make test-impl-mutants`): the
recipes parse, each names a registered implementation, and each expected item is one that
make check-impl writes: impl/<name>/<input>[/<event>] for an input with a golden file (a
case, or one of the producer's family), the same on the real kernel as impl-vm/<name>/<input>
[/<event>], or impl-vm/<name>/contract/<row> for a contract row;
a producer from the crate registry names the published crate it edits. Then the driver's verdict: only a
failure of an expected item counts, and a control that does not pass it stops the mutant."""

from __future__ import annotations

import importlib.util
import os
import re
import sys

import pytest

from harness.core.common import REPO_ROOT
from harness.impl.contract_rows import BY_NAME
from harness.impl.registry import CRATES, read_registry, resolve

SCRIPT = os.path.join(REPO_ROOT, "scripts", "impl-mutants.py")


def load_driver():
    spec = importlib.util.spec_from_file_location("impl_mutants", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


im = load_driver()
MUTANTS = im.parse_recipes()
CASES = {f[:-5] for f in os.listdir(os.path.join(REPO_ROOT, "golden")) if f.endswith(".json")}


def test_each_producer_family_has_a_planted_change():
    """Issue 31: every producer from the crate registry is shown able to fail once."""
    planted = {m.impl for m in MUTANTS}
    assert {i.name for i in read_registry() if i.checkout == CRATES} <= planted


def test_the_newest_pinned_release_of_each_producer_has_a_planted_change():
    """Issue 40: a planted bug in the newest release of each family (NAME@VERSION, the last
    version of its crate column) is caught too."""
    planted = {m.impl for m in MUTANTS}
    newest = {f"{i.name}@{i.crate_versions[-1]}" for i in read_registry()
              if i.checkout == CRATES and len(i.crate_versions) > 1}
    assert newest and newest <= planted, newest - planted


def test_the_six_planted_bugs_of_issue_29_are_there():
    names = {m.name for m in MUTANTS}
    assert len(names) == len(MUTANTS), "mutant names must be unique"
    assert {"counted-string-length-in-bytes", "related-id-is-the-activity-id",
            "enabled-ignores-the-kernel-bit", "field-tag-big-endian",
            "level-in-name-in-decimal", "unregister-wrong-address"} <= names


def inputs_of(impl) -> set:
    """The golden inputs an implementation's items are named after."""
    if impl.inputs == "cases":
        return CASES
    folder = os.path.join(REPO_ROOT, "impl", impl.base, "expected")
    return {f[:-5] for f in os.listdir(folder) if f.endswith(".json") and "@" not in f}


@pytest.mark.parametrize("m", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_names_a_registered_implementation_and_real_items(m):
    impl = resolve(m.impl)
    assert impl is not None and impl.pinned, m.impl
    assert re.fullmatch(r"[a-z0-9-]+", m.name)
    # A producer from the crate registry has no checkout to copy: the published crate.
    assert bool(m.crate) == (impl.checkout == CRATES), \
        f"{m.name}: crate: is for (and needed by) a row whose checkout is {CRATES}"
    if m.crate:
        own = not impl.version or impl.version == impl.crate_versions[0]
        with open(os.path.join(impl.folder, *([] if own else ["versions", impl.version]),
                               "Cargo.lock"), encoding="utf-8") as f:
            lock = f.read()
        name, _, version = m.crate.rpartition("-")
        assert f'name = "{name}"\nversion = "{version}"' in lock, \
            f"{m.name}: impl/{m.impl}/Cargo.lock does not pin {m.crate}"
    for e in m.expect:
        offline = re.fullmatch(rf"impl(?:-vm)?/{re.escape(m.impl)}/(?!contract/)(\w+)(/\d+)?", e)
        vm = re.fullmatch(rf"impl-vm/{re.escape(m.impl)}/contract/([\w-]+)", e)
        assert offline or vm, f"{m.name}: {e} is not an item of {m.impl}"
        if offline:
            assert offline.group(1) in inputs_of(impl), \
                f"{m.name}: no golden input {offline.group(1)} of {m.impl}"
        else:
            assert vm.group(1) in BY_NAME, f"{m.name}: no contract row {vm.group(1)}"


def test_a_level_in_decimal_is_caught_by_more_than_level_255():
    """The level mutant's item is byte_order, whose levels all read differently in
    decimal and hex, not attributes (where only Level255 would notice)."""
    (m,) = [m for m in MUTANTS if m.name == "level-in-name-in-decimal"]
    assert all("/byte_order" in e for e in m.expect)
    with open(os.path.join(REPO_ROOT, "golden", "byte_order.json"), encoding="utf-8") as f:
        levels = [int(x) for x in re.findall(r'"level": (\d+)', f.read())]
    assert len([lv for lv in levels if str(lv) != format(lv, "x")]) >= 3


def test_a_tag_written_big_endian_shows_on_three_events_at_least():
    """Field tags whose two bytes differ, on three events or more of byte_order."""
    with open(os.path.join(REPO_ROOT, "golden", "byte_order.json"), encoding="utf-8") as f:
        events = f.read().splitlines()

    def revealing(tag):
        v = int(tag, 16)
        return (v >> 8) != (v & 0xFF)
    assert sum(1 for ev in events
               if any(revealing(t) for t in re.findall(r';tag=0x([0-9A-F]+)"', ev))) >= 3


def test_the_recipes_apply_to_a_copy_and_leave_the_source_alone(tmp_path):
    (m,) = [m for m in MUTANTS if m.name == "field-tag-big-endian"]
    src = tmp_path / "src"
    f = src / m.file
    f.parent.mkdir(parents=True)
    f.write_text("fn x() {\n    " + m.edits[0][0] + "\n}\n")
    im.CACHE = str(tmp_path / "cache")
    tree = im.copy_with_edit(m, str(src))
    assert m.edits[0][1] in open(os.path.join(tree, m.file)).read()
    assert m.edits[0][0] in f.read_text()


def test_the_control_passes_an_event_item_through_its_case():
    """An event's own item exists only when the event is not judged with its case: in the
    control, the case's pass stands for it; a missing case, or a failing one, does not."""
    control = {"impl/x/lifecycle": ("pass", ""), "impl/x/field_types": ("fail", "why")}
    assert im.control_passes(control, "impl/x/lifecycle/2")
    assert not im.control_passes(control, "impl/x/field_types/3")
    assert not im.control_passes(control, "impl/x/activity/1")
    assert not im.control_passes(control, "impl/x/activity")
    assert im.control_passes({"impl/x/activity": ("pass", "")}, "impl/x/activity")


def test_a_declared_item_of_the_control_holds_as_declared():
    """A declared difference's item is xfail in the control; a mutant inside that event must
    make it fail (the judge sees inside the declaration)."""
    assert im.control_passes({"impl/x/spans/3": ("xfail", "declared")}, "impl/x/spans/3")
    assert not im.control_passes({"impl/x/spans/3": ("fail", "why")}, "impl/x/spans/3")
    assert not im.control_passes({"impl/x/spans/3": ("skip", "lacks")}, "impl/x/spans/3")


def test_a_mutant_lives_in_its_implementations_folder(tmp_path, monkeypatch):
    """impl/<name>/mutants.txt holds only <name>'s mutants: one naming another row is an
    error saying where it belongs."""
    (tmp_path / "impl" / "lttp-c").mkdir(parents=True)
    (tmp_path / "impl" / "lttp-c" / "mutants.txt").write_text(
        "mutant: stray\nimpl: lttp-cpp\nwhat: w\nfile: f\nfrom: a\nto: b\nexpect: impl/x/y\n")
    with pytest.raises(SystemExit, match="belongs in impl/lttp-cpp/mutants.txt"):
        im.parse_recipes(str(tmp_path))
