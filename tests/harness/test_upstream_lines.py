# SPDX-License-Identifier: GPL-2.0
"""Each declaration of a crate-registry producer says where each pinned release it holds for
makes the behaviour (issue 40 item 3): an indented `upstream <V> <place>...` line per release
(harness/impl/registry.py read_profile). Shown here:
  * the parser rejects a line for a version the crate column does not pin, for a pinned one
    the declaration does not hold for, twice the same version, a malformed place, one outside
    a crate-registry producer's profile or under no declaration, and a declaration missing a
    version it holds for;
  * every committed place names, for a dependency, the version that release's Cargo.lock
    pins (that each file has the lines cited: test_upstream_sources.py, in make test-impls);
  * the runner hands the run's release's line to the report as the item's fact "upstream",
    the judge writes it into the JUnit file, and impls.md's versions table shows each
    version's line from there: a JUnit file changed by hand changes the table."""

from __future__ import annotations

import os
import re

import pytest

import harness.impl.registry as registry
from harness.core.results import check_entry, write_summary
from harness.impl.registry import CRATES, read_profile, read_registry, resolve
from harness.impl.run_impl import upstream_facts
from harness.reports.impls_md import report
from test_impl_report import junit

ROWS = [i for i in read_registry() if i.checkout == CRATES]
LOGS = "opentelemetry-user-events-logs"


def profile_of(tmp_path, monkeypatch, name: str, text: str, check: bool = True):
    impl = resolve(name)
    folder = tmp_path / "impl" / impl.base
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "profile.txt").write_text(text)
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    return impl, read_profile(impl, check)


GOOD = ('refuses limits 4 L3 panics\n    ["failed", "panicked: x"]\n'
        '    upstream 0.16.0 src/logs/exporter.rs:299,314,332 eventheader_dynamic@0.5.0/src/builder.rs:429-444\n'
        '    upstream 0.18.0 src/logs/exporter.rs:303,330,336\n'
        'loses@0.18.0 limits 2 only the newest\n    upstream 0.18.0 src/logs/exporter.rs:284\n'
        'contract perf ok 1 none sent 0 | L5\n    upstream 0.16.0 src/logs/exporter.rs:280\n'
        '    upstream 0.18.0 src/logs/exporter.rs:284\n')


@pytest.mark.parametrize("version,want", [
    ("0.16.0", {"limits/4": "src/logs/exporter.rs:299,314,332, eventheader_dynamic@0.5.0/src/builder.rs:429-444",
                "contract/perf": "src/logs/exporter.rs:280"}),
    ("0.18.0", {"limits/4": "src/logs/exporter.rs:303,330,336", "limits/2": "src/logs/exporter.rs:284",
                "contract/perf": "src/logs/exporter.rs:284"}),
    ("0.17.0", {})])  # unpinned: it runs, but no release line is stated for it
def test_each_release_has_its_own_line(tmp_path, monkeypatch, version, want):
    _, p = profile_of(tmp_path, monkeypatch, f"otel-logs@{version}", GOOD)
    assert p.upstream == want


@pytest.mark.parametrize("text,error", [
    # a release the crate column does not pin
    ('loses limits 2 x\n    upstream 0.16.0 a.rs:1\n    upstream 0.18.0 a.rs:1\n'
     '    upstream 0.17.0 a.rs:1\n', "does not pin opentelemetry-user-events-logs@0.17.0"),
    # a pinned release the declaration does not hold for
    ('loses@0.18.0 limits 2 x\n    upstream 0.18.0 a.rs:1\n    upstream 0.16.0 a.rs:1\n',
     "holds for 0.18.0, not 0.16.0"),
    # a release the declaration holds for, without its line
    ('loses limits 2 x\n    upstream 0.18.0 a.rs:1\n', "holds for 0.16.0, 0.18.0 but states no "
     "`upstream 0.16.0"),
    ('contract perf ok | x\n', "contract/perf holds for 0.16.0, 0.18.0 but states no"),
    ('alters z PartA/time (.*)Z => \\1+00:00 | why\n    upstream 0.16.0 a.rs:1\n',
     "alters/z holds for 0.16.0, 0.18.0 but states no `upstream 0.18.0"),
    ('differs@0.17.0+ limits 2 x\n    ["drop", "a"]\n    upstream 0.16.0 a.rs:1\n',
     "holds for 0.17.0\\+, not 0.16.0"),
    ('loses limits 2 x\n    upstream 0.16.0 a.rs:1\n    upstream 0.16.0 a.rs:2\n', "stated twice"),
    ('loses limits 2 x\n    upstream 0.16.0 /abs/a.rs:1\n', "is not <file>:<line>"),
    ('loses limits 2 x\n    upstream 0.16.0 ../a.rs:1\n', "is not <file>:<line>"),
    ('loses limits 2 x\n    upstream 0.16.0 src/a.rs\n', "is not <file>:<line>"),
    ('loses limits 2 x\n    upstream 0.16.0 dep@1.0/src/a.rs:3\n', "is not <file>:<line>"),
    ('loses limits 2 x\n    upstream 0.16.0\n', "expected `upstream <V>"),
    ('loses limits 2 x\n    upstream latest a.rs:1\n', "expected `upstream <V>"),
    ('    upstream 0.16.0 a.rs:1\n', "belongs under a differs"),
    ('lacks widgets none here\n    upstream 0.16.0 a.rs:1\n', "belongs under a differs"),
])
def test_a_malformed_upstream_line_is_rejected(tmp_path, monkeypatch, text, error):
    with pytest.raises(ValueError, match=error):
        profile_of(tmp_path, monkeypatch, "otel-logs", text)


def test_a_declaration_left_out_of_this_run_is_still_checked(tmp_path, monkeypatch):
    """Run at 0.16.0, a declaration of 0.18.0 only is left out, and still read whole."""
    with pytest.raises(ValueError, match="does not pin"):
        profile_of(tmp_path, monkeypatch, "otel-logs@0.16.0",
                   'loses@0.18.0 limits 2 x\n    upstream 0.18.0 a.rs:1\n    upstream 0.19.0 a.rs:1\n')


def test_only_a_crates_row_states_release_lines(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="only a crate-registry producer"):
        profile_of(tmp_path, monkeypatch, "lttp-c", 'loses structs 2 x\n    upstream 1.0.0 a.c:1\n')


def test_check_false_reads_a_declaration_without_its_lines(tmp_path, monkeypatch):
    """What harness/impl/observed_patch.py reads while a declaration is being written."""
    _, p = profile_of(tmp_path, monkeypatch, "otel-logs", 'loses limits 2 x\n', check=False)
    assert set(p.loses) == {("limits", 2)} and p.upstream == {}


def _lock(row, version: str) -> dict:
    folder = row.folder if version == row.crate_versions[0] else \
        os.path.join(row.folder, "versions", version)
    with open(os.path.join(folder, "Cargo.lock"), encoding="utf-8") as f:
        return {(n, v) for n, v in re.findall(r'name = "([^"]+)"\nversion = "([^"]+)"', f.read())}


PLACES = [(row, v, key, place) for row in ROWS for v in row.crate_versions
          for key, places in read_profile(resolve(f"{row.name}@{v}")).upstream.items()
          for place in places.split(", ")]


def test_every_declaration_of_every_pinned_release_states_its_line():
    """Not one declaration of the four producers is left without its releases' lines
    (read_profile rejects it), and each release has some."""
    for row in ROWS:
        for v in row.crate_versions:
            p = read_profile(resolve(f"{row.name}@{v}"))
            held = set(p.versions) | {f"contract/{r}" for r in p.contract}
            assert held <= set(p.upstream), (row.name, v, held - set(p.upstream))


DEPENDENCY = re.compile(r"([A-Za-z0-9_-]+)@([0-9.]+)/(.*)")


@pytest.mark.parametrize("row,version,key,place", [x for x in PLACES if DEPENDENCY.match(x[3])],
                         ids=[f"{r.name}@{v}:{k}:{p}" for r, v, k, p in PLACES
                              if DEPENDENCY.match(p)])
def test_a_dependencys_place_names_the_version_that_release_locks(row, version, key, place):
    """A place in a dependency names the version that release's Cargo.lock pins (whether
    the cited lines are there is tests/harness/test_upstream_sources.py's, in make
    test-impls: it needs the published sources, which make check-impl fetches)."""
    m = DEPENDENCY.match(place)
    assert (m.group(1), m.group(2)) in _lock(row, version), \
        f"{place}: {row.name}@{version}'s Cargo.lock does not pin {m.group(1)} {m.group(2)}"


def test_the_runner_hands_the_line_to_the_report_as_a_fact(tmp_path, monkeypatch):
    impl, p = profile_of(tmp_path, monkeypatch, "otel-logs@0.18.0", GOOD)
    entries = upstream_facts(impl, p, [
        check_entry("impl/otel-logs@0.18.0/limits/4", "xfail", "L3"),
        check_entry("impl/otel-logs@0.18.0/limits/3", "pass", "", {"events": 5}),
        check_entry("impl-vm/otel-logs@0.18.0/contract/perf", "xfail", "L5", {"observed": "x"})])
    assert entries[0]["facts"] == {"upstream": "src/logs/exporter.rs:303,330,336"}
    assert entries[1]["facts"] == {"events": 5}  # no declaration: no line
    assert entries[2]["facts"] == {"observed": "x", "upstream": "src/logs/exporter.rs:284"}


def _findings(tmp_path):
    """otel-logs at its own release and at 99.0.0, judged by a real pytest into JUnit files
    (as make check-impl does), the first with an upstream fact per declared item."""
    (otel,) = [i for i in ROWS if i.name == "otel-logs"]
    results = str(tmp_path / "results")

    def run(name, entries):
        write_summary(os.path.join(results, f"impl-{name}"), "impl", "x", entries, 1,
                      {"implementation": name})
        junit(tmp_path, results, name, ("impl",))

    run("otel-logs", [
        check_entry("impl/otel-logs/limits/2", "xfail", "L4", {"upstream": "src/logs/exporter.rs:170"}),
        check_entry("impl/otel-logs/limits/4", "xfail", "L3", {"upstream": "src/logs/exporter.rs:299,314"})])
    run("otel-logs@99.0.0", [
        check_entry("impl/otel-logs@99.0.0/limits/2", "xfail", "L4", {"upstream": "src/logs/exporter.rs:175"}),
        check_entry("impl/otel-logs@99.0.0/limits/4", "pass")])
    return otel.crate_versions[0]


def _section(tmp_path) -> str:
    text = report(str(tmp_path / "impl"), ["otel-logs"], False)
    return text.split("## Versions side by side", 1)[1].split("\n## ", 1)[0]


def test_the_findings_table_shows_each_versions_line(tmp_path):
    own = _findings(tmp_path)
    sec = _section(tmp_path)
    assert f"| item | {own} | 99.0.0 | status | reason (the newest release showing it) |" in sec
    assert ("| impl/otel-logs/limits/2 | **xfail** · src/logs/exporter.rs:170 | **xfail** · "
            "src/logs/exporter.rs:175 | still in the newest | L4 |") in sec
    assert ("| impl/otel-logs/limits/4 | **xfail** · src/logs/exporter.rs:299,314 | pass | "
            "fixed in 99.0.0 | L3 |") in sec


def test_a_finding_declared_on_one_release_only_shows_fixed_in_the_next(tmp_path):
    """otel-trace's T5 loss is declared `loses@0.5.0`: 0.6.0 has no item for that event, which
    its input's item judged with the rest; the table says so, and that it is fixed there."""
    results = str(tmp_path / "results")
    new = "impl/otel-logs@99.0.0"
    for name, entries in (
            ("otel-logs", [check_entry("impl/otel-logs/limits/4", "xfail", "T5 lost",
                                       {"upstream": "src/trace/reentrant_spanprocessor.rs:34-35"}),
                           check_entry("impl/otel-logs/limits", "pass")]),
            ("otel-logs@99.0.0", [check_entry(f"{new}/limits", "pass")])):
        write_summary(os.path.join(results, f"impl-{name}"), "impl", "x", entries, 1,
                      {"implementation": name})
        junit(tmp_path, results, name, ("impl",))
    sec = _section(tmp_path)
    assert ("| impl/otel-logs/limits/4 | **xfail** · src/trace/reentrant_spanprocessor.rs:34-35 | "
            "pass (with its input) | fixed in 99.0.0 | T5 lost |") in sec
    assert "0 were judged on one version only" in sec
    # the input failed on the newer release: then the finding is not called fixed
    xml = tmp_path / "impl-otel-logs@99.0.0.xml"
    s, n = re.subn(r'(name="' + re.escape(new) + r'/limits"[^>]*?)\s*/>',
                   r'\1><failure message="x">x</failure></testcase>', xml.read_text())
    assert n == 1
    xml.write_text(s)
    sec = _section(tmp_path)
    assert "| **fail** (with its input) | **FAILED on 99.0.0** |" in sec


def test_a_line_changed_in_the_junit_file_changes_the_table(tmp_path):
    """The table is the JUnit file's: a fact edited by hand there is what it shows, and a fact
    taken out leaves the outcome alone in its cell."""
    _findings(tmp_path)
    xml = tmp_path / "impl-otel-logs@99.0.0.xml"
    s = xml.read_text()
    assert 'value="src/logs/exporter.rs:175"' in s
    xml.write_text(s.replace('value="src/logs/exporter.rs:175"', 'value="src/logs/other.rs:9"'))
    sec = _section(tmp_path)
    assert "**xfail** · src/logs/other.rs:9 | still in the newest" in sec
    assert "exporter.rs:175" not in sec
    xml.write_text(re.sub(r'<property name="upstream" value="[^"]*"\s*/>', "", s))
    sec = _section(tmp_path)
    assert "| **xfail** · src/logs/exporter.rs:170 | **xfail** | still in the newest |" in sec
