# SPDX-License-Identifier: GPL-2.0
"""Prose names a package registry by what it is ("the Rust crate registry"), never by its
host: only what cargo itself writes keeps the host (Cargo.lock's sources, a Cargo.toml's
[patch.crates-io] table)."""

import os
import subprocess

from harness.core.common import REPO_ROOT

HOST = "crates" + ".io"  # spelled apart so this file does not name it either


def test_no_prose_names_the_crate_registry_by_its_host():
    files = subprocess.run(["git", "-C", REPO_ROOT, "ls-files"], capture_output=True,
                           text=True, check=True).stdout.split()
    named = []
    for f in files:
        if os.path.basename(f) == "Cargo.lock":
            continue
        try:
            with open(os.path.join(REPO_ROOT, f), encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, OSError):
            continue
        for no, line in enumerate(text.splitlines(), 1):
            if HOST in line.replace(f"[patch.{HOST.replace('.', '-')}]", "").replace(
                    f"patch.{HOST.replace('.', '-')}", ""):
                named.append(f"{f}:{no}: {line.strip()[:100]}")
    assert not named, "say \"the Rust crate registry\":\n" + "\n".join(named)
