# SPDX-License-Identifier: GPL-2.0
"""Unit tests of harness/kernel/case_lint.py (the missing-semicolon check)."""

from harness.kernel.case_lint import missing_semicolons


def test_flags_a_missing_semicolon_with_its_line():
    src = "TEST(x)\n{\n\tASSERT_EQ(0, f())\n\tg();\n}\n"
    p = missing_semicolons(src, "cases/x.c")
    assert len(p) == 1 and p[0].startswith("cases/x.c:3: ASSERT_EQ(...)")


def test_accepts_semicolons_handler_blocks_and_nested_parens():
    src = ("TEST(x)\n{\n\tASSERT_EQ(0, f(g(1), (2)));\n\tEXPECT_TRUE(a)\n\t\t;\n"
           "\tEXPECT_EQ(1, b) {\n\t\tTH_LOG(\"b %d\", b);\n\t}\n}\n")
    assert missing_semicolons(src) == []


def test_ignores_comments_strings_and_defines():
    src = ('/* ASSERT_EQ(1, 2) */\n// EXPECT_EQ(1, 2)\nconst char *s = "ASSERT_EQ(1, 2)";\n'
           "#define CHECK(x) \\\n\tASSERT_EQ(0, (x))\n")
    assert missing_semicolons(src) == []


def test_parenthesis_inside_a_string_argument():
    src = 'TEST(x)\n{\n\tASSERT_STREQ(")", s)\n\th();\n}\n'
    assert len(missing_semicolons(src)) == 1
