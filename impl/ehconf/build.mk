# SPDX-License-Identifier: MIT
# impl/ehconf/: the reference emitter of the case descriptions (impl/events/*.events,
# Documentation/case-descriptions.md) through ehconf's own libeventheader, dynamic builder:
# $(B)/impl/ehconf/emit. tests/harness/test_descriptions.py proves that it reproduces
# golden/*.json from the descriptions; harness/run_impl.py runs it as implementation
# "ehconf". Not for mingw: it forks.
ifneq ($(VARIANT),mingw)

INC.impl/ehconf := $(EH_INC) -I$(B)/gen
EMIT_SRCS := $(wildcard impl/ehconf/*.c)
EMIT := $(B)/impl/ehconf/emit
# The field-type table (tools/build.mk makes it from impl/events/types.txt).
$(B)/obj/impl/ehconf/desc_value.o: $(EH_TYPES_H)
$(EMIT): $(call objs,$(EMIT_SRCS)) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(EMIT)

endif
