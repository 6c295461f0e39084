#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test VM's initramfs (busybox only). Mounts the host's root filesystem read-only over 9p,
# the project directory read-write at the same path, then switches root into it and hands over to
# scripts/vm-guest.sh, so the guest runs the host's own Python, .venv and freshly built modules.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

die() {
	echo "vm-init: $*" >&2
	echo o >/proc/sysrq-trigger
	sleep 10
}

for m in $(cat /modules.order); do
	insmod "/modules/$m" || die "insmod $m failed"
done

proj=
run=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	qgpuvm_proj=*) proj=${arg#qgpuvm_proj=} ;;
	qgpuvm_run=*) run=${arg#qgpuvm_run=} ;;
	esac
done
[ -n "$proj" ] && [ -n "$run" ] || die "qgpuvm_proj= and qgpuvm_run= missing from the kernel command line"

mkdir -p /newroot
# The read-only root may cache freely; the project share must not, so the host sees results at once.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 hostroot /newroot ||
	die "cannot mount the host root filesystem"
# The project's virtualenv is only read in the guest, and every Python process there imports
# typer and pydantic from it: give it the root's cached view rather than the uncached project
# share's: `qgpuctl list -o json` took 11.0 s a run through this view and 13.6 s through the share
# (3 runs each, one boot).
# Taken now, before a tmpfs can hide a project that lives under /tmp; a symbolic link is left alone.
venv=
if [ -d "/newroot$proj/.venv" ] && [ ! -L "/newroot$proj/.venv" ]; then
	mkdir -p /venv
	mount --bind "/newroot$proj/.venv" /venv && venv=/venv
fi
for d in tmp run var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d"
done
# ORDER: after the tmpfs mounts, so a project that lives under /tmp (a CI clone) is not hidden;
# its mount point is then created in the tmpfs (on the read-only root it exists already).
mkdir -p "/newroot$proj" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 proj "/newroot$proj" ||
	die "cannot mount the project directory $proj"
[ -z "$venv" ] || mount --move "$venv" "/newroot$proj/.venv" ||
	die "cannot mount the cached view of $proj/.venv"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
exec switch_root /newroot /bin/bash "$proj/scripts/vm-guest.sh" "$proj" "$run"
