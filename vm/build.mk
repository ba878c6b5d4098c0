# SPDX-License-Identifier: GPL-2.0
# vm/ make targets (included by the top-level Makefile).
#   make kernel          build or reuse the guest kernel + user_events selftests
#                        (KERNEL_SRC=<tree> or KERNEL=<bzImage> as for vm/build-kernel)
#   make initramfs       build or reuse the busybox initramfs
#   make vm-smoke        boot the guest, check user_events/perf/python3, run the
#                        kernel's user_events selftests (results: $(O)/vm-smoke)
#   make vm-smoke-nouser boot a Debian kernel (no CONFIG_USER_EVENTS) and check
#                        that vm/run reports it (results: $(O)/vm-smoke-nouser)
VM_SMOKE_DIR ?= $(O)/vm-smoke
VM_NOUSER_DIR ?= $(O)/vm-smoke-nouser

## kernel: build or reuse the cached guest kernel and its user_events selftests (KERNEL_SRC=tree)
kernel:
	vm/build-kernel

# A cold build in a new temporary cache with ccache off, every compiler call timed:
# wall time per stage and compiler time per top-level folder (Documentation/kernels.md).
## kernel-profile: a cold guest-kernel build, timed per stage and per top-level folder (about 9 minutes)
kernel-profile:
	vm/profile-kernel-build

## initramfs: build or reuse the busybox initramfs of the guest
initramfs:
	vm/initramfs

## vm-smoke: boot the guest, check user_events, perf and python3, run the kernel's selftests
vm-smoke:
	vm/smoke $(VM_SMOKE_DIR)

# Expect a clean boot, the command to run, and "user_events": false in vm.json.
## vm-smoke-nouser: boot a Debian kernel without user_events and check that vm/run reports it
vm-smoke-nouser:
	@k=$$(vm/fetch-debian-kernel) && \
	vm/run --kernel "$$k" --timeout 300 --results $(VM_NOUSER_DIR) -- \
	  sh -c 'test ! -e /sys/kernel/tracing/user_events_data && echo "kernel $$(uname -r): no user_events_data, as expected"' && \
	grep -q '"user_events": false' $(VM_NOUSER_DIR)/vm.json && echo "vm-smoke-nouser: PASS"

.PHONY: kernel kernel-profile initramfs vm-smoke vm-smoke-nouser
