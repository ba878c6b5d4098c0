# SPDX-License-Identifier: GPL-2.0
"""What the tests of the implementations under test (impl/<name>/, one row each of
impl/implementations.txt) share, so that each piece is written once:

  checkout(impl)         the caller's checkout (IMPL_SRC_<checkout>), or one skip line
  judged(impl, ...)      the emitter built once per session and every case judged by
                         harness/run_impl.run_impl, the one judge (make check-impl's);
                         its entries are then read, never compared again here
  golden_failures / declared_not_shown / unaccounted
                         what the generic test (test_impl_emitters.py) asserts on them
  emit / emit_text       one description through an emitter under the stand-in, for the
                         tests of one implementation's own edges
  DescriptionParser, PARSERS
                         where each implementation parses a description (its emitter or
                         its generator); what it must refuse is tests/desc-format/'s
                         malformed snippets (desc_snippets.py), the same line for all
  lacked_events, skipped_when_given_all, type_table_problems, cited_line_problems
                         the checks several implementation files make with their own data

Not a test file (pytest collects test_*.py only): the tests import it by name, as their
folder is on sys.path under pytest's default import mode.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Set, Tuple

import pytest

from harness.core.ehdecode import decode

from harness.core.golden import golden_problem
from harness.core.common import REPO_ROOT, display_path, safe_id
from harness.impl.registry import (CRATES, Impl, description_path, parse_emitter_output, read_description,
                   read_profile, read_registry)
from harness.impl.run_impl import run_impl, sources
from harness.core.processes import Run, run
from harness.core.standin import standin_env, standin_path

BUILD_TIMEOUT = 900.0  # cmake or cargo from scratch on 2 busy cores: a few minutes at most
TIMEOUT = 120.0  # one case's emitter, generator or decoder; each takes about a second
EVENTS_DIR = os.path.join(REPO_ROOT, "descriptions")
TYPES_TXT = os.path.join(EVENTS_DIR, "types.txt")
MAKE_HINT = "make -j2 VARIANT=gcc all"


# ---- the registry and the caller's checkouts ----------------------------------------------

def with_build_script() -> List[Impl]:
    """The rows built against a checkout (the reference, ehconf, is built by make)."""
    return [i for i in read_registry() if i.checkout != "-"]


def by_name(name: str) -> Impl:
    rows = [i for i in read_registry() if i.name == name]
    assert rows, f"impl/implementations.txt has no {name} row"
    return rows[0]


def build_script(impl: Impl) -> str:
    return os.path.join(impl.folder, "build")


# A row with no upstream is ehconf's own code: its checkout defaults to this repository's
# library, as make's does (impl/build.mk, IMPL_SRC_EHCONF).
OWN_CHECKOUT = os.path.join(REPO_ROOT, "lib", "eventheader")


def checkout(impl: Impl) -> str:
    """The checkout its build takes: "-" for a producer built from the crate registry."""
    if impl.checkout == CRATES:
        return "-"
    if impl.upstream == "-":
        os.environ.setdefault(impl.variable, OWN_CHECKOUT)  # where run_impl reads it
        return os.environ[impl.variable]
    src = os.environ.get(impl.variable, "")
    if not src:
        pytest.skip(f"{impl.variable} is not set: no checkout of {impl.upstream} to build "
                    f"impl/{impl.name}'s emitter against ({impl.variable}=<path> to run these)")
    return src


def ehconf_build(pytestconfig) -> str:
    """The build folder of ehconf's own programs (the stand-in, ehdecode, ehdescribe)."""
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    return b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)


def need(path: str, what: str, hint: str = MAKE_HINT) -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not there ({hint})")
    return path


def standin_of(build: str) -> str:
    return need(standin_path(build), "the stand-in")


def tool_of(build: str, name: str) -> str:
    return need(os.path.join(build, "bin", name), name)


# ---- one build and one judgement per implementation and session ---------------------------

@dataclass
class Judged:
    impl: Impl
    src: str  # the checkout, absolute
    build: str  # ehconf's build folder
    folder: str  # <results>/impl-<name>/, as run_impl wrote it
    build_out: str  # the OUTDIR the build script was given
    emitter: str
    entries: List[dict]
    counts: Dict[str, dict]

    @property
    def standin(self) -> str:
        return standin_of(self.build)

    @property
    def ehdecode(self) -> str:
        return tool_of(self.build, "ehdecode")


# name -> Judged, or the one-line reason the build failed (each failed test repeats it
# rather than building again)
_SESSION: Dict[str, object] = {}


def _emitter_path(folder: str) -> str:
    """The path the build script printed last: run_impl keeps the build's stdout in
    build.log before the stderr marker, and runs the emitter from that path itself."""
    with open(os.path.join(folder, "build.log"), encoding="utf-8", errors="replace") as f:
        stdout = f.read().split("\n--- stderr ---\n", 1)[0]
    lines = stdout.strip().splitlines()
    return lines[-1] if lines else ""


def judged(impl: Impl, pytestconfig, tmp_path_factory) -> Judged:
    """Build impl's emitter against its checkout and judge every case, through
    harness/run_impl.run_impl (the build included): once per session."""
    src = checkout(impl)
    build = ehconf_build(pytestconfig)
    standin_of(build)
    tool_of(build, "ehdecode")
    if impl.name not in _SESSION:
        results = str(tmp_path_factory.mktemp("impl-results"))
        folder, entries, extra = run_impl(impl.name, build, results, TIMEOUT)
        first = entries[0] if entries else {"status": "fail", "message": "no entries"}
        if first.get("status") != "pass":
            _SESSION[impl.name] = f"impl/{impl.name}/build: {first.get('message', '')}"
        else:
            emitter = _emitter_path(folder)
            print(f"\n{impl.name}: {first.get('message', '')}")
            _SESSION[impl.name] = Judged(impl, os.path.abspath(src), build, folder,
                                         os.path.join(folder, "build"), emitter, entries,
                                         case_counts(impl.name, entries))
    got = _SESSION[impl.name]
    if isinstance(got, str):
        pytest.fail(got, pytrace=False)
    return got


def golden_failures(j: Judged) -> List[str]:
    """The fail entries, and the golden entries the results plugin's judge
    (golden.golden_problem) would fail: what `make check-impl` would report as failed."""
    problems = []
    for e in j.entries:
        if e.get("kind") == "golden":
            why = e.get("problem") or golden_problem(
                _read(os.path.join(j.folder, e["decoded"])), e["golden"], e["case"],
                e["transport"], display_path(os.path.join(j.folder, e["decoded"])))
            if why:
                problems.append(f"{e['id']}: {why}")
        elif e.get("status") == "fail":
            problems.append(f"{e['id']}: {e.get('message', '')}")
    return problems


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as err:
        return f"(cannot read {path}: {err.strerror})"


def declared_events(profile) -> List[Tuple[str, int]]:
    """Every event a profile declares, refused or different (not the `differs <case> all`
    declarations, which are about a whole input)."""
    return sorted(k for k in set(profile.refuses) | set(profile.differs) if k[1])


def declared_entries(j: Judged) -> Dict[Tuple[str, int], dict]:
    """(case, ordinal) -> the entry run_impl made for each `refuses` or `differs` line of
    the profile (missing when it made none)."""
    by_id = {e["id"]: e for e in j.entries}
    out = {}
    for case, ordinal in declared_events(read_profile(j.impl)):
        e = by_id.get(safe_id(f"impl/{j.impl.name}/{case}/{ordinal}"))
        if e:
            out[(case, ordinal)] = e
    return out


def declared_not_shown(j: Judged) -> List[str]:
    shown = declared_entries(j)
    problems = []
    for key in declared_events(read_profile(j.impl)):
        e = shown.get(key)
        if not e or e.get("status") != "xfail":
            problems.append(f"{key[0]} event {key[1]}: declared in impl/{j.impl.name}/"
                            f"profile.txt, shown as {e.get('status') if e else 'nothing'}: "
                            f"{(e or {}).get('message', '')}")
    return problems


def unaccounted(j: Judged) -> List[str]:
    """Cases whose golden events are not all reproduced, left out or declared."""
    problems = []
    whole = {case for case, o in read_profile(j.impl).differs if o == 0}
    for case in (src.name for src in sources(j.impl)):
        c = j.counts.get(case)
        if c is None:
            problems.append(f"{case}: not judged")
            continue
        if case in whole:  # declared different as a whole (differs <input> all)
            continue
        total = c["compared"] + c["left_out"] + c["declared"]
        if total != c["events"] or c["failed"]:
            problems.append(f"{case}: {c['compared']} reproduced + {c['left_out']} left out + "
                            f"{c['declared']} declared of {c['events']} golden events"
                            + (f"; {c['failed']} failed" if c["failed"] else ""))
    return problems


def case_counts(name: str, entries: List[dict]) -> Dict[str, dict]:
    """{case: its counts}, from the facts the runner gives each case's item (run_impl
    _case_facts: events, left_out, compared, declared, failed), as impls.md reads them."""
    out = {}
    for e in entries:
        facts = e.get("facts") or {}
        if "events" in facts and e["id"].startswith(f"impl/{name}/"):
            out.setdefault(e["id"][len(f"impl/{name}/"):].split("/")[0], facts)
    return out


def table(j: Judged) -> str:
    lines = [f"{j.impl.name} ({j.impl.drives}) per case: reproduced / left out / declared"]
    for case, c in sorted(j.counts.items()):
        lines.append(f"  {case}: {c['compared']} reproduced, {c['left_out']} "
                     f"left out, {c['declared']} declared, of {c['events']}")
    return "\n".join(lines)


# ---- one description through an emitter ---------------------------------------------------



def emit(j: Judged, arg: str, dat: str) -> Run:
    """`emit <arg>` (a description, or an emitter's own option) under the stand-in,
    capturing into dat afresh."""
    if os.path.exists(dat):
        os.unlink(dat)
    return run([j.emitter, str(arg)], TIMEOUT, env=standin_env(j.standin, dat),
               merge_stderr=False)


def stale_description_line(j: Judged, tmp_path) -> str:
    """A generated emitter (built from the descriptions) given one changed since its build
    (attributes, one value): one line on stderr naming the file, exit 2, nothing printed
    or written. Returns that line, for the caller to check what it names."""
    with open(os.path.join(EVENTS_DIR, "attributes.events"), encoding="utf-8") as f:
        text = f.read()
    assert "  u8 level 03\n" in text
    path = tmp_path / "attributes.events"
    path.write_text(text.replace("  u8 level 03\n", "  u8 level 04\n", 1))
    dat = tmp_path / "stale.dat"
    r = emit(j, str(path), str(dat))
    assert r.returncode == 2 and r.output == "", f"{r.how()}\n{r.output}\n{r.stderr}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:") and "changed since the build" \
        in lines[0], r.stderr
    assert not dat.exists()
    return lines[0]


def emit_text(j: Judged, tmp_path, text: str) -> Tuple[Dict[int, Tuple[str, str]],
                                                       List[dict], Run]:
    """A description written by a test: (the per-event lines, the decoded events, the
    run). The emitter must finish (exit 0 or 1) and what it wrote must decode."""
    path, dat = tmp_path / "t.events", str(tmp_path / "t.dat")
    path.write_text(text)
    r = emit(j, str(path), dat)
    assert r.returncode in (0, 1) and not r.timed_out, f"{r.how()}\n{r.output}\n{r.stderr}"
    d = decode(j.ehdecode, dat, TIMEOUT) if os.path.exists(dat) else None
    assert d is None or d.ok, d.problem
    events = [json.loads(ln) for ln in (d.text if d else "").split("\n") if ln.strip()]
    return parse_emitter_output(r.output), events, r


def struct_text(name: str, members: int, indent: str = "  ") -> str:
    """A `struct` block of u8 members f0, f1, ...: the edges of struct sizes."""
    return (f"{indent}struct {name}\n"
            + "".join(f"{indent}  u8 f{i} {i % 256:02x}\n" for i in range(members))
            + f"{indent}end\n")


# ---- what the profile leaves out, and what the emitter says about it ----------------------

def lacked_events(impl: Impl) -> Dict[Tuple[str, int], Set[str]]:
    """(case, ordinal) -> the lacked features it needs, for every golden event run_impl
    leaves out of impl's run."""
    lacks = set(read_profile(impl).lacks)
    out = {}
    for name in sorted(os.listdir(EVENTS_DIR)):
        if name.endswith(".events"):
            case = name[:-len(".events")]
            for o, (_, _, needs) in enumerate(read_description(description_path(case)).events,
                                              1):
                if needs & lacks:
                    out[(case, o)] = needs & lacks
    return out


def skipped_when_given_all(j: Judged, tmp_path) -> Dict[Tuple[str, int], str]:
    """(case, ordinal) -> reason, for the events the emitter itself skips when handed every
    whole description (run_impl never hands it the lacked ones)."""
    out = {}
    cases = [n[:-len(".events")] for n in os.listdir(EVENTS_DIR) if n.endswith(".events")]
    for case in sorted(cases):
        r = emit(j, description_path(case), str(tmp_path / f"{case}.dat"))
        assert r.returncode in (0, 1), f"{case}: {r.how()}\n{r.stderr[-2000:]}"
        out.update({(case, o): why for o, (state, why) in parse_emitter_output(r.output).items()
                    if state == "skipped"})
    return out


Texts = Tuple[str, ...]


def lacked_skip_problems(j: Judged, tmp_path, reasons: Dict[str, Texts],
                         extra: Optional[Dict[Tuple[str, int], Texts]] = None) -> List[str]:
    """The emitter, given every event, skips exactly the events the profile lacks (plus
    `extra`, (case, ordinal) -> texts), its reason beginning with the first text `reasons`
    gives the feature and holding the others: so that the features the profile lacks are
    what the emitter finds it cannot express, for the reason the profile gives."""
    lacked = lacked_events(j.impl)
    want = {k: reasons[sorted(f)[0]] for k, f in lacked.items()}
    want.update(extra or {})
    seen = skipped_when_given_all(j, tmp_path)
    problems = [f"{k[0]} event {k[1]} skipped, not lacked: {why}" for k, why in sorted(seen.items())
                if k not in want]
    problems += [f"{k[0]} event {k[1]} lacked, not skipped" for k in sorted(set(want) - set(seen))]
    problems += [f"{k[0]} event {k[1]}: expected {want[k]!r} in: {why}"
                 for k, why in sorted(seen.items()) if k in want
                 and not (why.startswith(want[k][0]) and all(t in why for t in want[k]))]
    return problems


# ---- the emitter's type table and the checkout's cited lines ------------------------------

def _wire_numbers() -> Dict[str, int]:
    """name -> number of the encodings and formats of Documentation/eventheader-wire.md."""
    with open(os.path.join(REPO_ROOT, "Documentation", "eventheader-wire.md"),
              encoding="utf-8") as f:
        wire = f.read()
    numbers = {}
    for section in ("### Encodings", "### Formats"):
        part = wire[wire.index(section):]
        part = part[:part.find("\n#", 1)]
        numbers.update({m.group(2): int(m.group(1))
                        for m in re.finditer(r"^\| (\d+) \| (\w+) \|", part, re.M)})
    return numbers


def type_table_problems(emitter: str) -> List[str]:
    """`emit --types` gives every name of descriptions/types.txt the encoding and format
    the wire document numbers (x86_64: value_ptr is value64), and no other name."""
    need(TYPES_TXT, "the type table", "Documentation/case-descriptions.md")
    numbers = _wire_numbers()
    numbers["value_ptr"] = numbers["value64"]
    want = {}
    with open(TYPES_TXT, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                want[w[0]] = (numbers[w[1]], numbers[w[2]])
    r = run([emitter, "--types"], TIMEOUT, merge_stderr=False)
    assert r.returncode == 0, r.how()
    have = {w[0]: (int(w[1], 16), int(w[2], 16))
            for w in (ln.split() for ln in r.output.splitlines()) if w}
    problems = [f"{n}: types.txt {want[n]}, emitter {have[n]}"
                for n in sorted(set(want) & set(have)) if want[n] != have[n]]
    problems += [f"{n}: in types.txt, not in the emitter" for n in sorted(set(want) - set(have))]
    problems += [f"{n}: in the emitter, not in types.txt" for n in sorted(set(have) - set(want))]
    if len(want) <= 50:
        problems.append(f"types.txt has only {len(want)} names")
    return problems


def cited_line_problems(src: str, cited: List[Tuple[str, str]]) -> List[str]:
    """Each (file:line, text) holds that text in the checkout: a newer snapshot that moves
    or changes a line a reason cites fails here first."""
    problems = []
    for where, text in cited:
        path, line = where.rsplit(":", 1)
        with open(os.path.join(src, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        got = lines[int(line) - 1] if int(line) <= len(lines) else ""
        if text not in got:
            problems.append(f"{where}: expected {text!r}, found {got.strip()!r}")
    return problems


# ---- where each implementation parses a description ---------------------------------------

@dataclass(frozen=True)
class DescriptionParser:
    """Where an implementation parses a case description: its emitter at run time, or its
    generator at build time (macro APIs). `argv(j, description, scratch)`; a refusal is
    `file:line: reason`, one line on stderr, exit 2, nothing on stdout or captured.
    The description is written to `place(scratch)`."""
    argv: Callable[[Judged, str, str], List[str]]
    env: Callable[[Judged, str], Dict[str, Optional[str]]] = lambda j, scratch: {}
    place: Callable[[str], str] = lambda scratch: os.path.join(scratch, "bad.events")


def _the_emitter(j: Judged, path: str, scratch: str) -> List[str]:
    return [j.emitter, path]


# The header of its checkout a macro API's generator cites in its reasons (its first
# argument): TraceLoggingProvider.h (impl/lttp-c/gen), eventheader.h (impl/ehconf-macros/gen).
GEN_HEADERS = {"lttp-c": "libeventheader-tracepoint/include/eventheader/TraceLoggingProvider.h",
               "ehconf-macros": "include/eventheader.h"}


def _macro_gen(j: Judged, path: str, scratch: str) -> List[str]:
    header = os.path.join(j.src, GEN_HEADERS[j.impl.name])
    return [os.path.join(j.build_out, "gen"), header, path, scratch]


def _rust_macro_gen(j: Judged, path: str, scratch: str) -> List[str]:
    """The generator: cargo's compiled build script (build.rs), run as cargo runs it on
    a folder holding the one description (its EHCONF_EVENTS_DIR)."""
    folder = os.path.join(j.build_out, "target", "release", "build")
    found = sorted(os.path.join(folder, d, "build-script-build") for d in os.listdir(folder)
                   if d.startswith("ehconf-emit-rust-macro-")
                   and os.path.exists(os.path.join(folder, d, "build-script-build")))
    assert found, f"no build-script-build under {folder}"
    return [found[0]]


def _rust_macro_gen_env(j: Judged, scratch: str) -> Dict[str, Optional[str]]:
    return {"EHCONF_EVENTS_DIR": os.path.join(scratch, "events"), "EHCONF_TYPES_TXT": TYPES_TXT,
            "OUT_DIR": scratch, "CARGO_CFG_TARGET_POINTER_WIDTH": "64"}


# Keyed by the registry's parser column (impl/implementations.txt), so a new
# implementation whose emitter reads the descriptions is tested with no edit here.
PARSERS: Dict[str, DescriptionParser] = {
    # libdesc (emitlib/c) or emitlib/rust/desc.rs in the emitter, at run time
    "emit": DescriptionParser(_the_emitter),
    # libdesc in the generator of a macro API (impl/lttp-c/gen, impl/ehconf-macros/gen)
    "gen": DescriptionParser(_macro_gen),
    # emitlib/rust/desc.rs in cargo's build script (impl/rust-macro/build.rs)
    "build.rs": DescriptionParser(_rust_macro_gen, _rust_macro_gen_env,
                                  place=lambda scratch: os.path.join(scratch, "events",
                                                                     "bad.events")),
}


def run_offline_and_judge(copy: str, name: str, build: str, out: str,
                          env: Dict[str, Optional[str]], impl_src: str = "") -> str:
    """In a scratch copy of the repository (the recipe tests: test_adding_impl,
    test_new_impl): the implementation `name` through harness/run.py impl, then pytest's
    judgement of its items into a JUnit file under `out`, whose text is returned; either
    step failing fails the test with its output."""
    results = os.path.join(out, "results")
    env = dict(env, PYTEST_ADDOPTS=None)  # over this process's environment (runner.run)
    py = "/usr/bin/python3"
    r = run([py, "harness/run.py", "impl", "--impl", name, "--build", build, "--results",
             results] + (["--impl-src", impl_src] if impl_src else []), 1200, env=env,
            cwd=copy, merge_stderr=False)
    assert r.returncode == 0, r.output[-2000:] + r.stderr[-2000:]
    xml = os.path.join(out, f"impl-{name}.xml")
    j = run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "harness/core/judge_items.py",
             "--ehconf-impl", name, "--ehconf-results", results, "--ehconf-runner", "impl",
             f"--junitxml={xml}"], 600, env=env, cwd=copy, merge_stderr=False)
    assert j.returncode == 0, j.output[-3000:]
    with open(xml, encoding="utf-8") as f:
        return f.read()
