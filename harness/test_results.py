# SPDX-License-Identifier: GPL-2.0
"""The results of the runners as pytest items: one item per KTAP result line, golden
comparison and runner check (harness/results_plugin.py collects them from the files
harness/run.py wrote; nothing is run here). Select runners with --ehconf-runner."""

from results_plugin import judge


def test_results(ehconf_result):
    judge(ehconf_result)
