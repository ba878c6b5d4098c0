# SPDX-License-Identifier: GPL-2.0
"""A decoder's declared events: what an `events` line of decoders/<name>/profile.txt lets
through, read from the observation file it names (decoders/<name>/observed/<file>.json),
and the judge that holds a capture's events to it (Documentation/decoders.md §6.1).

An observation file is one JSON object:

    {"declares": [
       {"n": "EhconfStructs:Depth", "nth": "9-32", "lost": true, "why": "... (x.h:129)"},
       {"n": "EhconfFieldTypes:bool8", "set": {"bool8": "BOOL(2)"}, "why": "..."},
       {"n": "EhconfLimits:Top1000", "first": 256, "why": "..."},
       {"n": "*", "raw": ":", "why": "..."}, ...]}

Each entry names reference events by their name `n` (as the reference prints it; "*" is
every event of the capture) and, optionally, `nth`: which of the events of that name, 1-based
in time order ("3", "9-32", "1,4"). It states the exact output the decoder gives for them,
one of:
  lost: true      the decoder prints no event for it (or a line that is not JSON)
  set: {path: v}  the reference event with each path (a member path as harness/core/golden.py
                  flattens it: a/b#2/[0]; "n" is the name) holding v, the rest unchanged
  drop: [path]    (with or without set) those members not printed
  first: N        only the event's first N members (its name counted) printed
  event: [[k, v], ...] or {k: v}
                  the decoder's whole event (its members in order, meta aside)
  raw: NAME       the event as {"n": NAME, "raw": the sample's raw bytes in hex} (the
                  fallback of a decoder that knows no format for it), its meta the sample's
                  time, cpu, pid and tid only
and, alone or with one of those but lost:
  time_digits: N  meta.time, a wall-clock date, printed with only N fractional digits: the
                  reference's time cut (not rounded) to N digits; judged in the capture's
                  meta item (xfail when every such event shows it, an event whose time has
                  more digits than N, printed with all of them, is fixed)
  meta_drop: [m]  those meta members of the reference (e.g. "options") not printed, every
                  other meta member as the reference's; judged in the meta item the same way
                  (an event printing one of them as the reference does is fixed)
and `why`: the reason, with the upstream source line. Anything else the decoder prints for
a declared event fails, and so does any other event that differs; a declared event that
now matches the reference fails as fixed (the declaration is to be removed).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from typing import Dict, List, Optional, Tuple

from harness.decoders.compare import Event, _loads, _normalize, near, show

KINDS = ("lost", "set", "drop", "first", "event", "raw")
# What a raw fallback's meta keeps: the perf sample's own members, none of the EventHeader's.
SAMPLE_META = ("time", "cpu", "pid", "tid")
UPSTREAM = re.compile(r"\.(rs|cpp|h):\d+")


@dataclass
class Declared:
    """One entry of an observation file."""
    source: str  # file:entry index, for messages
    name: str  # the reference's "n", or "*"
    nth: Optional[Tuple[int, ...]]  # 1-based among the events of that name; None: all
    why: str
    lost: bool = False
    set: List[Tuple[str, object]] = field(default_factory=list)  # normalized values
    drop: List[str] = field(default_factory=list)
    first: Optional[int] = None
    event: Optional[list] = None  # normalized member pairs
    raw: Optional[str] = None
    time_digits: Optional[int] = None
    meta_drop: List[str] = field(default_factory=list)

    def members_declared(self) -> bool:
        """Whether the entry states the event's members (or its loss), not only its meta."""
        return self.lost or bool(self.set or self.drop) or self.first is not None or \
            self.event is not None or self.raw is not None

    def label(self) -> str:
        which = "" if self.nth is None else " #" + ",".join(map(str, _ranges(self.nth)))
        return f"{self.name}{which}"


def _ranges(nums: Tuple[int, ...]) -> List[str]:
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return out


def _parse_nth(v, where: str) -> Optional[Tuple[int, ...]]:
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str) or not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", v):
        raise ValueError(f"{where}: nth must be like \"3\", \"9-32\" or \"1,4\", not {v!r}")
    out: List[int] = []
    for part in v.split(","):
        a, _, b = part.partition("-")
        lo, hi = int(a), int(b or a)
        if lo < 1 or hi < lo:
            raise ValueError(f"{where}: nth {part!r} is not a range from 1")
        out += range(lo, hi + 1)
    return tuple(sorted(set(out)))


def _norm_json(value):
    """A value of the observation file as the judge holds the decoder's (§3)."""
    return _normalize(_loads(json.dumps(value)))


def read_observation(path: str) -> List[Declared]:
    """The entries of an observation file; ValueError on anything malformed (a typo must
    never loosen the comparison)."""
    with open(path, encoding="utf-8") as f:
        doc = _loads(f.read())
    pairs = dict(doc) if isinstance(doc, list) and getattr(doc, "is_object", False) else None
    if pairs is None or set(pairs) != {"declares"} or not isinstance(pairs["declares"], list):
        raise ValueError(f"{path}: one object with one member \"declares\", a list")
    out = []
    for i, entry in enumerate(pairs["declares"], 1):
        where = f"{os.path.basename(path)}#{i}"
        if not getattr(entry, "is_object", False):
            raise ValueError(f"{where}: an entry is an object")
        e = dict(entry)
        unknown = set(e) - {"n", "nth", "why", "time_digits", "meta_drop"} - set(KINDS)
        if unknown:
            raise ValueError(f"{where}: unknown member(s) {sorted(unknown)}")
        if not isinstance(e.get("n"), str) or not e["n"]:
            raise ValueError(f"{where}: \"n\" names the reference's event (or \"*\")")
        why = e.get("why")
        if not isinstance(why, str) or not UPSTREAM.search(why):
            raise ValueError(f"{where}: \"why\" gives the reason with the upstream source line "
                             f"(file.rs:N, file.cpp:N or file.h:N)")
        kinds = [k for k in KINDS if k in e]
        if not kinds and "time_digits" not in e and "meta_drop" not in e or \
                ("lost" in kinds or "event" in kinds or "raw" in kinds) and len(kinds) > 1:
            raise ValueError(f"{where}: one of lost, event, raw, or set/drop/first "
                             f"(or time_digits or meta_drop alone)")
        d = Declared(where, e["n"], _parse_nth(e.get("nth"), where), why)
        if "time_digits" in e:
            td = e["time_digits"]
            if not isinstance(td, int) or isinstance(td, bool) or not 0 <= td < 9 or \
                    "lost" in e:
                raise ValueError(f"{where}: time_digits is a count of fractional digits, "
                                 f"0 to 8, of an event that is printed (not lost)")
            d.time_digits = td
        if "meta_drop" in e:
            md = e["meta_drop"]
            if not isinstance(md, list) or not md or not all(
                    isinstance(m, str) and m and m != "time" for m in md) or \
                    len(set(md)) != len(md) or "lost" in e or "raw" in e:
                raise ValueError(f"{where}: meta_drop is a list of meta member names (not "
                                 f"time: time_digits states that), of an event printed with "
                                 f"its meta (not lost, not raw)")
            d.meta_drop = list(md)
        if "lost" in e:
            if e["lost"] is not True:
                raise ValueError(f"{where}: lost is true")
            d.lost = True
        if "set" in e:
            if not getattr(e["set"], "is_object", False) or not e["set"]:
                raise ValueError(f"{where}: set is an object of path: value")
            d.set = [(k, _normalize(v)) for k, v in e["set"]]
        if "drop" in e:
            if not isinstance(e["drop"], list) or not all(isinstance(p, str) for p in e["drop"]):
                raise ValueError(f"{where}: drop is a list of paths")
            d.drop = list(e["drop"])
        if "first" in e:
            if not isinstance(e["first"], int) or isinstance(e["first"], bool) or e["first"] < 1:
                raise ValueError(f"{where}: first is a count of members from 1")
            d.first = e["first"]
        if "event" in e:
            ev = e["event"]
            if getattr(ev, "is_object", False):
                ev = [[k, v] for k, v in ev]
            if not isinstance(ev, list) or not all(isinstance(p, list) and len(p) == 2 and
                                                   isinstance(p[0], str) for p in ev):
                raise ValueError(f"{where}: event is the decoder's members, [[name, value], ...]")
            d.event = [(k, _normalize(v)) for k, v in ev]
        if "raw" in e:
            if not isinstance(e["raw"], str):
                raise ValueError(f"{where}: raw is the name the decoder prints")
            d.raw = e["raw"]
        out.append(d)
    return out


# ---- member paths (harness/core/golden.py's flattened form: a/b#2/[0]) ------------------------

def _split(path: str) -> List[Tuple[str, object, int]]:
    comps = []
    for part in path.split("/"):
        m = re.fullmatch(r"\[(\d+)\]", part)
        if m:
            comps.append(("i", int(m.group(1)), 0))
            continue
        m = re.fullmatch(r"(.*?)(?:#(\d+))?", part)
        name = m.group(1).replace("~2", "#").replace("~1", "/").replace("~0", "~")
        comps.append(("m", name, int(m.group(2) or 1)))
    return comps


def _is_obj(v) -> bool:
    return isinstance(v, list) and all(isinstance(p, tuple) and len(p) == 2 for p in v) \
        and bool(v)


def _edit(value, comps, new, drop: bool):
    """A copy of value with the member at comps set to new (or dropped); KeyError when the
    path is not there."""
    kind, key, k = comps[0]
    if kind == "i":
        if not isinstance(value, list) or _is_obj(value) or key >= len(value):
            raise KeyError(key)
        out = list(value)
        if len(comps) == 1:
            if drop:
                del out[key]
            else:
                out[key] = new
        else:
            out[key] = _edit(out[key], comps[1:], new, drop)
        return out
    if not _is_obj(value):
        raise KeyError(key)
    out, seen, done = [], 0, False
    for name, v in value:
        if name == key and not done:
            seen += 1
            if seen == k:
                done = True
                if len(comps) == 1:
                    if not drop:
                        out.append((name, new))
                    continue
                out.append((name, _edit(v, comps[1:], new, drop)))
                continue
        out.append((name, v))
    if not done:
        raise KeyError(key)
    return out


def flat(value, prefix: str = "") -> List[Tuple[str, object]]:
    """[(path, leaf)] of a normalized value, paths as harness/core/golden.py writes them."""
    out: List[Tuple[str, object]] = []
    if _is_obj(value):
        seen: Dict[str, int] = {}
        for k, x in value:
            seen[k] = seen.get(k, 0) + 1
            comp = k.replace("~", "~0").replace("/", "~1").replace("#", "~2") + (
                f"#{seen[k]}" if seen[k] > 1 else "")
            out += flat(x, f"{prefix}/{comp}" if prefix else comp)
        return out
    if isinstance(value, list) and value:
        for i, x in enumerate(value):
            out += flat(x, f"{prefix}/[{i}]" if prefix else f"[{i}]")
        return out
    return [(prefix, value)]


# ---- the judge ----------------------------------------------------------------------------

@dataclass
class Finding:
    kind: str  # missing, extra, differs (undeclared); broken (a declaration that does
    #            not hold); fixed (a declared event as the reference prints it)
    event: Event  # the reference's event (the decoder's for extra)
    what: str
    declared: Optional[Declared] = None


@dataclass
class Judgement:
    findings: List[Finding] = field(default_factory=list)
    held: List[Tuple[Declared, Event]] = field(default_factory=list)  # as declared
    used: set = field(default_factory=set)  # the sources of entries that named an event
    # meta as declared (time_digits) where it differs from the reference's
    meta_held: List[Tuple[Declared, Event]] = field(default_factory=list)
    meta: Dict[str, int] = field(default_factory=dict)
    meta_example: Dict[str, str] = field(default_factory=dict)
    matched: int = 0


def cut_time(t, digits: int):
    """A time of seconds cut (not rounded: toward the past) to `digits` fractional digits."""
    if not isinstance(t, Decimal):
        return t
    return t.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_FLOOR)


def _key_time(ev: Event):
    return ev.time if ev.time is not None else Decimal(-1)


def resolve(reference: List[Event], declared: List[Declared]) -> Dict[int, Declared]:
    """index in reference -> the entry that declares it (the first entry that names it)."""
    order: Dict[str, List[int]] = {}
    for i in sorted(range(len(reference)), key=lambda i: _key_time(reference[i])):
        order.setdefault(reference[i].name, []).append(i)
    out: Dict[int, Declared] = {}
    for d in declared:
        if d.name == "*":
            idx = [i for i in range(len(reference))]
        else:
            same = order.get(d.name, [])
            idx = same if d.nth is None else [same[n - 1] for n in d.nth if n <= len(same)]
        for i in idx:
            out.setdefault(i, d)
    return out


def expected(ref: Event, d: Declared, raw: Dict[int, object], k: int = 0) -> Tuple[str, list]:
    """(name, members) the declaration says the decoder prints for ref; KeyError when a path
    it names is not in the reference event, LookupError when the raw bytes are unknown.
    raw: time (ns) -> the sample's bytes, or the bytes of every sample at that time in file
    order, of which ref is the k-th (a coarse guest clock gives several samples one time)."""
    members = list(ref.fields)
    if d.event is not None:
        members = list(d.event)
    elif d.raw is not None:
        t = None if ref.time is None else int((ref.time * 1000000000).to_integral_value())
        at = raw.get(t)
        if isinstance(at, list):
            at = at[k] if k < len(at) else None
        if at is None:
            raise LookupError(f"no sample at {ref.time} in the capture")
        members = [("n", d.raw), ("raw", _normalize(at.hex(" ")))]
    else:
        for path, v in d.set:
            members = _edit(members, _split(path), v, False)
        for path in d.drop:
            members = _edit(members, _split(path), None, True)
        if d.first is not None:
            members = members[:d.first]
    name = next((v for k, v in members if k == "n"), "")
    return name if isinstance(name, str) else json.dumps(str(name)), members


def _members(ev: Event) -> list:
    return list(ev.fields)


def _first_diff(a: list, b: list) -> str:
    fa, fb = flat(a), flat(b)
    for i in range(max(len(fa), len(fb))):
        x = fa[i] if i < len(fa) else None
        y = fb[i] if i < len(fb) else None
        if x != y:
            sx = f"{x[0]}: {show(x[1])}" if x else "(nothing)"
            sy = f"{y[0]}: {show(y[1])}" if y else "(nothing)"
            return f"expected {sx[:200]}; decoder {sy[:200]}"
    return ""


def judge(reference: List[Event], events: List[Event], declared: List[Declared],
          raw: Optional[Dict[int, bytes]] = None) -> Judgement:
    """§4 with the declarations: events paired by name and time as compare() pairs them,
    a declared event by the name it is declared to have (or, to see a fix, the
    reference's)."""
    raw = raw or {}
    j = Judgement()
    pending: Dict[Tuple[str, object], List[Event]] = {}
    for ev in events:
        pending.setdefault((ev.name, ev.time), []).append(ev)

    def take(name, time) -> Optional[Event]:
        got = pending.get((name, time)) or near(pending, Event(name, time, [], {}))
        return got.pop(0) if got else None

    decl = resolve(reference, declared)
    nth_at: Dict[object, int] = {}  # reference events so far at each time
    for i, ref in enumerate(reference):
        d = decl.get(i)
        own = list(ref.fields)
        k = nth_at.get(ref.time, 0)
        nth_at[ref.time] = k + 1
        if d is None:
            got = take(ref.name, ref.time)
            if got is None:
                j.findings.append(Finding("missing", ref, "not decoded"))
                continue
            j.matched += 1
            _meta(j, ref, got)
            what = _first_diff(own, _members(got))
            if what:
                j.findings.append(Finding("differs", ref, what))
            continue
        j.used.add(d.source)
        try:
            name, want = expected(ref, d, raw, k) if not d.lost else (None, None)
        except KeyError as e:
            j.findings.append(Finding("broken", ref, f"{d.source}: the path {e} is not in the "
                                                     f"reference's event", d))
            continue
        except LookupError as e:
            j.findings.append(Finding("broken", ref, f"{d.source}: {e}", d))
            continue
        got = take(name, ref.time) if name is not None else None
        if got is None:
            got = take(ref.name, ref.time)
        if got is None:
            if d.lost:
                j.held.append((d, ref))
            else:
                j.findings.append(Finding("broken", ref, f"declared {d.label()} ({d.source}), "
                                                         f"but not decoded", d))
            continue
        j.matched += 1
        only = SAMPLE_META if d.raw is not None else None
        mref = _meta_dropped(j, d, ref, got) if d.meta_drop else ref
        if d.time_digits is None:
            _meta(j, mref, got, only)
        else:
            _meta_digits(j, d, mref, got, only)
        mine = _members(got)
        if not d.members_declared():  # time_digits alone: the members as the reference's
            if got.name != ref.name or mine != own:
                j.findings.append(Finding("broken", ref, f"not as declared ({d.source}): "
                                                         f"{_first_diff(own, mine)}", d))
            continue
        if got.name == ref.name and mine == own:
            j.findings.append(Finding("fixed", ref, f"now as the reference prints it: remove "
                                                    f"{d.label()} ({d.source})", d))
        elif d.lost:
            j.findings.append(Finding("broken", ref, f"declared lost ({d.source}), but decoded: "
                                                     f"{_first_diff(own, mine)}", d))
        elif mine != want:
            j.findings.append(Finding("broken", ref, f"not as declared ({d.source}): "
                                                     f"{_first_diff(want, mine)}", d))
        else:
            j.held.append((d, ref))
    for left in pending.values():
        for ev in left:
            j.findings.append(Finding("extra", ev, "not in the reference"))
    return j


def _meta_dropped(j: Judgement, d: Declared, ref: Event, got: Event) -> Event:
    """The reference's event without the meta members d declares not printed, for _meta to
    compare the rest. An event that has none of them tells nothing; one whose decoder prints
    one of them as the reference does is fixed (counted as a meta difference naming the
    entry); one printed without all of them is held."""
    has = [k for k in d.meta_drop if k in ref.meta]
    fixed = [k for k in has if k in got.meta and got.meta[k] == ref.meta[k]]
    for k in fixed:  # counted here once, so left in the meta _meta compares
        j.meta[k] = j.meta.get(k, 0) + 1
        j.meta_example.setdefault(k, f"fixed: {ref.name} printed meta.{k} "
                                     f"{show(ref.meta[k])} as the reference: remove the "
                                     f"meta_drop of {d.label()} ({d.source})")
    if has and not any(k in got.meta for k in has):
        j.meta_held.append((d, ref))
    return Event(ref.name, ref.time, ref.fields,
                 {k: v for k, v in ref.meta.items() if k not in d.meta_drop or k in fixed})


def _meta_digits(j: Judgement, d: Declared, ref: Event, got: Event, only) -> None:
    """meta with meta.time as d declares it: the reference's cut to d.time_digits digits.
    An event whose time the cut does not change tells nothing; one printed with the
    reference's own time is fixed (counted as a meta difference naming the entry)."""
    full = ref.meta.get("time")
    cut = cut_time(full, d.time_digits)
    mine = got.meta.get("time")
    if cut != full and mine == full:
        _meta(j, ref, got, only)
        j.meta["time"] = j.meta.get("time", 0) + 1
        j.meta_example.setdefault("time", f"fixed: {ref.name} at {show(full)} printed with "
                                          f"every digit: remove the time_digits of "
                                          f"{d.label()} ({d.source})")
        return
    _meta(j, Event(ref.name, ref.time, ref.fields, dict(ref.meta, time=cut)), got, only)
    if cut != full and mine == cut:
        j.meta_held.append((d, ref))


def _meta(j: Judgement, ref: Event, got: Event, only=None) -> None:
    """meta compared member by member; `only`: the members the declared output keeps (a
    raw fallback prints the sample's time, cpu, pid and tid, not the EventHeader's)."""
    want = ref.meta if only is None else {k: v for k, v in ref.meta.items() if k in only}
    for k in sorted(set(want) | set(got.meta)):
        a, b = want.get(k, "(none)"), got.meta.get(k, "(none)")
        if a != b:
            j.meta[k] = j.meta.get(k, 0) + 1
            j.meta_example.setdefault(k, f"{ref.name}: reference {show(a)}, decoder {show(b)}")


# ---- the observed form, printed for a reviewer (never written into a profile) ------------

def _plain(v):
    """A normalized value back as plain JSON data."""
    if _is_obj(v):
        return {k: _plain(x) for k, x in v} if len({k for k, _ in v}) == len(v) else \
            [[k, _plain(x)] for k, x in v]
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    return v


def observe(reference: List[Event], events: List[Event]) -> List[dict]:
    """The entries that would declare what the decoder printed for each differing event of
    one capture, for a reviewer to check and give each a "why": printed by
    harness/decoders/observe.py, never written into a profile."""
    j = judge(reference, events, [])
    order: Dict[str, List[Event]] = {}
    for ev in sorted(reference, key=_key_time):
        order.setdefault(ev.name, []).append(ev)
    pending: Dict[Tuple[str, object], List[Event]] = {}
    for ev in events:
        pending.setdefault(ev.time, []).append(ev)
    out = []
    for f in j.findings:
        if f.kind == "extra":
            continue
        ref = f.event
        nth = next(i for i, e in enumerate(order[ref.name], 1) if e is ref)
        entry = {"n": ref.name, "nth": str(nth)}
        cands = [e for e in pending.get(ref.time, []) if e.name == ref.name] or \
            pending.get(ref.time, [])
        if not cands:
            entry["lost"] = True
        else:
            got = cands[0]
            pending[ref.time].remove(got)
            own = list(ref.fields)
            mine = _members(got)
            fo, fm = dict(flat(own)), flat(mine)
            if [p for p, _ in flat(own)] == [p for p, _ in fm]:
                entry["set"] = {p: _plain(v) for p, v in fm if fo.get(p) != v}
            elif own[:len(mine)] == mine:
                entry["first"] = len(mine)
            else:
                entry["event"] = [[k, _plain(v)] for k, v in mine]
        entry["why"] = "TODO: the reason, with the upstream source line"
        prev = out[-1] if out else None
        if prev and prev["n"] == entry["n"] and \
                {k: v for k, v in prev.items() if k != "nth"} == \
                {k: v for k, v in entry.items() if k != "nth"}:
            prev["nth"] = ",".join(_ranges(_parse_nth(prev["nth"], "") + (nth,)))
            continue
        out.append(entry)
    return out
