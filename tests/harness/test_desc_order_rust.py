# SPDX-License-Identifier: GPL-2.0
"""The Rust emitters' byte-order rule (emitlib/rust/desc_order.rs) can fail its test: the unit
test tests/desc/desc_order.rs (make builds it as test_desc_order_rust) is built again here
over a scratch copy of the rule with one planted fault, and must name the field the fault
breaks. Each planting is a mistake a big-endian emitter would make unseen on x86-64: a port
written as a number (byte-swapped on s390x), a char16 string shown as hex_bytes swapped.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from harness.core.common import REPO_ROOT

RUSTC = os.environ.get("EHCONF_RUSTC", "/usr/bin/rustc")

PLANTS = [
    # (what is replaced in desc_order.rs, by what, the test item that must fail)
    ("PORT => width == 2,", "PORT => false,", "port_network_order"),
    ("            if fmt == HEX_BYTES {\n                0\n            } else {\n                unit_size(enc)",
     "            if fmt == 0xff {\n                0\n            } else {\n                unit_size(enc)",
     "char16_hex_bytes"),
]


def build_and_run(tree, out):
    binary = os.path.join(out, "desc_order")
    r = subprocess.run([RUSTC, "--edition", "2021", "-O", "-o", binary,
                        os.path.join(tree, "tests", "desc", "desc_order.rs")],
                       env=dict(os.environ, EHCONF_TYPES_TXT=os.path.join(REPO_ROOT, "descriptions",
                                                                         "types.txt")),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return subprocess.run([binary], capture_output=True, text=True, timeout=60)


def scratch_tree(tmp_path):
    """tests/desc/desc_order.rs and the two files it includes, laid out as in the checkout."""
    tree = tmp_path / "tree"
    for rel in ("tests/desc/desc_order.rs", "emitlib/rust/desc.rs", "emitlib/rust/desc_order.rs"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(os.path.join(REPO_ROOT, rel), tree / rel)
    return tree


@pytest.mark.skipif(not os.access(RUSTC, os.X_OK), reason=f"{RUSTC} is not installed (make deps: rustc-web)")
@pytest.mark.parametrize("old,new,item", PLANTS, ids=[p[2] for p in PLANTS])
def test_a_planted_fault_fails_the_rule_test(tmp_path, old, new, item):
    tree = scratch_tree(tmp_path)
    rule = tree / "emitlib" / "rust" / "desc_order.rs"
    text = rule.read_text()
    assert text.count(old) == 1, f"the planting no longer applies: {old!r}"
    rule.write_text(text.replace(old, new))
    r = build_and_run(str(tree), str(tmp_path))
    failed = [ln.split()[-1] for ln in r.stdout.splitlines() if ln.startswith("not ok ")]
    assert r.returncode == 1 and failed == [item], r.stdout
