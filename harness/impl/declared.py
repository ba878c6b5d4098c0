# SPDX-License-Identifier: GPL-2.0
"""A declared difference states what is observed, and nothing else passes it.

An implementation's profile (impl/<name>/profile.txt) declares an event different with the
exact form it is written in: the golden line plus a small patch of leaves, in the path
scheme of harness/core/golden.py's flatten() (`a/b#2/[0]`: member names, #n for the n-th of a
duplicated name, [i] for array elements). One patch operation per line, a JSON array:

  ["set", PATH, VALUE]          the golden leaf at PATH holds VALUE instead
  ["drop", PATH]                the golden leaf at PATH is not written
  ["add", PATH, VALUE, AFTER]   a leaf golden does not have, written right after the
                                observed leaf AFTER (a path; null: first of the event)
  ["event", OBJECT]             the observed event whole, where leaves moved (a patch of
                                leaves cannot say that)

A declared event is expected failure only when the decoded event is exactly the golden one
with the patch applied; the golden line itself means the difference is fixed; anything else
fails, naming what differs from the declaration and printing the patch of what was seen
(for a reviewer to copy: nothing here writes a profile).

A declared sequence (`differs <input> all`: events added, split or reordered) is the
observed events whole, one per line, in impl/<name>/observed/<input>.json.

Pure functions; tests/harness/test_declared.py and harness/impl/perturb_declarations.py show that
each declaration lets through its observation and nothing else.
"""

from __future__ import annotations

import json
from typing import List, Optional, Sequence, Tuple

from harness.core.golden import Num, Obj, _loads, _replace_leaves, canonical, compare, flatten

Flat = List[Tuple[str, str]]  # (path, leaf JSON text) in document order
OPS = {"set": 3, "drop": 2, "add": 4, "event": 2}


class DeclarationError(ValueError):
    """A patch that does not fit its golden event, or is not a patch."""


def parse_op(text: str) -> list:
    """One patch line: a JSON array of a known operation and its operands (values keep
    their exact number text, as golden files do)."""
    try:
        op = _loads(text)
    except ValueError as e:
        raise DeclarationError(f"not a JSON array: {e}") from e
    if not isinstance(op, list) or isinstance(op, Obj) or not op or op[0] not in OPS:
        raise DeclarationError(f"expected [\"set\"|\"drop\"|\"add\"|\"event\", ...], "
                               f"got {text.strip()[:80]}")
    if len(op) != OPS[op[0]]:
        raise DeclarationError(f"{op[0]} takes {OPS[op[0]] - 1} operand(s), got {len(op) - 1}")
    if op[0] == "event":
        if not isinstance(op[1], Obj):
            raise DeclarationError("event takes the observed event, a JSON object")
        return op
    if not isinstance(op[1], str) or isinstance(op[1], Num):
        raise DeclarationError(f"{op[0]}: the path must be a string")
    if op[0] == "add" and op[3] is not None and (not isinstance(op[3], str)
                                                 or isinstance(op[3], Num)):
        raise DeclarationError("add: AFTER must be a path or null")
    if op[0] in ("set", "add") and _is_container(op[2]):
        raise DeclarationError(f"{op[0]} {op[1]}: a value is one leaf (a scalar, {{}} or [])")
    return op


def _is_container(v) -> bool:
    return isinstance(v, list) and len(v) > 0


def op_text(op: list) -> str:
    """A patch line as a profile holds it."""
    return "[" + ", ".join(canonical(x) if not isinstance(x, str) or isinstance(x, Num)
                           else json.dumps(x, ensure_ascii=False) for x in op) + "]"


def leaf(value) -> str:
    return canonical(value)


def apply(golden_value, ops: Sequence[list]) -> Flat:
    """The leaves the patch says are written: every `set` and `drop` on the golden leaves,
    then each `add` in its order. A patch naming a leaf golden does not have, or setting a
    leaf to its golden value, does not fit (it would excuse nothing or rot)."""
    whole = [op for op in ops if op[0] == "event"]
    if whole:
        if len(ops) != 1:
            raise DeclarationError("an `event` declaration stands alone")
        return flatten(whole[0][1])
    flat = [list(x) for x in flatten(golden_value)]
    index = {p: i for i, (p, _) in enumerate(flat)}
    gone = set()
    for op in ops:
        if op[0] in ("set", "drop"):
            i = index.get(op[1])
            if i is None:
                raise DeclarationError(f"{op[0]} {op[1]}: the golden event has no such leaf")
            if op[0] == "set":
                if flat[i][1] == leaf(op[2]):
                    raise DeclarationError(f"set {op[1]}: {leaf(op[2])} is the golden value "
                                           f"itself")
                flat[i][1] = leaf(op[2])
            else:
                gone.add(i)
    out = [x for i, x in enumerate(flat) if i not in gone]
    for op in ops:
        if op[0] != "add":
            continue
        paths = [p for p, _ in out]
        if op[1] in paths:
            raise DeclarationError(f"add {op[1]}: the event already has that leaf")
        if op[3] is None:
            at = 0
        elif op[3] in paths:
            at = paths.index(op[3]) + 1
        else:
            raise DeclarationError(f"add {op[1]} after {op[3]}: no such leaf before it")
        out.insert(at, [op[1], leaf(op[2])])
    return [(p, v) for p, v in out]


def patch_of(golden_value, got_value) -> List[list]:
    """The patch that turns the golden event into the observed one: set, drop and add per
    leaf, or the observed event whole when the leaves both have are in another order."""
    fg, fa = flatten(golden_value), flatten(got_value)
    dg, da = dict(fg), dict(fa)
    common_g = [p for p, _ in fg if p in da]
    common_a = [p for p, _ in fa if p in dg]
    if common_g != common_a:
        return [["event", got_value]]
    ops: List[list] = []
    for p, v in fg:
        if p not in da:
            ops.append(["drop", p])
        elif da[p] != v:
            ops.append(["set", p, _loads(da[p])])
    prev: Optional[str] = None
    for p, v in fa:
        if p not in dg:
            ops.append(["add", p, _loads(v), prev])
        prev = p
    return ops


def _flat_diff(want: Flat, got: Flat) -> List[str]:
    dw, dg = dict(want), dict(got)
    out = [f"  declared {p} = {v[:120]}, written " + (dg[p][:120] if p in dg else "nothing")
           for p, v in want if dg.get(p) != v]
    out += [f"  written  {p} = {v[:120]}, not declared" for p, v in got if p not in dw]
    if not out:
        out.append("  the same leaves in another order")
    return out


def patch_lines(ops: Sequence[list], indent: str = "    ") -> str:
    return "\n".join(indent + op_text(op) for op in ops)


def judge_event(golden_line: str, got_line: str, ops: Sequence[list]) -> Tuple[str, str]:
    """(status, message) of one declared event: xfail when it is written exactly as
    declared; fail when it matches golden (fixed) or differs from the declaration."""
    try:
        g, a = _loads(golden_line), _loads(got_line)
    except ValueError as e:
        return "fail", f"not JSON: {e}"
    if canonical(g) == canonical(a):
        return "fail", ("fixed: the event matches its golden line now; remove the "
                        "declaration")
    try:
        want = apply(g, ops)
    except DeclarationError as e:
        return "fail", f"the declaration does not fit the golden event: {e}"
    got = flatten(a)
    if got == want:
        return "xfail", "written as declared:\n" + patch_lines(ops)
    return "fail", ("written otherwise than declared:\n" + "\n".join(_flat_diff(want, got)[:12])
                    + "\nwhat was written, as a patch of the golden line (review before "
                    "declaring it):\n" + patch_lines(patch_of(g, a)))


def expected_line(golden_line: str, ops: Sequence[list]) -> str:
    """The declared observation as one event line (canonical text): what the judge lets
    through, for an unordered input's matching and the perturbation check."""
    g = _loads(golden_line)
    whole = [op for op in ops if op[0] == "event"]
    if whole:
        return canonical(whole[0][1])
    want = apply(g, ops)
    return canonical(unflatten(want))


def unflatten(flat: Flat):
    """The value whose flatten() is `flat` (paths of flatten's scheme)."""
    root: Optional[list] = None
    for path, text in flat:
        value = _loads(text) if text not in ("{}", "[]") else (Obj() if text == "{}" else [])
        if path == "/":
            return value
        comps = _split(path)
        if root is None:
            root = [] if comps[0].startswith("[") else Obj()
        node = root
        for k, comp in enumerate(comps):
            last = k == len(comps) - 1
            nxt = None if last else ([] if comps[k + 1].startswith("[") else Obj())
            node = _step(node, comp, value if last else nxt)
    return root


def _split(path: str) -> List[str]:
    return path.split("/")


def _unescape(comp: str) -> Tuple[str, int]:
    name, _, nth = comp.rpartition("#") if "#" in comp else (comp, "", "1")
    if not nth.isdigit():
        name, nth = comp, "1"
    return name.replace("~2", "#").replace("~1", "/").replace("~0", "~"), int(nth)


def _step(node, comp: str, new):
    """The child `comp` of node, created as `new` when it is not there yet."""
    if comp.startswith("["):
        i = int(comp[1:-1])
        if i == len(node):
            node.append(new)
        return node[i]
    name, nth = _unescape(comp)
    seen = 0
    for k, (key, child) in enumerate(node):
        if key == name:
            seen += 1
            if seen == nth:
                return child
    node.append((name, new))
    return new


def perturbations(line: str, avoid: Sequence[str]) -> List[Tuple[str, str]]:
    """[(the event with one scalar leaf changed, that leaf's path)] for every leaf whose path
    no declaration names (the check that the judge sees inside a declaration); where the
    declaration names every leaf, the leaves it declares, each changed from its declared
    value."""
    value = _loads(line)
    leaves = [(p, t) for p, t in flatten(value) if t not in ("{}", "[]")]
    outside = [(p, t) for p, t in leaves if p not in avoid] or leaves
    out = []
    for path, text in outside:
        v = _loads(text)
        if isinstance(v, Num):
            new = Num(text + "1" if text.lstrip("-").isdigit() else text + "5")
        elif isinstance(v, bool):
            new = not v
        elif v is None:
            new = Num("0")
        else:
            new = v + "~"
        out.append((canonical(_replace_leaves(value, {path: new}, set())), path))
    if not out:
        raise DeclarationError("the event has no leaf to change")
    return out


def judge_sequence(directives: Sequence[str], golden: Sequence[str], decoded: Sequence[str],
                   observed_text: str, case: str) -> Tuple[str, str]:
    """(status, message) of an input declared different as a whole: xfail when the decoded
    events are exactly the observed sequence declared beside the profile, compared by the
    input's own rules (its golden directives: an unordered input's threads interleave
    however they run)."""
    if compare("\n".join(list(directives) + list(golden)), "\n".join(decoded), case).ok:
        return "fail", ("fixed: every event matches golden now; remove the declaration and "
                        "its observed sequence")
    res = compare("\n".join(list(directives) + [observed_text]), "\n".join(decoded), case)
    if res.ok:
        return "xfail", "written as the declared sequence"
    return "fail", "written otherwise than the declared sequence:\n" + res.message
