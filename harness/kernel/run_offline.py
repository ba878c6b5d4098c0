# SPDX-License-Identifier: GPL-2.0
"""Runner `offline` (make check-offline): every case -> capture file -> ehdecode --golden.

For each case binary in <build>/cases/ (two at a time, each with a timeout), once per
capture transport of the registry (lib/eventheader/include/eh_transports.def), the
reference ("capture") first:
  case/<case>/<test>       the reference run's KTAP ("ktap" entry)
  <prefix>golden/<case>    the case's capture (<case>.<reader>, written through the
                           transport's variable) decoded by `ehdecode --golden` into
                           <case>.json and compared with golden/<case>.json as the
                           transport's golden name ("golden" entry; a case whose source
                           says "ehconf-no-golden" gets a skip and no other transport).
                           Today: golden/<case> (EHCONF_CAPTURE, .dat, "offline") and
                           tl-golden/<case>, the TraceLogging (ETW) path without Windows
                           (EHCONF_CAPTURE_TL: events as the ETW backend hands them to
                           EventWriteTransfer, .tlcap, "etw")
  lint/<case>              no ASSERT_/EXPECT_ without its trailing ';' in cases/<case>.c
plus a failing check for a golden file without a case and a case source without a binary.

Writes <results>/<prefix>offline-<variant>/ per transport (<case>.<reader>, .json, .log =
KTAP; summary.json in the reference's offline-<variant>/). A golden difference by hand:
  diff golden/<case>.json build/results/offline-gcc/<case>.json
"""

from __future__ import annotations

import glob
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from harness.kernel.case_lint import missing_semicolons
from harness.kernel.case_capture import capture_case, declares_no_golden, find_cases
from harness.core.ehdecode import decode_to
from harness.core.common import display_path, safe_id
from harness.core.results import check_entry, golden_entry, ktap_entry, runner_command, runner_dir
from harness.core.transports import REFERENCE, Transport, captures

# The registry's capture transports, the reference first: its run gives the case's KTAP.
CAPTURES = sorted(captures(), key=lambda t: t.golden != REFERENCE)
# The registry rows this runner runs (tests/harness/test_transports.py: every row is some
# runner's): every capture transport, each with its own items.
EXERCISES = tuple(t.name for t in CAPTURES)


def capture_dir(results: str, t: Transport, variant: str) -> str:
    """<results>/<prefix>offline-<variant>/: where transport t's captures go."""
    reference_dir = runner_dir(results, "offline", variant)
    return os.path.join(os.path.dirname(reference_dir), t.prefix + os.path.basename(reference_dir))


def run_offline(build: str, results: str, timeout: float, repo: str):
    variant = os.path.basename(build)
    out = runner_dir(results, "offline", variant)
    dirs = {t.name: capture_dir(results, t, variant) for t in CAPTURES}
    for d in dirs.values():
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
        golden = os.path.join("golden", name + ".json")
        got = []
        for t in CAPTURES:
            d = dirs[t.name]
            log, decoded = os.path.join(d, name + ".log"), os.path.join(d, name + ".json")
            r, _ = capture_case(path, os.path.join(d, name + t.suffix), timeout, log=log,
                                transport=t.name)
            item = safe_id(f"{t.prefix}golden/{name}")
            reference = t.golden == REFERENCE
            if reference:
                got.append(ktap_entry(f"case/{name}/", name + ".log", display_path(path), r,
                                      timeout))
                if declares_no_golden(repo, name):
                    got.append(no_golden_entry(repo, name, golden, item))
                    return got
            # The reference's own failures are its KTAP items; another transport has only
            # its golden item to say that the case failed under it.
            if not reference and r.how():
                problem = (f"{name}: the case failed under the {t.name} capture backend "
                           f"({t.env}): {r.how()}; see {display_path(log)}")
            else:
                problem = decode_to(ehdecode, os.path.join(d, name + t.suffix), decoded, timeout)
            got.append(golden_entry(item, name, t.golden, os.path.relpath(decoded, out), golden,
                                    problem))
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


def no_golden_entry(repo: str, name: str, golden: str, item: str) -> dict:
    """A case that declares ehconf-no-golden: skipped, or failed if a golden file exists."""
    if os.path.exists(os.path.join(repo, golden)):
        return check_entry(item, "fail", f"cases/{name}.c declares ehconf-no-golden but "
                                         f"{golden} exists: remove one of them")
    return check_entry(item, "skip", f"cases/{name}.c declares ehconf-no-golden (KTAP only)")
