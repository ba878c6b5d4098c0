#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Windows runner's WPR captures, decoded and compared with golden/ (Linux or Windows).

scripts/windows/check.ps1 runs each case under its own WPR recording with
scripts/windows/ehconf.wprp and keeps it as <case>.etl, then once more recorded with
`wpr -stop ... -compress` as <case>.compressed.etl. This script decodes every .etl of a
folder with `ehdecode --golden` (ehdecode reads .etl files, compressed ones too:
lib/decode, Documentation/etl-format.md §9) and compares the events of the case's
providers with golden/<case>.json as transport "etw" (harness/core/golden.py: the same rules
and the same declared differences as the .tlcap path of `make check-offline`); both
recordings of a case against the same golden file. Events of other providers (the
kernel's header and rundown events that every .etl holds) are counted and left out; an
event of the case's providers that does not decode is a failure, and so is a
<case>.compressed.etl without a single compressed buffer (then the compressed path was
not tested at all).

    python3 scripts/windows/compare_etl.py [--ehdecode PATH] [--junit FILE] DIR

The workflow's windows-decode job runs it on Linux on the windows job's artifact;
check.ps1 runs it on Windows when given an ehdecode (-Ehdecode). Writes <name>.json and
<name>.decode.log beside each <name>.etl; items etl-golden/<case> and
etl-golden-compressed/<case>; ends with "N passed, N failed, N skipped"; exit 1 if
anything failed or DIR holds no .etl.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from xml.sax.saxutils import escape, quoteattr

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, REPO)

from harness.core.golden import compare  # noqa: E402
from harness.core.transports import get  # noqa: E402

# The registry row this script judges (tests/harness/test_transports.py: every row is some
# runner's): events of a real ETW session, as the Windows runner records them.
EXERCISES = ("etw",)
ETW = get("etw").golden
from harness.core.processes import run  # noqa: E402

TIMEOUT = 300.0
COMPRESSED = ".compressed"  # <case>.compressed.etl: the same case, recorded compressed
BUFFER_FLAG_COMPRESSED = 0x40  # buffer flags (u16 at 0x34) of a compressed buffer


def compressed_buffers(path: str) -> int:
    """How many buffers of an .etl have the compressed flag (etl-format.md §9): every
    buffer's size is at offset 0, its flags at 0x34, the next one right after it."""
    with open(path, "rb") as f:
        data = f.read()
    pos, count = 0, 0
    while pos + 0x48 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "little")
        if size < 0x48:
            break
        if int.from_bytes(data[pos + 0x34:pos + 0x36], "little") & BUFFER_FLAG_COMPRESSED:
            count += 1
        pos += size
    return count


def golden_providers(golden_text: str) -> set:
    """The provider names ("n" before ':') of the golden events (directives skipped)."""
    names = set()
    for line in golden_text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("n"), str):
            names.add(obj["n"].split(":", 1)[0])
    return names


def case_events(output: str, providers: set):
    """(the JSON lines of the case's providers, how many other events were left out)."""
    kept, others = [], 0
    for line in output.splitlines():
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            kept.append(line)  # not JSON: the comparison reports it
            continue
        n = obj.get("n") if isinstance(obj, dict) else None
        if isinstance(n, str) and n.split(":", 1)[0] in providers:
            kept.append(line)
        else:
            others += 1
    return kept, others


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ehdecode", default=os.path.join(REPO, "build", "gcc", "bin", "ehdecode"))
    ap.add_argument("--junit", default="")
    ap.add_argument("dir")
    a = ap.parse_args(argv[1:])
    etls = sorted(f for f in os.listdir(a.dir) if f.endswith(".etl")) if os.path.isdir(a.dir) else []
    results = []  # (name, status, message)
    if not etls:
        results.append(("etl", "FAIL", f"no .etl files in {a.dir} (did the windows job capture?)"))
    for f in etls:
        name = f[:-4]
        compressed = name.endswith(COMPRESSED)
        case = name[:-len(COMPRESSED)] if compressed else name
        item = f"etl-golden-compressed/{case}" if compressed else f"etl-golden/{case}"
        etl = os.path.join(a.dir, f)
        golden_path = os.path.join(REPO, "golden", case + ".json")
        if not os.path.exists(golden_path):
            results.append((item, "SKIP", f"no golden/{case}.json"))
            continue
        if compressed and compressed_buffers(etl) == 0:
            results.append((item, "FAIL", f"{f} holds no compressed buffer: the recording was "
                            "not compressed, so the compressed path is untested"))
            continue
        with open(golden_path, encoding="utf-8") as g:
            golden_text = g.read()
        d = run([a.ehdecode, "--golden", etl], TIMEOUT, merge_stderr=False)
        with open(os.path.join(a.dir, name + ".decode.log"), "w", encoding="utf-8",
                  errors="surrogateescape") as log:
            log.write(d.stderr or d.error or "")
        if d.error or d.timed_out or d.returncode != 0:
            why = " | ".join((d.stderr or d.error or "").strip().splitlines()[:3])
            results.append((item, "FAIL", f"ehdecode --golden {f}: exit {d.returncode}: {why}"))
            continue
        kept, others = case_events(d.output, golden_providers(golden_text))
        with open(os.path.join(a.dir, name + ".json"), "w", encoding="utf-8",
                  errors="surrogateescape") as out:
            out.write("".join(line + "\n" for line in kept))
        res = compare(golden_text, "".join(line + "\n" for line in kept), case, transport=ETW)
        note = f" ({others} events of other providers left out)" if others else ""
        results.append((item, "PASS" if res.ok else "FAIL", res.message + note))
    for name, status, msg in results:
        print(f"{status} {name}: {msg}")
    counts = {s: sum(1 for r in results if r[1] == s) for s in ("PASS", "FAIL", "SKIP")}
    if a.junit:
        os.makedirs(os.path.dirname(os.path.abspath(a.junit)), exist_ok=True)
        with open(a.junit, "w", encoding="utf-8") as x:
            x.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            x.write(f'<testsuite name="ehconf-windows-etl" tests="{len(results)}" '
                    f'failures="{counts["FAIL"]}" skipped="{counts["SKIP"]}">\n')
            for name, status, msg in results:
                x.write(f'  <testcase classname="windows-etl" name={quoteattr(name)}')
                if status == "PASS":
                    x.write(" />\n")
                elif status == "FAIL":
                    x.write(f'>\n    <failure message="failed">{escape(msg)}</failure>\n  </testcase>\n')
                else:
                    x.write(f'>\n    <skipped message={quoteattr(msg)} />\n  </testcase>\n')
            x.write("</testsuite>\n")
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
