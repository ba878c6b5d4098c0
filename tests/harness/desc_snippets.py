# SPDX-License-Identifier: GPL-2.0
"""The malformed snippets of the case-description format, tests/desc-format/malformed/
(README.md there): what every description parser must refuse, each with the one line it
must print. libdesc and the Rust parser are held to them (and to the valid ones) by the
unit tests tests/desc/; test_descriptions.py runs ehconf's emitter on them and
test_impl_emitters.py every implementation's parser, emitter or generator.

Not a test file (pytest collects test_*.py only): the tests import it by name."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List

from harness.core.common import REPO_ROOT

MALFORMED_DIR = os.path.join(REPO_ROOT, "tests", "desc-format", "malformed")
REFUSED = "# refused: "


@dataclass(frozen=True)
class Malformed:
    name: str
    path: str
    text: bytes
    expect: str  # "<line>: <reason>", what follows `<path>:` in the refusal

    def refusal(self, path: str) -> str:
        """The one line on stderr for this snippet written to path."""
        return f"{path}:{self.expect}"


def malformed() -> List[Malformed]:
    out = []
    for f in sorted(os.listdir(MALFORMED_DIR)):
        if f.endswith(".events"):
            path = os.path.join(MALFORMED_DIR, f)
            with open(path, "rb") as fh:
                text = fh.read()
            first = text.split(b"\n", 1)[0].decode("ascii")
            assert first.startswith(REFUSED), f"{path}: the first line is not `{REFUSED}<line>: <reason>`"
            out.append(Malformed(f[:-len(".events")], path, text, first[len(REFUSED):]))
    return out
