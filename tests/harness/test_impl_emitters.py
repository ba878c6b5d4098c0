# SPDX-License-Identifier: GPL-2.0
"""What every implementation under test must do, for each row of impl/implementations.txt
with a build script (the tests of one implementation's own edges are in
test_impl_<name>.py):

  its build script refuses bad input with one line: a folder that is not the
  implementation or a missing one (exit 1, nothing built), no arguments (usage, exit 2),
  a checkout that looks right but does not build (the stage and its log);

  with its checkout (IMPL_SRC_<checkout>), built once per session and judged by
  harness/run_impl.run_impl (the judge of make check-impl): nothing fails, every
  difference impl/<name>/profile.txt declares still shows (xfail), and every golden event
  is reproduced, left out (a lacked feature) or declared;

  its description parser (the emitter, or the generator of a macro API) refuses each
  malformed snippet of tests/desc-format/ with the one `file:line: reason` the snippet
  gives, exit 2, nothing written.

Without a checkout those tests skip with one line naming the variable to pass.

Run: IMPL_SRC_LTTP=... IMPL_SRC_RUST=... /usr/bin/python3 -m pytest -q \\
         tests/harness/test_impl_emitters.py
"""

from __future__ import annotations

import glob
import os
import re

import pytest

from desc_snippets import malformed
from impl_emitters import (BUILD_TIMEOUT, PARSERS, build_script, declared_not_shown,
                           ehconf_build, golden_failures, judged, standin_of, table,
                           unaccounted, with_build_script)
from harness.core.processes import run
from harness.core.standin import standin_env

IMPLS = with_build_script()
BY_NAME = {i.name: i for i in IMPLS}
each_impl = pytest.mark.parametrize("name", [i.name for i in IMPLS])


# ---- the build script's bad input (no checkout needed) --------------------------------------

def _other_project(folder):
    """A checkout of something else, with the top-level files both upstreams have."""
    folder.mkdir()
    (folder / "CMakeLists.txt").write_text("project(other)\n")
    (folder / "Cargo.toml").write_text("[workspace]\n")
    for d in ("eventheader", "eventheader_dynamic", "libeventheader-tracepoint"):
        (folder / d).mkdir()
    return folder


def _not_it(name: str, src) -> re.Pattern:
    impl = BY_NAME[name]
    # A row without an upstream builds ehconf's own library (impl/ehconf-macros).
    upstream = impl.upstream if impl.upstream != "-" else "ehconf's lib/eventheader"
    return re.compile(rf"{re.escape(name)}: build: IMPL_SRC={re.escape(str(src))} is not "
                      rf"{re.escape(upstream)} \(no \S.*\)")


@each_impl
def test_build_refuses_a_folder_that_is_not_the_implementation(name, tmp_path):
    src = _other_project(tmp_path / "other")
    r = run([build_script(BY_NAME[name]), str(src), str(tmp_path / "out")], 60,
            merge_stderr=False)
    assert r.returncode == 1, r.how()
    assert r.output == "", r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and _not_it(name, src).fullmatch(lines[0]), r.stderr
    assert not (tmp_path / "out").exists(), "nothing is built for a wrong checkout"


@each_impl
def test_build_refuses_a_missing_folder(name, tmp_path):
    src = tmp_path / "nowhere"
    r = run([build_script(BY_NAME[name]), str(src), str(tmp_path / "out")], 60,
            merge_stderr=False)
    assert r.returncode == 1 and r.output == "", r.how()
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and _not_it(name, src).fullmatch(lines[0]), r.stderr


@each_impl
def test_build_usage(name):
    r = run([build_script(BY_NAME[name])], 60, merge_stderr=False)
    assert r.returncode == 2 and r.stderr.startswith(f"usage: impl/{name}/build"), r.stderr


def _broken_lttp(src):
    """LinuxTracepoints' layout, whose CMakeLists.txt fails: the configure stage."""
    header = src / "libeventheader-tracepoint" / "include" / "eventheader"
    header.mkdir(parents=True)
    for h in ("EventHeaderDynamic.h", "TraceLoggingProvider.h"):
        (header / h).write_text("#error not really\n")
    (src / "libtracepoint" / "include").mkdir(parents=True)
    (src / "CMakeLists.txt").write_text('message(FATAL_ERROR "broken on purpose")\n')
    return "configure", "configure.log", "broken on purpose"


def _broken_rust(src):
    """LinuxTracepoints-Rust's layout, whose crates do not compile: the cargo stage."""
    for crate, marker in (("eventheader_dynamic", "builder.rs"),
                          ("eventheader", "lib.rs"), ("eventheader_macros", "event_generator.rs")):
        (src / crate / "src").mkdir(parents=True)
        (src / crate / "Cargo.toml").write_text(
            f'[package]\nname = "{crate}"\nversion = "0.5.0"\nedition = "2021"\n')
        (src / crate / "src" / "lib.rs").write_text("this is not rust\n")
        (src / crate / "src" / marker).write_text("\n")
    return "cargo", "cargo.log", "error"


def _broken_ehconf(src):
    """ehconf's lib/eventheader layout, whose sources do not compile: the library stage."""
    for d, f in (("include", "eventheader.h"), ("include", "eh_field_types.def"),
                 ("src", "event_static.c")):
        (src / d).mkdir(parents=True, exist_ok=True)
        (src / d / f).write_text("#error broken on purpose\n")
    return "library", "library.log", "broken on purpose"


# checkout variable suffix -> a tree that looks like that upstream but does not build
BROKEN = {"LTTP": _broken_lttp, "RUST": _broken_rust, "EHCONF": _broken_ehconf}


@each_impl
def test_build_failure_is_one_line_naming_the_stage_and_log(name, tmp_path):
    impl = BY_NAME[name]
    if impl.checkout not in BROKEN:
        pytest.skip(f"no broken {impl.upstream} tree to try impl/{name}/build on")
    if impl.checkout == "RUST" and not (os.access("/usr/bin/cargo", os.X_OK) and
                                        glob.glob("/usr/share/cargo/registry/libc-0.2.*")):
        pytest.skip("/usr/bin/cargo or Debian's libc crate is not installed (make deps: "
                    "cargo-web, librust-libc-dev)")
    src, out = tmp_path / "broken", tmp_path / "out"
    stage, log, says = BROKEN[impl.checkout](src)
    r = run([build_script(impl), str(src), str(out)], BUILD_TIMEOUT, merge_stderr=False)
    assert r.returncode == 1 and r.output == "", f"{r.how()}\n{r.output}"
    failed = [ln for ln in r.stderr.splitlines() if "failed" in ln]
    assert failed == [f"{name}: build: {stage} failed (log: {out}/{log})"], r.stderr
    assert r.stderr.splitlines()[-1] == failed[0]
    with open(out / log, encoding="utf-8") as f:
        assert says in f.read()


# ---- every case, judged by run_impl ---------------------------------------------------------

@each_impl
def test_no_golden_event_fails(name, pytestconfig, tmp_path_factory, capsys):
    j = judged(BY_NAME[name], pytestconfig, tmp_path_factory)
    with capsys.disabled():
        print("\n" + table(j))
    problems = golden_failures(j)
    assert not problems, "\n".join(problems)


@each_impl
def test_every_declared_difference_shows(name, pytestconfig, tmp_path_factory):
    problems = declared_not_shown(judged(BY_NAME[name], pytestconfig, tmp_path_factory))
    assert not problems, "\n".join(problems)


@each_impl
def test_every_golden_event_is_accounted_for(name, pytestconfig, tmp_path_factory):
    """reproduced + left out + declared = the golden events, for every case."""
    problems = unaccounted(judged(BY_NAME[name], pytestconfig, tmp_path_factory))
    assert not problems, "\n".join(problems)


# ---- descriptions its parser must refuse ---------------------------------------------------

MALFORMED = malformed()


# Only the implementations that read case descriptions (the registry's parser column is
# not "-": a producer with inputs of its own has nothing to refuse here).
@pytest.mark.parametrize("name", [i.name for i in IMPLS if i.parser != "-"])
@pytest.mark.parametrize("snippet", MALFORMED, ids=[m.name for m in MALFORMED])
def test_malformed_description(name, snippet, pytestconfig, tmp_path_factory, tmp_path):
    """`file:line: reason` on stderr, exactly as the snippet says, exit 2, nothing on stdout
    or captured, never a crash."""
    kind = BY_NAME[name].parser
    assert kind in PARSERS, (f"impl/implementations.txt: {name}'s parser {kind!r} is none of "
                             f"{', '.join(PARSERS)}")
    parser = PARSERS[kind]
    j = judged(BY_NAME[name], pytestconfig, tmp_path_factory)
    path = parser.place(str(tmp_path))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(snippet.text)
    dat = tmp_path / "bad.dat"
    r = run(parser.argv(j, path, str(tmp_path)), BUILD_TIMEOUT, merge_stderr=False,
            env=_captured(j, parser, str(dat), str(tmp_path)))
    assert r.returncode == 2, f"{snippet.name}: {r.how()}\n{r.output}\n{r.stderr}"
    assert r.output == "", r.output
    assert r.stderr.splitlines() == [snippet.refusal(path)], r.stderr
    assert not dat.exists()


def _captured(j, parser, dat: str, scratch: str):
    """Under the stand-in, as a real run is: an emitter that wrote an event before refusing
    its input would leave a capture behind."""
    return _under_standin(j.standin, dat, parser.env(j, scratch))


def _under_standin(standin: str, dat: str, extra):
    return {**standin_env(standin, dat), **extra}


def test_the_malformed_runs_would_see_a_capture(pytestconfig, tmp_path):
    """The environment test_malformed_description runs in captures what an emitter writes:
    the reference emitter (built by make) given a good description leaves the capture the
    refusals must not (so `assert not dat.exists()` there can fail)."""
    build = ehconf_build(pytestconfig)
    emitter = os.path.join(build, "impl", "ehconf", "emit")
    if not os.access(emitter, os.X_OK):
        pytest.skip(f"{emitter} is not built (make VARIANT={os.path.basename(build)} all)")
    good = tmp_path / "good.events"
    good.write_text("case good\nprovider EhconfGood\nregister\n"
                    "event E level=4 keyword=0x1\n  u8 x 01\nend\n")
    dat = tmp_path / "good.dat"
    r = run([emitter, str(good)], BUILD_TIMEOUT, merge_stderr=False,
            env=_under_standin(standin_of(build), str(dat), {}))
    assert r.returncode == 0, f"{r.how()}\n{r.output}\n{r.stderr}"
    assert dat.exists() and dat.stat().st_size > 0
