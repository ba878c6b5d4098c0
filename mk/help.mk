# SPDX-License-Identifier: MIT
# `make help`: one line per target, generated from the makefiles' own comments.
#
# Convention: a comment line `## <target>: <what it does>` right above the target's rule, in
# any makefile the top Makefile includes. `make lint-help` (part of `make lint`) fails when a
# .PHONY target has no such line, or a line names a target that does not exist.
HELP_MAKEFILES = $(filter Makefile %.mk,$(MAKEFILE_LIST))

## help: this list, one line per target (from the `## target: text` comments of the makefiles)
help:
	@echo "usage: make [TARGET] [VARIABLE=value ...]   (VARIANT=gcc|clang|asan|fuzz|mingw, O=build dir)"
	@sed -n 's/^## \([A-Za-z0-9_.-]*\): *\(.*\)$$/\1\t\2/p' $(HELP_MAKEFILES) | \
	  awk -F'\t' '{ printf "  %-22s %s\n", $$1, $$2 }'

## lint-help: every .PHONY target has a `## target: text` help line, and every help line names a target
lint-help:
	@mk/check-help.sh $(MAKE) $(HELP_MAKEFILES)

.PHONY: help lint-help

# `make print-VAR`: the value of a make variable, for scripts and tests that must build the
# way make does (tests/harness/test_new_case.py compiles a case with CASE_CFLAGS).
print-%:
	@echo '$($*)'
