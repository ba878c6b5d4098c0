# SPDX-License-Identifier: GPL-2.0
# harness/kernel/windows.mk: the Windows (ETW / TraceLogging) path, cross-built on Linux.
#
#   make VARIANT=mingw windows-build   mingw-w64 build into build/mingw/:
#       lib/libeventheader-win.a, lib/libehdecode-win.a (the portable sources),
#       cases/*.exe (cases/windows/case_runner.c in place of kselftest_harness.h),
#       bin/etwcapture.exe, tests/tl/test_tl_*.exe, tests/windows/runner_selftest.exe
#   make check-wine                    runs them under wine (harness/kernel/run_wine.py)
#
# What wine can and cannot show (Documentation/tracelogging.md §8): wine's ETW is a
# stub. EventRegister succeeds, EventWriteTransfer/StartTraceW/EnableTraceEx2 return 0
# and do nothing, OpenTraceW fails. So check-wine proves that the Windows build links and
# runs: the cases pass their own checks, their TraceLogging records (EHCONF_CAPTURE_TL,
# the bytes the ETW backend hands to EventWriteTransfer) decode to the golden files, and
# the ETW backend registers, writes and unregisters without an error. It never captures
# an ETW event: real capture is scripts/windows/check.ps1 on Windows.

# The rules that build it live with what they build: lib/eventheader/mingw.mk (the
# library, its compat/ header, WIN_LDLIBS), lib/decode/mingw.mk, tools/mingw.mk,
# tests/mingw.mk and cases/mingw.mk each add their outputs to windows-build.
ifeq ($(VARIANT),mingw)

## windows-build: the mingw-w64 cross-build of the library, cases, unit tests and etwcapture.exe (build/mingw)
windows-build:
	@echo "windows-build: $(words $(WIN_CASES)) cases, $(words $(WIN_TESTS)) unit tests, etwcapture.exe and the libraries in $(B)"

else

windows-build:
	$(MAKE) VARIANT=mingw $@

endif

# For `make test`: the mingw cross-build when the cross compiler is installed (Debian
# package gcc-mingw-w64-x86-64, part of `make deps`), else one SKIP line, so a machine
# without it still runs every other check. Any variant may call it.
MINGW_CC ?= x86_64-w64-mingw32-gcc

## windows-build-if-mingw: windows-build when mingw-w64 is installed, else one SKIP line
windows-build-if-mingw:
	@if command -v $(MINGW_CC) >/dev/null 2>&1; then \
	  $(MAKE) VARIANT=mingw windows-build; \
	else \
	  echo "windows-build: SKIP: $(MINGW_CC) not installed (apt-get install gcc-mingw-w64-x86-64)"; \
	fi

# The Windows build under wine (harness/kernel/run_wine.py): the case runner's own tests, the
# TraceLogging unit tests, every case with its TraceLogging capture decoded by Linux's
# ehdecode and diffed against golden/ (transport "etw"), every case on the ETW backend,
# and etwcapture up to wine's missing ETW consumer. One SKIP line without mingw-w64.
# windows-smoke is its old name.
## check-wine: the Windows build's cases and unit tests under wine, captures diffed against golden/
## windows-smoke: the old name of check-wine
check-wine windows-smoke: windows-build-if-mingw
	$(MAKE) -j$(NPROC) VARIANT=gcc $(O)/gcc/bin/ehdecode
	@mkdir -p $(JUNIT_DIR)
	@rc=0; $(RUN) wine --build $(O)/gcc --mingw $(O)/mingw --results $(O)/results || rc=1; \
	$(call judge,wine,wine,$(O)/gcc) || rc=1; exit $$rc

.PHONY: windows-build windows-smoke windows-build-if-mingw check-wine
