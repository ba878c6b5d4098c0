# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints-Rust's eventheader_dynamic crate (impl/rust-dynamic/): what is
its own. The build script's bad input, the judgement of every case against golden/ and the
malformed descriptions are test_impl_emitters.py's, for every implementation.

Here: the lines of the checkout that profile.txt and these tests cite still say what they
are cited for, and profile.txt cites them; the declared differences show as ERANGE; the
events the profile lacks are those the emitter says the crate cannot express; its type
table; and, on small descriptions written here, the crate's edges: add_struct with 128
members panics (caught and reported), 129 members are silently cut to 1, a provider
registered twice does not panic in this crate, a provider name of 234 bytes or more panics
in Provider::new. Without IMPL_SRC_RUST these skip with one line.

Run: IMPL_SRC_RUST=/path/to/LinuxTracepoints-Rust /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_rust_dynamic.py
"""

from __future__ import annotations

import pytest

from impl_emitters import (by_name, cited_line_problems, declared_entries, emit_text, judged,
                           lacked_skip_problems, struct_text, type_table_problems)
from harness.impl.registry import read_profile

NAME = "rust-dynamic"
# Lines of the checkout cited below: (file:line, text on that line). The numbers are those
# of microsoft/LinuxTracepoints-Rust at bb466c10 (2025-12-03), checked in the checkout
# IMPL_SRC_RUST names.
ERANGE = ("eventheader_dynamic/src/builder.rs:240", "65535 - (52 + 16)")
CARRAY = ("eventheader_dynamic/src/builder.rs:870", "FieldEncoding::VArrayFlag")
RESET_STR = ("eventheader_dynamic/src/builder.rs:194", "pub fn reset(&mut self, name: &str")
NEW_STR = ("eventheader_dynamic/src/provider.rs:56", "pub fn new(name: &str")
STRUCT_MASK = ("eventheader_dynamic/src/builder.rs:325",
               "struct_field_count & FieldFormat::ValueMask")
STRUCT_PANIC = ("eventheader_dynamic/src/builder.rs:330", "assert!(masked_field_count != 0")
NAME_PANIC = ("eventheader_dynamic/src/provider.rs:58", "assert!(")
NAMES_MAX = ("eventheader_dynamic/src/provider.rs:57", '"_LffKffffffffffffffffG".len()')
SET_REUSED = ("eventheader_dynamic/src/provider.rs:136", "Some(set_pin_arc) => set_pin_arc.clone()")
STATIC_REGISTER_PANIC = ("tracepoint/src/native.rs:475", "assert!(")
RELATED_DROPPED = ("eventheader/src/_internal.rs:151",
                   "None => debug_assert!(related_id.is_none())")
CITED = [ERANGE, CARRAY, RESET_STR, NEW_STR, STRUCT_MASK, STRUCT_PANIC, NAME_PANIC, NAMES_MAX,
         SET_REUSED, STATIC_REGISTER_PANIC, RELATED_DROPPED]
# feature profile.txt lacks -> the line its reason cites
LACKS_CITE = {"carray": CARRAY, "name-non-utf8": RESET_STR,
              "related-without-activity": RELATED_DROPPED}
# EventBuilder::write returns ERANGE, writing nothing, when metadata + data exceed
# 65535 - (52 + 16) = 65,467 bytes (builder.rs:240): every `refuses` line of profile.txt.
SHOWS_ERANGE = "write returned ERANGE (34)"
# The emitter's reason for an event the crate cannot express begins with the feature.
SKIP_REASONS = {"carray": ("carray:",), "name-non-utf8": ("name-non-utf8:",)}


@pytest.fixture(scope="module")
def rust_dynamic(pytestconfig, tmp_path_factory):
    return judged(by_name(NAME), pytestconfig, tmp_path_factory)


def test_cited_lines_are_in_the_checkout(rust_dynamic):
    problems = cited_line_problems(rust_dynamic.src, CITED)
    assert not problems, "\n".join(problems)


def test_profile_cites_the_lines():
    profile = read_profile(by_name(NAME))
    assert set(profile.lacks) == set(LACKS_CITE), sorted(set(profile.lacks) ^ set(LACKS_CITE))
    problems = [f"lacks {f} does not cite {where}" for f, (where, _) in LACKS_CITE.items()
                if where not in profile.lacks[f]]
    problems += [f"refuses {k}: does not cite {ERANGE[0]}" for k, why in profile.refuses.items()
                 if ERANGE[0] not in why]
    assert profile.refuses and not problems, "\n".join(problems)


def test_declared_differences_are_erange(rust_dynamic):
    shown = declared_entries(rust_dynamic)
    assert shown and all(SHOWS_ERANGE in e["message"] for e in shown.values()), \
        {k: e["message"] for k, e in shown.items() if SHOWS_ERANGE not in e["message"]}


def test_lacked_events_are_those_the_crate_cannot_express(rust_dynamic, tmp_path):
    problems = lacked_skip_problems(rust_dynamic, tmp_path, SKIP_REASONS)
    assert not problems, "\n".join(problems)


def test_type_table_is_types_txt(rust_dynamic):
    problems = type_table_problems(rust_dynamic.emitter)
    assert not problems, "\n".join(problems)


# ---- the crate's edges, on descriptions written here ----------------------------------------

def test_struct_of_128_members_panics_and_the_emitter_goes_on(rust_dynamic, tmp_path):
    """add_struct(name, 128, tag): 128 & 0x7F is 0, and the assert of builder.rs:330 panics
    ("struct_field_count must not be 0"; the debug_assert_eq naming the real limit is off in
    release). The emitter catches it (catch_unwind), reports the panic with its place, and
    the next event is written."""
    text = ("case edge\nprovider EhconfRustEdge\nregister\n"
            "event W127 level=4 keyword=0x1\n" + struct_text("s", 127) + "end\n"
            "event W128 level=4 keyword=0x1\n" + struct_text("s", 128) + "end\n"
            "event After level=4 keyword=0x1\n  u8 ok 01\nend\n")
    said, decoded, _ = emit_text(rust_dynamic, tmp_path, text)
    assert said[1] == ("written", "") and said[3] == ("written", ""), said
    state, why = said[2]
    assert state == "failed" and why.startswith("panic: struct_field_count must not be 0"), why
    assert why.endswith(f" at {STRUCT_PANIC[0]}"), why
    assert [e["n"] for e in decoded] == ["EhconfRustEdge:W127", "EhconfRustEdge:After"]


def test_struct_of_129_members_is_silently_cut_to_1(rust_dynamic, tmp_path):
    """add_struct(name, 129, tag): 129 & 0x7F is 1 (builder.rs:325), no panic and no error:
    the event is written with a struct of one member, the other 128 become top-level fields.
    A user's release build writes it so; ehconf's library refuses it with EINVAL."""
    text = ("case edge\nprovider EhconfRustEdge\nregister\n"
            "event W129 level=4 keyword=0x1\n" + struct_text("s", 129) + "end\n")
    said, decoded, _ = emit_text(rust_dynamic, tmp_path, text)
    assert said == {1: ("written", "")}, said
    assert len(decoded) == 1 and decoded[0]["s"] == {"f0": 0}, decoded
    assert decoded[0]["f1"] == 1 and decoded[0]["f128"] == 128, decoded


def test_registering_twice_does_not_panic_in_this_crate(rust_dynamic, tmp_path):
    """eventheader_dynamic has no provider registration of its own: register_set returns the
    already registered set (provider.rs:136), so `register` twice, or the same level and
    keyword again, never reaches the "register of active tracepoint" assert of
    tracepoint/src/native.rs:475 (which the eventheader crate's static Provider::register
    hits when called twice). After unregister, register_set registers a new tracepoint."""
    ev = "event E level=4 keyword=0x1\n  u8 seq {:02x}\nend\n"
    text = ("case edge\nprovider EhconfRustEdge\nregister\nregister\n" + ev.format(1)
            + "register\n" + ev.format(2) + "unregister\n" + ev.format(3)
            + "register\n" + ev.format(4) + "unregister\nunregister\n")
    said, decoded, _ = emit_text(rust_dynamic, tmp_path, text)
    assert said[1] == said[2] == said[4] == ("written", ""), said
    assert said[3] == ("failed", "write returned EBADF (9)"), said  # an unregistered set
    assert [(e["n"], e["seq"]) for e in decoded] == [("EhconfRustEdge:E", 1),
                                                    ("EhconfRustEdge:E", 2),
                                                    ("EhconfRustEdge:E", 4)], decoded


def test_long_provider_name_panics_in_provider_new(rust_dynamic, tmp_path):
    """Provider::new asserts name.len() + group_name.len() < 234 (provider.rs:57-58: the
    tracepoint name's 256 minus the longest "_L..K..G" suffix); the panic is caught and every
    event of that provider fails with it. A name of 233 bytes is taken."""
    ok, long = "P" * 233, "P" * 234
    text = (f"case edge\nprovider {ok}\nregister\nevent A level=4 keyword=0x1\nend\n"
            f"provider {long}\nregister\nevent B level=4 keyword=0x1\nend\n")
    said, decoded, _ = emit_text(rust_dynamic, tmp_path, text)
    assert said[1] == ("written", ""), said
    state, why = said[2]
    assert state == "failed" and why.startswith("Provider::new: panic: provider name.len() + "
                                                "group_name.len() must be less than 234"), why
    assert why.endswith(f" at {NAME_PANIC[0]}"), why
    assert [e["n"] for e in decoded] == [f"{ok}:A"]


def test_activity_ids_and_attributes_travel(rust_dynamic, tmp_path):
    """One event with every header attribute and both activity ids, through write(); a
    related id without an activity id is skipped: write() would drop it
    (eventheader/src/_internal.rs:151 only debug_asserts)."""
    text = ("case edge\nprovider EhconfRustEdge group=g1\nregister\n"
            "event All level=2 keyword=0x85 opcode=1 tag=0xbeef id=7 version=2 activity="
            + "11" * 16 + " related=" + "22" * 16 + "\n  u16 x 2c01 tag=0x12\nend\n"
            "event Orphan level=4 keyword=0x1 related=" + "22" * 16 + "\nend\n")
    said, decoded, _ = emit_text(rust_dynamic, tmp_path, text)
    assert said[1] == ("written", "") and len(decoded) == 1, said
    assert said[2][0] == "skipped" and said[2][1].startswith("related-without-activity:"), said
    meta = decoded[0]["meta"]
    assert decoded[0]["n"] == "EhconfRustEdge:All" and decoded[0]["x;tag=0x12"] == 300
    assert (meta["id"], meta["version"], meta["level"], meta["keyword"], meta["opcode"],
            meta["tag"]) == (7, 2, 2, "0x85", 1, "0xBEEF"), meta
    assert meta["activity"] == "11111111-1111-1111-1111-111111111111"
    assert meta["relatedActivity"] == "22222222-2222-2222-2222-222222222222"
