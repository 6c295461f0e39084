#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of `make demo` (runs inside the test VM, nvsim with 2 GPUs and qgpu loaded):
# instances from a policy file with qgpuctl, nvsim-load workloads through their nodes, the memory
# limits and the achieved shares (a table, and a plot in build/demo/shares.png).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# This tree's qgpuctl, whatever checkout the virtualenv's editable install points at.
export PYTHONPATH="$top${PYTHONPATH:+:$PYTHONPATH}" COLUMNS=120
qgpuctl() { .venv/bin/qgpuctl "$@"; }
load() { build/bin/nvsim-load "$@"; }
out=build/demo
policy=policies/demo.yaml
instances=(infer train batch)
seconds=${QGPU_DEMO_SECONDS:-20}
sys=/sys/class/qgpu/gpu0

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '\033[36m-> %s\033[0m\n' "$*"; }
show() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

rm -rf "$out"
mkdir -p "$out"

section "the machine: kernel $(uname -r), nvsim (simulated NVIDIA driver) and qgpu loaded"
grep -E '^(nvsim|qgpu) ' /proc/modules | awk '{ print $1, "(" $2 " bytes)" }'
show qgpuctl gpus
say "two simulated GPUs of 16 GiB; qgpu manages both"

section "1. instances from a policy file"
grep -v '^#' "$policy" | sed '/^$/d'
show qgpuctl apply -f "$policy" --dry-run
show qgpuctl apply -f "$policy"
show qgpuctl list
show ls -l /dev/qgpu/infer
say "each instance has its own /dev/qgpu/<name>/{nvidiactl,nvidia0,nvidia-uvm}: a container mounts"
say "them as its /dev/nvidia* (qgpuctl cdi generate; podman run --device qgpu.io/vgpu=infer)"

section "2. a libcuda-style client through an instance's nodes (nvsim-load)"
show load --dev /dev/qgpu/infer info

section "3. memory limits"
if [ -e "$sys/instances/infer/mem_current" ]; then
	say "infer's limit is 4 GiB: six 1 GiB allocations through its nodes, the ones past 4 GiB fail"
	show load --dev /dev/qgpu/infer alloc 1G --count 6 || say "(exit $?: refused past the limit)"
	show cat "$sys/instances/infer/mem_peak" "$sys/instances/infer/events"
	show grep -E '^(rm_client|seal|seal_uvm):' /proc/qgpu/status
	say "video memory is allocated by qgpu itself; what it forwards is sealed: the driver and UVM"
	say "read qgpu's copy of each request, so a tenant thread rewriting it mid-call changes nothing"
else
	say "infer's limit is 4 GiB (mem_max: $(cat "$sys/instances/infer/mem_max") bytes); six 1 GiB allocations:"
	show load --dev /dev/qgpu/infer alloc 1G --count 6 || true
	say "NOT ENFORCED YET: qgpu.ko records the limit but does not yet decode allocations, so all six"
	say "succeed above. Enforcement arrives with the memory-limit work: then the allocations past 4 GiB"
	say "fail with NV_ERR_NO_MEMORY and the instance sees 4 GiB as its GPU's size."
fi

section "4. workloads: nvsim-load run through each instance at once (${seconds} s of 1 ms kernels)"
cat /proc/driver/nvsim/gpu0/busy >"$out/busy-before.txt"
pids=()
for i in "${instances[@]}"; do
	build/bin/nvsim-load --dev "/dev/qgpu/$i" run --seconds "$seconds" --kernel-us 1000 --json \
		>"$out/run-$i.json" &
	pids+=($!)
	echo "started nvsim-load run through /dev/qgpu/$i: pid $!"
done
# qgpuctl status while they run: started now, since the CLI itself takes seconds to start here.
qgpuctl status >"$out/status.txt" 2>&1 &
status_pid=$!
# Which process belongs to which instance: the instances' processes files (PID COMM).
for i in "${instances[@]}"; do
	for _ in $(seq 100); do
		[ -s "$sys/instances/$i/processes" ] && break
		sleep 0.2
	done
	cat "$sys/instances/$i/processes" >"$out/procs-$i.txt"
	echo "$sys/instances/$i/processes: $(tr '\n' ' ' <"$out/procs-$i.txt")"
done
wait "$status_pid"
printf '\033[2m$ qgpuctl status   (while they run)\033[0m\n'
cat "$out/status.txt"
[ -e "$sys/instances/infer/mem_current" ] ||
	say "(qgpu.ko does not account memory or GPU time per instance yet: those columns show '-')"
wait "${pids[@]}"
cat /proc/driver/nvsim/gpu0/busy >"$out/busy-after.txt"
for i in "${instances[@]}"; do echo "$i: $(cat "$out/run-$i.json")"; done

section "5. achieved shares (nvsim's ground truth: /proc/driver/nvsim/gpu0/busy per pid)"
if [ -e "$sys/policy" ]; then
	note="policy $(cat "$sys/policy"): shares enforced by qgpu"
else
	note="compute shares not enforced yet: the simulated gpu runs busy channel groups round robin"
fi
.venv/bin/python scripts/demo_report.py --dir "$out" --seconds "$seconds" --note "$note" "${instances[@]}"
if [ ! -e "$sys/policy" ]; then
	say "NOT ENFORCED YET: the guarantees (50/30/20%) are recorded but qgpu.ko does not schedule yet, so"
	say "every busy instance gets about the same share. fixed-share/burst-share scheduling (and online"
	say "preempting offline) arrives with the compute-scheduling work."
fi

section "6. the declarative path: assert, and pruning back to nothing"
show qgpuctl assert -f "$policy"
printf 'version: v1\ngpus:\n  - selector: {index: 0}\n    instances: []\n' >"$out/empty.yaml"
show qgpuctl apply -f "$out/empty.yaml" --prune
say "done: the table is in $out/shares.json, the plot in $out/shares.png"
