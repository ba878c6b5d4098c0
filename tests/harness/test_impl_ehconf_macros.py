# SPDX-License-Identifier: GPL-2.0
"""ehconf's own static macros (eventheader.h: EH_WRITE and the EH_<T> field macros,
impl/ehconf-macros/): what is its own. The build script's bad input, the judgement of every
case against golden/ and the generator's refusal of malformed descriptions are
test_impl_emitters.py's.

The emitter is generated from the descriptions (impl/ehconf-macros/gen.c: one function per
event, EH_WRITE with literal values), so here: every event is written, none skipped; each
field takes the macro a user would (the first row of its type in eh_field_types.def); the
description's numbers go into the code as C values and fixed-order bytes as bytes, so a
big-endian target's compiler lays them out for it; the header's raw items are used only
where no typed macro can describe the field; and a description other than the one it was
built from is refused (emitlib/gencase/driver.c, the driver it shares).

The checkout is this repository's lib/eventheader unless IMPL_SRC_EHCONF names another.

Run: /usr/bin/python3 -m pytest -q tests/harness/test_impl_ehconf_macros.py
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from impl_emitters import EVENTS_DIR, by_name, judged, stale_description_line


@pytest.fixture(scope="module")
def macros(pytestconfig, tmp_path_factory):
    return judged(by_name("ehconf-macros"), pytestconfig, tmp_path_factory)


def sources(j, ident: str):
    return sorted(glob.glob(os.path.join(j.build_out, "src", f"{ident}_*.c")))


def event_source(j, ident: str, line: int) -> str:
    """The generated function of the event at `line` of the description."""
    for src in sources(j, ident):
        with open(src, encoding="utf-8") as f:
            text = f.read()
        m = re.search(rf"/\* event \d+, line {line} \*/\n", text)
        if m:
            return text[m.start():text.find("\n}\n", m.start())]
    raise AssertionError(f"no function for line {line} in {sources(j, ident)}")


def event_line(case: str, name: str) -> int:
    with open(os.path.join(EVENTS_DIR, f"{case}.events"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith(f"event {name} "):
                return n
    raise AssertionError(f"descriptions/{case}.events has no event {name}")


def test_every_event_is_written_none_skipped(macros):
    """The macros express every event of every case: no generated skip, no declaration."""
    for case, c in macros.counts.items():
        assert c["compared"] == c["events"] and not c["left_out"] and not c["declared"], \
            (case, c)
    skips = [s for s in glob.glob(os.path.join(macros.build_out, "src", "*.c"))
             if "    return -1;" in open(s, encoding="utf-8").read()]
    assert not skips, skips


# (event of field_types.events, the macro of its field): the first row of its encoding and
# format in eh_field_types.def, with no EH_FORMAT override. ipv4_array and guid_array are the
# two constant-length arrays TraceLoggingWrite has no macro for (impl/lttp-c/profile.txt).
FIRST_ROW = [("i16", "EH_I16("), ("u16_slice", "EH_U16_SLICE("), ("str8_json", "EH_STR8_JSON("),
             ("str16", "EH_STR16("), ("cstr16", "EH_CSTR16("), ("port", "EH_PORT("),
             ("ipv4_array", "EH_IPV4_ARRAY("), ("guid_array", "EH_GUID_ARRAY(")]


@pytest.mark.parametrize("event,macro", FIRST_ROW, ids=[e for e, _ in FIRST_ROW])
def test_each_field_takes_the_first_macro_of_its_type(macros, event, macro):
    text = event_source(macros, "field_5ftypes", event_line("field_types", event))
    assert macro in text and "EH_FORMAT" not in text and "EH_RAW" not in text, text


def test_numbers_are_c_values_and_fixed_order_bytes_stay_bytes(macros):
    """u16_slice's `9210,0000,0100,ffff` (little-endian in the description) is the numbers
    0x1092, 0, 1, 0xffff of a uint16_t array; str16's code units are uint16_t too; a port's
    `01bb` is the bytes 01 bb in network order whatever the machine, read as the number a
    caller holds (gencase_u16_at)."""
    u16 = event_source(macros, "field_5ftypes", event_line("field_types", "u16_slice"))
    assert "static const uint16_t d3[] = {0x1092,0x0,0x1,0xffff};" in u16, u16
    str16 = event_source(macros, "field_5ftypes", event_line("field_types", "str16"))
    assert "static const uint16_t d1[] = {0x68,0x65,0x6c,0x6c,0x6f};" in str16, str16
    port = event_source(macros, "field_5ftypes", event_line("field_types", "port"))
    assert "static const _Alignas(8) uint8_t d1[] = {0x1,0xbb};" in port, port
    assert 'EH_PORT("port", gencase_u16_at(d1))' in port, port


def test_a_char16_string_read_as_hex_bytes_is_bytes(macros):
    """format_override's cstr16 `68006900` with format hex_bytes: the format reads the units
    as bytes in a fixed order (desc_order.c's rule), so they go in as the bytes 68 00 69 00
    and a zero unit, which EH_CSTR16 measures as two units on either byte order. As
    uint16_t numbers they arrived as 00 68 00 69 on s390x (make check-impl KERNEL_ARCH=s390x,
    impl-vm/ehconf-macros/field_types, before the generator knew)."""
    text = event_source(macros, "field_5ftypes", event_line("field_types", "format_override"))
    m = re.search(r'EH_CSTR16\("cstr16", \(const uint16_t \*\)\(const void \*\)d(\d+), '
                  r'EH_FORMAT\(9\)\)', text)
    assert m, text
    assert f"static const _Alignas(8) uint8_t d{m.group(1)}[] = {{0x68,0x0,0x69,0x0,0x0,0x0}};" \
        in text, text


def test_raw_items_only_where_no_typed_macro_describes_the_field(macros):
    """EH_STRUCT_ARRAY's members are fixed-size values (EH_MEMBER, eventheader.h): an array
    of structs whose element holds a struct or an array of structs is the one field the
    generator writes with the header's raw items (EH_RAW_STRUCT_SLICE, EH_RAW_META,
    EH_RAW_DATA), its payload a packed struct of C values."""
    raw = []
    for src in glob.glob(os.path.join(macros.build_out, "src", "*_*.c")):
        with open(src, encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"/\* event (\d+), line (\d+) \*/\n(.*?)\n}\n", text, re.S):
            if "EH_RAW_" in m.group(3):
                raw.append((os.path.basename(src).rsplit("_", 1)[0], int(m.group(1))))
                assert "__attribute__((packed))" in m.group(3), m.group(3)
    assert raw == [("structs", 41)], raw
    with open(os.path.join(EVENTS_DIR, "structs.events"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    # event 41 is at line 1816: its struct_slice holds structs and an inner struct_slice
    block = lines[1815:lines.index("end", 1815)]
    assert block[0].startswith("event ") and any(ln.strip().startswith("struct ") for ln in block)


def test_stale_description_is_refused(macros, tmp_path):
    """A description changed since the build: one line, exit 2, nothing written; the
    shared driver names this row's build (gencase_api), not another generated row's."""
    line = stale_description_line(macros, tmp_path)
    assert "run impl/ehconf-macros/build again" in line, line
