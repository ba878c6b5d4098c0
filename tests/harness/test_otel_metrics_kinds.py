# SPDX-License-Identifier: GPL-2.0
"""otel-metrics' exponential histograms (issue 40 item 4): the judge of
impl/otel-metrics/expected/exponential.json fails when the scale, the bucket offset, a bucket
count, the zero count or the kind of histogram differs, on both pinned releases, and so when
the negative range of the data point with negative values (event 3) does. The outputs are the
golden lines, perturbed: no emitter is built."""

from __future__ import annotations

import json
import os

import pytest

from harness.core.common import REPO_ROOT
from harness.core.golden import compare
from harness.impl.registry import expected_path, resolve


def golden_text(version: str) -> str:
    with open(os.path.join(REPO_ROOT, expected_path(resolve(f"otel-metrics@{version}"), "exponential")),
              encoding="utf-8") as f:
        return f.read()


def point(e):
    return e["buffer"]["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]["exponentialHistogram"]["dataPoints"][0]


def _scale(e):
    point(e)["scale"] = 1
def _offset(e):
    point(e)["positive"]["offset"] = 0
def _bucket(e):
    point(e)["positive"]["bucketCounts"][1] = "2"
def _zero(e):
    point(e)["zeroCount"] = "0"
def _explicit(e):
    m = e["buffer"]["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]
    m["histogram"] = m.pop("exponentialHistogram")  # the explicit-bucket kind instead


@pytest.mark.parametrize("version", ["0.13.0", "0.14.0"])
@pytest.mark.parametrize("change", [_scale, _offset, _bucket, _zero, _explicit],
                         ids=lambda c: c.__name__.strip("_"))
def test_a_perturbed_exponential_histogram_fails(version, change):
    text = golden_text(version)
    lines = [x for x in text.splitlines() if x.strip()]
    evs = [json.loads(x) for x in lines if not x.startswith('{"ehconf"')]
    assert compare(text, "".join(json.dumps(e) + "\n" for e in evs), "exponential").ok
    change(evs[0])
    result = compare(text, "".join(json.dumps(e) + "\n" for e in evs), "exponential")
    assert not result.ok, result.message


def _neg_offset(e):
    point(e)["negative"]["offset"] = point(e)["positive"]["offset"]
def _neg_bucket(e):
    point(e)["negative"]["bucketCounts"] = ["2"]
def _neg_as_positive(e):
    p = point(e)
    p["positive"], p["negative"] = p["negative"], p["positive"]


@pytest.mark.parametrize("version", ["0.13.0", "0.14.0"])
@pytest.mark.parametrize("change", [_neg_offset, _neg_bucket, _neg_as_positive, _zero],
                         ids=lambda c: c.__name__.strip("_"))
def test_a_perturbed_negative_range_fails(version, change):
    text = golden_text(version)
    evs = [json.loads(x) for x in text.splitlines() if x.strip() and not x.startswith('{"ehconf"')]
    assert "negative" in point(evs[2]) and point(evs[2])["negative"].get("bucketCounts")
    change(evs[2])
    result = compare(text, "".join(json.dumps(e) + "\n" for e in evs), "exponential")
    assert not result.ok, result.message
