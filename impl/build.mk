# SPDX-License-Identifier: MIT
# impl/: the implementations under test (impl/README.md). The user_events stand-in they
# run under offline is built with the tools (tools/build.mk).

# make check-impl: the cases' descriptions (descriptions/) through each implementation of
# impl/implementations.txt, judged against golden/: offline under the stand-in (harness/impl/
# run_impl.py), then all of them in ONE boot of the guest kernel under perf, with the
# contract rows (harness/impl/run_impl_vm.py; IMPL_VM=0 leaves the VM out; the boot may take
# EHCONF_VM_TIMEOUT, default IMPL_VM_TIMEOUT: 2400 s on x86_64, where the first five rows
# took 274 s on 2 busy cores under TCG and every row and pinned release (sixteen runs) 692 s
# with other builds on the cores, so a slower machine keeps a wide margin; 3600 s on the
# other guests, where s390x took 1,439 s for all ten rows). One JUnit file per
# implementation (both halves) and impls.md side by side.
#   make check-impl IMPL=lttp-cpp IMPL_SRC=~/LinuxTracepoints
#   make check-impl IMPL=all IMPL_SRC_LTTP=... IMPL_SRC_RUST=...   (registry's checkout column)
# Without a checkout an implementation is one skip naming the variable to pass.
#   make check-impl KERNEL_ARCH=s390x IMPL_SRC_LTTP=...
#                     the same on a guest of another architecture (vm/arches): the offline half
#                     here as above, then ONE boot of that guest with the emitters cross-built
#                     (impl/<name>/build under EHCONF_CROSS_ARCH; the reference: make
#                     VARIANT=<arch>) and the guest's tools ($(O)/<arch>): results in
#                     $(O)/results/arch/<arch>/, JUnit impl-<arch>-<name>.xml, report
#                     $(O)/results/arch/<arch>/impls.md. Every row by default: the C, C++
#                     and Rust emitters all cross-build (Rust: emitlib/build.sh
#                     rust_cross_setup, the target's standard library from vm/rust-std).
ifneq ($(filter-out x86_64,$(KERNEL_ARCH)),)
IMPL_RESULTS ?= $(O)/results/arch/$(KERNEL_ARCH)
IMPL_REPORT ?= $(IMPL_RESULTS)/impls.md
IMPL_JUNIT ?= impl-$(KERNEL_ARCH)
IMPL_PREREQS := vm-cross impl-cross
else
IMPL_PREREQS :=
endif
IMPL ?= all
IMPL_VM ?= 1
# Where check-matrix and check-vm put a run of their own (one per kernel): results folder,
# report and the JUnit files' prefix.
IMPL_RESULTS ?= $(O)/results
IMPL_REPORT ?= impls.md
IMPL_JUNIT ?= impl
IMPL_NAMES := $(shell awk '!/^\#/ && NF { print $$1 }' impl/implementations.txt)
# The other versions each crate-registry row pins (its crate column NAME@V1,V2...: V2...),
# as NAME@V: IMPL=all runs them beside the rows. VERSION=V runs IMPL at V (pinned or not:
# a version the column does not pin is built with a lock resolved at build time, and says
# UNPINNED); VERSION=all, IMPL and every version it pins. Results, JUnit files and items
# of a version are named NAME@V: $(O)/results/impl-NAME@V/, impl-NAME@V.xml, impl/NAME@V/...
IMPL_VERSIONED := $(shell awk '!/^\#/ && NF && $$5 ~ /@.*,/ { split($$5, c, "@"); n = split(c[2], v, ","); for (i = 2; i <= n; i++) print $$1 "@" v[i] }' impl/implementations.txt)
VERSION ?=
# Every pinned version runs offline and in the guest's boot beside the rows; on a guest of
# another architecture only the rows' own versions run (the others would repeat x86_64's).
IMPL_VERSIONS_RUN := $(if $(filter x86_64,$(KERNEL_ARCH)),$(IMPL_VERSIONED))
# ehconf-macros' checkout (the registry's EHCONF) is this repository's own libeventheader:
# always here, so always passed (make test-impl-mutants plants its bugs in a copy of it).
IMPL_SRC_EHCONF ?= $(CURDIR)/lib/eventheader
IMPL_CHECKOUTS = $(foreach v,$(filter IMPL_SRC_%,$(.VARIABLES)),$(v)='$($(v))')
IMPL_VM_TIMEOUT ?= $(if $(filter x86_64,$(KERNEL_ARCH)),2400,3600)
IMPL_RUNNERS := --ehconf-runner impl $(if $(filter 1,$(IMPL_VM)),--ehconf-runner impl-vm)

## check-impl: the cases through other implementations, offline and on the VM's kernel (IMPL=name|all, IMPL_SRC= or IMPL_SRC_LTTP/IMPL_SRC_RUST=, IMPL_VM=0)
check-impl: all $(IMPL_PREREQS)
	@mkdir -p $(JUNIT_DIR)
	@rc=0; names="$(if $(filter all,$(IMPL)),$(IMPL_NAMES) $(IMPL_VERSIONS_RUN),$(if $(filter all,$(VERSION)),$(IMPL) $(filter $(IMPL)@%,$(IMPL_VERSIONED)),$(IMPL)$(if $(VERSION),@$(VERSION))))"; \
	for i in $$names; do \
	  $(IMPL_CHECKOUTS) $(RUN) impl --impl $$i $(if $(IMPL_SRC),--impl-src '$(IMPL_SRC)') --build $(B) --results $(IMPL_RESULTS) || rc=1; \
	done; \
	if [ "$(IMPL_VM)" = 1 ]; then \
	  echo "check-impl: kernel: vm/build-kernel (cached after the first build)"; \
	  $(VM_ENV) vm/build-kernel >/dev/null || echo "check-impl: vm/build-kernel failed; the impl-vm items say why" >&2; \
	  EHCONF_VM_TIMEOUT=$${EHCONF_VM_TIMEOUT:-$(IMPL_VM_TIMEOUT)} $(VM_ENV) timeout $(VM_GUARD_SECONDS) $(RUN) impl-vm --impls "$$names" --build $(VM_BUILD) --results $(IMPL_RESULTS) || rc=1; \
	fi; \
	for i in $$names; do \
	  $(PYTEST) -q harness/core/judge_items.py --ehconf-impl $$i --ehconf-results $(IMPL_RESULTS) \
	    $(IMPL_RUNNERS) --junitxml=$(JUNIT_DIR)/$(IMPL_JUNIT)-$$i.xml || rc=1; \
	done; \
	rows=$$(printf '%s\n' $$names | grep -v @ | tr '\n' ' '); \
	[ -z "$$rows" ] || /usr/bin/python3 harness/reports/impls_md.py $(JUNIT_DIR)/$(IMPL_JUNIT) $(IMPL_REPORT) --run $$rows --vm $(IMPL_VM) \
	  --bench $(IMPL_RESULTS)/bench-impls/bench-impls.json || rc=1; \
	exit $$rc

# The guest's own stand-in and reference emitter (KERNEL_ARCH=arm64|s390x; vm-cross builds the
# cases and tools).
## impl-cross: cross-build the user_events stand-in and the reference emitter for the KERNEL_ARCH guest
impl-cross:
	@$(MAKE) --no-print-directory VARIANT=$(KERNEL_ARCH) $(O)/$(KERNEL_ARCH)/lib/libuser_events_standin.so \
	  $(O)/$(KERNEL_ARCH)/impl/ehconf/emit

# The harness's tests that build other implementations' emitters (their contract answers,
# malformed descriptions, build failures, the templates of make new-impl): minutes of cargo
# and C++ builds from an empty cache, so they run here and in .ci/run's impl stage, not in
# make check's loop (check-offline runs every other tests/harness file).
IMPL_PYTEST_FILES := $(addprefix tests/harness/,test_impl_contract.py test_impl_emitters.py \
	test_impl_ehconf_macros.py test_impl_lttp_c.py test_impl_lttp_cpp.py test_impl_rust_dynamic.py \
	test_impl_rust_macro.py test_new_impl.py test_adding_impl.py test_desc_order_rust.py \
	test_upstream_sources.py)
## test-impls: the harness's tests that build the implementations' emitters (IMPL_SRC_LTTP=, IMPL_SRC_RUST=; JUnit impl-tests.xml)
test-impls: all
	@mkdir -p $(JUNIT_DIR)
	$(IMPL_CHECKOUTS) $(PYTEST) -q -p no:cacheprovider $(IMPL_PYTEST_FILES) --junitxml=$(JUNIT_DIR)/impl-tests.xml

# check-vm and check-matrix run the implementations too when a checkout is given
# (IMPL_SRC_LTTP=..., IMPL_SRC_RUST=...): $(call impl_also,RESULTS,REPORT,JUNIT PREFIX).
# (make check passes IMPL_ALSO=0: its loop is the kernel cases; .ci/run's impl stage runs them)
IMPL_ALSO ?= 1
impl_also = $(if $(and $(IMPL_CHECKOUTS),$(filter-out 0,$(IMPL_ALSO))),$(MAKE) --no-print-directory check-impl IMPL=all \
	IMPL_RESULTS=$(1) IMPL_REPORT=$(2) IMPL_JUNIT=$(3) || rc=1;)

# make test-impl-mutants: the planted bugs of impl/<name>/mutants.txt, each in a copy of
# the checkout its row names, must be caught by the item it names (scripts/impl-mutants.py;
# one control run per implementation first; a mutant that expects an impl-vm item boots
# the kernel). About 3 minutes offline, plus two boots.
## test-impl-mutants: each planted bug in an implementation under test must be caught by the item it names (IMPL_SRC_LTTP=, IMPL_SRC_RUST=, MUTANTS=a,b)
test-impl-mutants: all
	@$(VM_ENV) vm/build-kernel >/dev/null || echo "test-impl-mutants: vm/build-kernel failed; the real-kernel mutants say why" >&2
	$(IMPL_CHECKOUTS) $(VM_ENV) /usr/bin/python3 scripts/impl-mutants.py --build $(B) $(if $(MUTANTS),--only $(MUTANTS))

# Is ehconf behind? The pinned version of each crate-registry producer (the registry's crate
# column) against the newest the registry's index publishes, one line each, never a failure
# (scripts/crates-behind.py; one skip line when the index cannot be reached).
## crates-behind: each crate-registry producer's pinned version against the newest published (a notice, never a failure)
crates-behind:
	@/usr/bin/python3 scripts/crates-behind.py $(if $(GITHUB_ACTIONS),--github)

# A new implementation from emitlib/templates/<KIND>/ (scripts/new-impl.sh): its folder and
# its registry row, passing make check-impl before the first edit (Documentation/adding.md).
## new-impl: a new implementation under test from a template: its folder impl/<NAME>/ and its registry row (NAME=x KIND=crates|c|rust)
new-impl:
	@scripts/new-impl.sh '$(NAME)' '$(KIND)'

.PHONY: check-impl impl-cross test-impl-mutants test-impls crates-behind new-impl
