# SPDX-License-Identifier: GPL-2.0
"""Tests of harness/kernel/expectations.py and of cases/kernel-expectations.txt itself.

Run: /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/harness/test_expectations.py
"""

import re

import pytest

from harness.kernel import expectations as ex

TABLE = """# comment
perf_max_payload   6.4   8184  one
perf_max_payload   7.3   8000  a planted later row
perf_max_payload   7.2@s390x 7000  a planted row of one architecture
ftrace_max_payload 6.4   4064  two
"""


def test_a_row_holds_from_its_version_until_a_later_row():
    rows = ex.parse(TABLE, "t")
    assert ex.for_kernel("6.12.117-ehconf", rows)["perf_max_payload"].value == 8184
    assert ex.for_kernel("7.2.13", rows)["perf_max_payload"].value == 8184
    assert ex.for_kernel("7.3.4", rows)["perf_max_payload"].value == 8000
    assert ex.for_kernel("7.10", rows)["perf_max_payload"].value == 8000
    # Numeric, not text, comparison: 6.12 is after 6.4, 6.3 before it.
    assert ex.for_kernel("6.3.1", rows) == {}
    assert ex.for_kernel("7.3.4", rows)["ftrace_max_payload"].since == "6.4"


def test_a_row_for_one_architecture_holds_only_there_and_wins_its_version():
    rows = ex.parse(TABLE, "t")
    assert ex.for_kernel("7.2.13", rows, "x86_64")["perf_max_payload"].value == 8184
    assert ex.for_kernel("6.12", rows, "s390x")["perf_max_payload"].value == 8184
    assert ex.for_kernel("7.2.13", rows, "s390x")["perf_max_payload"].value == 7000
    assert ex.for_kernel("7.3.4", rows, "s390x")["perf_max_payload"].value == 8000  # later row
    assert ex.for_kernel("7.2.13", rows, "s390x")["perf_max_payload"].arch == "s390x"


def test_environment_names_the_cases_read():
    env = ex.environment(ex.for_kernel("7.2", ex.parse(TABLE, "t"), "x86_64"))
    assert env == {"EHCONF_EXPECT_PERF_MAX_PAYLOAD": "8184", "EHCONF_EXPECT_FTRACE_MAX_PAYLOAD": "4064"}


@pytest.mark.parametrize("bad", ["perf_max_payload 6 8184 no minor version",
                                 "perf_max_payload 6.4 lots reason",
                                 "perf_max_payload 6.4 8184",
                                 "perf_max_payload 6.4 8184 a\nperf_max_payload 6.4 1 twice"])
def test_a_malformed_table_is_an_error_not_a_dropped_row(bad):
    with pytest.raises(ValueError, match=r"t:\d+:"):
        ex.parse(bad, "t")


def test_the_repository_table_parses_and_every_name_reaches_a_case():
    """Every expectation is read by some case as EHCONF_EXPECT_<NAME>, and covers 6.12."""
    import os
    rows = ex.load()
    assert rows
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sources = ""
    for f in sorted(os.listdir(os.path.join(here, "cases"))):
        if f.endswith(".c"):
            with open(os.path.join(here, "cases", f), encoding="utf-8") as fh:
                sources += fh.read()
    for what, _since, _e in rows:
        assert re.search(rf'"EHCONF_EXPECT_{what.upper()}"', sources), f"no case reads {what}"
    assert set(ex.for_kernel("6.12")) == {w for w, _s, _e in rows}


C_PROBE = r"""
#include "kernel_expect.h"

int main(int argc, char **argv)
{
    if (argc == 2) { /* an EHCONF_EXPECT_<NAME>: what a case gets on this kernel */
        char from[128];
        long value = -1;
        int err = kernel_expect(argv[1], &value, from, sizeof from);

        printf("%d %ld %s\n", err, value, err ? "-" : from);
        return 0;
    }
    for (int i = 3; i < argc; i++) { /* what, machine, releases */
        const struct kernel_expect_row *r = kernel_expect_row(argv[1], argv[i], argv[2]);

        printf("%s %ld\n", argv[i], r ? r->value : -1L);
    }
    return 0;
}
"""


def test_the_compiled_in_table_picks_the_rows_python_picks(tmp_path):
    """kselftest runs have no guest runner to pass EHCONF_EXPECT_*: cases/kernel_expect.h
    looks the table up itself, from the header harness/kernel/expectations.py --c-header writes.
    Both must pick the same row for every kernel release."""
    import os
    import shutil
    import subprocess
    cc = shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler")
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rows = ex.parse(TABLE, "t")
    (tmp_path / "kernel_expectations.gen.h").write_text(ex.c_header(rows))
    (tmp_path / "probe.c").write_text(C_PROBE)
    exe = str(tmp_path / "probe")
    subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                    "-I", str(tmp_path), "-I", os.path.join(here, "cases"),
                    "-o", exe, str(tmp_path / "probe.c")], check=True)
    releases = ["6.3.1", "6.4", "6.12.117-ehconf", "7.2.13", "7.3.4", "7.10", "8", "junk"]
    for what in ("perf_max_payload", "ftrace_max_payload", "unknown"):
        for machine in ("x86_64", "s390x"):
            out = subprocess.run([exe, what, machine] + releases, check=True,
                                 stdout=subprocess.PIPE, text=True).stdout.split()
            got = dict(zip(out[0::2], (int(v) for v in out[1::2])))
            want = {r: (ex.for_kernel(r, rows, machine)[what].value
                        if what in ex.for_kernel(r, rows, machine) else -1) for r in releases}
            assert got == want, (what, machine)
    # The whole lookup: the environment first (the guest runner), else this kernel's row.
    env = {k: v for k, v in os.environ.items() if not k.startswith("EHCONF_EXPECT_")}
    out = subprocess.run([exe, "EHCONF_EXPECT_PERF_MAX_PAYLOAD"], check=True, env=env,
                         stdout=subprocess.PIPE, text=True).stdout.split(" ", 2)
    mine = ex.for_kernel(os.uname().release, rows).get("perf_max_payload")
    assert out[:2] == (["0", str(mine.value)] if mine else [str(2), "-1"])  # 2 = ENOENT
    env["EHCONF_EXPECT_PERF_MAX_PAYLOAD"] = "123"
    out = subprocess.run([exe, "EHCONF_EXPECT_PERF_MAX_PAYLOAD"], check=True, env=env,
                         stdout=subprocess.PIPE, text=True).stdout.split(" ", 2)
    assert out == ["0", "123", "EHCONF_EXPECT_PERF_MAX_PAYLOAD from the environment\n"]
