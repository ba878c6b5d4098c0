#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Prints the observed form of a decoder's differing events for one capture of the last
make check-decoders: the entries an observation file (decoders/<name>/observed/*.json,
harness/decoders/declared.py) would hold to declare them, each with a "why" to write. It
only prints: a declaration is a reviewed change, written by hand into the profile and its
observation file, never by this command.

    harness/decoders/observe.py DECODER CAPTURE [--results build/results]
    harness/decoders/observe.py rust-decode offline/field_types
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.abspath(__file__).rsplit(os.sep + "harness" + os.sep, 1)[0])  # the checkout: import harness.*

from harness.core.common import REPO_ROOT, safe_id  # noqa: E402
from harness.decoders.compare import read_document  # noqa: E402
from harness.decoders.declared import observe  # noqa: E402
from harness.decoders.registry import REFERENCE  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("decoder")
    ap.add_argument("capture", help="a capture id of the run, e.g. offline/structs")
    ap.add_argument("--results", default=os.path.join(REPO_ROOT, "build", "results"))
    args = ap.parse_args(argv)
    name = safe_id(args.capture).replace("/", "-") + ".json"
    docs = []
    for d in (REFERENCE, args.decoder):
        path = os.path.join(args.results, "decoders", d, "out", name)
        if not os.path.exists(path):
            print(f"decoder-observe: no {path}: run make check-decoders first", file=sys.stderr)
            return 2
        with open(path, "rb") as f:
            docs.append(read_document(f.read()))
    entries = observe(docs[0].events, docs[1].events)
    print('{"declares": [')
    print(",\n".join("  " + json.dumps(e, ensure_ascii=True) for e in entries))
    print("]}")
    print(f"decoder-observe: {args.decoder} {args.capture}: {len(entries)} differing events "
          f"of {len(docs[0].events)}; printed, nothing written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
