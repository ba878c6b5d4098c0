# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/ci-stages.sh, the stage runner of .ci/run: a failed stage must not
stop the run but must fail it, a cold stage that does not fit the budget is skipped with
one line naming its make target, a cached or fitting one runs, and the last line adds
the stages up."""

from __future__ import annotations

import os
import subprocess

from harness.core.common import REPO_ROOT

LIB = os.path.join(REPO_ROOT, "scripts", "ci-stages.sh")


def run_stages(body: str, budget_minutes: int = 1):
    script = f". {LIB}\n{body}\nci_summary\n"
    env = dict(os.environ, EHCONF_CI_BUDGET=str(budget_minutes))
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                       timeout=60)
    return r.returncode, r.stdout.splitlines()


def test_all_pass_exit_zero_and_last_line_adds_up():
    rc, out = run_stages("stage one true\nstage two sleep 1")
    assert rc == 0
    assert out[-1].startswith("[ci] stages: 2 passed, 0 failed, 0 skipped; total 0m0")
    assert "= one 0m0" in out[-1] and "+two 0m0" in out[-1]
    assert "[ci] stage two: PASS in 0m01s" in out


def test_a_stage_name_with_blanks_is_one_word_in_the_total():
    # .ci/run names the matrix stage after its kernels ("matrix-7.2 7.3"): the total line
    # once read "matrix-7.2 PASS" for it.
    rc, out = run_stages('stage "matrix-7.2 7.3" true\nstage after true')
    assert rc == 0
    assert "= matrix-7.2-7.3 0m00s+after 0m00s" in out[-1]


def test_a_failed_stage_fails_the_run_but_later_stages_still_run():
    rc, out = run_stages("stage bad false\nstage after echo ran-after")
    assert rc == 1
    assert "ran-after" in out
    assert "[ci] stage bad: FAIL (exit status 1) in 0m00s" in out
    assert "1 passed, 1 failed, 0 skipped" in out[-1]


def test_cold_stage_that_does_not_fit_is_skipped_with_its_target():
    rc, out = run_stages('stage_if_fits big false 5 "make big-target" echo SHOULD-NOT-RUN')
    assert rc == 0
    assert "SHOULD-NOT-RUN" not in out
    skip = [line for line in out if line.startswith("[ci] stage big: SKIP:")]
    assert len(skip) == 1 and "run: make big-target" in skip[0] and "about 5m cold" in skip[0]
    assert "0 passed, 0 failed, 1 skipped" in out[-1]


def test_cached_stage_runs_whatever_its_cold_cost():
    rc, out = run_stages('stage_if_fits warm true 500 "make warm" echo WARM-RAN')
    assert rc == 0 and "WARM-RAN" in out and "1 passed" in out[-1]


def test_cold_stage_that_fits_runs():
    rc, out = run_stages('stage_if_fits small false 0 "make small" echo SMALL-RAN')
    assert rc == 0 and "SMALL-RAN" in out
    assert any("is not cached; a cold run (about 0m) fits" in line for line in out)


def test_ci_run_uses_the_runner_for_every_kernel_stage():
    with open(os.path.join(REPO_ROOT, ".ci", "run")) as f:
        text = f.read()
    for target in ("make check-vm KASAN=1", "make check-matrix", "make test-bisect",
                   "make check-vm KERNEL_ARCH=$arch"):
        assert target in text, f".ci/run no longer runs {target}"
    assert "stage check make check" in text and "ci_summary" in text.splitlines()[-1]


def test_a_slow_machine_scales_the_cold_estimates():
    # Measured at 1 minute, took 2: a 1-minute cold stage now counts as 2 minutes and no
    # longer fits a 1-minute budget; without the calibration it would.
    body = 'ci_calibrate 120 1\nstage_if_fits k false 1 "make k" echo RAN'
    rc, out = run_stages(body, budget_minutes=1)
    assert rc == 0 and "RAN" not in out
    assert any("SKIP: kernel not cached: about 2m cold" in line for line in out)
    assert any("at 200% of its measured cold time" in line for line in out)
    rc, out = run_stages('stage_if_fits k false 1 "make k" echo RAN', budget_minutes=1)
    assert "RAN" in out


def test_a_fast_machine_never_shrinks_the_estimates():
    # Twice as fast as measured: the 2-minute estimate stays 2 minutes (halved it would
    # fit the 1-minute budget).
    rc, out = run_stages('ci_calibrate 30 1\nstage_if_fits k false 2 "make k" echo RAN',
                         budget_minutes=1)
    assert "RAN" not in out and any("about 2m cold" in line for line in out)
