# SPDX-License-Identifier: GPL-2.0
"""scripts/lint-doc-paths.py (make lint-doc-paths): a document naming a file of this
repository that is not there fails with file:line: path; existing files, folders, item
names, patterns and other projects' paths listed in scripts/lint-doc-paths.ignore pass."""

from __future__ import annotations

import os

from harness.core.common import REPO_ROOT
from harness.core.processes import run

SCRIPT = os.path.join(REPO_ROOT, "scripts", "lint-doc-paths.py")


def lint(tmp_path, text: str):
    doc = tmp_path / "doc.md"
    doc.write_text(text)
    return run(["/usr/bin/python3", SCRIPT, str(doc)], 30)


def test_a_renamed_file_is_named_with_its_line(tmp_path):
    old = "lib/decode/src/" + "eh_errno.c"  # split, or the lint would flag this file too
    r = lint(tmp_path, f"fine: `harness/vm/run_vm.py`, `lib/decode/src/`\nold: `{old}`\n")
    assert r.returncode == 1
    assert f"{tmp_path}/doc.md:2: {old}" in r.output
    assert "run_vm.py" not in r.output.split("lint-doc-paths:")[0].replace("doc.md:2", "")


def test_items_patterns_and_outside_paths_pass(tmp_path):
    r = lint(tmp_path, "items `vm/boot`, `impl/<name>/build`, `golden/*.json`, "
                       "the kernel's `tools/testing/selftests/user_events/abi_test.c`\n")
    assert r.returncode == 0, r.output


def test_a_broken_link_is_named(tmp_path):
    r = lint(tmp_path, "see [the guide](no-such-guide.md)\n")
    assert r.returncode == 1 and "no-such-guide.md (link)" in r.output
