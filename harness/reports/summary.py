# SPDX-License-Identifier: GPL-2.0
"""The one summary line of `make check`: adds up the JUnit XML files its steps wrote
(unit tests, offline check, ci-lint, VM run) and prints
`check: N passed, N failed, N skipped`. A step whose XML file is missing (it did
not run, or crashed before writing it) is named and counted as one failure, so the
line never looks cleaner than the run was."""
import sys
import xml.etree.ElementTree as ET


def count(path):
    """(passed, failed, skipped) of one JUnit XML file."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    passed = failed = skipped = 0
    for s in suites:
        tests = int(s.get("tests", 0))
        bad = int(s.get("failures", 0)) + int(s.get("errors", 0))
        skip = int(s.get("skipped", 0))
        passed += tests - bad - skip
        failed += bad
        skipped += skip
    return passed, failed, skipped


def main(paths):
    total = [0, 0, 0]
    for path in paths:
        try:
            got = count(path)
        except (OSError, ET.ParseError) as e:
            print(f"check: {path}: no results ({e.__class__.__name__}): counted as 1 failure")
            got = (0, 1, 0)
        for i in range(3):
            total[i] += got[i]
    print(f"check: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
