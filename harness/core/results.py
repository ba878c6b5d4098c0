# SPDX-License-Identifier: GPL-2.0
"""Result files: what a runner (harness/run.py) writes and pytest (harness/core/pytest_plugin.py)
reads. Runners execute programs; pytest only reads these files and turns them into items.

Each runner writes <results>/<folder>/summary.json (folder per RUNNERS below):

  {"runner": "unit", "command": "make unit VARIANT=asan", "seconds": 3.2,
   "entries": [ ... ]}

and next to it the raw output of every program it ran (KTAP, logs, captures). An entry
is one of:

  {"kind": "ktap", "prefix": "unit/lib/test_encode/", "ktap": "lib/test_encode.ktap",
   "label": "build/asan/tests/lib/test_encode", "returncode": 0, "timed_out": false,
   "timeout": 20, "error": ""}
      one program that prints KTAP: every result line of the file becomes an item
      <prefix><test>, after the exit status was applied (harness/core/ktap.py finish(): a
      crash or timeout fails the tests that did not report).
  {"kind": "golden", "id": "golden/structs", "case": "structs", "transport": "offline",
   "decoded": "structs.json", "golden": "golden/structs.json", "problem": ""}
      a decoded capture against its golden file (harness/core/golden.py compare()), judged when
      the item runs; "problem" (the capture or the decoder failed) fails it first.
  {"kind": "check", "id": "lint/structs", "status": "pass", "message": ""}
      a result the runner decided itself (status pass, fail, skip or xfail).

Any entry may carry "facts": {"name": scalar, ...}, what a report shows beside the
item's verdict (a case's golden event count, a damaged set's input count, a contract
row's observation). The judge writes them into the item's JUnit testcase as properties,
and the summary's other top-level scalars (checkout, commit, finished, kernel...) into
the JUnit file's testsuite properties as "<runner>.<name>": the reports
(harness/reports/) are rendered from the JUnit files alone.

Paths in entries are relative to the summary's folder, "golden" to the checkout.
summary.json is written last and atomically (write + rename): a summary that exists
belongs to a finished run.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

SUMMARY = "summary.json"
STATUSES = ("pass", "fail", "skip", "xfail")


@dataclass(frozen=True)
class RunnerInfo:
    name: str
    folder: str  # under <results>; {variant}: the build folder's name (gcc, asan...), or
    #              {impl}: the implementation's name (a row of impl/implementations.txt)
    command: str  # what a person types to produce the results
    marks: Tuple[str, ...] = ()
    default: bool = True  # judged when pytest is given no runner (the plugin's default)

    @property
    def keyed_by(self) -> str:
        return "impl" if "{impl}" in self.folder else "variant"


RUNNERS: Dict[str, RunnerInfo] = {r.name: r for r in (
    RunnerInfo("unit", "unit-{variant}", "make unit VARIANT={variant}"),
    RunnerInfo("offline", "offline-{variant}", "make check-offline VARIANT={variant}"),
    RunnerInfo("wine", "wine", "make check-wine", ("wine",)),
    RunnerInfo("vm", "vm", "make check-vm", ("vm", "slow")),
    RunnerInfo("impl", "impl-{impl}", "make check-impl IMPL={impl}"),
    # The same implementations on the real kernel: one boot, one folder per implementation.
    RunnerInfo("impl-vm", "impl-vm/{impl}", "make check-impl IMPL={impl}", ("vm", "slow")),
    # The decoders under test (make check-decoders), keyed like the implementations by the
    # row's name (decoders/decoders.txt); judged only when named.
    RunnerInfo("decoder", "decoders/{impl}", "make check-decoders DECODER={impl}",
               default=False),
)}


def runner_dir(results: str, runner: str, key: str) -> str:
    """The runner's folder; key: the build variant, or for the implementation runners
    the implementation's name."""
    r = RUNNERS[runner]
    return os.path.join(results, r.folder.format(**{r.keyed_by: key}))


def runner_command(runner: str, key: str) -> str:
    r = RUNNERS[runner]
    return r.command.format(**{r.keyed_by: key})


def ktap_entry(prefix: str, ktap: str, label: str, run, timeout: float) -> dict:
    """An entry for one KTAP program run (run: harness/core/processes.py Run)."""
    return {"kind": "ktap", "prefix": prefix, "ktap": ktap, "label": label,
            "returncode": run.returncode, "timed_out": run.timed_out, "timeout": timeout,
            "error": run.error, "seconds": round(run.seconds, 3)}


def golden_entry(ident: str, case: str, transport: str, decoded: str, golden: str,
                 problem: str = "") -> dict:
    return {"kind": "golden", "id": ident, "case": case, "transport": transport,
            "decoded": decoded, "golden": golden, "problem": problem}


def check_entry(ident: str, status: str, message: str = "", facts: Optional[dict] = None) -> dict:
    assert status in STATUSES, status
    e = {"kind": "check", "id": ident, "status": status, "message": message}
    if facts:
        e["facts"] = facts
    return e


def run_facts(data: dict) -> Dict[str, str]:
    """The summary's scalars that describe the run (not its entries), and each member of
    its "report" object as JSON under "report.<name>" (the VM run's per-case tables, limits
    and guest facts): what the JUnit file's testsuite properties carry for the reports."""
    out = {k: str(v) for k, v in data.items()
           if k not in ("entries", "runner") and isinstance(v, (str, int, float, bool))}
    for k, v in (data.get("report") or {}).items():
        out[f"report.{k}"] = json.dumps(v)  # in the runner's order: the tables keep it
    return out


def write_summary(folder: str, runner: str, command: str, entries: List[dict],
                  seconds: float, extra: Optional[dict] = None) -> str:
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, SUMMARY)
    # "finished": when the run ended (UTC), so a report can say which run a row came from.
    data = {"runner": runner, "command": command, "seconds": round(seconds, 3),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "entries": entries}
    data.update(extra or {})
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return path


def read_summary(folder: str) -> dict:
    """The summary of a folder; raises OSError or ValueError with the reason."""
    path = os.path.join(folder, SUMMARY)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ValueError(f"{path}: no \"entries\" list")
    return data


def write_text(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
