# SPDX-License-Identifier: MIT
# ehconf top-level Makefile. `make help` lists every target with one line each, taken
# from the `## target: text` comment above its rule (mk/help.mk; `make lint` checks that
# every .PHONY target has one).
#
# Build variants live side by side: build/gcc (default), build/clang, build/asan.
# Every sub-folder contributes a build.mk fragment that uses the variables below.

.DEFAULT_GOAL := all
.SUFFIXES:
# Keep object files that pattern rules build on the way to a program.
.SECONDARY:
SHELL := /bin/bash

VARIANT ?= gcc
# The rows of vm/arches whose programs are cross-built (every guest architecture but x86_64).
GUEST_ARCHES := $(shell awk '!/^[[:space:]]*(\#|$$)/ && $$1 != "x86_64" { print $$1 }' vm/arches)
O ?= build
B := $(O)/$(VARIANT)

ifeq ($(VARIANT),gcc)
  CC := gcc
  VARIANT_CFLAGS := -O2
else ifeq ($(VARIANT),clang)
  CC := clang
  VARIANT_CFLAGS := -O2
else ifeq ($(VARIANT),asan)
  CC := clang
  VARIANT_CFLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
  VARIANT_LDFLAGS := -fsanitize=address,undefined
else ifeq ($(VARIANT),fuzz)
  # libFuzzer builds (make fuzz): everything instrumented, -fsanitize=fuzzer only at link.
  CC := clang
  VARIANT_CFLAGS := -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
  VARIANT_LDFLAGS := -fsanitize=fuzzer,address,undefined
else ifneq ($(filter $(GUEST_ARCHES),$(VARIANT)),)
  # The guests of other architectures (make check-vm KERNEL_ARCH=arm64|s390x, vm/arches):
  # the cases and tools cross-built with Debian's gcc-12-<triplet>, which vm/cross-toolchain
  # unpacks into the cache (make vm-cross runs it first), run only in that guest.
  CROSS_BIN ?= $(or $(EHCONF_CACHE),/var/cache/ehconf)/cross-$(VARIANT)/usr/bin
  CC := $(CROSS_BIN)/$(shell awk '$$1 == "$(VARIANT)" { print $$3 }' vm/arches)gcc
  VARIANT_CFLAGS := -O2
else ifeq ($(VARIANT),mingw)
  # %zu needs the ANSI stdio; mingw's printf format archetype is ms_printf, which rejects
  # %zu although the ANSI stdio prints it, so -Wformat is left to the Linux gcc/clang
  # builds of the same sources. The rules are in each folder's mingw.mk.
  CC := x86_64-w64-mingw32-gcc
  VARIANT_CFLAGS := -O2 -D__USE_MINGW_ANSI_STDIO=1 -Wno-format
else
  $(error unknown VARIANT=$(VARIANT): gcc, clang, asan, fuzz, mingw or a row of vm/arches ($(GUEST_ARCHES)))
endif

CSTD := -std=c11 -D_GNU_SOURCE
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS := $(CSTD) $(WARNINGS) -g $(VARIANT_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(VARIANT_LDFLAGS) $(EXTRA_LDFLAGS)
LDLIBS := -lpthread -lm

# Objects of source files: $(call objs,a.c b.c) -> $(B)/obj/a.o $(B)/obj/b.o
objs = $(patsubst %.c,$(B)/obj/%.o,$(1))

# Include paths are per folder, so the compiler enforces the layering (libeventheader
# sees only its own headers; libehdecode sees its own and libeventheader's wire headers):
# each build.mk sets INC.<folder>, and a source file gets the INC.<folder> of its nearest
# folder that has one (tests/tl/x.c: INC.tests/tl, else INC.tests). No global -I.
src_inc = $(call src_inc_of,$(patsubst %/,%,$(dir $(1))))
src_inc_of = $(if $(filter-out undefined,$(origin INC.$(1))),$(INC.$(1)),$(if $(findstring /,$(1)),$(call src_inc_of,$(patsubst %/,%,$(dir $(1))))))

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(call src_inc,$<) -MMD -MP -c -o $@ $<

# Fragments append to these.
ALL_TARGETS :=
UNIT_TESTS :=

# Every fragment is mandatory: a missing one stops make instead of silently dropping its
# targets (only the generated dependency files at the end are optional).
include mk/deps.mk mk/help.mk mk/lint.mk
include lib/eventheader/build.mk lib/decode/build.mk tools/build.mk tests/build.mk mk/install.mk
# harness/ first: cases/build.mk names $(KSELFTEST_STAMP) in a prerequisite list,
# which make expands as it reads the rule.
include harness/kernel/bisect.mk harness/kernel/build.mk harness/vm/vm.mk harness/kernel/windows.mk
include cases/build.mk vm/build.mk impl/build.mk tools/standin/build.mk
include cases/kselftest.mk kselftest-series/series.mk
include decoders/build.mk
include emitlib/build.mk impl/ehconf/build.mk harness/impl/bench.mk

## all: build the library, tools, cases, benchmarks and fuzz replayers of VARIANT (default gcc) into build/VARIANT
all: $(ALL_TARGETS)

# Run, then judge: a runner (harness/run.py) executes the programs with a timeout each and
# writes $(O)/results/<runner>/summary.json with their KTAP; pytest (harness/core/judge_items.py,
# the plugin loaded by conftest.py) only reads those files and writes the JUnit XML.
# `pytest --collect-only` starts no program.
PYTEST := /usr/bin/python3 -m pytest
RUN := /usr/bin/python3 harness/run.py
JUNIT_DIR ?= $(O)/results
# $(call judge,RUNNER,JUNIT NAME,BUILD[,more pytest files[,RESULTS]]): the items of one
# runner's results (in $(O)/results unless RESULTS names another folder).
judge = $(PYTEST) -q harness/core/judge_items.py $(4) --ehconf-build $(3) --ehconf-results $(or $(5),$(O)/results) \
        --ehconf-runner $(1) --junitxml=$(JUNIT_DIR)/$(2).xml

# test_perf_tool runs the ehdecode binary, so the tools are part of a unit build.
## unit-build: build the unit tests and tools of VARIANT without running them
unit-build: $(UNIT_TESTS) $(TOOLS)

# Unit tests of lib/ and tools/ (KTAP output, one binary per area).
## unit: run the unit tests of VARIANT (KTAP, one pytest item per test; JUnit in build/results/)
unit: $(UNIT_TESTS) $(TOOLS)
	@mkdir -p $(JUNIT_DIR)
	@rc=0; $(RUN) unit --build $(B) --results $(O)/results || rc=1; \
	$(call judge,unit,unit-$(VARIANT),$(B)) || rc=1; exit $$rc

# The README's main command: everything test does, then the same cases on a real
# kernel in QEMU (vm/ and harness/vm/vm.mk), with report.md.
# The VM run needs a passing build; the closing line adds up every step's JUnit XML.
# It is the loop a kernel developer runs over and over: the other implementations and the
# harness tests that build them (make check-impl IMPL=all, make test-impls) are not in it;
# .ci/run and the workflow run them.
CHECK_XML := unit-asan offline wine ci-lint vm
# A first run builds the guest kernel while make test runs, its compile at the lowest
# priority (BUILD_NICE=19): it takes the core that make test's serial steps (lint, the
# offline and wine runs) leave idle and never slows make test's own builds. The unpacking
# before it runs at make's priority: at nice 19 it had waited behind make test's builds for
# up to 3 minutes (20 s in another run), and the compile could not start until it was done.
# make check-vm's own vm/build-kernel then waits on the build's lock, or finds the kernel
# cached.
CHECK_KERNEL_LOG := $(O)/kernel-build.log
## check: the README's main command: everything `make test` does, then check-vm (6.12; KERNEL_VERSION=7.2 for another), one summary line
check:
	@rm -f $(foreach x,$(CHECK_XML),$(JUNIT_DIR)/$(x).xml)
	@rc=0; kbuild=; \
	if [ -z "$${KERNEL:-}" ] && [ "$(KERNEL_ARCH)" = x86_64 ] && \
	   ! $(VM_ENV) vm/build-kernel --cached >/dev/null 2>&1; then \
	  mkdir -p $(O); \
	  echo "check: the guest kernel is not cached: building it in the background while make test runs (log: $(CHECK_KERNEL_LOG))"; \
	  $(VM_ENV) BUILD_NICE=19 vm/build-kernel >$(CHECK_KERNEL_LOG) 2>&1 & kbuild=$$!; fi; \
	$(MAKE) test || rc=1; \
	if [ -n "$$kbuild" ]; then \
	  echo "check: waiting for the background kernel build ($$(tail -n1 $(CHECK_KERNEL_LOG) 2>/dev/null))"; \
	  wait $$kbuild || echo "check: the background kernel build failed (log: $(CHECK_KERNEL_LOG)); check-vm tries once more"; fi; \
	if [ $$rc = 0 ]; then $(MAKE) VARIANT=gcc IMPL_ALSO=0 VM_REUSE=$(if $(filter x86_64,$(KERNEL_ARCH)),1,0) check-vm || rc=1; \
	else echo "check: make test failed, so the VM run was not started"; fi; \
	/usr/bin/python3 harness/reports/summary.py $(foreach x,$(CHECK_XML),$(JUNIT_DIR)/$(x).xml) || rc=1; \
	exit $$rc

# The figures a newcomer sees: scripts/check-newcomer.sh clones HEAD into a new folder and
# runs the README's two commands from an empty cache (NEWCOMER_ARGS=--ci: .ci/run instead).
## check-newcomer: a fresh clone and an empty cache run `make deps` and `make check`, each timed (long)
check-newcomer:
	scripts/check-newcomer.sh $(NEWCOMER_ARGS)

# Builds run in parallel (one job per core); the test runs themselves stay serial.
NPROC := $(shell nproc 2>/dev/null || echo 2)

## test: lint, gcc/clang/fuzz builds (-Werror), unit tests and fuzz seeds under ASan/UBSan, check-offline, check-wine, test-install, ci-lint, test-declarations
test:
	$(MAKE) lint
	$(MAKE) -j$(NPROC) VARIANT=gcc all
	$(MAKE) -j$(NPROC) VARIANT=clang all
	$(MAKE) -j$(NPROC) VARIANT=asan unit-build
	$(MAKE) -j$(NPROC) VARIANT=fuzz fuzz-build
	$(MAKE) VARIANT=asan unit
	$(MAKE) VARIANT=gcc check-offline
	$(MAKE) check-wine
	$(MAKE) -j$(NPROC) VARIANT=gcc test-install
	$(MAKE) ci-lint
	$(MAKE) test-declarations

# Every declared difference of impl/*/profile.txt judged as declared, then with each value
# outside it changed (each must fail): the judge sees inside what a declaration excuses.
## test-declarations: every profile declaration lets through its stated observation and nothing else (one line each)
test-declarations:
	@/usr/bin/python3 harness/impl/perturb_declarations.py

## clean: remove the build folder (O=build); the kernel cache in /var/cache/ehconf stays
clean:
	rm -rf $(O)

.PHONY: all unit unit-build test test-declarations clean check check-newcomer check-offline check-vm golden bench fuzz fuzz-build deps

DEPFILES := $(shell find $(B)/obj -name '*.d' 2>/dev/null)
-include $(DEPFILES)
