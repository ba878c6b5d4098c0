# SPDX-License-Identifier: GPL-2.0
"""The declared events of make check-decoders (harness/decoders/declared.py, Documentation/
decoders.md §6.1): an events declaration lets through exactly the output it states for the
events it names, and nothing else. Offline and fast: no decoder runs. The captures'
reference events come from the repository (golden/<case>.json, tests/data/perf), the
decoder's output is the declared observation itself; every declaration of every profile is
then perturbed once outside what it declares (the item must fail) and restored (xfail again)."""

from __future__ import annotations

import fnmatch
import json
import os
from decimal import Decimal

import pytest

from harness.decoders import compare as dc
from harness.decoders import declared as dd
from harness.decoders import run_decoders as rd
from harness.core.common import REPO_ROOT
from harness.decoders.inputs import Capture
from harness.decoders.registry import Decoder, Profile, is_events_pattern, read_profile, read_registry
from harness.decoders.perf_samples import read_layout

DATA = os.path.join(REPO_ROOT, "tests", "data", "perf")
HELLO_PIPE = os.path.join(DATA, "hello-pipe-mode.perf.data")


def ev(name, time, *members, meta=None):
    return dc.Event(name, Decimal(time), [("n", name)] + [(k, dc._normalize(v)) for k, v in
                                                         members],
                    dict(meta or {"time": Decimal(time), "pid": Decimal(1), "tid": Decimal(1)}))


def golden_events(case: str):
    """golden/<case>.json as the reference prints it, event i at time (i + 1) ms."""
    out = []
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith('{"ehconf"')]
    for i, line in enumerate(lines):
        e = dc._event(dc._loads(line), line)
        t = Decimal(i + 1) / 1000
        e.time = t
        e.meta = dict(e.meta, time=t, pid=Decimal(7), tid=Decimal(7))
        out.append(e)
    return out


def hello_events():
    """tests/data/perf/hello-pipe-mode.perf.data's 5 events as gen_captures.c writes them
    (tests/data/perf/README.md), at the times of its samples."""
    with open(HELLO_PIPE, "rb") as f:
        lay = read_layout(f.read())
    return [ev("Sample_Provider:Hello", Decimal(s.time) / 1000000000, ("n", i),
               ("msg", f"hello #{i}"), ("pt", dc._Obj([("x", i * 10 - 20), ("y", -i)])),
               meta={"time": Decimal(s.time) / 1000000000, "cpu": Decimal(0),
                     "pid": Decimal(73), "tid": Decimal(73), "level": Decimal(5),
                     "keyword": "0x1"})
            for i, s in enumerate(lay.samples)]


def clock_events(path: str):
    """golden/activity.json's events at the wall-clock times of a real capture with perf's
    clock data (tests/data/perf/activity-clock-*-mode.perf.data, recorded in the VM), in
    its sample order: nanosecond dates, several samples at one time (the guest's coarse
    clock)."""
    with open(path, "rb") as f:
        lay = read_layout(f.read())
    evs = golden_events("activity")
    assert len(lay.samples) == len(evs) and lay.clock_offset is not None
    for e, smp in zip(evs, lay.samples):
        e.time = Decimal(lay.wall(smp.time)) / 1000000000
        e.meta = dict(e.meta, time=e.time)
    return evs


def reference_for(pattern: str):
    """(capture id, its path, the reference's events) for the captures an events pattern
    covers, from the repository's data. A pattern of the captures with perf's clock data
    (vm-clock/, offline-clock/, data/activity-clock-*) gets the real capture of that mode
    in tests/data/perf and golden/activity.json's events at its times."""
    kind, case = pattern.split("/")[:2]
    if "clock" in kind or "clock" in case:
        mode = "pipe" if "pipe" in pattern else "file"
        path = os.path.join(DATA, f"activity-clock-{mode}-mode.perf.data")
        return f"data/activity-clock-{mode}-mode", path, clock_events(path)
    if case == "s390x-activity":
        return "data/s390x-activity", os.path.join(DATA, "s390x-activity.perf.data"), \
            golden_events("activity")
    if case in ("hello-pipe-mode", "*"):
        return pattern.replace("*", "hello")[:-len("/events")], HELLO_PIPE, hello_events()
    return pattern.replace("*", "offline")[:-len("/events")], HELLO_PIPE, golden_events(case)


def decoded(reference, declared, raw):
    """What a decoder printing exactly the declared observation gives: each declared event
    as its declaration states, every other as the reference."""
    out = []
    decl = dd.resolve(reference, declared)
    nth_at = {}
    for i, ref in enumerate(reference):
        d = decl.get(i)
        k = nth_at.get(ref.time, 0)
        nth_at[ref.time] = k + 1
        if d is None:
            out.append(dc.Event(ref.name, ref.time, list(ref.fields), dict(ref.meta)))
        elif not d.lost:
            name, members = dd.expected(ref, d, raw, k)
            meta = dict(ref.meta) if d.raw is None else \
                {k: v for k, v in ref.meta.items() if k in dd.SAMPLE_META}
            time = ref.time
            if d.time_digits is not None:
                time = meta["time"] = dd.cut_time(ref.time, d.time_digits)
            for k in d.meta_drop:
                meta.pop(k, None)
            out.append(dc.Event(name, time, members, meta))
    return out


def item(dec, capture, reference, events, profile, which=("events", "meta")):
    """The events and meta items of capture_items, the runner's own code, for these
    outputs, as one: failed if either fails, else declared if either is, else passed."""
    j = rd.Judged()
    ref = rd.Output("", "", False, dc.Document(reference), "", 0.0)
    got = rd.Output("", "", False, dc.Document(events), "", 0.0)
    rd.capture_items(j, dec, capture, got, ref, rd.EventsDeclarations(profile))
    es = [x for x in j.entries if x["id"].rsplit("/", 1)[1] in which]
    status = next((s for s in ("fail", "xfail") if any(x["status"] == s for x in es)), "pass")
    return status, "\n".join(x["message"] for x in es if x["message"])


def declarations():
    out = []
    for d in read_registry():
        if d.reference:
            continue
        prof = read_profile(d)
        for pattern in prof.declared:
            if is_events_pattern(pattern):
                out.append(pytest.param(d, prof, pattern, id=f"{d.name}:{pattern}"))
    return out


def _change(v):
    """A value that is surely not v, of a kind a decoder could print."""
    if isinstance(v, Decimal):
        return v + 1
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, bool):
        return not v
    return "changed"


def _perturb_outside(reference, events, declared):
    """(events with one value changed that no declaration states, what was changed); the
    changed value is a member of a declared event outside its declared paths when there is
    one, else of an undeclared event, else (every event declared) the declared output
    itself."""
    decl = dd.resolve(reference, declared)
    by_time = {e.time: k for k, e in enumerate(events)}

    def printed_at(ref, d):  # the time the declared output has (time_digits: cut)
        return dd.cut_time(ref.time, d.time_digits) if d and d.time_digits is not None \
            else ref.time
    candidates = []
    for i, ref in enumerate(reference):
        d = decl.get(i)
        k = by_time.get(printed_at(ref, d))
        if d is not None and (d.lost or d.raw is not None or d.event is not None):
            continue
        if k is None:
            continue
        stated = {p for p, _ in d.set} | set(d.drop) if d else set()
        keep = d.first if d and d.first else None
        leaves = [(p, v) for p, v in dd.flat(events[k].fields)[:keep] if p != "n"
                  and not any(p == s or p.startswith(s + "/") for s in stated)]
        if leaves:
            candidates.append((d is None, k, leaves[0]))
    if candidates:
        candidates.sort(key=lambda c: c[0])  # inside a declared event first
        _, k, (path, v) = candidates[0]
        out = list(events)
        e = out[k]
        out[k] = dc.Event(e.name, e.time, dd._edit(e.fields, dd._split(path), _change(v),
                                                   False), e.meta)
        return out, f"{e.name} at {e.time}: {path} {dc.show(v)} -> {dc.show(_change(v))}"
    # every event declared: a lost one comes back changed, or a raw one changes a byte
    for i, ref in enumerate(reference):
        d = decl[i]
        if d.lost:
            changed = dc.Event(ref.name, ref.time, list(ref.fields[:1]) + [("extra", "x")],
                               dict(ref.meta))
            return events + [changed], f"{ref.name} at {ref.time}: declared lost, printed"
        k = by_time[printed_at(ref, d)]
        e = events[k]
        path, v = dd.flat(e.fields)[-1]
        out = list(events)
        out[k] = dc.Event(e.name, e.time, dd._edit(e.fields, dd._split(path), _change(v),
                                                   False), e.meta)
        return out, f"{e.name} at {e.time}: declared {path} {dc.show(v)[:40]} changed"
    raise AssertionError("nothing to perturb")


@pytest.mark.parametrize("dec,profile,pattern", declarations())
def test_every_declaration_sees_outside_what_it_declares(dec, profile, pattern, capsys):
    ident, path, reference = reference_for(pattern)
    assert fnmatch.fnmatchcase(f"{ident}/events", pattern)
    cap = Capture(ident, path)
    declared = dd.read_observation(profile.observed[pattern])
    raw = rd.samples_at(path)
    events = decoded(reference, declared, raw)
    only = Profile({pattern: profile.declared[pattern]}, {pattern: profile.observed[pattern]})
    status, message = item(dec, cap, reference, events, only)
    assert status == "xfail", message
    changed, what = _perturb_outside(reference, events, declared)
    status, message = item(dec, cap, reference, changed, only)
    assert status == "fail", (what, message)
    if any(d.time_digits is not None for d in declared):  # the declared meta, one digit off
        full = {r.meta["time"] for r in reference}
        k = next(i for i, e in enumerate(events) if e.meta["time"] not in full)  # a cut one
        e = events[k]
        t = e.meta["time"] - Decimal("0.0000001")  # one unit of the 7th digit: still paired
        wrong = list(events)
        wrong[k] = dc.Event(e.name, e.time, e.fields, dict(e.meta, time=t))
        status, message = item(dec, cap, reference, wrong, only)
        assert status == "fail", message
        what += f"; meta.time {dc.show(e.meta['time'])} -> {dc.show(t)}"
    dropping = [(i, d) for i, d in dd.resolve(reference, declared).items() if d.meta_drop
                and any(k in reference[i].meta for k in d.meta_drop)]
    if dropping:  # a dropped meta member printed after all (fixed), and another one changed
        i, d = dropping[0]
        ref = reference[i]
        k = next(n for n, e in enumerate(events) if e.time == ref.time and e.name == ref.name)
        e = events[k]
        m = next(x for x in d.meta_drop if x in ref.meta)
        for meta, said in ((dict(e.meta, **{m: ref.meta[m]}), f"meta.{m} printed"),
                           ({x: (_change(v) if x == "level" else v) for x, v in e.meta.items()},
                            "meta.level changed")):
            assert "level" in e.meta
            wrong = list(events)
            wrong[k] = dc.Event(e.name, e.time, e.fields, meta)
            status, message = item(dec, cap, reference, wrong, only)
            assert status == "fail", (said, message)
        what += f"; {ref.name}: meta.{m} printed as the reference, and meta.level changed"
    with capsys.disabled():
        print(f"\n  {dec.name} {pattern} ({os.path.basename(profile.observed[pattern])}): "
              f"perturbed {what}: fail; restored: xfail", end="")
    assert item(dec, cap, reference, events, only)[0] == "xfail"
    # without the declaration the same output fails: the declaration is what lets it through
    assert item(dec, cap, reference, events, Profile())[0] == "fail"


# ---- the judge, piece by piece ------------------------------------------------------------

def obs(tmp_path, *entries):
    p = tmp_path / "o.json"
    p.write_text(json.dumps({"declares": list(entries)}))
    return dd.read_observation(str(p))


REF = [ev("P:A", "1", ("v", 1), ("s", "x")), ev("P:A", "2", ("v", 2), ("s", "y")),
       ev("P:B", "3", ("w", 3))]
WHY = "because (x.rs:1)"


def test_a_set_declaration_holds_only_for_the_declared_value(tmp_path):
    d = obs(tmp_path, {"n": "P:A", "nth": "2", "set": {"v": "TWO"}, "why": WHY})
    got = [ev("P:A", "1", ("v", 1), ("s", "x")), ev("P:A", "2", ("v", "TWO"), ("s", "y")),
           ev("P:B", "3", ("w", 3))]
    j = dd.judge(REF, got, d)
    assert not j.findings and [e.time for _, e in j.held] == [Decimal(2)]
    got[1] = ev("P:A", "2", ("v", "TWO"), ("s", "z"))  # outside the declared path
    assert [f.kind for f in dd.judge(REF, got, d).findings] == ["broken"]
    got[1] = ev("P:A", "2", ("v", "THREE"), ("s", "y"))  # another value on the path
    assert [f.kind for f in dd.judge(REF, got, d).findings] == ["broken"]
    got[1] = ev("P:A", "2", ("v", "TWO"), ("s", "y"))
    got[0] = ev("P:A", "1", ("v", 9), ("s", "x"))  # an undeclared event
    assert [f.kind for f in dd.judge(REF, got, d).findings] == ["differs"]


def test_a_declared_event_printed_as_the_reference_is_fixed(tmp_path):
    d = obs(tmp_path, {"n": "P:B", "lost": True, "why": WHY})
    assert not dd.judge(REF, REF[:2], d).findings
    j = dd.judge(REF, REF, d)
    assert [f.kind for f in j.findings] == ["fixed"] and "remove" in j.findings[0].what
    d = obs(tmp_path, {"n": "P:A", "nth": "1", "set": {"v": 5}, "why": WHY})
    assert [f.kind for f in dd.judge(REF, REF, d).findings] == ["fixed"]


def test_renamed_first_and_raw_declarations(tmp_path):
    d = obs(tmp_path, {"n": "P:B", "set": {"n": "P:B;x=y"}, "why": WHY})
    got = REF[:2] + [ev("P:B;x=y", "3", ("w", 3))]
    assert not dd.judge(REF, got, d).findings
    d = obs(tmp_path, {"n": "P:A", "nth": "1", "first": 2, "why": WHY})
    got = [ev("P:A", "1", ("v", 1))] + REF[1:]
    assert not dd.judge(REF, got, d).findings
    got = [ev("P:A", "1")] + REF[1:]
    assert [f.kind for f in dd.judge(REF, got, d).findings] == ["broken"]
    d = obs(tmp_path, {"n": "*", "raw": ":", "why": WHY})
    raw = {3000000000: b"\x01\xab"}
    got = REF[:2] + [dc.Event(":", Decimal(3), [("n", ":"), ("raw", dc._normalize("01 AB"))],
                              {"time": Decimal(3), "pid": Decimal(1), "tid": Decimal(1)})]
    j = dd.judge(REF, got, d, raw)
    # P:A x2 have no sample bytes: not as declared, and what was printed for them is extra
    assert sorted(f.kind for f in j.findings) == ["broken", "broken", "extra", "extra"]
    j = dd.judge(REF[2:], got[2:], d, raw)
    assert not j.findings and not j.meta  # the sample's meta only: no level expected


@pytest.mark.parametrize("entry,why", [
    ({"n": "P:A", "lost": True, "why": "no source line"}, "upstream source line"),
    ({"n": "P:A", "why": WHY}, "one of"),
    ({"n": "P:A", "lost": True, "set": {"v": 1}, "why": WHY}, "one of"),
    ({"n": "P:A", "nth": "0", "lost": True, "why": WHY}, "from 1"),
    ({"n": "P:A", "lost": True, "why": WHY, "typo": 1}, "unknown"),
])
def test_a_malformed_entry_is_an_error(tmp_path, entry, why):
    with pytest.raises(ValueError, match=why):
        obs(tmp_path, entry)


def test_a_time_digits_declaration_holds_only_for_the_cut_time(tmp_path):
    """time_digits: meta.time cut (not rounded) to N digits, judged in the meta item: held
    where the cut changes the time, fixed where all digits are printed, failed otherwise;
    the members are still compared."""
    d = obs(tmp_path, {"n": "*", "time_digits": 7, "why": WHY})
    full = [Decimal("1795905389.123456789"), Decimal("1795905389.5")]
    ref = [ev("P:A", full[0], ("v", 1)), ev("P:B", full[1], ("w", 2))]
    cut = [ev("P:A", "1795905389.1234567", ("v", 1)), ev("P:B", full[1], ("w", 2))]
    j = dd.judge(ref, cut, d)
    assert not j.findings and not j.meta and [e.name for _, e in j.meta_held] == ["P:A"]
    rounded = [ev("P:A", "1795905389.1234568", ("v", 1)), cut[1]]  # after the event: unpaired
    assert dd.judge(ref, rounded, d).findings
    six = [ev("P:A", "1795905389.123456", ("v", 1)), cut[1]]  # 6 digits, not 7
    assert dd.judge(ref, six, d).meta == {"time": 1}
    j = dd.judge(ref, ref, d)  # every digit: fixed
    assert j.meta == {"time": 1} and "fixed" in j.meta_example["time"] and not j.meta_held
    other = [ev("P:A", "1795905389.1234567", ("v", 9)), cut[1]]
    assert [f.kind for f in dd.judge(ref, other, d).findings] == ["broken"]
    dec = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    (tmp_path / "c.json").write_text(json.dumps({"declares": [
        {"n": "*", "time_digits": 7, "why": WHY}]}))
    prof = Profile({"vm-clock/*/events": "seven digits"},
                   {"vm-clock/*/events": str(tmp_path / "c.json")})
    cap = Capture("vm-clock/c", HELLO_PIPE)
    assert item(dec, cap, ref, cut, prof, ("meta",))[0] == "xfail"
    assert item(dec, cap, ref, cut, prof, ("events",))[0] == "pass"
    assert item(dec, cap, ref, six, prof)[0] == "fail"
    assert item(dec, cap, ref, cut, Profile())[0] == "fail"
    for bad in ({"n": "*", "time_digits": 9, "why": WHY}, {"n": "*", "time_digits": "7",
                                                           "why": WHY},
                {"n": "*", "time_digits": 7, "lost": True, "why": WHY}):
        with pytest.raises(ValueError, match="time_digits"):
            obs(tmp_path, bad)


def test_an_entry_that_names_no_event_is_stale(tmp_path):
    (tmp_path / "o.json").write_text(json.dumps({"declares": [
        {"n": "P:A", "nth": "2", "set": {"v": "TWO"}, "why": WHY},
        {"n": "P:Gone", "lost": True, "why": WHY}]}))
    dec = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    prof = Profile({"*/c/events": "reason"}, {"*/c/events": str(tmp_path / "o.json")})
    decl = rd.EventsDeclarations(prof)
    j = rd.Judged()
    got = [REF[0], ev("P:A", "2", ("v", "TWO"), ("s", "y")), REF[2]]
    rd.capture_items(j, dec, Capture("vm/c", HELLO_PIPE), rd.Output(
        "", "", False, dc.Document(got), "", 0.0), rd.Output(
        "", "", False, dc.Document(REF), "", 0.0), decl)
    assert {e["id"].rsplit("/", 1)[1]: e["status"] for e in j.entries}["events"] == "xfail"
    stale = decl.stale("decoder/demo/")
    assert len(stale) == 1 and "P:Gone" in stale[0]["message"] and stale[0]["status"] == "fail"


def test_observe_prints_entries_that_declare_what_it_saw():
    got = [ev("P:A", "1", ("v", 1), ("s", "x")), ev("P:A", "2", ("v", "TWO"), ("s", "y"))]
    entries = dd.observe(REF, got)
    assert entries == [
        {"n": "P:A", "nth": "2", "set": {"v": "TWO"}, "why": entries[0]["why"]},
        {"n": "P:B", "nth": "1", "lost": True, "why": entries[1]["why"]}]
    assert "TODO" in entries[0]["why"]  # a reviewer writes the reason


def test_a_meta_drop_declaration_holds_only_without_the_member(tmp_path):
    """meta_drop: the reference's meta members the decoder leaves out (a tracepoint name's
    options), judged in the meta item: held where the decoder prints every other meta member
    as the reference and not the dropped one; fixed where it prints it as the reference;
    failed where it prints it otherwise or changes another member. Events whose reference
    has no such member tell nothing; the members are still compared."""
    d = obs(tmp_path, {"n": "P:A", "meta_drop": ["options"], "why": WHY})
    m = {"time": Decimal(1), "level": Decimal(4), "options": "Gg"}
    ref = [ev("P:A", "1", ("v", 1), meta=m), ev("P:A", "2", ("v", 2)), ev("P:B", "3", ("w", 3))]
    without = dict(m)
    del without["options"]
    got = [ev("P:A", "1", ("v", 1), meta=without), ref[1], ref[2]]
    j = dd.judge(ref, got, d)
    assert not j.findings and not j.meta and [e.time for _, e in j.meta_held] == [1]
    j = dd.judge(ref, ref, d)  # printed as the reference: fixed
    assert j.meta == {"options": 1} and "fixed" in j.meta_example["options"]
    other = [ev("P:A", "1", ("v", 1), meta=dict(m, options="Gh")), ref[1], ref[2]]
    assert dd.judge(ref, other, d).meta == {"options": 1}
    level = [ev("P:A", "1", ("v", 1), meta=dict(without, level=Decimal(5))), ref[1], ref[2]]
    assert dd.judge(ref, level, d).meta == {"level": 1}
    fields = [ev("P:A", "1", ("v", 9), meta=without), ref[1], ref[2]]
    assert [f.kind for f in dd.judge(ref, fields, d).findings] == ["broken"]
    dec = Decoder("demo", "c", "X", "up", ("perf",), "demo")
    (tmp_path / "c.json").write_text(json.dumps({"declares": [
        {"n": "P:A", "meta_drop": ["options"], "why": WHY}]}))
    prof = Profile({"vm/*/events": "no options"}, {"vm/*/events": str(tmp_path / "c.json")})
    cap = Capture("vm/c", HELLO_PIPE)
    assert item(dec, cap, ref, got, prof, ("meta",))[0] == "xfail"
    assert item(dec, cap, ref, got, prof, ("events",))[0] == "pass"
    assert item(dec, cap, ref, level, prof)[0] == "fail"
    assert item(dec, cap, ref, got, Profile())[0] == "fail"
    for bad in ({"n": "P:A", "meta_drop": [], "why": WHY},
                {"n": "P:A", "meta_drop": "options", "why": WHY},
                {"n": "P:A", "meta_drop": ["time"], "why": WHY},
                {"n": "P:A", "meta_drop": ["options"], "lost": True, "why": WHY}):
        with pytest.raises(ValueError, match="meta_drop"):
            obs(tmp_path, bad)


def test_a_raw_declaration_holds_each_of_several_samples_at_one_time(tmp_path):
    """A coarse clock gives several samples one time: the k-th reference event at a time is
    held to the k-th sample's bytes at that time, in file order, not to the last one's."""
    d = obs(tmp_path, {"n": "*", "raw": "tp", "why": WHY})
    ref = [ev("P:A", "3", ("v", 1)), ev("P:B", "3", ("w", 2))]
    raw = {3000000000: [b"\x01", b"\x02"]}

    def printed(*hexes):
        return [dc.Event("tp", Decimal(3), [("n", "tp"), ("raw", dc._normalize(h))],
                         {"time": Decimal(3), "pid": Decimal(1), "tid": Decimal(1)})
                for h in hexes]
    assert not dd.judge(ref, printed("01", "02"), d, raw).findings
    assert [f.kind for f in dd.judge(ref, printed("02", "02"), d, raw).findings] == ["broken"]
    j = dd.judge(ref, printed("01", "02"), d, {3000000000: [b"\x01"]})  # one sample only
    assert [f.kind for f in j.findings] == ["broken", "extra"] and "no sample" in j.findings[0].what
