# SPDX-License-Identifier: GPL-2.0
"""scripts/otlp-decode.py, the decoder column of impl/otel-metrics: one OTLP
ExportMetricsServiceRequest encoded here by hand from opentelemetry-proto's field numbers,
read from a capture record and from what ehdecode prints of a perf sample (the buffer as an
array of bytes); the expected JSON follows the OTLP/JSON mapping the script documents
(declaration order, 64-bit integers as strings), written here, not taken from a run."""

from __future__ import annotations

import json
import os
import struct

from harness.core.common import REPO_ROOT
from harness.core.processes import run

SCRIPT = os.path.join(REPO_ROOT, "scripts", "otlp-decode.py")


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num: int, wire: int, payload: bytes) -> bytes:
    key = varint(num << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def msg(num: int, *parts: bytes) -> bytes:
    return field(num, 2, b"".join(parts))


# resourceMetrics { scopeMetrics { scope { name "s" } metrics { name "m" sum { dataPoints {
#   asInt 200 (sfixed64, field 6: a byte above 127) attributes { key "seq" value { intValue 5 } } (field 7) }
#   aggregationTemporality 1 isMonotonic true } } } }
POINT = (field(6, 1, struct.pack("<q", 200))
         + msg(7, field(1, 2, b"seq"), msg(2, field(3, 0, varint(5)))))
METRIC = field(1, 2, b"m") + msg(7, msg(1, POINT), field(2, 0, varint(1)), field(3, 0, varint(1)))
REQUEST = msg(1, msg(2, msg(1, field(1, 2, b"s")), msg(2, METRIC)))

EXPECTED = ('{ "n": "user_events:otlp_metrics", "protocol": 0, "version": "v0.19.00", '
            '"buffer": { "resourceMetrics": [ { "scopeMetrics": [ { "scope": { "name": "s" }, '
            '"metrics": [ { "name": "m", "sum": { "dataPoints": [ { "attributes": [ { "key": '
            '"seq", "value": { "intValue": "5" } } ], "asInt": "200" } ], '
            '"aggregationTemporality": 1, "isMonotonic": true } } ] } ] } ] }, "meta": { } }')


def record(buffer: bytes) -> bytes:
    """A capture record (eventheader-wire.md §9): size, name, NUL, then the fields after
    the write index: protocol u32, version char[8], __rel_loc (size << 16 | offset from
    the end of the location word), the buffer."""
    body = (b"otlp_metrics\0" + struct.pack("<I", 0) + b"v0.19.00"
            + struct.pack("<I", len(buffer) << 16) + buffer)
    return struct.pack("<I", 4 + len(body)) + body


def test_a_capture_record(tmp_path):
    dat = tmp_path / "m.dat"
    dat.write_bytes(record(REQUEST))
    r = run([SCRIPT, str(dat)], 60, merge_stderr=False)
    assert r.returncode == 0, r.stderr
    assert r.output.splitlines() == [EXPECTED]


def test_what_ehdecode_printed_of_a_perf_sample(tmp_path):
    perf_json = tmp_path / "m.perf.json"
    other = '{ "n": "user_events:x", "a": 1 }'
    perf_json.write_text(other + "\n" + json.dumps(
        {"n": "user_events:otlp_metrics", "protocol": 0, "version": "v0.19.00",
         "buffer": list(REQUEST), "meta": {}}) + "\n")
    r = run([SCRIPT, "--from-ehdecode", str(perf_json)], 60, merge_stderr=False)
    assert r.returncode == 0, r.stderr
    assert r.output.splitlines() == [other, EXPECTED]


def test_signed_bytes_as_the_kernels_format_says(tmp_path):
    """6.12's format for `__rel_loc u8[] buffer` says signed:1, so ehdecode prints bytes
    above 127 as negative numbers: the same bytes."""
    signed = [b - 256 if b > 127 else b for b in REQUEST]
    assert any(b < 0 for b in signed)
    perf_json = tmp_path / "m.perf.json"
    perf_json.write_text(json.dumps({"n": "user_events:otlp_metrics", "protocol": 0,
                                     "version": "v0.19.00", "buffer": signed}) + "\n")
    r = run([SCRIPT, "--from-ehdecode", str(perf_json)], 60, merge_stderr=False)
    assert r.returncode == 0, r.stderr
    assert r.output.splitlines() == [EXPECTED]


def test_a_cut_buffer_is_an_error_line_and_exit_1(tmp_path):
    perf_json = tmp_path / "m.perf.json"
    perf_json.write_text(json.dumps({"n": "user_events:otlp_metrics", "protocol": 0,
                                     "version": "v0.19.00", "buffer": list(REQUEST[:-3])}) + "\n")
    r = run([SCRIPT, "--from-ehdecode", str(perf_json)], 60, merge_stderr=False)
    assert r.returncode == 1
    [line] = r.output.splitlines()
    assert json.loads(line)["error"] and "line 1" in r.stderr, (line, r.stderr)


def test_definitions_name_the_exporters_tracepoint():
    r = run([SCRIPT, "--definitions"], 60, merge_stderr=False)
    assert r.returncode == 0
    assert r.output.split()[0] == "otlp_metrics" and "__rel_loc u8[] buffer" in r.output
