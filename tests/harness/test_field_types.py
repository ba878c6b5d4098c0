# SPDX-License-Identifier: MIT
"""The field-type table (lib/eventheader/include/eh_field_types.def) and the files
scripts/gen-field-types.py writes from it.

  * the committed eh_field_macros.h, descriptions/types.txt and Documentation/field-types.txt
    are exactly what the generator writes now (the same check as `make lint-field-types`);
  * every field macro comes from the table: eh_field_macros.h defines each macro a row
    implies and nothing else, eventheader.h includes it and defines none of them by hand;
  * a new row changes all three files, so a row added without running the generator
    fails the first check (test_a_new_row_reaches_every_file proves it);
  * malformed rows are refused naming their line.
What the table says about TraceLogging is checked in C, row by row, by
tests/tl/test_tl_field_types.c (make unit).

Run: /usr/bin/python3 -m pytest -q tests/harness/test_field_types.py
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from harness.core.common import REPO_ROOT

GENERATOR = os.path.join(REPO_ROOT, "scripts", "gen-field-types.py")
INCLUDE = os.path.join(REPO_ROOT, "lib", "eventheader", "include")


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_field_types", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def _read(rel: str) -> str:
    with open(os.path.join(REPO_ROOT, rel), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def rows():
    return gen.parse_table(_read(gen.TABLE))


@pytest.mark.parametrize("rel", [gen.MACROS, gen.TYPES_TXT, gen.FIELD_TYPES_TXT])
def test_generated_file_is_current(rel, tmp_path):
    subprocess.run([sys.executable, GENERATOR, "--output-dir", str(tmp_path)], check=True,
                   capture_output=True, text=True)
    fresh = (tmp_path / rel).read_text(encoding="utf-8")
    assert _read(rel) == fresh, (f"{rel} is not what {gen.TABLE} gives (edited by hand, or a "
                                 "row changed without regenerating): run scripts/gen-field-types.py")


def test_check_mode_passes():
    r = subprocess.run([sys.executable, GENERATOR, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def defined_macros(text: str):
    return set(re.findall(r"^#define (EH_\w+)\(", text, re.M))


def implied_macros(rows):
    """Every macro name the rows stand for."""
    names = set()
    for r in rows:
        names.add(f"EH_{r.name}")
        if r.family == "EH_FIELD_ZSTRING":
            names.add(f"EH_{r.name}_N")
        if getattr(r, "forms", "SINGLE") != "SINGLE":
            names |= {f"EH_{r.name}_SLICE", f"EH_{r.name}_ARRAY", f"EH_MEMBER_{r.name}"}
    return names


def test_every_field_macro_comes_from_the_table(rows):
    generated = defined_macros(_read(gen.MACROS))
    assert generated == implied_macros(rows)
    with open(os.path.join(INCLUDE, "eventheader.h"), encoding="utf-8") as f:
        header = f.read()
    assert '#include "eh_field_macros.h"' in header
    by_hand = sorted(generated & defined_macros(header))
    assert not by_hand, f"eventheader.h defines table macros by hand: {by_hand}"
    # the table's macros include the ones cases and tests name most
    assert {"EH_PORT", "EH_PORT_SLICE", "EH_PORT_ARRAY", "EH_MEMBER_PORT", "EH_CSTR8_N",
            "EH_BINARY_L16", "EH_SYSTEMTIME"} <= generated


def test_lists_follow_the_table(rows):
    """types.txt keeps the table's order (descriptions name a field by the first match);
    field-types.txt is sorted, with T_slice for the SLICE rows; EHCONF_ONLY rows are in
    neither."""
    listed = [r.name.lower() for r in rows if getattr(r, "listed", "WRITE_EVENT") == "WRITE_EVENT"]
    types = [ln.split()[0] for ln in _read(gen.TYPES_TXT).splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert types == listed
    names = [ln for ln in _read(gen.FIELD_TYPES_TXT).splitlines() if ln and not ln.startswith("#")]
    assert names == sorted(names)
    assert "binary_l16" not in names and "binary_l16" not in types
    assert {"port_slice", "u8_slice"} <= set(names) and "time32_slice" not in names


FAKE_ROW = "EH_FIELD_SCALAR(FAKE16, VALUE16, PORT, NONE, U16, PORT, SLICE, uint16_t, uint16_t)\n"


def test_a_new_row_reaches_every_file():
    """A row added to the table changes all three generated files, so the check above
    fails until the generator has run."""
    text = _read(gen.TABLE).replace("#undef EH_FIELD_SCALAR", FAKE_ROW + "#undef EH_FIELD_SCALAR")
    fresh = gen.outputs(gen.parse_table(text))
    for rel, new in fresh.items():
        assert new != _read(rel), f"{rel} does not change with a new row"
    assert "#define EH_FAKE16_SLICE(name, p, n, ...)" in fresh[gen.MACROS]
    assert "#define EH_MEMBER_FAKE16(type, member, ...)" in fresh[gen.MACROS]
    assert "\nfake16            value16                  port           2\n" in fresh[gen.TYPES_TXT]
    assert "\nfake16\nfake16_slice\n" in fresh[gen.FIELD_TYPES_TXT]


MALFORMED = [
    ("EH_FIELD_SCALAR(X, VALUE8, DEFAULT, NONE, U8, DEFAULT, SLICE, uint8_t)", "takes 9 columns"),
    ("EH_FIELD_VALUE(X, VALUE8)", "not a row"),
    ("EH_FIELD_COUNTED(X, VALUE8, DEFAULT, NONE, U8, DEFAULT, WRITE_EVENT)",
     "cannot use encoding VALUE8"),
    ("EH_FIELD_SCALAR(U8, VALUE8, DEFAULT, NONE, U8, DEFAULT, SLICE, uint8_t, uint8_t)", "twice"),
    ("EH_FIELD_SCALAR(x8, VALUE8, DEFAULT, NONE, U8, DEFAULT, SLICE, uint8_t, uint8_t)",
     "not in upper case"),
    ("EH_FIELD_FIXED(X, VALUE32, DEFAULT, NONE, U32, DEFAULT, MANY, 4)", "forms MANY"),
    ("EH_FIELD_FIXED(X, VALUE32, DEFAULT, NONE, U32, DEFAULT, SLICE, four)", "size 'four'"),
    ("EH_FIELD_ZSTRING(X, ZSTRING_CHAR8, DEFAULT, NONE, CSTR8, UTF8, YES)", "listed YES"),
    ("EH_FIELD_COUNTED(X, STRING_LENGTH16_CHAR8, DEFAULT, NONE, STR8, UTF8, WRITE EVENT)",
     "not a C name"),
]


@pytest.mark.parametrize("row,reason", MALFORMED, ids=[m[1] for m in MALFORMED])
def test_malformed_row_is_refused(row, reason):
    text = _read(gen.TABLE).replace("#undef EH_FIELD_SCALAR", row + "\n#undef EH_FIELD_SCALAR")
    line = text[:text.rindex(row)].count("\n") + 1
    with pytest.raises(gen.TableError) as e:
        gen.parse_table(text)
    assert str(e.value).startswith(f"line {line}: ") and reason in str(e.value), str(e.value)
