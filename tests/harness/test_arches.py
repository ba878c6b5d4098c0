# SPDX-License-Identifier: GPL-2.0
"""The guest architectures (vm/arches, issue 34): the table is complete, an unknown
KERNEL_ARCH is refused naming the known ones, and a real big-endian capture from the s390x
guest decodes on this machine to the same golden file as every other capture.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_arches.py
"""

import os
import subprocess

import pytest

from harness.vm.arches import ARCHES, columns, read_arches
from harness.core.common import REPO_ROOT
from harness.core.golden import compare

COLUMNS = ("name karch cross target image deb qemu machine cpu console p9dev rust cold").split()


def rows():
    return [[r[c] for c in COLUMNS] for r in read_arches()]


def test_every_row_is_complete_and_has_its_kernel_options():
    assert columns() == COLUMNS
    names = [r["name"] for r in read_arches()]
    assert "x86_64" in names, "the host's architecture is the default guest"
    for r in read_arches():
        assert os.path.isfile(os.path.join(REPO_ROOT, "vm", f"config.{r['name']}")), \
            f"no vm/config.{r['name']} (its console and virtio transport)"
        assert r["cold"].isdigit() and int(r["cold"]) > 0, r
        assert r["rust"].endswith("-linux-gnu") and r["rust"].startswith(
            ("x86_64" if r["cross"] == "-" else r["cross"].split("-")[0]) + "-"), r


def test_columns_are_read_by_name(tmp_path):
    """A column added in the middle moves nothing a reader asks for by name, in Python
    and in the shell (vm/arch.sh); a row short of a cell is an error naming it."""
    import subprocess
    with open(ARCHES, encoding="utf-8") as f:
        text = f.read()
    moved = text.replace("# name   karch ", "# name   extra karch ")
    moved = "\n".join(ln if ln.startswith("#") or not ln.strip() else
                      ln.split(None, 1)[0] + " X " + ln.split(None, 1)[1]
                      for ln in moved.split("\n"))
    (tmp_path / "arches").write_text(moved)
    got = {r["name"]: r for r in read_arches(str(tmp_path / "arches"))}
    want = {r["name"]: r for r in read_arches()}
    assert all(got[n][c] == want[n][c] for n in want for c in COLUMNS)
    (tmp_path / "arch.sh").write_text(open(os.path.join(REPO_ROOT, "vm", "arch.sh")).read())
    sh = subprocess.run(["bash", "-c", f". {tmp_path}/arch.sh; arch_field s390x rust; "
                         f"arch_field arm64 cold; arch_load arm64 && echo $arch_extra"],
                        capture_output=True, text=True, timeout=30)
    assert sh.stdout.split() == ["s390x-unknown-linux-gnu", "45", "X"], sh.stderr
    (tmp_path / "arches").write_text(text.replace(" 45\n", "\n"))
    with pytest.raises(ValueError, match="12 cells for the 13 columns"):
        read_arches(str(tmp_path / "arches"))


def test_an_unknown_arch_is_refused_naming_the_rows():
    env = dict(os.environ, KERNEL_ARCH="sparc", EHCONF_CACHE="/nonexistent-ehconf-cache")
    p = subprocess.run([os.path.join(REPO_ROOT, "vm", "build-kernel"), "--cached"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert "KERNEL_ARCH=sparc is not a row of vm/arches" in p.stderr
    assert all(r[0] in p.stderr for r in rows())


def test_a_big_endian_capture_from_the_s390x_guest_decodes_to_the_golden_file():
    """tests/data/perf/s390x-activity.perf.data: perf.data written by Debian's s390x perf on
    the s390x guest kernel (big-endian header, samples and tracing data), read here by
    the host's ehdecode; the expected events are golden/activity.json's, the same as
    for every other transport and machine. Seen failing on 2026-11-28 with a planted
    fault in a copy of the checkout (lib/decode/src/ehd_event_parse.c:91 ignoring the
    event's byte-order flag): ehdecode exit 1, 10 of 10 events differ."""
    data = os.path.join(REPO_ROOT, "tests", "data", "perf", "s390x-activity.perf.data")
    with open(data, "rb") as f:
        assert f.read(8) == b"2ELIFREP", "not big-endian perf.data"
    ehdecode = os.path.join(REPO_ROOT, "build", "gcc", "bin", "ehdecode")
    if not os.access(ehdecode, os.X_OK):
        pytest.skip("build/gcc/bin/ehdecode not built (make)")
    p = subprocess.run([ehdecode, "--golden", data], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(REPO_ROOT, "golden", "activity.json"), encoding="utf-8") as f:
        res = compare(f.read(), p.stdout, "activity", transport="perf")
    assert res.ok, res.message
