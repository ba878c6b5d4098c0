# SPDX-License-Identifier: GPL-2.0
"""One verdict per item, in one place: the runners' result files turned into items and
each item's outcome (pass, fail, skip, xfail) with its reason. pytest
(harness/core/pytest_plugin.py) reports these outcomes into the JUnit files, and the reports
(harness/reports/impls_md.py) render the very same ones, so a report cannot say what the
JUnit files do not. No pytest here: the reports run without it.

Items (the entry kinds of harness/core/results.py):
  "ktap" entries   every result line of the program's KTAP file (after its exit status
                   was applied) is an item <prefix><test>
  "golden" entries the decoded capture compared with its golden file (harness/core/golden.py)
  "check" entries  the runner's own verdict
A runner whose summary.json is missing gives ONE failed item "<runner>/results" naming
the command that writes it; a summary that cannot be read fails the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Tuple

from harness.core.common import REPO_ROOT, display_path, safe_id
from harness.core.golden import compare, golden_problem
from harness.core.ktap import FAIL, SKIP, TODO, finish, format_failure, item_names, parse
from harness.core.results import SUMMARY, read_summary, runner_command, runner_dir

OUTCOMES = ("pass", "fail", "skip", "xfail")


@dataclass
class ResultItem:
    """One item: what the runner recorded and everything the judge needs."""
    ident: str
    kind: str  # "check", "ktap" or "golden"
    runner: str
    folder: str = ""  # the runner's results folder
    status: str = ""  # check: pass, fail, skip, xfail
    message: str = ""
    label: str = ""  # ktap: the program, as a person would name it
    result: object = None  # ktap: the ktap.Result of this line
    entry: dict = field(default_factory=dict)  # golden: the entry
    facts: dict = field(default_factory=dict)  # what a report shows beside the verdict


def items_of_entry(runner: str, folder: str, entry: dict) -> List[ResultItem]:
    kind = entry.get("kind")
    if kind == "check":
        return [ResultItem(safe_id(entry["id"]), "check", runner, folder,
                           status=entry.get("status", "fail"), message=entry.get("message", ""),
                           facts=dict(entry.get("facts") or {}))]
    if kind == "golden":
        return [ResultItem(safe_id(entry["id"]), "golden", runner, folder, entry=entry,
                           facts=dict(entry.get("facts") or {}))]
    if kind != "ktap":
        return [ResultItem(safe_id(f"{runner}/bad-entry"), "check", runner, folder, "fail",
                           f"{display_path(folder)}/{SUMMARY}: unknown entry kind {kind!r}")]
    prefix, label = entry["prefix"], entry.get("label", entry["prefix"])
    path = os.path.join(folder, entry["ktap"])
    if entry.get("error"):
        return [ResultItem(safe_id(prefix.rstrip("/")), "check", runner, folder, "fail",
                           f"{label}: {entry['error']}")]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        return [ResultItem(safe_id(prefix.rstrip("/")), "check", runner, folder, "fail",
                           f"{label}: its output {display_path(path)} cannot be read "
                           f"({e.strerror}): run `{runner_command(runner, '')}` again")]
    rep = finish(parse(text), entry.get("returncode"), bool(entry.get("timed_out")),
                 entry.get("timeout"), text)
    return [ResultItem(safe_id(ident), "ktap", runner, folder, label=label, result=res)
            for ident, res in item_names(rep.results, prefix)]


def collect_results(results: str, runners, key: str) -> List[ResultItem]:
    """Every item of the runners, read from their result files (no program runs); key: the
    build variant, or the implementation's name for the implementation runners."""
    items: List[ResultItem] = []
    for runner in runners:
        folder = runner_dir(results, runner, key)
        try:
            data = read_summary(folder)
        except FileNotFoundError:
            items.append(ResultItem(f"{runner}/results", "check", runner, folder, "fail",
                                    f"no results: {display_path(folder)}/{SUMMARY} is missing; "
                                    f"run `{runner_command(runner, key)}`"))
            continue
        except (OSError, ValueError) as e:
            items.append(ResultItem(f"{runner}/results", "check", runner, folder, "fail",
                                    f"unreadable results ({e}); run "
                                    f"`{runner_command(runner, key)}` again"))
            continue
        for entry in data["entries"]:
            items += items_of_entry(runner, folder, entry)
    return items


@dataclass
class GoldenVerdict:
    status: str  # pass or fail
    message: str
    failed_events: int  # golden events not reproduced (all of them when nothing decoded)
    expected: int


def golden_verdict(folder: str, e: dict) -> GoldenVerdict:
    """A golden entry judged: the decoded capture against its golden file."""
    if e.get("problem"):
        return GoldenVerdict("fail", e["problem"], -1, -1)
    decoded = os.path.join(folder, e["decoded"])
    golden = os.path.join(REPO_ROOT, e["golden"])
    try:
        with open(decoded, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as err:
        return GoldenVerdict("fail", f"{e['case']}: decoded capture {display_path(decoded)} "
                             f"cannot be read ({err.strerror})", -1, -1)
    if not os.path.exists(golden):
        return GoldenVerdict("fail", golden_problem(text, golden, e["case"], e["transport"],
                                                    display_path(decoded)), -1, -1)
    with open(golden, encoding="utf-8", errors="surrogateescape") as f:
        res = compare(f.read(), text, e["case"], transport=e["transport"])
    if res.ok:
        return GoldenVerdict("pass", "", 0, res.expected)
    return GoldenVerdict("fail", f"{res.message}\n(decoded capture: {display_path(decoded)})",
                         res.failed_events if res.expected else -1, res.expected or -1)


def judged(it: ResultItem) -> Tuple[str, str, dict]:
    """(outcome, reason, facts): the outcome and reason of outcome(), and the facts a report
    shows beside them: the runner's, and for a golden item the events it compared and how
    many of them failed (-1: unknown, nothing decoded). Judged once, here: the reports read
    these back from the JUnit files."""
    facts = dict(it.facts)
    if it.kind == "golden":
        v = golden_verdict(it.folder, it.entry)
        facts.update(expected_events=v.expected, failed_events=v.failed_events)
        return v.status, v.message, facts
    return outcome(it) + (facts,)


def outcome(it: ResultItem) -> Tuple[str, str]:
    """(pass|fail|skip|xfail, the reason: its first line says why)."""
    if it.kind == "check":
        if it.status not in OUTCOMES:
            return "fail", f"{it.ident}: unknown status {it.status!r}"
        default = {"fail": f"{it.ident}: failed (the runner gave no reason)",
                   "skip": f"{it.ident}: skipped (the runner gave no reason)",
                   "xfail": f"{it.ident}: expected failure", "pass": ""}[it.status]
        return it.status, it.message or default
    if it.kind == "ktap":
        r = it.result
        if r.status == FAIL:
            return "fail", format_failure(it.label, it.ident, r)
        if r.status == SKIP:
            return "skip", r.reason or f"{it.label}: {it.ident}: SKIP without a reason"
        if r.status == TODO:
            return "xfail", r.reason or f"{it.label}: {it.ident}: TODO"
        return "pass", ""
    v = golden_verdict(it.folder, it.entry)
    return v.status, v.message
