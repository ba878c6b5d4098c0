# SPDX-License-Identifier: GPL-2.0
# The kernel cases (cases/kernel_*.c) as a kselftest collection, in the layout
# `make -C tools/testing/selftests install` produces (Documentation/kselftest.md):
#
#   make kselftest-install [INSTALL_PATH=dir]   (default $(O)/kselftest_install)
#   make kselftest-tar     [INSTALL_PATH=dir]   + dir/kselftest-packages/kselftest.tar.gz
#
#   dir/run_kselftest.sh, dir/kselftest/*   taken at build time from the kernel source
#                                           package ($(KSELFTEST_TARBALL), the one that
#                                           gives kselftest_harness.h); never committed
#   dir/kselftest-list.txt                  one `ehconf_user_events:<case>` line per case
#                                           (lines of other collections already there stay)
#   dir/ehconf_user_events/                 the case binaries, linked statically, the
#                                           32-bit probe of K46 where `$(CC) -m32 -static`
#                                           links, `settings` and `config`
#
# VARIANT gcc (default) or clang: the sanitizer variants cannot link statically.
INSTALL_PATH ?= $(O)/kselftest_install
ifneq ($(filter kselftest-install kselftest-tar,$(MAKECMDGOALS)),)
  ifeq ($(filter gcc clang,$(VARIANT)),)
    $(error kselftest-install: VARIANT=$(VARIANT) cannot link statically; use VARIANT=gcc or clang)
  endif
  ifeq ($(strip $(INSTALL_PATH)),)
    $(error kselftest-install: INSTALL_PATH is empty)
  endif
endif

# --- per-kernel expectations, compiled into the cases (every build, not only this one) ---
# cases/kernel-expectations.txt stays the one table: harness/kernel/expectations.py (the parser
# the guest runner uses) writes it as a C header, and cases/kernel_expect.h picks the row
# for `uname -r` when the runner's EHCONF_EXPECT_<NAME> is not set.
KEXP_PYTHON ?= /usr/bin/python3
KEXP_DIR := $(O)/cases-gen
KEXP_HEADER := $(KEXP_DIR)/kernel_expectations.gen.h
CASE_CFLAGS += -I$(KEXP_DIR)

$(KEXP_HEADER): cases/kernel-expectations.txt harness/kernel/expectations.py
	@mkdir -p $(@D)
	$(KEXP_PYTHON) harness/kernel/expectations.py --c-header $@

# The objects of the cases that include kernel_expect.h (the header is generated, so the
# first build cannot learn this from the -MMD files).
$(patsubst cases/%.c,$(B)/obj/cases/%.o,$(shell grep -l '"kernel_expect.h"' cases/*.c)): $(KEXP_HEADER)

# --- the kselftest runner, from the kernel source package -------------------------------
# run_kselftest.sh and tools/testing/selftests/kselftest/ (runner.sh and what it sources:
# prefix.pl, ktap_helpers.sh, module.sh, ksft.py in 6.12): what the kernel's install
# copies. Extracted once per build tree, like kselftest_harness.h (harness/kernel/build.mk).
KSELFTEST_RUNNER_DIR := $(O)/kselftest/runner
KSELFTEST_RUNNER_STAMP := $(KSELFTEST_RUNNER_DIR)/.extracted

$(KSELFTEST_RUNNER_STAMP):
	@if [ ! -r "$(KSELFTEST_TARBALL)" ]; then \
	  echo "error: $(KSELFTEST_TARBALL) is missing; it provides run_kselftest.sh." >&2; \
	  echo "       Run 'make deps' (installs linux-source-6.12), then build again." >&2; \
	  exit 1; fi
	@echo "kselftest: extracting run_kselftest.sh and kselftest/ from $(KSELFTEST_TARBALL) (about 20 s, once)"
	@rm -rf $(KSELFTEST_RUNNER_DIR).tmp && mkdir -p $(KSELFTEST_RUNNER_DIR).tmp
	@tar -xJf "$(KSELFTEST_TARBALL)" -C $(KSELFTEST_RUNNER_DIR).tmp --wildcards --no-anchored \
	  --strip-components=4 '*/tools/testing/selftests/run_kselftest.sh' \
	  '*/tools/testing/selftests/kselftest/*'
	@for f in run_kselftest.sh kselftest/runner.sh; do \
	  [ -s $(KSELFTEST_RUNNER_DIR).tmp/$$f ] || { echo "error: $$f not found in $(KSELFTEST_TARBALL)" >&2; exit 1; }; done
	@rm -rf $(KSELFTEST_RUNNER_DIR) && mv $(KSELFTEST_RUNNER_DIR).tmp $(KSELFTEST_RUNNER_DIR)
	@touch $@

# --- the collection -----------------------------------------------------------------
KST_TARGET := ehconf_user_events
KST_CASES := $(patsubst cases/%.c,%,$(wildcard cases/kernel_*.c))
KST_BUILD := $(B)/kselftest-static
KST_BINS := $(addprefix $(KST_BUILD)/,$(KST_CASES))
KST_DIR = $(INSTALL_PATH)/$(KST_TARGET)

# A timeout per binary for run_kselftest.sh (its default is 45 s). No TCG timing of the
# kernel cases is kept yet, so this is the guest runner's own budget for one case binary
# under TCG (T_CASE = 120 s in harness/vm/guest_run.py), times 2.5: the runner kills a
# binary at this limit and reports "not ok ... # TIMEOUT".
KSELFTEST_TIMEOUT ?= 300

# Linked statically from the variant's objects, so any root file system runs them.
$(KST_BUILD)/%: $(B)/obj/cases/%.o $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -static -o $@ $^ $(LDLIBS)

# K46's 32-bit probe, only as a static program (cases/build.mk builds it static when
# `$(CC) -m32 -static` links; a dynamic one would need a 32-bit loader on the target).
KST_COMPAT32 := $(if $(COMPAT32_STATIC),$(COMPAT32))
KST_COMPAT32_WHY := $(if $(COMPAT32_STATIC),,$(if $(COMPAT32_DYNAMIC),$(CC) -m32 links only dynamically here,$(CC) -m32 does not link here (no gcc-multilib)))

# `config`: the options between the ">>> kselftest config" and "<<< kselftest config"
# lines of vm/config.fragment, as they are written there (the guest kernel's list).
KST_CONFIG := $(O)/kselftest/$(KST_TARGET).config
$(KST_CONFIG): vm/config.fragment cases/kselftest.mk
	@mkdir -p $(@D)
	@awk 'BEGIN { n = 0; state = 0 } \
	  /^# >>> kselftest config/ { if (state) bad = "two opening markers"; state = 1; next } \
	  /^# <<< kselftest config/ { if (state != 1) bad = "a closing marker before an opening one"; state = 2; next } \
	  state == 1 && /^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set$$)/ { print; n++ } \
	  END { if (!bad && state != 2) bad = "no \">>> kselftest config\" ... \"<<< kselftest config\" block"; \
	        if (!bad && n == 0) bad = "an empty kselftest config block"; \
	        if (bad) { print "vm/config.fragment: " bad > "/dev/stderr"; exit 1 } }' \
	  vm/config.fragment >$@.tmp && mv $@.tmp $@

## kselftest-install: the kernel cases as kselftest collection ehconf_user_events in INSTALL_PATH (default build/kselftest_install)
kselftest-install: $(KST_BINS) $(KST_COMPAT32) $(KSELFTEST_RUNNER_STAMP) $(KST_CONFIG)
	@mkdir -p "$(INSTALL_PATH)/kselftest"
	@install -m 744 $(KSELFTEST_RUNNER_DIR)/kselftest/* "$(INSTALL_PATH)/kselftest/"
	@install -m 744 $(KSELFTEST_RUNNER_DIR)/run_kselftest.sh "$(INSTALL_PATH)/"
	@rm -rf "$(KST_DIR)" && mkdir -p "$(KST_DIR)"
	@install -m 755 $(KST_BINS) $(KST_COMPAT32) "$(KST_DIR)/"
	@echo "timeout=$(KSELFTEST_TIMEOUT)" >"$(KST_DIR)/settings"
	@install -m 644 $(KST_CONFIG) "$(KST_DIR)/config"
	@list="$(INSTALL_PATH)/kselftest-list.txt"; \
	{ if [ -f "$$list" ]; then grep -v '^$(KST_TARGET):' "$$list" || true; fi; \
	  for c in $(KST_CASES); do echo "$(KST_TARGET):$$c"; done; } >"$$list.tmp" && mv "$$list.tmp" "$$list"
	$(if $(KST_COMPAT32_WHY),@echo "kselftest-install: kernel_compat32.m32 left out ($(KST_COMPAT32_WHY)): K46 will SKIP")
	@echo "kselftest-install: $(words $(KST_CASES)) programs of $(KST_TARGET) in $(INSTALL_PATH) (run: $(INSTALL_PATH)/run_kselftest.sh -c $(KST_TARGET))"

## kselftest-tar: kselftest-install, then INSTALL_PATH/kselftest-packages/kselftest.tar.gz of the tree (KSELFTEST= for tuxrun)
kselftest-tar: kselftest-install
	@mkdir -p "$(INSTALL_PATH)/kselftest-packages"
	@tar czf "$(INSTALL_PATH)/kselftest-packages/kselftest.tar.gz" --exclude=kselftest-packages \
	  -C "$(INSTALL_PATH)" .
	@echo "kselftest-tar: $(INSTALL_PATH)/kselftest-packages/kselftest.tar.gz"

.PHONY: kselftest-install kselftest-tar
