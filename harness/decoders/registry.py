# SPDX-License-Identifier: GPL-2.0
"""The decoder registry (decoders/decoders.txt), each decoder's profile
(decoders/<name>/profile.txt) and its build: what harness/decoders/run_decoders.py (make
check-decoders) and a benchmark read. A benchmark takes the decoders from here:

    from harness.decoders.registry import built_decoders
    for d, path in built_decoders("build/gcc", "build/decoders"):   # release builds
        run [path, "some.perf.data"]; d.name is the row's name

Every decoder runs as `DECODER FILE` and prints one JSON document on stdout."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from harness.core.common import REPO_ROOT, display_path, table_rows
from harness.core.processes import run

REGISTRY = os.path.join(REPO_ROOT, "decoders", "decoders.txt")
REFERENCE = "ehdecode"
BUILD_TIMEOUT = 900  # cmake or cargo from scratch on 2 busy cores


@dataclass(frozen=True)
class Decoder:
    name: str
    language: str
    checkout: str  # "-" (built by make) or the suffix of its IMPL_SRC_<checkout>
    upstream: str
    reads: Tuple[str, ...]  # perf, pipe
    what: str

    @property
    def variable(self) -> str:
        return f"IMPL_SRC_{self.checkout}"

    @property
    def folder(self) -> str:
        return os.path.join(REPO_ROOT, "decoders", self.name)

    @property
    def reference(self) -> bool:
        return self.checkout == "-"


def read_registry(path: str = REGISTRY) -> List[Decoder]:
    return [Decoder(p[0], p[1], p[2], p[3], tuple(p[4].split(",")), p[5])
            for _, p in table_rows(path, 6, "name, language, checkout, upstream, reads and "
                                            "what it is")]


@dataclass
class Built:
    path: str  # "" when it cannot run
    status: str  # pass, skip (no checkout named) or fail
    message: str
    seconds: float = 0.0


def reference_path(build: str) -> str:
    return os.path.join(build, "bin", "ehdecode")


def build(d: Decoder, build: str, out: str, asan: bool = False,
          env: Optional[Dict[str, str]] = None) -> Built:
    """The decoder built: the reference from make's build folder `build` (build/gcc, or
    build/asan for the sanitized one), the others by decoders/<name>/build against the
    checkout its variable names (in env, default os.environ) into out/<name>[-asan]."""
    env = os.environ if env is None else env
    if d.reference:
        path = reference_path(build)
        if not os.access(path, os.X_OK):
            return Built("", "fail", f"{d.name}: {display_path(path)} is not built "
                                     f"(make VARIANT={os.path.basename(build)} all)")
        return Built(path, "pass", f"{display_path(path)} (built by make)")
    src = env.get(d.variable, "")
    if not src:
        return Built("", "skip", f"{d.name}: no checkout of {d.upstream}: pass "
                                 f"{d.variable}=<path> (make check-decoders {d.variable}=<path>)")
    outdir = os.path.join(out, d.name + ("-asan" if asan else ""))
    os.makedirs(outdir, exist_ok=True)
    log = os.path.join(outdir, "build.log")
    r = run([os.path.join(d.folder, "build"), os.path.abspath(src), outdir], BUILD_TIMEOUT,
            env={"EHCONF_DECODER_ASAN": "1" if asan else "0"}, merge_stderr=False)
    with open(log, "w", encoding="utf-8") as f:
        f.write(r.output + "\n--- stderr ---\n" + r.stderr)
    last = r.output.strip().splitlines()[-1] if r.output.strip() else ""
    if r.how() or not os.access(last, os.X_OK):
        why = (r.stderr.strip().splitlines() or [r.how() or "no decoder path printed"])[-1]
        return Built("", "fail", f"{d.name}: build: {why} (log: {display_path(log)})",
                     r.seconds)
    return Built(last, "pass", f"built in {r.seconds:.0f} s: {display_path(last)}", r.seconds)


def built_decoders(build_dir: str, out: str, asan: bool = False,
                   env: Optional[Dict[str, str]] = None) -> List[Tuple[Decoder, str]]:
    """Every registered decoder that builds, with its path, the reference first: for a
    benchmark (release builds) or a robustness run (asan=True). A decoder without a
    checkout or whose build fails is left out (build() says why)."""
    out_list = []
    for d in sorted(read_registry(), key=lambda d: not d.reference):
        b = build(d, build_dir, out, asan, env)
        if b.path:
            out_list.append((d, b.path))
    return out_list


@dataclass
class Profile:
    """decoders/<name>/profile.txt: `<item pattern> <reason>` per line, the pattern over
    item ids below decoder/<name>/ (fnmatch: `*/structs/json` is every capture of structs):
    a failure the decoder is known for, declared with the upstream source line. The first
    pattern that matches a failing item declares it (an expected failure); a pattern that
    matches no failing item fails, so a fixed decoder drops its declaration. `?pattern`
    declares a failure that the run's inputs may not show (a damaged input made from this
    run's captures): unused, it is no failure.

    A pattern of `events` items (its last part is `events`) declares events, not items:
    `<pattern> observed/<file>.json <reason>`, the file beside the profile stating which
    events it excuses and the exact output accepted for each (harness/decoders/declared.py);
    every other event of the capture is compared as usual. Such a pattern declares only
    events items, and no other pattern declares an events item."""
    declared: Dict[str, str] = field(default_factory=dict)
    observed: Dict[str, str] = field(default_factory=dict)  # events pattern -> its file


def is_events_pattern(pattern: str) -> bool:
    return pattern.lstrip("?").rsplit("/", 1)[-1] == "events"


def read_profile(d: Decoder) -> Profile:
    p = Profile()
    path = os.path.join(d.folder, "profile.txt")
    if not os.path.exists(path):
        return p
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            words = line.split(None, 1)
            if not words or words[0].startswith("#"):
                continue
            if len(words) != 2 or not words[1].strip():
                raise ValueError(f"{path}:{n}: expected `<item> <reason>`")
            why = words[1].strip()
            if is_events_pattern(words[0]):
                obs, _, why = why.partition(" ")
                if not obs.startswith("observed/") or not obs.endswith(".json") or \
                        not why.strip():
                    raise ValueError(f"{path}:{n}: an events pattern is `<pattern> "
                                     f"observed/<file>.json <reason>`")
                if not os.path.isfile(os.path.join(d.folder, obs)):
                    raise ValueError(f"{path}:{n}: {obs} is not in {display_path(d.folder)}")
                p.observed[words[0]] = os.path.join(d.folder, obs)
                why = why.strip()
            p.declared[words[0]] = why
    return p
