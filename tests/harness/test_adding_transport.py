# SPDX-License-Identifier: GPL-2.0
"""Documentation/adding.md's capture transport recipe, done on a scratch copy: a row in
eh_transports.def, a backend file and a reader file, and nothing else. The library,
ehdecode and a case are compiled from the repository's sources plus those two files
(with the scratch registry in front of the real one), exactly as the build globs them;
the case writes through the new variable, ehdecode picks the new reader by its probe and
the decoded events match the case's golden file. The harness side (the offline runner's
items for the row) is test_transports.py's test_a_new_capture_row_is_run_offline."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

import pytest

from harness.core.common import REPO_ROOT
from harness.core.golden import compare
from harness.core.processes import run

ROW = 'EH_CAPTURE_TRANSPORT(xcapture, "EHCONF_CAPTURE_X", xcapture, xdat, offline, 0, "x-")\n'
MAGIC = "XDATFILE"

# The backend: a .dat capture behind an 8-byte signature, so that only its own reader
# takes the file. (MAGIC is replaced below.)
BACKEND = r'''
#include <errno.h>
#include <stdio.h>
#include "eh_internal.h"

static const struct eh_backend *dat;

static int x_connect(eh_tracepoint *tp, const char *name, size_t name_len)
{
    return dat->connect(tp, name, name_len);
}
static void x_disconnect(eh_tracepoint *tp) { dat->disconnect(tp); }
static int x_write(const eh_tracepoint *tp, struct iovec *iov, int iovcnt, size_t len,
                   const struct eh_tl_hints *hints)
{
    return dat->write(tp, iov, iovcnt, len, hints);
}

static const struct eh_backend xcapture = {
    .name = "xcapture", .connect = x_connect, .disconnect = x_disconnect, .write = x_write,
};

int eh_backend_xcapture_open(const char *path, const struct eh_backend **out)
{
    /* every process of a case opens it (the harness forks per test): the signature
     * only goes in front of an empty file */
    FILE *f = fopen(path, "ab");
    if (!f || fseek(f, 0, SEEK_END) != 0 || (ftell(f) == 0 && fputs("MAGIC", f) < 0) ||
        fclose(f) != 0)
        return EIO;
    int err = eh_backend_capture_open(path, &dat);
    if (!err)
        *out = &xcapture;
    return err;
}
'''.replace("MAGIC", MAGIC)

READER = r'''
#include <string.h>
#include "ehd_readers.h"

int ehd_reader_xdat_probe(const void *head, size_t n)
{
    return n >= 8 && memcmp(head, "MAGIC", 8) == 0 ? EHD_PROBE_SIGNATURE : EHD_PROBE_NO;
}

int ehd_reader_xdat_decode(FILE *f, const struct ehd_read_args *a)
{
    char magic[8];
    if (fread(magic, 1, 8, f) != 8)
        return 1;
    return ehd_reader_dat_decode(f, a);
}
'''.replace("MAGIC", MAGIC)

CASE = "structs"


def _cc(args, cwd):
    r = subprocess.run(["gcc", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                        "-O0", *args, "-lpthread", "-lm"], cwd=cwd, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def test_a_capture_transport_is_a_row_a_backend_and_a_reader(tmp_path):
    kselftest = os.path.join(REPO_ROOT, "build", "kselftest")
    golden_path = os.path.join(REPO_ROOT, "golden", CASE + ".json")
    if not os.path.isdir(kselftest) or not shutil.which("gcc"):
        pytest.skip("build/kselftest (make -j2 VARIANT=gcc all) or gcc missing")
    inc = tmp_path / "include"
    inc.mkdir()
    real_def = os.path.join(REPO_ROOT, "lib", "eventheader", "include", "eh_transports.def")
    with open(real_def, encoding="utf-8") as f:
        text = f.read()
    # First row: its variable is tried first.
    first = text.index("EH_CAPTURE_TRANSPORT(", text.index("#endif\n#ifndef EH_LIVE"))
    (inc / "eh_transports.def").write_text(text[:first] + ROW + text[first:])
    (tmp_path / "backend_xcapture.c").write_text(BACKEND)
    (tmp_path / "xdat_reader.c").write_text(READER)

    src = lambda pattern: sorted(glob.glob(os.path.join(REPO_ROOT, pattern)))  # noqa: E731
    eh = src("lib/eventheader/src/*.c") + [str(tmp_path / "backend_xcapture.c")]
    ehd = src("lib/decode/src/*.c") + [str(tmp_path / "xdat_reader.c")]
    common = ["-I", str(inc), "-Ilib/eventheader/include", "-Ilib/eventheader/internal",
              "-Ilib/eventheader/src", "-Ilib/decode/include", "-Ilib/decode/internal"]
    ehdecode, case = tmp_path / "ehdecode", tmp_path / CASE
    _cc([*common, "-o", str(ehdecode), "tools/ehdecode.c", *ehd, *eh], REPO_ROOT)
    _cc([*common, "-Ibuild/kselftest", "-Icases", "-Wno-missing-prototypes",
         "-Wno-unused-parameter", "-Wno-clobbered", "-o", str(case),
         f"cases/{CASE}.c", *eh], REPO_ROOT)

    readers = run([str(ehdecode), "--reader", "help"], 30).output
    assert "xdat" in readers.split(), readers
    capture = tmp_path / (CASE + ".xdat")
    r = run([str(case)], 60, env={"EHCONF_CAPTURE_X": str(capture), "EHCONF_CAPTURE": None,
                                  "EHCONF_CAPTURE_TL": None})
    assert r.returncode == 0, r.output[-2000:]
    assert capture.read_bytes().startswith(MAGIC.encode()), "the new backend did not write"
    d = run([str(ehdecode), "--golden", str(capture)], 60, merge_stderr=False)
    assert d.returncode == 0, d.stderr
    with open(golden_path, encoding="utf-8") as f:
        res = compare(f.read(), d.output, CASE)
    assert res.ok, res.message
