# SPDX-License-Identifier: GPL-2.0
"""Small helpers shared by the runners (harness/run.py) and the pytest plugin
(harness/core/pytest_plugin.py): where the checkout is, and how paths and item ids are
spelled. Standard library only (the guest imports it too)."""

from __future__ import annotations

import os
import re

HARNESS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # harness/core/..
REPO_ROOT = os.path.dirname(HARNESS_DIR)


def display_path(path: str) -> str:
    """Repository-relative inside the checkout, absolute elsewhere (no '../../tmp/...')."""
    path = os.path.abspath(path)
    if path.startswith(REPO_ROOT + os.sep):
        return os.path.relpath(path, REPO_ROOT)
    return path


_UNSAFE = re.compile(r"[^A-Za-z0-9_.+/#@-]+")


def safe_id(text: str) -> str:
    """A pytest/JUnit friendly id: no spaces, brackets or '::' (which would split names)."""
    return _UNSAFE.sub("_", text).strip("_") or "_"


# What the host and the guest both say about the kernel under test.
NO_USER_EVENTS = "kernel lacks CONFIG_USER_EVENTS"
SELFTESTS = ("abi_test", "dyn_test", "ftrace_test", "perf_test")  # the kernel's user_events ones


def one_line(text: str, limit: int = 300) -> str:
    """Text squashed to one line for a reason ("a | b | c"), cut at limit characters."""
    text = " | ".join(x.strip() for x in (text or "").strip().splitlines() if x.strip())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def table_rows(path: str, columns: int, names: str):
    """(line number, cells) of each row of a whitespace-separated registry table
    (impl/implementations.txt, decoders/decoders.txt): blank and # lines skipped, the
    last column keeps its spaces. A row with fewer cells is a ValueError naming the line
    and the columns a row needs (`names`)."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = line.split(None, columns - 1)
            if len(cells) < columns:
                raise ValueError(f"{path}:{n}: a row needs {names}")
            cells[-1] = cells[-1].strip()
            yield n, cells
