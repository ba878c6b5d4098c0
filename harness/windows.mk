# SPDX-License-Identifier: GPL-2.0
# harness/windows.mk: the Windows (ETW / TraceLogging) path, cross-built on Linux.
#
#   make VARIANT=mingw windows-build   mingw-w64 build into build/mingw/:
#       lib/libeventheader-win.a, lib/libehdecode-win.a (the portable sources),
#       cases/*.exe (cases/windows/case_runner.c in place of kselftest_harness.h),
#       bin/etwcapture.exe, tests/tl/test_tl_*.exe, tests/windows/runner_selftest.exe
#   make check-wine                    runs them under wine (harness/test_wine.py)
#
# What wine can and cannot show (shared/reference/tracelogging-etw.md): wine's ETW is a
# stub. EventRegister succeeds, EventWriteTransfer/StartTraceW/EnableTraceEx2 return 0
# and do nothing, OpenTraceW fails. So check-wine proves that the Windows build links and
# runs: the cases pass their own checks, their TraceLogging records (EHCONF_CAPTURE_TL,
# the bytes the ETW backend hands to EventWriteTransfer) decode to the golden files, and
# the ETW backend registers, writes and unregisters without an error. It never captures
# an ETW event: real capture is scripts/windows/check.ps1 on Windows.

ifeq ($(VARIANT),mingw)

# mingw-w64 specifics: no <sys/uio.h> (scripts/windows/compat supplies struct iovec);
# %zu needs the ANSI stdio; mingw's printf format archetype is ms_printf, which rejects
# %zu although the ANSI stdio prints it, so -Wformat is left to the Linux gcc/clang builds
# of the same sources.
CFLAGS += -Iscripts/windows/compat -D__USE_MINGW_ANSI_STDIO=1 -Wno-format
WIN_LDLIBS := -static -lpthread -ladvapi32 -ltdh

# winpthreads defines pthread_atfork(F1,F2,F3) as 0 (Windows has no fork), so the
# atfork handlers of provider.c are unused there: that warning only, for that file only.
$(B)/obj/lib/eventheader/src/provider.o: CFLAGS += -Wno-unused-function

# Linux-only sources: user_events (ioctl) and the .dat capture (writev); perf.data readers.
WIN_EH_SRCS := $(filter-out lib/eventheader/src/backend_user_events.c \
                            lib/eventheader/src/backend_capture.c, \
                            $(wildcard lib/eventheader/src/*.c))
WIN_EHD_SRCS := $(filter-out lib/decode/src/perf_%.c,$(wildcard lib/decode/src/*.c))
WIN_EH_LIB := $(B)/lib/libeventheader-win.a
WIN_EHD_LIB := $(B)/lib/libehdecode-win.a
WIN_TEST_SRCS := $(wildcard tests/tl/test_tl_*.c tests/windows/test_*.c)
WIN_TESTS := $(patsubst tests/%.c,$(B)/tests/%.exe,$(WIN_TEST_SRCS))
WIN_ETWCAPTURE := $(B)/bin/etwcapture.exe

# The cases, with cases/windows/case_runner.c in place of kselftest_harness.h (see
# cases/case_harness.h). The kernel_* cases test the Linux user_events ABI itself: Linux only.
WIN_CASE_SRCS := $(filter-out cases/kernel_%.c,$(wildcard cases/*.c))
WIN_CASES := $(patsubst cases/%.c,$(B)/cases/%.exe,$(WIN_CASE_SRCS))
WIN_CASE_RUNNER := $(B)/obj/cases-win/windows/case_runner.o

$(B)/obj/cases-win/%.o: cases/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(INC.cases) -Icases -MMD -MP -c -o $@ $<

$(B)/cases/%.exe: $(B)/obj/cases-win/%.o $(WIN_CASE_RUNNER) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

# The runner's own tests (harness/test_wine.py checks their verdicts): not a case.
WIN_RUNNER_SELFTEST := $(B)/tests/windows/runner_selftest.exe

$(WIN_RUNNER_SELFTEST): $(B)/obj/cases-win/windows/runner_selftest.o $(WIN_CASE_RUNNER)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

-include $(wildcard $(B)/obj/cases-win/*.d $(B)/obj/cases-win/windows/*.d)

$(WIN_EH_LIB): $(call objs,$(WIN_EH_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && x86_64-w64-mingw32-ar rcs $@ $^

$(WIN_EHD_LIB): $(call objs,$(WIN_EHD_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && x86_64-w64-mingw32-ar rcs $@ $^

$(B)/tests/tl/%.exe: $(B)/obj/tests/tl/%.o $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

$(B)/tests/windows/test_etw_record.exe: $(B)/obj/tests/windows/test_etw_record.o \
                                        $(B)/obj/tools/windows/etw_record.o \
                                        $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

$(WIN_ETWCAPTURE): $(B)/obj/tools/windows/etwcapture.o $(B)/obj/tools/windows/etw_record.o \
                   $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

windows-build: $(WIN_EH_LIB) $(WIN_EHD_LIB) $(WIN_ETWCAPTURE) $(WIN_TESTS) $(WIN_CASES) \
               $(WIN_RUNNER_SELFTEST)
	@echo "windows-build: $(words $(WIN_CASES)) cases, $(words $(WIN_TESTS)) unit tests, etwcapture.exe and the libraries in $(B)"

else

windows-build:
	$(MAKE) VARIANT=mingw $@

endif

# For `make test`: the mingw cross-build when the cross compiler is installed (Debian
# package gcc-mingw-w64-x86-64, part of `make deps`), else one SKIP line, so a machine
# without it still runs every other check. Any variant may call it.
MINGW_CC ?= x86_64-w64-mingw32-gcc

windows-build-if-mingw:
	@if command -v $(MINGW_CC) >/dev/null 2>&1; then \
	  $(MAKE) VARIANT=mingw windows-build; \
	else \
	  echo "windows-build: SKIP: $(MINGW_CC) not installed (apt-get install gcc-mingw-w64-x86-64)"; \
	fi

# The Windows build under wine (harness/test_wine.py): the case runner's own tests, the
# TraceLogging unit tests, every case with its TraceLogging capture decoded by Linux's
# ehdecode and diffed against golden/ (transport "etw"), every case on the ETW backend,
# and etwcapture up to wine's missing ETW consumer. One SKIP line without mingw-w64.
# windows-smoke is its old name.
check-wine windows-smoke: windows-build-if-mingw
	$(MAKE) -j$(NPROC) VARIANT=gcc $(O)/gcc/bin/ehdecode
	@mkdir -p $(JUNIT_DIR)
	EHCONF_BUILD=$(O)/gcc EHCONF_MINGW_BUILD=$(O)/mingw $(PYTEST) -q -p no:cacheprovider \
	  harness/test_wine.py --junitxml=$(JUNIT_DIR)/wine.xml

.PHONY: windows-build windows-smoke windows-build-if-mingw check-wine
