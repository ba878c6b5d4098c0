# SPDX-License-Identifier: GPL-2.0
"""A crate-registry producer's versions are written once, in the crate column of
impl/implementations.txt (NAME@VERSION[,VERSION...]): its build reads them there
(emitlib/build.sh's registry_crate), and each version's Cargo.toml `=VERSION` and committed
Cargo.lock must agree: the first version's in impl/<name>/, each other one's in
impl/<name>/versions/<VERSION>/."""

import os
import re
import shutil
import subprocess

import pytest

from harness.core.common import REPO_ROOT
from harness.impl.registry import CRATES, read_registry, resolve

ROWS = [i for i in read_registry() if i.checkout == CRATES]
# (row at a pinned version, the folder of that version's manifest and lock)
PINS = [(resolve(f"{i.name}@{v}"), i.folder if k == 0 else os.path.join(i.folder, "versions", v))
        for i in ROWS for k, v in enumerate(i.crate_versions)]


def disagreements(impl, folder: str):
    """What in the version's folder does not say the registry's version: a list of reasons."""
    out = []
    with open(os.path.join(folder, "Cargo.toml"), encoding="utf-8") as f:
        toml = f.read()
    m = re.search(rf'^{re.escape(impl.crate_name)}\s*=\s*(?:"=([^"]+)"|\{{[^}}]*version\s*=\s*"=([^"]+)")',
                  toml, re.M)
    pinned = m and (m.group(1) or m.group(2))
    if pinned != impl.crate_version:
        out.append(f"Cargo.toml pins {impl.crate_name} {pinned or 'nothing'}, the registry "
                   f"{impl.crate_version}")
    with open(os.path.join(folder, "Cargo.lock"), encoding="utf-8") as f:
        locked = re.findall(rf'name = "{re.escape(impl.crate_name)}"\nversion = "([^"]+)"', f.read())
    if locked != [impl.crate_version]:
        out.append(f"Cargo.lock locks {impl.crate_name} {locked or 'nothing'}, the registry "
                   f"{impl.crate_version}")
    with open(os.path.join(impl.folder, "build"), encoding="utf-8") as f:
        build = f.read()
    if re.search(r"^\s*crate_emitter\s+\S*" + re.escape(impl.crate_version), build, re.M):
        out.append("the build names the version again")
    return out


@pytest.mark.parametrize("impl,folder", PINS, ids=[i.name for i, _ in PINS])
def test_the_version_is_the_registrys_everywhere(impl, folder):
    assert not disagreements(impl, folder)


def test_no_version_folder_the_registry_does_not_pin():
    for i in ROWS:
        folder = os.path.join(i.folder, "versions")
        extra = set(os.listdir(folder)) - set(i.crate_versions[1:]) if os.path.isdir(folder) else set()
        assert not extra, f"impl/{i.name}/versions/ holds {sorted(extra)}, which the crate column does not pin"


def test_a_lock_that_disagrees_fails(tmp_path):
    impl = ROWS[0]
    copy = tmp_path / impl.name
    shutil.copytree(impl.folder, copy, ignore=shutil.ignore_patterns("target"))
    lock = (copy / "Cargo.lock").read_text()
    (copy / "Cargo.lock").write_text(lock.replace(
        f'name = "{impl.crate_name}"\nversion = "{impl.crate_version}"',
        f'name = "{impl.crate_name}"\nversion = "9.9.9"'))
    assert disagreements(impl, str(copy)) == [
        f"Cargo.lock locks {impl.crate_name} ['9.9.9'], the registry {impl.crate_version}"]


def test_the_build_reads_the_registry():
    """registry_crate, as crate_emitter calls it, prints each row's NAME@VERSION."""
    for impl in ROWS:
        here = os.path.join(REPO_ROOT, "impl", impl.name)
        p = subprocess.run(["bash", "-c", f'. "{REPO_ROOT}/emitlib/build.sh"; '
                            f'build_name={impl.name} here={here}; registry_crate'],
                           capture_output=True, text=True, timeout=30)
        assert p.stdout.strip() == impl.crate, p.stderr
