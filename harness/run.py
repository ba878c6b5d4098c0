#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The runners: execute the programs under test, with a timeout each, and write result
files that pytest then judges (harness/core/results.py describes them).

    harness/run.py unit    [--build build/asan]   unit-test binaries (make unit)
    harness/run.py offline [--build build/gcc]    cases -> capture -> ehdecode (make check-offline)
    harness/run.py wine    [--mingw build/mingw]  the Windows build under wine (make check-wine)
    harness/run.py vm      [--case NAME]...       one QEMU boot on a real kernel (make check-vm)
    harness/run.py impl    --impl NAME [--impl-src PATH]
                                                  the cases through another implementation,
                                                  offline (make check-impl)
    harness/run.py impl-vm --impls "NAME..."      the same implementations on the real
                                                  kernel, one boot (after `impl` for each)

Common options: --build (EHCONF_BUILD, default build/gcc), --results (EHCONF_RESULTS,
default <build>/../results), --timeout seconds per program (EHCONF_TIMEOUT, default 20).
Exit status 0 when the results were written, whatever they say (pytest judges them);
anything else means the runner itself broke (a Python error), and pytest then reports its
results as missing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.common import REPO_ROOT, display_path  # noqa: E402
from harness.core.results import runner_command, write_summary  # noqa: E402


def _absolute(p: str) -> str:
    return p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runner", choices=("unit", "offline", "wine", "vm", "impl", "impl-vm"))
    ap.add_argument("--build", default=os.environ.get("EHCONF_BUILD", "build/gcc"))
    ap.add_argument("--results", default=os.environ.get("EHCONF_RESULTS", ""))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("EHCONF_TIMEOUT", "20")))
    ap.add_argument("--mingw", default=os.environ.get("EHCONF_MINGW_BUILD", ""),
                    help="wine: the mingw build folder (default <build>/../mingw)")
    ap.add_argument("--case", action="append", default=[],
                    help="vm: case name (default: $EHCONF_VM_CASES or every built case)")
    ap.add_argument("--no-crash-test", action="store_true",
                    help="vm: skip the second boot that panics the kernel on purpose")
    ap.add_argument("--impl", default="", help="impl: a name of impl/implementations.txt")
    ap.add_argument("--impls", default="", help="impl-vm: the implementations, space separated")
    ap.add_argument("--impl-src", default="",
                    help="impl: its checkout (else $IMPL_SRC_<checkout> of its registry row)")
    args = ap.parse_args(argv)
    build = os.path.abspath(_absolute(args.build))
    results = os.path.abspath(_absolute(args.results or os.path.join(os.path.dirname(build), "results")))
    variant = os.path.basename(build)
    key = variant  # the runner folder's key: the build variant, an implementation's name
    t0 = time.monotonic()
    extra = None
    if args.runner == "unit":
        from harness.kernel.run_unit import run_unit
        folder, entries = run_unit(build, results, args.timeout)
    elif args.runner == "offline":
        from harness.kernel.run_offline import run_offline
        folder, entries = run_offline(build, results, args.timeout, REPO_ROOT)
    elif args.runner == "wine":
        from harness.kernel.run_wine import run_wine
        mingw = os.path.abspath(_absolute(args.mingw or os.path.join(os.path.dirname(build), "mingw")))
        folder, entries = run_wine(build, mingw, results, args.timeout, REPO_ROOT)
    elif args.runner == "impl-vm":
        from harness.impl.run_impl_vm import boot_and_judge
        n = boot_and_judge(args.impls.split(), build, results, REPO_ROOT, lambda: time.monotonic() - t0)
        print(f"run impl-vm: {n} entries in {display_path(results)}/impl-vm/*/summary.json "
              f"({time.monotonic() - t0:.1f} s); pytest judges them")
        return 0
    elif args.runner == "impl":
        from harness.impl.run_impl import run_impl, use_checkout
        use_checkout(args.impl, args.impl_src)
        folder, entries, extra = run_impl(args.impl, build, results, args.timeout)
        key = args.impl
    else:
        from harness.vm.run_vm import run_vm
        cases = args.case or os.environ.get("EHCONF_VM_CASES", "").split()
        folder, entries, extra = run_vm(build, results, REPO_ROOT, cases,
                                        crash=not args.no_crash_test)
    path = write_summary(folder, args.runner, runner_command(args.runner, key), entries,
                         time.monotonic() - t0, extra)
    print(f"run {args.runner}: {len(entries)} entries in {display_path(path)} "
          f"({time.monotonic() - t0:.1f} s); pytest judges them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
