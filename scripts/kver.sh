#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the version of the guest kernel the modules are built for and tested on: the one Debian's
# linux-image-amd64 metapackage depends on. Derived, never hard-coded, so a kernel upgrade just works.
# QGPU_KVER overrides it (to build against another installed kernel).
set -euo pipefail
if [ -n "${QGPU_KVER:-}" ]; then
	echo "$QGPU_KVER"
	exit 0
fi
dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null) || {
	echo "kver.sh: linux-image-amd64 is not installed (run 'make deps')" >&2
	exit 1
}
# Depends looks like "linux-image-6.1.0-56-amd64 (= 6.1.192-2)".
kver=$(sed -n 's/^linux-image-\([^ ,]*\).*/\1/p' <<<"$dep")
if [ -z "$kver" ] || [ ! -e "/boot/vmlinuz-$kver" ]; then
	echo "kver.sh: cannot derive the kernel version from '$dep'" >&2
	exit 1
fi
echo "$kver"
