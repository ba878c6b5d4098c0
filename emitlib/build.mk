# SPDX-License-Identifier: MIT
# emitlib/: what the emitters share. Here: libdesc, the one C parser of the case
# descriptions (emitlib/c/desc.h), as $(DESC_OBJS) for the programs make builds that link
# it (impl/ehconf/build.mk); and the conformance tests that hold libdesc and the Rust parser
# (emitlib/rust/desc.rs) to the snippets of tests/desc-format/, both unit tests (KTAP):
#   $(B)/tests/desc/test_desc_format        tests/desc/test_desc_format.c over libdesc
#   $(B)/tests/desc/test_desc_order         which values' bytes follow the machine's order
#   $(B)/tests/desc/test_desc_format_rust   tests/desc/desc_format.rs, built with rustc alone
#                                           (DESC_RUSTC; without it, one skip saying so)
#   $(B)/tests/desc/test_desc_order_rust    tests/desc/desc_order.rs: the Rust emitters'
#                                           byte-order rule (emitlib/rust/desc_order.rs), alike
# The emitters built against a checkout compile libdesc with emitlib/c/build-lib. Not for
# mingw: nothing there reads descriptions.
ifneq ($(VARIANT),mingw)

INC.emitlib/c := $(EH_INC) -I$(B)/gen
DESC_OBJS := $(call objs,$(wildcard emitlib/c/*.c))
# The field-type table (tools/build.mk makes it from descriptions/types.txt).
$(B)/obj/emitlib/c/desc_value.o: $(EH_TYPES_H)

INC.tests/desc := $(INC.tests) -Iemitlib/c
$(B)/tests/desc/test_desc_format: $(DESC_OBJS)
$(B)/tests/desc/test_desc_order: $(DESC_OBJS)
$(B)/obj/tests/desc/test_desc_format.o: CFLAGS += -DDESC_FORMAT_ROOT='"$(CURDIR)/tests/desc-format"'

# Debian's rustc-web (make deps), as the Rust emitters' builds use.
DESC_RUSTC ?= /usr/bin/rustc
DESC_RUST_TEST := $(B)/tests/desc/test_desc_format_rust
$(DESC_RUST_TEST): tests/desc/desc_format.rs emitlib/rust/desc.rs emitlib/rust/desc_print.rs descriptions/types.txt
	@mkdir -p $(@D)
	@if [ -x $(DESC_RUSTC) ]; then \
	  echo "$(DESC_RUSTC) --edition 2021 -O -o $@ $<"; \
	  MAKEFLAGS= DESC_FORMAT_ROOT=$(CURDIR)/tests/desc-format EHCONF_TYPES_TXT=$(CURDIR)/descriptions/types.txt \
	    $(DESC_RUSTC) --edition 2021 -O -o $@ $<; \
	else \
	  echo "$(DESC_RUSTC) is not installed: $@ only says so"; \
	  printf '#!/bin/sh\nprintf "KTAP version 1\\n1..1\\nok 1 rust_parser # SKIP %s is not installed (make deps: rustc-web)\\n"\n' \
	    '$(DESC_RUSTC)' > $@ && chmod +x $@; \
	fi
UNIT_TESTS += $(DESC_RUST_TEST)

DESC_ORDER_RUST_TEST := $(B)/tests/desc/test_desc_order_rust
$(DESC_ORDER_RUST_TEST): tests/desc/desc_order.rs emitlib/rust/desc.rs emitlib/rust/desc_order.rs descriptions/types.txt
	@mkdir -p $(@D)
	@if [ -x $(DESC_RUSTC) ]; then \
	  echo "$(DESC_RUSTC) --edition 2021 -O -o $@ $<"; \
	  MAKEFLAGS= EHCONF_TYPES_TXT=$(CURDIR)/descriptions/types.txt $(DESC_RUSTC) --edition 2021 -O -o $@ $<; \
	else \
	  echo "$(DESC_RUSTC) is not installed: $@ only says so"; \
	  printf '#!/bin/sh\nprintf "KTAP version 1\\n1..1\\nok 1 rust_order # SKIP %s is not installed (make deps: rustc-web)\\n"\n' \
	    '$(DESC_RUSTC)' > $@ && chmod +x $@; \
	fi
UNIT_TESTS += $(DESC_ORDER_RUST_TEST)

endif
