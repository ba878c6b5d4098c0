# SPDX-License-Identifier: GPL-2.0
"""What an implementation wrote for the events its profile declares, in the profile's own
form, for a person to review before declaring it: it prints, never writes a profile.

    /usr/bin/python3 harness/impl/observed_patch.py build/results/impl-<name> [INPUT...]

For each `differs <input> <n>` declaration, the patch of the golden line that turns it into
the decoded event of the last `make check-impl` (harness/impl/declared.py); for each `refuses`
one, the emitter's words; for `differs <input> all`, the decoded events whole, which belong
in impl/<name>/observed/<input>.json.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Dict, List

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.impl.declared import patch_lines, patch_of  # noqa: E402
from harness.core.golden import _loads  # noqa: E402
from harness.impl.registry import parse_emitter_output, read_profile, read_registry  # noqa: E402
from harness.impl.run_impl import PLAN, golden_parts  # noqa: E402


def _closest(golden_line: str, candidates: List[str]) -> int:
    """The candidate whose patch against the golden line is shortest."""
    g = _loads(golden_line)
    sizes = [len(patch_lines(patch_of(g, _loads(c)))) for c in candidates]
    return sizes.index(min(sizes))


def show(folder: str, only: List[str]) -> int:
    with open(os.path.join(folder, PLAN), encoding="utf-8") as f:
        plan = json.load(f)
    impl = {i.name: i for i in read_registry()}[plan["implementation"]]
    profile = read_profile(impl, check=False)
    for case, mine in sorted(plan["cases"].items()):
        if only and case not in only:
            continue
        _, golden = golden_parts(mine["golden"])
        if (case, 0) in profile.differs:
            print(f"differs {case} all: the decoded events, for impl/{impl.name}/observed/"
                  f"{case}.json:")
            print("\n".join(mine.get("declared_all", [])))
        leftovers = list(mine.get("declared_unordered", []))
        for (c, o) in sorted(k for k in profile.differs if k[0] == case and k[1]):
            got = mine.get("declared", {}).get(str(o))
            if got is None and leftovers:
                got = leftovers.pop(_closest(golden[o - 1], leftovers))
            if got is None:
                print(f"differs {case} {o}: not decoded in this run")
                continue
            print(f"differs {case} {o} ...")
            print(patch_lines(patch_of(_loads(golden[o - 1]), _loads(got))))
        said = _said(folder, case, mine["kept"])
        for (c, o) in sorted(k for k in profile.refuses if k[0] == case):
            state, words = said.get(o, ("not run", ""))
            print(f"refuses {case} {o} ...\n    {json.dumps([state, words])}")
    return 0


def _said(folder: str, case: str, kept: List[int]) -> Dict[int, tuple]:
    try:
        with open(os.path.join(folder, case + ".log"), encoding="utf-8",
                  errors="replace") as f:
            said = parse_emitter_output(f.read())
    except OSError:
        return {}
    return {kept[k - 1]: v for k, v in said.items() if 0 < k <= len(kept)}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(show(sys.argv[1], sys.argv[2:]))
