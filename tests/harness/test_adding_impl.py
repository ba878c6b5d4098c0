# SPDX-License-Identifier: GPL-2.0
"""Documentation/adding.md's recipe for an implementation under test, done on a scratch
copy: a row in impl/implementations.txt, impl/<name>/build and its emitter, nothing else.
The new implementation here is ehconf's own emitter behind a wrapper (what matters is the
plumbing, not the library): the offline runner builds it through its `build`, runs every
case description under the stand-in, pytest judges the items, and impls.md reports them,
all with no other file touched."""

from __future__ import annotations

import os
import shutil
import subprocess

from harness.core.common import REPO_ROOT
from impl_emitters import ehconf_build, need, run_offline_and_judge
from harness.reports.items import read_section
from harness.reports.junit import read

ROW = "demo  c  DEMO  example/demo  -  cases  emit  ehdecode  ehconf's emitter behind a wrapper (a recipe test)\n"
BUILD = r'''#!/bin/sh
# impl/demo/build IMPL_SRC OUTDIR: the recipe's build: check the checkout, make the emitter,
# print its path last.
set -e
[ -f "$1/DEMO" ] || { echo "demo: $1 is not a demo checkout" >&2; exit 1; }
mkdir -p "$2"
cp "$(dirname "$0")/emit" "$2/emit"
chmod +x "$2/emit"
echo "$2/emit"
'''
EMIT = '''#!/bin/sh
# The demo's emitter: ehconf's, as a stand-in for a new implementation's own.
exec "$EHCONF_DEMO_EMIT" "$@"
'''


def scratch_copy(tmp_path) -> str:
    copy = str(tmp_path / "repo")
    for d in ("harness", "impl", "descriptions", "golden", "cases", "lib/eventheader/include"):
        shutil.copytree(os.path.join(REPO_ROOT, d), os.path.join(copy, d))
    for f in ("conftest.py", "pytest.ini"):
        shutil.copy(os.path.join(REPO_ROOT, f), copy)
    return copy


def add_demo(copy: str) -> None:
    with open(os.path.join(copy, "impl", "implementations.txt"), "a", encoding="utf-8") as f:
        f.write(ROW)
    os.makedirs(os.path.join(copy, "impl", "demo"))
    for name, text in (("build", BUILD), ("emit", EMIT)):
        path = os.path.join(copy, "impl", "demo", name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path, 0o755)


def test_an_implementation_is_a_row_a_build_and_an_emitter(pytestconfig, tmp_path):
    build = ehconf_build(pytestconfig)
    reference = need(os.path.join(build, "impl", "ehconf", "emit"), "the reference emitter")
    copy = scratch_copy(tmp_path)
    add_demo(copy)
    checkout = tmp_path / "demo-src"
    checkout.mkdir()
    (checkout / "DEMO").write_text("a checkout of the demo implementation\n")
    junit = run_offline_and_judge(copy, "demo", build, str(tmp_path),
                                  {"EHCONF_DEMO_EMIT": reference}, impl_src=str(checkout))
    cases = sorted(f[:-5] for f in os.listdir(os.path.join(copy, "golden")) if f.endswith(".json"))
    for case in cases:
        assert f"impl/demo/{case}" in junit, case
    md = str(tmp_path / "impls.md")
    subprocess.run(["/usr/bin/python3", "harness/reports/impls_md.py", str(tmp_path / "impl"), md,
                    "--run", "demo", "--vm", "0"], cwd=copy, check=True, capture_output=True,
                   timeout=300)
    text = open(md, encoding="utf-8").read()
    assert "| demo | this run |" in text and "| demo | structs |" in text
    items = {i.ident: i.outcome for i in read(str(tmp_path / "impl-demo.xml")).items}
    assert read_section(text)["demo"] == items
    # Nothing outside the row and the folder was touched.
    changed = subprocess.run(["diff", "-rq", os.path.join(REPO_ROOT, "harness"),
                              os.path.join(copy, "harness"), "-x", "__pycache__"],
                             capture_output=True, text=True)
    assert changed.returncode == 0, changed.stdout
