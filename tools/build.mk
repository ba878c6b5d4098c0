# SPDX-License-Identifier: MIT
# Every tools/*.c is one program, linked against both libraries (archives: only
# what a program uses is pulled in).
# ehdescribe reads events through the decoder's internal view (lib/decode/internal/ehd_view.h)
# and names field types from the generated table below.
INC.tools := $(EHD_INC) $(EHD_INTERNAL_INC) -I$(B)/gen
# etwcapture and etw_record use the TraceLogging encoder (provider GUIDs, .tlcap records).
INC.tools/windows := $(EHD_INC) $(EH_INTERNAL_INC)
TOOL_SRCS := $(wildcard tools/*.c)
TOOLS := $(patsubst tools/%.c,$(B)/bin/%,$(TOOL_SRCS))
$(B)/bin/%: $(B)/obj/tools/%.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(TOOLS)

# The field types of the case descriptions (descriptions/types.txt) as the C table eh_types[]
# of eh_types.h, for tools/ehdescribe.c and libdesc (emitlib/c): emitlib/c/types.awk, which
# the emitters built against a checkout run too (emitlib/c/build-lib).
EH_TYPES_H := $(B)/gen/eh_types.h
$(EH_TYPES_H): descriptions/types.txt emitlib/c/types.awk
	@mkdir -p $(@D)
	awk -f emitlib/c/types.awk $< > $@.tmp
	mv $@.tmp $@
$(B)/obj/tools/ehdescribe.o: $(EH_TYPES_H)

# The same folder for Windows (VARIANT=mingw only).
include tools/mingw.mk
