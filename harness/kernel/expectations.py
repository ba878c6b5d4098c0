# SPDX-License-Identifier: GPL-2.0
"""Per-kernel expectations of the kernel cases (cases/kernel-expectations.txt).

    for_kernel("7.2.13-amd64") -> {"perf_max_payload": Expectation(8184, "6.4", why), ...}
    environment(expectations)  -> {"EHCONF_EXPECT_PERF_MAX_PAYLOAD": "8184", ...}
    python3 harness/kernel/expectations.py --c-header OUT
                               -> the same rows as a C header the cases compile in
                                  (cases/kernel_expect.h looks them up by `uname -r`
                                  when EHCONF_EXPECT_<NAME> is unset: kselftest runs)

A row holds from its version on until a later row for the same name. A row whose version
carries `@<machine>` (`6.4@s390x`, the machine as `uname -m` names it) holds only on that
architecture, and there it wins over the row without one of the same version: a value
that differs by architecture is a row, never a condition in a case. Rows are parsed
strictly (a line that is not a comment must have a name, a MAJOR.MINOR, an integer and a
reason), so a typo fails instead of silently dropping an expectation.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Tuple

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "cases", "kernel-expectations.txt")
ROW = re.compile(r"^([a-z][a-z0-9_]*)\s+(\d+\.\d+)(?:@([a-z0-9_]+))?\s+(-?\d+)\s+(\S.*)$")


@dataclass(frozen=True)
class Expectation:
    value: int
    since: str
    reason: str
    arch: str = ""  # the `uname -m` machine the row is limited to; "" for every one


def version_key(v: str) -> Tuple[int, ...]:
    """(7, 2) for "7.2", "7.2.13" or "7.2.13-amd64"; () if it has no leading number."""
    m = re.match(r"(\d+(?:\.\d+)*)", v)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def parse(text: str, path: str = TABLE) -> List[Tuple[str, str, Expectation]]:
    rows, seen = [], set()
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        m = ROW.match(s)
        if not m:
            raise ValueError(f"{path}:{no}: not 'what since[@machine] value reason': {s!r}")
        what, since, arch, value, reason = m.groups()
        arch = arch or ""
        if (what, since, arch) in seen:
            raise ValueError(f"{path}:{no}: a second row for {what} since {since}"
                             + (f" on {arch}" if arch else ""))
        seen.add((what, since, arch))
        rows.append((what, since, Expectation(int(value), since, reason, arch)))
    return rows


def load(path: str = TABLE) -> List[Tuple[str, str, Expectation]]:
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


def for_kernel(release: str, rows=None, machine: str = "") -> Dict[str, Expectation]:
    """The expectations that hold for the kernel `release` (MAJOR.MINOR compared) on
    `machine` (`uname -m`; default this one's): the latest row of each name, a row for
    this machine before one for every machine of the same version."""
    rows = load() if rows is None else rows
    machine = machine or os.uname().machine
    mine = version_key(release)[:2]
    out: Dict[str, Expectation] = {}
    for what, since, e in rows:
        if e.arch and e.arch != machine or version_key(since) > mine:
            continue
        old = out.get(what)
        if old is None or (version_key(old.since), bool(old.arch)) < (version_key(since), bool(e.arch)):
            out[what] = e
    return out


def environment(exp: Dict[str, Expectation]) -> Dict[str, str]:
    return {f"EHCONF_EXPECT_{what.upper()}": str(e.value) for what, e in exp.items()}


def c_header(rows, source: str = "cases/kernel-expectations.txt") -> str:
    """The rows as a C X-macro list: EHCONF_EXPECTATION(name, major, minor, value, machine),
    one per row in table order (machine "" for every architecture). Generated at build time, never committed: the table stays
    the one source (cases/kernel_expect.h reads the list)."""
    out = [f"/* Generated from {source} by harness/kernel/expectations.py --c-header: do not edit. */",
           "#define EHCONF_EXPECTATIONS(X) \\"]
    for what, since, e in rows:
        major, minor = version_key(since)[:2]
        out.append(f"    X(\"{what}\", {major}, {minor}, {e.value}, \"{e.arch}\") \\")
    out.append("    /* end */")
    return "\n".join(out) + "\n"


def main(argv) -> int:
    if len(argv) != 3 or argv[1] != "--c-header":
        print("usage: expectations.py --c-header OUT", file=sys.stderr)
        return 2
    text = c_header(load())
    tmp = argv[2] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
