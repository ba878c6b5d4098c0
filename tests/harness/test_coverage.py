# SPDX-License-Identifier: GPL-2.0
"""Mechanical coverage of the field types: cases/field_types.c against the type list.

The list of every normal field type of write_event! is Documentation/field-types.txt in
this repository (generated from the type table lib/eventheader/include/eh_field_types.def
by scripts/gen-field-types.py; tests/harness/test_field_types.py checks it is current); a
missing or empty list FAILS (never a skip).

Checks (naming scheme: comment at the top of cases/field_types.c):
  * every listed type T is a field name in golden/field_types.json, inside an event
    named T ("<provider>:T");
  * every scalar type (a listed T whose "T_slice" is listed too) also has its "T_slice"
    and "T_array" (constant-length array) fields, each in an event of that name;
  * every one of those names appears as a string literal in cases/field_types.c.
A missing type FAILS with the list of what is missing; test_checker_finds_a_gap proves the
checker itself does.
"""

from __future__ import annotations

import json
import os
from typing import Dict, Iterable, List, Optional, Set

import pytest

from harness.core.common import REPO_ROOT

REPO = REPO_ROOT
GOLDEN = os.path.join(REPO, "golden", "field_types.json")
CASE_SRC = os.path.join(REPO, "cases", "field_types.c")


TYPE_LIST = os.path.join(REPO, "Documentation", "field-types.txt")


def load_types() -> Optional[List[str]]:
    if not os.path.isfile(TYPE_LIST):
        return None
    with open(TYPE_LIST, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def required_names(types: Iterable[str]) -> List[str]:
    """Every listed type, plus T_array for each scalar type T (one with a T_slice)."""
    listed = list(types)
    names = set(listed)
    for t in listed:
        if t + "_slice" in names:
            names.add(t + "_array")
    return sorted(names)


def golden_fields(text: str) -> Dict[str, Set[str]]:
    """{event name after the provider's ':' -> set of its top-level field names}.
    Directive lines ({"ehconf": ...}) are skipped; duplicate names are fine."""
    events: Dict[str, Set[str]] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        keys = [k for k, _ in pairs]
        if keys == ["ehconf"]:
            continue
        n = dict(pairs).get("n", "")
        event = n.split(":", 1)[1] if ":" in n else n
        events.setdefault(event, set()).update(k for k in keys if k not in ("n", "meta"))
    return events


def missing_in_golden(names: Iterable[str], events: Dict[str, Set[str]]) -> List[str]:
    """Names T without an event "T" that has a field "T"."""
    return [t for t in names if t not in events.get(t, set())]


def missing_in_source(names: Iterable[str], source: str) -> List[str]:
    return [t for t in names if f'"{t}"' not in source]


@pytest.fixture(scope="module")
def types() -> List[str]:
    t = load_types()
    if t is None:
        pytest.fail(f"{os.path.relpath(TYPE_LIST, REPO)} is missing")
    if not t:
        pytest.fail("the field type list is empty")
    return t


def _read(path: str) -> str:
    if not os.path.exists(path):
        pytest.fail(f"{os.path.relpath(path, REPO)} is missing")
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def test_every_type_in_golden(types):
    events = golden_fields(_read(GOLDEN))
    missing = missing_in_golden(required_names(types), events)
    assert not missing, (f"{len(missing)} field types have no event of their own with a field "
                         f"of that name in golden/field_types.json: {', '.join(missing)}")


def test_every_type_in_case_source(types):
    missing = missing_in_source(required_names(types), _read(CASE_SRC))
    assert not missing, (f"{len(missing)} field type names do not appear as \"name\" in "
                         f"cases/field_types.c: {', '.join(missing)}")


def test_scalar_types_have_slice_and_array(types):
    scalars = [t for t in types if t + "_slice" in types]
    # sanity: the write_event! table has dozens of scalar types (u8 ... usize_hex)
    assert len(scalars) >= 30, f"only {len(scalars)} scalar types found in the list"
    events = golden_fields(_read(GOLDEN))
    gaps = [f"{t}{sfx}" for t in scalars for sfx in ("_slice", "_array")
            if f"{t}{sfx}" not in events.get(f"{t}{sfx}", set())]
    assert not gaps, f"scalar types without their slice/array event: {', '.join(gaps)}"


def test_checker_finds_a_gap(types):
    """The checks above must fail when a type is missing: drop one type (and one
    constant-array variant) from a copy of the golden data and from the source text."""
    events = golden_fields(_read(GOLDEN))
    names = required_names(types)
    assert missing_in_golden(names, events) == []  # the real data is complete...
    scalar = next(t for t in types if t + "_slice" in types)
    for gone in (types[0], scalar + "_array"):
        cut = {e: set(f) for e, f in events.items()}
        cut[gone].discard(gone)
        assert missing_in_golden(names, cut) == [gone]
        src = _read(CASE_SRC).replace(f'"{gone}"', '"removed"')
        assert gone in missing_in_source(names, src)
