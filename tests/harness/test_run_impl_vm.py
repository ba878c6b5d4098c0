# SPDX-License-Identifier: GPL-2.0
"""harness/impl/run_impl_vm.py judge_case: how one implementation's capture on the real kernel
becomes items, from what the guest saved (no VM here). A case the guest lost, an emitter
that crashed or reported too few events, an event it refused without a declaration: each
one item failing with its reason, and only that implementation's case; a declared
difference is held to what the same emitter wrote offline, never to the golden event."""

from __future__ import annotations

import json
import os

from harness.impl.registry import Profile
from harness.impl.run_impl import golden_parts
from harness.impl.run_impl_vm import judge_case

CASE = "activity"  # 10 golden events, in order


def plan(declared=None):
    return {"events": "unused", "kept": list(range(1, 11)), "declared": declared or {}}


def log(folder, states):
    (folder / f"{CASE}.log").write_text("".join(f"event {n} {s}\n" for n, s in states) +
                                        "emit: done\n")


def ok_res():
    return {"status": "ok", "problem": "", "live_exit": 0}


def test_a_case_the_guest_never_ran_fails(tmp_path):
    [e] = judge_case("x", Profile(), CASE, plan(), None, str(tmp_path))
    assert (e["id"], e["status"]) == ("impl-vm/x/activity", "fail") and "not run" in e["message"]


def test_a_failed_step_is_the_reason(tmp_path):
    res = {"status": "failed", "problem": "perf record did not start"}
    [e] = judge_case("x", Profile(), CASE, plan(), res, str(tmp_path))
    assert e["status"] == "fail" and e["message"] == "perf record did not start"


def test_an_emitter_that_stopped_early_fails(tmp_path):
    log(tmp_path, [(n, "written") for n in range(1, 4)])
    [e] = judge_case("x", Profile(), CASE, plan(), ok_res(), str(tmp_path))
    assert e["status"] == "fail" and "3 of 10" in e["message"]


def test_expected_events_are_the_written_ones(tmp_path):
    states = [(n, "written") for n in range(1, 11)]
    states[4] = (5, "failed EBADF")  # undeclared: its own failing item
    states[6] = (7, "failed ERANGE")  # declared, not written: no item, left out
    log(tmp_path, states)
    p = Profile()
    p.refuses[(CASE, 7)] = "refused"
    p.differs[(CASE, 9)] = "written differently"
    offline_9 = '{"n": "as written offline"}'
    entries = judge_case("x", p, CASE, plan({"9": offline_9}), ok_res(), str(tmp_path))
    fails = [e for e in entries if e["kind"] == "check"]
    assert [(e["id"], e["status"]) for e in fails] == [("impl-vm/x/activity/5", "fail")]
    [g] = [e for e in entries if e["kind"] == "golden"]
    assert g["transport"] == "perf" and g["decoded"] == "activity.perf.json"
    _, golden = golden_parts(f"golden/{CASE}.json")
    expected = [ln for ln in (tmp_path / "activity.expected.json").read_text().splitlines()
                if not ln.startswith('{"ehconf"')]
    want = [golden[o - 1] for o in (1, 2, 3, 4, 6, 8)] + [offline_9, golden[9]]
    assert [json.loads(x) for x in expected] == [json.loads(x) for x in want]


def test_the_outcomes_the_format_allows_hold_on_the_kernel(tmp_path):
    """An event the golden file's `allows` lets be refused is no failure when refused with
    an error, but is when the emitter panicked; an event written in an allowed form is
    expected in the form it took offline (plan "allowed")."""
    family = "impl/otel-logs/expected/limits.json"  # allows #2 (refused, or forms) and #4 (refused)
    p = {"events": "unused", "kept": [1, 2, 3, 4], "declared": {}, "golden": family,
         "allowed": {"3": '{"n": "the allowed form offline"}'}}
    (tmp_path / f"{CASE}.log").write_text("event 1 written\nevent 2 failed EINVAL\n"
                                          "event 3 written\nevent 4 failed panicked: x\n")
    entries = judge_case("x", Profile(), CASE, p, ok_res(), str(tmp_path))
    assert [(e["id"], e["status"]) for e in entries if e["kind"] == "check"] == \
        [("impl-vm/x/activity/4", "fail")]
    expected = (tmp_path / "activity.expected.json").read_text()
    assert "the allowed form offline" in expected


# ---- which tracepoints the guest attaches perf to ----------------------------------------

def test_a_golden_line_names_its_whole_tracepoint():
    """provider from "n" (the event's own, not a field of that name), level and keyword
    from meta (left out: 0), then the options as written (decoder-json.md §2)."""
    from harness.impl.run_impl_vm import tracepoint_of
    assert tracepoint_of('{ "n": "EhconfAttributes:Grouped", "from": "grp1", "meta": '
                         '{ "level": 4, "keyword": "0x1", "options": "Ggrp1" } }') == \
        "EhconfAttributes_L4K1Ggrp1"
    assert tracepoint_of('{ "n": "P_x:E", "n": 1, "meta": { "keyword": "0xF123456789ABCDEF" } }'
                         ) == "P_x_L0Kf123456789abcdef"
    assert tracepoint_of('{ "n": "P:E", "meta": { "level": 255 } }') == "P_LffK0"
    for not_one in ('{ "n": "user_events:", "error": "x", "fileOffset": 1 }', "not json",
                    '{ "n": "P:E" }', '[1]'):
        assert tracepoint_of(not_one) == ""


def test_the_expected_tracepoints_come_from_the_golden_and_the_reviewed_forms():
    """The kept golden events name the tracepoints, with a declared observation's and an
    allowed outcome's; nothing comes from what the emitter reports."""
    from harness.impl.run_impl_vm import expected_tracepoints
    p = {"golden": "golden/attributes.json", "kept": [37, 38, 39],
         "declared": {"39": '{ "n": "Other:E", "meta": { "level": 5 }, "fileOffset": 9 }'},
         "allowed": {"38": '{ "n": "EhconfAttributes:Grouped", "meta": { "level": 4, '
                           '"keyword": "0x1", "options": "Ggrp2" } }'}}
    assert expected_tracepoints("attributes", p) == [
        "EhconfAttributes_L4K1", "EhconfAttributes_L4K1Ggrp1", "EhconfAttributes_L4K1Ggrp2",
        "Other_L5K0"]
    lifecycle = expected_tracepoints("lifecycle", {"golden": "golden/lifecycle.json",
                                                   "kept": list(range(1, 12))})
    assert "EhconfLifeA_L4K1Ggrp" in lifecycle and "EhconfLifeA_L4K1" in lifecycle


def test_the_guest_attaches_to_the_expected_names_not_the_reported(tmp_path):
    """guest_impl.attached_to: capture_program's names are the expected ones, the emitter's
    own kept as reported_tracepoints; without expected names nothing changes."""
    import struct

    from harness.impl import guest_impl
    from harness.vm import guest_run
    dat = tmp_path / "c.dat"
    rec = b"Wrong_L4K1Hgrp1\0" + bytes(8)
    dat.write_bytes(struct.pack("<I", len(rec) + 4) + rec)
    res = {}
    with guest_impl.attached_to(["Right_L4K1Ggrp1"], res):
        assert guest_run.tracepoint_names(str(dat)) == ["Right_L4K1Ggrp1"]
    assert res["reported_tracepoints"] == ["Wrong_L4K1Hgrp1"]
    assert guest_run.tracepoint_names(str(dat)) == ["Wrong_L4K1Hgrp1"]
    with guest_impl.attached_to(None, res):
        assert guest_run.tracepoint_names(str(dat)) == ["Wrong_L4K1Hgrp1"]


def test_a_pinned_release_goes_on_the_kernel_beside_its_row(tmp_path, monkeypatch):
    """NAME@VERSION (a crate-registry row at another release it pins) has its offline
    plan taken into the one boot, and its contract rows judged against that release's
    profile; a name that is no row, versioned or not, says it has nothing to run."""
    from types import SimpleNamespace

    import harness.impl.run_impl_vm as rv
    from harness.impl.registry import read_registry
    from harness.impl.run_impl import folder_of, PLAN

    row = next(i for i in read_registry() if i.crate_versions[1:])
    name = f"{row.name}@{row.crate_versions[-1]}"
    results = tmp_path / "results"
    for n in (name, "nosuch@1.0.0"):
        folder = folder_of(str(results), n)
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / PLAN).write_text(json.dumps({"cases": {}}))
    seen = {}

    def boot(repo, build, top, extra, guest, out):
        seen["guest"] = guest
        return SimpleNamespace(ok=True, problem="", seconds=1.0, vm={"findings": []},
                               guest={"impls": {name: {"cases": {}, "contract": {}}},
                                      "guest": {"kernel_release": "6.12.117"}})

    monkeypatch.setattr(rv, "boot", boot)
    out = {os.path.basename(f): e for f, e, _ in
           rv.run_impl_vm([name, "nosuch@1.0.0"], "build", str(results), str(tmp_path))}
    assert f"{name}=" in " ".join(seen["guest"])
    assert "nosuch@1.0.0=" not in " ".join(seen["guest"])
    ids = {e["id"]: e["status"] for e in out[name]}
    assert ids[f"impl-vm/{name}/boot"] == "pass"
    assert any(i.startswith(f"impl-vm/{name}/contract/") for i in ids)
    # a declared contract row carries that release's upstream line, as offline
    declared = [e for e in out[name] if "/contract/" in e["id"] and "upstream" in e.get("facts", {})]
    assert declared and all(e["facts"]["upstream"] for e in declared)
    assert [e["status"] for e in out["nosuch@1.0.0"]] == ["fail"]
