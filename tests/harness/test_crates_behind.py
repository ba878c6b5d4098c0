# SPDX-License-Identifier: GPL-2.0
"""scripts/crates-behind.py: a line per crate-registry producer, pinned against newest; a
newer release is a notice, never a failure; an index that cannot be reached is one skip
line. A stand-in cargo answers, so nothing here needs the network."""

import os
import subprocess
import sys

from harness.core.common import REPO_ROOT
from harness.impl.registry import read_registry

SCRIPT = os.path.join(REPO_ROOT, "scripts", "crates-behind.py")
ROWS = [i for i in read_registry() if i.crate != "-"]


def run(tmp_path, cargo_body, *args):
    cargo = tmp_path / "cargo"
    cargo.write_text("#!/bin/sh\n" + cargo_body)
    cargo.chmod(0o755)
    env = dict(os.environ, CARGO=str(cargo), EHCONF_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_each_row_against_the_newest(tmp_path):
    # The stand-in publishes 99.0.0 of the first row's crate and the pinned one of the rest.
    first = ROWS[0]
    body = "".join(f'[ "$3" = "{i.crate_name}" ] && echo "version: '
                   f'{"99.0.0" if i is first else i.crate_versions[-1]}" && exit 0\n' for i in ROWS)
    p = run(tmp_path, body + "exit 1\n", "--github")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert (f"crates-behind: {first.name} {first.crate_name}: pinned {','.join(first.crate_versions)}, "
            f"newest 99.0.0 (behind)") in lines
    assert sum(ln.startswith("::notice ") for ln in lines) == 1
    assert lines[-1] == f"crates-behind: {len(ROWS) - 1} up to date, 1 behind"


def test_an_unreachable_index_is_one_skip_line(tmp_path):
    p = run(tmp_path, 'echo "error: failed to query replaced source registry" >&2; exit 101\n')
    assert p.returncode == 0
    assert p.stdout.splitlines() == [
        f"crates-behind: skip: the crate index cannot be reached (cargo info "
        f"{ROWS[0].crate_name}: error: failed to query replaced source registry)".replace(
            "cargo info", f"{tmp_path}/cargo info")]
