#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test VM (Debian's kernel under QEMU software emulation), load nvsim and qgpu, run COMMAND in
# the project directory inside the guest, and exit with COMMAND's exit code.
#
# The guest sees the host's root filesystem read-only and the project directory read-write at the same
# path, so it runs the host's Python, the project's .venv and the modules just built. The verdict comes
# from a result file the guest writes, never from QEMU's exit code (which is 0 whatever happens):
#   - no result file (the guest panicked, an oops, a WARN under panic_on_warn, a hang) -> failure;
#   - an oops, BUG or WARN in the guest's kernel log -> failure, even if COMMAND succeeded;
#   - the timeout -> failure.
set -euo pipefail

usage() {
	cat <<USAGE
usage: scripts/vm.sh [OPTIONS] -- COMMAND [ARG...]

Boot the test VM, load the modules and run COMMAND in the project directory inside the guest.
Exits with COMMAND's exit code; 124 on timeout, 125 if a module failed to load, 130+ (see below) if the
guest died or its kernel logged an oops/BUG/WARN.

options:
  --load LIST          modules to load, comma-separated, in order (default: nvsim,qgpu)
  --no-modules         load none of the project's modules
  --nvsim-args ARGS    module parameters for nvsim.ko (e.g. "num_gpus=2 abi_version=535.104.05")
  --qgpu-args ARGS     module parameters for qgpu.ko
  --insmod 'PATH ARGS' load one more module after the others (repeatable; used by the harness tests)
  --timeout SECS       wall-clock limit for the whole boot (default: 600)
  --mem MIB            guest memory (default: 2048)
  --smp N              guest CPUs (default: 2)
  --keep               keep the run directory (build/vm/runs/...) even on success
  -h, --help           this help

exit codes: COMMAND's own; 124 timeout; 125 a module failed to load; 126 the guest could not start
COMMAND; 131 the guest died without a result (panic, oops under oops=panic, WARN under panic_on_warn);
132 the guest's kernel log shows an oops, BUG or WARN.
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
load=nvsim,qgpu
nvsim_args=
qgpu_args=
extra=()
timeout=600
mem=2048
smp=2
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--load) load=$2; shift 2 ;;
	--no-modules) load=; shift ;;
	--nvsim-args) nvsim_args=$2; shift 2 ;;
	--qgpu-args) qgpu_args=$2; shift 2 ;;
	--insmod) extra+=("$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) echo "vm.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
if [ $# -eq 0 ]; then
	echo "vm.sh: no COMMAND given (see --help)" >&2
	exit 2
fi

kver=$("$top/scripts/kver.sh")
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] || { echo "vm.sh: $kernel not found (run 'make deps')" >&2; exit 2; }

# Modules to load, as name:path:args entries.
modules=()
IFS=, read -r -a names <<<"$load"
for name in "${names[@]}"; do
	case "$name" in
	nvsim) modules+=("nvsim:$top/kmod/nvsim/nvsim.ko:$nvsim_args") ;;
	qgpu) modules+=("qgpu:$top/kmod/qgpu.ko:$qgpu_args") ;;
	"") ;;
	*) echo "vm.sh: unknown module '$name' in --load (known: nvsim, qgpu)" >&2; exit 2 ;;
	esac
done
for e in ${extra[@]+"${extra[@]}"}; do
	read -r path args <<<"$e"
	modules+=("$(basename "$path" .ko):$(realpath "$path"):$args")
done
for m in ${modules[@]+"${modules[@]}"}; do
	IFS=: read -r name path _ <<<"$m"
	[ -r "$path" ] || { echo "vm.sh: $path not found (run 'make build')" >&2; exit 2; }
done

initramfs=$("$top/scripts/vm-initramfs.sh" "$kver")

mkdir -p "$top/build/vm/runs"
run=$(mktemp -d "$top/build/vm/runs/run.XXXXXX")
{
	printf 'QGPU_VM_MODULES=('
	for m in ${modules[@]+"${modules[@]}"}; do printf '%q ' "$m"; done
	printf ')\n'
	# Test configuration travels as QGPU_* variables.
	while IFS= read -r v; do
		case "$v" in QGPU_VM_* | QGPU_IN_VM) ;; *) printf 'export %s=%q\n' "$v" "${!v}" ;; esac
	done < <(compgen -e | grep '^QGPU_' || true)
} >"$run/env"
{
	printf 'cd %q || exit 126\n' "$PWD"
	printf 'exec'
	printf ' %q' "$@"
	printf '\n'
} >"$run/cmd"

# The guest runs Python under emulation, some 40 times slower than here, and writes no bytecode
# (vm-guest.sh): compile the project's own modules here, once, so that each guest process reads
# them rather than compiling them again (`qgpuctl --help` took 23 s a run in the guest, 16 s with
# qgpuctl compiled). Only a speed-up: the guest compiles whatever is missing or stale itself.
if [ -x "$top/.venv/bin/python" ]; then
	PYTHONDONTWRITEBYTECODE='' "$top/.venv/bin/python" -m compileall -q \
		"$top/qgpuctl" "$top/tests/guest" "$top/bench" >/dev/null ||
		echo "vm.sh: compiling the project's Python failed; the guest compiles it itself" >&2
fi

append="console=ttyS0 loglevel=5 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1"
append+=" qgpuvm_proj=$top qgpuvm_run=$run"

set +e
timeout --kill-after=10 "$timeout" qemu-system-x86_64 \
	-accel tcg -cpu max -m "$mem" -smp "$smp" \
	-nodefaults -no-user-config -display none -no-reboot \
	-chardev stdio,id=console,signal=off -serial chardev:console \
	-kernel "$kernel" -initrd "$initramfs" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,readonly=on,security_model=none,multidevs=remap \
	-virtfs "local,path=$top,mount_tag=proj,security_model=none,multidevs=remap" \
	</dev/null 2>&1 | tee "$run/console.log"
qemu_rc=${PIPESTATUS[0]}
set -e

# Kernel-log lines that fail a run whatever COMMAND said.
bad='(WARNING: CPU:|------------\[ cut here \]|BUG:|Oops|kernel BUG at|general protection fault|Kernel panic|UBSAN:|KASAN:|refcount_t:|list_(add|del) corruption|INFO: task .* blocked for more than)'
verdict() {
	echo "vm.sh: $1" >&2
	if [ $keep -eq 0 ] && [ "$2" -eq 0 ]; then
		rm -rf "$run"
	else
		echo "vm.sh: run directory kept: $run" >&2
	fi
	exit "$2"
}

if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
	verdict "FAIL: the guest did not finish within ${timeout}s" 124
fi
if [ ! -s "$run/rc" ]; then
	why=$(grep -m1 -aE "$bad" "$run/console.log" || true)
	verdict "FAIL: the guest died without a result (QEMU exit $qemu_rc)${why:+: $why}" 131
fi
rc=$(cat "$run/rc")
if grep -qaE "$bad" "$run/dmesg"; then
	grep -aE -m5 "$bad" "$run/dmesg" >&2
	verdict "FAIL: the guest kernel log shows an oops, BUG or WARN (command exit $rc)" 132
fi
verdict "guest command exited $rc" "$rc"
