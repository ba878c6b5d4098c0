# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints' C macro API (TraceLoggingProvider.h, impl/lttp-c/): what is
its own. The build script's bad input, the judgement of every case against golden/ and the
generator's refusal of malformed descriptions are test_impl_emitters.py's.

The emitter is generated from the descriptions (impl/lttp-c/gen.c: one function per event,
TraceLoggingWrite with literal values), so here: it refuses a description other than the
one it was built from, yet takes the runner's copy without the lacked events; the events
the profile declares or lacks are those it cannot express; and the IPv6 format it writes.
Without IMPL_SRC_LTTP these skip with one line.

Line numbers: TraceLoggingProvider.h of LinuxTracepoints 9ff8fe86 (2025-03-17).

Run: IMPL_SRC_LTTP=/path/to/LinuxTracepoints /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_lttp_c.py
"""

from __future__ import annotations

import os

import pytest

from impl_emitters import (EVENTS_DIR, TIMEOUT, by_name, declared_entries, emit, judged,
                           lacked_skip_problems, stale_description_line, tool_of)
from harness.impl.registry import parse_emitter_output, read_description, without_events
from harness.core.processes import run

# TraceLoggingProvider.h:858-895 (the TraceLogging*FixedArray macros: no IPv4 or GUID one) and
# 2129-2134 (_tlg_AssertValidPackedMetadataEncoding refuses the carray flag): what the
# `refuses` lines of profile.txt (ipv4_array, guid_array) show.
NO_CARRAY = "no macro writes a constant-length array of"
# TraceLoggingProvider.h:373 "Supports up to 99 args", 1296 (_tlg_NARGS counts to 99): the
# reason of the events profile.txt's `lacks fields>99` leaves out.
SKIP_REASONS = {"fields>99": ("TraceLoggingWrite takes at most 99 arguments",)}


@pytest.fixture(scope="module")
def lttp_c(pytestconfig, tmp_path_factory):
    return judged(by_name("lttp-c"), pytestconfig, tmp_path_factory)


def test_declared_differences_are_skipped_constant_arrays(lttp_c):
    shown = declared_entries(lttp_c)
    assert set(shown) == {("field_types", 111), ("field_types", 124)}, sorted(shown)
    assert all(f"skipped: {NO_CARRAY}" in e["message"] for e in shown.values()), shown


def test_lacked_and_declared_events_are_those_it_cannot_express(lttp_c, tmp_path):
    problems = lacked_skip_problems(lttp_c, tmp_path, SKIP_REASONS,
                                    {k: (NO_CARRAY,) for k in declared_entries(lttp_c)})
    assert not problems, "\n".join(problems)


def test_stale_description_is_refused(lttp_c, tmp_path):
    """A description changed since the build: one line, exit 2, nothing written, naming
    this row's build."""
    line = stale_description_line(lttp_c, tmp_path)
    assert "run impl/lttp-c/build again" in line, line


@pytest.mark.parametrize("text,what", [
    ("provider P\n", "the first statement must be `case <name>`"),
    ("case no_such_case\n", "case no_such_case is not built into this emitter (impl/lttp-c/build"),
    ("case attributes\nprovider EhconfAttributes\n", "changed since the build"),
])
def test_unusable_file_is_one_line(lttp_c, tmp_path, text, what):
    path = tmp_path / "x.events"
    path.write_text(text)
    r = emit(lttp_c, str(path), str(tmp_path / "x.dat"))
    assert r.returncode == 2 and r.output == "", r.how()
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:") and what in lines[0], r.stderr


def test_left_out_events_are_renumbered(lttp_c, tmp_path):
    """The runner hands the emitter the description without the events the profile lacks:
    accepted, and the events are numbered as in the file it read."""
    desc = read_description(os.path.join(EVENTS_DIR, "limits_127.events"))
    path = tmp_path / "limits_127.events"
    path.write_text(without_events(desc, {1, 3, 4, 6}))
    r = emit(lttp_c, str(path), str(tmp_path / "l.dat"))
    assert r.returncode == 0, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert parse_emitter_output(r.output) == {1: ("written", ""), 2: ("written", "")}


def test_ipv6_is_written_with_the_obsolete_format(lttp_c, tmp_path):
    """TraceLoggingIPv6Address (TraceLoggingProvider.h:831) writes event_field_format_ipv6,
    which eventheader.h:679 defines as ip_address_obsolete (18), where ehconf writes
    ip_address (17). Decoders show both alike, so golden/ cannot see it: ehdescribe, which
    reads the metadata bytes, does (raw:06:12 rather than ipv6)."""
    ehdescribe = tool_of(lttp_c.build, "ehdescribe")
    dat = str(tmp_path / "ft.dat")
    r = emit(lttp_c, os.path.join(EVENTS_DIR, "field_types.events"), dat)
    assert r.returncode == 1, r.how()  # the two skips
    d = run([ehdescribe, dat], TIMEOUT, merge_stderr=False)
    assert d.returncode == 0, d.how()
    ipv6 = [w for w in (ln.split() for ln in d.output.splitlines())
            if w[1:2] in (["ipv6"], ["ipv6c"]) and w[0] != "event"]
    # 20 ipv6 and ipv6c fields, and format_override's raw:06:12 (already 18 in golden/)
    assert len(ipv6) == 21 and all(w[0] == "raw:06:12" for w in ipv6), ipv6[:3]


def _arrays(text: str, name: str):
    """The big-endian and little-endian initializers of static array `name` in generated
    C: (be, le) byte lists, or (x, x) when it has one layout."""
    import re
    found = re.findall(r"static const _Alignas\(8\) uint8_t " + name + r"\[\] = \{([^}]*)\}",
                       text)
    as_bytes = [[int(v, 16) for v in body.split(",")] for body in found]
    return (as_bytes[0], as_bytes[1]) if len(as_bytes) == 2 else (as_bytes[0], as_bytes[0])


def test_packed_payload_is_laid_out_for_either_byte_order(lttp_c):
    """A TraceLoggingPackedField's bytes are the wire's (eventheader-wire.md §5): a u16
    count, then char16 units, all in the event's byte order. The generated code holds
    both layouts and the compiler picks the target's: str16_json "{"a":1}" (the event at
    field_types.events:468) is 7, then 7 units, little- or big-endian."""
    import glob
    units = [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d]
    want_le = [7, 0] + [b for u in units for b in (u & 0xff, u >> 8)]
    want_be = [0, 7] + [b for u in units for b in (u >> 8, u & 0xff)]
    sources = glob.glob(os.path.join(lttp_c.build_out, "src", "field_5ftypes_*.c"))
    event = None
    for src in sources:
        with open(src, encoding="utf-8") as f:
            text = f.read()
        start = text.find("/* event 87, line 468 */")
        if start >= 0:
            event = text[start:text.find("\n}\n", start)]
    assert event is not None, f"no function for field_types.events:468 in {sources}"
    be, le = _arrays(event, "d1")
    assert (le, be) == (want_le, want_be), (le, be)
