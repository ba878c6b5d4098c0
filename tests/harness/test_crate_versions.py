# SPDX-License-Identifier: GPL-2.0
"""A crate-registry producer at each version ehconf pins (issue 40): NAME@VERSION resolves to
the row at that release, pinned or not; each release is held to the expectations its own
documentation gives from which version on (impl/<name>/expected/<input>@<V>.json); a
declaration names the versions it holds for (`differs@0.16.0 ...`), is left out of the
others, and one that does not show on a version it claims fails with "fixed in V?"."""

from __future__ import annotations

import pytest

import harness.impl.registry as registry
from harness.core.results import check_entry
from harness.impl.registry import CRATES, expected_path, holds_for, read_profile, read_registry, resolve
from harness.impl.run_impl import narrow_hints

ROWS = [i for i in read_registry() if i.checkout == CRATES]


def test_name_at_version_is_the_row_at_that_release():
    row = ROWS[0]
    newest = resolve(f"{row.name}@{row.crate_versions[-1]}")
    assert (newest.base, newest.folder, newest.crate_version, newest.pinned) == (
        row.name, row.folder, row.crate_versions[-1], True)
    assert resolve(f"{row.name}@99.0.0").pinned is False  # runs, labelled unpinned
    assert resolve(row.name).crate_version == row.crate_versions[0]
    assert resolve("ehconf@1.0.0") is None  # only a crates row has versions
    assert resolve(f"{row.name}@latest") is None


def test_every_crates_row_pins_its_own_version_and_the_newest():
    for row in ROWS:
        assert len(row.crate_versions) >= 2, row.name
        assert registry.version_key(row.crate_versions[-1]) > registry.version_key(row.crate_versions[0])


@pytest.mark.parametrize("version,chosen", [
    ("0.16.0", "resource.json"), ("0.17.0", "resource@0.17.0.json"),
    ("0.18.0", "resource@0.18.0.json"), ("0.19.0", "resource@0.18.0.json")])
def test_an_expectation_holds_from_its_version_on(version, chosen):
    assert expected_path(resolve(f"otel-logs@{version}"), "resource") == \
        f"impl/otel-logs/expected/{chosen}"


@pytest.mark.parametrize("spec,version,holds", [
    ("0.16.0", "0.16.0", True), ("0.16.0", "0.18.0", False), ("0.16.0,0.18.0", "0.18.0", True),
    ("0.17.0+", "0.16.0", False), ("0.17.0+", "0.17.0", True), ("0.17.0+", "0.20.1", True)])
def test_the_versions_a_declaration_names(spec, version, holds):
    assert holds_for(spec, version) is holds


def profile_of(tmp_path, monkeypatch, name: str, text: str):
    impl = resolve(name)
    folder = tmp_path / "impl" / impl.base
    folder.mkdir(parents=True)
    (folder / "profile.txt").write_text(text)
    monkeypatch.setattr(registry, "REPO_ROOT", str(tmp_path))
    return impl, read_profile(impl)


PROFILE = ('refuses@0.16.0 limits 4 old only\n    ["failed", "panicked: x"]\n'
           '    upstream 0.16.0 src/a.rs:1\n'
           'refuses@0.18.0+ limits 3 new only\n    ["failed", "panicked: y"]\n'
           '    upstream 0.18.0 src/a.rs:2\n'
           'loses limits 2 every version\n    upstream 0.16.0 src/a.rs:3\n'
           '    upstream 0.18.0 src/a.rs:4\n')


def test_a_declaration_of_other_versions_is_left_out(tmp_path, monkeypatch):
    _, old = profile_of(tmp_path, monkeypatch, "otel-logs@0.16.0", PROFILE)
    assert set(old.refuses) == {("limits", 4)} and old.refused_as[("limits", 4)][1] == "panicked: x"
    assert old.versions == {"limits/4": "0.16.0", "limits/2": ""}


def test_a_declaration_of_this_version_is_kept(tmp_path, monkeypatch):
    _, new = profile_of(tmp_path, monkeypatch, "otel-logs@0.18.0", PROFILE)
    assert set(new.refuses) == {("limits", 3)} and set(new.loses) == {("limits", 2)}


def test_only_a_crates_row_names_versions(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="only a crate-registry producer"):
        profile_of(tmp_path, monkeypatch, "ehconf", "differs@1.0.0 structs 1 x\n    [\"drop\", \"a\"]\n")


def test_a_declaration_that_no_longer_shows_says_narrow_it(tmp_path, monkeypatch):
    impl, p = profile_of(tmp_path, monkeypatch, "otel-logs@0.18.0", PROFILE)
    entries = narrow_hints(impl, p, [
        check_entry("impl/otel-logs@0.18.0/limits/2", "fail", "event 2 arrived"),
        check_entry("impl/otel-logs@0.18.0/limits/3", "xfail", "new only"),
        check_entry("impl/otel-logs@0.18.0/limits", "fail", "the input's own verdict")])
    assert entries[0]["message"].startswith(
        "fixed in 0.18.0? impl/otel-logs/profile.txt declares limits/2 for every version, and "
        "it does not show as declared on 0.18.0: narrow the declaration")
    assert entries[0]["message"].endswith("event 2 arrived")
    assert entries[1]["message"] == "new only" and entries[2]["message"] == "the input's own verdict"
