# SPDX-License-Identifier: GPL-2.0
"""The transport registry, read from lib/eventheader/include/eh_transports.def (the file C
includes as an X-macro): one row per transport with its name, environment variable,
backend, capture reader, golden transport name and whether it is TraceLogging-encoded.
golden.py, report.py, the runners (run_offline.py, run_wine.py, run_vm.py), case_capture.py and
guest_run.py take transport facts from here, so a new capture transport is one row in
that file plus its backend and reader. Standard library only (the guest imports it too).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from harness.core.common import REPO_ROOT

DEF_FILE = os.path.join(REPO_ROOT, "lib", "eventheader", "include", "eh_transports.def")

_ROW = re.compile(r"^\s*EH_(CAPTURE|LIVE)_TRANSPORT\((.*)\)\s*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Transport:
    name: str
    env: str  # "" for a live transport
    backend: str  # struct eh_backend .name
    reader: str  # dat, tlcap, perf, etl, none
    golden: str  # golden/<case>.json's name for it
    tl: bool  # TraceLogging-encoded on the way
    prefix: str  # of the offline runner's items and folder ("" for the reference)

    @property
    def live(self) -> bool:
        return not self.env

    @property
    def suffix(self) -> str:
        """A capture file's name ending: its reader's name (.dat, .tlcap)."""
        return "." + self.reader


def parse(text: str, path: str = DEF_FILE) -> List[Transport]:
    """Every row of the registry, in file order. Raises ValueError naming the line of a
    row that does not have the shape the C macros expect."""
    rows: List[Transport] = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#") or "EH_" not in line or line.lstrip().startswith("*"):
            continue
        m = _ROW.match(line)
        if not m:
            if re.match(r"^\s*EH_\w+\(", line):
                raise ValueError(f"{path}:{n}: not a row: {line.strip()!r}")
            continue
        kind, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
        want = 7 if kind == "CAPTURE" else 5
        if len(args) != want:
            raise ValueError(f"{path}:{n}: EH_{kind}_TRANSPORT takes {want} arguments, "
                             f"not {len(args)}")
        if kind == "LIVE":
            args.insert(1, '""')
            args.append('""')
        name, env, backend, reader, golden, tl, prefix = args
        if kind == "CAPTURE" and not re.match(r'^"[A-Z_][A-Z0-9_]*"$', env):
            raise ValueError(f"{path}:{n}: env {env!r} is not a quoted variable name")
        for what, v in (("name", name), ("backend", backend), ("reader", reader),
                         ("golden", golden)):
            if not _IDENT.match(v):
                raise ValueError(f"{path}:{n}: {what} {v!r} is not an identifier")
        if tl not in ("0", "1"):
            raise ValueError(f"{path}:{n}: tl must be 0 or 1, not {tl!r}")
        if not re.match(r'^"([a-z0-9]+-)?"$', prefix):
            raise ValueError(f"{path}:{n}: prefix {prefix!r} is not \"\" or a quoted word "
                             f"ending in '-'")
        rows.append(Transport(name, env.strip('"'), backend, reader, golden, tl == "1",
                              prefix.strip('"')))
    names = [t.name for t in rows]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise ValueError(f"{path}: transport names used twice: {', '.join(dup)}")
    prefixes = [t.prefix for t in rows if not t.live]
    dup = sorted({x for x in prefixes if prefixes.count(x) > 1})
    if dup:
        raise ValueError(f"{path}: capture prefixes used twice: {', '.join(map(repr, dup))}")
    return rows


def load(path: str = DEF_FILE) -> List[Transport]:
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


TRANSPORTS: List[Transport] = load()
BY_NAME: Dict[str, Transport] = {t.name: t for t in TRANSPORTS}
# The reference of every golden file: the capture transport without declared differences.
REFERENCE = BY_NAME["capture"].golden


def get(name: str) -> Transport:
    return BY_NAME[name]


def captures() -> List[Transport]:
    """Capture transports in the order the library tries their variables."""
    return [t for t in TRANSPORTS if not t.live]


def capture_env(name: Optional[str], path: Optional[str] = None) -> Dict[str, Optional[str]]:
    """Environment for a program that must write to capture transport `name` at path
    (None: to its live backend): that variable set, every other capture variable
    removed, so no leftover of the caller's environment takes precedence."""
    env: Dict[str, Optional[str]] = {t.env: None for t in captures()}
    if name is not None:
        env[get(name).env] = path
    return env


def golden_names() -> Tuple[str, ...]:
    """Golden transport names that may carry declared differences (every one but the
    reference), in registry order."""
    out: List[str] = []
    for t in TRANSPORTS:
        if t.golden != REFERENCE and t.golden not in out:
            out.append(t.golden)
    return tuple(out)


def live_of(backend: str) -> List[Transport]:
    """The live transports of one backend (user_events: perf, ftrace)."""
    return [t for t in TRANSPORTS if t.live and t.backend == backend]
