# SPDX-License-Identifier: MIT
# libeventheader: every lib/eventheader/src/*.c into one static library.
# The public headers (include/) are all any user of the library needs; internal/ holds
# the interfaces ehconf's own tests and tools use besides (never installed). The library
# itself sees nothing else: not lib/decode (check-layering proves it).
EH_INC := -Ilib/eventheader/include
EH_INTERNAL_INC := -Ilib/eventheader/internal
INC.lib/eventheader := $(EH_INC) $(EH_INTERNAL_INC)
EH_LIB_SRCS := $(wildcard lib/eventheader/src/*.c)
EH_LIB := $(B)/lib/libeventheader.a
$(EH_LIB): $(call objs,$(EH_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
ALL_TARGETS += $(EH_LIB)

# The layering, checked in every gcc/clang build (so by `make test`): each library
# source compiles with only the library's own include path and reads no header outside
# the library's folder (lib/check-layering.sh). `make check-layering` runs it alone.
EH_LAYERING := $(B)/layering/eventheader.ok
$(EH_LAYERING): $(EH_LIB_SRCS) $(wildcard lib/eventheader/*/*.h) lib/check-layering.sh
	@mkdir -p $(@D)
	@echo "check-layering: $(@F)"
	@lib/check-layering.sh "$(CC) $(CSTD) $(INC.lib/eventheader)" lib/eventheader/ -- $(EH_LIB_SRCS)
	@touch $@
ALL_TARGETS += $(EH_LAYERING)
## check-layering: compile each library source with only its own include path (lib/check-layering.sh)
check-layering: $(EH_LAYERING)
.PHONY: check-layering

# The same folder for Windows (VARIANT=mingw only).
include lib/eventheader/mingw.mk
