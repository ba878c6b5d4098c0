# SPDX-License-Identifier: GPL-2.0
"""vm/kernel-release, which writes the cached kernelrelease file of vm/build-kernel: the
release alone, also when the build runs under an outer make whose MAKEFLAGS carry -w
(make check, make check-impl). A fake kernel tree stands in for the real one: what is
tested is the sub-make's environment and the filtering, not Kbuild."""

from __future__ import annotations

import os
import subprocess

from harness.core.common import REPO_ROOT

SCRIPT = os.path.join(REPO_ROOT, "vm", "kernel-release")


def trees(tmp_path):
    src, obj, outer = tmp_path / "linux", tmp_path / "obj", tmp_path / "outer"
    for d in (src, obj, outer):
        d.mkdir()
    (src / "Makefile").write_text("kernelrelease:\n\t@echo 6.12.117\n")
    return src, obj, outer


def under_outer_make(outer, command):
    (outer / "Makefile").write_text(f"all:\n\t@{command} > {outer}/release\n")
    subprocess.run(["make", "-w", "-C", str(outer)], check=True, capture_output=True,
                   timeout=60)
    return (outer / "release").read_text()


def test_the_release_alone_under_an_outer_make_with_w(tmp_path):
    src, obj, outer = trees(tmp_path)
    assert under_outer_make(outer, f"{SCRIPT} {src} {obj}") == "6.12.117\n"


def test_the_plain_sub_make_would_have_picked_up_the_directory_lines(tmp_path):
    """What vm/build-kernel did before: the outer make's -w reaches the sub-make."""
    src, obj, outer = trees(tmp_path)
    got = under_outer_make(outer, f"make -s -C {src} O={obj} kernelrelease")
    assert "Entering directory" in got


def test_no_release_is_an_error_naming_the_tree(tmp_path):
    src, obj, _ = trees(tmp_path)
    (src / "Makefile").write_text("kernelrelease:\n\t@echo oops\n")
    p = subprocess.run([SCRIPT, str(src), str(obj)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and str(src) in p.stderr and p.stdout == ""
