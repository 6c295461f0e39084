#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print where checkpatch.pl and kernel-doc are cached for the guest kernel's source series.
# Machine-wide, so fresh clones of the project (CI) reuse it.
set -euo pipefail
kver=$("$(dirname "$0")/kver.sh")
echo "${QGPU_KSCRIPTS_DIR:-/var/cache/qgpu/kernel-scripts/$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")}"
