# SPDX-License-Identifier: MIT
# libehdecode: every lib/decode/src/*.c into one static library.
EHD_LIB_SRCS := $(wildcard lib/decode/src/*.c)
EHD_LIB := $(B)/lib/libehdecode.a
$(EHD_LIB): $(call objs,$(EHD_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
ALL_TARGETS += $(EHD_LIB)
