#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Whether make check's VM run may stand from the last one: a kernel developer runs `make
check` over and over, and a second run with nothing changed need not boot the same kernel
again. It may when nothing the run reads has changed since a run that passed: the kernel
image (its path is keyed by vm/build-kernel on the source, config and patches), every
program the guest runs (the build's cases, tools and libraries, the kselftest tree), the
harness and vm/ scripts, the golden files and the kernel expectations, and the settings
that choose the run (KASAN, KERNEL, KERNEL_ARCH, KERNEL_VERSION, EHCONF_VM_CASES).

    harness/vm/reuse.py check  --build B --results R --kernel PATH
        exit 0 and one line saying which run stands, when the recorded digest is this one
    harness/vm/reuse.py record --build B --results R --kernel PATH --junit vm.xml
        records this digest when the JUnit file has no failure (a failing run is never
        reused: the next make check boots again)

make check passes VM_REUSE=1 (harness/vm/vm.mk); make check-vm on its own, .ci/run and the
workflow always boot.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.common import REPO_ROOT, display_path  # noqa: E402
from harness.reports.junit import read  # noqa: E402

STAMP = "reuse.json"  # in <results>/vm/, beside the run's summary.json
SETTINGS = ("KASAN", "KERNEL", "KERNEL_ARCH", "KERNEL_VERSION", "EHCONF_VM_CASES")
# what the guest runs, under the build folder
BUILD_PARTS = ("cases", "bin", "lib", "tools", "impl/ehconf")
# what the runner and the judge read, in the checkout (tracked files)
SOURCE_PARTS = ("harness", "vm", "golden", "cases/kernel-expectations.txt",
                "Documentation/kernel-behaviours.md")


def _files(top: str):
    if os.path.isfile(top):
        yield top
        return
    for d, dirs, names in os.walk(top):
        dirs.sort()
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        for n in sorted(names):
            yield os.path.join(d, n)


def _tracked(parts) -> list:
    try:
        out = subprocess.run(["git", "-C", REPO_ROOT, "ls-files", "--", *parts],
                             capture_output=True, text=True, check=True).stdout.split()
        return [os.path.join(REPO_ROOT, p) for p in out]
    except (OSError, subprocess.CalledProcessError):  # a copy without git: every file
        return [f for p in parts for f in _files(os.path.join(REPO_ROOT, p))]


def digest(build: str, kernel: str, kselftest: str = "") -> tuple:
    """(sha256 hex, number of files) of everything the VM run reads."""
    h = hashlib.sha256()
    h.update(f"kernel {kernel}\n".encode())
    for k in SETTINGS:
        h.update(f"{k}={os.environ.get(k, '')}\n".encode())
    files = [f for p in BUILD_PARTS for f in _files(os.path.join(build, p))]
    files += list(_files(kselftest)) if kselftest and os.path.isdir(kselftest) else []
    files += _tracked(SOURCE_PARTS)
    if os.path.isfile(kernel):
        files.append(kernel)
    n = 0
    for f in files:
        try:
            with open(f, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        h.update(f"{os.path.relpath(f, REPO_ROOT)} {len(data)}\n".encode())
        h.update(hashlib.sha256(data).digest())
        n += 1
    return h.hexdigest(), n


def _summary_sha(results: str) -> str:
    """The run's summary.json: another run into the same folder (KASAN=1 writes there too)
    replaces it, and then nothing recorded stands."""
    try:
        with open(os.path.join(results, "vm", "summary.json"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("check", "record"))
    ap.add_argument("--build", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--kernel", required=True, help="the bzImage (vm/build-kernel --cached)")
    ap.add_argument("--kselftest", default="", help="the installed kselftest tree")
    ap.add_argument("--junit", default="", help="record: the run's JUnit file")
    args = ap.parse_args(argv)
    stamp = os.path.join(args.results, "vm", STAMP)
    now, n = digest(args.build, args.kernel, args.kselftest)
    if args.command == "check":
        try:
            with open(stamp, encoding="utf-8") as f:
                old = json.load(f)
        except (OSError, ValueError):
            return 1
        if old.get("digest") != now or old.get("summary") != _summary_sha(args.results):
            print("check-vm: something the VM run reads changed since the last passing run: "
                  "booting")
            return 1
        print(f"check-vm: nothing the VM run reads changed since the passing run of "
              f"{old.get('finished', '?')} ({n} files, kernel {display_path(args.kernel)}): "
              f"its results stand, not booted again (VM_REUSE=0 boots)")
        return 0
    suite = read(args.junit) if args.junit else None
    bad = [i for i in (suite.items if suite else []) if i.outcome == "fail"]
    if suite is None or bad or not suite.items:
        if os.path.exists(stamp):
            os.remove(stamp)
        return 0
    with open(stamp, "w", encoding="utf-8") as f:
        json.dump({"digest": now, "files": n, "summary": _summary_sha(args.results),
                   "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, f)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
