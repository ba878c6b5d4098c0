# SPDX-License-Identifier: GPL-2.0
"""`make golden`: regenerate golden/<case>.json from a fresh offline capture of every case.

For each case binary in $EHCONF_BUILD/cases: run it with EHCONF_CAPTURE, require that its
own KTAP tests all pass (a failing case does not get to define what is right), decode with
`ehdecode --golden`, keep the existing file's {"ehconf": ...} directive lines, sort the
events of an unordered case (so regeneration does not churn), and write the file.

Usage: EHCONF_BUILD=build/gcc /usr/bin/python3 harness/kernel/make_golden.py [case ...]
Ends with `N passed, N failed, N skipped` (passed = written or unchanged).
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.kernel.case_capture import capture_case, declares_no_golden, find_cases  # noqa: E402

from harness.core.ehdecode import decode  # noqa: E402
from harness.core.golden import parse_lines, sorted_for_golden  # noqa: E402
from harness.core.ktap import FAIL, item_names  # noqa: E402


def main(argv):
    repo = os.path.dirname(os.path.dirname(HERE))
    build = os.environ.get("EHCONF_BUILD", "build/gcc")
    build = build if os.path.isabs(build) else os.path.join(repo, build)
    timeout = float(os.environ.get("EHCONF_TIMEOUT", "20"))
    outdir = os.path.join(os.path.dirname(build), "results", "golden-" + os.path.basename(build))
    ehdecode = os.path.join(build, "bin", "ehdecode")
    cases = find_cases(build)
    if argv:
        cases = [c for c in cases if os.path.basename(c) in argv]
    if not cases:
        print(f"golden: no case binaries in {build}/cases", file=sys.stderr)
        print("0 passed, 1 failed, 0 skipped")
        return 1
    passed = failed = skipped = 0
    for case in cases:
        name = os.path.basename(case)
        if declares_no_golden(repo, name):
            print(f"golden/{name}.json: none (cases/{name}.c declares ehconf-no-golden)")
            skipped += 1
            continue
        dat = os.path.join(outdir, name + ".dat")
        r, rep = capture_case(case, dat, timeout)
        bad = [i for i, res in item_names(rep.results) if res.status == FAIL]
        if bad:
            print(f"golden/{name}.json: NOT written: the case's own tests fail: {', '.join(bad)}")
            failed += 1
            continue
        d = decode(ehdecode, dat, timeout)
        if not d.ok:
            print(f"golden/{name}.json: NOT written: {d.problem}")
            failed += 1
            continue
        path = os.path.join(repo, "golden", name + ".json")
        old = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                old = f.read()
        new = sorted_for_golden(d.text, old)
        n = len(parse_lines(new, path, True).events)
        if n == 0:
            print(f"golden/{name}.json: NOT written: no events decoded")
            failed += 1
            continue
        state = "unchanged" if new == old else ("changed" if old else "new")
        if new != old:
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(new)
        print(f"golden/{name}.json: {n} events ({state})")
        passed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
