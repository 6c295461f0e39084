# SPDX-License-Identifier: GPL-2.0
# qgpu. The README's two commands: `make demo` and `make test`. Both install what is missing first.
#
#   make deps    install Debian packages (only missing ones), kernel lint scripts, and .venv/
#   make build   qgpu.ko and nvsim.ko (W=1 -Werror) and the user-space programs in build/bin/
#   make lint    checkpatch, sparse, kernel-doc, ruff, mypy
#   make test    lint + host tests + one guest boot running the guest suite; ends "N passed, N failed"
#   make demo    boot the test VM and show qgpu sharing the simulated GPU
#   make bench   benchmarks, JSON results in build/bench/
SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
# Recursive on purpose: the kernel version is derived only once `make deps` has installed it.
KVER = $(shell scripts/kver.sh)
KDIR = /lib/modules/$(KVER)/build
KBUILD_FLAGS := W=1 KCFLAGS=-Werror
# Module trees built with Kbuild: qgpu (the DKMS package), nvsim, and the harness's crash-test module.
KMOD_DIRS := kmod kmod/nvsim tests/harness/crashmod tests/harness/kclient

.PHONY: all help deps build modules userspace lint test demo bench clean

all: build

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/deps.sh

build: modules userspace

modules: deps
	@set -e; for d in $(KMOD_DIRS); do \
		$(MAKE) -s -C $(KDIR) M=$(TOP)/$$d $(KBUILD_FLAGS) modules 2>&1 | \
			{ grep -v '^Skipping BTF generation' || true; }; \
		test "$${PIPESTATUS[0]}" -eq 0; \
	done

userspace: deps
	@$(MAKE) -s -C tests/unit/c BUILD=$(BUILD)
	@$(MAKE) -s -C kmod/nvsim/load BUILD=$(BUILD)

lint: build
	@scripts/lint.sh

test: build
	@scripts/test.sh

demo: build
	@scripts/demo.sh

bench: build
	@scripts/bench.sh

clean:
	@for d in $(KMOD_DIRS); do \
		[ -d "$(KDIR)" ] && $(MAKE) -s -C $(KDIR) M=$(TOP)/$$d clean || true; \
	done
	rm -rf $(BUILD)
