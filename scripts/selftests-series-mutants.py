#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/selftests-series-mutants.py [--only a,b] OUT: the planted kernel regressions of
scripts/kernel-mutants.txt against the kernel's selftests, unpatched and patched.

For each mutant: its edit of Debian's 6.12 source rebuilt on a copy of the cached 6.12
object tree of its architecture (scripts/kernel-overlay-build.sh: one incremental build,
nothing shared changes), one boot (vm/run) running the installs of `make
selftests-series-check` (OUT/install/6.12/{unpatched,patched}; a mutant of another
architecture, its `arch:` line, those of `make selftests-series-check KERNEL_ARCH=<arch>`
in OUT/install/6.12-<arch>/, in that architecture's guest) by their own run_kselftest.sh.
A mutant whose architecture has no installs is one SKIP line.

  unpatched  CAUGHT when a test fails other than the four that race the asynchronous
             release on 6.12 (they fail on the unchanged kernel too)
  patched    CAUGHT when the test rows.txt names for the mutant's row fails, or the kernel
             died inside it (the TAP file ends in that test; vm/run names the crash); any
             other failure is listed, not counted
  ehconf     what `make test-kernel-mutants` recorded for the mutant
             (build/mutants/report.md when it ran here, else Documentation/kernel-cases.md)

Writes OUT/mutants/report.md (the side-by-side table) and prints one line per mutant and
"N passed, N failed, N skipped" (a pass: the patched selftests catch an in-scope mutant).
"""
import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SERIES = os.path.join(TOP, "kselftest-series")  # the series' rows and guest script
sys.path.insert(0, HERE)


def _script(name: str, path: str):
    """A script of scripts/ whose file name has dashes, loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


km = _script("kernel_mutants", "kernel-mutants.py")
tap_summary = _script("tap_summary", "selftests-series-tap-summary.py")

RACY_612 = {"abi_test/user.flags", "dyn_test/user.basic_types", "dyn_test/user.loc_types",
            "perf_test/user.perf_empty_events"}


def read_rows(path):
    rows, out = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#"):
                continue
            if p[0] == "out":
                out[p[1]] = " ".join(p[2:])
            else:
                rows.setdefault(p[0], []).append(p[1])
    return rows, out


def ehconf_recorded(m):
    """(verdict, source) of ehconf's own cases for mutant m."""
    rep = os.path.join(TOP, "build", "mutants", "report.md")
    if os.path.exists(rep):
        with open(rep, encoding="utf-8") as f:
            for line in f:
                cells = [c.strip() for c in line.split("|")]
                if len(cells) > 5 and cells[1] == m.name:
                    return ("caught" if cells[5] == "yes" else "NOT caught"), "build/mutants/report.md"
    with open(os.path.join(TOP, "Documentation", "kernel-cases.md"), encoding="utf-8") as f:
        text = f.read()
    for e in m.expect:
        if f"`{e}`" in text:
            return "caught", "Documentation/kernel-cases.md"
    return "not recorded", ""


def install_of(out, arch):
    """OUT/install/6.12 for x86-64, OUT/install/6.12-<arch> for another architecture."""
    return os.path.join(out, "install", "6.12" + ("" if arch == "x86_64" else "-" + arch))


def unreached(res, named):
    """The row's tests (program/fixture.test) that the patched run never reached: its file
    ended (the kernel died) in an earlier program or test before them."""
    tap = os.path.join(res, "patched.1.tap")
    if not named or not os.path.exists(tap):
        return []
    r = tap_summary.parse(tap)
    if not r["interrupted"]:
        return []
    ran = set(r["passed"]) | set(r["failed"])
    return [n for n in named if n not in ran]


def build_and_boot(m, d, src, inst, arch="x86_64", named=()):
    """Mutant m's edit built into a copy of the 6.12 object tree of arch (d/tree,
    d/build.log), then one boot in that architecture's guest running both installs: the
    boot's results folder (d/vm), or "" when no kernel was built."""
    subprocess.run(["rm", "-rf", d], check=True)
    os.makedirs(os.path.join(d, "tree", os.path.dirname(m.file)))
    with open(os.path.join(src, m.file), encoding="utf-8") as f, \
            open(os.path.join(d, "tree", m.file), "w", encoding="utf-8") as g:
        g.write(f.read())
    km.apply(os.path.join(d, "tree"), m)
    with open(os.path.join(d, "build.log"), "w") as log:
        p = subprocess.run([os.path.join(TOP, "scripts", "kernel-overlay-build.sh"), arch,
                            os.path.join(d, "tree", m.file), m.file],
                           stdout=subprocess.PIPE, stderr=log, text=True, cwd=TOP)
    image = p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else ""
    if not image:
        return ""
    res = os.path.join(d, "vm")
    os.makedirs(res, exist_ok=True)
    # TCG runs a guest of another architecture about twice as slowly
    timeout = "900" if arch == "x86_64" else "1800"
    def boot(results, *installs):
        subprocess.run([os.path.join(TOP, "vm", "run"), "--kernel", image, "--timeout", timeout,
                        "--results", results, "--allow-warning", ".", "--",
                        os.path.join(SERIES, "guest-run.sh"), results, "1", *installs],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=TOP,
                       env=dict(os.environ, KERNEL_ARCH=arch))
    boot(res, f"unpatched={inst}/unpatched", f"patched={inst}/patched")
    if not os.path.exists(os.path.join(res, "patched.1.tap")):
        # The unpatched tests killed the kernel first (arm64's alignment fault does): the
        # patched ones get a boot of their own, its vm.json kept as vm-patched.json.
        os.replace(os.path.join(res, "vm.json"), os.path.join(res, "vm-unpatched.json"))
        boot(res, f"patched={inst}/patched")
        os.replace(os.path.join(res, "vm.json"), os.path.join(res, "vm-patched.json"))
    tests = unreached(res, named)
    if tests:
        # An earlier program of the patched tree killed the kernel (arm64's alignment fault
        # kills it in the upstream ftrace_test): the row's own tests alone, in one more boot
        # (alone-<n>.1.tap, vm-alone.json), say whether they catch it.
        if os.path.exists(os.path.join(res, "vm.json")):
            os.replace(os.path.join(res, "vm.json"), os.path.join(res, "vm-patched.json"))
        boot(res, *[f"alone-{i}={inst}/patched:{t.replace('/', ':')}" for i, t in enumerate(tests)])
        os.replace(os.path.join(res, "vm.json"), os.path.join(res, "vm-alone.json"))
    return res


def took(row):
    """A row's build-and-boot time; "-" for one judged again from a saved boot."""
    return "-" if row["seconds"] is None else f"{row['seconds']} s"


def crash_line(res, kind):
    """ " (<first kernel log finding>)" of the boot that ran the kind's install: its
    vm-<kind>.json when it had a boot of its own, else vm.json (scripts/vm-report.py: the
    BUG/Oops/WARN/panic lines vm/run found); "" when there was none."""
    path = os.path.join(res, f"vm-{kind}.json")
    try:
        with open(path if os.path.exists(path) else os.path.join(res, "vm.json"),
                  encoding="utf-8") as f:
            findings = json.load(f).get("findings") or []
    except (OSError, ValueError):
        return ""
    return f" ({str(findings[0].get('line', '')).strip()[:160]})" if findings else ""


def judge(row, res, rows, out_of_scope):
    """The unpatched and patched verdicts of one boot's TAP files (res/<kind>.1.tap)."""
    m = row["m"]
    for kind in ("unpatched", "patched"):
        tap = os.path.join(res, f"{kind}.1.tap")
        if not os.path.exists(tap):
            row[kind] = "no result"
            continue
        # The patched tree's run, and the row's programs run alone after it when the kernel
        # died before them (build_and_boot)
        files = [(kind, tap)] + ([("alone", t) for t in sorted(glob.glob(os.path.join(res, "alone-*.1.tap")))]
                                 if kind == "patched" else [])
        fails = []
        for boot_kind, path in files:
            r = tap_summary.parse(path)
            fails += r["failed"] + [f"{p} (program)" for p, s in r["programs"].items()
                                    if s == "not ok" and not any(x.startswith(p + "/") for x in r["failed"])]
            if r["interrupted"]:  # the kernel died in this test or program: it did not pass
                fails.append(r["interrupted"])
                died = f"{boot_kind}: {r['interrupted']}" + crash_line(res, boot_kind)
                row["died_in"] = "; ".join(x for x in (row.get("died_in"), died) if x)
        if kind == "unpatched":
            real = [x for x in fails if x not in RACY_612]
            row["fails_u"] = real
            row[kind] = "caught" if real else "missed"
        else:
            row["fails_p"] = fails
            if m.row in out_of_scope:
                row[kind] = "out of scope" + (" (caught)" if fails else "")
            else:
                row[kind] = "caught" if any(n in fails for n in rows.get(m.row, [])) else "MISSED"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--only", default="")
    ap.add_argument("--rejudge", action="store_true",
                    help="judge again the boots already in OUT/mutants/<mutant>/vm (no build, no boot)")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    inst = install_of(out, "x86_64")
    for kind in ("unpatched", "patched"):
        if not os.access(os.path.join(inst, kind, "run_kselftest.sh"), os.X_OK):
            sys.exit(f"mutants: no {inst}/{kind} (make selftests-series-check first)")
    rows, out_of_scope = read_rows(os.path.join(SERIES, "rows.txt"))
    recipes = km.parse_recipes(km.RECIPES)
    order = [m.name for m in recipes]
    mutants = list(recipes)
    if args.only:
        want = args.only.split(",")
        mutants = sorted([m for m in mutants if m.name in want], key=lambda m: want.index(m.name))
    work = os.path.join(out, "mutants")
    os.makedirs(work, exist_ok=True)
    table, skipped = [], 0
    for m in mutants:
        t0 = time.monotonic()
        d = os.path.join(work, m.name)
        arch = m.arch or "x86_64"
        row = {"m": m, "unpatched": "-", "patched": "-", "named": rows.get(m.row, []),
               "fails_u": [], "fails_p": [], "arch": arch, "died_in": ""}
        if args.rejudge:
            res = os.path.join(d, "vm")
            if not os.path.isdir(res):
                continue
        elif not os.access(os.path.join(install_of(out, arch), "patched", "run_kselftest.sh"), os.X_OK):
            print(f"mutants: {m.name} ({m.row}): SKIP: no {arch} installs in "
                  f"{os.path.relpath(install_of(out, arch), TOP)} (make selftests-series-check "
                  f"KERNEL_ARCH={arch} SERIES_KERNELS=6.12, after KERNEL_ARCH={arch} vm/build-kernel)")
            skipped += 1
            continue
        else:
            res = build_and_boot(m, d, km.arch_source(arch), install_of(out, arch), arch,
                                 rows.get(m.row, []))
        if res:
            judge(row, res, rows, out_of_scope)
        else:
            row["unpatched"] = row["patched"] = "no kernel (build.log)"
        row["ehconf"], row["ehconf_src"] = ehconf_recorded(m)
        row["seconds"] = saved_seconds(d) if args.rejudge else round(time.monotonic() - t0)
        table.append(row)
        save_row(d, row)
        print(f"mutants: {m.name} ({m.row}): unpatched {row['unpatched']}, patched {row['patched']}, "
              f"ehconf {row['ehconf']} [{took(row)}]", flush=True)
        write_report(saved_rows(work, order), os.path.join(work, "report.md"), out_of_scope)
    n_pass = sum(r["patched"] == "caught" for r in table)
    n_fail = sum(r["patched"] not in ("caught",) and not r["patched"].startswith("out of scope") for r in table)
    n_skip = len(table) - n_pass - n_fail + skipped
    print(f"mutants: table in {os.path.relpath(os.path.join(work, 'report.md'), TOP)}")
    print(f"{n_pass} passed, {n_fail} failed, {n_skip} skipped")
    return 0 if n_fail == 0 else 1


# What one mutant's run decided, kept in its folder: the report is every mutant run so far
# (each run of --only adds its rows), so the table can be filled a few mutants at a time.
ROW = "row.json"
SAVED = ("unpatched", "patched", "named", "fails_u", "fails_p", "ehconf", "ehconf_src", "seconds",
         "arch", "died_in")


def save_row(folder, row):
    with open(os.path.join(folder, ROW), "w", encoding="utf-8") as f:
        json.dump(dict({k: row[k] for k in SAVED}, name=row["m"].name, row=row["m"].row), f,
                  indent=1)


def saved_seconds(folder):
    """The build-and-boot time an earlier run saved for a mutant, or None."""
    try:
        with open(os.path.join(folder, ROW), encoding="utf-8") as f:
            return json.load(f).get("seconds")
    except (OSError, ValueError):
        return None


def saved_rows(work, order):
    """Every mutant's saved row under work, in scripts/kernel-mutants.txt's order; a
    mutant whose folder holds no row (a run cut short) is left out."""
    table = []
    for name in order:
        try:
            with open(os.path.join(work, name, ROW), encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        r["m"] = argparse.Namespace(name=r.pop("name"), row=r.pop("row"))
        table.append(r)
    return table


def write_report(table, path, out_of_scope):
    L = ["# Planted kernel regressions: the kernel's selftests, unpatched and patched, and ehconf\n",
         "Each mutant of scripts/kernel-mutants.txt built into Debian's 6.12.117 for its guest and booted once "
         "(scripts/selftests-series-mutants.py). unpatched: a failure other than the four racy tests; "
         "patched: the test kselftest-series/rows.txt names for the row failed, or the kernel died in it.\n",
         "| mutant | row | guest | unpatched selftests | patched selftests | ehconf cases | patched test(s) that failed | time |",
         "|---|---|---|---|---|---|---|---|"]
    for r in table:
        m = r["m"]
        fails = ", ".join(f"`{x}`" for x in r["fails_p"][:4]) + (" ..." if len(r["fails_p"]) > 4 else "")
        if r.get("died_in"):
            fails += f"; the kernel died in {r['died_in']}"
        L.append(f"| {m.name} | {m.row} | {r.get('arch', 'x86_64')} | {r['unpatched']} "
                 f"| {'**' + r['patched'] + '**' if r['patched'] == 'MISSED' else r['patched']} "
                 f"| {r['ehconf']} | {fails or '-'} | {took(r)} |")
    if out_of_scope:
        L += ["", "Out of the series' scope: " + "; ".join(f"{k}: {v}" for k, v in out_of_scope.items())]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    sys.exit(main())
