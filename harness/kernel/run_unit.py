# SPDX-License-Identifier: GPL-2.0
"""Runner `unit` (make unit): every unit-test binary under <build>/tests/ (tests/<area>/
test_*.c, KTAP via tests/ktap.h), two at a time, each with a timeout (three times as long
for an ASan build).

Each runs with EHCONF_BUILD=<build>. Writes <results>/unit-<variant>/: <area>/<binary>.ktap (its output) and summary.json with
one "ktap" entry per binary (items unit/<area>/<binary>/<test>).
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from harness.core.common import display_path
from harness.core.results import check_entry, ktap_entry, runner_command, runner_dir
from harness.core.processes import run


# Build variants whose programs run slower, and by how much their timeout grows.
SLOW_VARIANTS = {"asan": 3}


def find_unit_binaries(build: str):
    root = os.path.join(build, "tests")
    found = []
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.startswith("test_") and "." not in f and os.access(p, os.X_OK):
                found.append(p)
    return sorted(found)


def run_unit(build: str, results: str, timeout: float):
    """(folder, entries) for the unit tests of one build variant."""
    variant = os.path.basename(build)
    # Sanitizer builds run a few times slower (test_perf_jobs: 3 s with gcc, 9-11 s under
    # ASan, against 20): their budget grows with them, so a busy machine does not turn
    # slowness into a failure while a hang is still caught.
    if variant in SLOW_VARIANTS:
        timeout *= SLOW_VARIANTS[variant]
    out = runner_dir(results, "unit", variant)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    binaries = find_unit_binaries(build)
    if not binaries:
        return out, [check_entry("unit/none", "fail",
                                 f"no unit-test binaries under {display_path(build)}/tests "
                                 f"(build them with `{runner_command('unit', variant)}`)")]

    def one(path):
        rel = os.path.relpath(path, os.path.join(build, "tests"))
        ktap = rel + ".ktap"
        os.makedirs(os.path.dirname(os.path.join(out, ktap)), exist_ok=True)
        # EHCONF_BUILD: tests of the tools find them there (test_perf_tool runs ehdecode).
        r = run([path], timeout, env={"EHCONF_BUILD": build},
                stdout_path=os.path.join(out, ktap))
        return ktap_entry(f"unit/{rel}/", ktap, display_path(path), r, timeout)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        return out, list(ex.map(one, binaries))
