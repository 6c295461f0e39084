#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install qgpu on a real GPU host (run as root from a checkout):
#   1. qgpu.ko through DKMS (/usr/src/qgpu-<version>), rebuilt by DKMS on kernel upgrades;
#   2. the udev rules (udev/70-qgpu.rules) to /etc/udev/rules.d, and reload udev;
#   3. qgpuctl into its own virtualenv (/opt/qgpu/venv) with /usr/local/bin/qgpuctl pointing at it;
#   4. the systemd unit qgpu-apply.service (scripts/qgpu-apply.service), which at boot loads the module, runs
#      `qgpuctl apply -f /etc/qgpu/policy.yaml` and writes the CDI spec; enabled, not started. /etc/qgpu/ gets
#      the example policies; an existing /etc/qgpu/policy.yaml is never overwritten.
# It does not load the module: `modprobe qgpu` when you are ready. nvsim (the simulator) is never installed.
# Undo with scripts/uninstall-host.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ "$(id -u)" -eq 0 ] || { echo "install-host.sh: run as root" >&2; exit 1; }
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' kmod/dkms.conf)
src=/usr/src/qgpu-$version

echo "install-host.sh: installing the qgpu $version DKMS package to $src"
rm -rf "$src"
mkdir -p "$src"
# The module sources only: no build output, no simulator.
git ls-files kmod | grep -v '^kmod/nvsim/' | while read -r f; do
	install -D -m 0644 "$f" "$src/${f#kmod/}"
done
dkms status -m qgpu -v "$version" | grep -q . || dkms add -m qgpu -v "$version"
dkms install -m qgpu -v "$version"

echo "install-host.sh: installing udev rules"
install -m 0644 udev/70-qgpu.rules /etc/udev/rules.d/70-qgpu.rules
if command -v udevadm >/dev/null; then
	udevadm control --reload
fi

echo "install-host.sh: installing qgpuctl to /opt/qgpu/venv"
python3 -m venv /opt/qgpu/venv
/opt/qgpu/venv/bin/pip install -q "$top"
ln -sf /opt/qgpu/venv/bin/qgpuctl /usr/local/bin/qgpuctl

echo "install-host.sh: installing the boot unit qgpu-apply.service and /etc/qgpu/"
install -d -m 0755 /etc/qgpu/examples
install -m 0644 policies/*.yaml policies/README.md /etc/qgpu/examples/
install -m 0644 scripts/qgpu-apply.service /etc/systemd/system/qgpu-apply.service
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	systemctl enable qgpu-apply.service
fi
echo "install-host.sh: done; load the module with 'modprobe qgpu', then check with 'qgpuctl doctor'"
[ -e /etc/qgpu/policy.yaml ] ||
	echo "install-host.sh: write /etc/qgpu/policy.yaml (examples in /etc/qgpu/examples) to apply it at boot"
