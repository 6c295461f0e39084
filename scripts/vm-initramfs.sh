#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the test VM's initramfs for kernel KVER and print its path: a static busybox, our /init
# and the modules 9p over virtio needs, in dependency order. Cached under build/vm/, keyed by what goes in.
set -euo pipefail
kver=$1
top=$(cd "$(dirname "$0")/.." && pwd)
busybox=/bin/busybox
mods=$(modprobe -a -S "$kver" --show-depends virtio_pci 9pnet_virtio 9p | awk '$1 == "insmod" { print $2 }' |
	awk '!seen[$0]++')
key=$( (echo "$kver"; cat "$top/scripts/vm-init.sh"; sha256sum "$busybox"; echo "$mods") | sha256sum | cut -c1-16)
out=$top/build/vm/initramfs-$kver-$key.cpio.gz
if [ ! -s "$out" ]; then
	mkdir -p "$top/build/vm"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{bin,dev,proc,sys,modules,newroot}
	cp "$busybox" "$tmp/bin/busybox"
	cp "$top/scripts/vm-init.sh" "$tmp/init"
	chmod 0755 "$tmp/init"
	for m in $mods; do
		cp "$m" "$tmp/modules/"
		basename "$m" >>"$tmp/modules.order"
	done
	(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
	mv "$out.tmp" "$out"
	find "$top/build/vm" -maxdepth 1 -name "initramfs-$kver-*.cpio.gz" ! -name "$(basename "$out")" -delete
fi
echo "$out"
