#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install everything qgpu needs on a Debian 12 machine, and nothing that is already there:
#   - Debian packages, by name, only those missing (naming an installed one would upgrade it);
#   - checkpatch.pl and kernel-doc, extracted once from Debian's linux-source into a machine-wide cache;
#   - the virtualenv .venv/ with the project installed from pyproject.toml (re-run when it changes).
# Idempotent: with nothing missing it only looks, and takes well under a second.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# The test VM needs the kernel image and headers, QEMU, a static busybox for the initramfs, kmod and cpio;
# the lint needs sparse (and perl for checkpatch); dkms is tested for real.
pkgs=(linux-image-amd64 linux-headers-amd64 qemu-system-x86 busybox-static dkms cpio kmod sparse
	gcc make perl xz-utils coreutils)
python3 -c 'import venv, ensurepip' 2>/dev/null || pkgs+=(python3-venv)

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "deps.sh: '$*' needs root and sudo is not available" >&2
		exit 1
	fi
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing Debian packages: ${missing[*]}"
	as_root apt-get update -qq
	# INITRD=No: the guest boots our own small initramfs; Debian's would cost ~40 s to build and is unused.
	as_root env INITRD=No DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}"
fi

# checkpatch.pl and kernel-doc are not in the headers packages; they live in linux-source-X.Y.
kver=$(scripts/kver.sh)
kscripts=$(scripts/kscripts-dir.sh)
if [ ! -x "$kscripts/checkpatch.pl" ] || [ ! -x "$kscripts/kernel-doc" ]; then
	series=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")
	echo "deps.sh: fetching checkpatch.pl and kernel-doc from linux-source-$series"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q "linux-source-$series" >/dev/null 2>&1) || {
		as_root apt-get update -qq
		(cd "$tmp" && apt-get download -q "linux-source-$series")
	}
	dpkg-deb --fsys-tarfile "$tmp"/linux-source-*.deb | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
	members=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch scripts/kernel-doc)
	tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$tmp" --wildcards \
		"${members[@]/#/linux-source-*/}"
	as_root mkdir -p "$kscripts"
	as_root cp "$tmp"/linux-source-*/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch,kernel-doc} "$kscripts/"
	as_root chmod 0755 "$kscripts/checkpatch.pl" "$kscripts/kernel-doc"
fi

# The virtualenv: the guest runs it too, over the shared host filesystem, so it must use a host Python
# at a path that exists in both (any system or pyenv Python does).
stamp=.venv/.qgpu-deps-stamp
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "deps.sh: setting up .venv"
	[ -x .venv/bin/python ] || python3 -m venv .venv
	.venv/bin/python -m pip install -q --upgrade pip
	.venv/bin/python -m pip install -q -e '.[dev]'
	echo "$want" >"$stamp"
fi
