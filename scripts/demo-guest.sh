#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make demo` (runs inside the test VM).
set -euo pipefail
section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

section "kernel"
uname -r
section "modules loaded"
grep -E '^(nvsim|qgpu) ' /proc/modules | awk '{ print $1, "(" $2 " bytes)" }'
section "the simulated NVIDIA driver's device nodes (nvsim)"
ls -l /dev/nvidiactl /dev/nvidia[0-9]* /dev/nvidia-uvm
section "a libcuda-style client on the simulated GPU (build/bin/nvsim-load info)"
build/bin/nvsim-load info
section "framebuffer allocations: 4 x 6 GiB on a 16 GiB GPU (the 3rd is refused: NV_ERR_NO_MEMORY)"
build/bin/nvsim-load alloc 6G --count 4 || echo "(nvsim-load exit $?: an allocation was refused, as expected)"
section "qgpu (/proc/qgpu/status)"
cat /proc/qgpu/status
section "the operator's tool"
.venv/bin/qgpuctl --version
.venv/bin/qgpuctl doctor || true
