# SPDX-License-Identifier: GPL-2.0
"""vm/run refuses, before it builds or boots anything, a current folder the guest cannot
see: the guest mounts fresh tmpfs on /tmp, /var/tmp, /run and /dev/shm, so a checkout
below them would boot and then fail far from the cause (a clone under /tmp did)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest

from harness.core.common import REPO_ROOT

VM_RUN = os.path.join(REPO_ROOT, "vm", "run")


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"),
                    reason="qemu-system-x86_64 not installed (make deps): vm/run stops earlier")
@pytest.mark.parametrize("top", ["/tmp", "/var/tmp", "/dev/shm"])
def test_a_folder_the_guest_hides_is_refused_at_once(top):
    with tempfile.TemporaryDirectory(dir=top) as cwd:
        kernel = os.path.join(cwd, "bzImage")  # never read: the refusal comes first
        with open(kernel, "wb") as f:
            f.write(b"not a kernel")
        env = dict(os.environ, EHCONF_CACHE=os.path.join(cwd, "cache"))
        r = subprocess.run([VM_RUN, "--kernel", kernel, "--", "true"], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 126  # vm/run's own errors (its header): never a bisect verdict
        assert f"the current folder {os.path.realpath(cwd)} is under /tmp" in r.stderr
        assert not os.path.exists(os.path.join(cwd, "cache")), "vm/run built something first"
