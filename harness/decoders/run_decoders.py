#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Runner of make check-decoders: every decoder of decoders/decoders.txt on every capture
ehconf has and on the damaged set, each run under a timeout, its JSON judged against the
reference's (ehdecode's). Writes <results>/decoders/<name>/summary.json per decoder (the
items below, as "check" entries; harness/core/verdicts.py judges them, pytest writes
<results>/decoder-<name>.xml and harness/reports/decoders_md.py decoders.md from them).

    harness/decoders/run_decoders.py [--build build/gcc] [--asan-build build/asan] [--results R]
                            [--decoder NAME]... [--seed N]

Items, under decoder/<name>/ (Documentation/decoders.md §4, §5):
  build                  the decoder built (ASan/UBSan where its toolchain can); no
                         checkout: a skip naming the variable
  inputs                 a source of captures is missing (one line naming the command)
  <capture>/run          it ran to exit status 0: no crash, sanitizer report or timeout
  <capture>/json         its output is one valid JSON document (UTF-8, §2)
  <capture>/events       every event as the reference decodes it, nothing else (§3, §4)
  <capture>/meta         the meta members as the reference prints them
  damaged/<set>/crash|hang|json|lost
                         over the damaged set: no crash or sanitizer report, no hang, valid
                         JSON, and every event whose record lies wholly before the damage
                         still decoded
A failing item that a pattern of decoders/<name>/profile.txt declares is an expected
failure; a pattern that no failing item matches is a failed item profile/<pattern> (the
declaration is stale). An events item is not excused whole: its pattern names an
observation file (harness/decoders/declared.py), whose events must be exactly as declared
while every other event is compared; an entry that names no event fails as stale.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Dict, List, Optional

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.common import REPO_ROOT, display_path, one_line, safe_id  # noqa: E402
from harness.decoders.compare import Comparison, Document, compare, read_document  # noqa: E402
from harness.decoders.declared import Declared, Judgement, judge, read_observation  # noqa: E402
from harness.decoders.inputs import Capture, captures, damaged  # noqa: E402
from harness.decoders.registry import (Built, Decoder, Profile, build, is_events_pattern,  # noqa: E402
                      read_profile, read_registry)
from harness.decoders.perf_samples import read_layout  # noqa: E402
from harness.core.results import check_entry, write_summary  # noqa: E402
from harness.core.processes import run  # noqa: E402

RUNNER = "decoder"
TIMEOUT = 60.0  # one capture (the largest, concurrency, takes about a second under ASan)
DAMAGED_TIMEOUT = 10.0
SANITIZER = re.compile(r"ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer|"
                       r"panicked at|SUMMARY: UndefinedBehaviorSanitizer")
# Leaks are not what is judged (a decoder that exits leaks by design); the rest aborts.
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=86",
                 "UBSAN_OPTIONS": "print_stacktrace=1", "RUST_BACKTRACE": "0"}
ROBUST_CHECKS = ("crash", "hang", "json", "lost")
BYTES_SHOWN = 96


def folder_of(results: str, name: str) -> str:
    return os.path.join(results, "decoders", name)


@dataclass
class Output:
    how: str  # "" exit status 0, else how it ended
    crashed: str  # the signal or sanitizer line, "" if none
    timed_out: bool
    doc: Document
    stderr: str
    seconds: float


def decode(path: str, capture: str, out: str, timeout: float) -> Output:
    r = run([path, capture], timeout, env=SANITIZER_ENV, merge_stderr=False, stdout_path=out)
    with open(out, "rb") as f:
        raw = f.read()
    crashed = ""
    m = SANITIZER.search(r.stderr)
    if m:
        line = next(ln for ln in r.stderr.splitlines() if m.group(0) in ln)
        crashed = line.strip()[:240]
    elif r.returncode is not None and r.returncode < 0 and not r.timed_out:
        crashed = f"killed by signal {-r.returncode}"
    return Output(r.how(), crashed, r.timed_out, read_document(raw), r.stderr, r.seconds)


def sample_bytes(capture: str) -> Dict[int, bytes]:
    """time (ns) -> the raw sample bytes, for a finding; empty when not readable."""
    try:
        with open(capture, "rb") as f:
            lay = read_layout(f.read())
    except (OSError, ValueError):
        return {}
    # keyed by the time a decoder prints: the wall-clock time when the file has clock data
    return {lay.wall(s.time): s.raw for s in lay.samples if s.time is not None}


def samples_at(capture: str) -> Dict[int, List[bytes]]:
    """time (ns, as a decoder prints it) -> the raw bytes of every sample at that time, in
    file order: what a raw declaration is held to (decoder_declared.expected)."""
    try:
        with open(capture, "rb") as f:
            lay = read_layout(f.read())
    except (OSError, ValueError):
        return {}
    out: Dict[int, List[bytes]] = {}
    for s in lay.samples:
        if s.time is not None:
            out.setdefault(lay.wall(s.time), []).append(s.raw)
    return out


def _ns(t: Optional[Decimal]) -> Optional[int]:
    return None if t is None else int((t * 1000000000).to_integral_value())



def _event_lines(ev, kind: str, what: str, raw) -> List[str]:
    """A differing event as an item's message shows it: its name, time, kind and what, then
    the sample's bytes where the capture has them."""
    b = raw.get(_ns(ev.time), b"")
    out = [f"- {ev.name} at {ev.time}: {kind}: {what}"]
    if b:
        shown = b[:BYTES_SHOWN].hex(" ") + (" ..." if len(b) > BYTES_SHOWN else "")
        out.append(f"  bytes ({len(b)}): {shown}")
    return out

def describe(cmp: Comparison, total: int, capture: str, limit: int = 5) -> str:
    """The events item's message: the count on the first line, then the first differences,
    each with the event's bytes (the raw sample: the tracepoint's common fields first)."""
    kinds = Counter(d.kind for d in cmp.differences)
    head = (f"{len(cmp.differences)} of {total} events differ from the reference "
            f"({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    lines = [head]
    raw = sample_bytes(capture)
    for d in cmp.differences[:limit]:
        ev = d.reference or d.decoder
        lines += _event_lines(ev, d.kind, d.what, raw)
    if len(cmp.differences) > limit:
        lines.append(f"- and {len(cmp.differences) - limit} more")
    return "\n".join(lines)


def meta_message(meta: Dict[str, int], example: Dict[str, str]) -> str:
    return "; ".join(f"meta.{k} differs in {n} events (first: {example[k]})"
                     for k, n in sorted(meta.items()))


@dataclass
class Judged:
    entries: List[dict] = field(default_factory=list)

    def add(self, ident: str, status: str, message: str = "", **facts) -> None:
        self.entries.append(check_entry(ident, status, message, facts))


class EventsDeclarations:
    """The events patterns of a decoder's profile with their observation files: which
    declares a capture's events item (the first that matches it), and which of their
    entries named an event of some capture (an entry that never does is stale)."""

    def __init__(self, profile: Optional[Profile]):
        self.patterns = [(p, why) for p, why in (profile.declared.items() if profile else ())
                         if is_events_pattern(p)]
        self.files = dict(profile.observed) if profile else {}
        self.loaded: Dict[str, List[Declared]] = {}
        self.used: Dict[str, set] = {}
        self.covered: Dict[str, List[str]] = {}  # pattern -> the captures it judged

    def for_capture(self, ident: str):
        """(pattern, reason, entries) for <ident>/events, or None."""
        for p, why in self.patterns:
            if fnmatch.fnmatchcase(f"{ident}/events", p.lstrip("?")):
                if p not in self.loaded:
                    self.loaded[p] = read_observation(self.files[p])
                return p, why, self.loaded[p]
        return None

    def stale(self, prefix: str) -> List[dict]:
        """A failed item per events pattern (not `?`) whose entries named no event of the
        captures it covered, and per entry that named none."""
        out = []
        for p, why in self.patterns:
            if p.startswith("?") or p not in self.covered:
                continue
            rel = os.path.relpath(self.files[p], REPO_ROOT)
            for d in self.loaded.get(p, []):
                if d.source not in self.used.get(p, set()):
                    out.append(check_entry(
                        safe_id(f"{prefix}profile/{p.replace('*', 'any')}/{d.source}"), "fail",
                        f"{rel} ({p}) declares {d.label()} ({d.source}), but no capture it "
                        f"covers ({', '.join(self.covered[p][:4])}) has that event: drop or "
                        f"correct the entry"))
        return out


def declared_message(c: Capture, why: str, j: Judgement, total: int) -> str:
    by: Dict[str, List[str]] = {}
    for d, ev in j.held:
        by.setdefault(d.source, []).append(ev.name)
    shown = "; ".join(f"{n} x{len(v)} ({s})" if len(v) > 1 else f"{v[0]} ({s})"
                      for s, v in by.items() for n in [v[0]])
    return (f"declared: {why}\nobserved: {c.ident}: {len(j.held)} of {total} events as "
            f"declared, the others as the reference: {shown[:600]}")


def declared_meta_message(c: Capture, why: str, j: Judgement, total: int) -> str:
    by: Dict[str, int] = {}
    events = set()
    for d, ev in j.meta_held:
        what = "; ".join(x for x in (
            f"meta.time cut to {d.time_digits} digits" if d.time_digits is not None else "",
            "meta." + ", meta.".join(d.meta_drop) + " not printed" if d.meta_drop else "") if x)
        key = f"{d.label()} ({d.source}): {what}"
        if (key, id(ev)) not in events:
            events.add((key, id(ev)))
            by[key] = by.get(key, 0) + 1
    shown = "; ".join(f"{k} x{n}" for k, n in by.items())
    held = len({id(ev) for _, ev in j.meta_held})
    return (f"declared: {why}\nobserved: {c.ident}: {held} of {total} events' "
            f"meta as declared, every other meta member as the reference's: {shown[:600]}")


def findings_message(c: Capture, j: Judgement, total: int, limit: int = 5) -> str:
    """A failing events item: undeclared differences, declarations that do not hold, and
    declared events that the decoder now prints as the reference does (fixed)."""
    kinds = Counter(f.kind for f in j.findings)
    fixed = [f for f in j.findings if f.kind == "fixed"]
    head = (f"{len(j.findings)} of {total} events differ from the reference or from their "
            f"declaration ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    lines = [f"fixed: remove the declaration: {fixed[0].what}"] if fixed else []
    lines.append(head)
    raw = sample_bytes(c.path)
    order = sorted(j.findings, key=lambda f: f.kind != "fixed")
    for f in order[:limit]:
        lines += _event_lines(f.event, f.kind, f.what, raw)
    if len(j.findings) > limit:
        lines.append(f"- and {len(j.findings) - limit} more")
    return "\n".join(lines)


def capture_items(j: Judged, d: Decoder, c: Capture, o: Output,
                  ref: Optional[Output], decl: Optional[EventsDeclarations] = None) -> None:
    base = f"decoder/{d.name}/{c.ident}"
    why = o.crashed or o.how
    j.add(f"{base}/run", "fail" if why else "pass",
          f"{c.ident}: {why}" + (f"\n{one_line(o.stderr, 600)}" if o.stderr.strip() else "")
          if why else "", events=len(o.doc.events))  # the reference's: decoders.md's column
    j.add(f"{base}/json", "fail" if o.doc.problem else "pass",
          f"{c.ident}: {o.doc.problem}" if o.doc.problem else "")
    if ref is not None:
        if ref.doc.problem or ref.crashed or ref.how:
            for k in ("events", "meta"):
                j.add(f"{base}/{k}", "skip", f"{c.ident}: the reference did not decode it "
                                             f"({ref.crashed or ref.how or ref.doc.problem})")
        else:
            found = decl.for_capture(c.ident) if decl else None
            total = len(ref.doc.events)
            if found is None:
                cmp = compare(ref.doc.events, o.doc.events)
                j.add(f"{base}/events", "fail" if cmp.differences else "pass",
                      f"{c.ident}: " + describe(cmp, total, c.path)
                      if cmp.differences else "")
                meta, example = cmp.meta, cmp.meta_example
            else:
                pattern, reason, entries = found
                jd = judge(ref.doc.events, o.doc.events, entries, samples_at(c.path)
                           if any(e.raw is not None for e in entries) else {})
                decl.used.setdefault(pattern, set()).update(jd.used)
                decl.covered.setdefault(pattern, []).append(c.ident)
                if jd.findings:
                    j.add(f"{base}/events", "fail", f"{c.ident}: "
                          + findings_message(c, jd, total))
                elif jd.held:
                    j.add(f"{base}/events", "xfail", declared_message(c, reason, jd, total))
                else:
                    j.add(f"{base}/events", "pass")
                meta, example = jd.meta, jd.meta_example
            if not meta and found is not None and jd.meta_held:
                j.add(f"{base}/meta", "xfail", declared_meta_message(c, found[1], jd, total))
            else:
                j.add(f"{base}/meta", "fail" if meta else "pass",
                      f"{c.ident}: {meta_message(meta, example)}" if meta else "")


def lost_events(own: Output, source: str, c: Capture, got: Document) -> List[str]:
    """The events the decoder itself printed for the undamaged capture whose sample record
    ends before the first damaged offset, missing from what it printed for the damaged
    copy (§5). Only when every damaged byte lies in the record stream: damage to the
    header, the attributes or the feature sections (the tracepoint formats) may take every
    event with it."""
    try:
        with open(source, "rb") as f:
            lay = read_layout(f.read())
    except (OSError, ValueError):
        return []
    if not lay.data_start <= c.damage <= c.damage_last < lay.data_end:
        return []
    before = Counter(lay.wall(s.time) for s in lay.samples if s.end <= c.damage)
    want = Counter()
    for ev in own.doc.events:
        t = _ns(ev.time)
        if before.get(t, 0) > 0:
            before[t] -= 1
            want[(ev.name, ev.time)] += 1
    have = Counter((ev.name, ev.time) for ev in got.events)
    return [f"{n} at {t}" for (n, t), k in want.items() if have[(n, t)] < k]


def robust_items(j: Judged, d: Decoder, runs: List[tuple], undamaged: Dict[str, Output],
                 sources: Dict[str, str]) -> None:
    by_set: Dict[str, List[tuple]] = {}
    for c, o in runs:
        by_set.setdefault(c.ident.split("/")[1], []).append((c, o))
    for s, items in sorted(by_set.items()):
        bad: Dict[str, List[str]] = {k: [] for k in ROBUST_CHECKS}
        for c, o in items:
            where = f"{display_path(c.path)}"
            if o.crashed:
                bad["crash"].append(f"{where}: {o.crashed}")
            if o.timed_out:
                bad["hang"].append(f"{where}: no end after {DAMAGED_TIMEOUT:g} s")
            own = undamaged.get(c.source)
            # Invalid JSON the undamaged capture gives already is that capture's item.
            if o.doc.problem and not o.timed_out and not (own and own.doc.problem):
                bad["json"].append(f"{where}: {o.doc.problem[:200]}")
            if c.damage is not None and own is not None and not o.timed_out:
                lost = lost_events(own, sources[c.source], c, o.doc)
                if lost:
                    bad["lost"].append(f"{where} (damage at byte {c.damage}): {len(lost)} "
                                       f"events before it not decoded, first {lost[0]}")
        counts = {}
        for k in ROBUST_CHECKS:
            found = bad[k]
            counts[k] = len(found)
            j.add(f"decoder/{d.name}/damaged/{s}/{k}", "fail" if found else "pass",
                  f"damaged/{s}: {k}: {len(found)} of {len(items)} inputs; first: {found[0]}"
                  + "".join(f"\n- {x}" for x in found[1:4]) if found else "",
                  count=len(found), inputs=len(items))


def apply_profile(d: Decoder, entries: List[dict],
                  decl: Optional[EventsDeclarations] = None) -> List[dict]:
    """decoders/<name>/profile.txt applied: a failing item a pattern declares becomes an
    expected failure carrying the declared reason; a pattern that no failing item matches
    any more is one failed item of its own (the decoder changed: drop or fix the line), but
    a pattern written `?pattern`, which declares a failure this run's inputs may not show.
    An events item is not declared here: its events were judged against the observation
    file of its pattern (capture_items), and no other pattern declares it."""
    profile = read_profile(d)
    declared = {p: why for p, why in profile.declared.items() if not is_events_pattern(p)}
    prefix = f"decoder/{d.name}/"
    used = set()
    for e in entries:
        if e["status"] != "fail":
            continue
        rel = e["id"][len(prefix):]
        if rel.endswith("/events") and not rel.startswith("damaged/"):
            continue
        pattern = next((p for p in declared if fnmatch.fnmatchcase(rel, p.lstrip("?"))), None)
        if pattern is not None:
            used.add(pattern)
            e["status"] = "xfail"
            e["message"] = f"declared: {declared[pattern]}\nobserved: {e['message']}"
    ran = {e["id"][len(prefix):] for e in entries
           if not (e["id"].endswith("/events") and "/damaged/" not in e["id"])}
    for pattern, why in declared.items():
        # "?pattern": a failure that may or may not show in this run (the damaged set is
        # made from this run's captures), so an unused one is no sign of a change.
        if pattern.startswith("?"):
            continue
        if pattern not in used and any(fnmatch.fnmatchcase(r, pattern) for r in ran):
            entries.append(check_entry(
                safe_id(f"{prefix}profile/{pattern.replace('*', 'any')}"), "fail",
                f"decoders/{d.name}/profile.txt declares `{pattern}` ({why[:120]}...), but no "
                f"item it names failed: drop or correct the declaration"))
    if decl is not None:
        entries += decl.stale(prefix)
    return entries


def selected(ident: str, patterns: List[str]) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(ident, p) for p in patterns)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/gcc", help="make's build (mkperfdata)")
    ap.add_argument("--asan-build", default="build/asan",
                    help="make's ASan build: the reference decoder that is run")
    ap.add_argument("--results", default="build/results",
                    help="where make check left the captures, and where the results go")
    ap.add_argument("--write", default="", help="write the results here instead")
    ap.add_argument("--out", default="", help="decoder builds (default <build>/../decoders)")
    ap.add_argument("--decoder", action="append", default=[])
    ap.add_argument("--use", action="append", default=[], metavar="NAME=PATH",
                    help="run this program as the decoder NAME instead of building it "
                         "(scripts/decoder-mutants.py: a planted fault)")
    ap.add_argument("--inputs", action="append", default=[], metavar="GLOB",
                    help="only the inputs whose ids match (a damaged input brings its "
                         "capture)")
    ap.add_argument("--no-profile", action="store_true",
                    help="judge without decoders/<name>/profile.txt")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("EHCONF_DECODER_SEED", "1")))
    args = ap.parse_args(argv)
    absolute = (lambda p: p if os.path.isabs(p) else os.path.join(REPO_ROOT, p))
    build_dir, asan_dir, results = map(absolute, (args.build, args.asan_build, args.results))
    written = absolute(args.write) if args.write else results
    out = absolute(args.out or os.path.join(os.path.dirname(build_dir), "decoders"))
    use = dict(u.split("=", 1) for u in args.use)
    work = os.path.join(written, "decoders")
    t0 = time.monotonic()
    caps, problems = captures(results, os.path.basename(build_dir),
                              os.path.join(build_dir, "bin", "mkperfdata"),
                              os.path.join(work, "inputs"))
    dmg = [c for c in damaged(caps, os.path.join(build_dir, "bin", "mkperfdata"),
                              os.path.join(work, "damaged"), args.seed)
           if selected(c.ident, args.inputs)]
    need = {c.source for c in dmg}
    caps = [c for c in caps if selected(c.ident, args.inputs) or c.ident in need]
    sources = {c.ident: c.path for c in caps}
    for p in problems:
        print(f"check-decoders: {p}", flush=True)
    registry = read_registry()
    names = args.decoder or [d.name for d in registry]
    ref_dec = next(d for d in registry if d.reference)
    order = [ref_dec] + [d for d in registry if d.name in names and not d.reference]
    refs: Dict[str, Output] = {}
    for d in order:
        dt = time.monotonic()
        j = Judged()
        decl = None if args.no_profile or d.reference else EventsDeclarations(read_profile(d))
        b = (Built(os.path.abspath(use[d.name]), "pass", f"{use[d.name]} (given)")
             if d.name in use else build(d, asan_dir, out, asan=True))
        j.add(f"decoder/{d.name}/build", b.status, b.message)
        if problems:
            j.add(f"decoder/{d.name}/inputs", "fail", "; ".join(problems))
        folder = folder_of(written, d.name)
        os.makedirs(os.path.join(folder, "out"), exist_ok=True)
        if b.path:
            print(f"check-decoders: {d.name}: {len(caps)} captures, {len(dmg)} damaged inputs",
                  flush=True)
            own: Dict[str, Output] = {}
            for c in caps:
                if c.format not in d.reads:
                    continue  # decoders/decoders.txt: it does not read that format
                name = safe_id(c.ident).replace("/", "-") + ".json"
                o = own[c.ident] = decode(b.path, c.path, os.path.join(folder, "out", name),
                                          TIMEOUT)
                if d.reference:
                    refs[c.ident] = o
                capture_items(j, d, c, o, None if d.reference else refs.get(c.ident), decl)
            runs = []
            for c in dmg:
                if c.format not in d.reads:
                    continue
                o = decode(b.path, c.path, os.path.join(folder, "out", "damaged.json"),
                           DAMAGED_TIMEOUT)
                runs.append((c, o))
            robust_items(j, d, runs, own, sources)
        if d.name not in names:
            continue  # the reference ran only to be compared with
        entries = j.entries if args.no_profile else apply_profile(d, j.entries, decl)
        write_summary(folder, RUNNER, f"make check-decoders DECODER={d.name}", entries,
                      time.monotonic() - dt, {"decoder": d.name, "upstream": d.upstream,
                                              "checkout": os.environ.get(d.variable, "")
                                              if not d.reference else "",
                                              "build_seconds": b.seconds})
        bad = sum(1 for e in entries if e["status"] == "fail")
        print(f"check-decoders: {d.name}: {len(entries)} items, {bad} failed "
              f"({time.monotonic() - dt:.0f} s)", flush=True)
    print(f"check-decoders: done in {time.monotonic() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
