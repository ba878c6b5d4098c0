# SPDX-License-Identifier: GPL-2.0
"""The recipe format of ehconf's planted bugs, shared by `make test-kernel-mutants`
(scripts/kernel-mutants.txt) and `make test-impl-mutants` (impl/<name>/mutants.txt).

Blocks of `key: value` lines separated by blank lines; '#' starts a comment line:
  mutant: <name>        unique, [a-z0-9-]; opens the block
  what:   <one line>    what the code then does wrong
  file:   <path>        relative to the tree the mutant edits
  from:   <line>        matches exactly one line (whitespace-insensitive) ...
  to:     <line>        ... replaced, keeping its indentation; pairs may repeat
  expect: <item>        what must fail because of it (more lines: any of them)
plus the keys each driver adds (the kernel's `row`, an implementation's `impl`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import List, Tuple


@dataclass
class Mutant:
    name: str
    what: str = ""
    file: str = ""
    edits: List[tuple] = field(default_factory=list)  # (from line, to line)
    expect: List[str] = field(default_factory=list)
    row: str = ""  # kernel mutants: the inventory row it breaks
    impl: str = ""  # implementation mutants: the implementation it is planted in
    crate: str = ""  # implementation mutants of a producer from the crate registry: the
    #                  published crate whose source is copied and edited, "<name>-<version>"
    arch: str = ""  # kernel mutants: the guest architecture that can catch it (vm/arches)
    profile: str = ""  # decoder mutants: "yes" judges with decoders/<name>/profile.txt, so
    #                    that a fault inside a declared difference fails its declared item


def parse_recipes(path: str, required: Tuple[str, ...], make=Mutant,
                  optional: Tuple[str, ...] = ()) -> List[Mutant]:
    """Every block of the file as `make(name)` with its keys; `required` (besides what,
    from/to and expect) must be in every block, `optional` keys may be. A bad file is a
    SystemExit naming the line."""
    mutants, cur, pending = [], None, None
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                cur = None
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise SystemExit(f"{path}:{no}: expected 'key: value'")
            key, value = key.strip(), value.strip()
            if key == "mutant":
                cur = make(value)
                mutants.append(cur)
                continue
            if cur is None:
                raise SystemExit(f"{path}:{no}: '{key}' outside a 'mutant:' block")
            if key in ("what", "file") + required + optional:
                setattr(cur, key, value)
            elif key == "expect":
                cur.expect.append(value)
            elif key == "from":
                pending = value
            elif key == "to":
                if pending is None:
                    raise SystemExit(f"{path}:{no}: 'to' without 'from'")
                cur.edits.append((pending, value))
                pending = None
            else:
                raise SystemExit(f"{path}:{no}: unknown key '{key}'")
    for m in mutants:
        if not (m.what and m.edits and m.expect and m.file
                and all(getattr(m, k) for k in required)):
            raise SystemExit(f"{path}: mutant {m.name} needs "
                             f"{', '.join(required + ('what',))}, file, from/to and expect")
    return mutants


def apply(tree: str, m: Mutant) -> None:
    """Each `from` must match exactly one line of the file, else the recipe is stale."""
    path = os.path.join(tree, m.file)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for old, new in m.edits:
        hits = [i for i, x in enumerate(lines) if x.split() == old.split()]
        if len(hits) != 1:
            raise RuntimeError(f"mutant {m.name}: {len(hits)} lines of {m.file} are "
                               f"'{old}' (need exactly 1): the recipe needs updating")
        i = hits[0]
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = f"{indent}{new} /* ehconf mutant {m.name} */"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
