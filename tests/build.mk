# SPDX-License-Identifier: MIT
# Unit tests: every tests/<area>/test_*.c is one KTAP program (tests/ktap.h),
# linked against both libraries; tests/<area>/support_*.c are shared helpers
# linked into every test of that area. harness/test_unit.py runs them all.
# tests/windows/ holds Windows-only tests (harness/windows.mk builds them with mingw-w64).
INC.tests := $(EHD_INC) -Itests
# The TraceLogging tests test the encoder's internal interface too.
INC.tests/tl := $(INC.tests) $(EH_INTERNAL_INC)
# test_float_shortest tests the decoder's float formatter parts (ehd_float.h).
INC.tests/decode := $(INC.tests) $(EHD_INTERNAL_INC)
UNIT_TEST_SRCS := $(filter-out tests/windows/%,$(wildcard tests/*/test_*.c))
UNIT_TESTS += $(patsubst tests/%.c,$(B)/tests/%,$(UNIT_TEST_SRCS))
support_of = $(call objs,$(wildcard tests/$(1)/support_*.c))
.SECONDEXPANSION:
$(B)/tests/%: $(B)/obj/tests/%.o $$(call support_of,$$(firstword $$(subst /, ,$$*))) $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Benchmarks: tests/bench/bench_*.c, run by `make bench` (print figures only).
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCHES := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRCS))
$(B)/bench/%: $(B)/obj/tests/bench/%.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(BENCHES)

bench: $(BENCHES) $(TOOLS)
	@for b in $(BENCHES); do echo "== $$b"; EHCONF_BUILD=$(B) $$b || exit 1; done

# Fuzz targets: tests/fuzz/fuzz_*.c with libFuzzer (clang), built apart from the
# variants because -fsanitize=fuzzer supplies main().
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(O)/fuzz
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_CFLAGS := $(CSTD) $(WARNINGS) -g -O1 $(INC.tests) $(EH_INTERNAL_INC) $(EHD_INTERNAL_INC) -fsanitize=fuzzer,address,undefined
FUZZERS := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(FUZZ_SRCS))
$(FUZZ_DIR)/%: tests/fuzz/%.c $(EHD_LIB_SRCS) $(EH_LIB_SRCS)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $< $(EHD_LIB_SRCS) $(EH_LIB_SRCS) -lpthread -lm
fuzz: $(FUZZERS)
	@for f in $(FUZZERS); do n=$$(basename $$f); corpus=$(FUZZ_DIR)/corpus-$$n; mkdir -p $$corpus; \
	  [ -d tests/fuzz/seeds-$$n ] && cp -n tests/fuzz/seeds-$$n/* $$corpus/ 2>/dev/null; \
	  echo "== $$n for $(FUZZ_SECONDS)s"; $$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$corpus || exit 1; done

# The writers of the real perf captures in tests/data/perf/ (make-captures.sh there runs
# them in the guest). Built with everything so they keep compiling.
GEN_CAPTURES := $(B)/bin/gen_captures
$(GEN_CAPTURES): $(B)/obj/tests/data/perf/gen_captures.o $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(GEN_CAPTURES)

# The same folder for Windows (VARIANT=mingw only).
include tests/mingw.mk
