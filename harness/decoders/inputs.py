# SPDX-License-Identifier: GPL-2.0
"""What make check-decoders feeds every decoder (Documentation/decoders.md §1): the
captures ehconf has, in the perf formats every decoder reads, and the damaged set made
from them and from the fuzz targets' corpora. Deterministic: the same captures and seed
give the same files. Standard library only; mkperfdata (tools/) writes perf.data.

Captures (id: where from):
  vm/<case>            build/results/vm/<case>.perf.data, recorded by perf in the VM
                       (make check-vm, part of make check)
  vm-clock/<case>, vm-clock-pipe/<case>
                       build/results/vm/<case>.clock.perf.data and .clock-pipe.perf.data:
                       the same run's recordings under `perf record -k CLOCK_MONOTONIC`, in
                       file and pipe mode (harness/vm/guest_run.py CLOCK_CASES), with perf's
                       own clock data
  offline/<case>       build/results/offline-<variant>/<case>.dat, the offline capture,
                       as perf.data (mkperfdata: no decoder but ehdecode reads .dat)
  offline-pipe/<case>  the same in perf's pipe mode (mkperfdata --pipe)
  offline-clock/<case>, offline-clock-pipe/<case>
                       the same with perf's clock data (mkperfdata --clock: the CLOCK_DATA
                       feature), so times print as wall-clock dates; CLOCK_CASES only
  data/<name>          tests/data/perf/*.perf.data, real captures kept in the repository
                       (two of them pipe mode, recorded by perf itself; two with its clock data)
Damaged (id: damaged/<set>/<name>):
  mutated    vm/<case> with 1 to 4 bytes replaced at seeded random offsets
  truncated  offline-pipe/<case> cut at seeded offsets (pipe mode: the metadata comes first,
             so what precedes the cut is decodable)
  fuzz_perf, fuzz_eventheader
             the seeds and corpus (make fuzz) of those fuzz targets: perf.data images as
             they are; single events (byte 0: control, then the event) as a one-event
             capture, through mkperfdata
"""

from __future__ import annotations

import glob
import os
import random
import struct
from dataclasses import dataclass
from typing import List, Optional

from harness.core.common import REPO_ROOT
from harness.core.processes import run

MUTATED_PER_CAPTURE = 12
TRUNCATED_PER_CAPTURE = 6
CLOCK_CASES = ("activity",)  # offline-clock/, offline-clock-pipe/: with clock data
VM_CLOCK_MODES = ("clock", "clock-pipe")  # <case>.<mode>.perf.data of guest_run.py
CORPUS_LIMIT = 150  # inputs per fuzz target (seeds first, then the corpus by name)


@dataclass
class Capture:
    ident: str  # e.g. vm/structs
    path: str
    damage: Optional[int] = None  # damaged: the first changed (or cut) offset
    damage_last: Optional[int] = None  # damaged: the last changed offset
    source: str = ""  # damaged: the ident of the capture it was made from

    @property
    def format(self) -> str:
        """The registry's name of its format (decoders/decoders.txt, reads): "pipe" for
        perf's pipe mode (header size 16), else "perf" (file mode, or bytes that are not
        perf.data at all, which a decoder must reject as such)."""
        try:
            with open(self.path, "rb") as f:
                head = f.read(16)
        except OSError:
            return "perf"
        if len(head) == 16 and head[:8] in (b"PERFILE2", b"2ELIFREP"):
            size = int.from_bytes(head[8:], "little" if head[:8] == b"PERFILE2" else "big")
            if size == 16:
                return "pipe"
        return "perf"


def fuzz_corpora() -> str:
    """Where make fuzz keeps its corpora (mk/fuzz.sh)."""
    return os.environ.get("EHCONF_FUZZ_CORPORA") or os.path.join(
        os.environ.get("EHCONF_CACHE", "/var/cache/ehconf"), "fuzz-corpora")


def _mkperfdata(mkperfdata: str, dat: str, out: str, pipe: bool, clock: bool = False) -> str:
    """"" or why not."""
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(dat):
        return ""
    r = run([mkperfdata] + (["--pipe"] if pipe else []) + (["--clock"] if clock else [])
            + ["-o", out, dat], 30)
    # Exit 1 with the file written: events a perf sample cannot hold (over 64 KB) were
    # left out, as perf itself would; every decoder then reads the same file.
    if r.returncode == 1 and os.path.getsize(out) if os.path.exists(out) else False:
        return ""
    return r.how() and f"mkperfdata {dat}: {r.how()}: {r.output.strip()[:200]}"


def captures(results: str, variant: str, mkperfdata: str, out: str) -> (List[Capture], List[str]):
    """(the captures, problems: one line per source that is missing, naming the command)."""
    found: List[Capture] = []
    problems: List[str] = []
    vm, vm_clock = [], []
    for p in sorted(glob.glob(os.path.join(results, "vm", "*.perf.data"))):
        case, _, mode = os.path.basename(p)[:-len(".perf.data")].partition(".")
        if not mode:
            vm.append(Capture("vm/" + case, p))
        elif mode in VM_CLOCK_MODES:
            vm_clock.append(Capture(f"vm-{mode}/{case}", p))
    if not vm:
        problems.append(f"no {os.path.join(results, 'vm')}/*.perf.data: run `make check` "
                        f"(or `make check-vm`) first")
    elif not vm_clock:
        problems.append(f"no {os.path.join(results, 'vm')}/*.clock.perf.data (perf record -k "
                        f"in the VM): run `make check-vm` again, its guest records them")
    found += vm + sorted(vm_clock, key=lambda c: (VM_CLOCK_MODES.index(c.ident.split("/")[0][3:]),
                                                  c.ident))
    dats = sorted(glob.glob(os.path.join(results, f"offline-{variant}", "*.dat")))
    if not dats:
        problems.append(f"no {os.path.join(results, f'offline-{variant}')}/*.dat: run "
                        f"`make check-offline VARIANT={variant}` first")
    os.makedirs(out, exist_ok=True)
    for pipe in (False, True):
        for dat in dats:
            case = os.path.basename(dat)[:-len(".dat")]
            kind = "offline-pipe" if pipe else "offline"
            path = os.path.join(out, f"{kind}-{case}.perf.data")
            why = _mkperfdata(mkperfdata, dat, path, pipe)
            if why:
                problems.append(why)
            else:
                found.append(Capture(f"{kind}/{case}", path))
    # With perf's clock data (the CLOCK_DATA feature of perf record -k): every decoder
    # prints wall-clock dates, which are compared too.
    for pipe in (False, True):
        for dat in dats:
            case = os.path.basename(dat)[:-len(".dat")]
            if case not in CLOCK_CASES:
                continue
            kind = "offline-clock-pipe" if pipe else "offline-clock"
            path = os.path.join(out, f"{kind}-{case}.perf.data")
            why = _mkperfdata(mkperfdata, dat, path, pipe, clock=True)
            if why:
                problems.append(why)
            else:
                found.append(Capture(f"{kind}/{case}", path))
    for p in sorted(glob.glob(os.path.join(REPO_ROOT, "tests", "data", "perf", "*.perf.data"))):
        found.append(Capture("data/" + os.path.basename(p)[:-len(".perf.data")], p))
    return found, problems


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def mutated(capture: Capture, out: str, seed: int) -> List[Capture]:
    with open(capture.path, "rb") as f:
        data = f.read()
    rng = random.Random(f"{seed}:{capture.ident}")
    name = capture.ident.replace("/", "-")
    made = []
    for i in range(MUTATED_PER_CAPTURE):
        b = bytearray(data)
        offsets = sorted(rng.randrange(len(b)) for _ in range(rng.randint(1, 4)))
        for o in offsets:
            b[o] = rng.choice((0x00, 0xff, 0x22, 0x5c, 0x80, b[o] ^ (1 << rng.randrange(8))))
        offsets = [o for o in offsets if b[o] != data[o]]  # a byte may get its own value
        if not offsets:
            continue
        path = os.path.join(out, f"{name}-m{i:02d}.perf.data")
        _write(path, bytes(b))
        made.append(Capture(f"damaged/mutated/{name}-m{i:02d}", path, offsets[0],
                            offsets[-1], capture.ident))
    return made


def truncated(capture: Capture, out: str, seed: int) -> List[Capture]:
    with open(capture.path, "rb") as f:
        data = f.read()
    rng = random.Random(f"{seed}:{capture.ident}")
    name = capture.ident.replace("/", "-")
    made = []
    for i in range(TRUNCATED_PER_CAPTURE):
        cut = rng.randrange(len(data) // 4, len(data))
        path = os.path.join(out, f"{name}-t{i:02d}.perf.data")
        _write(path, data[:cut])
        made.append(Capture(f"damaged/truncated/{name}-t{i:02d}", path, cut, cut,
                            capture.ident))
    return made


def _corpus_files(target: str) -> List[str]:
    seeds = sorted(glob.glob(os.path.join(REPO_ROOT, "tests", "fuzz", f"seeds-{target}", "*")))
    corpus = sorted(glob.glob(os.path.join(fuzz_corpora(), target, "*")))
    return [p for p in seeds + corpus if os.path.isfile(p)][:CORPUS_LIMIT]


def event_as_dat(event: bytes) -> bytes:
    """A fuzz_eventheader input (byte 0: control; then the event from its header on) as a
    .dat capture record (Documentation/eventheader-wire.md: a 4-byte little-endian size
    that counts itself, the tracepoint name and its NUL, the event), named as the fuzz
    target names it: Fuzz_Prov_L<the header's level>K1f."""
    body = event[1:]
    level = body[7] if len(body) >= 8 else 0
    name = f"Fuzz_Prov_L{level}K1f".encode() + b"\0"
    return struct.pack("<I", 4 + len(name) + len(body)) + name + body


def fuzz_inputs(mkperfdata: str, out: str) -> List[Capture]:
    made = []
    for p in _corpus_files("fuzz_perf"):
        made.append(Capture(f"damaged/fuzz_perf/{os.path.basename(p)[:40]}", p))
    for p in _corpus_files("fuzz_eventheader"):
        with open(p, "rb") as f:
            event = f.read()
        if len(event) < 9:
            continue
        base = os.path.basename(p)[:40]
        dat = os.path.join(out, f"eventheader-{base}.dat")
        _write(dat, event_as_dat(event))
        path = dat[:-len(".dat")] + ".perf.data"
        if not _mkperfdata(mkperfdata, dat, path, False):
            made.append(Capture(f"damaged/fuzz_eventheader/{base}", path))
    return made


def damaged(caps: List[Capture], mkperfdata: str, out: str, seed: int) -> List[Capture]:
    """The damaged set, from the vm/ captures (mutated), the offline-pipe/ ones
    (truncated) and the fuzz corpora."""
    os.makedirs(out, exist_ok=True)
    made: List[Capture] = []
    for c in caps:
        if c.ident.startswith("vm/"):
            made += mutated(c, out, seed)
        elif c.ident.startswith("offline-pipe/"):
            made += truncated(c, out, seed)
    return made + fuzz_inputs(mkperfdata, out)
