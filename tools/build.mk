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
# of eh_types.h, for tools/ehdescribe.c and impl/ehconf/emit. The encoding and format names
# are eventheader_wire.h's constants in lower case, so the compiler checks every name; unit
# "ptr" is the pointer size.
EH_TYPES_H := $(B)/gen/eh_types.h
$(EH_TYPES_H): descriptions/types.txt
	@mkdir -p $(@D)
	awk 'BEGIN { print "/* Made from descriptions/types.txt by tools/build.mk. */"; \
	    print "static const struct eh_type_row { const char *name; unsigned char encoding, format; unsigned unit; } eh_types[] = {" } \
	  /^#/ || !NF { next } \
	  NF != 4 { print FILENAME ":" FNR ": expected: name encoding format unit" > "/dev/stderr"; exit 1 } \
	  { printf "    {\"%s\", EH_ENC_%s, EH_FMT_%s, %s},\n", $$1, toupper($$2), toupper($$3), $$4 == "ptr" ? "sizeof(void *)" : $$4 } \
	  END { print "};" }' $< > $@.tmp
	mv $@.tmp $@
$(B)/obj/tools/ehdescribe.o: $(EH_TYPES_H)

# The same folder for Windows (VARIANT=mingw only).
include tools/mingw.mk
