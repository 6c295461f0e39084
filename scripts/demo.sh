#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot the test VM with nvsim (the simulated GPU) and qgpu loaded and show what they set up.
# It grows with the project into the full demonstration (instances, limits holding, achieved shares).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
exec "$top/scripts/vm.sh" --nvsim-args "num_gpus=2" -- bash scripts/demo-guest.sh
