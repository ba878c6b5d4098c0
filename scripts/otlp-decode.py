#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""otlp-decode FILE.dat... | otlp-decode --from-ehdecode PERF.json: the `otlp_metrics` events of OpenTelemetry's user_events metrics
exporter (impl/otel-metrics/) as JSON lines, the form of impl/otel-metrics/expected/*.json.

The exporter does not write EventHeader: it registers the plain tracepoint
`otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer` and writes one OTLP
ExportMetricsServiceRequest (protobuf) per data point in `buffer`. ehdecode decodes every
capture record as EventHeader (Documentation/decoder-json.md §6) and prints a `__rel_loc`
field of a perf sample by its location word (§7), so neither shows the data; this does, for
ehconf's capture files (Documentation/eventheader-wire.md §9: u32 record size, tracepoint
name, NUL, the bytes after the write index), and, with --from-ehdecode, for what `ehdecode
--golden` printed of a perf.data (the buffer as the array of its bytes). --definitions
prints the tracepoint's user_events definition.

One line per record, spaced as `ehdecode --golden` spaces (decoder-json.md §1):

  { "n": "user_events:otlp_metrics", "protocol": 0, "version": "v0.19.00",
    "buffer": <the ExportMetricsServiceRequest>, "meta": { } }

The buffer in the OTLP/JSON mapping (Documentation/producers-otel.md §3.4): lowerCamelCase
member names in the .proto's declaration order; exactly the fields present on the wire (proto3
leaves default scalars out, a oneof member or an `optional` field is there when set);
64-bit integers as decimal strings, 32-bit ones and enums as numbers; doubles as numbers in
the shortest text that reads back the same (`16`, `1.5`, `1e+300`), or "NaN", "Infinity",
"-Infinity"; bytes as base64 (AnyValue) or lowercase hex (trace and span ids). Every
`attributes` list (and `metadata`) is sorted by key, keeping the order of equal keys: OTLP
attributes are a map, and the SDK's resource iterates a hash map. A record of another
tracepoint, or one that does not parse, is `{ "n": "user_events:<name>", "error": <why>,
"fileOffset": <offset> }`. Exit status 0 when every record decoded, 1 otherwise, 2 for a usage
error. Standard library only.
"""

import base64
import json
import math
import struct
import sys

# Message schemas: field number -> (JSON name, type, repeated). Types: a message name, or
# string, bytes, hexbytes, bool, uint32, int32, sint32, enum, int64, uint64, sint64, fixed64,
# sfixed64, double. Listed in the .proto's declaration order (opentelemetry-proto v1).
KV = ("KeyValue", True)
SCHEMA = {
    "ExportMetricsServiceRequest": [(1, "resourceMetrics", "ResourceMetrics", True)],
    "ResourceMetrics": [(1, "resource", "Resource", False), (2, "scopeMetrics", "ScopeMetrics", True),
                        (3, "schemaUrl", "string", False)],
    "Resource": [(1, "attributes", *KV), (2, "droppedAttributesCount", "uint32", False),
                 (3, "entityRefs", "EntityRef", True)],
    "EntityRef": [(1, "schemaUrl", "string", False), (2, "type", "string", False),
                  (3, "idKeys", "string", True), (4, "descriptionKeys", "string", True)],
    "ScopeMetrics": [(1, "scope", "InstrumentationScope", False), (2, "metrics", "Metric", True),
                     (3, "schemaUrl", "string", False)],
    "InstrumentationScope": [(1, "name", "string", False), (2, "version", "string", False),
                             (3, "attributes", *KV), (4, "droppedAttributesCount", "uint32", False)],
    "Metric": [(1, "name", "string", False), (2, "description", "string", False),
               (3, "unit", "string", False), (5, "gauge", "Gauge", False), (7, "sum", "Sum", False),
               (9, "histogram", "Histogram", False),
               (10, "exponentialHistogram", "ExponentialHistogram", False),
               (11, "summary", "Summary", False), (12, "metadata", *KV)],
    "Gauge": [(1, "dataPoints", "NumberDataPoint", True)],
    "Sum": [(1, "dataPoints", "NumberDataPoint", True), (2, "aggregationTemporality", "enum", False),
            (3, "isMonotonic", "bool", False)],
    "Histogram": [(1, "dataPoints", "HistogramDataPoint", True),
                  (2, "aggregationTemporality", "enum", False)],
    "ExponentialHistogram": [(1, "dataPoints", "ExponentialHistogramDataPoint", True),
                             (2, "aggregationTemporality", "enum", False)],
    "Summary": [(1, "dataPoints", "SummaryDataPoint", True)],
    "NumberDataPoint": [(7, "attributes", *KV), (2, "startTimeUnixNano", "fixed64", False),
                        (3, "timeUnixNano", "fixed64", False), (4, "asDouble", "double", False),
                        (6, "asInt", "sfixed64", False), (5, "exemplars", "Exemplar", True),
                        (8, "flags", "uint32", False)],
    "HistogramDataPoint": [(9, "attributes", *KV), (2, "startTimeUnixNano", "fixed64", False),
                           (3, "timeUnixNano", "fixed64", False), (4, "count", "fixed64", False),
                           (5, "sum", "double", False), (6, "bucketCounts", "fixed64", True),
                           (7, "explicitBounds", "double", True), (8, "exemplars", "Exemplar", True),
                           (10, "flags", "uint32", False), (11, "min", "double", False),
                           (12, "max", "double", False)],
    "ExponentialHistogramDataPoint": [
        (1, "attributes", *KV), (2, "startTimeUnixNano", "fixed64", False),
        (3, "timeUnixNano", "fixed64", False), (4, "count", "fixed64", False),
        (5, "sum", "double", False), (6, "scale", "sint32", False), (7, "zeroCount", "fixed64", False),
        (8, "positive", "Buckets", False), (9, "negative", "Buckets", False),
        (10, "flags", "uint32", False), (11, "exemplars", "Exemplar", True),
        (12, "min", "double", False), (13, "max", "double", False),
        (14, "zeroThreshold", "double", False)],
    "Buckets": [(1, "offset", "sint32", False), (2, "bucketCounts", "uint64", True)],
    "SummaryDataPoint": [(7, "attributes", *KV), (2, "startTimeUnixNano", "fixed64", False),
                         (3, "timeUnixNano", "fixed64", False), (4, "count", "fixed64", False),
                         (5, "sum", "double", False), (6, "quantileValues", "ValueAtQuantile", True),
                         (8, "flags", "uint32", False)],
    "ValueAtQuantile": [(1, "quantile", "double", False), (2, "value", "double", False)],
    "Exemplar": [(7, "filteredAttributes", *KV), (2, "timeUnixNano", "fixed64", False),
                 (3, "asDouble", "double", False), (6, "asInt", "sfixed64", False),
                 (4, "spanId", "hexbytes", False), (5, "traceId", "hexbytes", False)],
    "KeyValue": [(1, "key", "string", False), (2, "value", "AnyValue", False),
                 (3, "keyStrindex", "int32", False)],
    "AnyValue": [(1, "stringValue", "string", False), (2, "boolValue", "bool", False),
                 (3, "intValue", "int64", False), (4, "doubleValue", "double", False),
                 (5, "arrayValue", "ArrayValue", False), (6, "kvlistValue", "KeyValueList", False),
                 (7, "bytesValue", "bytes", False), (8, "stringValueStrindex", "int32", False)],
    "ArrayValue": [(1, "values", "AnyValue", True)],
    "KeyValueList": [(1, "values", *KV)],
}
VARINT = {"bool", "uint32", "int32", "sint32", "enum", "int64", "uint64", "sint64"}
FIXED64 = {"fixed64", "sfixed64", "double"}
SORTED = {"attributes", "metadata", "filteredAttributes"}


class Bad(Exception):
    pass


class Num(str):
    """A JSON number kept as its text."""


class Msg(list):
    """A message or object: (name, value) pairs in order."""


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise Bad("a varint runs past the end")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        if not c & 0x80:
            return v, i
        shift += 7
        if shift > 63:
            raise Bad("a varint longer than 10 bytes")


def double_text(x):
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    t = repr(x)
    if t.endswith(".0"):
        t = t[:-2]
    return Num(t)


def scalar(kind, v):
    """A wire value (an int from a varint or fixed field, or bytes) as JSON."""
    if kind == "bool":
        return bool(v)
    if kind in ("uint32", "enum"):
        return Num(str(v & 0xFFFFFFFF))
    if kind == "int32":
        v &= 0xFFFFFFFF
        return Num(str(v - (1 << 32) if v >> 31 else v))
    if kind == "sint32":
        return Num(str((v >> 1) ^ -(v & 1)))
    if kind in ("uint64", "fixed64"):
        return str(v)
    if kind in ("int64", "sfixed64"):
        return str(v - (1 << 64) if v >> 63 else v)
    if kind == "sint64":
        return str((v >> 1) ^ -(v & 1))
    if kind == "double":
        return double_text(struct.unpack("<d", struct.pack("<Q", v))[0])
    raise Bad(f"no scalar {kind}")


def message(name, b):
    """Decodes message `name` from bytes: a list of (json name, value) in declaration order."""
    fields = {f[0]: f for f in SCHEMA[name]}
    got = {}
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        f = fields.get(num)
        if wt == 0:
            raw, i = varint(b, i)
        elif wt == 1:
            if i + 8 > len(b):
                raise Bad("a 64-bit field runs past the end")
            raw = struct.unpack_from("<Q", b, i)[0]
            i += 8
        elif wt == 5:
            if i + 4 > len(b):
                raise Bad("a 32-bit field runs past the end")
            raw = struct.unpack_from("<I", b, i)[0]
            i += 4
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise Bad(f"{name} field {num}: length {n} runs past the end")
            raw = b[i:i + n]
            i += n
        else:
            raise Bad(f"{name} field {num}: wire type {wt}")
        if f is None:
            got.setdefault(num, (f"?{num}", []))[1].append(raw.hex() if isinstance(raw, bytes) else str(raw))
            continue
        _, jname, kind, rep = f
        vals = got.setdefault(num, (jname, []))[1]
        if kind in SCHEMA:
            if wt != 2:
                raise Bad(f"{name}.{jname}: a message with wire type {wt}")
            vals.append(message(kind, bytes(raw)))
        elif kind in ("string", "bytes", "hexbytes"):
            if wt != 2:
                raise Bad(f"{name}.{jname}: wire type {wt}")
            if kind == "string":
                try:
                    vals.append(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    raise Bad(f"{name}.{jname}: not UTF-8")
            elif kind == "bytes":
                vals.append(base64.b64encode(raw).decode())
            else:
                vals.append(raw.hex())
        elif wt == 2 and rep:  # packed
            j = 0
            while j < len(raw):
                if kind in FIXED64:
                    if j + 8 > len(raw):
                        raise Bad(f"{name}.{jname}: packed data cut short")
                    vals.append(scalar(kind, struct.unpack_from("<Q", raw, j)[0]))
                    j += 8
                else:
                    v, j = varint(raw, j)
                    vals.append(scalar(kind, v))
        else:
            if (kind in FIXED64) != (wt == 1) or (kind in VARINT) != (wt == 0):
                raise Bad(f"{name}.{jname}: wire type {wt} for {kind}")
            vals.append(scalar(kind, raw))
    out = []
    for num, jname, kind, rep in SCHEMA[name]:
        if num not in got:
            continue
        vals = got[num][1]
        if rep:
            if jname in SORTED:
                vals = sorted(vals, key=lambda kv: dict(kv).get("key", ""))
            out.append((jname, vals))
        else:
            out.append((jname, vals[-1]))  # the last one wins, as in protobuf
    out += [got[n] for n in got if n not in {f[0] for f in SCHEMA[name]}]
    return Msg(out)


def text(v):
    """ehdecode's spacing (decoder-json.md §1)."""
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Msg):
        if not v:
            return "{ }"
        return "{ " + ", ".join(json.dumps(k, ensure_ascii=False) + ": " + text(x) for k, x in v) + " }"
    if isinstance(v, list):
        return "[ " + ", ".join(text(x) for x in v) + " ]" if v else "[ ]"
    raise TypeError(v)


def record(name, data):
    if name != "otlp_metrics":
        raise Bad("not the otlp_metrics tracepoint")
    if len(data) < 16:
        raise Bad(f"{len(data)} bytes: shorter than protocol, version and buffer's location")
    protocol = struct.unpack_from("<I", data, 0)[0]
    version = data[4:12].split(b"\0", 1)[0].decode("latin-1")
    loc = struct.unpack_from("<I", data, 12)[0]
    size, offset = loc >> 16, loc & 0xFFFF
    start = 16 + offset
    if start + size > len(data):
        raise Bad(f"buffer's __rel_loc (size {size}, offset {offset}) runs past the event")
    buf = message("ExportMetricsServiceRequest", bytes(data[start:start + size]))
    return text(Msg([("n", "user_events:otlp_metrics"), ("protocol", Num(str(protocol))),
                     ("version", version), ("buffer", buf), ("meta", Msg())]))


def buffer_bytes(value):
    """The buffer field as ehdecode prints a perf sample's `__rel_loc u8[]`: an array of
    numbers, or hex bytes ("0a 1b"). The numbers may be signed: the kernel's format says
    `signed:1` for this u8 array (6.12: `field:__rel_loc u8 buffer[]; ... signed:1;`), and
    ehdecode follows the format; the bytes are the same."""
    if isinstance(value, list) and all(isinstance(b, int) and not isinstance(b, bool)
                                       and -128 <= b <= 255 for b in value):
        return bytes(b & 0xFF for b in value)
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raise Bad("buffer is neither an array of bytes nor hex bytes")


def from_ehdecode(path):
    """ehdecode's JSON lines of a perf.data (decoder-json.md §7: one member per format
    field) with each otlp_metrics buffer decoded; other lines are kept as they are."""
    rc = 0
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    for n, line in enumerate(lines, 1):
        try:
            ev = json.loads(line)
        except ValueError:
            print(line)
            continue
        if not isinstance(ev, dict) or ev.get("n") != "user_events:otlp_metrics":
            print(line)
            continue
        try:
            buf = message("ExportMetricsServiceRequest", buffer_bytes(ev.get("buffer")))
            print(text(Msg([("n", "user_events:otlp_metrics"),
                            ("protocol", Num(str(ev.get("protocol")))),
                            ("version", str(ev.get("version"))), ("buffer", buf), ("meta", Msg())])))
        except (Bad, RecursionError) as e:
            rc = 1
            print(f"otlp-decode: {path}: line {n}: {e}", file=sys.stderr)
            print(text(Msg([("n", "user_events:otlp_metrics"), ("error", str(e)),
                            ("line", Num(str(n)))])))
    return rc


# The tracepoint the exporter registers (its src/tracepoint/mod.rs), for a consumer that must
# register it first (perf opens only a registered event; the kernel takes a second
# registration only with the same fields): `otlp-decode --definitions`.
DEFINITION = "otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer"


def main(argv):
    if argv[1:] == ["--definitions"]:
        print(DEFINITION)
        return 0
    if len(argv) == 3 and argv[1] == "--from-ehdecode":
        return from_ehdecode(argv[2])
    if len(argv) < 2 or argv[1].startswith("-"):
        print("usage: otlp-decode FILE.dat... | otlp-decode --from-ehdecode FILE.json | "
              "otlp-decode --definitions", file=sys.stderr)
        return 2
    rc = 0
    for path in argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        i = 0
        while i < len(data):
            if i + 4 > len(data):
                print(f"otlp-decode: {path}:{i}: a record size cut short", file=sys.stderr)
                return 1
            size = struct.unpack_from("<I", data, i)[0]
            if size < 5 or i + size > len(data):
                print(f"otlp-decode: {path}:{i}: record size {size} does not fit", file=sys.stderr)
                return 1
            rec = data[i + 4:i + size]
            nul = rec.find(b"\0")
            name = rec[:nul].decode("latin-1") if nul >= 0 else ""
            try:
                if nul < 0:
                    raise Bad("a tracepoint name without NUL")
                print(record(name, rec[nul + 1:]))
            except (Bad, RecursionError) as e:
                rc = 1
                print(f"otlp-decode: {path}:{i}: {e}", file=sys.stderr)
                print(text(Msg([("n", f"user_events:{name}"), ("error", str(e)),
                                ("fileOffset", Num(str(i)))])))
            i += size
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
