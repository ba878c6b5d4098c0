# SPDX-License-Identifier: MIT
# impl/ehconf/: the reference emitter of the case descriptions (descriptions/*.events,
# Documentation/case-descriptions.md) through ehconf's own libeventheader, dynamic builder:
# $(B)/impl/ehconf/emit. tests/harness/test_descriptions.py proves that it reproduces
# golden/*.json from the descriptions; harness/impl/run_impl.py runs it as implementation
# "ehconf". Not for mingw: it forks.
ifneq ($(VARIANT),mingw)

# The description parser is libdesc (emitlib/c/build.mk), which the other C and C++
# emitters link too.
INC.impl/ehconf := $(EH_INC) -Iemitlib/c
EMIT := $(B)/impl/ehconf/emit
$(EMIT): $(call objs,$(wildcard impl/ehconf/*.c)) $(DESC_OBJS) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(EMIT)

endif
