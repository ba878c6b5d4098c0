# SPDX-License-Identifier: GPL-2.0
"""microsoft/LinuxTracepoints' C macro API (TraceLoggingProvider.h) through ehconf's cases.

impl/lttp-c/build generates C from every impl/events/<case>.events (impl/lttp-c/gen.c: one
function per event, TraceLoggingWrite with literal values) and builds it against the
checkout named by IMPL_SRC_LTTP into one emitter (a temporary folder). Every description is
emitted under the user_events stand-in (impl/standin, LD_PRELOAD), the capture decoded by
`ehdecode --golden`, and each golden event judged by harness/golden.py's compare():

  reproduced   written, and decoded exactly as golden/<case>.json has it
  skipped      the macros cannot express it (the emitter says why; nothing written)
  different    refused by the macro (an errno), or arrived other than golden says

The differences must be exactly DIFFERENCES and the skips exactly SKIPS (each with the
header line responsible); impl/lttp-c/profile.txt must declare the same. Without
IMPL_SRC_LTTP, the stand-in or ehdecode those tests skip with one line; the build script's
refusal of a folder that is not LinuxTracepoints needs no checkout and always runs.

Run: IMPL_SRC_LTTP=/path/to/LinuxTracepoints /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_lttp_c.py
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import pytest

from cases import decode
from common import REPO_ROOT, display_path
from golden import compare
from impls import (description_path, parse_emitter_output, read_description, read_profile,
                   read_registry, without_events)
from runner import run
from transports import REFERENCE

VARIABLE = "IMPL_SRC_LTTP"
BUILD = os.path.join(REPO_ROOT, "impl", "lttp-c", "build")
EVENTS_DIR = os.path.join(REPO_ROOT, "impl", "events")
STANDIN = os.path.join("impl", "libuser_events_standin.so")
BUILD_TIMEOUT = 900.0  # cmake, the generator and ~30 generated files on 2 busy cores
TIMEOUT = 120.0
HEADER = "libeventheader-tracepoint/include/eventheader/TraceLoggingProvider.h"
# Line numbers: TraceLoggingProvider.h of LinuxTracepoints 9ff8fe86 (2025-03-17).

# (case, ordinal) -> (text that must appear in what differs, the reason, the source line)
DIFFERENCES: Dict[Tuple[str, int], Tuple[str, str, str]] = {}

# (case, ordinal) -> (text that must appear in the emitter's reason, the source line)
NO_CARRAY = ("no macro writes a constant-length array of",
             f"{HEADER}:858-895 (the TraceLogging*FixedArray macros: no IPv4 or GUID one) and "
             f"2129-2134 (_tlg_AssertValidPackedMetadataEncoding: TraceLoggingPackedField / "
             f"PackedMetadata refuse event_field_encoding_carray_flag)")
SKIPS: Dict[Tuple[str, int], Tuple[str, str]] = {
    ("field_types", 111): NO_CARRAY,  # ipv4_array
    ("field_types", 124): NO_CARRAY,  # guid_array
}
# The events the profile's `lacks fields>99` leaves out of make check-impl (here the emitter
# runs the whole description and says why it skips them).
TOO_MANY_ARGS = ("TraceLoggingWrite takes at most 99 arguments",
                 f"{HEADER}:373 \"Supports up to 99 args\", 1296 (_tlg_NARGS counts to 99)")
LACKED: Dict[Tuple[str, int], Tuple[str, str]] = {
    ("limits_127", o): TOO_MANY_ARGS for o in (1, 3, 4, 6)
}


@dataclass
class CaseResult:
    case: str
    events: int
    reproduced: List[int] = field(default_factory=list)
    skipped: Dict[int, str] = field(default_factory=dict)
    different: Dict[int, str] = field(default_factory=dict)  # ordinal (0: the case) -> what
    broken: str = ""


@pytest.fixture(scope="module")
def build_dir(pytestconfig):
    b = pytestconfig.getoption("--ehconf-build", default=None) or "build/gcc"
    return b if os.path.isabs(b) else os.path.join(REPO_ROOT, b)


def _checkout() -> str:
    src = os.environ.get(VARIABLE, "")
    if not src:
        pytest.skip(f"{VARIABLE} is not set: no checkout of microsoft/LinuxTracepoints to build "
                    f"the emitter against ({VARIABLE}=<path> to run these)")
    return src


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Tuple[str, str]:
    """(emitter, build folder)"""
    src = _checkout()
    out = str(tmp_path_factory.mktemp("lttp-c"))
    r = run([BUILD, os.path.abspath(src), out], BUILD_TIMEOUT, merge_stderr=False)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    assert r.returncode == 0 and os.access(last, os.X_OK), (
        f"impl/lttp-c/build {src}: {r.how() or 'no emitter path printed'}\n{r.stderr[-3000:]}")
    times = dict(re.findall(r"^lttp-c: (\w+): done in (\d+) s$", r.stderr, re.M))
    print(f"\nlttp-c: built in {r.seconds:.1f} s ("
          + ", ".join(f"{k} {v} s" for k, v in times.items()) + ")")
    return last, out


@pytest.fixture(scope="module")
def emitter(built) -> str:
    return built[0]


def _need(path: str, what: str, hint: str = "make -j2 VARIANT=gcc all") -> str:
    if not os.path.exists(path):
        pytest.skip(f"{what} {display_path(path)} is not there ({hint})")
    return path


def _cases() -> List[str]:
    return sorted(f[:-len(".json")] for f in os.listdir(os.path.join(REPO_ROOT, "golden"))
                  if f.endswith(".json"))


def _golden(case: str) -> Tuple[List[str], List[str]]:
    with open(os.path.join(REPO_ROOT, "golden", case + ".json"), encoding="utf-8",
              errors="surrogateescape") as f:
        lines = [ln for ln in f.read().split("\n") if ln.strip()]
    directives = [ln for ln in lines if ln.startswith('{"ehconf"')]
    return directives, [ln for ln in lines if not ln.startswith('{"ehconf"')]


def _order_only(directives: List[str]) -> List[str]:
    kept = []
    for line in directives:
        d = json.loads(line)["ehconf"]
        if "order" in d:
            kept.append(json.dumps({"ehconf": {"order": d["order"]}}))
    return kept


def _env(standin: str, dat: str) -> dict:
    return {"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat, "EHCONF_CAPTURE": None,
            "EHCONF_CAPTURE_TL": None}


def judge_case(case: str, emit: str, standin: str, ehdecode: str, tmp: str) -> CaseResult:
    directives, golden = _golden(case)
    res = CaseResult(case, len(golden))
    path = description_path(case)
    if path is None:
        res.broken = f"no description impl/events/{case}.events"
        return res
    dat = os.path.join(tmp, case + ".dat")
    if os.path.exists(dat):
        os.unlink(dat)
    r = run([emit, path], TIMEOUT, env=_env(standin, dat), merge_stderr=False)
    said = parse_emitter_output(r.output)
    if r.how() and r.returncode != 1 or sorted(said) != list(range(1, len(golden) + 1)):
        res.broken = (f"emit {display_path(path)}: {r.how() or 'exit status 0'}, {len(said)} of "
                      f"{len(golden)} events reported\n{r.output[-2000:]}\n{r.stderr[-2000:]}")
        return res
    written = []
    for o in sorted(said):
        state, why = said[o]
        if state == "written":
            written.append(o)
        elif state == "skipped":
            res.skipped[o] = why
        else:
            res.different[o] = f"not written: {why}"
    if not written:
        return res
    d = decode(ehdecode, dat, TIMEOUT)
    if not d.ok:
        res.different[0] = f"the capture does not decode: {d.problem}"
        return res
    decoded = [ln for ln in d.text.split("\n") if ln.strip()]
    unordered = any('"unordered"' in ln for ln in directives)
    if unordered or len(decoded) != len(written):
        c = compare("\n".join(_order_only(directives) + [golden[o - 1] for o in written]),
                    "\n".join(decoded), case, REFERENCE)
        if c.ok:
            res.reproduced = written
        else:
            res.different[0] = c.message
        return res
    for o, line in zip(written, decoded):
        c = compare(golden[o - 1], line, case, REFERENCE)
        if c.ok:
            res.reproduced.append(o)
        else:
            res.different[o] = c.message
    return res


@pytest.fixture(scope="module")
def results(emitter, build_dir, tmp_path_factory) -> Dict[str, CaseResult]:
    standin = _need(os.path.join(build_dir, STANDIN), "the stand-in")
    ehdecode = _need(os.path.join(build_dir, "bin", "ehdecode"), "the decoder")
    tmp = str(tmp_path_factory.mktemp("lttp-c-cases"))
    return {case: judge_case(case, emitter, standin, ehdecode, tmp) for case in _cases()}


def _short(text: str) -> str:
    return " | ".join(ln.strip() for ln in text.splitlines() if ln.strip())[:400]


# ---- the build script, without a checkout ----------------------------------------------------

def test_build_refuses_a_folder_that_is_not_linuxtracepoints(tmp_path):
    src = tmp_path / "not-lttp"
    src.mkdir()
    (src / "CMakeLists.txt").write_text("project(other)\n")
    r = run([BUILD, str(src), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    assert r.stderr.splitlines() == [
        f"lttp-c: build: IMPL_SRC={src} is not microsoft/LinuxTracepoints (no {HEADER})"], r.stderr
    assert not (tmp_path / "out").exists(), "nothing is built for a wrong checkout"


def test_build_refuses_a_missing_folder(tmp_path):
    r = run([BUILD, str(tmp_path / "nowhere"), str(tmp_path / "out")], 60, merge_stderr=False)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert "lttp-c: build:" in r.stderr and "is not microsoft/LinuxTracepoints" in r.stderr


def test_build_failure_is_one_line_naming_the_stage(tmp_path):
    src = tmp_path / "broken"
    (src / os.path.dirname(HEADER)).mkdir(parents=True)
    (src / HEADER).write_text("#error not really\n")
    (src / "libtracepoint" / "include").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text('message(FATAL_ERROR "broken on purpose")\n')
    out = tmp_path / "out"
    r = run([BUILD, str(src), str(out)], 120, merge_stderr=False)
    assert r.returncode == 1 and r.output == "", r.how()
    failed = [ln for ln in r.stderr.splitlines() if "failed" in ln]
    assert failed == [f"lttp-c: build: configure failed (log: {out}/configure.log)"], r.stderr
    assert r.stderr.splitlines()[-1] == failed[0]


def test_build_usage():
    r = run([BUILD], 60, merge_stderr=False)
    assert r.returncode == 2 and r.stderr.startswith("usage: impl/lttp-c/build"), r.stderr


# ---- the emitter's input ------------------------------------------------------------------------

def _emit(emitter: str, path, env=None):
    return run([emitter, str(path)], TIMEOUT, merge_stderr=False, env=env or {})


def test_stale_description_is_refused(emitter, tmp_path):
    """A description changed since the build (one value): one line on stderr, exit 2,
    nothing printed or written."""
    with open(os.path.join(EVENTS_DIR, "attributes.events"), encoding="utf-8") as f:
        text = f.read()
    assert "  u8 level 03\n" in text
    path = tmp_path / "attributes.events"
    path.write_text(text.replace("  u8 level 03\n", "  u8 level 04\n", 1))
    dat = tmp_path / "stale.dat"
    r = _emit(emitter, path, {"EHCONF_STANDIN_CAPTURE": str(dat)})
    assert r.returncode == 2, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert r.output == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:") and "changed since the build" \
        in lines[0], r.stderr
    assert not dat.exists()


@pytest.mark.parametrize("text,what", [
    ("provider P\n", "the first statement must be `case <name>`"),
    ("case no_such_case\n", "case no_such_case is not built into this emitter"),
    ("case attributes\nprovider EhconfAttributes\n", "changed since the build"),
])
def test_unusable_file_is_one_line(emitter, tmp_path, text, what):
    path = tmp_path / "x.events"
    path.write_text(text)
    r = _emit(emitter, path)
    assert r.returncode == 2 and r.output == "", r.how()
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:") and what in lines[0], r.stderr


def test_left_out_events_are_renumbered(emitter, build_dir, tmp_path):
    """The runner hands the emitter the description without the events the profile lacks:
    accepted, and the events are numbered as in the file it read."""
    standin = _need(os.path.join(build_dir, STANDIN), "the stand-in")
    desc = read_description(os.path.join(EVENTS_DIR, "limits_127.events"))
    path = tmp_path / "limits_127.events"
    path.write_text(without_events(desc, {1, 3, 4, 6}))
    r = _emit(emitter, path, _env(standin, str(tmp_path / "l.dat")))
    assert r.returncode == 0, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert parse_emitter_output(r.output) == {1: ("written", ""), 2: ("written", "")}


MALFORMED = {
    "no case line": ("provider P\n", 1),
    "unknown statement": ("case c\nprovider P\nregister\nfrobnicate\n", 4),
    "odd hex": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u8 a 012\nend\n", 5),
    "wrong size": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u32 a 01\nend\n", 5),
    "unknown type": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n u7 a 01\nend\n", 5),
    "NUL in a name": ("case c\nprovider P\nregister\nevent E%00 level=1 keyword=0x1\nend\n", 4),
    "element count": ("case c\nprovider P\nregister\nevent E level=1 keyword=0x1\n"
                      " struct_slice s 2\n  element\n   u8 a 01\n  end\n end\nend\n", 5),
    "event before provider": ("case c\nevent E level=1 keyword=0x1\nend\n", 2),
}


@pytest.mark.parametrize("what", sorted(MALFORMED))
def test_generator_refuses_a_malformed_description(built, tmp_path, what):
    """impl/lttp-c/gen on a description it cannot parse: `file:line: reason`, exit 2."""
    text, line = MALFORMED[what]
    gen = os.path.join(built[1], "gen")
    path = tmp_path / "bad.events"
    path.write_text(text)
    src = os.path.join(os.path.abspath(_checkout()), HEADER)
    r = run([gen, os.path.join(EVENTS_DIR, "types.txt"), src, str(path), str(tmp_path)],
            TIMEOUT, merge_stderr=False)
    assert r.returncode == 2, f"{what}: {r.how()}\n{r.stderr}"
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: "), r.stderr


# ---- the results ---------------------------------------------------------------------------------

def test_every_case_runs(results):
    broken = {c: r.broken for c, r in results.items() if r.broken}
    assert not broken, "\n".join(f"{c}: {why}" for c, why in broken.items())


def test_differences_are_the_declared_ones(results, capsys):
    with capsys.disabled():
        print("\nlttp-c (TraceLoggingProvider.h) per case: reproduced / skipped / different")
        for r in results.values():
            print(f"  {r.case}: {len(r.reproduced)} reproduced, {len(r.skipped)} skipped, "
                  f"{len(r.different)} different, of {r.events}")
    seen = {(c, o): what for c, r in results.items() for o, what in r.different.items()}
    problems = [f"undeclared difference {k[0]} event {k[1] or '(case)'}: {_short(w)}"
                for k, w in sorted(seen.items()) if k not in DIFFERENCES]
    problems += [f"declared difference {k} not seen" for k in sorted(set(DIFFERENCES) - set(seen))]
    assert not problems, "\n".join(problems)


def test_skips_are_the_declared_ones(results):
    want = {**SKIPS, **LACKED}
    seen = {(c, o): why for c, r in results.items() for o, why in r.skipped.items()}
    problems = [f"undeclared skip {k[0]} event {k[1]}: {why}" for k, why in sorted(seen.items())
                if k not in want]
    problems += [f"{k[0]} event {k[1]}: expected {want[k][0]!r} in: {why}"
                 for k, why in sorted(seen.items()) if k in want and want[k][0] not in why]
    problems += [f"declared skip {k} not seen" for k in sorted(set(want) - set(seen))]
    assert not problems, "\n".join(problems)


def test_every_golden_event_is_accounted_for(results):
    for r in results.values():
        if not r.broken:
            counted = len(r.reproduced) + len(r.skipped) + len([o for o in r.different if o])
            assert counted == r.events or 0 in r.different, f"{r.case}: {counted} of {r.events}"


def test_profile_declares_the_same():
    """impl/lttp-c/profile.txt: the skips as `differs`, the >99-argument events as
    `lacks fields>99`, nothing else."""
    impl = [i for i in read_registry() if i.name == "lttp-c"]
    assert impl, "impl/implementations.txt has no lttp-c row"
    profile = read_profile(impl[0])
    assert set(profile.differs) == set(DIFFERENCES) | set(SKIPS)
    lacked = set()
    for case in _cases():
        path = description_path(case)
        if path:
            lacked |= {(case, o) for o, (_, _, needs) in
                       enumerate(read_description(path).events, 1) if needs & set(profile.lacks)}
    assert lacked == set(LACKED), sorted(lacked ^ set(LACKED))


def test_ipv6_is_written_with_the_obsolete_format(emitter, build_dir, tmp_path):
    """TraceLoggingIPv6Address (TraceLoggingProvider.h:831) writes event_field_format_ipv6,
    which eventheader.h:679 defines as ip_address_obsolete (18), where ehconf writes
    ip_address (17). Decoders show both alike, so golden/ cannot see it: ehdescribe, which
    reads the metadata bytes, does (raw:06:12 rather than ipv6)."""
    standin = _need(os.path.join(build_dir, STANDIN), "the stand-in")
    ehdescribe = _need(os.path.join(build_dir, "bin", "ehdescribe"), "ehdescribe")
    dat = tmp_path / "ft.dat"
    r = _emit(emitter, os.path.join(EVENTS_DIR, "field_types.events"), _env(standin, str(dat)))
    assert r.returncode == 1, r.how()  # the two skips
    d = run([ehdescribe, str(dat)], TIMEOUT, merge_stderr=False)
    assert d.returncode == 0, d.how()
    ipv6 = [w for w in (ln.split() for ln in d.output.splitlines())
            if w[1:2] in (["ipv6"], ["ipv6c"]) and w[0] != "event"]
    # 20 ipv6 and ipv6c fields, and format_override's raw:06:12 (already 18 in golden/)
    assert len(ipv6) == 21 and all(w[0] == "raw:06:12" for w in ipv6), ipv6[:3]
