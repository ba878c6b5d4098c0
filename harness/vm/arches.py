# SPDX-License-Identifier: GPL-2.0
"""vm/arches, the guest architectures, as rows of named cells: the columns are those of
the table's header line (`# name karch ...`), so a reader names the column it wants and a
new column moves nothing (vm/arch.sh is the shell's reader of the same rule)."""

from __future__ import annotations

import os
from typing import Dict, List

from harness.core.common import REPO_ROOT

ARCHES = os.path.join(REPO_ROOT, "vm", "arches")


def columns(path: str = ARCHES) -> List[str]:
    header: List[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# name "):
                header = line[2:].split()
    if not header:
        raise ValueError(f"{path}: no header line `# name ...`")
    return header


def read_arches(path: str = ARCHES) -> List[Dict[str, str]]:
    """Every row as {column: cell}; a row with another number of cells is an error naming
    it."""
    cols = columns(path)
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            cells = line.split()
            if not cells or cells[0].startswith("#"):
                continue
            if len(cells) != len(cols):
                raise ValueError(f"{path}:{n}: {len(cells)} cells for the {len(cols)} columns "
                                 f"{' '.join(cols)}")
            out.append(dict(zip(cols, cells)))
    return out
