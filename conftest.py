# SPDX-License-Identifier: GPL-2.0
"""pytest's entry point for ehconf: puts the checkout on the import path (the harness is
the package harness/, grouped by wing) and loads the one plugin,
harness/core/pytest_plugin.py (options, the collector of runner results, the closing
summary line). Settings live in pytest.ini."""

import os
import sys

_ROOT = os.path.dirname(os.path.abspath(__file__))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

pytest_plugins = ["harness.core.pytest_plugin"]
