# SPDX-License-Identifier: MIT
# libehdecode: every lib/decode/src/*.c into one static library.
# The decoder's public headers, and libeventheader's public ones for the wire formats
# (eventheader_wire.h, tracelogging_wire.h); never the writer's sources or internals.
EHD_INC := -Ilib/decode/include $(EH_INC)
# internal/: what the decoder shares with ehconf's own tests (never installed).
EHD_INTERNAL_INC := -Ilib/decode/internal
INC.lib/decode := $(EHD_INC) $(EHD_INTERNAL_INC)
EHD_LIB_SRCS := $(wildcard lib/decode/src/*.c)
EHD_LIB := $(B)/lib/libehdecode.a
$(EHD_LIB): $(call objs,$(EHD_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
ALL_TARGETS += $(EHD_LIB)

# The decoder reads its own folder and libeventheader's public (wire) headers only
# (see lib/eventheader/build.mk).
EHD_LAYERING := $(B)/layering/decode.ok
$(EHD_LAYERING): $(EHD_LIB_SRCS) $(wildcard lib/decode/*/*.h lib/eventheader/include/*.h) \
                 lib/check-layering.sh
	@mkdir -p $(@D)
	@echo "check-layering: $(@F)"
	@lib/check-layering.sh "$(CC) $(CSTD) $(INC.lib/decode)" lib/decode/ lib/eventheader/include/ \
	  -- $(EHD_LIB_SRCS)
	@touch $@
ALL_TARGETS += $(EHD_LAYERING)
check-layering: $(EHD_LAYERING)

# The same folder for Windows (VARIANT=mingw only).
include lib/decode/mingw.mk
