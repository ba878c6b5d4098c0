# SPDX-License-Identifier: GPL-2.0
# The cases for Windows (`make VARIANT=mingw`), with cases/windows/case_runner.c in place
# of kselftest_harness.h (see cases/case_harness.h), and the runner's own tests. The
# kernel_* cases test the Linux user_events ABI itself: Linux only. harness/kernel/windows.mk
# runs them under wine (check-wine).
ifeq ($(VARIANT),mingw)

WIN_CASE_SRCS := $(filter-out cases/kernel_%.c,$(wildcard cases/*.c))
WIN_CASES := $(patsubst cases/%.c,$(B)/cases/%.exe,$(WIN_CASE_SRCS))
WIN_CASE_RUNNER := $(B)/obj/cases-win/windows/case_runner.o

$(B)/obj/cases-win/%.o: cases/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INC.cases) -Icases -MMD -MP -c -o $@ $<

$(B)/cases/%.exe: $(B)/obj/cases-win/%.o $(WIN_CASE_RUNNER) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

# The runner's own tests (harness/kernel/run_wine.py checks their verdicts): not a case.
WIN_RUNNER_SELFTEST := $(B)/tests/windows/runner_selftest.exe

$(WIN_RUNNER_SELFTEST): $(B)/obj/cases-win/windows/runner_selftest.o $(WIN_CASE_RUNNER)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

-include $(wildcard $(B)/obj/cases-win/*.d $(B)/obj/cases-win/windows/*.d)

windows-build: $(WIN_CASES) $(WIN_RUNNER_SELFTEST)

endif
