# SPDX-License-Identifier: GPL-2.0
# harness/: the kselftest headers the cases include, and the offline conformance run.
#
# kselftest_harness.h and kselftest.h are GPL-2.0 kernel files: they are never committed,
# only extracted at build time from Debian's linux-source tarball into $(O)/kselftest/
# (outside every variant: one extraction serves gcc, clang and asan).

KSELFTEST_TARBALL ?= /usr/src/linux-source-6.12.tar.xz
KSELFTEST_DIR := $(O)/kselftest
KSELFTEST_STAMP := $(KSELFTEST_DIR)/.extracted
# Member paths inside the tarball; the top folder is matched by a wildcard so a
# different 6.12.x point release (linux-source-6.12/...) still works.
KSELFTEST_MEMBERS := '*/tools/testing/selftests/kselftest_harness.h' \
                     '*/tools/testing/selftests/kselftest.h'

# xz has to decompress the whole ~150 MB tarball to find two small files (the
# archive is not indexed), so this takes a while; it runs once per build tree.
$(KSELFTEST_STAMP):
	@if [ ! -r "$(KSELFTEST_TARBALL)" ]; then \
	  echo "error: $(KSELFTEST_TARBALL) is missing; it provides kselftest_harness.h." >&2; \
	  echo "       Run 'make deps' (installs linux-source-6.12), then build again." >&2; \
	  exit 1; fi
	@echo "kselftest: extracting kselftest_harness.h and kselftest.h from $(KSELFTEST_TARBALL)"
	@echo "kselftest: (decompresses the whole tarball once, about a minute; cached in $(KSELFTEST_DIR))"
	@rm -rf $(KSELFTEST_DIR).tmp && mkdir -p $(KSELFTEST_DIR).tmp
	@tar -xJf "$(KSELFTEST_TARBALL)" -C $(KSELFTEST_DIR).tmp --wildcards --no-anchored \
	  --strip-components=4 $(KSELFTEST_MEMBERS)
	@for f in kselftest_harness.h kselftest.h; do \
	  [ -s $(KSELFTEST_DIR).tmp/$$f ] || { echo "error: $$f not found in $(KSELFTEST_TARBALL)" >&2; exit 1; }; done
	@mkdir -p $(KSELFTEST_DIR) && mv -f $(KSELFTEST_DIR).tmp/*.h $(KSELFTEST_DIR)/ && rm -rf $(KSELFTEST_DIR).tmp
	@touch $@
	@echo "kselftest: done ($(KSELFTEST_DIR)/kselftest_harness.h)"

## kselftest: extract kselftest_harness.h and kselftest.h from Debian's linux-source tarball (once)
kselftest: $(KSELFTEST_STAMP)

# --- offline conformance: cases -> capture file -> ehdecode --golden -> golden/*.json ---
# `all` builds the cases, ehdecode and libeventheader of this variant. The timeout is a
# hang guard; the whole run normally takes a few seconds (target: < 30 s).
OFFLINE_GUARD_SECONDS ?= 120
# harness/run.py offline runs the cases; the judge adds the harness's own tests (every
# tests/harness/test_*.py that neither `make ci-lint` nor `make test-impls` runs) to the same
# JUnit file, so a new self-test cannot be forgotten in a list.
OFFLINE_PYTEST_FILES = $(filter-out $(CI_LINT_PYTEST_FILES) $(IMPL_PYTEST_FILES),$(sort $(wildcard tests/harness/test_*.py)))

## check-offline: every case writes a capture file, ehdecode --golden decodes it, diffed against golden/
check-offline: all
	@mkdir -p $(JUNIT_DIR)
	@rc=0; timeout $(OFFLINE_GUARD_SECONDS) $(RUN) offline --build $(B) --results $(O)/results || rc=1; \
	$(call judge,offline,offline,$(B),$(OFFLINE_PYTEST_FILES)) || rc=1; exit $$rc

# Regenerates golden/<case>.json from a fresh capture of every case (CASE=name for one).
# A golden file states what the spec says, so every change must be read by hand.
## golden: regenerate golden/*.json from fresh captures (CASE=name for one; review the diff)
golden: all
	EHCONF_BUILD=$(B) /usr/bin/python3 harness/kernel/make_golden.py $(CASE)
	@echo "golden: REVIEW every changed line against cases/<case>.c before committing:"
	@git diff --stat -- golden/ ; git status --short -- golden/

# A new case from cases/template/ (scripts/new-case.sh; Documentation/adding.md).
## new-case: a new conformance case and its golden skeleton from cases/template/ (NAME=my_case)
new-case:
	@scripts/new-case.sh '$(NAME)'

.PHONY: kselftest check-offline golden new-case
