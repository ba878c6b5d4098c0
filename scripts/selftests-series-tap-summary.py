#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/selftests-series-tap-summary.py FILE...: what run_kselftest.sh printed, per file.

For each TAP file: its programs (`ok N selftests: user_events: prog`), and inside each
program's KTAP (prefixed `# `) the tests that failed. One line per file:
    <file>: P of N programs ok; failed tests: prog/fixture.test, ...
With --json: {file: {"programs": {prog: "ok"|"not ok"|"skip"}, "failed": [prog/test...],
"passed": [prog/test...]}}. Exit 0 when every program of every file is ok (or SKIP).
"""
import json
import re
import sys

PROG = re.compile(r"^(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$")
TEST = re.compile(r"^#\s+(not ok|ok) \d+ (\S+)(.*)$")


def parse(path: str) -> dict:
    programs, failed, passed, pending = {}, [], [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = TEST.match(line)
            if m:
                pending.append((m.group(1), m.group(2), m.group(3)))
                continue
            m = PROG.match(line)
            if m:
                prog = m.group(3)
                skip = "# SKIP" in m.group(4)
                programs[prog] = "skip" if skip else m.group(1)
                for st, name, rest in pending:
                    if "# SKIP" in rest:
                        continue
                    (passed if st == "ok" else failed).append(f"{prog}/{name}")
                pending = []
    return {"programs": programs, "failed": failed, "passed": passed}


def main(argv) -> int:
    as_json = "--json" in argv
    files = [a for a in argv if a != "--json"]
    out, rc = {}, 0
    for path in files:
        r = parse(path)
        out[path] = r
        bad = [p for p, s in r["programs"].items() if s == "not ok"]
        if bad or not r["programs"]:
            rc = 1
        if not as_json:
            ok = len(r["programs"]) - len(bad)
            print(f"{path}: {ok} of {len(r['programs'])} programs ok, {len(r['passed'])} tests passed; "
                  f"failed tests: {', '.join(r['failed']) or 'none'}")
    if as_json:
        json.dump(out, sys.stdout, indent=1)
        print()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
