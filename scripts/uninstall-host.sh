#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Remove what scripts/install-host.sh installed (run as root). Refuses while qgpu is loaded, since
# unloading it under running containers is the operator's decision: `rmmod qgpu` first.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "uninstall-host.sh: run as root" >&2; exit 1; }
if [ -d /sys/module/qgpu ]; then
	echo "uninstall-host.sh: qgpu is loaded; unload it first (rmmod qgpu)" >&2
	exit 1
fi
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/kmod/dkms.conf")
if dkms status -m qgpu -v "$version" | grep -q .; then
	dkms remove -m qgpu -v "$version" --all
fi
rm -rf "/usr/src/qgpu-$version"
rm -f /etc/udev/rules.d/70-qgpu.rules /usr/local/bin/qgpuctl
rm -rf /opt/qgpu
command -v udevadm >/dev/null && udevadm control --reload
echo "uninstall-host.sh: done"
