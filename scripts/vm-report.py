#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Scan a guest's kernel log for splats and write vm.json (used by vm/run).

Kernel lines are those carrying a printk timestamp "[ 12.345678] " (the ehconf
kernel has CONFIG_PRINTK_TIME; so do Debian's; the "[" may be displaced by the guest's
output interleaved with it), so a guest program printing
"WARNING:" itself is not mistaken for the kernel. If the console has no
timestamped line at all, every console line is scanned.

A finding is a kernel line with WARNING:, BUG:, Oops, Kernel panic, KASAN,
general protection fault or Call Trace. Findings between "[ cut here ]" and
"---[ end trace" form one splat; a splat is allowed when any of its lines
matches an --allow regex (the WARN message, e.g. "perf buffer not large
enough", is printed before the WARNING: line). A finding outside a splat is
allowed if it matches itself; a "Call Trace" shares the verdict of the finding
before it (within 60 lines).

Prints one "vm: FAIL kernel ..." line per disallowed finding and one
"vm: allowed kernel ..." line per allowed one; exit 1 if any is disallowed.
"""
import argparse
import json
import re
import sys

# printk's stamp, six decimals then "] ". Not anchored at "[": the guest's own console output
# can interleave with a kernel line character by character ("g[uest: crashing    11.120656]
# Kernel panic - ..."), and that line must still count as the kernel's.
TIMESTAMP = re.compile(r"(\d+\.\d{6})\] ")
FINDING = re.compile(r"WARNING:|BUG:|Oops|Kernel panic|KASAN|general protection fault|Call Trace")
CUT_HERE = "------------[ cut here ]------------"
END_TRACE = re.compile(r"---\[ end trace")


def kernel_lines(console_text):
    """Return the kernel part of each timestamped console line (text after the stamp)."""
    out = []
    for raw in console_text.splitlines():
        raw = raw.rstrip("\r")
        m = TIMESTAMP.search(raw)
        if m:
            out.append(raw[m.end():])
    return out


def scan(lines, allow):
    """Return a list of findings: dicts with line, kind, allowed, allowed_by."""
    findings = []
    i = 0
    last_at = None  # index of the last finding that was not a "Call Trace"
    last_by = None  # and the allow pattern it matched (None: not allowed)

    def matching_allow(text):
        for rx in allow:
            if rx.search(text):
                return rx.pattern
        return None

    while i < len(lines):
        line = lines[i]
        if CUT_HERE in line:
            # A splat: up to its end marker (bounded, in case it was cut off).
            j = i + 1
            while j < len(lines) and j < i + 400 and not END_TRACE.search(lines[j]) and CUT_HERE not in lines[j]:
                j += 1
            block = lines[i:j + 1] if j < len(lines) and END_TRACE.search(lines[j]) else lines[i:j]
            by = None
            for b in block:
                by = matching_allow(b)
                if by:
                    break
            for b in block:
                m = FINDING.search(b)
                if m:
                    findings.append({"line": b, "kind": m.group(0), "allowed": by is not None, "allowed_by": by})
            last_at, last_by = i + len(block), by
            i += max(len(block), 1)
            continue
        m = FINDING.search(line)
        if m:
            by = matching_allow(line)
            if m.group(0) == "Call Trace":
                # A stack dump belongs to the finding just before it.
                if by is None and last_at is not None and i - last_at <= 60:
                    by = last_by
            else:
                last_at, last_by = i, by
            findings.append({"line": line, "kind": m.group(0), "allowed": by is not None, "allowed_by": by})
        i += 1
    return findings


def read_text(path):
    try:
        with open(path, "r", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def typed(value):
    """vm/run passes every --set as text: turn numbers/null back into JSON types."""
    if value in ("null", ""):
        return None
    for conv in (int, float):
        try:
            return conv(value)
        except ValueError:
            pass
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--console", required=True)
    ap.add_argument("--dmesg")
    ap.add_argument("--guest-info")
    ap.add_argument("--out", required=True)
    ap.add_argument("--allow", action="append", default=[])
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--command", nargs=argparse.REMAINDER, default=[])
    args = ap.parse_args()

    try:
        allow = [re.compile(a) for a in args.allow]
    except re.error as e:
        print(f"vm: error: bad --allow-warning regex: {e}", file=sys.stderr)
        return 2

    console = read_text(args.console) or ""
    lines = kernel_lines(console)
    source = "console"
    if not lines:
        dmesg = read_text(args.dmesg) if args.dmesg else None
        if dmesg:
            lines, source = kernel_lines(dmesg) or dmesg.splitlines(), "dmesg"
        else:
            lines, source = console.splitlines(), "console (no timestamps)"
    findings = scan(lines, allow)

    summary = {}
    for kv in args.set:
        key, _, value = kv.partition("=")
        summary[key] = typed(value)
    for key in ("kernel", "initramfs", "accel", "results", "cwd"):
        if key in summary and summary[key] is not None:
            summary[key] = str(summary[key])
    summary["timed_out"] = bool(summary.get("timed_out"))
    summary["command"] = args.command
    info = {}
    if args.guest_info:
        for line in (read_text(args.guest_info) or "").splitlines():
            key, sep, value = line.partition("=")
            if sep:
                info[key] = value
    summary["kernel_release"] = info.get("kernel_release")
    summary["user_events"] = {"1": True, "0": False}.get(info.get("user_events"))
    summary["tracefs"] = {"1": True, "0": False}.get(info.get("tracefs"))
    summary["guest_cpus"] = typed(info["cpus"]) if "cpus" in info else None
    summary["init_uptime_seconds"] = typed(info["init_uptime"]) if "init_uptime" in info else None
    summary["allow_warning"] = args.allow
    summary["findings_source"] = source
    summary["findings"] = findings
    bad = [f for f in findings if not f["allowed"]]
    summary["kernel_failures"] = len(bad)

    with open(args.out, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    for f_ in findings:
        tag = "allowed" if f_["allowed"] else "FAIL"
        print(f"vm: {tag} kernel {f_['kind'].rstrip(':')}: {f_['line'].strip()}")
    if summary["user_events"] is False:
        print("vm: kernel lacks CONFIG_USER_EVENTS (no /sys/kernel/tracing/user_events_data)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
