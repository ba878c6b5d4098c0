# SPDX-License-Identifier: GPL-2.0
"""The case descriptions (descriptions/<case>.events, Documentation/case-descriptions.md)
against the C cases they describe.

  * every golden/<case>.json has a description, with one `event` per golden event;
  * the description, emitted through ehconf's own library (build/<variant>/impl/ehconf/emit,
    EHCONF_CAPTURE) and decoded by `ehdecode --golden`, IS golden/<case>.json: the offline
    run's own judge (golden.golden_problem, transport "capture"), so a description cannot
    drift from its case; every event is reported written;
  * event n of a description is golden event n (harness/impl/run_impl.py maps an implementation's
    event numbers to golden lines by it): the emitted capture, described again by
    ehdescribe, finds each of its events in the description as libdesc unrolls it
    (`emit --print`), and that event's golden line is the decoded one (this matters for
    unordered cases, whose comparison ignores order); in an unordered case the events of a
    `repeat` are the golden events of the same ordinals in any order, all with the same needs;
  * a description with one value changed FAILS, naming the event;
  * descriptions/types.txt says what ehconf's EH_* macros write (eventheader.h and the
    eh_field_macros.h it includes) and names every type of Documentation/field-types.txt;
  * the malformed snippets of tests/desc-format/ are refused with exactly the
    "file:line: reason" each gives, exit 2, nothing written, never a crash (libdesc, which
    the emitter links, is held to the whole of that folder by tests/desc/test_desc_format).

Builds nothing: without emit, ehdescribe and ehdecode in the build folder (--ehconf-build,
default build/gcc) the tests that run them are skipped with one reason.

Run: /usr/bin/python3 -m pytest -q tests/harness/test_descriptions.py
"""

from __future__ import annotations

import glob
import os
import re
from typing import Dict, List, Tuple

import pytest

from harness.core.ehdecode import decode

from harness.core.common import REPO_ROOT, display_path
from desc_snippets import malformed
from harness.core.golden import compare, golden_problem
from harness.impl.registry import parse_emitter_output, read_description
from harness.core.processes import run
from harness.core.transports import capture_env, get

TIMEOUT = 120.0  # a hang guard: the largest description (8,006 events) takes well under 1 s
EVENTS = os.path.join(REPO_ROOT, "descriptions")
GOLDEN_CASES = sorted(os.path.basename(p)[:-len(".json")]
                      for p in glob.glob(os.path.join(REPO_ROOT, "golden", "*.json")))
DIRECTIVE = '{"ehconf"'
MALFORMED = malformed()


def golden_events(case: str) -> List[str]:
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8",
              errors="surrogateescape") as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith(DIRECTIVE)]


@pytest.fixture(scope="module")
def tools(pytestconfig) -> Dict[str, str]:
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    build = b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)
    paths = {"emit": os.path.join(build, "impl", "ehconf", "emit"),
             "ehdescribe": os.path.join(build, "bin", "ehdescribe"),
             "ehdecode": os.path.join(build, "bin", "ehdecode")}
    missing = [display_path(p) for p in paths.values() if not os.access(p, os.X_OK)]
    if missing:
        pytest.skip(f"not built: {', '.join(missing)} (make -j2 VARIANT=gcc all)")
    return paths


def emit(tools: Dict[str, str], events_file: str, dat: str):
    """emit events_file into the capture dat: (run, its per-event lines)."""
    if os.path.exists(dat):
        os.unlink(dat)
    r = run([tools["emit"], events_file], TIMEOUT, env=capture_env("capture", dat),
            merge_stderr=False)
    return r, parse_emitter_output(r.output)


def reproduce(tools: Dict[str, str], case: str, events_file: str, tmp_path) -> str:
    """"" when events_file emits golden/<case>.json exactly, else why not."""
    n = len(read_description(events_file).events)
    dat = str(tmp_path / f"{case}.dat")
    r, said = emit(tools, events_file, dat)
    not_written = {k: v for k, v in said.items() if v[0] != "written"}
    if r.how() or len(said) != n or not_written:
        return (f"emit {display_path(events_file)}: {r.how() or 'exit status 0'}, {len(said)} of "
                f"{n} events reported, not written: {not_written}\n{r.stderr}")
    d = decode(tools["ehdecode"], dat, TIMEOUT)
    if not d.ok:
        return d.problem
    return golden_problem(d.text, os.path.join(REPO_ROOT, "golden", case + ".json"), case,
                          get("capture").golden, f"{case}.dat emitted from {events_file}")


def test_there_are_golden_cases():
    assert GOLDEN_CASES, "no golden/*.json: nothing would be checked"


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_description_has_every_golden_event(case):
    path = os.path.join(EVENTS, case + ".events")
    assert os.path.exists(path), (f"golden/{case}.json has no description descriptions/{case}"
                                  f".events: scripts/gen-case-descriptions.py {case}")
    d = read_description(path)
    assert not d.problems, "\n".join(d.problems)
    assert len(d.events) == len(golden_events(case)), (
        f"descriptions/{case}.events has {len(d.events)} events, golden/{case}.json "
        f"{len(golden_events(case))}")
    if unordered(case):
        mixed = [(a, b) for a, b in d.repeats if len({frozenset(e[2]) for e in d.events[a - 1:b]}) > 1]
        assert not mixed, f"repeats whose events need different features: events {mixed}"


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_description_reproduces_golden(case, tools, tmp_path):
    problem = reproduce(tools, case, os.path.join(EVENTS, case + ".events"), tmp_path)
    assert not problem, problem


def event_blocks(text: str) -> List[Tuple[str, str]]:
    """(provider line, event block) of each event of a description or of ehdescribe's output,
    without indentation or needs= (the steps' needs are the generator's, not the bytes')."""
    out, provider, block, depth = [], "", [], 0
    for raw in text.splitlines():
        words = [w for w in raw.split() if not w.startswith("needs=")]
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "provider":
            provider = " ".join(words)
        if words[0] == "event" or depth:
            block.append(" ".join(words))
            depth += 1 if words[0] in ("event", "struct", "struct_slice", "element") else 0
            depth -= 1 if words[0] == "end" else 0
            if not depth:
                out.append((provider, "\n".join(block)))
                block = []
    return out


def unordered(case: str) -> bool:
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8") as f:
        return any(ln.startswith(DIRECTIVE) and '"unordered"' in ln for ln in f)


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_event_n_is_golden_event_n(case, tools, tmp_path):
    path = os.path.join(EVENTS, case + ".events")
    printed = run([tools["emit"], "--print", path], TIMEOUT, merge_stderr=False)
    assert printed.returncode == 0, printed.stderr
    ordinals: Dict[Tuple[str, str], List[int]] = {}
    for n, key in enumerate(event_blocks(printed.output), 1):
        ordinals.setdefault(key, []).append(n)
    # in an unordered case, each repeat's ordinals are one slot: its golden events, any order
    slot = {n: (n, n) for n in range(1, len(golden_events(case)) + 1)}
    if unordered(case):
        for a, b in read_description(path).repeats:
            slot.update({n: (a, b) for n in range(a, b + 1)})
    dat = str(tmp_path / f"{case}.dat")
    emit(tools, path, dat)
    described = run([tools["ehdescribe"], dat], TIMEOUT, merge_stderr=False)
    decoded = decode(tools["ehdecode"], dat, TIMEOUT)
    assert described.returncode == 0 and decoded.ok, described.stderr + decoded.problem
    blocks = event_blocks(described.output)
    lines = [ln for ln in decoded.text.splitlines() if ln.strip()]
    golden = golden_events(case)
    assert len(blocks) == len(lines) == len(golden)
    by_slot: Dict[Tuple[int, int], List[str]] = {}
    for key, line in zip(blocks, lines):
        found = ordinals.get(key)
        assert found, f"{case}: an emitted event is in no event block of {path}:\n{key[1]}"
        by_slot.setdefault(slot[found[0]], []).append(line)
    directive = '{"ehconf": {"order": "unordered"}}'
    for (a, b), got in sorted(by_slot.items()):
        res = compare("\n".join(([directive] if a < b else []) + golden[a - 1:b]),
                      "\n".join(got), case)
        assert res.ok, f"{case}: events {a}..{b} of the description are not golden events " \
                       f"{a}..{b}:\n{res.message}"


def test_a_changed_value_fails_naming_the_event(tools, tmp_path):
    """The check above must fail when a description says something else: seq 3 becomes 4
    in lifecycle's second event."""
    with open(os.path.join(EVENTS, "lifecycle.events"), encoding="utf-8") as f:
        text = f.read()
    changed = text.replace("u32 seq 03000000", "u32 seq 04000000", 1)
    assert changed != text
    path = tmp_path / "lifecycle.events"
    path.write_text(changed, encoding="utf-8")
    problem = reproduce(tools, "lifecycle", str(path), tmp_path)
    assert "event #1" in problem and "n=EhconfLifeA:Life" in problem, problem
    assert "changed  seq: 3 -> 4" in problem, problem


# ---- descriptions/types.txt against eventheader.h and field-types.txt ----

# The field macros are generated into eh_field_macros.h from the same table as types.txt
# (scripts/gen-field-types.py); the helpers they expand to are eventheader.h's.
HEADERS = [os.path.join(REPO_ROOT, "lib", "eventheader", "include", h)
           for h in ("eventheader.h", "eh_field_macros.h")]
VALUE_SIZES = {"value8": 1, "value16": 2, "value32": 4, "value64": 8, "value128": 16,
               "value_ptr": "ptr"}
STRING_UNITS = {"zstring_char8": 1, "zstring_char16": 2, "zstring_char32": 4,
                "string_length16_char8": 1, "string_length16_char16": 2,
                "string_length16_char32": 4, "binary_length16_char8": 1}


def types_rows() -> List[List[str]]:
    with open(os.path.join(EVENTS, "types.txt"), encoding="utf-8") as f:
        return [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]


def macro_encoding(name: str) -> Tuple[str, str]:
    """(encoding, format) that the EH_<NAME> macro writes, in types.txt's spelling: the
    first EH_ENC_ / EH_FMT_ its definition names, following the EH_* macros it uses."""
    text = ""
    for header in HEADERS:
        with open(header, encoding="utf-8") as f:
            text += f.read().replace("\\\n", " ")
    bodies = dict(re.findall(r"^#define (EH_\w+)\([^)]*\)(.*)$", text, re.M))
    enc = fmt = ""
    todo, seen = [f"EH_{name.upper()}"], set()
    while todo and not (enc and fmt):
        m = todo.pop(0)
        if m in seen or m not in bodies:
            continue
        seen.add(m)
        body = bodies[m]
        enc = enc or next(iter(re.findall(r"\bEH_ENC_(\w+)", body)), "").lower()
        fmt = fmt or next(iter(re.findall(r"\bEH_FMT_(\w+)", body)), "").lower()
        todo += re.findall(r"\b(EH_\w+)\b", body)
    return enc, fmt


def test_types_follow_the_eh_macros():
    rows = types_rows()
    assert rows, "descriptions/types.txt has no rows"
    wrong = []
    for name, enc, fmt, unit in rows:
        if macro_encoding(name) != (enc, fmt):
            wrong.append(f"{name}: types.txt {enc} {fmt}, EH_{name.upper()} "
                         f"{' '.join(macro_encoding(name))}")
        if str(VALUE_SIZES.get(enc, STRING_UNITS.get(enc))) != unit:
            wrong.append(f"{name}: unit {unit} is not {enc}'s")
    assert not wrong, "\n".join(wrong)


def test_types_name_every_field_type():
    with open(os.path.join(REPO_ROOT, "Documentation", "field-types.txt"), encoding="utf-8") as f:
        listed = {ln.strip() for ln in f if ln.strip() and not ln.startswith("#")}
    names = [r[0] for r in types_rows()]
    assert len(names) == len(set(names)), "a name is in descriptions/types.txt twice"
    bases = {t for t in listed if not t.endswith("_slice")}
    assert set(names) == bases, (f"missing: {sorted(bases - set(names))}, "
                                 f"not write_event! types: {sorted(set(names) - bases)}")
    value_types = {r[0] for r in types_rows() if r[1] in VALUE_SIZES}
    slices = {t[:-len("_slice")] for t in listed if t.endswith("_slice")}
    assert slices <= value_types, f"slices of non-value types: {sorted(slices - value_types)}"


# ---- malformed descriptions ----

GOOD_EVENT = "provider P\nregister\nevent E level=4 keyword=0x1\n  u32 n 01000000\nend\n"


@pytest.mark.parametrize("snippet", MALFORMED, ids=[m.name for m in MALFORMED])
def test_malformed_description_is_refused(snippet, tools, tmp_path):
    """tests/desc-format/malformed/<name>.events: its first line, `# refused: <line>:
    <reason>`, is the one line on stderr after the file's path; exit 2, nothing written."""
    dat = str(tmp_path / "bad.dat")
    r, said = emit(tools, snippet.path, dat)
    assert r.returncode == 2 and not said and not os.path.exists(dat), (r.how(), r.output)
    assert r.stderr == snippet.refusal(snippet.path) + "\n", r.stderr


def test_a_good_description_passes(tools, tmp_path):
    """The malformed ones differ from this one only where they say."""
    path = tmp_path / "good.events"
    path.write_text("case c\n" + GOOD_EVENT, encoding="utf-8")
    r, said = emit(tools, str(path), str(tmp_path / "good.dat"))
    assert r.returncode == 0 and said == {1: ("written", "")}, (r.how(), r.output, r.stderr)
