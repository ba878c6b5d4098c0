# SPDX-License-Identifier: MIT
# libeventheader: every lib/eventheader/src/*.c into one static library.
EH_LIB_SRCS := $(wildcard lib/eventheader/src/*.c)
EH_LIB := $(B)/lib/libeventheader.a
$(EH_LIB): $(call objs,$(EH_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
ALL_TARGETS += $(EH_LIB)
