#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the test VM after switch_root (see vm-init.sh). Loads the requested modules, runs the
# command vm.sh wrote into the run directory, records its exit code and the kernel log there, and
# powers off. vm.sh judges the run by those files, never by QEMU's exit code.
proj=$1
run=$2
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
export QGPU_IN_VM=1 QGPU_VM_RUN="$run"

mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm

finish() {
	dmesg >"$run/dmesg" 2>&1
	echo "$1" >"$run/rc.tmp" && mv "$run/rc.tmp" "$run/rc"
	sync
	exec /bin/busybox poweroff -f
}

cd "$proj" || finish 126
# shellcheck source=/dev/null
. "$run/env"

# Modules: "name:path:args" entries, loaded in order; a module that cannot load fails the run.
for entry in "${QGPU_VM_MODULES[@]}"; do
	IFS=: read -r name path args <<<"$entry"
	# shellcheck disable=SC2086
	if ! insmod "$path" $args; then
		echo "vm-guest: loading $name ($path $args) failed" >&2
		finish 125
	fi
	echo "vm-guest: loaded $name $args"
done

bash "$run/cmd"
rc=$?
finish "$rc"
