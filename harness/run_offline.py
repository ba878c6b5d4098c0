# SPDX-License-Identifier: GPL-2.0
"""Runner `offline` (make check-offline): every case -> capture file -> ehdecode --golden.

For each case binary in <build>/cases/ (two at a time, each with a timeout):
  case/<case>/<test>   the case with EHCONF_CAPTURE=<case>.dat: its KTAP ("ktap" entry)
  golden/<case>        that capture decoded by `ehdecode --golden` into <case>.json, to be
                       compared with golden/<case>.json as transport "offline" ("golden"
                       entry; a case whose source says "ehconf-no-golden" gets a skip)
  tl-golden/<case>     the TraceLogging (ETW) path without Windows: the case again with
                       EHCONF_CAPTURE_TL=<case>.tlcap (events as the ETW backend hands them
                       to EventWriteTransfer), decoded, compared as transport "etw"
  lint/<case>          no ASSERT_/EXPECT_ without its trailing ';' in cases/<case>.c
plus a failing check for a golden file without a case and a case source without a binary.

Writes <results>/offline-<variant>/ (<case>.dat, .json, .log = KTAP, summary.json) and
<results>/tl-offline-<variant>/ (<case>.tlcap, .json, .log). A golden difference by hand:
  diff golden/<case>.json build/results/offline-gcc/<case>.json
"""

from __future__ import annotations

import glob
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from case_lint import missing_semicolons
from cases import capture_case, capture_case_tl, declares_no_golden, decode_to, find_cases
from common import display_path, safe_id
from results import check_entry, golden_entry, ktap_entry, runner_command, runner_dir
from transports import get


def run_offline(build: str, results: str, timeout: float, repo: str):
    variant = os.path.basename(build)
    out = runner_dir(results, "offline", variant)
    tldir = os.path.join(results, "tl-offline-" + variant)
    for d in (out, tldir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    ehdecode = os.path.join(build, "bin", "ehdecode")
    golden_dir = os.path.join(repo, "golden")
    binaries = find_cases(build)
    entries = []
    if not binaries:
        entries.append(check_entry("cases/none", "fail",
                                   f"no case binaries in {display_path(build)}/cases "
                                   f"(run `{runner_command('offline', variant)}`)"))

    def one(path):
        name = os.path.basename(path)
        dat = os.path.join(out, name + ".dat")
        tlcap = os.path.join(tldir, name + ".tlcap")
        r, _ = capture_case(path, dat, timeout, log=os.path.join(out, name + ".log"))
        got = [ktap_entry(f"case/{name}/", name + ".log", display_path(path), r, timeout)]
        golden = os.path.join("golden", name + ".json")
        if declares_no_golden(repo, name):
            if os.path.exists(os.path.join(repo, golden)):
                got.append(check_entry(safe_id(f"golden/{name}"), "fail",
                                       f"cases/{name}.c declares ehconf-no-golden but {golden} "
                                       f"exists: remove one of them"))
            else:
                got.append(check_entry(safe_id(f"golden/{name}"), "skip",
                                       f"cases/{name}.c declares ehconf-no-golden (KTAP only)"))
            return got
        problem = decode_to(ehdecode, dat, os.path.join(out, name + ".json"), timeout)
        got.append(golden_entry(safe_id(f"golden/{name}"), name, get("capture").golden, name + ".json",
                                golden, problem))
        tlog = os.path.join(tldir, name + ".log")
        tr, _ = capture_case_tl(path, tlcap, timeout, log=tlog)
        if tr.how():
            problem = (f"{name}: the case failed under the TraceLogging capture backend "
                       f"(EHCONF_CAPTURE_TL): {tr.how()}; see {display_path(tlog)}")
        else:
            problem = decode_to(ehdecode, tlcap, os.path.join(tldir, name + ".json"), timeout)
        got.append(golden_entry(safe_id(f"tl-golden/{name}"), name, get("tlcapture").golden,
                                os.path.relpath(os.path.join(tldir, name + ".json"), out),
                                golden, problem))
        return got

    with ThreadPoolExecutor(max_workers=2) as ex:
        for got in ex.map(one, binaries):
            entries += got
    # A golden file whose case is gone would otherwise never be checked again.
    built = {os.path.basename(p) for p in binaries}
    for g in sorted(glob.glob(os.path.join(golden_dir, "*.json"))):
        name = os.path.basename(g)[:-5]
        if name not in built:
            entries.append(check_entry(safe_id(f"golden/{name}"), "fail",
                                       f"golden/{name}.json exists but no case binary "
                                       f"{display_path(build)}/cases/{name} was built"))
    for src in sorted(glob.glob(os.path.join(repo, "cases", "*.c"))):
        name = os.path.basename(src)[:-2]
        if binaries and name not in built:
            entries.append(check_entry(safe_id(f"case/{name}"), "fail",
                                       f"cases/{name}.c has no binary {display_path(build)}"
                                       f"/cases/{name} (build it with `make`)"))
        with open(src, encoding="utf-8") as f:
            problems = missing_semicolons(f.read(), display_path(src))
        entries.append(check_entry(safe_id(f"lint/{name}"), "fail" if problems else "pass",
                                   "\n".join(problems)))
    return out, entries
