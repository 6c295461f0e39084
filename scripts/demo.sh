#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot the test VM with nvsim (the simulated GPU, 2 of them) and qgpu loaded and run
# scripts/demo-guest.sh: instances from policies/demo.yaml with qgpuctl, nvsim-load workloads through
# them, memory limits and achieved shares (table; plot in build/demo/shares.png).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/vm.sh" --nvsim-args "num_gpus=2" -- bash scripts/demo-guest.sh
echo "demo: plot in $top/build/demo/shares.png, numbers in $top/build/demo/shares.json"
