# SPDX-License-Identifier: GPL-2.0
"""KTAP / TAP parser for ehconf's test programs.

Understands what our two producers print:
  * tests/ktap.h (unit tests):          "KTAP version 1", "1..N", "ok 1 name", "not ok 2 name"
  * kselftest_harness.h (cases/):        "TAP version 13", "ok 3 global.x # SKIP why",
                                         "not ok 4 # error msg", "ok 5 # XFAIL msg"
and the general KTAP shapes: nested subtests (an indented block with its own plan,
"# Subtest: x" lines, closed by the parent's result line), "# " diagnostics, plan lines
("1..0 # SKIP reason" too), SKIP/TODO/XFAIL directives.

Diagnostics belong to the result line that FOLLOWS them: both producers print a test's
"# ..." lines (and kselftest its stderr, when merged) before that test's "ok"/"not ok".

finish() applies the process outcome: a program that crashed, timed out or ended early
gets its missing tests reported as failures ("exited with signal 11 after test 3"), a
program with no KTAP output at all becomes one failure, and a non-zero exit status with
every test passing is a failure too (something went wrong that no test owned). Exit
status 4 (kselftest's KSFT_SKIP) is normal when every test skipped: the kernel cases
exit so when a requirement is missing, for kselftest's runner to report them skipped.

Pure functions and dataclasses only: no pytest, no subprocess (see processes.py).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, field
from typing import List, Optional

PASS, FAIL, SKIP, TODO = "pass", "fail", "skip", "todo"
KSFT_SKIP = 4  # kselftest's exit status of a program whose every test skipped

_VERSION_RE = re.compile(r"^(?:KTAP|TAP) version (\d+)\s*$")
_PLAN_RE = re.compile(r"^1\.\.(\d+)\s*(?:#\s*(.*))?$")
_RESULT_RE = re.compile(r"^(not ok|ok)\b(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*))?$")
_SUBTEST_RE = re.compile(r"^#\s*Subtest:\s*(.*)$")
_BAIL_RE = re.compile(r"^Bail out!\s*(.*)$")
# A directive starts at the first unescaped " # " (or a leading "# ") in the description.
_DIRECTIVE_RE = re.compile(r"(?:^|\s)(?<!\\)#\s*(SKIP|TODO|XFAIL|XPASS|ERROR|TIMEOUT)\b\s*(.*)$",
                           re.IGNORECASE)


@dataclass
class Result:
    """One result line, with the diagnostics printed before it and its subtests."""
    number: Optional[int]
    name: str
    status: str  # PASS, FAIL, SKIP or TODO
    directive: str = ""  # upper-case directive word, "" if none
    reason: str = ""  # text after the directive (skip reason, error message...)
    diagnostics: List[str] = field(default_factory=list)
    subtests: List["Result"] = field(default_factory=list)
    synthesized: bool = False  # made up by finish(), not printed by the program


@dataclass
class Report:
    version: Optional[str] = None  # e.g. "KTAP 1", "TAP 13"
    plan: Optional[int] = None
    plan_directive: str = ""  # "1..0 # SKIP reason" -> "SKIP reason"
    results: List[Result] = field(default_factory=list)
    trailing: List[str] = field(default_factory=list)  # diagnostics after the last result
    bail_out: Optional[str] = None
    problems: List[str] = field(default_factory=list)  # parse problems, in words

    @property
    def failed(self) -> bool:
        return any(r.status == FAIL for r in walk(self.results)) or bool(self.problems)


def walk(results):
    """Every result, depth first, parents after their subtests (output order)."""
    for r in results:
        yield from walk(r.subtests)
        yield r


def _parse_result(m) -> Result:
    word, num, desc = m.group(1), m.group(2), (m.group(3) or "")
    directive, reason = "", ""
    d = _DIRECTIVE_RE.search(desc)
    if d:
        directive, reason = d.group(1).upper(), d.group(2).strip()
        desc = desc[: d.start()]
    name = desc.strip().replace("\\#", "#")
    if not name and directive and reason and directive in ("XFAIL", "ERROR"):
        # kselftest prints "ok 3 # XFAIL msg" / "not ok 3 # error msg" without a name.
        name = reason
    status = PASS if word == "ok" else FAIL
    if directive == "SKIP":
        status = SKIP
    elif directive == "TODO":
        status = PASS if word == "ok" else TODO
    elif directive == "XFAIL" and word == "ok":
        status = PASS
    elif directive in ("ERROR", "TIMEOUT"):
        status = FAIL
    return Result(number=int(num) if num else None, name=name, status=status,
                  directive=directive, reason=reason)


class _Block:
    """One (sub)test level: a run of lines at the same indentation."""

    def __init__(self, indent: int, subtest_name: str = ""):
        self.indent = indent
        self.subtest_name = subtest_name
        self.report = Report()
        self.pending_diags: List[str] = []
        self.pending_sub: Optional["_Block"] = None

    def add_result(self, res: Result) -> None:
        res.diagnostics = self.pending_diags
        self.pending_diags = []
        if self.pending_sub is not None:
            res.subtests = self.pending_sub.close()
            self.pending_sub = None
        self.report.results.append(res)

    def close(self) -> List[Result]:
        """Results of this block, including a subtest block left open at the end."""
        if self.pending_sub is not None:
            res = Result(number=None, name=self.pending_sub.subtest_name or "unfinished-subtest",
                         status=FAIL, reason="subtest block not closed by a result line",
                         synthesized=True)
            self.add_result(res)
        return self.report.results


def parse(text: str) -> Report:
    """Parse KTAP/TAP text (stdout and stderr merged, in order)."""
    stack: List[_Block] = []
    root: Optional[_Block] = None
    subtest_name = ""
    for raw in text.splitlines():
        line = raw.rstrip("\r\n")
        stripped = line.lstrip(" \t")
        indent = len(line) - len(stripped)
        stripped = stripped.rstrip()
        if not stripped:
            continue
        m_ver = _VERSION_RE.match(stripped)
        m_plan = _PLAN_RE.match(stripped)
        m_res = _RESULT_RE.match(stripped)
        m_sub = _SUBTEST_RE.match(stripped)
        structural = m_ver or m_plan or m_res or m_sub
        if root is None:
            if not structural:
                continue  # noise before the first KTAP line belongs to no test
            root = _Block(indent)
            stack = [root]
        if not structural:
            # A diagnostic ("# ...") or stray output (an ASan report, a printf): keep it
            # with the innermost open level that it could belong to.
            target = stack[-1]
            for b in reversed(stack):
                if b.indent <= indent:
                    target = b
                    break
            if _BAIL_RE.match(stripped):
                root.report.bail_out = _BAIL_RE.match(stripped).group(1)
            target.pending_diags.append(stripped)
            continue
        # Leaving deeper levels: the block that ends waits for its parent's result line.
        while indent < stack[-1].indent and len(stack) > 1:
            done = stack.pop()
            stack[-1].pending_sub = done
        if indent > stack[-1].indent:
            stack.append(_Block(indent, subtest_name))
            subtest_name = ""
        blk = stack[-1]
        if m_sub:
            name = m_sub.group(1).strip()
            if len(stack) > 1 and not blk.report.results and not blk.subtest_name:
                blk.subtest_name = name  # KTAP: "    # Subtest: x" inside the child block
            else:
                subtest_name = name  # TAP14 style: before the indented block
        elif m_ver:
            kind = "KTAP" if stripped.startswith("KTAP") else "TAP"
            if blk.report.version is not None or blk.report.results:
                blk.report.problems.append(f"unexpected version line: {stripped!r}")
            blk.report.version = f"{kind} {m_ver.group(1)}"
        elif m_plan:
            if blk.report.plan is not None:
                blk.report.problems.append(f"second plan line: {stripped!r}")
            blk.report.plan = int(m_plan.group(1))
            blk.report.plan_directive = (m_plan.group(2) or "").strip()
        else:
            blk.add_result(_parse_result(m_res))
    if root is None:
        return Report()
    while len(stack) > 1:
        done = stack.pop()
        stack[-1].pending_sub = done
    root.close()
    rep = root.report
    rep.trailing = root.pending_diags
    return rep


def describe_exit(returncode: Optional[int], timed_out: bool = False,
                  timeout: Optional[float] = None) -> str:
    if timed_out:
        return f"timed out after {timeout:g} s" if timeout else "timed out"
    if returncode is None:
        return "did not run"
    if returncode < 0:
        try:
            sig = signal.Signals(-returncode).name
            return f"exited with signal {-returncode} ({sig})"
        except ValueError:
            return f"exited with signal {-returncode}"
    return f"exited with status {returncode}"


_KSELFTEST_RUN_RE = re.compile(r"^#\s+RUN\s+(\S+)\s+\.\.\.\s*$")


def _running_test(diags: List[str]) -> str:
    """The test kselftest_harness.h announced last ("#  RUN  global.x ..."), if any."""
    for d in reversed(diags):
        m = _KSELFTEST_RUN_RE.match(d)
        if m:
            return m.group(1)
    return ""


def finish(rep: Report, returncode: Optional[int], timed_out: bool = False,
           timeout: Optional[float] = None, output: str = "") -> Report:
    """Apply the program's exit outcome to a parsed report (modifies and returns rep)."""
    abnormal = timed_out or returncode is None or returncode != 0
    if returncode == KSFT_SKIP and not timed_out and rep.results and rep.plan == len(rep.results) \
            and all(r.status == SKIP for r in walk(rep.results)):
        abnormal = False
    how = describe_exit(returncode, timed_out, timeout)
    last = rep.results[-1] if rep.results else None
    last_no = (last.number if last and last.number is not None else len(rep.results))
    tail = list(rep.trailing)

    if not rep.results and rep.plan is None:
        # No KTAP at all: one failure that shows what the program printed.
        why = f"{how} without KTAP output" if abnormal else "no KTAP output (no plan, no results)"
        lines = output.splitlines()[-40:]
        rep.results.append(Result(number=None, name="no-ktap-output", status=FAIL, reason=why,
                                  diagnostics=lines, synthesized=True))
        return rep

    if rep.plan == 0 and not rep.results:
        # "1..0 # SKIP reason": the whole program skipped. Keep it visible as one skip.
        if abnormal:
            rep.results.append(Result(number=None, name="exit-status", status=FAIL,
                                      reason=f"{how} after plan 1..0", diagnostics=tail,
                                      synthesized=True))
        else:
            rep.results.append(Result(number=None, name="all", status=SKIP,
                                      directive="SKIP", reason=rep.plan_directive or "plan 1..0",
                                      synthesized=True))
        return rep

    seen = len(rep.results)
    if rep.plan is not None and seen < rep.plan:
        why = (f"{how} after test {last_no}" if abnormal
               else f"missing from the output (plan 1..{rep.plan}, {seen} results)")
        running = _running_test(tail)
        for k in range(seen + 1, rep.plan + 1):
            name = running if (k == seen + 1 and running) else f"test_{k}"
            rep.results.append(Result(number=k, name=name, status=FAIL, reason=why,
                                      diagnostics=tail if k == seen + 1 else [],
                                      synthesized=True))
        return rep
    if rep.plan is None and abnormal:
        rep.results.append(Result(number=None, name="rest", status=FAIL,
                                  reason=f"{how} after test {last_no} (no plan line)",
                                  diagnostics=tail, synthesized=True))
        return rep
    if rep.plan is not None and seen > rep.plan:
        rep.problems.append(f"{seen} results but the plan says 1..{rep.plan}")
    if rep.plan is None:
        rep.problems.append("no plan line")
    if rep.problems:
        rep.results.append(Result(number=None, name="plan", status=FAIL,
                                  reason="; ".join(rep.problems), diagnostics=tail,
                                  synthesized=True))
        return rep
    if abnormal and not any(r.status == FAIL for r in walk(rep.results)):
        rep.results.append(Result(number=None, name="exit-status", status=FAIL,
                                  reason=f"{how} although every test passed",
                                  diagnostics=tail, synthesized=True))
    return rep


def item_names(results, prefix: str = ""):
    """(unique id, Result) for every result line, subtests as 'parent/sub'."""
    out = []
    used = {}
    for r in results:
        base = prefix + (r.name or f"test_{r.number}")
        n = used.get(base, 0) + 1
        used[base] = n
        ident = base if n == 1 else f"{base}#{n}"
        out.extend(item_names(r.subtests, ident + "/"))
        out.append((ident, r))
    return out


def format_failure(binary: str, ident: str, r: Result) -> str:
    """A readable failure message: binary, test, reason and its diagnostics."""
    head = f"{binary}: {ident}: "
    if r.status == FAIL:
        head += "FAILED"
    else:
        head += r.status.upper()
    if r.directive:
        head += f" [{r.directive}]"
    if r.reason:
        head += f": {r.reason}"
    lines = [head]
    lines += ["    " + d for d in r.diagnostics]
    failed_subs = [s for s in r.subtests if s.status == FAIL]
    if failed_subs:
        lines.append("    failed subtests: " + ", ".join(s.name for s in failed_subs))
    return "\n".join(lines)
