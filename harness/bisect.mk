# SPDX-License-Identifier: GPL-2.0
# harness/bisect.mk: the CI lint and the end-to-end test of kernel bisecting.
#
#   make ci-lint      fast (< 5 s): .github/workflows/ehconf.yml is valid YAML with the
#                     jobs/steps CI needs (harness/test_workflow.py), and
#                     scripts/bisect-verdict.py maps VM runs to good/bad/skip correctly
#                     (harness/test_bisect_verdict.py). JUnit: $(JUNIT_DIR)/ci-lint.xml
#   make test-bisect  scripts/test-bisect.sh: a git history of Debian's 6.12 source with a
#                     deliberate user_events regression, `git bisect run
#                     scripts/bisect.sh kernel_write` must name it. Long (two kernel builds,
#                     two boots): NOT part of `make check`; see the README.
CI_LINT_PYTEST_FILES := harness/test_workflow.py harness/test_bisect_verdict.py

ci-lint:
	@mkdir -p $(JUNIT_DIR)
	$(PYTEST) -q -p no:cacheprovider $(CI_LINT_PYTEST_FILES) --junitxml=$(JUNIT_DIR)/ci-lint.xml

test-bisect:
	scripts/test-bisect.sh

.PHONY: ci-lint test-bisect
