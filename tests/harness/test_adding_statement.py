# SPDX-License-Identifier: GPL-2.0
"""Documentation/adding.md's recipe for a new statement of the case-description format, done
on a scratch copy: the statement in libdesc (emitlib/c), the same in the Rust parser
(emitlib/rust/desc.rs), and its snippets in tests/desc-format/; both parsers' conformance
tests, built from the copy, then take the new snippet, and refuse it where it does not
belong, with no other file touched. The statement here is `note <words...>`, a remark in
the step list that changes nothing (what a description would use to say why a step is
there)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from harness.core.common import REPO_ROOT

C_ANCHOR = '''    if (strcmp(w, "provider") == 0)
        return provider_statement(p);
'''
C_NOTE = '''    if (strcmp(w, "note") == 0) /* a remark in the step list: no step */
        return 0;
'''
C_LIST = '''"parent", "element",  "repeat"};'''
RUST_ANCHOR = '''        if w == "provider" {
'''
RUST_NOTE = '''        if w == "note" {
            return Ok(None);
        }
'''
RUST_LIST = '''];

fn string_unit'''
VALID = """case note
provider P
note the provider registers before its first event
register
event E level=5 keyword=0x0
  u8 a 01
end
"""
PRINTED = """case note
provider P
register
# event 1, line 5
event E level=5 keyword=0x0
  u8 a 01
end
"""
# Inside an event a statement word means the event's `end` is missing, in both parsers.
MALFORMED = """# refused: 5: `note` inside the `event` of line 4: is its `end` missing?
case note_in_event
provider P
event E level=5 keyword=0x0
  note not here
end
"""


def patch(path: str, anchor: str, insert: str, before: bool = True) -> None:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.count(anchor) == 1, f"{path}: the recipe's anchor is not there once"
    text = text.replace(anchor, insert + anchor if before else anchor + insert)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def test_a_statement_is_two_parsers_and_its_snippets(tmp_path):
    rustc = "/usr/bin/rustc"
    if not os.access(rustc, os.X_OK):
        pytest.skip(f"{rustc} is not installed (make deps: rustc-web)")
    copy = tmp_path / "repo"
    for d in ("emitlib", "tests/desc-format", "tests/desc", "lib/eventheader/include"):
        shutil.copytree(os.path.join(REPO_ROOT, d), copy / d)
    (copy / "descriptions").mkdir()
    shutil.copy(os.path.join(REPO_ROOT, "descriptions", "types.txt"), copy / "descriptions")
    shutil.copy(os.path.join(REPO_ROOT, "tests", "ktap.h"), copy / "tests")
    # The recipe: the statement in both parsers, and its snippets.
    patch(str(copy / "emitlib/c/desc_steps.c"), C_ANCHOR, C_NOTE)
    text = (copy / "emitlib/c/desc_event.c").read_text()  # the statement words, in C ...
    assert text.count(C_LIST) == 1, "emitlib/c/desc_event.c: the recipe's anchor is not there once"
    (copy / "emitlib/c/desc_event.c").write_text(
        text.replace(C_LIST, C_LIST.replace('"repeat"}', '"repeat", "note"}')))
    patch(str(copy / "emitlib/rust/desc.rs"), RUST_ANCHOR, RUST_NOTE)
    # ... and in Rust's list of statement words (inside an event they mean a
    # missing `end`)
    patch(str(copy / "emitlib/rust/desc.rs"), RUST_LIST, '    "note",\n')
    (copy / "tests/desc-format/valid/note.events").write_text(VALID)
    (copy / "tests/desc-format/valid/note.printed").write_text(PRINTED)
    (copy / "tests/desc-format/malformed/note-in-event.events").write_text(MALFORMED)
    root = str(copy / "tests/desc-format")
    # Both conformance tests, built from the copy.
    lib = tmp_path / "libdesc"
    subprocess.run([str(copy / "emitlib/c/build-lib"), str(lib)], check=True,
                   capture_output=True, timeout=300)
    c_test = tmp_path / "test_desc_format"
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-O1", f"-I{copy}/emitlib/c",
                    f"-I{copy}/tests", f"-I{copy}/lib/eventheader/include", f"-I{lib}",
                    f'-DDESC_FORMAT_ROOT="{root}"', "-o", str(c_test),
                    str(copy / "tests/desc/test_desc_format.c"), str(lib / "libdesc.a")],
                   check=True, capture_output=True, timeout=300)
    rust_test = tmp_path / "test_desc_format_rust"
    env = dict(os.environ, DESC_FORMAT_ROOT=root,
               EHCONF_TYPES_TXT=str(copy / "descriptions/types.txt"))
    subprocess.run([rustc, "--edition", "2021", "-o", str(rust_test),
                    str(copy / "tests/desc/desc_format.rs")], check=True, capture_output=True,
                   env=env, timeout=600)
    for test in (c_test, rust_test):
        r = subprocess.run([str(test)], capture_output=True, text=True, timeout=120)
        lines = r.stdout.splitlines()
        assert r.returncode == 0, f"{test.name}:\n" + "\n".join(
            ln for ln in lines if ln.startswith("not ok") or ln.startswith("#"))[-3000:]
        for name in ("note", "note-in-event"):
            assert any(ln.startswith("ok ") and name.replace("-", "_") in ln for ln in lines), \
                f"{test.name}: no passing test for the snippet {name}"
