# SPDX-License-Identifier: MIT
# emitlib/c/: libdesc, the one C parser of the case descriptions (desc.h): its objects
# $(DESC_OBJS) for the programs make builds that link it (impl/ehconf/build.mk), and its
# conformance test tests/desc/test_desc_format (KTAP, a unit test: the snippets of
# tests/desc-format/). The emitters built against a checkout compile the same sources with
# emitlib/c/build-lib. Not for mingw: nothing there reads descriptions.
ifneq ($(VARIANT),mingw)

INC.emitlib/c := $(EH_INC) -I$(B)/gen
DESC_OBJS := $(call objs,$(wildcard emitlib/c/*.c))
# The field-type table (tools/build.mk makes it from descriptions/types.txt).
$(B)/obj/emitlib/c/desc_value.o: $(EH_TYPES_H)

INC.tests/desc := $(INC.tests) -Iemitlib/c
$(B)/tests/desc/test_desc_format: $(DESC_OBJS)
$(B)/obj/tests/desc/test_desc_format.o: CFLAGS += -DDESC_FORMAT_ROOT='"$(CURDIR)/tests/desc-format"'

endif
