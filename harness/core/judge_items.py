# SPDX-License-Identifier: GPL-2.0
"""pytest's entry point into ehconf's results, not a test of its own: pytest runs this file
(make passes it by path), harness/core/pytest_plugin.py parametrizes the one function below
with every item of the runners' result files, and harness/core/verdicts.py judges each (nothing
is run here). Select runners with --ehconf-runner. The function keeps the name
`test_results` because pytest collects test_* functions; the JUnit files name every item
for what it judges, its id, in the class of its runner (results_plugin.judge)."""

from harness.core.pytest_plugin import judge


def test_results(ehconf_result, record_xml_attribute, record_property):
    judge(ehconf_result, record_xml_attribute, record_property)
