# SPDX-License-Identifier: GPL-2.0
"""The user_events stand-in (tools/standin/, tools/standin/README.md): where make builds it
and the environment a program runs in under it. The one place that spells that environment:
the capture transports' variables come from the transport registry (harness/core/transports.py),
so a new capture transport is cleared here with no edit. Standard library only (the guest
imports it too)."""

from __future__ import annotations

import os
from typing import Dict, Optional

from harness.core.transports import capture_env

# Relative to a build variant's folder (tools/build.mk's STANDIN_SO).
SO = os.path.join("lib", "libuser_events_standin.so")


def standin_path(build: str) -> str:
    return os.path.join(build, SO)


def standin_env(standin: str, dat: str, listening: bool = True) -> Dict[str, Optional[str]]:
    """Run under the stand-in, appending every event to the capture file `dat`; with
    listening=False the stand-in answers as when no tracer is attached (K29). Every capture
    transport's variable is removed: a library that has a capture backend (ehconf's) must
    go through user_events, which the stand-in plays."""
    env = capture_env(None)
    env.update({"LD_PRELOAD": standin, "EHCONF_STANDIN_CAPTURE": dat,
                "EHCONF_STANDIN_COUNT": None,
                "EHCONF_STANDIN_LISTENING": None if listening else "0"})
    return env


def count_env(standin: str, counts: str, listening: bool = True) -> Dict[str, Optional[str]]:
    """Run under the stand-in in count mode (make bench-impls): every write checked, passed
    on to /dev/null and counted, nothing stored; at exit each process appends its totals to
    `counts` (tools/standin/README.md)."""
    env = standin_env(standin, "", listening)
    env.update({"EHCONF_STANDIN_CAPTURE": None, "EHCONF_STANDIN_COUNT": counts})
    return env


def live_env() -> Dict[str, Optional[str]]:
    """The real user_events: no stand-in and no capture transport, whatever was inherited."""
    env = capture_env(None)
    env.update({"LD_PRELOAD": None, "EHCONF_STANDIN_CAPTURE": None,
                "EHCONF_STANDIN_COUNT": None, "EHCONF_STANDIN_LISTENING": None})
    return env
