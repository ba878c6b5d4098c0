# SPDX-License-Identifier: GPL-2.0
# kselftest-series/series.mk: the patch series for the kernel's
# tools/testing/selftests/user_events (kselftest-series/README.md,
# Documentation/kselftest.md "Upstream: the selftests series").
#
#   make selftests-series        the patches in $(SERIES_OUT)/mainline/ (cover letter + one
#                                per group) and $(SERIES_OUT)/race-6.12/, generated on the
#                                user_events folder of Debian's 6.12 source
#                                (SERIES_FROM="Name <address>", SIGNOFF=1: the sender's)
#   make selftests-series-check  + on each kernel of SERIES_KERNELS whose source vm/build-kernel
#                                cached: git apply --check patch by patch, checkpatch.pl
#                                --strict, the tree's own selftests make ... install
#                                (seconds; no VM)
#   make selftests-series-vm     + each install run by its run_kselftest.sh in that kernel's
#                                guest: unpatched once, patched SERIES_RUNS times
# KERNEL_ARCH=arm64|s390x (vm/arches): the check and the VM run on that architecture's
# kernel, the selftests cross-built (ARCH=, CROSS_COMPILE=) as kernel CI builds them;
# K38's test is the one whose outcome depends on the architecture.
SERIES_OUT ?= $(O)/selftests-series
SERIES_KERNELS ?= 6.12 7.2 7.3
SERIES_RUNS ?= 3
SERIES_BASE_DIR := $(SERIES_OUT)/base-6.12
SERIES_BASE_STAMP := $(SERIES_BASE_DIR)/.extracted
SERIES_SRC := $(wildcard kselftest-series/src/* kselftest-series/messages/* kselftest-series/fixes/*) \
	kselftest-series/series kselftest-series/gen-series.sh

# The base: the upstream user_events folder (and the top Makefile, for the version) of
# the tarball that gives kselftest_harness.h, extracted once.
$(SERIES_BASE_STAMP): $(KSELFTEST_TARBALL)
	@echo "selftests-series: extracting tools/testing/selftests/user_events from $(KSELFTEST_TARBALL) (once)"
	@rm -rf $(SERIES_BASE_DIR) && mkdir -p $(SERIES_BASE_DIR)
	@tar -xJf $(KSELFTEST_TARBALL) -C $(SERIES_BASE_DIR) --strip-components=1 --wildcards \
	  '*/tools/testing/selftests/user_events/*' 'linux-source-6.12/Makefile'
	@test -f $(SERIES_BASE_DIR)/tools/testing/selftests/user_events/Makefile
	@touch $@

## selftests-series: the upstream patch series for tools/testing/selftests/user_events, in build/selftests-series/ (SERIES_FROM=, SIGNOFF=1)
selftests-series: $(SERIES_BASE_STAMP) $(SERIES_SRC)
	@kselftest-series/gen-series.sh $(SERIES_BASE_DIR) $(SERIES_OUT)

## selftests-series-check: the series applied, checkpatch --strict, built by the kernel's own selftests make on SERIES_KERNELS (no VM)
selftests-series-check: selftests-series
	@kselftest-series/check-series.sh $(SERIES_OUT) $(SERIES_KERNELS)

## selftests-series-vm: selftests-series-check, then run_kselftest.sh of the unpatched and patched installs in each kernel's guest
selftests-series-vm: selftests-series-check
	@kselftest-series/run-vm.sh $(SERIES_OUT) $(SERIES_RUNS) $(SERIES_KERNELS)

.PHONY: selftests-series selftests-series-check selftests-series-vm

# The planted regressions of scripts/kernel-mutants.txt against the kernel's selftests,
# unpatched and patched, beside what make test-kernel-mutants recorded for ehconf's cases:
# $(SERIES_OUT)/mutants/report.md. One incremental 6.12 build and one boot per mutant
# (about 2 minutes each); MUTANTS=a,b for a subset. Long: not part of make check. The
# mutants of another architecture run in its guest once `make selftests-series-check
# KERNEL_ARCH=<arch> SERIES_KERNELS=6.12` made its installs (else one SKIP line each).
## test-kernel-mutants-series: each planted kernel regression against the unpatched and patched selftests, beside ehconf's cases (MUTANTS=a,b; long)
test-kernel-mutants-series: selftests-series-check
	/usr/bin/python3 scripts/selftests-series-mutants.py $(if $(MUTANTS),--only $(MUTANTS)) $(SERIES_OUT)

.PHONY: test-kernel-mutants-series
