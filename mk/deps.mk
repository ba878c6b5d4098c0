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
	unicode-data

## deps: install the Debian packages the project needs (as root; idempotent)
deps:
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(DEB_PACKAGES) 2>/dev/null | awk '$$NF != "installed" {print $$1}'; \
	  for p in $(DEB_PACKAGES); do dpkg-query -W $$p >/dev/null 2>&1 || echo $$p; done | sort -u); \
	if [ -z "$$missing" ]; then echo "deps: all $(words $(DEB_PACKAGES)) packages present"; \
	else echo "deps: installing$$(echo $$missing | tr '\n' ' ')"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; fi
