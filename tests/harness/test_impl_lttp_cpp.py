# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints' C++ builder (EventHeaderDynamic.h, impl/lttp-cpp/): what is
its own. The build script's bad input, the judgement of every case against golden/ and the
malformed descriptions are test_impl_emitters.py's, for every implementation.

Here: the declared differences show as ERANGE, the events the profile lacks are those the
emitter says it cannot express, its type table, where ERANGE starts, and a related
activity id without an activity id. Without IMPL_SRC_LTTP these skip with one line.

Line numbers are those of LinuxTracepoints 9ff8fe86 (2025-03-17), the snapshot the suite
was measured with.

Run: IMPL_SRC_LTTP=/path/to/LinuxTracepoints /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_lttp_cpp.py
"""

from __future__ import annotations

import pytest

from impl_emitters import (by_name, declared_entries, emit_text, judged, lacked_skip_problems,
                           type_table_problems)

HEADER = "libeventheader-tracepoint/include/eventheader/EventHeaderDynamic.h"
# EventHeaderDynamic.h:802-804 `else if (m_meta.size() + m_data.size() > 65535 - (52 + 16))`
# `return 34; // ERANGE`: what every `refuses` line of profile.txt shows.
ERANGE = "EventBuilder::Write returned ERANGE"
# EventHeaderDynamic.h:1084 AddValueRange writes `ValueEncoding |
# event_field_encoding_varray_flag` (the other *Range calls likewise: 1194, 1300, 1397); 1426
# and 1449 RawAddMetaScalar / RawAddMetaVcount assert the encoding has no flag: no call writes
# the carray flag. The emitter says so for every event profile.txt's `lacks carray` leaves out.
SKIP_REASONS = {"carray": ("constant-length array",)}


@pytest.fixture(scope="module")
def lttp_cpp(pytestconfig, tmp_path_factory):
    return judged(by_name("lttp-cpp"), pytestconfig, tmp_path_factory)


def test_declared_differences_are_erange(lttp_cpp):
    shown = declared_entries(lttp_cpp)
    assert shown and all(ERANGE in e["message"] for e in shown.values()), \
        {k: e["message"] for k, e in shown.items() if ERANGE not in e["message"]}


def test_lacked_events_are_those_the_emitter_cannot_express(lttp_cpp, tmp_path):
    problems = lacked_skip_problems(lttp_cpp, tmp_path, SKIP_REASONS)
    assert not problems, "\n".join(problems)


def test_type_table_matches_types_txt(lttp_cpp):
    problems = type_table_problems(lttp_cpp.emitter)
    assert not problems, "\n".join(problems)


def test_size_limit_is_65479_payload_bytes(lttp_cpp, tmp_path):
    """Where ERANGE starts: a u8 slice sized so that the payload after the write index is
    65479 bytes (8 header + 4 metadata extension + 5 metadata + 2 count + 65460) is
    written, one byte more is refused."""
    text = "case size\nprovider P\nregister\n" + "".join(
        f"event E level=4 keyword=0x1\n u8_slice f {','.join(['00'] * n)}\nend\n"
        for n in (65460, 65461))
    said, events, _ = emit_text(lttp_cpp, tmp_path, text)
    assert said == {1: ("written", ""), 2: ("failed", ERANGE)}, said
    assert len(events) == 1 and len(events[0]["f"]) == 65460


def test_related_without_activity_is_dropped(lttp_cpp, tmp_path):
    """No case has it (the C cases always pair related= with activity=), so this records the
    behaviour by hand: EventBuilder::Write(set, nullptr, related) returns 0 and writes the
    event without its related activity id. The header requires relatedId == nullptr when
    activityId is (EventHeaderDynamic.h:797, an assert only), and eventheader_write adds the
    activity extension only when pActivityId != NULL, asserting the rest
    (libeventheader-tracepoint/src/eventheader-tracepoint.c:146-149): a release build
    drops the id silently."""
    text = ("case related\nprovider P\nregister\n"
            "event E level=4 keyword=0x1 related=0102030405060708090a0b0c0d0e0f10\nend\n")
    said, events, _ = emit_text(lttp_cpp, tmp_path, text)
    assert said == {1: ("written", "")}, said
    assert len(events) == 1 and "relatedActivity" not in events[0]["meta"], events
