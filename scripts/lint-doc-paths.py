#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make lint-doc-paths: every path of this repository that a document or a comment names
exists, so the guides never send a newcomer to a file renamed long ago.

A path is a word that starts with one of the repository's own top-level folders and ends
in a source file's extension or a `/` (`harness/vm/run_vm.py`, `Documentation/kernels.md`,
`lib/decode/src/`); item names such as `vm/boot` and built programs are not files. Checked
in: every tracked Markdown file, and the comments of tracked C, Python, shell and make
files. Not checked: patterns (`<name>`, `*`, `$`, `{`), generated places (`build/`), and
the paths of other projects that happen to start the same way, listed with their reason
in scripts/lint-doc-paths.ignore. A document may name a path relative to its own folder
(`Documentation/README.md` links `kernels.md`): such a link is checked too.

    scripts/lint-doc-paths.py [FILE...]   (default: every tracked file)
Exit status 1 and one line per missing path (file:line: path) when any is missing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IGNORE = os.path.join(REPO, "scripts", "lint-doc-paths.ignore")
TOP = ("Documentation", "harness", "cases", "impl", "lib", "tests", "vm", "scripts", "tools",
       "golden", "mk", "man", "samples", ".ci", ".github")
WORD = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w/])" % "|".join(re.escape(t) for t in TOP))
EXTENSIONS = {".c", ".h", ".cpp", ".rs", ".py", ".sh", ".md", ".txt", ".json", ".mk", ".def",
              ".in", ".toml", ".yml", ".ps1", ".fragment", ".kasan", ".versions", ".events"}
LINK = re.compile(r"\]\(([\w./-]+\.(?:md|txt))\)")
COMMENT = {".c": r"//.*|/?\*.*", ".h": r"//.*|/?\*.*", ".cpp": r"//.*|/?\*.*", ".rs": r"//.*",
           ".py": r"#.*|\"\"\".*|^[^=()\[\]]*$", ".sh": r"#.*", ".mk": r"#.*", "": r"#.*"}


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True)
    return [f for f in out.stdout.splitlines() if os.path.isfile(os.path.join(REPO, f))]


def ignored():
    found = set()
    with open(IGNORE, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                found.add(line.split()[0])
    return found


def candidates(path: str):
    """(line number, text to search) for the parts of a file that are prose."""
    ext = os.path.splitext(path)[1]
    name = os.path.basename(path)
    if ext == ".md":
        with open(os.path.join(REPO, path), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                yield n, line
        return
    if name == "Makefile" or ext == ".mk":
        ext = ".mk"
    elif ext not in COMMENT:
        with open(os.path.join(REPO, path), "rb") as f:
            if not f.read(64).startswith(b"#!"):
                return
        ext = ""
    pattern = re.compile(COMMENT[ext])
    with open(os.path.join(REPO, path), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = pattern.search(line)
            if m:
                yield n, m.group(0)


def exists(p: str) -> bool:
    return os.path.exists(os.path.join(REPO, p.rstrip("/")))


def problems(files, skip):
    for path in files:
        if path.startswith("tests/data/") or path == "scripts/lint-doc-paths.ignore":
            continue
        for n, text in candidates(path):
            for m in WORD.finditer(text):
                p = m.group(1).rstrip(".")
                if any(c in text[m.end():m.end() + 1] for c in "<*{$%") or p in skip:
                    continue
                if not (p.endswith("/") or os.path.splitext(p)[1] in EXTENSIONS):
                    continue
                if not exists(p) and not any(p.startswith(s) for s in skip if s.endswith("/")):
                    yield f"{path}:{n}: {p}"
            if path.endswith(".md"):
                for m in LINK.finditer(text):
                    rel = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                    if not exists(rel) and not exists(m.group(1)):
                        yield f"{path}:{n}: {m.group(1)} (link)"


def main(argv) -> int:
    files = argv[1:] or tracked()
    bad = list(problems(files, ignored()))
    for line in bad:
        print(line)
    print(f"lint-doc-paths: {len(files)} files, {len(bad)} missing path(s)"
          + ("" if not bad else " (a renamed file? or an outside path: scripts/lint-doc-paths.ignore)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
