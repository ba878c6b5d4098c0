# SPDX-License-Identifier: GPL-2.0
"""vm/fetch-kernel-source's private apt: it asks for the one architecture it needs (an
index of another architecture that dpkg knows, caught mid-sync on the mirror, must not fail
the fetch), and a failed `apt-get update` is tried once more before it is an error. A fake
apt-get and apt-cache on PATH record every call; nothing reaches the network."""

from __future__ import annotations

import os
import subprocess

from harness.core.common import REPO_ROOT

SCRIPT = os.path.join(REPO_ROOT, "vm", "fetch-kernel-source")
FAKE_APT_GET = """#!/bin/sh
echo "$*" >>"$FAKE_LOG"
case " $* " in *" update "*)
    n=$(grep -c ' update' "$FAKE_LOG")
    [ "$n" -gt "$FAKE_FAILURES" ] || { echo 'E: File has unexpected size (s390x). Mirror sync in progress?'; exit 100; }
esac
exit 0
"""
FAKE_APT_CACHE = "#!/bin/sh\nexit 0\n"


def run_list(tmp_path, failures: int):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("apt-get", FAKE_APT_GET), ("apt-cache", FAKE_APT_CACHE)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "calls"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", FAKE_LOG=str(log),
               FAKE_FAILURES=str(failures), EHCONF_CACHE=str(tmp_path / "cache"),
               EHCONF_APT_RETRY_PAUSE="0")
    p = subprocess.run([SCRIPT, "--list"], env=env, capture_output=True, text=True, timeout=60)
    return p, log.read_text().splitlines()


def test_only_the_needed_architecture_and_one_retry(tmp_path):
    p, calls = run_list(tmp_path, failures=1)
    assert p.returncode == 0, p.stderr
    updates = [c for c in calls if " update" in c]
    assert len(updates) == 2, calls
    assert all("APT::Architectures=amd64" in c for c in calls), calls
    assert "trying once more" in p.stderr


def test_two_failed_updates_are_an_error_naming_the_log(tmp_path):
    p, calls = run_list(tmp_path, failures=2)
    assert p.returncode == 1 and "failed twice" in p.stderr and "update.log" in p.stderr
    assert len([c for c in calls if " update" in c]) == 2
