#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Remove what scripts/install-host.sh installed (run as root). Refuses while qgpu is loaded, since
# unloading it under running containers is the operator's decision: `rmmod qgpu` first.
# /etc/qgpu/policy.yaml is the operator's and stays; the examples, the unit and the CDI spec go.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "uninstall-host.sh: run as root" >&2; exit 1; }
if [ -d /sys/module/qgpu ]; then
	echo "uninstall-host.sh: qgpu is loaded; unload it first (rmmod qgpu)" >&2
	exit 1
fi
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
	systemctl disable qgpu-apply.service 2>/dev/null || true
fi
rm -f /etc/systemd/system/qgpu-apply.service
command -v systemctl >/dev/null && [ -d /run/systemd/system ] && systemctl daemon-reload
rm -rf /etc/qgpu/examples
rmdir /etc/qgpu 2>/dev/null || true
rm -f /etc/cdi/qgpu.yaml /etc/cdi/qgpu.json /var/run/cdi/qgpu.yaml /var/run/cdi/qgpu.json
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/kmod/dkms.conf")
if dkms status -m qgpu -v "$version" | grep -q .; then
	dkms remove -m qgpu -v "$version" --all
fi
rm -rf "/usr/src/qgpu-$version"
rm -f /etc/udev/rules.d/70-qgpu.rules /usr/local/bin/qgpuctl
rm -rf /opt/qgpu
command -v udevadm >/dev/null && udevadm control --reload
echo "uninstall-host.sh: done"
