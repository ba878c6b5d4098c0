# SPDX-License-Identifier: GPL-2.0
"""The otel-appender family's judge (issue 40 item 4): tracing events through the bridge layer
are held to impl/otel-appender/expected/*.json, and the judge fails on an output that differs
where the bridge decides something: the level's severity and text, the body from the message,
a field's kind, the event name, the active span's ids; its declaration A1 lets through its
exact observation and nothing near it. Each release is held to its own expectation files (the
PartA time changes with the exporter the bridge release runs with).

The outputs here are the golden lines themselves, perturbed: no emitter is built."""

from __future__ import annotations

import json
import os

import pytest

from harness.core.common import REPO_ROOT
from harness.core.golden import compare
from harness.impl.declared import expected_line, judge_event, perturbations
from harness.impl.registry import expected_path, read_profile, resolve

INPUTS = ("levels", "fields", "bodies", "trace_context", "names")


def golden_text(name: str, version: str = "") -> str:
    impl = resolve("otel-appender" + (f"@{version}" if version else ""))
    with open(os.path.join(REPO_ROOT, expected_path(impl, name)), encoding="utf-8") as f:
        return f.read()


def events(text: str):
    return [json.loads(x) for x in text.splitlines() if x.strip() and not x.startswith('{"ehconf"')]


def text_of(evs) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in evs)


@pytest.mark.parametrize("name", INPUTS)
def test_the_expectations_pass_as_written(name):
    text = golden_text(name)
    assert compare(text, text_of(events(text)), name).ok


# One perturbation per thing the bridge decides: (input, event index, what it does).
def _severity(e):
    e["PartB"]["severityNumber"] = 5  # INFO mapped to Debug's number
def _text(e):
    e["PartB"]["severityText"] = "Info"  # not the level's own name
def _level(e):
    e["meta"]["level"] = 5  # the tracepoint of another severity
def _body_lost(e):
    del e["PartB"]["body"]
def _field_kind(e):
    e["PartC"]["big_u64value"] = -1  # a u64 above i64::MAX wrapped instead of its text
def _error_key(e):
    e["PartC"]["error"] = e["PartC"].pop("exception.message")  # the field's own key kept
def _name(e):
    e["PartB"]["name"] = "Log"
def _span(e):
    e["PartA"]["ext_dt_spanId"] = "0000000000000000"
def _no_span(e):
    e["PartA"]["ext_dt_traceId"] = "4bf92f3577b34da6a3ce929d0e0e4736"


PERTURBED = [("levels", 2, _severity), ("levels", 2, _text), ("levels", 2, _level),
             ("bodies", 0, _body_lost), ("fields", 0, _field_kind), ("fields", 0, _error_key),
             ("names", 0, _name), ("trace_context", 0, _span), ("trace_context", 1, _no_span)]


@pytest.mark.parametrize("name,index,change", PERTURBED,
                         ids=[f"{n}-{i}-{c.__name__.strip('_')}" for n, i, c in PERTURBED])
@pytest.mark.parametrize("version", ["", "0.33.1"])
def test_a_perturbed_output_fails(name, index, change, version):
    text = golden_text(name, version)
    evs = events(text)
    change(evs[index])
    result = compare(text, text_of(evs), name)
    assert not result.ok and result.failed_events == 1, result.message


def test_each_release_has_its_own_time_format():
    """0.32.0 runs with logs 0.16.0 (+00:00), 0.33.1 with 0.18.0 (Z): one release's output
    fails the other's expectation."""
    old, new = golden_text("levels"), golden_text("levels", "0.33.1")
    assert "+00:00" in old and '"time": "2023-11-14T22:13:20Z"' in new
    assert not compare(new, text_of(events(old)), "levels").ok
    assert not compare(old, text_of(events(new)), "levels").ok


@pytest.mark.parametrize("version", ["0.32.0", "0.33.1"])
def test_the_declaration_lets_through_its_observation_only(version):
    impl = resolve(f"otel-appender@{version}")
    profile = read_profile(impl)
    ops = profile.observed[("bodies", 6)]
    golden = golden_text("bodies", "" if version == "0.32.0" else version).splitlines()[5]
    seen = expected_line(golden, ops)
    assert json.loads(seen)["PartC"] == {"message": 42} and "body" not in json.loads(seen)["PartB"]
    assert judge_event(golden, seen, ops)[0] == "xfail"
    assert judge_event(golden, golden, ops)[0] == "fail"  # fixed: narrow the declaration
    changed = perturbations(seen, [])
    assert changed and all(judge_event(golden, line, ops)[0] == "fail" for line, _ in changed)


@pytest.mark.parametrize("version,chosen", [("0.32.0", "internal.json"), ("0.33.1", "internal@0.33.0.json"),
                                            ("0.34.0", "internal@0.33.0.json")])
def test_a_declared_sequence_is_observed_per_release(version, chosen):
    """A3's observed events carry PartA times in the release's format: each release takes
    observed/<input>@<V>.json of the greatest V not above it, as its expectations do."""
    from harness.impl.registry import observed_sequence_path
    path = observed_sequence_path(resolve(f"otel-appender@{version}"), "internal")
    assert os.path.basename(path) == chosen and os.path.exists(path)
