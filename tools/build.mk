# SPDX-License-Identifier: MIT
# Every tools/*.c is one program, linked against both libraries (archives: only
# what a program uses is pulled in).
INC.tools := $(EHD_INC)
# etwcapture and etw_record use the TraceLogging encoder (provider GUIDs, .tlcap records).
INC.tools/windows := $(EHD_INC) $(EH_INTERNAL_INC)
TOOL_SRCS := $(wildcard tools/*.c)
TOOLS := $(patsubst tools/%.c,$(B)/bin/%,$(TOOL_SRCS))
$(B)/bin/%: $(B)/obj/tools/%.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(TOOLS)

# The same folder for Windows (VARIANT=mingw only).
include tools/mingw.mk
