# SPDX-License-Identifier: GPL-2.0
"""The judge sees inside every declaration: for each `differs` and `refuses` declaration of
every profile (impl/<name>/profile.txt), the observation it states is judged by
harness/impl/run_impl.py's own functions (expected failure), then the same with one value
changed outside the declared difference, each value in turn (every one must fail), then
restored (expected failure again). Offline, from the declarations themselves and the golden files: nothing is built or
run, so it is part of `make test` (tests/harness/test_perturb_declarations.py).

    /usr/bin/python3 harness/impl/perturb_declarations.py      # one line per declaration

Prints, per declaration, how many values it changed and the first of them, and ends with
`N passed, N failed`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Iterator, List

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.impl.declared import DeclarationError, expected_line, judge_sequence, perturbations  # noqa: E402
from harness.impl.registry import Impl, read_profile, read_registry  # noqa: E402
from harness.impl.run_impl import _declared_event, golden_parts, sources  # noqa: E402


@dataclass
class Check:
    ident: str  # the item the declaration makes: impl/<name>/<input>/<n> or .../<input>
    changed: str  # what was changed to show the judge sees it
    outcomes: List[str]  # as declared, changed (the worst of every change), restored:
    #                      xfail, fail, xfail to pass
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem and self.outcomes == ["xfail", "fail", "xfail"]


def _golden_of(impl: Impl):
    return {s.name: s.golden for s in sources(impl)}


def _event_checks(impl: Impl, profile) -> Iterator[Check]:
    goldens = _golden_of(impl)
    for (case, o), why in sorted(profile.differs.items()):
        ident = f"impl/{impl.name}/{case}/{o}" if o else f"impl/{impl.name}/{case}"
        if case not in goldens:
            yield Check(ident, "-", [], f"no input {case} for {impl.name}")
            continue
        directives, golden = golden_parts(goldens[case])
        if o == 0:
            yield _sequence_check(ident, case, directives, golden, profile.observed[(case, 0)])
            continue
        if o > len(golden):
            yield Check(ident, "-", [], f"golden has {len(golden)} events, not {o}")
            continue
        ops = profile.observed[(case, o)]
        try:
            seen = expected_line(golden[o - 1], ops)
            avoid = [op[1] for op in ops if op[0] != "event"]
            changes = perturbations(seen, avoid)
        except DeclarationError as e:
            yield Check(ident, "-", [], str(e))
            continue

        def judge(line: str) -> str:
            entry = _declared_event(impl, profile, case, o, ("written", ""), {"declared": []},
                                    golden[o - 1], line, directives)
            return entry["status"] if entry else "pass"
        yield Check(ident, _what(changes), [judge(seen), _worst(judge(c) for c, _ in changes),
                                            judge(seen)])
    for (case, o), state in sorted(profile.refused_as.items()):
        def refusal(words: str) -> str:
            entry = _declared_event(impl, profile, case, o, (state[0], words), {"declared": []},
                                    None, None, [])
            return entry["status"] if entry else "pass"
        yield Check(f"impl/{impl.name}/{case}/{o}", "the emitter's words",
                    [refusal(state[1]), refusal(state[1] + "~"), refusal(state[1])])


def _sequence_check(ident: str, case: str, directives: List[str], golden: List[str],
                    observed_path: str) -> Check:
    with open(observed_path, encoding="utf-8", errors="surrogateescape") as f:
        observed = f.read()
    lines = [ln for ln in observed.split("\n") if ln.strip()]
    events = [k for k, ln in enumerate(lines) if not ln.startswith('{"ehconf"')]
    if not events:
        return Check(ident, "-", [], f"{observed_path} holds no event")
    if len(events) != len(lines):
        return Check(ident, "-", [], f"{observed_path}: events only; the input's golden "
                     f"directives say how they are compared")
    seen = "\n".join(lines)

    def judge(text: str) -> str:
        return judge_sequence(directives, golden, text.split("\n"), observed, case)[0]
    outcomes, count = [], 0
    for k in events:
        for changed, _ in perturbations(lines[k], []):
            count += 1
            outcomes.append(judge("\n".join(changed if j == k else lines[j] for j in events)))
    # An unordered input's sequence is a multiset: the same events in another order pass,
    # one event more or less does not.
    outcomes.append(judge("\n".join(lines + lines[:1])))
    return Check(ident, f"{count} values of {len(events)} events",
                 [judge(seen), _worst(outcomes), judge(seen)])


def _worst(outcomes) -> str:
    """"fail" when every change failed, else the first outcome that was not a failure."""
    return next((o for o in outcomes if o != "fail"), "fail")


def _what(changes) -> str:
    return f"{len(changes)} value(s), {changes[0][1]} first" if len(changes) > 1 else changes[0][1]


def checks() -> Iterator[Check]:
    for impl in read_registry():
        try:
            profile = read_profile(impl)
        except ValueError as e:
            yield Check(f"impl/{impl.name}/profile", "-", [], str(e))
            continue
        yield from _event_checks(impl, profile)


def main() -> int:
    passed = failed = 0
    for c in checks():
        if c.ok:
            passed += 1
            print(f"ok     {c.ident}: changed {c.changed}: xfail, each fails, xfail")
        else:
            failed += 1
            print(f"FAILED {c.ident}: changed {c.changed}: "
                  f"{', '.join(c.outcomes) or '-'} {c.problem}".rstrip())
    print(f"perturb-declarations: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

