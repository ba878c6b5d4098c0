#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The ETW encoding of every case, checked on Linux without Windows.

Each case runs with EHCONF_CAPTURE_TL=<case>.tlcap: libeventheader translates every
event to TraceLogging exactly as the ETW backend hands it to EventWriteTransfer and
appends it to a .tlcap file; `ehdecode --golden` decodes it with the TraceLogging
decoder, and harness/core/golden.py compares the result with the SAME golden/<case>.json as
the EventHeader capture (transport "etw"). Differences by design are named in
lib/decode/src/tl_json.c (errno-lost, time-range, utf-bom-lost, fixed-format-string)
and may only appear where golden/<case>.json declares them for "etw" (harness/core/golden.py).

`make check-offline` (so every `make test`) runs the same check as its offline runner
items "tl-golden/<case>"; this script is the one-screen summary of that path alone.

    /usr/bin/python3 scripts/windows/tl_offline_check.py [BUILD_DIR]   (default build/gcc)

Results in BUILD_DIR/../results/tl-offline/: <case>.tlcap, <case>.json, <case>.log.
Ends with "N passed, N failed, N skipped"; exit 1 if anything failed.
"""

from __future__ import annotations

import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, REPO)

from harness.kernel.case_capture import capture_case, declares_no_golden, find_cases  # noqa: E402
from harness.core.golden import compare  # noqa: E402
from harness.core.transports import get  # noqa: E402
from harness.core.processes import run  # noqa: E402

TIMEOUT = 300.0


def main(argv) -> int:
    os.environ.pop("EHCONF_CAPTURE", None)  # it must not pick the EventHeader capture
    build = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(REPO, "build", "gcc"))
    out = os.path.join(os.path.dirname(build), "results", "tl-offline")
    os.makedirs(out, exist_ok=True)
    ehdecode = os.path.join(build, "bin", "ehdecode")
    passed = failed = skipped = 0
    cases = find_cases(build)
    if not cases:
        print(f"tl-offline: no case binaries in {build}/cases (run `make`)")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    for case in cases:
        name = os.path.basename(case)
        golden_path = os.path.join(REPO, "golden", name + ".json")
        tlcap = os.path.join(out, name + ".tlcap")
        r, _ = capture_case(case, tlcap, TIMEOUT, transport="tlcapture")  # removes a stale one first
        with open(os.path.join(out, name + ".log"), "w", encoding="utf-8") as f:
            f.write(r.output or r.error or "")
        if declares_no_golden(REPO, name) or not os.path.exists(golden_path):
            print(f"SKIP {name}: no golden file to compare")
            skipped += 1
            continue
        if r.timed_out or r.returncode != 0:
            print(f"FAIL {name}: the case failed under the tlcapture backend "
                  f"(exit {r.returncode}{', timed out' if r.timed_out else ''}); see {name}.log")
            failed += 1
            continue
        if not os.path.exists(tlcap) or os.path.getsize(tlcap) <= 8:
            print(f"FAIL {name}: no TraceLogging capture written (does provider.c choose the "
                  f"tlcapture backend for EHCONF_CAPTURE_TL?)")
            failed += 1
            continue
        d = run([ehdecode, "--golden", tlcap], TIMEOUT, merge_stderr=False)
        if d.error or d.timed_out or d.returncode != 0:
            why = (d.stderr or d.error or "").strip().splitlines()[:3]
            print(f"FAIL {name}: ehdecode --golden {tlcap}: exit {d.returncode}: " + " | ".join(why))
            failed += 1
            continue
        with open(os.path.join(out, name + ".json"), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(d.output)
        with open(golden_path, encoding="utf-8") as f:
            res = compare(f.read(), d.output, name, transport=get("tlcapture").golden)
        if res.ok:
            print(f"PASS {res.message}")
            passed += 1
        else:
            print(f"FAIL {res.message}")
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
