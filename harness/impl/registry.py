# SPDX-License-Identifier: GPL-2.0
"""The implementation registry (impl/implementations.txt), each implementation's profile
(impl/<name>/profile.txt) and the case descriptions' block structure
(Documentation/case-descriptions.md): what harness/impl/run_impl.py and harness/reports/impls_md.py
read. No program runs here."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from harness.core.common import REPO_ROOT, table_rows

REGISTRY = os.path.join(REPO_ROOT, "impl", "implementations.txt")
EVENTS_DIR = os.path.join(REPO_ROOT, "descriptions")
# Statements that open a block closed by `end` (the format's nesting).
OPENERS = ("event", "struct", "struct_slice", "element", "threads", "thread", "fork", "repeat")


# The checkout column of a producer built from the crate registry at the versions its
# committed Cargo.lock pins: no checkout is needed (its build gets "-").
CRATES = "crates"


@dataclass(frozen=True)
class Impl:
    name: str
    language: str
    checkout: str  # "-" (built by make), CRATES, or the suffix of its IMPL_SRC_<checkout>
    upstream: str
    inputs: str  # "cases": the conformance cases' descriptions; OWN: inputs of its own
    #              kind, impl/<name>/inputs/*.inputs against impl/<name>/expected/*.json
    parser: str  # what reads the descriptions: "emit" (the emitter, at run time), "gen" (a
    #              generator in the build, impl/<name>/gen), "build.rs" (cargo's build
    #              script), "-" (it takes no descriptions); the malformed-input tests ask it
    decoder: str  # what turns its captures into golden-form JSON: "ehdecode" (EventHeader),
    #               or a script of the checkout for a producer that writes another format
    #               (`SCRIPT FILE.dat`, and `SCRIPT --from-ehdecode PERF.json` for what
    #               ehdecode printed of a perf.data)
    drives: str
    crate: str = "-"  # a crate-registry producer's NAME@VERSION[,VERSION...] (the registry's
    #                   crate column: the versions ehconf pins, the first the row's own)
    version: str = ""  # a versioned run's release (name@version, resolve()); "" the first pinned

    @property
    def crate_name(self) -> str:
        return self.crate.partition("@")[0] if self.crate != "-" else ""

    @property
    def crate_versions(self) -> List[str]:
        """The versions the crate column pins, the first being the row's own."""
        return self.crate.partition("@")[2].split(",") if self.crate != "-" else []

    @property
    def crate_version(self) -> str:
        """The version this run builds: a versioned run's, else the first pinned."""
        return self.version or (self.crate_versions or [""])[0]

    @property
    def pinned(self) -> bool:
        """Whether its version has a committed lock (the crate column names it)."""
        return not self.version or self.version in self.crate_versions

    @property
    def base(self) -> str:
        """The registry row's name (a versioned run's label without its @version)."""
        return self.name.partition("@")[0]

    @property
    def variable(self) -> str:
        return f"IMPL_SRC_{self.checkout}"

    @property
    def folder(self) -> str:
        return os.path.join(REPO_ROOT, "impl", self.base)

    @property
    def family(self) -> str:
        """What its inputs and expectations are keyed by: "cases" (the conformance cases,
        shared), or its own name (everything in impl/<name>/, whatever the version)."""
        return "cases" if self.inputs == "cases" else self.base


# The inputs column of a producer that takes inputs of its own kind. Its family lives in its
# folder: inputs/ (the .inputs files and provenance.txt), expected/ (one JSON per input),
# bench/ (its workloads), mutants.txt, observed/ and profile.txt.
OWN = "own"


def family_folder(family: str, part: str, root: str = REPO_ROOT) -> str:
    """impl/<family>/<part>: inputs, expected or bench of a producer's own family."""
    return os.path.join(root, "impl", family, part)


VERSION = r"[0-9]+\.[0-9]+\.[0-9]+"


def version_key(version: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def resolve(name: str, rows: Optional[List[Impl]] = None) -> Optional[Impl]:
    """The registry row NAME, or for NAME@VERSION (make check-impl IMPL=NAME VERSION=...) a
    crate-registry row at that release: its results, JUnit file and items are named
    NAME@VERSION (impl-NAME@VERSION/, impl/NAME@VERSION/...). A version its crate column
    does not pin still runs, unpinned (Impl.pinned). None: no such row, or a version of a
    row that is not built from the crate registry."""
    base, _, version = name.partition("@")
    row = next((i for i in (rows if rows is not None else read_registry()) if i.name == base), None)
    if row is None or not version:
        return row
    if row.checkout != CRATES or not re.fullmatch(VERSION, version):
        return None
    from dataclasses import replace
    return replace(row, name=name, version=version)


def versioned_runs(rows: Optional[List[Impl]] = None) -> List[str]:
    """Every pinned version of the crate-registry rows besides each row's own (the first),
    as NAME@VERSION: what make check-impl IMPL=all runs beside the rows."""
    return [f"{i.name}@{v}" for i in (rows if rows is not None else read_registry())
            for v in i.crate_versions[1:]]


def expected_path(impl: Impl, name: str) -> str:
    """impl/<name>/expected/<input>.json, relative to the checkout, or where a release
    promises otherwise, the `<input>@<V>.json` beside it of the greatest V not above the
    run's version: what that release's documentation promises from V on."""
    return f"impl/{impl.family}/expected/{_release_file(impl, family_folder(impl.family, 'expected'), name)}"


def _release_file(impl: Impl, folder: str, name: str) -> str:
    """<name>.json, or the `<name>@<V>.json` in folder of the greatest V not above the
    run's version (a crate-registry producer's release)."""
    chosen, best = f"{name}.json", None
    if impl.crate_version and os.path.isdir(folder):
        for f in os.listdir(folder):
            m = re.fullmatch(re.escape(name) + r"@(" + VERSION + r")\.json", f)
            if m and version_key(m.group(1)) <= version_key(impl.crate_version) and (
                    best is None or version_key(m.group(1)) > best):
                chosen, best = f, version_key(m.group(1))
    return chosen


def holds_for(spec: str, version: str) -> bool:
    """A declaration's versions (`differs@0.16.0,0.17.0 ...`; `V+`: V and every later
    release) cover this one."""
    for item in spec.split(","):
        if item.endswith("+") and re.fullmatch(VERSION, item[:-1]):
            if version_key(version) >= version_key(item[:-1]):
                return True
        elif item == version:
            return True
    return False


def read_registry(path: str = REGISTRY) -> List[Impl]:
    rows = []
    for n, parts in table_rows(path, 9, "name, language, checkout, upstream, crate, inputs, "
                                        "parser, decoder and what it drives"):
        name, language, checkout, upstream, crate = parts[:5]
        if (checkout == CRATES) != (crate != "-") or (crate != "-" and not re.fullmatch(
                r"[A-Za-z0-9_-]+@" + VERSION + r"(," + VERSION + r")*", crate)):
            raise ValueError(f"{path}:{n}: crate is NAME@VERSION[,VERSION...] (the versions "
                             f"pinned) for a row whose checkout is {CRATES}, and - for the "
                             f"others (got {crate!r})")
        rows.append(Impl(name, language, checkout, upstream, *parts[5:8], parts[8],
                         crate=crate))
    return rows


@dataclass
class Profile:
    lacks: Dict[str, str] = field(default_factory=dict)  # feature -> reason
    # (case, ordinal) -> reason (with the source line it comes from): the event is written
    # but differs from golden; ordinal 0 (`all`): the input as a whole differs (events
    # added or missing), so it is compared whole
    differs: Dict[Tuple[str, int], str] = field(default_factory=dict)
    # (case, ordinal) -> the patch of the golden line that is written instead
    # (harness/impl/declared.py: one operation per indented line under the `differs` line); ordinal 0:
    # the observed sequence's file, impl/<name>/observed/<case>.json
    observed: Dict[Tuple[str, int], list] = field(default_factory=dict)
    # (case, ordinal) -> reason: the implementation cannot or will not write the event
    # (its API refuses it, or the emitter cannot express it): not written
    refuses: Dict[Tuple[str, int], str] = field(default_factory=dict)
    # (case, ordinal) -> [state, the emitter's words]: how the refusal shows, exactly (the
    # indented line under the `refuses` line, a JSON array: ["failed", "..."])
    refused_as: Dict[Tuple[str, int], list] = field(default_factory=dict)
    # (case, ordinal) -> reason: the API reports the event written (or returns nothing to say
    # otherwise) but it never arrives: dropped silently
    loses: Dict[Tuple[str, int], str] = field(default_factory=dict)
    # contract row -> (observation, reason): Documentation/impl-contract.md
    contract: Dict[str, Tuple[str, str]] = field(default_factory=dict)
    # label -> Alteration: a difference the implementation makes in named fields of every
    # event (a time format, say), undone in its decoded events before they are compared,
    # so each event is still judged on everything else
    alters: Dict[str, "Alteration"] = field(default_factory=dict)
    # the item each declaration answers for (<case>/<n>, <case>, alters/<label>) -> the
    # versions it holds for as written (`differs@0.16.0 ...`; "" for every version)
    versions: Dict[str, str] = field(default_factory=dict)
    # the item each declaration answers for (as versions, and contract/<row>) -> where the
    # behaviour comes from in the release run: a crate-registry producer's `upstream <V>
    # <place>...` line for that version (UPSTREAM), its places joined by ", "; what the
    # runner hands the report as the item's fact "upstream"
    upstream: Dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Alteration:
    """`alters <label> <path>[,<path>...] <regex> => <replacement> | <reason>`: at those
    leaves only (harness/core/golden.py's flatten paths), a string value the regex matches whole
    is the replacement in the golden form; nothing else is touched."""
    paths: Tuple[str, ...]
    pattern: "re.Pattern[str]"
    replacement: str
    why: str


ALTERS = re.compile(r"^alters\s+([a-z0-9-]+)\s+(\S+)\s+(.+?)\s+=>\s+(.*?)\s+\|\s+(.+)$")

# Under a crate-registry producer's declaration, one indented line per pinned release it holds
# for: `upstream <V> <place> [<place>...]`, each place a file of that release's crate, relative
# to the crate's root, and its lines (`src/logs/exporter.rs:170`, `:299,314,332`, `:172-176`),
# or of a crate it depends on, named with the version that release's lock pins
# (`eventheader_dynamic@0.5.0/src/builder.rs:429-444`).
UPSTREAM_PLACE = re.compile(r"(?:[A-Za-z0-9_-]+@" + VERSION + r"/)?(?!/)(?!.*\.\.)[A-Za-z0-9_./-]+"
                            r":[0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*")
# The declarations that answer for an item, and so say where their behaviour comes from.
CITING = ("differs", "refuses", "loses", "alters", "contract")


def undo_alters(profile: "Profile", lines: List[str]) -> Tuple[List[str], Dict[str, int]]:
    """The decoded event lines with each declared alteration undone at its fields, and how
    many lines each one changed (an alteration that changes nothing is no longer seen). A
    changed line is rewritten in compact canonical form; a line that is not a JSON object
    is left as it is."""
    from harness.core.golden import Obj, _loads, _replace_leaves, canonical, flatten  # no cycle at import
    seen = {label: 0 for label in profile.alters}
    out = []
    for line in lines:
        try:
            value = _loads(line)
        except ValueError:
            value = None
        if not isinstance(value, Obj):
            out.append(line)
            continue
        repl = {}
        for path, text in flatten(value):
            for label, alt in profile.alters.items():
                if path not in alt.paths or not text.startswith('"'):
                    continue
                m = alt.pattern.fullmatch(_loads(text))
                if m:
                    repl[path] = m.expand(alt.replacement)
                    seen[label] += 1
        out.append(canonical(_replace_leaves(value, repl, set())) if repl else line)
    return out, seen


def observed_sequence_path(impl: Impl, case: str) -> str:
    """Where a `differs <case> all` declaration keeps the observed events, one per line:
    impl/<name>/observed/<case>.json, or where a release writes them otherwise (another time
    format), the `<case>@<V>.json` beside it chosen as expected_path chooses."""
    folder = os.path.join(impl.folder, "observed")
    return os.path.join(folder, _release_file(impl, folder, case))


def read_profile(impl: Impl, check: bool = True) -> Profile:
    """impl/<name>/profile.txt: `lacks <feature> <reason>`,
    `refuses <case> <event ordinal> <reason>`, `loses <case> <event ordinal> <reason>`,
    `differs <case> <event ordinal>|all <reason>`,
    `alters <label> <path>[,<path>...] <regex> => <replacement> | <reason>` (Python re
    syntax, matching a string field's whole value; the replacement may name groups as \\1) and `contract <row> <observation> | <reason>`; a missing file is
    an empty profile. Under a `differs <case> <n>` line, indented lines hold the observed
    form, one patch operation each (harness/impl/declared.py); under a `refuses` line, one
    indented line says how the refusal shows: ["failed"|"skipped", "the emitter's words"].
    `differs <case> all` keeps its observed events in impl/<name>/observed/<case>.json.
    check=False reads a profile whose declarations state no observation yet (what
    harness/impl/observed_patch.py helps to write).
    A crate-registry producer's declaration may say the releases it holds for, its keyword
    then `<keyword>@<V>[,<V>...]` (`V+`: V and every later one): a run of another version
    leaves it out; without, it holds for every version. Under each of its differs, refuses,
    loses, alters and contract declarations, one indented `upstream <V> <place>...` line per
    pinned release the declaration holds for says where that release's source makes the
    behaviour (UPSTREAM_PLACE): a line for a version the crate column does not pin, or one the
    declaration does not hold for, is rejected, and so (unless check=False) is a declaration
    missing one; the run's release's places are Profile.upstream."""
    from harness.impl.declared import DeclarationError, parse_op
    p = Profile()
    path = os.path.join(impl.folder, "profile.txt")
    if not os.path.exists(path):
        return p
    last = None  # the (kind, key) an indented line belongs to
    cited: Optional[Cited] = None  # the declaration an `upstream` line belongs to
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split(None, 3)
            if not words or words[0].startswith("#"):
                continue
            if line[0] in " \t":
                try:
                    if words[0] == "upstream":
                        _upstream(impl, cited, line)
                        continue
                    if last == SKIPPED:
                        continue
                    _continuation(p, last, line, parse_op)
                except (DeclarationError, ValueError) as e:
                    raise ValueError(f"{path}:{n}: {e}") from e
                continue
            _cited_done(impl, p, cited, path, check)
            last = cited = None
            keyword, _, spec = words[0].partition("@")
            if spec and (impl.checkout != CRATES or not all(
                    re.fullmatch(VERSION + r"\+?", x) for x in spec.split(","))):
                raise ValueError(f"{path}:{n}: {words[0]}: only a crate-registry producer's "
                                 f"declaration names versions, as {keyword}@V[,V...] "
                                 f"(V+: from V on)")
            if spec:
                line = keyword + line[len(words[0]):]
                words = line.split(None, 3)
            if keyword in CITING and len(words) > 1:
                cited = Cited(_item_key(words), spec, n, holds_for(spec, impl.crate_version)
                              if spec else True)
            if spec and not holds_for(spec, impl.crate_version):
                last = SKIPPED
                continue
            if (words[0] in ("refuses", "loses", "differs") and len(words) == 4) or (
                    words[0] == "alters" and len(words) > 1):
                p.versions[_item_key(words)] = spec
            if words[0] == "lacks" and len(words) >= 3:
                p.lacks[words[1]] = " ".join(words[2:]).strip()
            elif words[0] == "refuses" and len(words) == 4 and words[2].isdigit():
                last = ("refuses", (words[1], int(words[2])))
                p.refuses[last[1]] = words[3].strip()
            elif words[0] == "loses" and len(words) == 4 and words[2].isdigit():
                p.loses[(words[1], int(words[2]))] = words[3].strip()
            elif words[0] == "differs" and len(words) == 4 and (words[2].isdigit()
                                                                or words[2] == "all"):
                last = ("differs", (words[1], 0 if words[2] == "all" else int(words[2])))
                p.differs[last[1]] = words[3].strip()
            elif words[0] == "alters" and ALTERS.match(line.strip()):
                label, paths, pattern, replacement, why = ALTERS.match(line.strip()).groups()
                try:
                    p.alters[label] = Alteration(tuple(paths.split(",")), re.compile(pattern),
                                                 replacement, why)
                except re.error as e:
                    raise ValueError(f"{path}:{n}: alters {label}: {e}") from e
            elif words[0] == "contract" and len(words) == 4 and " | " in line:
                row, rest = line.split(None, 2)[1:]
                seen, _, why = rest.partition(" | ")
                p.contract[row] = (" ".join(seen.split()), why.strip())
            else:
                raise ValueError(f"{path}:{n}: expected `lacks <feature> <reason>`, "
                                 f"`refuses <case> <ordinal> <reason>`, "
                                 f"`loses <case> <ordinal> <reason>`, "
                                 f"`differs <case> <ordinal>|all <reason>`, "
                                 f"`alters <label> <path>[,<path>] <regex> => <replacement> | "
                                 f"<reason>`, "
                                 f"`contract <row> <observation> | <reason>` or an indented "
                                 f"observation under a differs or refuses line (or "
                                 f"`upstream <V> <file>:<line>` under any of them)")
    _cited_done(impl, p, cited, path, check)
    if check:
        _check_observed(p, impl, path)
    return p


SKIPPED = ("skipped", None)  # a declaration for other versions, and its indented lines


@dataclass
class Cited:
    """A declaration of a crate-registry producer, while its indented lines are read: the
    item it answers for, the versions it holds for as written, its line, whether it holds
    for the release run, and the `upstream` places it states per version."""
    key: str
    spec: str
    line: int
    here: bool
    places: Dict[str, str] = field(default_factory=dict)


def _item_key(words: List[str]) -> str:
    """The item a declaration answers for, below impl/<name>/ (or impl-vm/<name>/)."""
    if words[0] == "alters":
        return f"alters/{words[1]}"
    if words[0] == "contract":
        return f"contract/{words[1]}"
    return words[1] if len(words) > 2 and words[2] == "all" else "/".join(words[1:3])


def _upstream(impl: Impl, cited: Optional[Cited], line: str) -> None:
    """`upstream <V> <place>...` under a declaration: V a release the crate column pins and the
    declaration holds for, stated once; each place UPSTREAM_PLACE."""
    if impl.checkout != CRATES:
        raise ValueError("only a crate-registry producer's declaration states an upstream line "
                         "per version (its other lines name their source in the reason)")
    if cited is None:
        raise ValueError("an `upstream` line belongs under a " + ", ".join(CITING) +
                         " declaration")
    words = line.split()
    if len(words) < 3 or not re.fullmatch(VERSION, words[1]):
        raise ValueError("expected `upstream <V> <file>:<line>[,<line>|-<line>] ...`")
    version, places = words[1], words[2:]
    if version not in impl.crate_versions:
        raise ValueError(f"upstream {version}: impl/implementations.txt does not pin "
                         f"{impl.crate_name}@{version} (it pins "
                         f"{', '.join(impl.crate_versions)})")
    if cited.spec and not holds_for(cited.spec, version):
        raise ValueError(f"upstream {version}: the declaration holds for {cited.spec}, not "
                         f"{version}")
    if version in cited.places:
        raise ValueError(f"upstream {version} stated twice for {cited.key}")
    bad = [x for x in places if not UPSTREAM_PLACE.fullmatch(x)]
    if bad:
        raise ValueError(f"upstream {version}: {bad[0]!r} is not <file>:<line> relative to the "
                         f"crate's root (or <crate>@<V>/<file>:<line> of a dependency)")
    cited.places[version] = ", ".join(places)


def _cited_done(impl: Impl, p: Profile, cited: Optional[Cited], path: str, check: bool) -> None:
    """A declaration's indented lines are all read: it states an upstream line for every
    pinned release it holds for (unless check=False), and the run's is the item's fact."""
    if cited is None or impl.checkout != CRATES:
        return
    wanted = [v for v in impl.crate_versions if not cited.spec or holds_for(cited.spec, v)]
    missing = [v for v in wanted if v not in cited.places]
    if check and missing:
        raise ValueError(f"{path}:{cited.line}: {cited.key} holds for {', '.join(wanted)} but "
                         f"states no `upstream {missing[0]} <file>:<line>` line under it: where "
                         f"the behaviour comes from in each pinned release")
    if cited.here and impl.crate_version in cited.places:
        p.upstream[cited.key] = cited.places[impl.crate_version]


def _continuation(p: Profile, last, line: str, parse_op) -> None:
    if last is None:
        raise ValueError("an indented line belongs under a `differs <case> <n>` or "
                         "`refuses` line")
    kind, key = last
    if kind == "refuses":
        import json
        state = json.loads(line)
        if key in p.refused_as or not (isinstance(state, list) and len(state) == 2 and
                                       state[0] in ("failed", "skipped")
                                       and isinstance(state[1], str)):
            raise ValueError('a refusal shows as one line ["failed"|"skipped", "words"]')
        p.refused_as[key] = state
    elif key[1] == 0:
        raise ValueError(f"`differs {key[0]} all` keeps its observation in "
                         f"observed/{key[0]}.json, not in the profile")
    else:
        p.observed.setdefault(key, []).append(parse_op(line.strip()))


def _check_observed(p: Profile, impl: Impl, path: str) -> None:
    """Every declaration states what it lets through."""
    for (case, o), why in p.differs.items():
        if o == 0:
            p.observed[(case, 0)] = observed_sequence_path(impl, case)
            if not os.path.exists(p.observed[(case, 0)]):
                raise ValueError(f"{path}: differs {case} all: no observed sequence "
                                 f"{os.path.relpath(p.observed[(case, 0)], REPO_ROOT)}")
        elif not p.observed.get((case, o)):
            raise ValueError(f"{path}: differs {case} {o} states no observation: add the "
                             f"patch of what is written as indented lines under it "
                             f"(harness/impl/declared.py)")
    for key in p.refuses:
        if key not in p.refused_as:
            raise ValueError(f"{path}: refuses {key[0]} {key[1]} states no observation: add "
                             f'["failed"|"skipped", "the emitter\'s words"] under it')


@dataclass
class Description:
    """A case description cut into what the runner needs: every event's ordinal (its
    position among the events, from 1, each repetition of a `repeat` counted), the lines of
    its `event ... end` block and the features it needs, and the lines of the file so
    events can be left out."""
    case: str
    lines: List[str]
    events: List[Tuple[int, int, Set[str]]]  # per ordinal: (first line, last line, needs), 0-based
    problems: List[str]
    # the ordinals (first, last) each `repeat` unrolls to
    repeats: List[Tuple[int, int]] = field(default_factory=list)


def _needs(words: List[str]) -> Set[str]:
    for w in words:
        if w.startswith("needs="):
            return set(filter(None, w[len("needs="):].split(",")))
    return set()


def read_description(path: str) -> Description:
    """The block structure only (libdesc and emitlib/rust/desc.rs parse the rest): a
    `repeat <n>` block's events n times in a row."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    case = os.path.basename(path).rsplit(".", 1)[0]
    case_needs: Set[str] = set()
    events: List[Tuple[int, int, Set[str]]] = []
    repeats: List[Tuple[int, int]] = []
    problems: List[str] = []
    open_blocks: List[Tuple[str, int, int]] = []  # (opener, events before it, its count)
    start = -1
    needs: Set[str] = set()
    for i, raw in enumerate(lines):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "needs" and not open_blocks and len(words) == 2:
            case_needs |= set(words[1].split(","))
        if words[0] in OPENERS:
            if words[0] == "event":
                if start >= 0:
                    problems.append(f"{path}:{i + 1}: an event inside an event")
                start, needs, event_depth = i, _needs(words) | case_needs, len(open_blocks)
            count = int(words[1]) if words[0] == "repeat" and len(words) == 2 and \
                words[1].isdigit() else 1
            open_blocks.append((words[0], len(events), count))
        elif words[0] == "end":
            if not open_blocks:
                problems.append(f"{path}:{i + 1}: `end` without a block")
                continue
            opener, before, count = open_blocks.pop()
            if start >= 0 and len(open_blocks) == event_depth:
                events.append((start, i, needs))
                start = -1
            elif opener == "repeat":
                body = events[before:]
                events += body * (count - 1)
                if body:
                    repeats.append((before + 1, len(events)))
    if open_blocks:
        problems.append(f"{path}: {len(open_blocks)} block(s) without `end`")
    return Description(case, lines, events, problems, repeats)


def without_events(d: Description, leave_out: Set[int]) -> str:
    """The description's text with the events of those ordinals removed (an event of a
    `repeat` with every repetition: its ordinals all need the same features)."""
    drop = set()
    for ordinal, (first, last, _) in enumerate(d.events, 1):
        if ordinal in leave_out:
            drop.update(range(first, last + 1))
    return "\n".join(line for i, line in enumerate(d.lines) if i not in drop)


EMIT_LINE = re.compile(r"^event (\d+) (written|skipped|failed)(?: (.*))?$")


def parse_emitter_output(text: str) -> Dict[int, Tuple[str, str]]:
    """The emitter's per-event lines: ordinal -> (written|skipped|failed, reason)."""
    got: Dict[int, Tuple[str, str]] = {}
    for line in text.splitlines():
        m = EMIT_LINE.match(line.strip())
        if m:
            got[int(m.group(1))] = (m.group(2), m.group(3) or "")
    return got


def description_path(case: str) -> Optional[str]:
    p = os.path.join(EVENTS_DIR, case + ".events")
    return p if os.path.exists(p) else None
