# SPDX-License-Identifier: GPL-2.0
"""A decoder's JSON document read strictly, its events normalized, and compared with the
reference's (ehdecode's) event by event: the judge of make check-decoders
(Documentation/decoders.md §3 is the normalization, rule by rule). No program runs here.

    doc = read_document(raw_bytes)         strict JSON, or why not (and the events that
                                            could still be read line by line)
    diff = compare(reference_events, events)
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Dict, List, Optional, Tuple

BOM = b"\xef\xbb\xbf"

# An event as compared: its members in order, meta apart; values normalized (below).
Pairs = List[Tuple[str, object]]


@dataclass
class Event:
    name: str
    time: Optional[Decimal]  # meta.time, seconds
    fields: Pairs  # every member but "meta", in order (duplicates kept)
    meta: Dict[str, object]
    line: str = ""  # as the decoder printed it (for a finding)


@dataclass
class Document:
    events: List[Event]
    problem: str = ""  # "" when the whole document is valid JSON of the expected shape
    unreadable: int = 0  # lines that looked like events but were not JSON (salvage)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


# §3: the spellings of a float that is not a number (JSON has none; the format defines
# none): one value each, a NaN's sign dropped.
NON_FINITE = {"nan": "nan", "-nan": "nan", "+nan": "nan", "inf": "inf", "+inf": "inf",
              "infinity": "inf", "-inf": "-inf", "-infinity": "-inf"}


# §3: hex bytes ("00 01 7f", as binary and hex_bytes fields print) in either case.
HEX_BYTES = re.compile(r"^[0-9A-Fa-f]{2}( [0-9A-Fa-f]{2})*$")
# §3: a time field (format time: seconds since 1970, UTC) with or without the "Z".
UTC_TIME = re.compile(r"^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def _normalize(value):
    """§3: numbers as decimal values (1 and 1.000000000 are equal), objects as their
    member pairs in order, non-finite floats as one spelling, hex bytes in lower case, a
    UTC time without its Z, everything else as parsed."""
    if isinstance(value, str):
        if HEX_BYTES.match(value):
            return value.lower()
        if UTC_TIME.match(value):
            return value[:-1]
        return NON_FINITE.get(value.lower(), value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, Decimal)):
        return Decimal(value).normalize() if Decimal(value) != 0 else Decimal(0)
    if isinstance(value, list):
        if value and all(isinstance(p, tuple) and len(p) == 2 for p in value) and \
                getattr(value, "is_object", False):
            return [(k, _normalize(v)) for k, v in value]
        return [_normalize(v) for v in value]
    return value


class _Obj(list):
    """A JSON object kept as its (name, value) pairs, in order, duplicates included."""
    is_object = True


def _loads(text: str):
    return json.loads(text, object_pairs_hook=_Obj, parse_float=Decimal,
                      parse_constant=_reject_constant)


def _event(obj, line: str) -> Optional[Event]:
    """An event object, or None for what §3 leaves out (perf's non-sample records)."""
    if not isinstance(obj, _Obj):
        return None
    pairs = [(k, _normalize(v)) for k, v in obj]
    names = [k for k, _ in pairs]
    if "NonSample" in names:
        return None
    meta = dict(next((v for k, v in pairs if k == "meta" and isinstance(v, list)), []) or [])
    # §3: a meta without tid means tid = pid (the Rust decoder prints tid only when they
    # differ: tracepoint_decode/src/display.rs, the "tid" member).
    if "pid" in meta and "tid" not in meta:
        meta["tid"] = meta["pid"]
    time = meta.get("time")
    if isinstance(time, str):
        # §3 rule 8: a wall-clock time (perf.data with clock data) as seconds since 1970
        time = wall_seconds(time)
        if time is not None:
            meta["time"] = time
    name = next((v for k, v in pairs if k == "n"), "")
    return Event(name if isinstance(name, str) else json.dumps(str(name)),
                 time if isinstance(time, Decimal) else None,
                 [(k, v) for k, v in pairs if k != "meta"], meta, line)


WALL_TIME = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?Z?$")


def wall_seconds(text: str) -> Optional[Decimal]:
    """§3 rule 8: meta's wall-clock time ("2024-01-01T00:00:00.123456789Z", what a decoder
    prints from perf's clock data) as a decimal number of seconds since 1970 (UTC), so
    that 7 and 9 fractional digits of one instant are one value; None for another shape."""
    m = WALL_TIME.match(text)
    if not m:
        return None
    y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    # days from 1970-01-01 (the proleptic Gregorian calendar)
    yy = y - (mo <= 2)
    era = yy // 400
    doe = yy - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + doe * 365 + doe // 4 - doe // 100 + doy - 719468
    frac = Decimal(m.group(7)) if m.group(7) else Decimal(0)
    return (Decimal(days * 86400 + h * 3600 + mi * 60 + sec) + frac).normalize()


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    start = text.rfind("\n", 0, pos) + 1
    excerpt = text[max(start, pos - 40):pos + 40]
    return f"line {line} column {pos - start + 1}: {excerpt!r}"


def read_document(raw: bytes) -> Document:
    """§2: a BOM, then one JSON object whose one member is the input file's array of
    events. Strictly: UTF-8, no NaN/Infinity. When that fails, each line that holds one
    event object (`{ ... }` with an optional trailing comma, as all three decoders print
    them) is read on its own, so the events can still be compared."""
    body = raw[len(BOM):] if raw.startswith(BOM) else raw
    problem = ""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        text = body.decode("utf-8", errors="surrogateescape")
        problem = f"invalid UTF-8 at byte {e.start + (len(raw) - len(body))}: " \
                  f"{_where(text, len(body[:e.start].decode('utf-8', 'replace')))}"
    if not problem:
        try:
            doc = _loads(text)
        except ValueError as e:
            pos = getattr(e, "pos", 0) or 0
            problem = f"invalid JSON: {getattr(e, 'msg', str(e))} at {_where(text, pos)}"
        else:
            if not (isinstance(doc, _Obj) and len(doc) == 1 and isinstance(doc[0][1], list)):
                problem = "the document is not one object holding one array of events"
            else:
                events = [ev for ev in (_event(o, "") for o in doc[0][1]) if ev]
                return Document(events)
    events, unreadable = [], 0
    decoder = json.JSONDecoder(object_pairs_hook=_Obj, parse_float=Decimal,
                               parse_constant=_reject_constant)
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("{ \"") and not s.startswith("{\""):
            continue
        try:  # the object at the start of the line; a "," or the array's "]" may follow
            obj, end = decoder.raw_decode(s)
            if s[end:].strip() not in ("", ",", "]", "}", "] }", "]}"):
                raise ValueError("more after the object")
            ev = _event(obj, line)
        except ValueError:
            unreadable += 1
            continue
        if ev:
            events.append(ev)
    return Document(events, problem, unreadable)


@dataclass
class Difference:
    kind: str  # missing (the reference has it), extra (only the decoder), differs
    reference: Optional[Event]
    decoder: Optional[Event]
    what: str  # the first differing member, both ways


@dataclass
class Comparison:
    differences: List[Difference] = field(default_factory=list)  # of the fields
    meta: Dict[str, int] = field(default_factory=dict)  # meta member -> events differing
    meta_example: Dict[str, str] = field(default_factory=dict)
    matched: int = 0


def show(value) -> str:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list) and getattr(value, "is_object", False) or (
            isinstance(value, list) and value and isinstance(value[0], tuple)):
        return "{ " + ", ".join(f"{json.dumps(k)}: {show(v)}" for k, v in value) + " }"
    if isinstance(value, list):
        return "[ " + ", ".join(show(v) for v in value) + " ]"
    return json.dumps(value, ensure_ascii=True)


def _first_difference(ref: Pairs, got: Pairs) -> str:
    for i in range(max(len(ref), len(got))):
        a = ref[i] if i < len(ref) else None
        b = got[i] if i < len(got) else None
        if a != b:
            fa = f"{json.dumps(a[0])}: {show(a[1])}" if a else "(nothing)"
            fb = f"{json.dumps(b[0])}: {show(b[1])}" if b else "(nothing)"
            return f"member {i + 1}: reference {fa[:300]}; decoder {fb[:300]}"
    return ""


# A decoder that prints fewer fractional digits of a time (the Rust decoder's wall-clock
# time has 7) still pairs with the reference's event; meta.time then differs (§4).
NEAR = Decimal("0.000001")


def near(pending: Dict[Tuple[str, Optional[Decimal]], List[Event]], ref: Event):
    """The pending list of the decoder's events of ref's name whose time lies within NEAR
    below ref's (a time cut to fewer digits), or None."""
    if ref.time is None:
        return None
    for (name, t), evs in pending.items():
        if evs and name == ref.name and t is not None and ref.time - NEAR < t <= ref.time:
            return evs
    return None


def compare(reference: List[Event], events: List[Event]) -> Comparison:
    """§4: events paired by name and time (in order among equal ones), then compared
    member by member; meta members counted apart (a decoder may print less meta)."""
    c = Comparison()
    pending: Dict[Tuple[str, Optional[Decimal]], List[Event]] = {}
    for ev in events:
        pending.setdefault((ev.name, ev.time), []).append(ev)
    for ref in reference:
        mine = pending.get((ref.name, ref.time)) or near(pending, ref)
        if not mine:
            c.differences.append(Difference("missing", ref, None, "not decoded"))
            continue
        got = mine.pop(0)
        c.matched += 1
        what = _first_difference(ref.fields, got.fields)
        if what:
            c.differences.append(Difference("differs", ref, got, what))
        for k in sorted(set(ref.meta) | set(got.meta)):
            a, b = ref.meta.get(k, "(none)"), got.meta.get(k, "(none)")
            if a != b:
                c.meta[k] = c.meta.get(k, 0) + 1
                c.meta_example.setdefault(k, f"{ref.name}: reference {show(a)}, "
                                             f"decoder {show(b)}")
    for left in pending.values():
        for ev in left:
            c.differences.append(Difference("extra", None, ev, "not in the reference"))
    return c
