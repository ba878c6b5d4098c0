# SPDX-License-Identifier: GPL-2.0
# make bench-impls: what an event costs in each implementation of impl/implementations.txt,
# side by side (harness/impl/bench.py; the workloads: tests/bench/impls/workloads.txt;
# Documentation/performance.md). Each emitter's `emit --bench COUNT FILE.events` under the
# stand-in in count mode (EHCONF_STANDIN_COUNT: checked, counted, not stored), next to
# $(REPLAY_WRITEV), a raw writev() of the same bytes, in the same run; then each under
# callgrind for instructions per event. Figures and ratios only, never pass or fail on time:
# the exit status is 1 only when nothing could be measured. Results:
# $(O)/results/bench-impls/bench-impls.json (impls.md's cost column reads it) and
# bench-impls.md. The emitters built against a checkout are built into
# $(O)/results/bench-impls/build/<name>/ (IMPL_SRC_LTTP=, IMPL_SRC_RUST=, as check-impl).
# BENCH_IMPLS=a,b limits the implementations; BENCH_IMPLS_ROUNDS the timed rounds (5);
# BENCH_IMPLS_CALLGRIND=0 leaves callgrind out.
ifneq ($(VARIANT),mingw)

REPLAY_WRITEV := $(B)/bench/replay_writev
$(REPLAY_WRITEV): $(B)/obj/harness/impl/replay_writev.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(REPLAY_WRITEV)

BENCH_IMPLS ?= all
BENCH_IMPLS_ROUNDS ?= 5
BENCH_IMPLS_CALLGRIND ?= 1
## bench-impls: ns and instructions per event in every implementation that builds, next to a raw writev of the same bytes (IMPL_SRC_LTTP=, IMPL_SRC_RUST=; figures only)
bench-impls: all
	$(IMPL_CHECKOUTS) /usr/bin/python3 harness/impl/bench.py --build $(B) \
	  --results $(O)/results/bench-impls --impls $(BENCH_IMPLS) \
	  --rounds $(BENCH_IMPLS_ROUNDS) --callgrind $(BENCH_IMPLS_CALLGRIND)

.PHONY: bench-impls
endif

# make bench-decoders: the decoders of decoders/decoders.txt side by side on make bench's
# mixed file (1,500,000 events; bench_decode --write-mixed): events per second, CPU time and
# peak memory, each against ehdecode with one job in the same run (harness/decoders/bench.py;
# IMPL_SRC_LTTP=, IMPL_SRC_RUST= for perf-decode and the Rust decoder). Figures only.
ifneq ($(VARIANT),mingw)
RUN_MEASURED := $(B)/bench/run_measured
$(RUN_MEASURED): $(B)/obj/harness/impl/run_measured.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_TARGETS += $(RUN_MEASURED)

## bench-decoders: every registered decoder on the same 1.5-million-event perf.data: events/s and peak RSS next to ehdecode (IMPL_SRC_LTTP=, IMPL_SRC_RUST=; figures only)
bench-decoders: all
	$(IMPL_CHECKOUTS) /usr/bin/python3 harness/decoders/bench.py --build $(B) \
	  --results $(O)/results/bench-decoders

.PHONY: bench-decoders
endif

# make bench-impls-vm: the timed half of make bench-impls on the real kernel in QEMU
# (harness/impl/guest_bench.py in the guest, perf recording the tracepoints), for the
# emitters of the last make bench-impls (its bench-impls.json). Under TCG the figures are
# an emulated CPU's: coarse. Boots a VM: run it under the machine's VM lock where several
# people share it (flock /tmp/ehconf-vm.lock make bench-impls-vm).
ifneq ($(VARIANT),mingw)
## bench-impls-vm: make bench-impls' ns per event on the real kernel in QEMU (coarse under TCG), for the emitters of the last bench-impls run
bench-impls-vm: all
	@mkdir -p $(O)/results/bench-impls/vm
	vm/run --timeout 1200 --results $(abspath $(O)/results/bench-impls/vm) -- \
	  /usr/bin/python3 harness/impl/guest_bench.py --build $(B) \
	  --doc $(abspath $(O)/results/bench-impls/bench-impls.json) \
	  --results $(abspath $(O)/results/bench-impls/vm)

.PHONY: bench-impls-vm
endif
