# SPDX-License-Identifier: GPL-2.0
"""Each place a crate-registry producer's profile cites for a pinned release (its
`upstream <V>` lines, tests/harness/test_upstream_lines.py) is a file of that release's
published source with at least the lines cited. It reads the sources make check-impl
fetched into the ehconf cache, so it runs in make test-impls (after the implementations in
.ci/run), not in make check's loop, where a fresh machine has none of them yet."""

from __future__ import annotations

import glob
import os
import re

import pytest

from test_upstream_lines import DEPENDENCY, PLACES


@pytest.mark.parametrize("row,version,key,place", PLACES,
                         ids=[f"{r.name}@{v}:{k}:{p}" for r, v, k, p in PLACES])
def test_each_place_is_in_that_release(row, version, key, place):
    crate, path = row.crate_name, place
    m = DEPENDENCY.match(place)
    if m:
        crate, version, path = m.groups()
    file, _, lines = path.rpartition(":")
    last = max(int(x) for x in re.split("[,-]", lines))
    cache = os.environ.get("EHCONF_CACHE", "/var/cache/ehconf")
    roots = glob.glob(os.path.join(cache, "cargo", "registry", "src", "*", f"{crate}-{version}"))
    if not roots:
        pytest.skip(f"{crate} {version}'s source is not on this machine "
                    f"(make check-impl IMPL={row.name} fetches it)")
    with open(os.path.join(roots[0], file), encoding="utf-8", errors="replace") as f:
        have = len(f.read().splitlines())
    assert last <= have, f"{crate}-{version}/{file} has {have} lines, {place} cites {last}"
