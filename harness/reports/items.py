# SPDX-License-Identifier: GPL-2.0
"""The last section of a report: every item it was rendered from, with its outcome, as
harness/reports/junit.py read them from the JUnit files (so a person can find any verdict
without opening the XML). One block per JUnit file, `[<name>]`, then `<outcome> <item id>`
per line (outcome: pass, fail, skip, xfail). read_section() parses it back, for tests.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

SECTION = "## Every item"


def section(blocks: List[Tuple[str, List[Tuple[str, str]]]]) -> List[str]:
    """The report's last section from (JUnit name, [(outcome, item id)]) blocks."""
    n = sum(len(items) for _, items in blocks)
    out = [SECTION, "",
           "The outcome of every item this report was rendered from, per JUnit file.", "",
           f"<details><summary>{n} items</summary>", "", "```"]
    for name, items in blocks:
        out.append(f"[{name}]")
        out += [f"{o} {i}" for o, i in items]
    return out + ["```", "", "</details>", ""]


def read_section(text: str) -> Dict[str, Dict[str, str]]:
    """{name: {item id: outcome}} from a report's last section."""
    blocks: Dict[str, Dict[str, str]] = {}
    if SECTION not in text:
        raise ValueError(f"no section {SECTION!r}")
    body = text.split(SECTION, 1)[1]
    if "```" not in body:
        raise ValueError(f"{SECTION}: no block")
    body = body.split("```", 2)[1]
    cur = None
    for line in body.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^\[(.+)\]$", line)
        if m:
            cur = blocks.setdefault(m.group(1), {})
        elif cur is not None and " " in line:
            outcome, ident = line.split(" ", 1)
            cur[ident] = outcome
        else:
            raise ValueError(f"{SECTION}: unreadable line {line!r}")
    return blocks
