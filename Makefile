# SPDX-License-Identifier: MIT
# ehconf top-level Makefile.
#
#   make deps           install the Debian packages the project needs (root, idempotent)
#   make                build the library, tools and cases (gcc, -Werror)
#   make test           gcc + clang builds, unit tests under ASan/UBSan, the offline check
#   make check-offline  conformance cases -> capture file -> ehdecode --golden -> diff golden/
#   make check          test + check-offline + the conformance run on a real kernel in QEMU
#   make golden         regenerate golden/*.json (review the diff before committing!)
#   make bench          benchmarks (print figures; never pass/fail on timing)
#   make fuzz           run the fuzz targets for FUZZ_SECONDS each
#
# Build variants live side by side: build/gcc (default), build/clang, build/asan.
# Every sub-folder contributes a build.mk fragment that uses the variables below.

.DEFAULT_GOAL := all
.SUFFIXES:
# Keep object files that pattern rules build on the way to a program.
.SECONDARY:
SHELL := /bin/bash

VARIANT ?= gcc
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
else ifeq ($(VARIANT),mingw)
  # %zu needs the ANSI stdio; mingw's printf format archetype is ms_printf, which rejects
  # %zu although the ANSI stdio prints it, so -Wformat is left to the Linux gcc/clang
  # builds of the same sources. The rules are in each folder's mingw.mk.
  CC := x86_64-w64-mingw32-gcc
  VARIANT_CFLAGS := -O2 -D__USE_MINGW_ANSI_STDIO=1 -Wno-format
else
  $(error unknown VARIANT=$(VARIANT): gcc, clang, asan or mingw)
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

include mk/deps.mk
-include lib/eventheader/build.mk lib/decode/build.mk tools/build.mk tests/build.mk
# harness/ first: cases/build.mk names $(KSELFTEST_STAMP) in a prerequisite list,
# which make expands as it reads the rule.
-include $(sort $(wildcard harness/*.mk)) $(sort $(wildcard cases/*.mk vm/*.mk))

all: $(ALL_TARGETS)

# Unit tests of lib/ and tools/ (KTAP output, one binary per area), run by pytest.
PYTEST := /usr/bin/python3 -m pytest
JUNIT_DIR ?= $(O)/results

# test_perf_tool runs the ehdecode binary, so the tools are part of a unit build.
unit-build: $(UNIT_TESTS) $(TOOLS)

unit: $(UNIT_TESTS) $(TOOLS)
	@mkdir -p $(JUNIT_DIR)
	EHCONF_BUILD=$(B) $(PYTEST) -q -p no:cacheprovider harness/test_unit.py --junitxml=$(JUNIT_DIR)/unit-$(VARIANT).xml

# The README's main command: everything test does, then the same cases on a real
# kernel in QEMU (vm/ and harness/vm.mk), with report.md.
# The VM run needs a passing build; the closing line adds up every step's JUnit XML.
CHECK_XML := unit-asan offline wine ci-lint vm
check:
	@rm -f $(foreach x,$(CHECK_XML),$(JUNIT_DIR)/$(x).xml)
	@rc=0; $(MAKE) test || rc=1; \
	if [ $$rc = 0 ]; then $(MAKE) VARIANT=gcc check-vm || rc=1; \
	else echo "check: make test failed, so the VM run was not started"; fi; \
	/usr/bin/python3 harness/summary.py $(foreach x,$(CHECK_XML),$(JUNIT_DIR)/$(x).xml) || rc=1; \
	exit $$rc

# Builds run in parallel (one job per core); the test runs themselves stay serial.
NPROC := $(shell nproc 2>/dev/null || echo 2)

test:
	$(MAKE) -j$(NPROC) VARIANT=gcc all
	$(MAKE) -j$(NPROC) VARIANT=clang all
	$(MAKE) -j$(NPROC) VARIANT=asan unit-build
	$(MAKE) VARIANT=asan unit
	$(MAKE) VARIANT=gcc check-offline
	$(MAKE) check-wine
	$(MAKE) ci-lint

clean:
	rm -rf $(O)

.PHONY: all unit unit-build test clean check check-offline check-vm golden bench fuzz deps

DEPFILES := $(shell find $(B)/obj -name '*.d' 2>/dev/null)
-include $(DEPFILES)
