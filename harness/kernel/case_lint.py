# SPDX-License-Identifier: GPL-2.0
"""Static check of cases/*.c for the kselftest_harness.h missing-semicolon pitfall.

ASSERT_*/EXPECT_* expand to `do { ... } while (0); for (; _metadata->trigger; ...)`, so a
call written without its trailing ';' silently makes the NEXT statement the body of a loop
that only runs when the assertion failed (the kernel's own ftrace_test.c has seven such
lines). Every ASSERT_/EXPECT_ call in a case must therefore be followed by ';' -- or by
'{' for the harness's documented "EXPECT_EQ(a, b) { TH_LOG(...); }" handler form.
Preprocessor lines (#define helpers) are not checked.
"""

from __future__ import annotations

import re
from typing import List

_CALL = re.compile(r"\b(?:ASSERT|EXPECT)_[A-Z_]+\s*\(")


def _blank_comments_and_strings(src: str) -> str:
    """Same length and line structure, with comments, strings and char literals blanked."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _blank_preprocessor(src: str) -> str:
    lines = src.split("\n")
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = " " * len(line)
    return "\n".join(lines)


def missing_semicolons(src: str, filename: str = "case.c") -> List[str]:
    """'file:line: ASSERT_EQ(...) is not followed by ;' for every offending call."""
    text = _blank_preprocessor(_blank_comments_and_strings(src))
    problems = []
    for m in _CALL.finditer(text):
        depth, j = 0, m.end() - 1
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        k = j + 1
        while k < len(text) and text[k] in " \t\r\n":
            k += 1
        if k >= len(text) or text[k] not in ";{":
            line = text.count("\n", 0, m.start()) + 1
            macro = m.group(0).rstrip("( \t")
            problems.append(f"{filename}:{line}: {macro}(...) is not followed by ';' "
                            f"(the next statement would only run when it fails)")
    return problems
