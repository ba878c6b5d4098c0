# SPDX-License-Identifier: GPL-2.0
"""Runner `impl` (make check-impl): one implementation's emitter, offline, judged against
golden/ like ehconf's own cases.

For the implementation <name> of impl/implementations.txt:
  impl/<name>/build       the emitter built against the caller's checkout (IMPL_SRC_<X>);
                          no checkout: one skip naming the variable to pass
  impl/<name>/<case>      for each descriptions/<case>.events: the events whose features the
                          profile says it lacks are left out (skip, with the reason); the
                          rest are emitted under the user_events stand-in
                          (tools/standin, LD_PRELOAD) into a capture file, decoded by ehdecode
                          and compared with the same golden events (a "golden" entry)
  impl/<name>/<case>/<n>  an event the profile declares different or refused: xfail only
                          when it shows exactly as declared (harness/impl/declared.py), else
                          fail; or an event the API refused undeclared (fail)
Writes <results>/impl-<name>/ (builds, captures, the expected and decoded JSON per case,
summary.json with the counts impls.md reports).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from harness.impl.declared import expected_line, judge_event, judge_sequence, patch_lines
from harness.core.ehdecode import decode, decoder_script, definitions
from harness.core.common import REPO_ROOT, display_path, safe_id
from harness.core.golden import _loads, compare, line_key
from harness.impl.registry import (CRATES, Description, Impl, Profile, description_path, expected_path, family_folder,
                   parse_emitter_output, read_description, read_profile, read_registry, resolve,
                   undo_alters, without_events)
from harness.core.results import check_entry, golden_entry, runner_dir, write_text
from harness.vm.run_vm import foreign_arch
from harness.core.processes import run
from harness.core.standin import standin_env, standin_path
from harness.core.transports import REFERENCE

PLAN = "plan.json"  # what the VM run takes from this one (harness/impl/run_impl_vm.py)
BUILD_TIMEOUT = 900  # cmake or cargo from scratch on 2 cores: a few minutes at most
DIRECTIVE = '{"ehconf"'


def folder_of(results: str, name: str) -> str:
    return os.path.join(results, "impl-" + name)


# The languages whose emitters are cross-built for a guest of another architecture (make
# check-impl KERNEL_ARCH=s390x): their build scripts take EHCONF_CROSS_ARCH
# (emitlib/build.sh cross_setup; for Rust also rust_cross_setup: cargo --target with the
# target's standard library from vm/rust-std).
CROSS_LANGUAGES = ("c", "c++", "rust")


def _build(impl: Impl, build: str, out: str, arch: str = "") -> Tuple[str, dict]:
    """(emitter path, entry); the path is "" when nothing can run. With `arch` (a guest
    architecture of vm/arches): the emitter for that guest, cross-built (item
    impl/<name>/build-<arch>); the reference's is make's VARIANT=<arch> build."""
    ident = safe_id(f"impl/{impl.name}/build" + (f"-{arch}" if arch else ""))
    if impl.checkout == "-":
        variant = arch or os.path.basename(build)
        path = os.path.join(os.path.dirname(build), variant, "impl", impl.name, "emit")
        if not os.access(path, os.X_OK):
            return "", check_entry(ident, "fail", f"{impl.name}: {display_path(path)} is not "
                                   f"built (make VARIANT={variant} all)")
        return path, check_entry(ident, "pass", f"{display_path(path)} (built by make)")
    if arch and impl.language not in CROSS_LANGUAGES:
        return "", check_entry(ident, "skip", f"{impl.name}: a {impl.language} emitter is not "
                               f"cross-built for {arch} (only {', '.join(CROSS_LANGUAGES)} are)")
    # A producer built from the crate registry at its Cargo.lock's versions needs no checkout;
    # given one (IMPL_SRC: a source tree of the crate, a patched copy), it is built instead.
    src = (os.environ.get(impl.variable) or "-") if impl.checkout == CRATES else \
        os.environ.get(impl.variable, "")
    if not src:
        return "", check_entry(ident, "skip", f"{impl.name}: no checkout of {impl.upstream}: "
                               f"pass {impl.variable}=<path> (make check-impl IMPL={impl.name} "
                               f"IMPL_SRC=<path>)")
    suffix = f"-{arch}" if arch else ""
    log = os.path.join(out, f"build{suffix}.log")
    r = run([os.path.join(impl.folder, "build"), src if src == "-" else os.path.abspath(src),
             os.path.join(out, "build" + suffix)],
            BUILD_TIMEOUT, env={"EHCONF_CROSS_ARCH": arch or None,
                                # the release a crate-registry producer builds (NAME@VERSION)
                                "EHCONF_CRATE_VERSION": impl.version or None,
                                # make's build, whose libraries a build may link (eventheader_library)
                                "EHCONF_MAKE_BUILD": os.path.abspath(build)},
            merge_stderr=False)
    write_text(log, r.output + "\n--- stderr ---\n" + r.stderr)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    if r.how() or not os.access(last, os.X_OK):
        why = (r.stderr.strip().splitlines() or [r.how() or "no emitter path printed"])[-1]
        return "", check_entry(ident, "fail", f"{impl.name}: build: {why} (log: "
                               f"{display_path(log)})")
    return last, check_entry(ident, "pass", f"built in {r.seconds:.0f} s: {display_path(last)}")


def guest_emitter(impl: Impl, build: str, out: str, plan: dict) -> List[dict]:
    """On a guest of another architecture (KERNEL_ARCH, vm/arches): the offline half ran
    here with this machine's emitter, as on x86-64; the VM run takes the same plan with the
    guest's emitter (plan["emitter"]; this machine's kept as plan["host_emitter"]). Without
    one, the plan says why and the VM run skips the implementation."""
    arch = foreign_arch()
    if not arch:
        return []
    emitter, entry = _build(impl, build, out, arch)
    plan["host_emitter"], plan["emitter"], plan["arch"] = plan["emitter"], emitter, arch
    if not emitter:
        plan["no_emitter"] = entry.get("message", "")
    return [entry]


@dataclass
class Source:
    """One input of the emitter: a conformance case's description (impl/implementations.txt's
    inputs column `cases`), or one input file of the implementation's own family (a producer
    such as tracing-etw takes its own kind of input: impl/<impl>/inputs/<name>.inputs,
    expected impl/<impl>/expected/<name>.json). Event n of the input is golden event n either
    way."""
    name: str  # the item's last part
    description: str  # the file the emitter reads
    golden: str  # relative to the checkout
    desc: Optional[Description] = None  # cases: the events and the features they need


def sources(impl: Impl) -> List[Source]:
    if impl.inputs == "cases":
        return [Source(case, description_path(case) or "", f"golden/{case}.json",
                       read_description(description_path(case))
                       if description_path(case) else None)
                for case in sorted(f[:-5] for f in os.listdir(os.path.join(REPO_ROOT, "golden"))
                                   if f.endswith(".json"))]
    folder = family_folder(impl.family, "inputs")
    names = sorted(f[:-len(".inputs")] for f in os.listdir(folder) if f.endswith(".inputs")) \
        if os.path.isdir(folder) else []
    # Each version is held to what its own release promises (expected_path).
    return [Source(n, os.path.join(folder, n + ".inputs"), expected_path(impl, n)) for n in names]


def golden_parts(golden: str, keep=("order",)) -> Tuple[List[str], List[str]]:
    """(directives, event lines) of a golden file (relative to the checkout). Of the
    directives only the keys `keep` stay: offline only the order, since the others declare
    what other transports change (perf's size limit, ETW's types), never the reference
    transport, and some name events that a left-out subset may no longer have."""
    with open(os.path.join(REPO_ROOT, golden), encoding="utf-8", errors="surrogateescape") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    directives = []
    for ln in lines:
        if ln.startswith(DIRECTIVE):
            d = {k: v for k, v in json.loads(ln).get("ehconf", {}).items() if k in keep}
            if d:
                directives.append(json.dumps({"ehconf": d}))
    return directives, [ln for ln in lines if not ln.startswith(DIRECTIVE)]


def _one_case(impl: Impl, profile: Profile, emitter: str, standin: str, ehdecode: str,
              src: Source, out: str, timeout: float, counts: Dict[str, dict],
              plan: dict, altered: Dict[str, int]) -> List[dict]:
    case = src.name
    base = safe_id(f"impl/{impl.name}/{case}")
    if not src.description:
        return [check_entry(base, "fail", f"no description descriptions/{case}.events")]
    if not os.path.exists(os.path.join(REPO_ROOT, src.golden)):
        return [check_entry(base, "fail", f"{os.path.relpath(src.description, REPO_ROOT)} has no "
                            f"expected events {src.golden}")]
    desc = src.desc
    directives, golden = golden_parts(src.golden)
    allows = allowed_outcomes(src.golden)
    c = counts.setdefault(case, {"events": len(golden), "reproduced": 0, "skipped": {},
                                 "declared": [], "failed": []})
    if desc and (desc.problems or len(desc.events) != len(golden)):
        why = "; ".join(desc.problems) or (f"descriptions/{case}.events has {len(desc.events)} "
                                           f"events, {src.golden} {len(golden)}")
        c["failed"].append(why)
        return [check_entry(base, "fail", f"{impl.name}: {why}")]
    lacked = {}
    for ordinal, (_, _, needs) in enumerate(desc.events if desc else [], 1):
        missing = sorted(needs & set(profile.lacks))
        if missing:
            lacked[ordinal] = f"lacks {missing[0]}: {profile.lacks[missing[0]]}"
    kept = [o for o in range(1, len(golden) + 1) if o not in lacked]
    for why in lacked.values():
        c["skipped"][why] = c["skipped"].get(why, 0) + 1
    entries = []
    if lacked:
        entries.append(check_entry(base + "/lacked", "skip", f"{len(lacked)} event(s) left out: "
                                   + "; ".join(sorted(set(lacked.values())))))
    if not kept:
        return entries
    if desc:
        events_file = os.path.join(out, case + ".events")
        write_text(events_file, without_events(desc, set(lacked)))
    else:
        events_file = src.description  # a family's input: nothing is left out of it
    # What the VM run (harness/impl/run_impl_vm.py) needs: the same description, its golden file,
    # and for the declared differences what this implementation wrote instead.
    mine = plan.setdefault(case, {"events": events_file, "kept": kept, "declared": {},
                                  "golden": src.golden})
    dat = os.path.join(out, case + ".dat")
    if os.path.exists(dat):
        os.unlink(dat)
    env = standin_env(standin, dat)
    r = run([emitter, events_file], timeout, env=env, merge_stderr=False)
    write_text(os.path.join(out, case + ".log"), r.output + "\n--- stderr ---\n" + r.stderr)
    said = parse_emitter_output(r.output)
    if r.timed_out or r.error or r.returncode not in (0, 1) or len(said) != len(kept):
        why = (f"{impl.name}: emitter on {case}: {r.how() or 'exit status 0'}, "
               f"{len(said)} of {len(kept)} events reported; see {display_path(out)}/{case}.log")
        c["failed"].append(why)
        return entries + [check_entry(base, "fail", why)]
    # The emitter numbers the events of the file it read: map back to the description's.
    status = {kept[k - 1]: v for k, v in said.items()}
    reported = [o for o in kept if status[o][0] == "written"]
    # Declared lost: reported written, expected never to arrive.
    lost = [o for o in reported if (case, o) in profile.loses]
    d = decode(ehdecode, dat, timeout, decoder_script(impl.decoder)) if reported else None
    decoded = [ln for ln in (d.text if d else "").split("\n") if ln.strip()]
    arrived = lost and len(decoded) == len(reported)  # the lost events came after all
    written = reported if arrived else [o for o in reported if o not in lost]
    # Reported written, never arrived, and the format lets the producer refuse it: when
    # exactly those are missing, they were refused (a producer whose API returns nothing).
    unseen = [o for o in written if allows.get(o, {}).get("refused")]
    if unseen and d is not None and len(decoded) == len(written) - len(unseen):
        written = [o for o in written if o not in unseen]
        for o in unseen:
            status[o] = ("refused", "reported written, never arrived")
    position = {o: k for k, o in enumerate(written)}  # ordinal -> its decoded event
    for o in lost:
        why = profile.loses[(case, o)]
        entries.append(check_entry(safe_id(f"impl/{impl.name}/{case}/{o}"), "fail" if arrived
                                   else "xfail", f"event {o} arrived, but impl/{impl.name}/"
                                   f"profile.txt declares it lost ({why})" if arrived else
                                   f"{why}\nreported written; {len(decoded)} event(s) decoded "
                                   f"for the {len(reported)} reported"))
        if not arrived:
            c["declared"].append(f"{case} event {o}: {why}")
    decoded, seen = undo_alters(profile, decoded)
    for label, n in seen.items():
        altered[label] = altered.get(label, 0) + n
    # The decoder said why each event it could not read is bad (an "error" member), and
    # the profile declares every one of them: its exit status is that declaration's.
    excused = (d is not None and d.exit == 1 and len(decoded) == len(written)
               and _only_declared_errors(profile, case, written, position, decoded))
    aligned = d is not None and (d.ok or excused) and len(decoded) == len(written)
    unordered = any('"unordered"' in ln for ln in directives)
    paired = aligned and not unordered
    if aligned:
        golden = _allowed_chosen(golden, allows, written, position, decoded, unordered, mine)
    if paired:
        mine["declared"] = {str(o): decoded[position[o]] for o in written
                            if (case, o) in profile.differs}
    declared_here = [o for o in written if (case, o) in profile.differs]
    if aligned and unordered and declared_here:
        # No position names a decoded event: the declared ones are those no undeclared
        # golden event matches, and there must be exactly as many of them.
        for o in kept:  # the events not written, refused or lost: as everywhere
            entry = None if o in declared_here else _declared_event(
                impl, profile, case, o, status[o], c, None, None, directives, allows.get(o))
            if entry:
                entries.append(entry)
        return entries + _unordered_declared(impl, profile, case, base, golden, written,
                                             declared_here, decoded, directives, c, mine, out)
    for o in kept:
        entry = _declared_event(impl, profile, case, o, status[o], c,
                                golden[o - 1] if paired else None,
                                decoded[position[o]] if paired and o in position else None,
                                directives, allows.get(o))
        if entry:
            entries.append(entry)
    # The events that must match: written and declared neither different nor refused.
    judged = [o for o in written if (case, o) not in profile.differs
              and (case, o) not in profile.refuses]
    if paired:
        decoded = [decoded[position[o]] for o in written if o in judged]
    expected = os.path.join(out, case + ".expected.json")
    write_text(expected, "\n".join(directives + [golden[o - 1] for o in judged]) + "\n")
    write_text(os.path.join(out, case + ".json"), "\n".join(decoded) + "\n")
    problem = "" if d is None or d.ok or excused else d.problem
    if not judged:
        return entries
    whole = profile.differs.get((case, 0))
    if whole:
        # Declared different as a whole (events added or missing): the comparison is made
        # here, and the VM holds the same emitter to what it wrote offline.
        mine["declared_all"] = decoded
        with open(profile.observed[(case, 0)], encoding="utf-8",
                  errors="surrogateescape") as f:
            observed = f.read()
        verdict, seen = ("fail", f"the decoder failed: {problem}") if problem else judge_sequence(
            directives, [golden[o - 1] for o in judged], decoded, observed, case)
        if verdict == "xfail":
            c["declared"].append(f"{case}: {whole}")
        return entries + [check_entry(base, verdict, f"{whole}\n{seen}" if verdict == "xfail" else
                                      f"{seen}\n(impl/{impl.name}/profile.txt declares the "
                                      f"whole input different: {whole})")]
    entries.append(golden_entry(base, case, REFERENCE, case + ".json", expected, problem))
    c["reproduced"] = len(judged)  # compared; the judge says how many of them failed
    return entries


def _unordered_declared(impl: Impl, profile: Profile, case: str, base: str, golden: List[str],
                        written: List[int], declared: List[int], decoded: List[str],
                        directives: List[str], c: dict, mine: dict, out: str) -> List[dict]:
    """An unordered input with events declared different: every undeclared golden event
    must be matched by a decoded event exactly (the input's golden entry), and each declared
    one by a decoded event left over that is exactly its golden line with its declared patch
    (an xfail each; a declared event no leftover is written as fails, shown against the
    leftovers no declaration took). The VM holds them to these decodings."""
    judged = [o for o in written if o not in declared and (case, o) not in profile.refuses]
    want = Counter(line_key(golden[o - 1]) for o in judged)
    keep, rest = [], []
    for ln in decoded:
        key = line_key(ln)
        if want[key] > 0:
            want[key] -= 1
            keep.append(ln)
        else:
            rest.append(ln)
    # Each declared event is the golden line with its declared patch: one leftover must be
    # exactly that; the leftovers no declaration takes are shown against the others.
    pool = Counter(line_key(x) for x in rest)
    entries, unmatched = [], []
    for o in declared:
        try:
            key = line_key(expected_line(golden[o - 1], profile.observed[(case, o)]))
        except ValueError as e:
            key = None
            entries.append(check_entry(safe_id(f"impl/{impl.name}/{case}/{o}"), "fail",
                                       f"the declaration does not fit golden event {o}: {e}"))
        if key and pool[key] > 0:
            pool[key] -= 1
            why = profile.differs[(case, o)]
            c["declared"].append(f"{case} event {o}: {why}")
            entries.append(check_entry(safe_id(f"impl/{impl.name}/{case}/{o}"), "xfail",
                                       f"{why}\nwritten as declared (unordered: one of the "
                                       f"decoded events no undeclared golden event matches):\n"
                                       + patch_lines(profile.observed[(case, o)])))
        elif key:
            unmatched.append(o)
    left = []  # the leftovers no declaration took, in decoded order
    for x in rest:
        if pool[line_key(x)] > 0:
            pool[line_key(x)] -= 1
            left.append(x)
    for k, o in enumerate(unmatched):
        why = profile.differs[(case, o)]
        if k < len(left):
            _, seen = judge_event(golden[o - 1], left[k], profile.observed[(case, o)])
        else:
            seen = "no decoded event is left for it"
        entries.append(check_entry(safe_id(f"impl/{impl.name}/{case}/{o}"), "fail",
                                   f"no decoded event is written as event {o} is declared "
                                   f"({len(rest)} decoded event(s) match no undeclared golden "
                                   f"event, {len(declared)} declared); the closest: {seen}\n"
                                   f"(impl/{impl.name}/profile.txt declares: {why})"))
    mine["declared_unordered"] = rest
    expected = os.path.join(out, case + ".expected.json")
    write_text(expected, "\n".join(directives + [golden[o - 1] for o in judged]) + "\n")
    # When the leftovers do not add up, the whole decoding is compared, so the diff shows
    # every event that differs (not an empty capture).
    write_text(os.path.join(out, case + ".json"),
               "\n".join(keep if len(rest) == len(declared) else decoded) + "\n")
    if not judged:
        return entries
    c["reproduced"] = len(judged)
    return entries + [golden_entry(base, case, REFERENCE, case + ".json", expected, "")]


def _only_declared_errors(profile: Profile, case: str, written: List[int],
                          position: Dict[int, int], decoded: List[str]) -> bool:
    """Every decoded event the decoder could not read (a line with an "error" member) is
    one the profile declares different."""
    bad = [o for o in written if '"error":' in decoded[position[o]]]
    return bool(bad) and all((case, o) in profile.differs for o in bad)


def allowed_outcomes(golden: str) -> Dict[int, dict]:
    """Event ordinal -> the outcomes the format allows it besides its golden line (the
    golden file's `allows` directive, harness/core/golden.py): {"why", "refused", "or"}."""
    out: Dict[int, dict] = {}
    for d in golden_parts(golden, ("allows",))[0]:
        for key, spec in dict(dict(_loads(d))["ehconf"])["allows"]:
            out[int(key[1:])] = dict(spec)
    return out


def _allowed_chosen(golden: List[str], allows: Dict[int, dict], written: List[int],
                    position: Dict[int, int], decoded: List[str], unordered: bool,
                    mine: dict) -> List[str]:
    """The golden lines with each event the format lets be written otherwise replaced by
    the allowed form its decoded event is (ordered: the event at its position; unordered:
    an allowed form among the decoded events where the golden line is not). The VM run
    expects the same (plan: "allowed")."""
    keys = Counter(line_key(x) for x in decoded)
    out = list(golden)
    for o in written:
        for patch in allows.get(o, {}).get("or", []):
            alt = expected_line(golden[o - 1], patch)
            got = decoded[position[o]] if not unordered else None
            if (line_key(got) == line_key(alt) if got is not None else
                    keys[line_key(alt)] > 0 and keys[line_key(golden[o - 1])] == 0):
                out[o - 1] = alt
                mine.setdefault("allowed", {})[str(o)] = alt
                break
    return out


def _declared_event(impl: Impl, profile: Profile, case: str, o: int, state_why, c: dict,
                    golden: Optional[str], got: Optional[str], directives: List[str],
                    allows: Optional[dict] = None):
    """The item of event o when the profile declares it (or when it was not written): a
    refusal shown exactly as declared, or an event written exactly as its declared patch of
    the golden line says (harness/impl/declared.py), is the declaration (xfail); a declaration
    that no longer shows, or shows otherwise, fails with the evidence; an undeclared event
    that was not written fails. None: the event is judged with the rest of its case."""
    state, why = state_why
    ident = safe_id(f"impl/{impl.name}/{case}/{o}")
    refused, differs = profile.refuses.get((case, o)), profile.differs.get((case, o))
    where = f"impl/{impl.name}/profile.txt"
    if refused:
        if state != "written":
            declared_as = profile.refused_as.get((case, o))
            if declared_as != [state, why]:
                return check_entry(ident, "fail", f"event {o} was refused otherwise than "
                                   f"{where} declares ({refused}): declared "
                                   f"{json.dumps(declared_as)}, observed "
                                   f"{json.dumps([state, why])}")
            c["declared"].append(f"{case} event {o}: {refused}")
            return check_entry(ident, "xfail", f"{refused}\n{state}: {why}")
        matches = None
        if golden is not None and got is not None:
            matches = compare("\n".join(directives + [golden]), got, case, REFERENCE)
        return check_entry(ident, "fail", f"event {o} was written, but {where} declares it "
                           f"refused ({refused})" + ("" if matches is None else
                                                     "; it matches golden" if matches.ok else
                                                     f"; it differs from golden: "
                                                     f"{matches.message}"))
    if differs:
        if state != "written":
            return check_entry(ident, "fail", f"event {o} was {state} ({why}), but {where} "
                               f"declares it written differently ({differs})")
        if golden is None or got is None:
            return check_entry(ident, "fail", f"event {o} cannot be judged against its "
                               f"declaration ({differs}): the decoded events do not line up "
                               f"with the written ones (see the input's item)")
        status, seen = judge_event(golden, got, profile.observed[(case, o)])
        if status == "xfail":
            c["declared"].append(f"{case} event {o}: {differs}")
            return check_entry(ident, "xfail", f"{differs}\n{seen}")
        return check_entry(ident, "fail", f"event {o}: {seen}\n({where} declares: {differs})")
    if state != "written" and allows and allows.get("refused") and not crashed(why):
        return check_entry(ident, "pass", f"{state}: {why}: an outcome the format allows "
                           f"({allows['why']})")
    if state != "written":
        c["failed"].append(f"{case} event {o}: {state}: {why}")
        return check_entry(ident, "fail", f"{impl.name} {state} event {o} of {case}: {why} "
                           f"(not declared in {where})")
    return None


def crashed(why: str) -> bool:
    """A panic the emitter caught is a crash of the caller, never a refusal."""
    return why.startswith("panicked")


def alters_entries(prefix: str, profile: Profile, altered: Dict[str, int]) -> List[dict]:
    """One item per `alters` declaration: seen in some decoded events (xfail, with how
    many), or in none, which is no longer what the profile declares (fail)."""
    entries = []
    for label, alt in sorted(profile.alters.items()):
        n = altered.get(label, 0)
        if n:
            entries.append(check_entry(f"{prefix}/alters/{label}", "xfail",
                                       f"{alt.why}\nseen in {n} field(s) of the decoded events "
                                       f"({', '.join(alt.paths)}), undone there before the "
                                       f"comparison"))
        else:
            entries.append(check_entry(f"{prefix}/alters/{label}", "fail",
                                       f"declared difference not seen: no {' or '.join(alt.paths)} "
                                       f"of a decoded event matches {alt.pattern.pattern!r}; "
                                       f"impl/{prefix.split('/')[1]}/profile.txt declares: "
                                       f"{alt.why}"))
    return entries


def use_checkout(name: str, src: str) -> None:
    """IMPL_SRC=<path> for one implementation: the variable of its registry row."""
    for impl in read_registry():
        if impl.name == name.partition("@")[0] and src and impl.checkout != "-":
            os.environ[impl.variable] = src


def run_impl(name: str, build: str, results: str, timeout: float):
    impls = {i.name: i for i in read_registry()}
    versioned = resolve(name, list(impls.values()))
    if versioned is not None:
        impls[name] = versioned  # NAME@VERSION: a crate-registry row at that release
    out = folder_of(results, name)
    shutil.rmtree(out, ignore_errors=True)
    # The VM results of the same implementation belong to the previous offline run (its
    # plan, its emitter): they must not be reported next to this one.
    shutil.rmtree(runner_dir(results, "impl-vm", name), ignore_errors=True)
    os.makedirs(out)
    if name not in impls:
        return out, [check_entry(f"impl/{name}", "fail", f"unknown implementation {name!r}: "
                                 f"impl/implementations.txt has {', '.join(impls)}")], {}
    impl = impls[name]
    standin = standin_path(build)
    ehdecode = os.path.join(build, "bin", "ehdecode")
    for need in (standin, ehdecode):
        if not os.path.exists(need):
            return out, [check_entry(f"impl/{name}", "fail", f"{display_path(need)} is not "
                                     f"built (make VARIANT={os.path.basename(build)} all)")], {}
    try:
        profile = read_profile(impl)
    except ValueError as e:
        return out, [check_entry(f"impl/{name}/profile", "fail", str(e))], {}
    emitter, entry = _build(impl, build, out)
    entries = [entry]
    counts: Dict[str, dict] = {}
    plan: Dict[str, dict] = {}
    if emitter:
        altered: Dict[str, int] = {}
        for src in sources(impl):
            mine = _one_case(impl, profile, emitter, standin, ehdecode, src, out, timeout,
                             counts, plan, altered)
            _case_facts(mine, f"impl/{name}/{src.name}", counts.get(src.name))
            entries += mine
        entries += alters_entries(f"impl/{name}", profile, altered)
        entries = narrow_hints(impl, profile, entries)
        entries = upstream_facts(impl, profile, entries)
        script = decoder_script(impl.decoder)
        try:
            defs = definitions(script)
        except ValueError as e:
            defs = {}
            entries.append(check_entry(f"impl/{name}/decoder", "fail", str(e)))
        whole = {"implementation": name, "emitter": emitter, "cases": plan,
                 "decoder": script, "definitions": defs}
        entries += guest_emitter(impl, build, out, whole)
        with open(os.path.join(out, PLAN), "w", encoding="utf-8") as f:
            json.dump(whole, f, indent=1)
    checkout = built_from(impl)
    return out, entries, {"implementation": name, "checkout": checkout,
                          "commit": commit_of(checkout)}


def _case_facts(entries: List[dict], base: str, c: Optional[dict]) -> None:
    """What impls.md's events-per-case row shows beside the case's verdicts, carried by the
    case's own item (else its first): the golden events, those left out for a feature the
    implementation lacks, those the golden item compares (the judge adds how many of them
    failed), those declared different and those failed before any comparison."""
    if not entries or not c:
        return
    carrier = next((e for e in entries if e.get("id") == safe_id(base)), entries[0])
    carrier["facts"] = {"events": c["events"], "left_out": sum(c["skipped"].values()),
                        "compared": c["reproduced"], "declared": len(c["declared"]),
                        "failed": len(c["failed"])}


def narrow_hints(impl: Impl, profile: Profile, entries: List[dict]) -> List[dict]:
    """A crate-registry producer's declaration that does not show on the version run fails
    as any declaration does; its message says first what to do when a release fixed it:
    narrow the declaration to the versions it still holds for (profile.txt's
    `<keyword>@<V>`)."""
    if impl.checkout != CRATES:
        return entries
    prefix = safe_id(f"impl/{impl.name}") + "/"
    for e in entries:
        key = e.get("id", "")[len(prefix):] if e.get("id", "").startswith(prefix) else None
        if e.get("status") == "fail" and key in profile.versions:
            spec = profile.versions[key]
            e["message"] = (f"fixed in {impl.crate_version}? impl/{impl.base}/profile.txt declares "
                            f"{key} for {'every version' if not spec else spec}, and it does not "
                            f"show as declared on {impl.crate_version}: narrow the declaration "
                            f"to the versions it holds for\n" + e.get("message", ""))
    return entries


def upstream_facts(impl: Impl, profile: Profile, entries: List[dict]) -> List[dict]:
    """The fact "upstream" of each item a declaration answers for, offline (impl/<name>/...)
    or on the real kernel (impl-vm/<name>/..., the contract rows): where the release run makes
    the behaviour, its profile's `upstream <V>` line (Profile.upstream), whatever the verdict,
    so impls.md's versions table shows each release's line from the JUnit files."""
    for kind in ("impl", "impl-vm"):
        prefix = safe_id(f"{kind}/{impl.name}") + "/"
        for e in entries:
            key = e.get("id", "")[len(prefix):] if e.get("id", "").startswith(prefix) else None
            if key in profile.upstream:
                e.setdefault("facts", {})["upstream"] = profile.upstream[key]
    return entries


def built_from(impl: Impl) -> str:
    """The source the emitter was really built from, for the report's Runs table: the
    reference's tree, the checkout named, or for a crate-registry producer the published
    crates at its Cargo.lock's versions unless IMPL_SRC named a source tree (a patched
    copy) to build in the crate's place."""
    if impl.checkout == "-":
        return REPO_ROOT
    src = os.environ.get(impl.variable, "")
    if impl.checkout == CRATES and src in ("", "-"):
        if not impl.pinned:
            return (f"the Rust crate registry: {impl.crate_name}@{impl.version}, UNPINNED "
                    f"(no committed lock: resolved at build time)")
        lock = f"impl/{impl.base}/versions/{impl.version}/Cargo.lock" if impl.version and \
            impl.version != impl.crate_versions[0] else f"impl/{impl.base}/Cargo.lock"
        return f"the Rust crate registry: {impl.crate_name}@{impl.crate_version} ({lock})"
    return os.path.abspath(src) if src else ""


def commit_of(checkout: str) -> str:
    """The checkout's commit, for the report's provenance; a snapshot without git history
    (a copied or downloaded source tree) says so."""
    if not checkout or not os.path.isdir(checkout):
        return ""
    r = run(["git", "-C", checkout, "rev-parse", "--short=12", "HEAD"], 10, merge_stderr=False)
    if r.how() or not r.output.strip():
        return "not a git checkout"
    dirty = run(["git", "-C", checkout, "status", "--porcelain", "--untracked-files=no"], 20,
                merge_stderr=False)
    return r.output.strip() + ("+changes" if dirty.output.strip() else "")

