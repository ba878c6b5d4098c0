#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Is ehconf behind? For every producer of impl/implementations.txt built from the Rust crate
registry (its crate column, NAME@VERSION[,VERSION...]), the newest version ehconf pins against
the newest one the registry's index publishes, one line each:

    crates-behind: otel-logs opentelemetry-user-events-logs: pinned 0.16.0,0.18.0, newest 0.19.0 (behind)

The newest version is what `cargo info NAME` reads from the index (cargo's own client, its
CARGO_HOME in the ehconf cache). Where the index cannot be reached, one skip line says so and
nothing else is printed. A newer release is a notice, never a failure: the exit status is 0
unless the registry itself cannot be read. --github also prints each behind row as a GitHub
Actions `::notice::` line (the workflow's implementations job).

    /usr/bin/python3 scripts/crates-behind.py [--github]      # make crates-behind
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from typing import Optional, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from harness.impl.registry import read_registry  # noqa: E402

TIMEOUT = 60  # one look-up; the index answers in about a second


def newest(crate: str, cargo: str, env: dict) -> Tuple[Optional[str], str]:
    """(the newest published version, "") or (None, why the index gave none)."""
    try:
        p = subprocess.run([cargo, "info", "--quiet", crate], capture_output=True, text=True,
                           timeout=TIMEOUT, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{cargo} info {crate}: {e}"
    m = re.search(r"^version:\s*(\S+)", p.stdout, re.M)
    if p.returncode or not m:
        why = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        return None, f"{cargo} info {crate}: {why}"
    return m.group(1), ""


def key(version: str):
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.+-]", version))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--github", action="store_true", help="also ::notice:: lines")
    args = ap.parse_args(argv)
    cargo = os.environ.get("CARGO", "cargo")
    env = dict(os.environ, CARGO_HOME=os.path.join(
        os.environ.get("EHCONF_CACHE", "/var/cache/ehconf"), "cargo"), CARGO_TERM_COLOR="never")
    rows = [i for i in read_registry() if i.crate != "-"]
    lines, behind = [], 0
    for impl in rows:
        got, why = newest(impl.crate_name, cargo, env)
        if got is None:
            print(f"crates-behind: skip: the crate index cannot be reached ({why})")
            return 0
        pinned = max(impl.crate_versions, key=key)  # the newest version ehconf judges
        state = "up to date" if got == pinned else (
            "behind" if key(got) > key(pinned) else "ahead of the index")
        behind += state == "behind"
        lines.append(f"crates-behind: {impl.name} {impl.crate_name}: pinned "
                     f"{','.join(impl.crate_versions)}, newest {got} ({state})")
        if args.github and state == "behind":
            lines.append(f"::notice title=ehconf is behind::{impl.name} pins {impl.crate_name} "
                         f"{','.join(impl.crate_versions)}; the registry's newest is {got}")
    print("\n".join(lines))
    print(f"crates-behind: {len(rows) - behind} up to date, {behind} behind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
