# SPDX-License-Identifier: GPL-2.0
"""Every declaration of every profile lets through its stated observation and nothing else:
harness/impl/perturb_declarations.py changes one value outside it and the item must fail."""

import pytest

from harness.impl.perturb_declarations import checks

CHECKS = list(checks())


@pytest.mark.parametrize("check", CHECKS, ids=[f"{c.ident} changing {c.changed}"
                                               for c in CHECKS])
def test_the_judge_sees_inside_the_declaration(check):
    assert check.ok, (f"{check.ident}: as declared, changed, restored gave "
                      f"{check.outcomes} (want xfail, fail, xfail) {check.problem}")
