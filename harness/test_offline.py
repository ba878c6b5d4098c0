# SPDX-License-Identifier: GPL-2.0
"""Offline conformance: every case -> capture file -> ehdecode --golden -> golden/<case>.json.

Items (all created at collection time; the cases run once, in parallel):
  case/<case>/<test>   one per KTAP result line of the case (its own ASSERT/EXPECTs)
  golden/<case>        the decoded capture equals golden/<case>.json (harness/golden.py);
                       skipped for a case whose source says "ehconf-no-golden"
  tl-golden/<case>     the TraceLogging (ETW) path without Windows: the case runs again with
                       EHCONF_CAPTURE_TL=<case>.tlcap (events translated exactly as the ETW
                       backend hands them to EventWriteTransfer), `ehdecode --golden` decodes
                       that with the TraceLogging decoder, and the result must equal the SAME
                       golden file compared as transport "etw": only the differences golden
                       declares for "etw" (named in lib/decode/src/tl_json.c) may appear
  lint/<case>          no ASSERT_/EXPECT_ without its trailing ';' in cases/<case>.c

Artifacts in <results>/offline-<variant>/: <case>.dat (capture), <case>.json (decoded),
<case>.log (KTAP output); TraceLogging ones in <results>/tl-offline-<variant>/: <case>.tlcap,
<case>.json, <case>.log. To see a golden difference by hand:
  diff golden/<case>.json build/results/offline-gcc/<case>.json
"""

from __future__ import annotations

import glob
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from case_lint import missing_semicolons
from cases import (capture_case, capture_case_tl, declares_no_golden, find_cases,
                   golden_problem)
from results_plugin import display_path, safe_id, settings
from ktap import FAIL, SKIP, TODO, format_failure, item_names


class OfflineItem:
    def __init__(self, ident, kind, case, **kw):
        self.ident, self.kind, self.case = ident, kind, case
        self.__dict__.update(kw)


_cache = {}


def collect_offline_items(config):
    s = settings(config)
    if s.build in _cache:
        return _cache[s.build]
    outdir = os.path.join(s.results, "offline-" + os.path.basename(s.build))
    tldir = os.path.join(s.results, "tl-offline-" + os.path.basename(s.build))
    ehdecode = os.path.join(s.build, "bin", "ehdecode")
    golden_dir = os.path.join(s.repo, "golden")
    binaries = find_cases(s.build)
    items = []
    if not binaries:
        items.append(OfflineItem("cases/none", "problem", "",
                                 problem=f"no case binaries in {s.build}/cases (run `make all`)"))

    def one(path):
        name = os.path.basename(path)
        dat = os.path.join(outdir, name + ".dat")
        tlcap = os.path.join(tldir, name + ".tlcap")
        return (path, dat, capture_case(path, dat, s.timeout), tlcap,
                capture_case_tl(path, tlcap, s.timeout))

    with ThreadPoolExecutor(max_workers=2) as ex:
        runs = list(ex.map(one, binaries))
    for path, dat, (r, rep), tlcap, (tr, trep) in runs:
        name = os.path.basename(path)
        with open(os.path.join(outdir, name + ".log"), "w") as f:
            f.write(r.output)
        with open(os.path.join(tldir, name + ".log"), "w") as f:
            f.write(tr.output or tr.error or "")
        rel = display_path(path)
        for ident, res in item_names(rep.results, f"case/{name}/"):
            items.append(OfflineItem(safe_id(ident), "ktap", name, binary=rel, result=res))
        if declares_no_golden(s.repo, name):
            items.append(OfflineItem(safe_id(f"golden/{name}"), "no-golden", name,
                                     golden=os.path.join(golden_dir, name + ".json")))
            continue
        items.append(OfflineItem(safe_id(f"golden/{name}"), "golden", name, dat=dat,
                                 golden=os.path.join(golden_dir, name + ".json"),
                                 decoded=os.path.join(outdir, name + ".json"),
                                 ehdecode=ehdecode, timeout=s.timeout))
        items.append(OfflineItem(safe_id(f"tl-golden/{name}"), "tl-golden", name, dat=tlcap,
                                 golden=os.path.join(golden_dir, name + ".json"),
                                 decoded=os.path.join(tldir, name + ".json"),
                                 log=os.path.join(tldir, name + ".log"), run=tr,
                                 ehdecode=ehdecode, timeout=s.timeout))
    # A golden file whose case is gone would otherwise never be checked again.
    built = {os.path.basename(p) for p in binaries}
    for g in sorted(glob.glob(os.path.join(golden_dir, "*.json"))):
        name = os.path.basename(g)[:-5]
        if name not in built:
            items.append(OfflineItem(safe_id(f"golden/{name}"), "problem", name,
                                     problem=f"golden/{name}.json exists but no case binary "
                                             f"{s.build}/cases/{name} was built"))
    for src in sorted(glob.glob(os.path.join(s.repo, "cases", "*.c"))):
        name = os.path.basename(src)[:-2]
        if binaries and name not in built:
            items.append(OfflineItem(safe_id(f"case/{name}"), "problem", name,
                                     problem=f"cases/{name}.c has no binary "
                                             f"{s.build}/cases/{name} (build it with `make`)"))
        items.append(OfflineItem(safe_id(f"lint/{name}"), "lint", name, source=src))
    _cache[s.build] = items
    return items


def pytest_generate_tests(metafunc):
    if "offline_item" in metafunc.fixturenames:
        items = collect_offline_items(metafunc.config)
        metafunc.parametrize("offline_item", items, ids=[i.ident for i in items])


def _check_ktap(it):
    r = it.result
    if r.status == FAIL:
        pytest.fail(format_failure(it.binary, it.ident, r), pytrace=False)
    if r.status == SKIP:
        pytest.skip(r.reason or "skipped")
    if r.status == TODO:
        pytest.xfail(r.reason or "TODO")


def _check_golden(it, transport="offline"):
    problem = golden_problem(it.ehdecode, it.dat, it.decoded, it.golden, it.case, transport,
                             it.timeout)
    if problem:
        pytest.fail(problem, pytrace=False)


def _check_tl_golden(it):
    r = it.run
    if r.error or r.timed_out or r.returncode != 0:
        how = r.error or ("timed out" if r.timed_out else f"exit status {r.returncode}")
        pytest.fail(f"{it.case}: the case failed under the TraceLogging capture backend "
                    f"(EHCONF_CAPTURE_TL): {how}; see {display_path(it.log)}", pytrace=False)
    _check_golden(it, transport="etw")


def _check_no_golden(it):
    if os.path.exists(it.golden):
        pytest.fail(f"cases/{it.case}.c declares ehconf-no-golden but golden/{it.case}.json "
                    f"exists: remove one of them", pytrace=False)
    pytest.skip(f"cases/{it.case}.c declares ehconf-no-golden (KTAP only)")


def _check_lint(it):
    with open(it.source, encoding="utf-8") as f:
        problems = missing_semicolons(f.read(), display_path(it.source))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_offline(offline_item):
    it = offline_item
    if it.kind == "problem":
        pytest.fail(it.problem, pytrace=False)
    {"ktap": _check_ktap, "golden": _check_golden, "tl-golden": _check_tl_golden,
     "no-golden": _check_no_golden, "lint": _check_lint}[it.kind](it)
