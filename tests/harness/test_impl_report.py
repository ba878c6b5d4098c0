# SPDX-License-Identifier: GPL-2.0
"""impls.md is rendered from the JUnit files alone (harness/reports/impls_md.py,
harness/reports/junit.py; the judge harness/core/pytest_plugin.py writes the facts).

Result files are made here for two registered implementations, a real pytest judges them
into JUnit files as `make check-impl` does, and the report is rendered from those files:
  * every item of the report is the JUnit file's, with its outcome, and a JUnit file
    changed by hand changes the report (it reads nothing else);
  * a contract row whose observation is the promise but whose item failed (the profile
    declares something else) shows as a failure, not as plain text;
  * an offline "declared difference not seen" is a failure in the report's differences;
  * a run of one implementation labels the other's rows as an earlier run;
  * a case whose golden comparison fails on one event counts one failed event, not all;
  * the provenance counts per implementation are those of the provenance files
    (harness/core/provenance.py), and a changed or missing file shows in the row.
"""

from __future__ import annotations

import os
import shutil

from harness.core.common import REPO_ROOT
from harness.impl.contract_rows import BY_NAME, ROWS
from harness.reports.impls_md import provenance_table, report
from harness.impl.registry import read_registry
from harness.core.provenance import family_inputs, read_family
from harness.reports.items import read_section
from harness.reports.junit import read
from harness.core.results import check_entry, golden_entry, write_summary
from test_results_plugin import pytest_in_checkout

GOLDEN = ['{ "n": "P:A", "x": 1, "meta": { "level": 4 } }',
          '{ "n": "P:B", "x": 2, "meta": { "level": 4 } }',
          '{ "n": "P:C", "x": 3, "meta": { "level": 4 } }']


def offline(results, name, entries):
    write_summary(os.path.join(results, f"impl-{name}"), "impl", "x", entries, 1,
                  {"implementation": name, "checkout": "/src", "commit": "abc"})


def make_results(tmp_path, bad_event=False):
    results = str(tmp_path / "results")
    folder = os.path.join(results, "impl-lttp-c")
    os.makedirs(folder)
    with open(os.path.join(folder, "case.expected.json"), "w") as f:
        f.write("\n".join(GOLDEN) + "\n")
    got = list(GOLDEN)
    if bad_event:
        got[1] = got[1].replace('"x": 2', '"x": 20')
    with open(os.path.join(folder, "case.json"), "w") as f:
        f.write("\n".join(got) + "\n")
    case = golden_entry("impl/lttp-c/case", "case", "offline", "case.json",
                        os.path.join(folder, "case.expected.json"))
    case["facts"] = {"events": 5, "left_out": 0, "compared": 3}  # run_impl._case_facts
    offline(results, "lttp-c", [
        check_entry("impl/lttp-c/build", "pass", "built"),
        check_entry("impl/lttp-c/case/7", "fail", "declared difference not seen: event 7 "
                    "matches golden now"),
        check_entry("impl/lttp-c/case/8", "xfail", "declared: why"),
        case])
    vm_entries = [check_entry(f"impl-vm/lttp-c/contract/{r.name}", "pass", "",
                              {"observed": r.promise}) for r in ROWS]
    # The profile declared something else, so the promise observed is a failure.
    vm_entries[0] = check_entry(f"impl-vm/lttp-c/contract/{ROWS[0].name}", "fail",
                                "observed the promise; impl/lttp-c/profile.txt declares 'x'",
                                {"observed": ROWS[0].promise})
    write_summary(os.path.join(results, "impl-vm", "lttp-c"), "impl-vm", "x", vm_entries, 1,
                  {"implementation": "lttp-c", "kernel": "6.12.117"})
    # An earlier run of another implementation.
    offline(results, "ehconf", [check_entry("impl/ehconf/build", "pass", "")])
    return results


def junit(tmp_path, results, name, runners=("impl", "impl-vm")):
    xml = tmp_path / f"impl-{name}.xml"
    args = ["harness/core/judge_items.py", "--ehconf-impl", name,
            "--ehconf-results", results, f"--junitxml={xml}"]
    for r in runners:
        args += ["--ehconf-runner", r]
    p = pytest_in_checkout(args)
    assert xml.exists(), p.stdout
    return str(xml)


def rendered(tmp_path, bad_event=False) -> str:
    """make check-impl's last two steps for lttp-c: its JUnit file, then impls.md from the
    JUnit files (ehconf's left by an earlier run)."""
    results = make_results(tmp_path, bad_event)
    junit(tmp_path, results, "lttp-c")
    junit(tmp_path, results, "ehconf", ("impl",))
    return report(str(tmp_path / "impl"), ["lttp-c"], True)


def test_the_report_lists_the_junit_items_with_their_outcomes(tmp_path):
    text = rendered(tmp_path, bad_event=True)
    items = read_section(text)
    for name in ("lttp-c", "ehconf"):
        want = {i.ident: i.outcome for i in read(str(tmp_path / f"impl-{name}.xml")).items}
        assert items[name] == want
    assert items["lttp-c"]["impl/lttp-c/case/7"] == "fail"
    assert items["lttp-c"]["impl/lttp-c/case/8"] == "xfail"
    assert items["lttp-c"][f"impl-vm/lttp-c/contract/{ROWS[0].name}"] == "fail"


def test_a_junit_file_changed_by_hand_changes_the_report(tmp_path):
    """The renderer reads the JUnit file, not the results: an item flipped in the XML (here
    the failed case/7 made to pass) is what the report says."""
    text = rendered(tmp_path)
    assert "**lttp-c: impl/lttp-c/case/7** (FAILED)" in text
    xml = tmp_path / "impl-lttp-c.xml"
    s = xml.read_text()
    at = s.index('name="impl/lttp-c/case/7"')
    end = s.index("</testcase>", at)
    xml.write_text(s[:s.index(">", at) + 1] + s[end:])
    text = report(str(tmp_path / "impl"), ["lttp-c"], True)
    assert "impl/lttp-c/case/7" not in text.split("## Differences", 1)[1].split("\n## ", 1)[0]
    assert read_section(text)["lttp-c"]["impl/lttp-c/case/7"] == "pass"


def test_a_failed_contract_item_is_never_shown_plain(tmp_path):
    text = rendered(tmp_path)
    row = ROWS[0]
    line = next(ln for ln in text.splitlines() if ln.startswith(f"| {row.name} |"))
    assert f"**{row.promise}** (FAIL)" in line, line
    assert f"**lttp-c: impl-vm/lttp-c/contract/{row.name}** (FAILED)" in text


def test_a_declaration_not_seen_offline_is_a_failure_in_the_report(tmp_path):
    text = rendered(tmp_path)
    assert "**lttp-c: impl/lttp-c/case/7** (FAILED): declared difference not seen" in text


def test_an_earlier_run_is_labelled_never_current(tmp_path):
    text = rendered(tmp_path)
    runs = [ln for ln in text.splitlines() if ln.startswith("| ehconf |")]
    assert runs and "**earlier run**" in runs[0] and "| abc |" in runs[0], runs
    assert "| lttp-c | this run |" in text


def test_one_bad_event_costs_one_event(tmp_path):
    text = rendered(tmp_path, bad_event=True)
    [row] = [ln for ln in text.splitlines() if ln.startswith("| lttp-c | case |")]
    cells = [c.strip() for c in row.split("|")[1:-1]]
    # golden 5, reproduced 2 of the 3 judged, 1 declared, failed: 1 event + the item 7
    assert cells[2:7] == ["5", "2", "0", "1", "2"], row


def test_the_promise_column_is_the_booted_kernels(tmp_path):
    text = rendered(tmp_path)
    line = next(ln for ln in text.splitlines() if ln.startswith("| thread |"))
    assert "| ok 0 9 lost |" in line, line
    assert BY_NAME["thread"].kernel[0] == "thread_exit_drops_enablers"


def _provenance_rows(text):
    sec = text.split("## Where the expectations come from", 1)[1].split("\n## ", 1)[0]
    return {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[1:-1]]
            for ln in sec.splitlines() if ln.startswith("| ") and "---" not in ln
            and not ln.startswith("| implementation |")}


def test_the_provenance_counts_come_from_the_provenance_files(tmp_path):
    """Per implementation, its expected events as documented / upstream test / source
    only / current behaviour, counted from the provenance files (descriptions/provenance.txt, impl/*/inputs/): the same as
    harness/core/provenance.py reads, and a changed file changes the row."""
    rows = _provenance_rows(rendered(tmp_path))
    for impl in read_registry():
        fam = impl.family
        c = read_family(fam).counts()
        assert rows[impl.name][2:7] == [str(sum(c.values())), str(c["doc"]), str(c["test"]),
                                        str(c["source"] + c["current"]), str(c["current"])], \
            rows[impl.name]
    # a copy of the tree whose tracing-etw file says every event is documented
    root = tmp_path / "tree"
    here = os.path.join(REPO_ROOT, "impl", "tracing-etw", "expected")
    for sub in ("impl/tracing-etw/expected", "impl/tracing-etw/inputs"):
        os.makedirs(root / sub)
    for name in os.listdir(here):
        shutil.copy(os.path.join(here, name), root / "impl/tracing-etw/expected")
    (root / "impl/tracing-etw/inputs/provenance.txt").write_text(
        "".join(f"{n[:-5]} all doc README.md:1\n"
                for n in os.listdir(root / "impl/tracing-etw/expected")))
    row = next(ln for ln in provenance_table(str(root)) if ln.startswith("| tracing-etw |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    n = str(sum(family_inputs("tracing-etw").values()))
    assert cells[2:7] == [n, n, "0", "0", "0"], row
    # ... and a family whose file is missing is said so, not counted
    row = next(ln for ln in provenance_table(str(root)) if ln.startswith("| otel-logs |"))
    assert "**provenance unreadable: impl/otel-logs/inputs/provenance.txt: cannot read" in row


def test_the_runs_table_names_the_source_really_built(tmp_path, monkeypatch):
    """impls.md's Runs table, from what the offline run records (run_impl.built_from and
    commit_of): a crate-registry producer built from the published crates names the
    registry and its Cargo.lock, with no commit; built from IMPL_SRC, it names that tree
    and its commit, or says the tree is a copy without git history."""
    import subprocess

    from harness.reports.impls_md import ImplRun, runs_table
    from harness.impl.run_impl import built_from, commit_of
    (impl,) = [i for i in read_registry() if i.name == "tracing-etw"]
    assert impl.checkout == "crates"

    def row():
        checkout = built_from(impl)
        run = ImplRun(impl.name, True, {"checkout": checkout, "commit": commit_of(checkout),
                                        "finished": "now"})
        (line,) = [ln for ln in runs_table([run]) if ln.startswith("| tracing-etw ")]
        return [c.strip() for c in line.split("|")[3:5]]

    monkeypatch.delenv(impl.variable, raising=False)
    source, commit = row()
    assert source.startswith("the Rust crate registry") and \
        "impl/tracing-etw/Cargo.lock" in source and commit == "-"
    copy = tmp_path / "tracing-etw-0.2.3"
    copy.mkdir()
    (copy / "Cargo.toml").write_text("[package]\nname = \"tracing-etw\"\n")
    monkeypatch.setenv(impl.variable, str(copy))
    assert row() == [str(copy), "not a git checkout"]
    git = ["git", "-C", str(copy), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "Cargo.toml"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "patched"], check=True)
    head = subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert row() == [str(copy), head]
    (copy / "Cargo.toml").write_text("[package]\nname = \"tracing-etw\"\nversion = \"9\"\n")
    assert row() == [str(copy), head + "+changes"]


def test_versions_stand_side_by_side_with_each_findings_status(tmp_path):
    """A crate-registry row judged at its own release (impl-<row>.xml) and at another
    (impl-<row>@<version>.xml, make check-impl VERSION=...): a column per version, oldest
    first, and per finding whether the newest still shows it or which release fixed it."""
    (otel,) = [i for i in read_registry() if i.name == "otel-logs"]
    own = otel.crate.partition("@")[2].split(",")[0]
    results = str(tmp_path / "results")

    def run(name, entries):
        write_summary(os.path.join(results, f"impl-{name}"), "impl", "x", entries, 1,
                      {"implementation": name})
        junit(tmp_path, results, name, ("impl",))

    run("otel-logs", [check_entry("impl/otel-logs/limits/2", "xfail", "L4: key cut at NUL (a.rs:1)"),
                      check_entry("impl/otel-logs/limits/4", "xfail", "L3: panics (b.rs:2)"),
                      check_entry("impl/otel-logs/bodies", "pass")])
    run("otel-logs@99.0.0", [
        check_entry("impl/otel-logs@99.0.0/limits/2", "xfail", "L4: key cut at NUL (a.rs:9)"),
        check_entry("impl/otel-logs@99.0.0/limits/4", "pass"),
        check_entry("impl/otel-logs@99.0.0/bodies", "pass")])
    text = report(str(tmp_path / "impl"), ["otel-logs"], False)
    sec = text.split("## Versions side by side", 1)[1].split("\n## ", 1)[0]
    assert f"| item | {own} | 99.0.0 | status | reason (the newest release showing it) |" in sec
    assert "| impl/otel-logs/limits/2 | **xfail** | **xfail** | still in the newest | " \
        "L4: key cut at NUL (a.rs:9) |" in sec
    assert "| impl/otel-logs/limits/4 | **xfail** | pass | fixed in 99.0.0 |" in sec
    assert "1 items pass on every version; 0 were judged on one version only." in sec
    # each version is a run of its own in the Runs table
    assert "| otel-logs@99.0.0 | this run |" in text
