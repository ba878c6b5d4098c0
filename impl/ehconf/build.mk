# SPDX-License-Identifier: MIT
# impl/ehconf/: the reference emitter of the case descriptions (descriptions/*.events,
# Documentation/case-descriptions.md) through ehconf's own libeventheader, dynamic builder:
# $(B)/impl/ehconf/emit. tests/harness/test_descriptions.py proves that it reproduces
# golden/*.json from the descriptions; harness/run_impl.py runs it as implementation
# "ehconf". Not for mingw: it forks.
ifneq ($(VARIANT),mingw)

# The description parser is emitlib/c's, which the other C and C++ emitters share.
INC.impl/ehconf := $(EH_INC) -I$(B)/gen -Iemitlib/c
INC.emitlib/c := $(EH_INC) -I$(B)/gen
EMIT_SRCS := $(wildcard impl/ehconf/*.c) $(wildcard emitlib/c/*.c)
EMIT := $(B)/impl/ehconf/emit
# The field-type table (tools/build.mk makes it from descriptions/types.txt).
$(B)/obj/emitlib/c/desc_value.o: $(EH_TYPES_H)
$(EMIT): $(call objs,$(EMIT_SRCS)) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(EMIT)

endif
