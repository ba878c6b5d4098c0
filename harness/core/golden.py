# SPDX-License-Identifier: GPL-2.0
"""Golden comparison: decoded events (JSON lines from `ehdecode --golden`) against golden/<case>.json.

Pure functions, no I/O: tests/harness/test_golden.py proves they fail when they must.

Format of a golden file: one JSON object per line, in the canonical form ehdecode --golden
prints. Lines before the first event may be directives, objects with the single key
"ehconf", declaring how this case's data legitimately differs per transport:

  {"ehconf": {"order": "unordered", "why": "threads interleave"}}
      compare as multisets (every event exactly once, any order).
  {"ehconf": {"perf_max_payload": 8184, "size_field": "size", "why": "..."}}
      HOOK for live transports: when comparing a capture made through <transport>
      (compare(..., transport="perf")), golden events whose top-level field <size_field>
      (default "size": payload bytes after the write index, written by the case itself)
      is above the limit are expected to be MISSING from that capture; any of them that
      arrives is reported as extra. The offline capture file drops nothing.
  {"ehconf": {"etw": {"<event n>": {"why": "errno-lost: ...", "fields": {"<path>": <value>}}}}}
      DECLARED DIFFERENCES of one transport (a golden name of harness/core/transports.py other
      than "offline": "perf", "ftrace" or "etw"): when comparing a
      capture of that transport, every golden event whose "n" is <event n> is expected
      with each listed field (a flattened path as printed in a diff: a/b#2/[0]) holding
      the declared value instead of the golden one. The comparison stays exact: the
      declared value must be there, every other field of that event and every other
      event must match as usual, and other transports compare the golden value. Each
      event needs a non-empty "why" naming the transport's documented difference. A
      declaration for an "n" no golden event has, for a path that event does not have,
      or whose value equals the golden one is an error (it would hide nothing or rot).
  {"ehconf": {"etw": {"<event n>": {"why": "size-limit: ...", "dropped": true}}}}
      the same, for events the transport refuses whole (the library returns E2BIG and
      writes nothing there, e.g. ETW's 64 KB): every golden event with that "n" is
      expected MISSING from that transport's capture; any of them that arrives is extra.
  {"ehconf": {"perf": {"#3": {"why": "size-limit: ...", "dropped": true}}}}
      the same for ONE event, the file's third (counted from 1 among its events), where
      the events share one "n" (a producer's events: every log record is "P:Log").
  {"ehconf": {"allows": {"#12": {"why": "...", "refused": true, "or": [[["set", "n", "P:E"]]]}}}}
      OUTCOMES THE FORMAT ALLOWS for one event (the file's 12th) where what the producer was
      asked for cannot be written as asked (a ';' in an event name, a tag above 16 bits, a
      struct of 128 fields): the golden line is one conforming outcome, each patch of "or"
      (harness/impl/declared.py operations on the golden line) another, and "refused" lets the
      event be refused or never arrive. harness/impl/run_impl.py judges a producer's event
      against the outcome it chose; "why" names the format's rule.
  Free-text keys "why"/"note" explain a directive; any other key is an error, so a typo
  can never loosen the comparison silently.

Comparison rules:
  * numbers are compared by their exact JSON text (1, 1.0 and true are all different),
    strings by value (escape spelling is for the decoder's own unit tests),
    duplicate member names are kept (EventHeader allows them) and member order matters;
  * an empty capture, an empty golden, a line that is not JSON: failure, never a pass;
  * on mismatch the message names the event index, its "n", and lists only the differing
    fields as flattened paths (a/b/[2]/c), added / removed / changed.
"""

from __future__ import annotations

import difflib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from harness.core.transports import REFERENCE, golden_names

MAX_REPORTED = 10  # differing events described in full; the rest are counted


class Num(str):
    """A JSON number kept as its literal text (so 1 != 1.0 and big integers stay exact)."""


class Obj(list):
    """A JSON object as an ordered list of (key, value) pairs: duplicates are kept."""


def _loads(line: str):
    return json.loads(line, object_pairs_hook=Obj, parse_float=Num, parse_int=Num)


def canonical(v) -> str:
    """Compact JSON text of a parsed value (member order and duplicates preserved)."""
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, Obj):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical(x)
                              for k, x in v) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def line_key(line: str) -> str:
    """One event line as compact canonical text, so two spellings of the same event compare
    equal; a line that is not a JSON object stays as it is."""
    try:
        return canonical(_loads(line)) if line.lstrip().startswith("{") else line
    except ValueError:
        return line


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1").replace("#", "~2")


def flatten(v, prefix: str = "") -> List[Tuple[str, str]]:
    """[(path, leaf JSON text)] in document order. Path components are member names
    (escaped: ~ -> ~0, / -> ~1, # -> ~2), '#n' for the n-th member of a duplicated name,
    and [i] for array elements. Empty objects/arrays are leaves ({} / [])."""
    out: List[Tuple[str, str]] = []
    if isinstance(v, Obj):
        if not v:
            return [(prefix or "/", "{}")]
        seen: Dict[str, int] = {}
        for k, x in v:
            seen[k] = seen.get(k, 0) + 1
            comp = _escape(k) + (f"#{seen[k]}" if seen[k] > 1 else "")
            out += flatten(x, f"{prefix}/{comp}" if prefix else comp)
        return out
    if isinstance(v, list):
        if not v:
            return [(prefix or "/", "[]")]
        for i, x in enumerate(v):
            out += flatten(x, f"{prefix}/[{i}]" if prefix else f"[{i}]")
        return out
    return [(prefix or "/", canonical(v))]


@dataclass
class Event:
    index: int  # 0-based among events (directive lines not counted)
    line: int  # 1-based line in its file
    value: object
    text: str  # canonical text

    @property
    def name(self) -> str:
        if isinstance(self.value, Obj):
            for k, x in self.value:
                if k == "n":
                    return str(x)
        return "?"

    def field(self, key: str):
        if isinstance(self.value, Obj):
            for k, x in self.value:
                if k == key:
                    return x
        return None


@dataclass
class Data:
    events: List[Event] = field(default_factory=list)
    directives: Dict[str, object] = field(default_factory=dict)
    errors: List[str] = field(default_factory=list)


KNOWN_DIRECTIVES = {"order", "size_field", "why", "note"}
# Transports whose golden name may carry declared differences: every one of the
# transport registry (lib/eventheader/include/eh_transports.def) but the reference.
TRANSPORTS = golden_names()


def parse_lines(text: str, source: str, allow_directives: bool) -> Data:
    d = Data()
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("\ufeff"):
            line = line[1:].strip()
        if not line:
            continue
        try:
            v = _loads(line)
        except ValueError as e:
            d.errors.append(f"{source}:{no}: not JSON: {e}")
            continue
        if isinstance(v, Obj) and len(v) == 1 and v[0][0] == "ehconf":
            if not allow_directives:
                d.errors.append(f"{source}:{no}: directive line in a capture")
            elif d.events:
                d.errors.append(f"{source}:{no}: directive after the first event")
            elif not isinstance(v[0][1], Obj):
                d.errors.append(f"{source}:{no}: \"ehconf\" must hold an object")
            else:
                for k, x in v[0][1]:
                    ok = k in KNOWN_DIRECTIVES or any(k == f"{t}_max_payload" for t in TRANSPORTS)
                    if k in TRANSPORTS:
                        ok = True
                        if k in d.directives:
                            d.errors.append(f"{source}:{no}: directive {k!r} given twice")
                        d.errors += _check_declared(x, f"{source}:{no}: {k}")
                    if k == "allows":
                        ok = True
                        if k in d.directives:
                            d.errors.append(f"{source}:{no}: directive 'allows' given twice")
                        d.errors += _check_allows(x, f"{source}:{no}: allows")
                    if not ok:
                        d.errors.append(f"{source}:{no}: unknown directive {k!r}")
                    d.directives[k] = x
            continue
        if not isinstance(v, Obj):
            d.errors.append(f"{source}:{no}: an event must be a JSON object")
            continue
        d.events.append(Event(len(d.events), no, v, canonical(v)))
    order = d.directives.get("order", "ordered")
    if order not in ("ordered", "unordered"):
        d.errors.append(f"{source}: directive order must be \"ordered\" or \"unordered\", not {order!r}")
    return d


def _check_allows(allows, where: str) -> List[str]:
    """Shape of the outcomes the format allows for single events where what the producer
    was asked for cannot be written: {"#k": {"why": text, "refused": true, "or": [patch,
    ...]}}, each patch a list of harness/impl/declared.py operations on the golden line."""
    if not isinstance(allows, Obj) or not allows:
        return [f"{where}: must be a non-empty object {{\"#<event>\": {{...}}}}"]
    errs = []
    for key, spec in allows:
        if not (key.startswith("#") and key[1:].isdigit()):
            errs.append(f"{where}: {key!r}: name one event as \"#<n>\"")
        keys = [k for k, _ in spec] if isinstance(spec, Obj) else []
        if not keys or any(k not in ("why", "refused", "or") or keys.count(k) > 1 for k in keys):
            errs.append(f"{where}: {key}: takes \"why\" and \"refused\": true and/or \"or\"")
            continue
        spec = dict(spec)
        if not isinstance(spec.get("why"), str) or not spec["why"].strip():
            errs.append(f"{where}: {key}: needs a non-empty \"why\" (the format's rule)")
        if "refused" in spec and spec["refused"] is not True:
            errs.append(f"{where}: {key}: \"refused\" can only be true")
        if "refused" not in spec and "or" not in spec:
            errs.append(f"{where}: {key}: allows nothing besides the golden line")
        if "or" in spec:
            errs += _check_patches(spec["or"], f"{where}: {key}: or")
    return errs


def _check_patches(patches, where: str) -> List[str]:
    from harness.impl.declared import DeclarationError, parse_op  # declared.py builds on this module
    if not isinstance(patches, list) or isinstance(patches, Obj) or not patches:
        return [f"{where}: a non-empty list of patches"]
    errs = []
    for patch in patches:
        if not isinstance(patch, list) or isinstance(patch, Obj) or not patch:
            errs.append(f"{where}: each patch is a non-empty list of operations")
            continue
        for op in patch:
            try:
                parse_op(canonical(op))
            except DeclarationError as e:
                errs.append(f"{where}: {e}")
    return errs


def _check_declared(decl, where: str) -> List[str]:
    """Shape of a transport's declared differences: {n: {"why": text, "fields": {path: v}}}
    or {n: {"why": text, "dropped": true}}."""
    if not isinstance(decl, Obj) or not decl:
        return [f"{where}: must be a non-empty object {{\"<event n>\": {{...}}}}"]
    errs, names = [], set()
    for n, ev in decl:
        if n in names:
            errs.append(f"{where}: event {n!r} declared twice")
        names.add(n)
        if not isinstance(ev, Obj):
            errs.append(f"{where}: {n}: must be {{\"why\": ..., \"fields\": {{...}}}}")
            continue
        keys = [k for k, _ in ev]
        for k in keys:
            if k not in ("why", "fields", "dropped") or keys.count(k) > 1:
                errs.append(f"{where}: {n}: unknown or repeated key {k!r}")
        why = dict(ev).get("why")
        if not isinstance(why, str) or isinstance(why, Num) or not why.strip():
            errs.append(f"{where}: {n}: needs a non-empty \"why\"")
        if "dropped" in keys:
            if dict(ev)["dropped"] is not True or "fields" in keys:
                errs.append(f"{where}: {n}: \"dropped\" must be true, without \"fields\"")
            continue
        fields = dict(ev).get("fields")
        if not isinstance(fields, Obj) or not fields:
            errs.append(f"{where}: {n}: needs a non-empty \"fields\" object")
        elif len({p for p, _ in fields}) != len(fields):
            errs.append(f"{where}: {n}: a field path is declared twice")
    return errs


def _replace_leaves(v, repl: Dict[str, object], used: set, prefix: str = ""):
    """A copy of v with the leaves at the paths of repl (flatten's path scheme) replaced."""
    if isinstance(v, Obj) and v:
        out, seen = Obj(), {}
        for k, x in v:
            seen[k] = seen.get(k, 0) + 1
            comp = _escape(k) + (f"#{seen[k]}" if seen[k] > 1 else "")
            out.append((k, _replace_leaves(x, repl, used, f"{prefix}/{comp}" if prefix else comp)))
        return out
    if isinstance(v, list) and not isinstance(v, Obj) and v:
        return [_replace_leaves(x, repl, used, f"{prefix}/[{i}]" if prefix else f"[{i}]")
                for i, x in enumerate(v)]
    path = prefix or "/"
    if path in repl:
        used.add(path)
        return repl[path]
    return v


def event_hits(golden: Data, key: str) -> List[int]:
    """The golden events a declaration names: every event whose "n" is key, or, for "#k",
    the k-th event of the file."""
    if key.startswith("#") and key[1:].isdigit():
        k = int(key[1:])
        return [k - 1] if 1 <= k <= len(golden.events) else []
    return [i for i, e in enumerate(golden.events) if e.name == key]


def apply_declared(events: List[Event], golden: Data, transport: str
                   ) -> Tuple[List[Event], List[str], int, int]:
    """(events as <transport> must deliver them, errors in any transport's declarations,
    number of events changed, number of events declared dropped). Declarations of every
    transport are checked against the golden events on every comparison, so a stale one
    fails even the offline run."""
    errors: List[str] = []
    out = list(events)
    changed = dropped = 0
    for t in TRANSPORTS:
        decl = golden.directives.get(t)
        if not isinstance(decl, Obj):
            continue
        for n, ev in decl:
            if not isinstance(ev, Obj):
                continue  # shape errors were reported by parse_lines
            hits = event_hits(golden, n)
            if dict(ev).get("dropped") is True:
                if not hits:
                    errors.append(f"{t} declares n={n} dropped, but no golden event has it")
                elif t == transport:
                    gone = {id(golden.events[i]) for i in hits}
                    dropped += sum(1 for e in out if id(e) in gone)
                    out = [e for e in out if id(e) not in gone]
                continue
            if not isinstance(dict(ev).get("fields"), Obj):
                continue
            repl = {p: x for p, x in dict(ev)["fields"]}
            if not hits:
                errors.append(f"{t} declares a difference for n={n}, which no golden event has")
                continue
            for i in hits:
                ge = golden.events[i]
                leaves = dict(flatten(ge.value))
                for p, x in repl.items():
                    if p not in leaves:
                        errors.append(f"{t} declares {p} of n={n}, but golden event #{i} "
                                      f"has no such field")
                    elif leaves[p] == canonical(x):
                        errors.append(f"{t} declares {p} of n={n} as {canonical(x)}, "
                                      f"the golden value itself: nothing differs")
                if t != transport:
                    continue
                used: set = set()
                value = _replace_leaves(ge.value, repl, used)
                for k, e in enumerate(out):
                    if e is ge:
                        out[k] = Event(ge.index, ge.line, value, canonical(value))
                        changed += 1
    return out, errors, changed, dropped


def expected_events(golden: Data, transport: str) -> Tuple[List[Event], List[Event]]:
    """(events the transport must deliver, events it is declared to drop)."""
    limit = golden.directives.get(f"{transport}_max_payload")
    if limit is None:
        return golden.events, []
    size_key = str(golden.directives.get("size_field", "size"))
    keep, drop = [], []
    for e in golden.events:
        size = e.field(size_key)
        if isinstance(size, Num) and int(size) > int(limit):
            drop.append(e)
        else:
            keep.append(e)
    return keep, drop


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _show_change(a: str, b: str) -> str:
    if len(a) <= 120 and len(b) <= 120:
        return f"{a} -> {b}"
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    lo = max(0, i - 30)
    return (f"differs at character {i} (lengths {len(a)} / {len(b)}): "
            f"...{a[lo:i + 40]}... -> ...{b[lo:i + 40]}...")


def diff_fields(g, a) -> List[str]:
    """Readable differences between two events (golden g, actual a): paths only."""
    fg, fa = flatten(g), flatten(a)
    dg, da = dict(fg), dict(fa)
    out = []
    for p, v in fg:
        if p not in da:
            out.append(f"  removed  {p}: {_short(v)}   (in golden, not in capture)")
        elif da[p] != v:
            out.append(f"  changed  {p}: {_show_change(v, da[p])}   (golden -> capture)")
    for p, v in fa:
        if p not in dg:
            out.append(f"  added    {p}: {_short(v)}   (in capture, not in golden)")
    if not out:
        og, oa = [p for p, _ in fg], [p for p, _ in fa]
        if og != oa:
            out.append("  member order differs:")
            out.append(f"    golden : {', '.join(og)[:300]}")
            out.append(f"    capture: {', '.join(oa)[:300]}")
        else:
            out.append("  (texts differ but no field does: check number/string forms)")
    return out


def _describe(e: Event, where: str) -> str:
    return f"event #{e.index} ({where} line {e.line}) n={e.name}"


@dataclass
class Result:
    ok: bool
    message: str
    differences: int = 0
    # Golden events the capture did not reproduce (changed or missing), out of `expected`:
    # what a report counts per event, so one bad field costs one event, not the case.
    failed_events: int = 0
    expected: int = 0


def compare(golden_text: str, capture_text: str, case: str = "case",
            transport: str = REFERENCE) -> Result:
    """Compare ehdecode --golden output of a capture with a golden file's text."""
    g = parse_lines(golden_text, f"golden/{case}.json", allow_directives=True)
    a = parse_lines(capture_text, f"{case} capture", allow_directives=False)
    problems = g.errors + a.errors
    if problems:
        return Result(False, f"{case}: unreadable data:\n  " + "\n  ".join(problems[:20]))
    if not g.events:
        return Result(False, f"{case}: golden/{case}.json has no events (run `make golden` "
                             f"and review it)")
    if not a.events:
        return Result(False, f"{case}: the capture decoded to no events (golden has "
                             f"{len(g.events)}): the case or the capture backend wrote nothing",
                      len(g.events), len(g.events), len(g.events))
    want, dropped = expected_events(g, transport)
    want, decl_errors, declared, declared_dropped = apply_declared(want, g, transport)
    if decl_errors:
        return Result(False, f"{case}: golden/{case}.json: wrong declared differences:\n  "
                      + "\n  ".join(decl_errors[:20]))
    head = f"{case} [{transport}]: golden {len(want)} events"
    if dropped or declared_dropped:
        head += f" (+{len(dropped) + declared_dropped} declared dropped by {transport})"
    if declared:
        head += f" ({declared} with declared {transport} differences)"
    head += f", capture {len(a.events)}"
    if g.directives.get("order") == "unordered":
        res = _compare_unordered(want, a.events, head)
    else:
        res = _compare_ordered(want, a.events, head)
    res.expected = len(want)
    return res


def _compare_ordered(want: List[Event], got: List[Event], head: str) -> Result:
    if [e.text for e in want] == [e.text for e in got]:
        return Result(True, head + ": identical")
    sm = difflib.SequenceMatcher(None, [e.text for e in want], [e.text for e in got],
                                 autojunk=False)
    lines: List[str] = []
    changed = missing = extra = 0
    described = 0

    def note(text: List[str]):
        nonlocal described
        if described < MAX_REPORTED:
            lines.extend(text)
        described += 1

    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(pairs):
            ge, ae = want[i1 + k], got[j1 + k]
            changed += 1
            note([f"{_describe(ge, 'golden')} differs from capture event #{ae.index} "
                  f"n={ae.name}:"] + diff_fields(ge.value, ae.value))
        for ge in want[i1 + pairs:i2]:
            missing += 1
            note([f"MISSING {_describe(ge, 'golden')}: {_short(ge.text, 300)}"])
        for ae in got[j1 + pairs:j2]:
            extra += 1
            note([f"EXTRA capture event #{ae.index} n={ae.name}: {_short(ae.text, 300)}"])
    total = changed + missing + extra
    summary = f"{head}: {changed} differ, {missing} missing, {extra} extra"
    if described > MAX_REPORTED:
        lines.append(f"... and {described - MAX_REPORTED} more differences")
    return Result(False, summary + "\n" + "\n".join(lines), total, changed + missing)


def _take(events: List[Event], counts: Counter) -> List[Event]:
    """The events whose text still has a positive count, consuming one count each."""
    out = []
    for e in events:
        if counts[e.text] > 0:
            counts[e.text] -= 1
            out.append(e)
    return out


def _compare_unordered(want: List[Event], got: List[Event], head: str) -> Result:
    cw, cg = Counter(e.text for e in want), Counter(e.text for e in got)
    if cw == cg:
        return Result(True, head + ": same multiset of events (order not compared)")
    missing_c, extra_c = cw - cg, cg - cw
    missing, extra = _take(want, missing_c), _take(got, extra_c)
    lines = [f"{head} (unordered): {len(missing)} missing, {len(extra)} extra"]
    # Pair missing and extra events with the same "n" to show which fields moved.
    extra_by_name: Dict[str, List[Event]] = {}
    for e in extra:
        extra_by_name.setdefault(e.name, []).append(e)
    shown = 0
    for ge in missing:
        if shown >= MAX_REPORTED:
            break
        shown += 1
        cands = extra_by_name.get(ge.name)
        if cands:
            ae = cands.pop(0)
            lines.append(f"{_describe(ge, 'golden')} not found; closest capture event "
                         f"#{ae.index}:")
            lines += diff_fields(ge.value, ae.value)
        else:
            lines.append(f"MISSING {_describe(ge, 'golden')}: {_short(ge.text, 300)}")
    rest = [e for lst in extra_by_name.values() for e in lst]
    rest.sort(key=lambda e: e.index)
    for ae in rest[:max(0, MAX_REPORTED - shown)]:
        lines.append(f"EXTRA capture event #{ae.index} n={ae.name}: {_short(ae.text, 300)}")
    return Result(False, "\n".join(lines), len(missing) + len(extra), len(missing))


def sorted_for_golden(capture_text: str, directives_text: str) -> str:
    """Golden text for a regenerated case: directive lines kept, and for an unordered case the
    events sorted so that regenerating does not churn the file."""
    g = parse_lines(directives_text, "golden", allow_directives=True)
    events = [line for line in capture_text.splitlines() if line.strip()]
    if g.directives.get("order") == "unordered":
        events.sort()
    head = []
    for line in directives_text.splitlines():
        try:
            v = _loads(line)
        except ValueError:
            continue
        if isinstance(v, Obj) and len(v) == 1 and v[0][0] == "ehconf":
            head.append(line.strip())
    return "".join(x + "\n" for x in head + events)


def golden_problem(decoded_text: str, golden: str, case: str, transport: str,
                   decoded_label: str) -> str:
    """The judge: decoded events against golden (a path) compared as <transport>:
    "" when they agree, else why not (the reader's message)."""
    if not os.path.exists(golden):
        return (f"{case}: no golden file golden/{case}.json: run `make golden` and review "
                f"every line against cases/{case}.c")
    with open(golden, encoding="utf-8", errors="surrogateescape") as f:
        res = compare(f.read(), decoded_text, case, transport=transport)
    return "" if res.ok else f"{res.message}\n(decoded capture: {decoded_label})"
