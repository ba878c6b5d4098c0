#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/selftests-series-tap-summary.py FILE...: what run_kselftest.sh printed, per file.

For each TAP file: its programs (`ok N selftests: user_events: prog`), and inside each
program's KTAP (prefixed `# `) the tests that failed. One line per file:
    <file>: P of N programs ok; failed tests: prog/fixture.test, ...
With --json: {file: {"programs": {prog: "ok"|"not ok"|"skip"}, "failed": [prog/test...],
"passed": [prog/test...], "interrupted": prog/test, prog or null}}: where the file ended
inside a program, as it does when the kernel dies there: the test that had started (the
harness's `#  RUN` line), or the program alone when none had (its output is line-buffered
through the runner, so a panic can cut it before the first line). Exit 0 when every
program of every file is ok (or SKIP).
"""
import json
import re
import sys

PROG = re.compile(r"^(not ok|ok) \d+ selftests: (\S+): (\S+)(.*)$")
TEST = re.compile(r"^#\s+(not ok|ok) \d+ (\S+)(.*)$")
HEAD = re.compile(r"^# selftests: (\S+): (\S+)$")  # a program starts
RUN = re.compile(r"^# #\s+RUN\s+(\S+) \.\.\.$")  # kselftest_harness.h: a test starts


def parse(path: str) -> dict:
    programs, failed, passed, pending = {}, [], [], []
    current = running = None  # the program without its result line yet, its started test
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = HEAD.match(line)
            if m:
                current, running = m.group(2), None
                continue
            m = RUN.match(line)
            if m:
                running = m.group(1)
                continue
            m = TEST.match(line)
            if m:
                pending.append((m.group(1), m.group(2), m.group(3)))
                running = None
                continue
            m = PROG.match(line)
            if m:
                current = running = None
                prog = m.group(3)
                skip = "# SKIP" in m.group(4)
                programs[prog] = "skip" if skip else m.group(1)
                for st, name, rest in pending:
                    if "# SKIP" in rest:
                        continue
                    (passed if st == "ok" else failed).append(f"{prog}/{name}")
                pending = []
    interrupted = (f"{current}/{running}" if running else current) if current else None
    return {"programs": programs, "failed": failed, "passed": passed, "interrupted": interrupted}


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
                  f"failed tests: {', '.join(r['failed']) or 'none'}"
                  + (f"; ended inside {r['interrupted']}" if r["interrupted"] else ""))
    if as_json:
        json.dump(out, sys.stdout, indent=1)
        print()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
