# SPDX-License-Identifier: GPL-2.0
# harness/vm/vm.mk: the conformance run on a real kernel in QEMU (part of `make check`).
#
#   make check-vm     one boot of the guest kernel (vm/run, kernel from vm/build-kernel or
#                     KERNEL=bzImage) runs every case under perf and the kernel's own
#                     user_events selftests (harness/vm/guest_run.py); the runner
#                     (harness/run.py vm, harness/vm/run_vm.py) decides the outcomes, then a
#                     second boot checks that a kernel crash ends the run (crash test);
#                     the same boot then runs the kernel cases once more as the installed
#                     kselftest collection (make kselftest-install) under the kernel's own
#                     run_kselftest.sh, which must report every test as the first pass did
#                     (harness/kernel/kselftest_pass.py, items kselftest-install/...);
#                     pytest turns the results into items (JUnit: $(JUNIT_DIR)/vm.xml) and
#                     harness/reports/report_md.py writes report.md at the top of the checkout.
#   make check-vm KASAN=1
#                     the same run on the KASAN variant of the guest kernel (vm/config.kasan,
#                     its own cached build): a use-after-free or out-of-bounds access in
#                     user_events (K42's fork/unregister race) panics the guest at once and
#                     fails the run with KASAN's report. Slower: the guest gets
#                     EHCONF_VM_TIMEOUT=1800 unless set. Report: report-kasan.md.
#   make check-vm IMPL_SRC_LTTP=... IMPL_SRC_RUST=...
#                     then also the implementations under test on the same kernel
#                     (make check-impl IMPL=all: impls.md, impl-<name>.xml); check-matrix
#                     likewise per kernel (<results>/matrix/<k>/impls.md, matrix-<k>-impl-*.xml)
#   make bench-vm     the `make bench` figures on the real kernel: harness/vm/bench_vm.c (built
#                     as $(B)/bench/bench_vm) in the guest while perf records its tracepoint:
#                     ns per enabled 5-field event through libeventheader next to a raw
#                     writev() of the same bytes, and ns per disabled check. Figures only.
#
# Guest artifacts: $(O)/results/vm/ (console.log, vm.json, guest-results.json, per case
# <case>.ktap, <case>.perf.data, <case>.perf.json, selftests/*.ktap).
# VM_GUARD_SECONDS is only a hang guard around the runner; vm/run has its own timeout
# (EHCONF_VM_TIMEOUT, default 600 s) and kills QEMU itself.
VM_GUARD_SECONDS ?= 5400
KASAN ?= 0
# KERNEL_ARCH=arm64|s390x (a row of vm/arches): the same run in a guest of that
# architecture (TCG): the cases and tools cross-built (VARIANT=<arch>, in $(O)/<arch>), the
# kernel from vm/build-kernel and the guest's Debian root from vm/rootfs for that
# architecture; results in $(O)/results/arch/<arch>/, JUnit vm-<arch>.xml, report-<arch>.md.
# The installed kselftest pass is x86_64's only; the implementations under test run there by
# make check-impl KERNEL_ARCH=<arch> (impl/build.mk), not from check-vm.
# x86_64, the default, is the run described above, unchanged.
KERNEL_ARCH ?= x86_64
export KERNEL_ARCH
ifeq ($(KERNEL_ARCH),x86_64)
VM_BUILD := $(B)
VM_RESULTS := $(O)/results
VM_JUNIT := vm
VM_PREREQS := all kselftest-install
VM_IMPLS = $(call impl_also,$(O)/results,$(if $(filter 1,$(KASAN)),impls-kasan.md,impls.md),$(if $(filter 1,$(KASAN)),kasan-impl,impl))
else
VM_BUILD := $(O)/$(KERNEL_ARCH)
VM_RESULTS := $(O)/results/arch/$(KERNEL_ARCH)
VM_JUNIT := vm-$(KERNEL_ARCH)
VM_REPORT ?= report-$(KERNEL_ARCH).md
VM_PREREQS := vm-cross
VM_IMPLS :=
endif
ifeq ($(KASAN),1)
VM_REPORT ?= report-kasan.md
VM_ENV := KASAN=1 EHCONF_VM_TIMEOUT=$${EHCONF_VM_TIMEOUT:-1800}
else
VM_REPORT ?= report.md
VM_ENV := KASAN=0
endif

# VM_REUSE=1 (make check passes it; x86_64 only): when nothing the run reads has changed
# since a run whose items all passed (harness/vm/reuse.py: the kernel, the guest's programs,
# the harness, golden/), that run's results stand and the kernel is not booted again; one
# line says so. check-vm on its own, .ci/run and the workflow always boot.
VM_REUSE ?= 0
# The kernel is built (or found in the cache) before the runner starts, so its progress
# lines reach the terminal. A failed build is reported by the VM items: the runner tries
# vm/build-kernel again and names its error.
## check-vm: the cases under perf on a real kernel in QEMU (KASAN=1: the KASAN kernel; KERNEL=bzImage)
check-vm: $(VM_PREREQS)
	@mkdir -p $(JUNIT_DIR) $(VM_RESULTS)
	@if [ -z "$${KERNEL:-}" ]; then echo "check-vm: kernel ($(KERNEL_ARCH)): vm/build-kernel (cached after the first build)"; \
	  $(VM_ENV) vm/build-kernel >/dev/null || echo "check-vm: vm/build-kernel failed; the VM items say why" >&2; fi
	@rc=0; kernel=$${KERNEL:-$$($(VM_ENV) vm/build-kernel --cached 2>/dev/null)}; \
	reuse="/usr/bin/python3 harness/vm/reuse.py --build $(VM_BUILD) --results $(VM_RESULTS) --kselftest $(INSTALL_PATH) --kernel $$kernel"; \
	if [ "$(VM_REUSE)" = 1 ] && [ -n "$$kernel" ] && $$reuse check; then :; else \
	  $(VM_ENV) timeout $(VM_GUARD_SECONDS) $(RUN) vm --build $(VM_BUILD) --results $(VM_RESULTS) || rc=1; fi; \
	$(call judge,vm,$(VM_JUNIT),$(VM_BUILD),,$(VM_RESULTS)) || rc=1; \
	[ "$(VM_REUSE)" != 1 ] || [ -z "$$kernel" ] || $$reuse record --junit $(JUNIT_DIR)/$(VM_JUNIT).xml || rc=1; \
	/usr/bin/python3 harness/reports/report_md.py $(JUNIT_DIR)/$(VM_JUNIT).xml $(VM_REPORT) || rc=1; \
	$(VM_IMPLS) \
	exit $$rc

# The guest's programs for KERNEL_ARCH=arm64|s390x: the cases and tools of VARIANT=<arch>.
## vm-cross: cross-build the cases and tools for the KERNEL_ARCH guest (VARIANT=arm64|s390x)
vm-cross:
	@vm/cross-toolchain $(KERNEL_ARCH) >/dev/null
	@$(MAKE) --no-print-directory VARIANT=$(KERNEL_ARCH) vm-guest-programs
## vm-guest-programs: the cases and tools of VARIANT (what vm-cross builds for a guest)
# (A recipe, not prerequisites: cases/build.mk, which defines CASES, is read after this file.)
vm-guest-programs:
	@$(MAKE) --no-print-directory $(CASES) $(TOOLS)

INC.harness := $(EH_INC) -Itests

# The kernel matrix: the same cases on each kernel of KERNELS (Debian's linux-source-X.Y,
# vm/fetch-kernel-source; each build cached by vm/build-kernel), one boot each, one
# folder of results and one JUnit file per kernel (matrix-X.Y.xml), then matrix.md with
# the kernels side by side (harness/reports/matrix_md.py). A kernel that fails to build is a
# failed column, and the other kernels still run.
KERNELS ?= 6.12 7.2 7.3
# MATRIX_ARCHES (default: KERNEL_ARCH, i.e. x86_64): the guest architectures, each kernel
# of KERNELS on each; a column is <version> on x86_64 (as before) and <version>-<arch>
# on another (results in $(O)/results/matrix/<column>/, JUnit matrix-<column>.xml).
MATRIX_ARCHES ?= $(KERNEL_ARCH)
MATRIX_RESULTS := $(O)/results/matrix
matrix_col = $(1)$(if $(filter-out x86_64,$(2)),-$(2))
## check-matrix: the VM run on every kernel of KERNELS (default 6.12 7.2 7.3) and architecture of MATRIX_ARCHES, side by side in matrix.md
# kselftest-install: the x86_64 columns run the installed tree's second pass, as check-vm does
# (a tree left from an older build would miss the newest tests).
check-matrix: all kselftest-install
	@mkdir -p $(JUNIT_DIR) $(MATRIX_RESULTS)
	@rc=0; for a in $(MATRIX_ARCHES); do \
	  build=$(B); \
	  if [ $$a != x86_64 ]; then build=$(O)/$$a; \
	    if ! $(MAKE) --no-print-directory KERNEL_ARCH=$$a vm-cross; then \
	      echo "check-matrix: $$a: cross-building the cases failed; its columns have no results" >&2; rc=1; continue; fi; fi; \
	  for k in $(KERNELS); do \
	  col=$$k; [ $$a = x86_64 ] || col=$$k-$$a; \
	  res=$(MATRIX_RESULTS)/$$col; rm -rf $$res; mkdir -p $$res; \
	  echo "check-matrix: kernel $$k ($$a): vm/build-kernel (cached after the first build of $$k)"; \
	  if ! KERNEL_ARCH=$$a KERNEL_VERSION=$$k KASAN=0 vm/build-kernel >$$res/build-kernel.out; then \
	    echo "check-matrix: kernel $$k ($$a): vm/build-kernel failed (see above); its column has no results" >&2; rc=1; continue; fi; \
	  KERNEL_ARCH=$$a KERNEL_VERSION=$$k KASAN=0 timeout $(VM_GUARD_SECONDS) $(RUN) vm --build $$build --results $$res --no-crash-test || rc=1; \
	  $(call judge,vm,matrix-$$col,$$build,,$$res) || rc=1; \
	  /usr/bin/python3 harness/reports/report_md.py $(JUNIT_DIR)/matrix-$$col.xml $$res/report.md || rc=1; \
	  [ $$a != x86_64 ] || { export KERNEL_VERSION=$$k; $(call impl_also,$$res,$$res/impls.md,matrix-$$k-impl) }; \
	done; done; \
	/usr/bin/python3 harness/reports/matrix_md.py matrix.md $(foreach a,$(MATRIX_ARCHES),$(foreach k,$(KERNELS),$(call matrix_col,$(k),$(a))=$(JUNIT_DIR)/matrix-$(call matrix_col,$(k),$(a)).xml)) || rc=1; \
	exit $$rc

BENCH_VM := $(B)/bench/bench_vm
$(BENCH_VM): $(B)/obj/harness/vm/bench_vm.o $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(BENCH_VM)

## bench-vm: the benchmarks' figures on the real kernel in QEMU
bench-vm: all
	@mkdir -p $(O)/results/bench-vm
	vm/run --timeout 600 --results $(abspath $(O)/results/bench-vm) -- \
	  /usr/bin/python3 harness/vm/guest_run.py --bench --build $(B) \
	  --results $(abspath $(O)/results/bench-vm)

.PHONY: check-vm check-matrix bench-vm vm-cross vm-guest-programs
