# SPDX-License-Identifier: MIT
# Unit tests: every tests/<area>/test_*.c is one KTAP program (tests/ktap.h),
# linked against both libraries; tests/<area>/support_*.c are shared helpers
# linked into every test of that area. harness/kernel/run_unit.py runs them all.
# tests/windows/ holds Windows-only tests (harness/kernel/windows.mk builds them with mingw-w64).
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

# The test-only MS-XCA compressors (tests/etl_compress/, never in the library): linked
# into the tests and fuzz targets of compressed .etl files, and etl_compress, the tool
# that writes their fuzz seeds (tests/etl_compress/README.md).
ETL_COMPRESS_OBJS := $(call objs,$(filter-out %_main.c,$(wildcard tests/etl_compress/*.c)))
$(B)/tests/decode/test_xca_vectors $(B)/tests/decode/test_etl_compressed: $(ETL_COMPRESS_OBJS)
ETL_COMPRESS_TOOL := $(B)/bin/etl_compress
$(ETL_COMPRESS_TOOL): $(B)/obj/tests/etl_compress/etl_compress_main.o $(ETL_COMPRESS_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(ETL_COMPRESS_TOOL)

# Benchmarks: tests/bench/bench_*.c, run by `make bench` (print figures only).
BENCH_SRCS := $(wildcard tests/bench/bench_*.c)
BENCHES := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRCS))
# The decoder benchmark writes its mixed file with tests/bench/support_mixed.c.
$(B)/bench/bench_decode: $(B)/obj/tests/bench/support_mixed.o
# bench_xca times the MS-XCA decompressors (internal interface) on data the test
# compressors make.
INC.tests/bench := $(INC.tests) $(EHD_INTERNAL_INC)
$(B)/bench/bench_xca: $(ETL_COMPRESS_OBJS)
$(B)/bench/%: $(B)/obj/tests/bench/%.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter-out %.o,$^) $(LDLIBS)
ALL_TARGETS += $(BENCHES)

## bench: run the benchmarks (they print figures and ratios; never pass or fail on timing)
bench: $(BENCHES) $(TOOLS)
	@for b in $(BENCHES); do echo "== $$b"; EHCONF_BUILD=$(B) $$b || exit 1; done

# Fuzz targets: every tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput and has its
# seed corpus in tests/fuzz/seeds-fuzz_<name>/.
#  - gcc, clang, asan: linked with tests/fuzz/replay_main.c as $(B)/tests/fuzz/test_fuzz_<name>,
#    part of `all` and of the unit run, which replays the seeds (under ASan/UBSan in make test).
#  - VARIANT=fuzz (top Makefile): libFuzzer builds, build/fuzz/bin/fuzz_<name> (make fuzz-build,
#    also run by make test); `make fuzz` runs each for FUZZ_SECONDS and prints a table.
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
# fuzz_xca* test the decompressors' internal interface (lib/decode/internal/ehd_xca.h);
# the round trip links the test compressors.
INC.tests/fuzz := $(INC.tests) $(EHD_INTERNAL_INC)
$(B)/tests/fuzz/test_fuzz_xca_roundtrip $(O)/fuzz/bin/fuzz_xca_roundtrip: $(ETL_COMPRESS_OBJS)
FUZZ_REPLAYERS := $(patsubst tests/fuzz/%.c,$(B)/tests/fuzz/test_%,$(FUZZ_SRCS))
$(B)/obj/tests/fuzz/replay_main.o: CFLAGS += -DFUZZ_SEEDS_ROOT='"$(CURDIR)/tests/fuzz"'
$(B)/tests/fuzz/test_%: $(B)/obj/tests/fuzz/%.o $(B)/obj/tests/fuzz/replay_main.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ifeq ($(filter fuzz mingw,$(VARIANT)),)
UNIT_TESTS += $(FUZZ_REPLAYERS)
ALL_TARGETS += $(FUZZ_REPLAYERS)
endif

FUZZ_SECONDS ?= 60
FUZZERS := $(patsubst tests/fuzz/%.c,$(O)/fuzz/bin/%,$(FUZZ_SRCS))
$(O)/fuzz/bin/fuzz_%: $(O)/fuzz/obj/tests/fuzz/fuzz_%.o $(EHD_LIB) $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

## fuzz-build: build the libFuzzer targets (clang, ASan/UBSan) into build/fuzz/bin
## fuzz: run each libFuzzer target for FUZZ_SECONDS (default 60) from its seeds; a table of execs and coverage
ifeq ($(VARIANT),fuzz)
fuzz-build: $(FUZZERS)
fuzz: $(FUZZERS)
	@mk/fuzz.sh $(FUZZ_SECONDS) $(O)/fuzz $(FUZZERS)
else
fuzz-build fuzz:
	$(MAKE) VARIANT=fuzz $@
endif

# The writers of the real perf captures in tests/data/perf/ (make-captures.sh there runs
# them in the guest). Built with everything so they keep compiling.
GEN_CAPTURES := $(B)/bin/gen_captures
$(GEN_CAPTURES): $(B)/obj/tests/data/perf/gen_captures.o $(EH_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(GEN_CAPTURES)

# The same folder for Windows (VARIANT=mingw only).
include tests/mingw.mk
