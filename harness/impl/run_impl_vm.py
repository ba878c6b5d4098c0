# SPDX-License-Identifier: GPL-2.0
"""Runner `impl-vm` (the second half of make check-impl): the implementations on the real
kernel. ONE QEMU boot (harness/vm/run_vm.py boot) runs harness/impl/guest_impl.py for every
implementation whose offline run (harness/impl/run_impl.py) left a plan.json: its emitter on the
same descriptions under perf, then the contract rows (Documentation/impl-contract.md).

Outcomes, per implementation, in <results>/impl-vm/<name>/summary.json:
  impl-vm/<name>/boot              the guest ran through (else every item below fails too)
  impl-vm/<name>/kernel-log        no kernel WARNING/BUG/Oops/panic but the allowed one
  impl-vm/<name>/<case>            the perf capture, decoded, against the golden events
                                   the emitter wrote (transport perf: events above perf's
                                   limit must be missing); a declared difference is held
                                   to what the same emitter wrote offline. perf records the
                                   tracepoints the expected events name (provider, level,
                                   keyword, options: expected_tracepoints), not the ones the
                                   emitter reports, so an event under another name is lost
  impl-vm/<name>/<case>/<n>        an event the emitter did not write, undeclared (fail)
  impl-vm/<name>/contract/<row>    the row's observation: the promise for the booted kernel
                                   (pass), the profile's `contract` declaration (xfail),
                                   anything else (fail)
"""

from __future__ import annotations

import json
import os
import re
import shutil
from typing import Dict, List, Tuple

from harness.core.common import display_path, safe_id
from harness.impl.contract_rows import ROWS, promise_for
from harness.kernel.expectations import for_kernel
from harness.core.ehdecode import decoder_script
from harness.impl.registry import parse_emitter_output, read_profile, read_registry, resolve, undo_alters
from harness.core.results import check_entry, golden_entry, read_summary, runner_dir, write_summary, write_text
from harness.impl.run_impl import (PLAN, allowed_outcomes, alters_entries, crashed, folder_of, golden_parts,
                                    upstream_facts)
from harness.vm.run_vm import PERF, boot, kernel_log
from harness.core.processes import run

# The directives that still hold for a subset of a case's events under perf.
PERF_DIRECTIVES = ("order", "perf_max_payload", "size_field", "why")


def _no_plan(results: str, name: str) -> dict:
    """Why an implementation has nothing to run in the VM: its offline run says."""
    ident = f"impl-vm/{name}"
    try:
        build = [e for e in read_summary(folder_of(results, name)).get("entries", [])
                 if e.get("id", "").endswith("/build")]
    except (OSError, ValueError):
        build = []
    if build and build[0].get("status") == "skip":
        return check_entry(ident, "skip", build[0].get("message", ""))
    why = build[0].get("message", "") if build else "no offline run (make check-impl runs one)"
    return check_entry(ident, "fail", f"{name}: nothing to run in the VM: {why}")


def tracepoint_of(line: str) -> str:
    """The tracepoint an expected event's golden line names: provider, level, keyword and
    options (decoder-json.md §2: "n" holds the provider, meta the rest, a left-out level or
    keyword being 0); "" for a line that is not such an event."""
    try:  # members as pairs: a field may be named "n" too; the event's own is the first
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
        first = dict(reversed(pairs)) if isinstance(pairs, list) else {}
        meta = dict(first.get("meta") or [])
        name = first.get("n")
        if "error" in first or "meta" not in first or not isinstance(name, str) or \
                ":" not in name:
            return ""
        return (f"{name.split(':', 1)[0]}_L{int(meta.get('level', 0)):x}"
                f"K{int(str(meta.get('keyword', '0x0')), 16):x}{meta.get('options', '')}")
    except (ValueError, TypeError):
        return ""


def expected_tracepoints(case: str, plan: dict) -> List[str]:
    """The tracepoints a case's expected events name (impl/README.md): its golden
    events, and the reviewed forms that replace some of them (declared observations, the
    outcomes the format allows). The guest attaches perf to these, not to the names the
    emitter reports, so an event registered under another name is lost, not followed."""
    _, golden = golden_parts(plan.get("golden", f"golden/{case}.json"))
    lines = [golden[o - 1] for o in plan["kept"] if 0 < o <= len(golden)]
    lines += list(plan.get("declared", {}).values()) + list(plan.get("allowed", {}).values())
    lines += plan.get("declared_all", []) + plan.get("declared_unordered", [])
    return sorted({t for t in map(tracepoint_of, lines) if t})


def decoded_as_judged(impl, profile, folder: str, case: str, altered: Dict[str, int]) -> Tuple[str, str]:
    """(the file to judge, a problem): what the guest's ehdecode printed of the perf.data,
    through the implementation's own decoder when it writes another format than
    EventHeader, with the profile's declared alterations undone and without the file
    offsets of undecodable events (FILE_OFFSET)."""
    path = os.path.join(folder, case + ".perf.json")
    problem = ""
    script = decoder_script(impl.decoder)
    if script and os.path.exists(path):
        r = run([script, "--from-ehdecode", path], 300, merge_stderr=False)
        if r.how() or r.returncode:
            problem = (f"{impl.decoder} --from-ehdecode {case}.perf.json: "
                       f"{r.how() or 'exit status %d' % r.returncode}: "
                       f"{(r.stderr.strip().splitlines() or [''])[0][:200]}")
        text = r.output
    elif os.path.exists(path):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        if not profile.alters and not FILE_OFFSET.search(text):
            return case + ".perf.json", problem
    else:
        return case + ".perf.json", problem
    lines, seen = undo_alters(profile, [FILE_OFFSET.sub("", ln) for ln in text.split("\n")
                                        if ln.strip()])
    for label, n in seen.items():
        altered[label] = altered.get(label, 0) + n
    write_text(os.path.join(folder, case + ".perf.judged.json"), "\n".join(lines) + "\n")
    return case + ".perf.judged.json", problem


# Where an event the decoder cannot read lies in its file: not a property of the event, and
# never the same in the offline capture and the perf.data.
FILE_OFFSET = re.compile(r', "fileOffset": \d+')


def _errors_all_declared(path: str, plan: dict) -> bool:
    """ehdecode failed only on events it could not read (an "error" member), each exactly
    as the offline run decoded an event the profile declares different: the decoder's exit
    status is that declaration's (run_impl.py excuses it the same way)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            bad = [ln for ln in f.read().split("\n") if '"error":' in ln]
    except OSError:
        return False
    declared = {FILE_OFFSET.sub("", ln) for ln in plan.get("declared", {}).values()}
    return bool(bad) and all(FILE_OFFSET.sub("", ln) in declared for ln in bad)


def perf_by_position(golden: str, position: Dict[int, int]) -> List[str]:
    """The golden file's perf declarations of single events ("#k", harness/core/golden.py),
    renumbered for the events the expected file keeps; a declared event that is not kept
    is left out with its declaration."""
    kept = {}
    for d in golden_parts(golden, ("perf",))[0]:
        for key, decl in json.loads(d)["ehconf"]["perf"].items():
            if key.startswith("#") and key[1:].isdigit() and int(key[1:]) in position:
                kept[f"#{position[int(key[1:])]}"] = decl
    return [json.dumps({"ehconf": {"perf": kept}})] if kept else []


def _refusal_allowed(plan: dict, o: int, why: str) -> bool:
    """The golden file allows refusing event o (harness/core/golden.py `allows`), and the emitter
    refused it rather than crashing."""
    spec = allowed_outcomes(plan.get("golden", "")).get(o, {}) if plan.get("golden") else {}
    return bool(spec.get("refused")) and not crashed(why)


def judge_case(name: str, profile, case: str, plan: dict, res: dict, folder: str,
               impl=None, altered: Dict[str, int] = None) -> List[dict]:
    base = safe_id(f"impl-vm/{name}/{case}")
    if res is None:
        return [check_entry(base, "fail", "not run in the guest")]
    if res.get("status") != "ok":
        return [check_entry(base, "fail", res.get("problem") or "failed in the guest")]
    try:
        with open(os.path.join(folder, case + ".log"), encoding="utf-8", errors="replace") as f:
            said = parse_emitter_output(f.read())
    except OSError as e:
        return [check_entry(base, "fail", f"no output of the emitter's live run: {e}")]
    kept = plan["kept"]
    if len(said) != len(kept):
        return [check_entry(base, "fail", f"the emitter reported {len(said)} of {len(kept)} "
                            f"events (exit {res.get('live_exit')}); see {case}.log")]
    directives, golden = golden_parts(plan.get("golden", f"golden/{case}.json"), PERF_DIRECTIVES)
    entries, lines = [], []
    position: Dict[int, int] = {}  # golden ordinal -> its place in the expected file
    for k, o in enumerate(kept, 1):
        state, why = said[k]
        declared = (case, o) in profile.differs
        if (case, o) in profile.loses:
            continue  # expected missing: if it arrives, the comparison finds it extra
        if state != "written":
            if not declared and (case, o) not in profile.refuses and not _refusal_allowed(
                    plan, o, why):
                entries.append(check_entry(f"{base}/{o}", "fail", f"{name} {state} event {o} "
                                           f"on the real kernel: {why}"))
            continue
        if declared and "declared_unordered" in plan:
            continue  # the lines come with the input's (below)
        if declared and str(o) not in plan["declared"]:
            entries.append(check_entry(f"{base}/{o}", "fail", f"event {o} is declared "
                                       f"different, but the offline run kept no copy of it"))
            continue
        position[o] = len(lines) + 1
        # An event the format lets be written otherwise: the form it took offline.
        lines.append(FILE_OFFSET.sub("", plan["declared"][str(o)]) if declared else
                     plan.get("allowed", {}).get(str(o), golden[o - 1]))
    if "declared_all" in plan:
        # Declared different as a whole: held to what the same emitter wrote offline.
        lines = plan["declared_all"]
    elif "declared_unordered" in plan:
        # Unordered, with events declared different: the undeclared golden events and
        # what the same emitter wrote offline for the declared ones, in any order.
        lines = [golden[o - 1] for o in kept if (case, o) not in profile.differs
                 and said[kept.index(o) + 1][0] == "written"] + plan["declared_unordered"]
    else:
        directives += perf_by_position(plan.get("golden", f"golden/{case}.json"), position)
    expected = os.path.join(folder, case + ".expected.json")
    write_text(expected, "\n".join(directives + lines) + "\n")
    problem = res.get("ehdecode_problem", "")
    if problem and _errors_all_declared(os.path.join(folder, case + ".perf.json"), plan):
        problem = ""
    judged = case + ".perf.json"
    if impl is not None:
        judged, also = decoded_as_judged(impl, profile, folder, case,
                                         altered if altered is not None else {})
        problem = "\n".join(p for p in (problem, also) if p)
    return entries + [golden_entry(base, case, PERF, judged, expected, problem)]


def judge_contract(name: str, profile, seen: Dict[str, dict], kernel: str,
                   machine: str = "") -> List[dict]:
    """Each row's observation against its promise on `kernel` (the release the rows ran
    on, on `machine`: the guest's `uname -m`, default this one's, for the rows of
    cases/kernel-expectations.txt that hold on one architecture) and the profile's
    declaration. A failure gives the evidence (what was declared,
    what was observed, what the kernel promises, which other rows moved with it) and no
    advice: a declaration that stops showing may as well be a new bug as a fixed one."""
    expectations = ({w: e.value for w, e in for_kernel(kernel, machine=machine).items()}
                    if kernel else {})
    verdicts = []
    for row in ROWS:
        got = (seen.get(row.name) or {}).get("observed", "not run")
        promise = promise_for(row, expectations)
        declared = profile.contract.get(row.name)
        wanted = declared[0] if declared else promise
        verdicts.append((row, got, promise, declared, got == wanted))
    moved = [f"{r.name} ({got!r})" for r, got, _, _, same in verdicts if not same]
    on = f" on {kernel}" if kernel else ""
    entries = []
    for row, got, promise, declared, same in verdicts:
        ident = f"impl-vm/{name}/contract/{row.name}"
        others = [m for m in moved if not m.startswith(row.name + " ")]
        also = (f"; rows that moved with it: {', '.join(others)}" if others
                else "; no other row moved")
        if declared and same:
            entries.append(check_entry(ident, "xfail", f"{declared[1]}\nobserved: {got}\n"
                                       f"promised{on}: {promise}"))
        elif declared:
            entries.append(check_entry(ident, "fail", f"{row.what}: observed {got!r}; "
                                       f"impl/{name}/profile.txt declares {declared[0]!r}; "
                                       f"the contract promises {promise!r}{on}{also}"))
        elif same:
            entries.append(check_entry(ident, "pass", f"{row.what}: {got}"))
        else:
            entries.append(check_entry(ident, "fail", f"{row.what}: observed {got!r}, "
                                       f"promised {promise!r}{on} (not declared in "
                                       f"impl/{name}/profile.txt){also}"))
    for e, (_, got, _, _, _) in zip(entries, verdicts):
        e["facts"] = {"observed": got}  # the contract table's cell (impls.md)
    return entries


def run_impl_vm(names: List[str], build: str, results: str, repo: str) -> List[Tuple[str, List[dict], dict]]:
    """Boot once, judge each implementation: [(folder, entries, extra)] per name."""
    rows = read_registry()
    # A row, or NAME@VERSION: a crate-registry row at that release, as the offline run took it.
    impls = {n: i for n in names if (i := resolve(n, rows)) is not None}
    top = runner_dir(results, "impl-vm", "").rstrip("/")
    # A stale result must never pass for a new run: this run's implementations start
    # afresh; the others keep their earlier results, which the report labels with their run.
    for name in names:
        shutil.rmtree(os.path.join(top, name), ignore_errors=True)
    plans, done = {}, {}
    for name in names:
        path = os.path.join(folder_of(results, name), PLAN)
        if name in impls and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                plans[name] = json.load(f)
            if plans[name].get("no_emitter"):  # no emitter for the guest's architecture
                done[name] = [check_entry(f"impl-vm/{name}", "skip", plans.pop(name)["no_emitter"])]
        else:
            done[name] = [_no_plan(results, name)]
    guest = ["/usr/bin/python3", os.path.join(repo, "harness", "impl", "guest_impl.py"),
             "--results", top, "--build", build]
    for name in plans:
        # An EventHeader implementation's plan for the guest names the expected tracepoints.
        path = os.path.join(folder_of(results, name), PLAN)
        if impls[name].decoder == "ehdecode":
            for case, c in plans[name]["cases"].items():
                c["tracepoints"] = expected_tracepoints(case, c) or None
            path = os.path.join(top, name, "guest-" + PLAN)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(plans[name], f, indent=1)
        guest += ["--impl", f"{name}={path}"]
    run = boot(repo, build, top, [], guest, "guest-impl.json") if plans else None
    out = []
    for name in names:
        folder = os.path.join(top, name)
        os.makedirs(folder, exist_ok=True)
        if name in done:
            out.append((folder, done[name], {}))
            continue
        g = (run.guest.get("impls") or {}).get(name, {})
        entries = [check_entry(f"impl-vm/{name}/boot", "pass" if run.ok else "fail",
                               run.problem or f"guest ran in {run.seconds:.0f} s"),
                   check_entry(f"impl-vm/{name}/kernel-log", *kernel_log(run))]
        if g.get("problem"):
            entries.append(check_entry(f"impl-vm/{name}", "skip", g["problem"]))
            out.append((folder, entries, {}))
            continue
        profile = read_profile(impls[name])
        altered: Dict[str, int] = {}
        for case, plan in sorted(plans[name]["cases"].items()):
            entries += judge_case(name, profile, case, plan, (g.get("cases") or {}).get(case),
                                  folder, impls[name], altered)
        entries += alters_entries(f"impl-vm/{name}", profile, altered)
        info = (run.guest or {}).get("guest") or {}
        kernel = info.get("kernel_release", "")
        entries += judge_contract(name, profile, g.get("contract") or {}, kernel,
                                  info.get("machine", ""))
        # Each declared item's upstream line for this release (the contract rows' too), as offline.
        entries = upstream_facts(impls[name], profile, entries)
        out.append((folder, entries, {"implementation": name, "contract": g.get("contract", {}),
                                      "guest": display_path(top), "kernel": kernel}))
    return out


def boot_and_judge(names: List[str], build: str, results: str, repo: str, seconds_since) -> int:
    """run_impl_vm, then one summary.json per implementation; how many entries in all."""
    total = 0
    for folder, entries, extra in run_impl_vm(names, build, results, repo):
        name = os.path.basename(folder)
        write_summary(folder, "impl-vm", f"make check-impl IMPL={name}", entries,
                      seconds_since(), extra)
        total += len(entries)
    return total
