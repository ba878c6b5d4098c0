# SPDX-License-Identifier: GPL-2.0
"""What every report is rendered from: the JUnit files pytest wrote when it judged the
runners' results (harness/core/judge_items.py). One verdict, one place: a report reads
each item's outcome, reason and facts back from the file, and judges nothing itself.

A testcase is named for the item it judges (harness/core/pytest_plugin.py judge(): name =
item id, classname = ehconf.<runner>) and carries the facts a report shows beside the
verdict as <properties>; the file's testsuite properties "<runner>.<name>" describe each
runner's run (checkout, commit, finished, kernel). xunit1 outcomes: <failure> or <error> is
fail, <skipped type="pytest.xfail"> xfail, any other <skipped> skip, else pass.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Dict, List, Optional

# The older form test_results[<id>] is read too, for files an earlier run left.
CASE_NAME = re.compile(r"^(?:test_results\[(.*)\]|([^\[\]]+))$")


@dataclass
class Item:
    ident: str
    runner: str
    outcome: str  # pass, fail, skip or xfail
    message: str = ""
    facts: Dict[str, str] = field(default_factory=dict)

    @property
    def first(self) -> str:
        """The reason's first line, as short as a table cell needs."""
        return (self.message.strip().splitlines() or [""])[0][:200]

    def fact(self, name: str, default: int = -1) -> int:
        try:
            return int(self.facts[name])
        except (KeyError, ValueError):
            return default


@dataclass
class Suite:
    path: str
    props: Dict[str, str] = field(default_factory=dict)
    items: List[Item] = field(default_factory=list)

    def run(self, runner: str) -> Dict[str, str]:
        """The testsuite properties of one runner's run, without the "<runner>." prefix."""
        p = runner + "."
        return {k[len(p):]: v for k, v in self.props.items() if k.startswith(p)}

    def by_id(self) -> Dict[str, Item]:
        return {i.ident: i for i in self.items}

    def under(self, prefix: str) -> List[Item]:
        return [i for i in self.items if i.ident == prefix or i.ident.startswith(prefix + "/")]


def _message(case: ET.Element, tag: str) -> str:
    el = case.find(tag)
    if el is None:
        return ""
    # pytest puts the reason in the message attribute, the whole text in the body
    text = (el.text or "").strip()
    msg = el.get("message", "")
    for prefix in ("Failed: ", "Skipped: ", "XFailed: ", "expected failure: "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    return text if len(text) > len(msg) and tag != "skipped" else msg or text


def _skipped_text(case: ET.Element) -> str:
    el = case.find("skipped")
    msg = el.get("message", "") if el is not None else ""
    if msg.startswith("expected failure: "):
        msg = msg[len("expected failure: "):]
    return msg


def read(path: str) -> Optional[Suite]:
    """The items and run properties of one JUnit file; None when there is no file."""
    if not os.path.exists(path):
        return None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise ValueError(f"{path}: not a JUnit file ({e})") from None
    suite = Suite(path)
    for ts in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
        for p in ts.findall("./properties/property"):
            suite.props[p.get("name", "")] = p.get("value", "")
        for case in ts.iter("testcase"):
            m = CASE_NAME.match(case.get("name", ""))
            if not m:
                continue
            ident = m.group(1) or m.group(2)
            runner = case.get("classname", "").split(".", 1)[-1]
            facts = {p.get("name", ""): p.get("value", "")
                     for p in case.findall("./properties/property")}
            if case.find("failure") is not None:
                outcome, message = "fail", _message(case, "failure")
            elif case.find("error") is not None:
                outcome, message = "fail", _message(case, "error")
            elif case.find("skipped") is not None:
                xfail = case.find("skipped").get("type") == "pytest.xfail"
                outcome, message = ("xfail" if xfail else "skip"), _skipped_text(case)
            else:
                outcome, message = "pass", ""
            suite.items.append(Item(ident, runner, outcome, message, facts))
    return suite
