# SPDX-License-Identifier: GPL-2.0
"""Runner `vm` (make check-vm): the conformance run on a real kernel. ONE QEMU boot (vm/run)
runs harness/vm/guest_run.py, which drives every case under `perf record` and runs the
kernel's user_events selftests; this runner then reads what the guest saved and decides
the outcomes below (pure functions of the guest's files: outcomes_for), which pytest turns
into items (harness/core/pytest_plugin.py).

Outcomes:
  vm/boot                   the guest ran guest_run.py to completion
  vm/kernel-log             no kernel WARNING/BUG/Oops/panic in the console log except the
                            allowed "perf buffer not large enough" (once per boot, 6.12)
  vm/<case>/<test>          each KTAP result line of the case run on the real user_events
  vm-golden/<case>          the perf capture, decoded by ehdecode --golden, against
                            golden/<case>.json (harness/core/golden.py, transport "perf": events
                            above the golden's declared perf_max_payload must be missing)
  vm-golden-host/<case>     on a guest of another architecture (KERNEL_ARCH, vm/arches): the
                            same perf.data decoded on the host by the host's ehdecode (an
                            s390x capture is big-endian perf.data, an x86-64 decoder reads it)
                            against the same golden file
  vm-limits/<consumer>      the delivery limit kernel_limits measured ("# perf max payload: N")
                            equals what every golden file declares for that consumer
  kselftest/<binary>/<test> each KTAP result line of the kernel's own user_events selftests
                            (a known TCG race is xfail only if ehconf's covering tests passed)
  vm/crash-ends-the-run     a second, short boot that panics the kernel on purpose after one
                            case (the harness's own fail-fast check; --no-crash-test skips it)

If the guest dies in the middle (a kernel crash ends it at once: vm/run), the outcomes of
what ran before still come from the partial results, the running test fails with the
crash as its reason, and vm/boot names the crash.

Without vm/run, a kernel or a finished guest run, every outcome FAILS with a one-line
reason. A kernel without CONFIG_USER_EVENTS boots, and its outcomes are skips ("kernel
lacks CONFIG_USER_EVENTS"). Everything is also written to <results>/vm-results.json, which
harness/reports/report_md.py formats into report.md, with each row of Documentation/kernel-behaviours.md
and its result on this kernel (harness/kernel/inventory.py), and scripts/bisect-verdict.py reads.

Environment: KERNEL=bzImage (else vm/build-kernel builds or reuses the cached one),
EHCONF_VM_TIMEOUT (seconds for the whole boot, default 600), EHCONF_VM_CASES (space
separated case names, default every built case).
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Tuple

from harness.kernel.case_capture import KTAP_ONLY, case_kind, find_cases
from harness.core.common import NO_USER_EVENTS, SELFTESTS, one_line, safe_id
from harness.core.ehdecode import decode
from harness.core.golden import compare, expected_events, parse_lines
from harness.kernel.inventory import load as load_inventory, rows_with_results
from harness.kernel.kselftest_pass import compare as kselftest_compare
from harness.core.ktap import FAIL, PASS, SKIP, TODO, finish, format_failure, item_names, parse
from harness.core.processes import run as run_program
from harness.core.transports import REFERENCE, get, live_of

# The two transports of this run, by their golden names (harness/core/transports.py): the
# offline capture (the reference) and perf on the kernel's user_events; and the
# consumers of user_events whose delivery limits kernel_limits measures.
OFFLINE = REFERENCE
PERF = get("perf").golden
CONSUMERS = tuple(t.golden for t in live_of("user_events"))
# The registry rows this runner runs (tests/harness/test_transports.py: every row is some
# runner's): perf's captures are judged against golden, and every user_events consumer's
# delivery limit is a vm-limits/<consumer> item, failing until kernel_limits measures it.
EXERCISES = ("perf",) + tuple(t.name for t in live_of("user_events"))

ALLOWED_WARNING = "perf buffer not large enough"
# The case that measures the delivery limits ("# perf max payload: N", K47/K48).
LIMITS_CASE = "kernel_limits"
LIMIT_RE = re.compile(rf"^#\s*({'|'.join(map(re.escape, CONSUMERS))}) max payload:\s*(\d+)\s*$")
# Other measured kernel behaviours the kernel cases print as "# <what>: <result>" diagnostics.
BEHAVIOUR_RE = re.compile(r"^#\s*(persist delete after unregister):\s*(.*)$")
T_KERNEL_BUILD = 4000  # vm/build-kernel when the cache misses (a full kernel build)
T_HOST_DECODE = 60  # the host's ehdecode on one guest perf.data

# Selftest results that fail (some only sometimes) on Debian's 6.12.117 in the ehconf
# guest for a known reason. Each names the reason and the ehconf tests that check the
# same behaviours: a failure is reported as xfail only if every one of those tests passed
# in the same run (otherwise it stays a failure), so the kernel's selftests decide nothing
# that ehconf's own cases do not also check. A pass stays a pass.
# The common cause, measured in the guest (TCG) and asserted by kernel_lifetime's
# K25_K26_persist_delete_after_unregister: right after DIAG_IOCSUNREG + close,
# DIAG_IOCSDEL of a PERSIST event fails with EBUSY and succeeds 4-20 ms later: the
# enabler's event reference is released asynchronously. These selftests delete
# (abi_test) or re-create through dynamic_events (dyn_test's parse(): ABI register +
# unregister, then "u:__test_event ..." at once) without waiting.
KNOWN_KSELFTEST_FAILURES = {
    "kselftest/abi_test/user.flags": (
        "event_delete() right after unregister+close gets EBUSY: the enabler's event "
        "reference is released asynchronously; retried a few ms later the delete succeeds",
        ["vm/kernel_registration/global.K03_persist_event_outlives_unregister_and_close",
         "vm/kernel_registration/global.K02_unknown_flag_bits_are_EINVAL",
         "vm/kernel_lifetime/global.K25_K26_persist_delete_after_unregister"]),
    "kselftest/dyn_test/user.basic_types": (
        "parse() writes u:__test_event to dynamic_events right after the ABI half "
        "unregistered the same name, before the asynchronous release deleted that event",
        ["vm/kernel_tracefs/global.K44_dynamic_events_accepts_every_field_type",
         "vm/kernel_registration/global.K15_field_types_and_array_bounds"]),
    "kselftest/dyn_test/user.loc_types": (
        "same as basic_types: the dynamic_events create races the asynchronous delete of "
        "the event the ABI half of parse() just unregistered",
        ["vm/kernel_tracefs/global.K44_dynamic_events_accepts_every_field_type",
         "vm/kernel_registration/global.K16_loc_field_declarations"]),
    # Timing-dependent (seen failing in 1 of 3 runs): perf_write's clear() deletes
    # __test_event at once ("WARNING: Clear didn't work!"), so the next test's field-less
    # registration of the same name meets the old format: EADDRINUSE.
    "kselftest/perf_test/user.perf_empty_events": (
        "DIAG_IOCSREG of a field-less __test_event gets EADDRINUSE when perf_write's "
        "immediate delete of the u32 __test_event failed (asynchronous release, "
        "\"Clear didn't work!\"); passes when the release wins the race",
        ["vm/kernel_write/global.K35_fieldless_event_index_only_write"]),
}


def excuse_known_failures(items: List["Outcome"], own: Dict[str, str]) -> None:
    """Turns a known selftest failure into xfail when every own test covering it passed
    (own: item id -> status of this run); otherwise it stays a failure, saying why."""
    for o in items:
        if o.status != "fail" or o.ident not in KNOWN_KSELFTEST_FAILURES:
            continue
        reason, covering = KNOWN_KSELFTEST_FAILURES[o.ident]
        not_passed = [f"{c} ({own.get(c, 'no result')})" for c in covering if own.get(c) != "pass"]
        if not_passed:
            o.message = (f"known race ({reason}), but it is not excused: the ehconf tests "
                         f"covering it did not pass: {', '.join(not_passed)}\n{o.message}")
            continue
        o.status = "xfail"
        o.message = (f"known: {reason}; covered by {', '.join(covering)} (passed)\n{o.message}")


@dataclass
class Outcome:
    ident: str
    status: str  # pass, fail, skip, xfail
    message: str = ""
    group: str = ""  # vm, vm-golden, vm-limits, kselftest
    case: str = ""


@dataclass
class VmRun:
    ok: bool
    problem: str = ""
    kernel: str = ""
    selftests: str = ""
    results: str = ""
    vm: dict = field(default_factory=dict)  # vm/run's vm.json
    guest: dict = field(default_factory=dict)  # guest_run.py's guest-results.json
    exit_status: Optional[int] = None
    seconds: float = 0.0
    kernel_build_seconds: float = 0.0


def _tail(text: str, n: int = 3) -> str:
    return one_line("\n".join(text.strip().splitlines()[-n:]))


def locate_kernel(repo: str):
    """(bzImage, selftests dir, seconds, problem)."""
    t0 = time.monotonic()
    k = os.environ.get("KERNEL", "")
    if k:
        if not os.path.isfile(k):
            return "", "", 0.0, f"KERNEL={k} is not a file"
        k = os.path.realpath(k)
    else:
        tool = os.path.join(repo, "vm", "build-kernel")
        if not os.access(tool, os.X_OK):
            return "", "", 0.0, f"{tool} is missing: cannot build the guest kernel"
        p = run_program([tool], T_KERNEL_BUILD, merge_stderr=False)
        if p.error or p.timed_out:
            return "", "", time.monotonic() - t0, f"vm/build-kernel: {p.how()}"
        out = p.output.strip().splitlines()
        if p.returncode != 0 or not out:
            return "", "", time.monotonic() - t0, \
                f"vm/build-kernel failed (exit {p.returncode}): {_tail(p.stderr)}"
        k = out[-1].strip()
        if not os.path.isfile(k):
            return "", "", time.monotonic() - t0, f"vm/build-kernel printed {k!r}, not a file"
    sdir = os.path.join(os.path.dirname(k), "selftests", "user_events")
    return k, (sdir if os.path.isdir(sdir) else ""), time.monotonic() - t0, ""


def kselftest_tree(build: str) -> str:
    """Where `make kselftest-install` puts the tree by default: $(O)/kselftest_install
    (x86_64's programs: a guest of another architecture has none)."""
    if foreign_arch():
        return ""
    return os.path.join(os.path.dirname(build), "kselftest_install")


def foreign_arch() -> str:
    """KERNEL_ARCH (vm/arches) when it is not the host's: vm/run then boots that
    architecture's guest on its own Debian root, into which the checkout and the
    kernel's selftests are bound (vm/run --bind); "" for the host's."""
    arch = os.environ.get("KERNEL_ARCH", "") or os.uname().machine
    return "" if arch == os.uname().machine else arch


def boot(repo: str, build: str, results: str, cases: List[str], guest: Optional[List[str]] = None,
         summary: str = "guest-results.json") -> VmRun:
    """One vm/run boot running guest_run.py for every case (or the guest command `guest`,
    which writes <results>/<summary> as guest_run.py does)."""
    kernel, sdir, ksecs, problem = locate_kernel(repo)
    if problem:
        return VmRun(False, problem, kernel_build_seconds=round(ksecs, 3))
    vmrun = os.path.join(repo, "vm", "run")
    if not os.access(vmrun, os.X_OK):
        return VmRun(False, f"{vmrun} is missing: cannot boot the guest", kernel=kernel)
    timeout = int(os.environ.get("EHCONF_VM_TIMEOUT", "600"))
    os.makedirs(results, exist_ok=True)
    for old in glob.glob(os.path.join(results, "*")):
        if os.path.isfile(old):
            os.unlink(old)  # stale results must never pass for a new run
    shutil.rmtree(os.path.join(results, "selftests"), ignore_errors=True)
    argv = [vmrun, "--kernel", kernel, "--timeout", str(timeout), "--results", results,
            "--allow-warning", ALLOWED_WARNING, "--"]
    if guest:
        argv += guest
    else:
        argv += ["/usr/bin/python3", os.path.join(repo, "harness", "vm", "guest_run.py"),
                 "--results", results, "--build", build, "--deadline", str(max(60, timeout - 60))]
        if sdir:
            argv += ["--selftests", sdir]
            if foreign_arch():
                argv[1:1] = ["--bind", sdir]
        tree = kselftest_tree(build)
        if tree and os.path.isfile(os.path.join(tree, "run_kselftest.sh")):
            argv += ["--kselftest-install", tree]
        for c in cases:
            argv += ["--case", c]
    t0 = time.monotonic()
    # vm/run kills QEMU at its own timeout; this one is the guard around vm/run itself
    # (a timeout kills its whole session, QEMU included).
    p = run_program(argv, timeout + 120, cwd=repo, stdout_path=os.path.join(results, "vm-run.log"))
    rc = None if (p.timed_out or p.error) else p.returncode
    secs = time.monotonic() - t0
    run = VmRun(True, kernel=kernel, selftests=sdir, results=results, exit_status=rc,
                seconds=round(secs, 3), kernel_build_seconds=round(ksecs, 3))
    vm_json = os.path.join(results, "vm.json")
    if os.path.exists(vm_json):
        with open(vm_json, encoding="utf-8") as f:
            run.vm = json.load(f)
    guest_json = os.path.join(results, summary)
    if os.path.exists(guest_json):
        with open(guest_json, encoding="utf-8") as f:
            run.guest = json.load(f)
    if rc is None:
        run.ok, run.problem = False, (p.error or f"vm/run did not return within {timeout + 120} s")
    elif run.guest and not run.guest.get("complete", True):
        # The guest stopped in the middle (a kernel crash ends it at once, see vm/run):
        # what ran before still counts; the boot item says what was running and why.
        running = run.guest.get("running") or "guest_run.py"
        run.ok, run.problem = False, f"the guest ended while {running} ran: {crash_excerpt(run.vm)}"
    elif not run.guest:
        with open(os.path.join(results, "vm-run.log"), encoding="utf-8", errors="replace") as f:
            tail = _tail(f.read())
        why = {124: "guest timed out", 125: "guest ended without finishing (panic?)",
               126: "vm/run setup error"}.get(rc, f"exit {rc}")
        run.ok, run.problem = False, f"vm/run: {why}, no {summary}: {tail}"
    return run


def crash_excerpt(vm: dict) -> str:
    """The kernel's own words for a crash: its first disallowed log findings, or the exit."""
    bad = [f.get("line", "") for f in (vm or {}).get("findings", []) if not f.get("allowed")]
    if bad:
        return " | ".join(bad[:4])
    return f"vm/run exit {(vm or {}).get('exit_status', '?')}, no kernel log finding"


def ktap_outcomes(prefix: str, path: str, returncode, timed_out: bool, label: str,
                  group: str, case: str) -> List[Outcome]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return [Outcome(safe_id(prefix.rstrip("/")), "fail", f"{path} was not written",
                        group, case)]
    rep = finish(parse(text), returncode, timed_out, None, text)
    out = []
    for ident, r in item_names(rep.results, prefix):
        status = {PASS: "pass", FAIL: "fail", SKIP: "skip", TODO: "xfail"}[r.status]
        msg = format_failure(label, ident, r) if r.status == FAIL else r.reason
        out.append(Outcome(safe_id(ident), status, msg, group, case))
    return out


def selftest_outcomes(name: str, results: str, r: dict) -> List[Outcome]:
    """One outcome per test of a kernel selftest binary, merged over its attempts (the
    guest runs a failing binary again): a test passes if any attempt passed it, and the
    message says how many attempts failed it; otherwise the first attempt's outcome."""
    attempts = r.get("attempts") or [{"ktap": r["ktap"], "exit": r.get("exit"),
                                      "timed_out": r.get("timed_out")}]
    runs = [ktap_outcomes(f"kselftest/{name}/", os.path.join(results, a["ktap"]), a.get("exit"),
                          bool(a.get("timed_out")), name, "kselftest", name) for a in attempts]
    merged = []
    for first in runs[0]:
        tries = [o for outcomes in runs for o in outcomes if o.ident == first.ident]
        failed = sum(o.status == "fail" for o in tries)
        if first.status == "fail" and any(o.status == "pass" for o in tries):
            first = Outcome(first.ident, "pass", f"flaky: failed {failed} of {len(tries)} "
                            f"attempts, then passed\n{first.message}", first.group, first.case)
        merged.append(first)
    return merged


def limits_from_ktap(path: str):
    """({consumer: max payload}, {behaviour: text}) from a kernel case's diagnostics."""
    found, behaviours = {}, {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = LIMIT_RE.match(line.strip())
                if m:
                    found[m.group(1)] = int(m.group(2))
                m = BEHAVIOUR_RE.match(line.strip())
                if m:
                    behaviours[m.group(1)] = m.group(2)
    except OSError:
        pass
    return found, behaviours


def golden_limits(golden_dir: str) -> Dict[str, Dict[str, int]]:
    """{consumer: {case: declared max payload}} from every golden file's directives."""
    out: Dict[str, Dict[str, int]] = {}
    for g in sorted(glob.glob(os.path.join(golden_dir, "*.json"))):
        case = os.path.basename(g)[:-5]
        with open(g, encoding="utf-8", errors="surrogateescape") as f:
            d = parse_lines(f.read(), g, allow_directives=True)
        for k, v in d.directives.items():
            if k.endswith("_max_payload"):
                out.setdefault(k[: -len("_max_payload")], {})[case] = int(v)
    return out


def event_presence(golden_text: str, capture_text: Optional[str], transport: str):
    """Per golden event: (name, "ok" | "missing" | "dropped-as-declared" | "arrived-but-declared-dropped")."""
    g = parse_lines(golden_text, "golden", allow_directives=True)
    keep, drop = expected_events(g, transport)
    if capture_text is None:
        return [(e.name, "not run") for e in g.events]
    a = parse_lines(capture_text, "capture", allow_directives=False)
    counts: Dict[str, int] = {}
    for e in a.events:
        counts[e.text] = counts.get(e.text, 0) + 1
    dropped = {id(e) for e in drop}
    rows = []
    for e in g.events:
        here = counts.get(e.text, 0) > 0
        if here:
            counts[e.text] -= 1
        if id(e) in dropped:
            rows.append((e.name, "arrived although declared dropped" if here else "dropped as declared"))
        else:
            rows.append((e.name, "ok" if here else "missing or different"))
    return rows


def read_text(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError:
        return None


def kselftest_install_outcomes(run: VmRun, cases: List[str], own: Dict[str, str]) -> List[Outcome]:
    """The second pass (harness/kernel/kselftest_pass.py): the installed tree under the kernel's
    run_kselftest.sh must agree with this runner, test by test. Nothing when the guest had
    no tree to run; a failure when it had one and could not run it."""
    k = run.guest.get("kselftest_install") if run.guest else None
    if not k:
        return []
    ident = "kselftest-install/run"
    if k.get("status") != "ran" or k.get("timed_out"):
        return [Outcome(ident, "fail", k.get("problem") or "run_kselftest.sh timed out", "kselftest")]
    text = read_text(os.path.join(run.results, k["ktap"])) or ""
    kernel = [c for c in cases if c.startswith("kernel_")]
    return [Outcome(ident, "pass", f"run_kselftest.sh exit {k.get('exit')} in {k.get('seconds')} s",
                    "kselftest")] + [Outcome(safe_id(i), st, msg, "kselftest", c)
                                     for i, st, msg, c in kselftest_compare(text, own, kernel)]


def kernel_log(run: VmRun) -> Tuple[str, str]:
    """(status, message) of the console log's scan: any WARNING/BUG/Oops/panic but the
    allowed ones fails."""
    findings = run.vm.get("findings", []) if run.vm else []
    bad = [f for f in findings if not f.get("allowed")]
    if not run.vm:
        return "fail", "no vm.json: the console log was not scanned"
    if bad:
        return "fail", "kernel log findings:\n" + "\n".join(
            f"  {f.get('kind')}: {f.get('line')}" for f in bad[:20])
    allowed = [f.get("line", "") for f in findings if f.get("allowed")]
    return "pass", f"{len(allowed)} allowed finding(s)" if allowed else "clean"


def outcomes_for(s, run: VmRun, cases: List[str]):
    """All items of one VM run plus the data report.py needs. s: anything with .repo,
    .build and .results (the paths of this run)."""
    report = {"kernel": run.kernel, "vm_seconds": run.seconds, "problem": run.problem,
              "kernel_build_seconds": run.kernel_build_seconds, "vm": run.vm,
              "guest": run.guest.get("guest", {}), "guest_seconds": run.guest.get("seconds"),
              "cases": {}, "selftests": {}, "limits": {},
              "kernel_findings": run.vm.get("findings", []) if run.vm else []}
    out = boot_outcomes(run)
    for case in cases:
        out += case_outcomes(s, run, case, report)
    if LIMITS_CASE in cases:
        out += limit_outcomes(os.path.join(s.repo, "golden"), run, report["limits"])
    out += clock_outcomes(s, run, cases)
    out += selftests_outcomes(run, report, {o.ident: o.status for o in out})
    out += kselftest_install_outcomes(run, cases, {o.ident: o.status for o in out})
    report["items"] = [asdict(o) for o in out]
    # Documentation/kernel-behaviours.md row by row; a broken document must not cost the
    # run its items (make ci-lint's tests/harness/test_inventory.py names the problem).
    try:
        report["inventory"] = rows_with_results(*load_inventory(s.repo), report["items"])
    except (OSError, ValueError) as e:
        report["inventory"], report["inventory_problem"] = [], str(e)
    return out, report


def skips_everything(run: VmRun) -> bool:
    """The guest booted on a kernel without user_events: every item is a skip."""
    return run.ok and run.guest.get("guest", {}).get("user_events") is False


def boot_outcomes(run: VmRun) -> List[Outcome]:
    """vm/boot, vm/kernel-expectations (the values the kernel cases judged this kernel
    by) and vm/kernel-log (WARN/BUG/KASAN/panic)."""
    out: List[Outcome] = []
    if not run.ok:
        out.append(Outcome("vm/boot", "fail", run.problem, "vm"))
    else:
        out.append(Outcome("vm/boot", "pass", f"guest ran in {run.guest.get('seconds')} s", "vm"))
    # A table the guest could not read leaves the kernel cases on built-in 6.12 values,
    # which must not pass quietly.
    gi = run.guest.get("guest", {})
    if gi.get("expectations_problem"):
        out.append(Outcome("vm/kernel-expectations", "fail", gi["expectations_problem"], "vm"))
    elif run.ok:
        exp = gi.get("expectations") or {}
        out.append(Outcome("vm/kernel-expectations", "pass" if exp else "fail",
                           f"{len(exp)} expectation(s) for {gi.get('kernel_release', '?')}: "
                           + (", ".join(f"{w}={e['value']} (since {e['since']})"
                                        for w, e in sorted(exp.items())) or "no row applies"), "vm"))
    out.append(Outcome("vm/kernel-log", *kernel_log(run), "vm"))
    return out


def offline_results(s, case: str, crep: dict, gold: Optional[str], ktap_only: bool) -> Optional[str]:
    """The offline runner's results of the same case, into the report (its KTAP per test
    and its golden verdict); returns its decoded capture, for the event table."""
    offline_dir = os.path.join(s.results, "offline-" + os.path.basename(s.build))
    off_text = read_text(os.path.join(offline_dir, case + ".log"))
    if off_text is not None:
        rep = finish(parse(off_text), 0, False, None, off_text)
        for ident, res in item_names(rep.results, ""):
            crep["tests"].setdefault(ident, {})[OFFLINE] = res.status
    off_json = read_text(os.path.join(offline_dir, case + ".json"))
    if gold is not None and not ktap_only:
        if off_json is not None:
            res = compare(gold, off_json, case, transport=OFFLINE)
            crep["golden"][OFFLINE] = "pass" if res.ok else "fail"
        else:
            crep["golden"][OFFLINE] = "not run"
    return off_json


def case_outcomes(s, run: VmRun, case: str, report: dict) -> List[Outcome]:
    """vm/<case>/<test> (its KTAP on the kernel) and, for a capture case, vm-golden/<case>
    (its perf capture against golden); fills report["cases"][case] and, for the KTAP-only
    cases, the limits and behaviours they print."""
    out: List[Outcome] = []
    r = run.guest.get("cases", {}).get(case)
    kind = case_kind(s.repo, case)
    ktap_only = kind == KTAP_ONLY
    crep = {"kind": kind, "tests": {}, "golden": {},
            "steps": (r or {}).get("steps", {}), "problem": (r or {}).get("problem", ""),
            "tracepoints": (r or {}).get("tracepoints", []), "events": []}
    report["cases"][case] = crep
    gold = read_text(os.path.join(s.repo, "golden", case + ".json"))
    off_json = offline_results(s, case, crep, gold, ktap_only)

    if r is None and not run.ok:
        out.append(Outcome(safe_id(f"vm/{case}"), "fail", f"not run: {run.problem}", "vm", case))
        if not ktap_only:
            out.append(Outcome(safe_id(f"vm-golden/{case}"), "fail", f"not run: {run.problem}",
                               "vm-golden", case))
        return out
    if skips_everything(run) or (r and r.get("status") == "skipped"):
        why = (r or {}).get("problem") or NO_USER_EVENTS
        out.append(Outcome(safe_id(f"vm/{case}"), "skip", why, "vm", case))
        crep["golden"][PERF], crep["problem"] = "skip", why
        if not ktap_only:
            out.append(Outcome(safe_id(f"vm-golden/{case}"), "skip", why, "vm-golden", case))
        return out
    if r is None:
        out.append(Outcome(safe_id(f"vm/{case}"), "fail", "the guest did not report this case",
                           "vm", case))
        return out
    if r.get("status") == "running":
        r = dict(r, problem=run.problem)
        crep["problem"] = run.problem
    # KTAP of the live run (a case cut short by a crash: its results so far, then the
    # test that was running fails with the reason)
    if r.get("ktap"):
        items = ktap_outcomes(f"vm/{case}/", os.path.join(run.results, r["ktap"]),
                              r.get("live_exit"), bool(r.get("live_timed_out")),
                              f"{case} (perf on {report['guest'].get('kernel_release', '?')})",
                              "vm", case)
        out += items
        for o in items:
            crep["tests"].setdefault(o.ident[len(f"vm/{case}/"):], {})[PERF] = o.status
    else:
        out.append(Outcome(safe_id(f"vm/{case}"), "fail",
                           f"{case} did not run on the kernel: {r.get('problem')}", "vm", case))
    if ktap_only:
        if r.get("ktap"):
            lim, beh = limits_from_ktap(os.path.join(run.results, r["ktap"]))
            report["limits"].update(lim)
            report.setdefault("behaviours", {}).update(beh)
        return out
    out.append(perf_golden_outcome(run, case, r, crep, gold, off_json))
    if foreign_arch():
        out.append(host_decode_outcome(s, run, case, r, gold))
    return out


def host_ehdecode(build: str) -> str:
    """The host's ehdecode beside a cross build (build/<arch> -> build/gcc/bin/ehdecode)."""
    return os.path.join(os.path.dirname(os.path.abspath(build)), "gcc", "bin", "ehdecode")


def host_decode_outcome(s, run: VmRun, case: str, r: dict, gold: Optional[str]) -> Outcome:
    """vm-golden-host/<case>: the guest's perf.data decoded here, by the host's ehdecode,
    against golden/<case>.json: the other byte order (s390x) read by this machine's decoder."""
    ident = safe_id(f"vm-golden-host/{case}")
    if gold is None:
        return Outcome(ident, "fail", f"no golden/{case}.json", "vm-golden", case)
    if not r.get("perf_data"):
        return Outcome(ident, "fail", f"{case}: no perf.data from the guest: {r.get('problem')}",
                       "vm-golden", case)
    pdata = os.path.join(run.results, r["perf_data"])
    d = decode(host_ehdecode(s.build), pdata, T_HOST_DECODE)
    decoded = os.path.join(run.results, case + ".host.perf.json")
    with open(decoded, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(d.text)
    if not d.ok and d.exit is None:
        return Outcome(ident, "fail", f"{case}: {d.problem}", "vm-golden", case)
    res = compare(gold, d.text, case, transport=PERF)
    msg = (f"{d.problem}\n" if d.problem else "") + res.message + \
        f"\n(decoded on the host: {os.path.relpath(decoded)})"
    return Outcome(ident, "pass" if res.ok and d.ok else "fail", msg, "vm-golden", case)


def perf_golden_outcome(run: VmRun, case: str, r: dict, crep: dict, gold: Optional[str],
                        off_json: Optional[str]) -> Outcome:
    """vm-golden/<case>: the decoded perf capture against golden/<case>.json (transport
    perf), and the per-event table of the report."""
    ident = safe_id(f"vm-golden/{case}")
    decoded = read_text(os.path.join(run.results, r["decoded"])) if r.get("decoded") else None
    if gold is None:
        crep["golden"][PERF] = "fail"
        return Outcome(ident, "fail", f"no golden/{case}.json", "vm-golden", case)
    crep["events"] = [{"n": n, OFFLINE: st_off, PERF: st_perf}
                      for (n, st_off), (_, st_perf) in zip(
                          event_presence(gold, off_json, OFFLINE),
                          event_presence(gold, decoded, PERF))]
    if decoded is None:
        why = r.get("problem") or "no decoded perf capture"
        crep["golden"][PERF] = "fail"
        return Outcome(ident, "fail", f"{case}: {why}", "vm-golden", case)
    res = compare(gold, decoded, case, transport=PERF)
    msg = res.message
    if r.get("ehdecode_exit"):
        msg = f"ehdecode --golden exit {r['ehdecode_exit']}: {r.get('ehdecode_problem', '')}\n" + msg
    ok = res.ok and not r.get("ehdecode_exit") and r.get("status") == "ok"
    if res.ok and r.get("status") != "ok":
        msg = f"{r.get('problem')}\n{msg}"
    msg += f"\n(decoded perf capture: {os.path.relpath(os.path.join(run.results, r['decoded']))})"
    crep["golden"][PERF] = "pass" if ok else "fail"
    return Outcome(ident, "pass" if ok else "fail", msg, "vm-golden", case)


def clock_outcomes(s, run: VmRun, cases: List[str]) -> List[Outcome]:
    """vm-clock/<case>/<mode>: the recordings of guest_run.py's CLOCK_CASES under `perf
    record -k CLOCK_MONOTONIC` (file mode, pipe mode): each must be there, carry perf's clock
    data (harness/decoders/perf_samples.py) and decode, by ehdecode --golden in the guest, to
    golden/<case>.json. make check-decoders judges the decoders' wall-clock dates on them."""
    from harness.vm.guest_run import CLOCK_CASES, CLOCK_MODES
    from harness.decoders.perf_samples import read_layout
    out: List[Outcome] = []
    for case in [c for c in CLOCK_CASES if c in cases]:
        gold = read_text(os.path.join(s.repo, "golden", case + ".json"))
        for mode, pipe in CLOCK_MODES:
            ident = safe_id(f"vm-clock/{case}/{mode}")
            r = run.guest.get("clock", {}).get(f"{case}.{mode}")
            if skips_everything(run):
                out.append(Outcome(ident, "skip", NO_USER_EVENTS, "vm-golden", case))
                continue
            if r is None:
                why = run.problem or "the guest did not record it"
                out.append(Outcome(ident, "fail", f"not run: {why}", "vm-golden", case))
                continue
            problems = [r["problem"]] if r.get("problem") else []
            pdata = os.path.join(run.results, r.get("perf_data") or f"{case}.{mode}.perf.data")
            try:
                with open(pdata, "rb") as f:
                    lay = read_layout(f.read())
                if lay.pipe != pipe:
                    problems.append(f"{os.path.basename(pdata)} is in perf's "
                                    f"{'pipe' if lay.pipe else 'file'} mode")
                if lay.clock_offset is None:
                    problems.append(f"{os.path.basename(pdata)} carries no CLOCK_DATA")
            except OSError as e:
                problems.append(f"no {os.path.basename(pdata)}: {e.strerror}")
            decoded = read_text(os.path.join(run.results, r["decoded"])) if r.get("decoded") \
                else None
            if gold is None or decoded is None:
                problems.append(f"no golden/{case}.json" if gold is None else "not decoded")
            else:
                res = compare(gold, decoded, case, transport=PERF)
                if not res.ok:
                    problems.append(res.message)
            if r.get("ehdecode_exit"):
                problems.append(f"ehdecode exit {r['ehdecode_exit']}: "
                                f"{r.get('ehdecode_problem', '')}")
            msg = "\n".join(problems) or (f"{r.get('perf_command', '')}: clock data, "
                                          f"decoded as golden/{case}.json")
            out.append(Outcome(ident, "fail" if problems else "pass", msg, "vm-golden", case))
    return out


def limit_outcomes(golden_dir: str, run: VmRun, limits: Dict[str, int]) -> List[Outcome]:
    """vm-limits/<consumer>: every user_events consumer's delivery limit, as kernel_limits
    measured it, against what golden files declare."""
    out: List[Outcome] = []
    declared = golden_limits(golden_dir)
    for consumer in CONSUMERS:
        ident = f"vm-limits/{consumer}"
        measured = limits.get(consumer)
        decl = declared.get(consumer, {})
        if measured is None and not run.ok:
            out.append(Outcome(ident, "fail", f"not measured: {run.problem}", "vm-limits"))
        elif skips_everything(run):
            out.append(Outcome(ident, "skip", NO_USER_EVENTS, "vm-limits"))
        elif measured is None:
            out.append(Outcome(ident, "fail", f"{LIMITS_CASE} printed no '# {consumer} max payload:' "
                               f"line (see {consumer}_max_payload in its KTAP)", "vm-limits"))
        else:
            wrong = {c: v for c, v in decl.items() if v != measured}
            if wrong:
                out.append(Outcome(ident, "fail", f"the kernel delivers {consumer} payloads up to "
                                   f"{measured} bytes but golden files declare "
                                   + ", ".join(f"{c}: {v}" for c, v in wrong.items()), "vm-limits"))
            else:
                out.append(Outcome(ident, "pass", f"{consumer} max payload {measured}"
                                   + (f" = golden declarations ({', '.join(decl)})" if decl else ""),
                                   "vm-limits"))
    return out


def selftests_outcomes(run: VmRun, report: dict, own: Dict[str, str]) -> List[Outcome]:
    """kselftest/<program>/<test>: the kernel's own user_events selftests (known failures
    excused only where ehconf's own tests of the same behaviour passed: own)."""
    out: List[Outcome] = []
    st = run.guest.get("selftests", {})
    for name in SELFTESTS:
        r = st.get(name)
        if r is None and not run.ok:
            out.append(Outcome(f"kselftest/{name}", "fail", f"not run: {run.problem}", "kselftest"))
            continue
        if skips_everything(run):
            out.append(Outcome(f"kselftest/{name}", "skip", NO_USER_EVENTS, "kselftest"))
            continue
        if r is None:
            why = (f"no selftests/user_events/ next to {run.kernel} (vm/build-kernel builds them)"
                   if not run.selftests
                   else "the guest did not report it")
            out.append(Outcome(f"kselftest/{name}", "fail", why, "kselftest"))
            continue
        if r.get("status") == "skipped":
            out.append(Outcome(f"kselftest/{name}", "skip", r.get("problem", ""), "kselftest"))
            continue
        if r.get("status") != "ran":
            out.append(Outcome(f"kselftest/{name}", "fail", r.get("problem", ""), "kselftest"))
            continue
        items = selftest_outcomes(name, run.results, r)
        excuse_known_failures(items, own)
        out += items
        report["selftests"][name] = {
            "exit": r.get("exit"), "seconds": r.get("seconds"),
            "pass": sum(o.status == "pass" for o in items),
            "fail": sum(o.status == "fail" for o in items),
            "skip": sum(o.status == "skip" for o in items),
            "known": [o.ident for o in items if o.status == "xfail"],
            "failed": [o.ident for o in items if o.status == "fail"]}
    return out


@dataclass(frozen=True)
class Paths:
    repo: str
    build: str
    results: str


CRASH_CASES = ("activity", "structs")  # small; the crash is planted after the first


def crash_test(s: Paths) -> Outcome:
    """The harness itself: a kernel that panics while the cases run ends the boot within
    seconds (not at the guest timeout), the outcomes of what ran before still pass, the
    boot outcome names the crash, and the case that never ran fails as "not run"."""
    ident = "vm/crash-ends-the-run"
    first, second = CRASH_CASES
    old = os.environ.get("EHCONF_TEST_CRASH_AFTER")
    os.environ["EHCONF_TEST_CRASH_AFTER"] = first  # vm/run passes EHCONF_* to the guest
    try:
        run = boot(s.repo, s.build, os.path.join(s.results, "vm-crash"), list(CRASH_CASES))
    finally:
        if old is None:
            os.environ.pop("EHCONF_TEST_CRASH_AFTER", None)
        else:
            os.environ["EHCONF_TEST_CRASH_AFTER"] = old
    if run.guest.get("guest", {}).get("user_events") is False:
        return Outcome(ident, "skip", NO_USER_EVENTS, "vm")
    if run.ok:
        return Outcome(ident, "fail", "the planted crash went unnoticed", "vm")
    if "sysrq triggered crash" not in run.problem:
        return Outcome(ident, "fail", f"the boot failed, but not with the planted crash: "
                       f"{run.problem}", "vm")
    total = float(run.vm.get("total_seconds") or 1e9)
    if total >= 120:
        return Outcome(ident, "fail", f"the crashed guest took {total:.0f} s to end "
                       f"(timeout 600 s)", "vm")
    out, _ = outcomes_for(s, run, list(CRASH_CASES))
    by = {o.ident: o for o in out}
    ran = [o for o in out if o.ident.startswith(f"vm/{first}/")]
    problems = []
    if by["vm/boot"].status != "fail":
        problems.append("vm/boot did not fail")
    if not ran or any(o.status != "pass" for o in ran):
        problems.append(f"the tests of {first} (before the crash) did not all pass: "
                        + ", ".join(f"{o.ident} {o.status}" for o in ran))
    g = by.get(f"vm-golden/{first}")
    if g is None or g.status != "pass":
        problems.append(f"vm-golden/{first}: {g.status if g else 'missing'}")
    n = by.get(f"vm/{second}")
    if n is None or n.status != "fail" or "not run" not in n.message:
        problems.append(f"vm/{second} (after the crash) is not a 'not run' failure")
    if problems:
        return Outcome(ident, "fail", "; ".join(problems), "vm")
    return Outcome(ident, "pass", f"crash reported after {total:.0f} s", "vm")


def run_vm(build: str, results: str, repo: str, cases: Optional[List[str]] = None,
           crash: bool = True):
    """Boot, decide the outcomes, write <results>/vm-results.json (what bisect-verdict and
    the kernel mutants read); (folder, entries, the summary's extra: report.md's data)."""
    s = Paths(repo, build, results)
    folder = os.path.join(results, "vm")
    cases = cases or [os.path.basename(p) for p in find_cases(build)]
    t0 = time.monotonic()
    if cases:
        run = boot(repo, build, folder, cases)
    else:
        run = VmRun(False, f"no case binaries in {build}/cases (run `make all`)")
    out, report = outcomes_for(s, run, cases)
    report["runner_seconds"] = round(time.monotonic() - t0, 3)
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, "vm-results.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    if crash and cases:
        out.append(crash_test(s))
    # report.md's data beside the verdicts (the items themselves are the entries, and the
    # behaviour rows are computed from the JUnit items when report.md is rendered)
    facts = {k: v for k, v in report.items() if k not in ("items", "inventory")}
    return folder, [{"kind": "check", "id": o.ident, "status": o.status, "message": o.message}
                    for o in out], {"report": facts}
