# SPDX-License-Identifier: GPL-2.0
# harness/kernel/bisect.mk: the CI lint and the end-to-end test of kernel bisecting.
#
#   make ci-lint      fast (< 5 s): .github/workflows/ehconf.yml is valid YAML with the
#                     jobs/steps CI needs (tests/harness/test_workflow.py),
#                     scripts/bisect-verdict.py maps VM runs to good/bad/skip correctly
#                     (tests/harness/test_bisect_verdict.py), and every row K01..K51 of
#                     Documentation/kernel-behaviours.md is decided by a test of the
#                     kernel case it names (tests/harness/test_inventory.py).
#                     JUnit: $(JUNIT_DIR)/ci-lint.xml
#   make test-bisect  scripts/test-bisect.sh: a git history of Debian's 6.12 source with a
#                     deliberate user_events regression, `git bisect run
#                     scripts/bisect.sh kernel_write` must name it. Long (two kernel builds,
#                     two boots): NOT part of `make check`; see the README.
#   make test-kernel-mutants [MUTANTS=a,b]
#                     scripts/kernel-mutants.py: each planted kernel regression of
#                     scripts/kernel-mutants.txt must make the kernel case it names fail
CI_LINT_PYTEST_FILES := tests/harness/test_workflow.py tests/harness/test_bisect_verdict.py tests/harness/test_ci_stages.py \
			tests/harness/test_inventory.py tests/harness/test_kernel_mutants.py tests/harness/test_impl_mutants.py \
			tests/harness/test_selftests_series.py

## ci-lint: the workflow's structure, the bisect verdicts, the K01-K51 inventory, the mutant recipes (seconds)
ci-lint:
	@mkdir -p $(JUNIT_DIR)
	$(PYTEST) -q -p no:cacheprovider $(CI_LINT_PYTEST_FILES) --junitxml=$(JUNIT_DIR)/ci-lint.xml

## test-bisect: git bisect run scripts/bisect.sh must find a planted regression in a 6.12 history (long)
test-bisect:
	scripts/test-bisect.sh

# Proof that the kernel cases can fail: every mutant of scripts/kernel-mutants.txt (one
# planted user_events regression each) must be caught by the test it names. Long (one
# incremental kernel build and one boot per mutant): not part of `make check`. Then the same
# mutants against the kernel's own selftests, unpatched and with ehconf's series
# (kselftest-series/, test-kernel-mutants-series: one more boot per x86-64 mutant), whose
# table puts the three side by side; SERIES_TOO=0 leaves that half out.
SERIES_TOO ?= 1
## test-kernel-mutants: each planted kernel regression must be caught by the case it names, then the selftests side by side (MUTANTS=a,b SERIES_TOO=0; long)
test-kernel-mutants: all
	@rc=0; /usr/bin/python3 scripts/kernel-mutants.py $(if $(MUTANTS),--only $(MUTANTS)) || rc=1; \
	if [ "$(SERIES_TOO)" != 0 ]; then $(MAKE) --no-print-directory test-kernel-mutants-series || rc=1; fi; \
	exit $$rc

.PHONY: ci-lint test-bisect test-kernel-mutants
