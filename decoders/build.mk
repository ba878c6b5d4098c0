# SPDX-License-Identifier: MIT
# decoders/: the decoders under test (decoders/README.md, Documentation/decoders.md).
#
# make check-decoders: every capture ehconf has (the VM run's perf.data of make check, the
# offline captures as perf.data in file and pipe mode, tests/data/perf) and a damaged set
# made from them and from the fuzz corpora, through each decoder of decoders/decoders.txt
# built with ASan/UBSan where it can be, compared with ehdecode's JSON (harness/
# decoders/run_decoders.py). One JUnit file per decoder, decoders.md side by side.
#   make check-decoders IMPL_SRC_LTTP=... IMPL_SRC_RUST=...   (the registry's checkout column)
#   make check-decoders DECODER=perf-decode IMPL_SRC_LTTP=...
# Without a checkout a decoder is one skip naming the variable to pass. make check runs
# first: without its captures there is one failed item naming the command.
DECODER ?= all
DECODER_REPORT ?= decoders.md
DECODER_NAMES := $(shell awk '!/^\#/ && NF { print $$1 }' decoders/decoders.txt)

## check-decoders: every capture and damaged copies through each decoder of decoders/decoders.txt against ehdecode: decoders.md (IMPL_SRC_LTTP=, IMPL_SRC_RUST=, DECODER=name)
check-decoders: all
	@$(MAKE) --no-print-directory VARIANT=asan $(O)/asan/bin/ehdecode
	@mkdir -p $(JUNIT_DIR)
	@rc=0; names="$(if $(filter all,$(DECODER)),$(DECODER_NAMES),$(DECODER))"; \
	$(IMPL_CHECKOUTS) nice -n 19 /usr/bin/python3 harness/decoders/run_decoders.py --build $(B) \
	  --asan-build $(O)/asan --results $(O)/results $$(printf -- '--decoder %s ' $$names) || rc=1; \
	for n in $$names; do \
	  $(PYTEST) -q harness/core/judge_items.py --ehconf-impl $$n --ehconf-results $(O)/results \
	    --ehconf-runner decoder --junitxml=$(JUNIT_DIR)/decoder-$$n.xml || rc=1; \
	done; \
	/usr/bin/python3 harness/reports/decoders_md.py $(JUNIT_DIR)/decoder $(DECODER_REPORT) || rc=1; \
	/usr/bin/python3 harness/reports/summary.py $$(printf -- '$(JUNIT_DIR)/decoder-%s.xml ' $$names) || rc=1; \
	exit $$rc

# make test-decoder-mutants: the planted faults of scripts/decoder-mutants.txt, one per
# check, each in a copy of the decoder's source, must fail the item it names
# (scripts/decoder-mutants.py; a control run first). About 5 minutes from a cold cache
# (one ASan build per mutant), less once the copies are built.
## test-decoder-mutants: each planted fault in a decoder must fail the item of check-decoders it names (IMPL_SRC_LTTP=, IMPL_SRC_RUST=, MUTANTS=a,b)
test-decoder-mutants: all
	@$(MAKE) --no-print-directory VARIANT=asan $(O)/asan/bin/ehdecode
	$(IMPL_CHECKOUTS) /usr/bin/python3 scripts/decoder-mutants.py --build $(B) $(if $(MUTANTS),--only $(MUTANTS))

# A new decoder from emitlib/templates/decoder/ (scripts/new-decoder.sh): its folder and its
# row, passing make check-decoders before the first edit (Documentation/adding.md).
## new-decoder: a new decoder under test from the template: its folder decoders/<NAME>/ and its row (NAME=x)
new-decoder:
	@scripts/new-decoder.sh '$(NAME)'

.PHONY: check-decoders test-decoder-mutants new-decoder
