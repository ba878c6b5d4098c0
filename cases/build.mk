# SPDX-License-Identifier: GPL-2.0
# Conformance cases: every cases/<name>.c is one kselftest_harness.h program,
# built to $(B)/cases/<name> and linked with libeventheader. harness/kernel/run_offline.py
# runs them (make check-offline); the VM run drives the same binaries under perf.
CASE_SRCS := $(wildcard cases/*.c)
CASES := $(patsubst cases/%.c,$(B)/cases/%,$(CASE_SRCS))

# kselftest_harness.h (Linux 6.12) trips two of the project's warnings in its own code,
# so they are turned off for cases/ only (checked with gcc 12 and clang 14):
#  -Wmissing-prototypes: __run_test(), __wait_for_test() and the FIXTURE_SETUP/TEARDOWN
#    functions the macros generate are non-static with no prior declaration;
#  -Wunused-parameter: every generated test function takes a `variant` argument most
#    tests never use, and __timeout_handler ignores `ucontext`.
#  -Wclobbered (gcc only; clang has no such option): TEST_F's wrapper keeps `pid_t child`
#    across setjmp() without `volatile`. This one is a TRUE positive: at -O2 (gcc 12 and
#    clang 14) a failed ASSERT_* in a TEST_F longjmps back with `child` restored to its
#    pre-fork value, so FIXTURE_TEARDOWN is skipped for that test (checked with a demo).
#    Our own cases therefore use TEST() with explicit set-up (TEST() has no local
#    across its setjmp); the warning is off only so that TEST_F still builds.
# -Wempty-body stays on: clang then rejects `ASSERT_EQ(a, b); next();` on ONE line,
# which is harmless, while harness/kernel/case_lint.py catches the missing-';' pitfall.
INC.cases := $(EH_INC)
CASE_CFLAGS = $(CFLAGS) $(INC.cases) -I$(KSELFTEST_DIR) -Wno-missing-prototypes -Wno-unused-parameter \
              $(if $(findstring clang,$(CC)),,-Wno-clobbered)

# Keep the objects (they are intermediate files of a chained rule).
.PRECIOUS: $(B)/obj/cases/%.o

$(B)/obj/cases/%.o: cases/%.c | $(KSELFTEST_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CASE_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/cases/%: $(B)/obj/cases/%.o $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

ALL_TARGETS += $(CASES)

# K46: kernel_compat32 runs a 32-bit program on the 64-bit guest kernel. It is built
# only when $(CC) -m32 can link (gcc-multilib), statically if it can, so the guest
# needs no 32-bit loader. The name has a dot: runners take it for no case.
COMPAT32 := $(B)/cases/kernel_compat32.m32
COMPAT32_SRC := cases/compat32/compat32_probe.c
COMPAT32_TRY = printf 'int main(void) { return 0; }\n' | \
               $(CC) -m32 $(1) -x c -o /dev/null - >/dev/null 2>&1 && echo yes
COMPAT32_STATIC := $(shell $(call COMPAT32_TRY,-static))
COMPAT32_DYNAMIC := $(if $(COMPAT32_STATIC),,$(shell $(call COMPAT32_TRY,)))

ifneq ($(COMPAT32_STATIC)$(COMPAT32_DYNAMIC),)
$(COMPAT32): $(COMPAT32_SRC) lib/eventheader/include/eventheader_user_events.h
	@mkdir -p $(@D)
	$(CC) -m32 $(if $(COMPAT32_STATIC),-static) $(CSTD) $(WARNINGS) -g -O2 \
	  -Ilib/eventheader/include -o $@ $<

# Building the case builds the probe it runs (order-only: not linked in).
$(B)/cases/kernel_compat32: | $(COMPAT32)

ALL_TARGETS += $(COMPAT32)
endif
include cases/mingw.mk
