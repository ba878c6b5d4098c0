# SPDX-License-Identifier: MIT
# Unit tests for Windows (`make VARIANT=mingw`): the TraceLogging tests tests/tl/test_tl_*.c
# and the Windows-only tests/windows/test_*.c as .exe files, run under wine by
# harness/kernel/windows.mk (check-wine).
ifeq ($(VARIANT),mingw)

WIN_TEST_SRCS := $(wildcard tests/tl/test_tl_*.c tests/windows/test_*.c)
WIN_TESTS := $(patsubst tests/%.c,$(B)/tests/%.exe,$(WIN_TEST_SRCS))

$(B)/tests/tl/%.exe: $(B)/obj/tests/tl/%.o $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS)

$(B)/tests/windows/test_etw_record.exe: $(B)/obj/tests/windows/test_etw_record.o \
                                        $(B)/obj/tools/windows/etw_record.o \
                                        $(WIN_EHD_LIB) $(WIN_EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(WIN_LDLIBS) -ltdh

windows-build: $(WIN_TESTS)

endif
