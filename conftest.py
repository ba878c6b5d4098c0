# SPDX-License-Identifier: GPL-2.0
"""pytest's entry point for ehconf: puts harness/ on the import path and loads the one
plugin, harness/results_plugin.py (options, the collector of runner results, the
closing summary line). Settings live in pytest.ini."""

import os
import sys

_HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness")
if _HARNESS not in sys.path:
    sys.path.insert(0, _HARNESS)

pytest_plugins = ["results_plugin"]
