# SPDX-License-Identifier: MIT
# libehdecode for Windows (`make VARIANT=mingw`): every source but the perf.data
# readers, as $(B)/lib/libehdecode-win.a (see lib/eventheader/mingw.mk).
ifeq ($(VARIANT),mingw)

WIN_EHD_SRCS := $(filter-out lib/decode/src/perf_%.c,$(wildcard lib/decode/src/*.c))
WIN_EHD_LIB := $(B)/lib/libehdecode-win.a

$(WIN_EHD_LIB): $(call objs,$(WIN_EHD_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && x86_64-w64-mingw32-ar rcs $@ $^

windows-build: $(WIN_EHD_LIB)

endif
